// The local player's unacknowledged inputs; mirrors PredictionBuffer.swift.

/** Inputs by sequence number, oldest first, at most `capacity` (128 by default). */
export class PredictionBuffer {
  /** @param {number} [capacity] */
  constructor(capacity = 128) {
    /** @type {number} */
    this.capacity = Math.max(1, capacity);
    /** @type {number[]} */
    this.sequences = [];
    /** @type {unknown[]} */
    this.inputs = [];
  }

  /** @returns {number} */
  get count() {
    return this.sequences.length;
  }

  /**
   * @param {unknown} input
   * @param {number} sequence Must grow; an older one is ignored.
   */
  record(input, sequence) {
    const last = this.sequences[this.sequences.length - 1];
    if (last !== undefined && sequence <= last) return;
    this.sequences.push(sequence);
    this.inputs.push(input);
    if (this.sequences.length > this.capacity) {
      this.sequences.splice(0, this.sequences.length - this.capacity);
      this.inputs.splice(0, this.inputs.length - this.capacity);
    }
  }

  /** @param {number} lastProcessed Drops inputs the server has applied. */
  acknowledge(lastProcessed) {
    let drop = 0;
    while (drop < this.sequences.length && this.sequences[drop] <= lastProcessed) drop += 1;
    this.sequences.splice(0, drop);
    this.inputs.splice(0, drop);
  }

  /**
   * @param {number} count
   * @returns {unknown[]} The newest `count` inputs, newest first (an input message's order).
   */
  newest(count) {
    return this.inputs.slice(Math.max(0, this.inputs.length - Math.max(0, count))).reverse();
  }

  removeAll() {
    this.sequences = [];
    this.inputs = [];
  }
}
