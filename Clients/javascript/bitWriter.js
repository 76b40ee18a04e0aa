// Writing bit streams (PROTOCOL.md 2.2); mirrors BitWriter.swift. The client decodes snapshots
// and never encodes them; the writer serves tests and tools.

/** Appends items least significant bit first, padding the last byte with zeros. */
export class BitWriter {
  constructor() {
    /** @type {number[]} */
    this.buffer = [];
    /** @type {number} Bits written. */
    this.bitCount = 0;
  }

  /**
   * Writes `u(bits)`.
   * @param {number | bigint} value Below 2^bits.
   * @param {number} bits 0 … 64.
   */
  write(value, bits) {
    let rest = BigInt(value);
    for (let index = 0; index < bits; index++) {
      this.writeBit(Number(rest & 1n));
      rest >>= 1n;
    }
  }

  /** @param {number} bit 0 or 1. */
  writeBit(bit) {
    if ((this.bitCount & 7) === 0) this.buffer.push(0);
    if (bit) this.buffer[this.buffer.length - 1] |= 1 << (this.bitCount & 7);
    this.bitCount += 1;
  }

  /** @param {boolean} value */
  writeBool(value) {
    this.writeBit(value ? 1 : 0);
  }

  /** @param {number | bigint} value A `bvarint` below 2^64. */
  writeVarint(value) {
    let rest = BigInt(value);
    while (rest >= 0x80n) {
      this.write((rest & 0x7fn) | 0x80n, 8);
      rest >>= 7n;
    }
    this.write(rest, 8);
  }

  /** @param {number | bigint} value A `gamma` code of a value ≥ 1. */
  writeGamma(value) {
    const big = BigInt(value);
    const bits = big.toString(2).length - 1;
    for (let index = 0; index < bits; index++) this.writeBit(0);
    this.writeBit(1);
    this.write(big - (1n << BigInt(bits)), bits);
  }

  /** @returns {Uint8Array} The stream, zero-padded to a byte. */
  get bytes() {
    return Uint8Array.from(this.buffer);
  }
}

/**
 * Zigzag-maps a signed 64-bit value to an unsigned one (PROTOCOL.md 2.2).
 * @param {bigint} value
 * @returns {bigint}
 */
export function zigzag(value) {
  return BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
}
