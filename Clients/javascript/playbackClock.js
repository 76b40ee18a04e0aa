// The render clock that follows the target time smoothly; mirrors PlaybackClock.swift.

/** Advances render time at a rate within ±5 % of real time towards a target, snapping past 0.25 s. */
export class PlaybackClock {
  constructor() {
    this.maximumRateChange = 0.05;
    this.gain = 2.0;
    this.snapThreshold = 0.25;
    /** @type {number | undefined} */
    this.renderTime = undefined;
    this.rate = 1.0;
  }

  /**
   * @param {number} elapsed Seconds since the last call.
   * @param {number} target The time to render at ideally.
   * @returns {number} The render time.
   */
  advance(elapsed, target) {
    if (this.renderTime === undefined) {
      this.renderTime = target;
      return target;
    }
    let time = this.renderTime + Math.max(0, elapsed) * this.rate;
    const error = target - time;
    if (Math.abs(error) > this.snapThreshold) {
      time = target;
      this.rate = 1;
    } else {
      this.rate = 1 + Math.min(Math.max(error * this.gain, -this.maximumRateChange), this.maximumRateChange);
    }
    this.renderTime = time;
    return time;
  }

  reset() {
    this.renderTime = undefined;
    this.rate = 1;
  }
}
