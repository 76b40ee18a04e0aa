// Reading the bit streams of snapshot deltas (PROTOCOL.md 2.2); mirrors BitReader.swift.
// Values of up to 52 bits are numbers; wider ones (a 64-bit integer field) are bigints.
import { CodecError } from './errors.js';

/** Powers of two 2^0 … 2^64 as numbers, for assembling values without 32-bit overflow. */
const pow2 = Array.from({ length: 65 }, (_, index) => 2 ** index);

/**
 * The error for a read past the end.
 * @param {number} needed
 * @param {number} available
 * @returns {CodecError}
 */
function truncated(needed, available) {
  return new CodecError('truncated', { neededBits: needed, availableBits: available },
    `input ends early: needed ${needed} more bits, only ${available} left`);
}

/** Reads items least significant bit first from a byte array; every read checks the bits left. */
export class BitReader {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    /** @type {Uint8Array} */
    this.bytes = bytes;
    /** @type {number} The next bit to read. */
    this.position = 0;
    /** @type {number} */
    this.endBit = bytes.length * 8;
  }

  /**
   * Starts reading other bytes from their first bit, so that one reader serves many decodes.
   * @param {Uint8Array} bytes
   */
  reset(bytes) {
    this.bytes = bytes;
    this.position = 0;
    this.endBit = bytes.length * 8;
  }

  /** @returns {number} Bits not read yet. */
  get remainingBits() {
    return this.endBit - this.position;
  }

  /**
   * Reads `u(bits)` as a number.
   * @param {number} bits 0 … 52.
   * @returns {number}
   * @throws {CodecError} `truncated`.
   */
  read(bits) {
    if (bits > this.endBit - this.position) throw truncated(bits, this.endBit - this.position);
    const bytes = this.bytes;
    let position = this.position;
    if (bits <= 25) {
      // The hot path: the (at most four) bytes holding the value in one 32-bit word; bytes
      // past the end read as 0 (undefined | 0), and those bits are never used.
      const index = position >>> 3;
      const word = bytes[index] | (bytes[index + 1] << 8) | (bytes[index + 2] << 16) | (bytes[index + 3] << 24);
      this.position = position + bits;
      return ((word >>> (position & 7)) & ((1 << bits) - 1)) >>> 0;
    }
    let result = 0;
    let written = 0;
    while (written < bits) {
      const offset = position & 7;
      const take = Math.min(8 - offset, bits - written);
      const chunk = (bytes[position >>> 3] >>> offset) & ((1 << take) - 1);
      result += chunk * pow2[written];
      written += take;
      position += take;
    }
    this.position = position;
    return result;
  }

  /**
   * Reads `u(bits)` as a bigint.
   * @param {number} bits 0 … 64.
   * @returns {bigint}
   * @throws {CodecError} `truncated`.
   */
  readBig(bits) {
    if (bits > this.endBit - this.position) throw truncated(bits, this.endBit - this.position);
    if (bits <= 32) return BigInt(this.read(bits));
    const low = this.read(32);
    return (BigInt(this.read(bits - 32)) << 32n) | BigInt(low);
  }

  /** @returns {boolean} A `bool`. @throws {CodecError} `truncated`. */
  readBool() {
    if (this.position >= this.endBit) throw truncated(1, 0);
    const bit = (this.bytes[this.position >>> 3] >>> (this.position & 7)) & 1;
    this.position += 1;
    return bit === 1;
  }

  /**
   * Reads a `bvarint` (LEB128 in 8-bit groups). Values above 2^53 lose precision, which only
   * matters for values that are refused anyway (counts, ids, ticks); the checks run on the groups.
   * @returns {number}
   * @throws {CodecError} `truncated`, `malformedVarint`.
   */
  readVarint() {
    const start = this.position;
    let value = 0;
    let shift = 0;
    for (;;) {
      const group = this.read(8);
      if (shift === 63 && group > 1) throw malformedVarint(start);
      value += (group & 0x7f) * pow2[shift];
      if ((group & 0x80) === 0) {
        if ((group & 0x7f) === 0 && shift > 0) throw malformedVarint(start);
        return value;
      }
      shift += 7;
    }
  }

  /**
   * Reads a `bvarint` that must fit in 32 bits.
   * @param {string} what The value's name for the error.
   * @returns {number}
   * @throws {CodecError} `valueOutOfRange` and the varint errors.
   */
  readVarint32(what) {
    const value = this.readVarint();
    if (value > 0xffffffff) {
      throw new CodecError('valueOutOfRange', { what, value: String(value), allowed: '0...4294967295' },
        `${what} is ${value}, outside the allowed 0...4294967295`);
    }
    return value;
  }

  /**
   * Reads an Elias-gamma code: a number when it has at most 52 value bits, else a bigint.
   * @returns {number | bigint}
   * @throws {CodecError} `truncated`, `malformedGammaCode`.
   */
  readGamma() {
    const start = this.position;
    const bytes = this.bytes;
    // The hot path, small enough to inline: a code of up to 25 bits, found with one word and clz32.
    const available = this.endBit - start;
    if (available >= 25) {
      const index = start >>> 3;
      const word = (bytes[index] | (bytes[index + 1] << 8) | (bytes[index + 2] << 16) | (bytes[index + 3] << 24)) >>> (start & 7);
      const window = word & 0x1fff;
      if (window !== 0) {
        const zeros = 31 - Math.clz32(window & -window);
        this.position = start + 2 * zeros + 1;
        return (1 << zeros) | ((word >>> (zeros + 1)) & ((1 << zeros) - 1));
      }
    }
    return this.readLongGamma();
  }

  /**
   * Reads an Elias-gamma code the hot path of `readGamma` does not take: more than 12 leading
   * zeros, or near the end of the stream.
   * @returns {number | bigint}
   * @throws {CodecError} `truncated`, `malformedGammaCode`.
   */
  readLongGamma() {
    const start = this.position;
    let zeros = 0;
    const bytes = this.bytes;
    // The first 1 bit within the next 25 bits, found with one word and clz32.
    const available = this.endBit - start;
    if (available > 0) {
      const index = start >>> 3;
      const word = (bytes[index] | (bytes[index + 1] << 8) | (bytes[index + 2] << 16) | (bytes[index + 3] << 24)) >>> (start & 7);
      const window = available >= 25 ? word & 0x1ffffff : word & ((1 << available) - 1);
      if (window !== 0) {
        zeros = 31 - Math.clz32(window & -window);
        this.position = start + zeros + 1;
        // Small integers stay small integers (zeros ≤ 24 here), which keeps the caller's arithmetic in int32.
        return (1 << zeros) | this.read(zeros);
      }
    }
    for (;;) {
      if (this.position >= this.endBit) throw truncated(1, 0);
      const bit = (bytes[this.position >>> 3] >>> (this.position & 7)) & 1;
      this.position += 1;
      if (bit === 1) break;
      zeros += 1;
      if (zeros > 63) {
        throw new CodecError('malformedGammaCode', { atBit: start }, `malformed gamma code at bit ${start}: more than 63 leading zero bits`);
      }
    }
    if (zeros <= 52) return pow2[zeros] + this.read(zeros);
    return (1n << BigInt(zeros)) | this.readBig(zeros);
  }

  /**
   * Checks the end of the stream: fewer than 8 bits left, all zero.
   * @throws {CodecError} `trailingData`.
   */
  finish() {
    const left = this.endBit - this.position;
    if (left >= 8 || (left > 0 && this.read(left) !== 0)) {
      throw new CodecError('trailingData', { bits: left },
        `${left} bits follow the end of the encoding (only zero padding to a byte boundary is allowed)`);
    }
  }
}

/**
 * @param {number} start
 * @returns {CodecError}
 */
function malformedVarint(start) {
  return new CodecError('malformedVarint', { atBit: start }, `malformed varint at bit ${start}: longer than 64 bits or not in shortest form`);
}
