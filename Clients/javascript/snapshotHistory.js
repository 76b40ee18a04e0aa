// The snapshots a client holds as baselines, by tick; mirrors SnapshotHistory.swift and SnapshotHistory+Receive.swift.

/** @typedef {import('./snapshot.js').Snapshot} Snapshot */
/** @typedef {import('./entropyDecoder.js').Motion} Motion */

/** A fixed number of slots indexed by tick modulo the capacity (32 by default, as the host's history). */
export class SnapshotHistory {
  /** @param {number} [capacity] */
  constructor(capacity = 32) {
    /** @type {number} */
    this.capacity = Math.max(1, capacity);
    /** @type {Array<Snapshot | undefined>} */
    this.slots = new Array(this.capacity).fill(undefined);
    /** @type {Array<Motion | undefined>} The motion kept with each slot's snapshot (motion-predicted deltas, PROTOCOL.md 4.5.6). */
    this.motions = new Array(this.capacity).fill(undefined);
    /** @type {number | undefined} The newest tick stored (ticks wrap modulo 2^32). */
    this.newestTick = undefined;
  }

  /**
   * @param {Snapshot} snapshot
   * @param {Motion} [motion] Its motion against its baseline, kept for the motion-predicted coding.
   */
  store(snapshot, motion) {
    this.slots[snapshot.tick % this.capacity] = snapshot;
    this.motions[snapshot.tick % this.capacity] = motion;
    if (this.newestTick === undefined || ((snapshot.tick - this.newestTick) >>> 0) < 2 ** 31) this.newestTick = snapshot.tick;
  }

  /**
   * @param {number} tick
   * @returns {Snapshot | undefined} The snapshot of that tick, if still held.
   */
  snapshot(tick) {
    if (this.newestTick === undefined || ((this.newestTick - tick) >>> 0) >= this.capacity) return undefined;
    const stored = this.slots[tick % this.capacity];
    return stored && stored.tick === tick ? stored : undefined;
  }

  /**
   * @param {number} tick
   * @returns {Motion | undefined} The motion stored with the snapshot of that tick, if it is still held.
   */
  motion(tick) {
    return this.snapshot(tick) ? this.motions[tick % this.capacity] : undefined;
  }

  removeAll() {
    this.slots.fill(undefined);
    this.motions.fill(undefined);
    this.newestTick = undefined;
  }

  /**
   * Whether a decoded tick is older than (or the same as) the newest held.
   * @param {number} tick
   * @returns {boolean}
   */
  isStale(tick) {
    return this.newestTick !== undefined && (((tick - this.newestTick) >>> 0) >= 2 ** 31 || tick === this.newestTick);
  }
}
