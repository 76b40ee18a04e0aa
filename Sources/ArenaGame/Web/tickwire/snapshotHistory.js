// The snapshots a client holds as baselines, by tick; mirrors SnapshotHistory.swift and SnapshotHistory+Receive.swift.

/** @typedef {import('./snapshot.js').Snapshot} Snapshot */

/** A fixed number of slots indexed by tick modulo the capacity (32 by default, as the host's history). */
export class SnapshotHistory {
  /** @param {number} [capacity] */
  constructor(capacity = 32) {
    /** @type {number} */
    this.capacity = Math.max(1, capacity);
    /** @type {Array<Snapshot | undefined>} */
    this.slots = new Array(this.capacity).fill(undefined);
    /** @type {number | undefined} The newest tick stored (ticks wrap modulo 2^32). */
    this.newestTick = undefined;
  }

  /** @param {Snapshot} snapshot */
  store(snapshot) {
    this.slots[snapshot.tick % this.capacity] = snapshot;
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

  removeAll() {
    this.slots.fill(undefined);
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
