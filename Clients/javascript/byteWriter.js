// Byte-level writing of message bodies (PROTOCOL.md 2.1); mirrors ByteWriter.swift.
import { FrameError } from './errors.js';

const utf8 = new TextEncoder();

/** Appends big-endian integers, LEB128 varints and length-prefixed byte strings to a growing buffer. */
export class ByteWriter {
  /** @param {number} [capacity] Initial capacity in bytes. */
  constructor(capacity = 32) {
    /** @type {Uint8Array} */
    this.buffer = new Uint8Array(Math.max(8, capacity));
    /** @type {number} Bytes written. */
    this.count = 0;
  }

  /** @param {number} extra */
  reserve(extra) {
    if (this.count + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.count + extra));
    grown.set(this.buffer.subarray(0, this.count));
    this.buffer = grown;
  }

  /** @returns {Uint8Array} A copy of the bytes written. */
  get bytes() {
    return this.buffer.slice(0, this.count);
  }

  /** @param {number} value A byte. */
  writeUInt8(value) {
    this.reserve(1);
    this.buffer[this.count++] = value & 0xff;
  }

  /** @param {number} value A `u16`, big-endian. */
  writeUInt16(value) {
    this.writeUInt8(value >>> 8);
    this.writeUInt8(value);
  }

  /** @param {bigint} value A `u64`, big-endian. */
  writeUInt64(value) {
    for (let shift = 56n; shift >= 0n; shift -= 8n) this.writeUInt8(Number((value >> shift) & 0xffn));
  }

  /** @param {number | bigint} value An unsigned varint (a number up to 2^53 − 1, or a bigint up to 2^64 − 1). */
  writeVarUInt(value) {
    if (typeof value === 'bigint') {
      let rest = BigInt.asUintN(64, value);
      while (rest >= 0x80n) {
        this.writeUInt8(Number(rest & 0x7fn) | 0x80);
        rest >>= 7n;
      }
      this.writeUInt8(Number(rest));
      return;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.writeUInt8((rest % 128) | 0x80);
      rest = Math.floor(rest / 128);
    }
    this.writeUInt8(rest);
  }

  /** @param {Uint8Array} bytes Appended as they are. */
  writeBytes(bytes) {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.count);
    this.count += bytes.length;
  }

  /**
   * Writes a `bytes` item, refusing one over its limit.
   * @param {Uint8Array} bytes
   * @param {string} field
   * @param {number} limit
   * @throws {FrameError} `lengthExceeded`.
   */
  writeLengthPrefixedBytes(bytes, field, limit) {
    if (bytes.length > limit) {
      throw new FrameError('lengthExceeded', { field, length: bytes.length, limit }, `${field} of ${bytes.length} bytes exceeds the limit of ${limit} bytes`);
    }
    this.writeVarUInt(bytes.length);
    this.writeBytes(bytes);
  }

  /**
   * Writes a `text` item (UTF-8).
   * @param {string} text
   * @param {string} field
   * @param {number} limit
   * @throws {FrameError} `lengthExceeded`.
   */
  writeString(text, field, limit) {
    this.writeLengthPrefixedBytes(utf8.encode(text), field, limit);
  }
}
