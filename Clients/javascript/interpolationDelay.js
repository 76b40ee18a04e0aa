// The adaptive interpolation delay; mirrors InterpolationDelay.swift.

/**
 * How far behind the server's clock to render: the snapshots' transit age plus two snapshot
 * intervals plus three times their arrival jitter, kept within 30 ms … 500 ms. Times in seconds.
 */
export class InterpolationDelay {
  /** @param {number} snapshotInterval The expected interval between snapshots (1 / tick rate). */
  constructor(snapshotInterval) {
    this.intervalMultiple = 2.0;
    this.jitterMultiple = 3.0;
    this.minimum = 0.03;
    this.maximum = 0.5;
    /** @type {number} Follows the actual interval slowly. */
    this.snapshotInterval = snapshotInterval;
    this.jitter = 0;
    this.age = 0;
    /** @type {number | undefined} */
    this.lastTransit = undefined;
    /** @type {number | undefined} */
    this.lastServerTime = undefined;
  }

  /**
   * Records a snapshot's arrival.
   * @param {number} serverTime The snapshot's server time.
   * @param {number} arrival The estimated server time at its arrival.
   */
  recordArrival(serverTime, arrival) {
    const transit = arrival - serverTime;
    if (this.lastTransit !== undefined) {
      this.jitter += (Math.abs(transit - this.lastTransit) - this.jitter) / 16;
      this.age += (transit - this.age) / 16;
    } else {
      this.age = transit;
    }
    this.lastTransit = transit;
    if (this.lastServerTime !== undefined && serverTime > this.lastServerTime) {
      this.snapshotInterval += (serverTime - this.lastServerTime - this.snapshotInterval) / 16;
    }
    this.lastServerTime = serverTime;
  }

  /** @returns {number} The delay to render at now. */
  get target() {
    return Math.min(Math.max(this.age + this.intervalMultiple * this.snapshotInterval + this.jitterMultiple * this.jitter, this.minimum), this.maximum);
  }
}
