// Estimating the server's clock from ping/pong round trips; mirrors ClockSync.swift. With the
// server's hold (PROTOCOL.md 5.9.1), NTP-style: rtt = (received - sent) - hold and offset =
// ((serverTime - hold - sent) + (serverTime - received)) / 2; a hold of 0 gives the original formula.

/**
 * @param {number[]} values
 * @returns {number} The median (0 for none).
 */
function median(values) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The offset between the local and the server clock, from the fastest third of the last 16
 * round trips, smoothed unless it jumps by more than 0.25 s. Times are in seconds.
 */
export class ClockSync {
  static windowSize = 16;
  static snapThreshold = 0.25;
  static smoothing = 0.2;

  constructor() {
    /** @type {number[]} */
    this.roundTrips = [];
    /** @type {number[]} */
    this.offsets = [];
    /** @type {number[]} */
    this.holds = [];
    this.nextSlot = 0;
    /** @type {number | undefined} Server time minus local time, once a sample arrived. */
    this.offset = undefined;
    /** @type {number} Median network round trip of the window (the server's hold left out when pongs carry it). */
    this.roundTrip = 0;
    /** @type {number} Median time the server held a ping before answering (0 when pongs do not say). */
    this.hold = 0;
    /** @type {number} Smoothed change between consecutive round trips. */
    this.jitter = 0;
    /** @type {number} */
    this.sampleCount = 0;
    /** @type {number | undefined} */
    this.lastRoundTrip = undefined;
  }

  /**
   * Adds one ping/pong sample.
   * @param {number} sent Local time the ping was sent.
   * @param {number} serverTime The pong's server time.
   * @param {number} received Local time the pong arrived.
   * @param {number} [hold] How long the server held the ping (the pong's hold, 5.9.1); 0 when it does not say.
   */
  addSample(sent, serverTime, received, hold = 0) {
    const held = Math.min(Math.max(0, hold), Math.max(0, received - sent));
    const rtt = Math.max(0, received - sent - held);
    const sampleOffset = ((serverTime - held - sent) + (serverTime - received)) / 2;
    if (this.roundTrips.length < ClockSync.windowSize) {
      this.roundTrips.push(rtt);
      this.offsets.push(sampleOffset);
      this.holds.push(held);
    } else {
      this.roundTrips[this.nextSlot] = rtt;
      this.offsets[this.nextSlot] = sampleOffset;
      this.holds[this.nextSlot] = held;
      this.nextSlot = (this.nextSlot + 1) % ClockSync.windowSize;
    }
    this.sampleCount += 1;
    if (this.lastRoundTrip !== undefined) this.jitter += (Math.abs(rtt - this.lastRoundTrip) - this.jitter) / 16;
    this.lastRoundTrip = rtt;
    this.roundTrip = median(this.roundTrips);
    this.hold = median(this.holds);
    const fastest = this.roundTrips.map((_, index) => index).sort((a, b) => this.roundTrips[a] - this.roundTrips[b]);
    const trusted = fastest.slice(0, Math.max(1, Math.floor(fastest.length / 3))).map((index) => this.offsets[index]);
    const robust = median(trusted);
    if (this.offset !== undefined && Math.abs(robust - this.offset) <= ClockSync.snapThreshold) {
      this.offset += (robust - this.offset) * ClockSync.smoothing;
    } else {
      this.offset = robust;
    }
  }

  /**
   * @param {number} local A local time.
   * @returns {number | undefined} The server's clock at that time, once known.
   */
  serverTime(local) {
    return this.offset === undefined ? undefined : local + this.offset;
  }
}
