// Byte-level reading of message bodies (PROTOCOL.md 2.1); mirrors ByteReader.swift.
import { FrameError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const twoTo32 = 0x1_0000_0000;

/** Reads big-endian integers, LEB128 varints, byte strings and UTF-8 texts; every read bounds-checked. */
export class ByteReader {
  /**
   * @param {Uint8Array} bytes The body; offsets in errors count from its first byte.
   */
  constructor(bytes) {
    /** @type {Uint8Array} */
    this.bytes = bytes;
    /** @type {number} The next byte to read. */
    this.offset = 0;
  }

  /** @returns {number} Bytes not read yet. */
  get remainingCount() {
    return this.bytes.length - this.offset;
  }

  /** @returns {boolean} Whether every byte was read. */
  get isAtEnd() {
    return this.offset === this.bytes.length;
  }

  /**
   * @param {number} count
   * @throws {FrameError} `truncated(offset, needed)`.
   */
  require(count) {
    const left = this.bytes.length - this.offset;
    if (count > left) {
      throw new FrameError('truncated', { offset: this.bytes.length, needed: count - left },
        `body ends at byte ${this.bytes.length} with ${count - left} more bytes needed`);
    }
  }

  /** @returns {number} A `u8`. @throws {FrameError} */
  readUInt8() {
    this.require(1);
    return this.bytes[this.offset++];
  }

  /** @returns {number} A big-endian `u16`. @throws {FrameError} */
  readUInt16() {
    this.require(2);
    const value = (this.bytes[this.offset] << 8) | this.bytes[this.offset + 1];
    this.offset += 2;
    return value;
  }

  /** @returns {bigint} A big-endian `u64`. @throws {FrameError} */
  readUInt64() {
    this.require(8);
    let value = 0n;
    for (let index = 0; index < 8; index++) value = (value << 8n) | BigInt(this.bytes[this.offset + index]);
    this.offset += 8;
    return value;
  }

  /**
   * Reads an unsigned LEB128 varint of up to 64 bits.
   * @returns {bigint}
   * @throws {FrameError} `truncated`, `varintOverflow` or `nonCanonicalVarint`.
   */
  readVarUIntBig() {
    const start = this.offset;
    const end = this.scanVarint();
    this.offset = end;
    if (end - start <= 7) {
      // Up to 49 bits: exact in a number, and one bigint conversion instead of one per group.
      let small = 0;
      for (let index = end - 1; index >= start; index--) small = small * 128 + (this.bytes[index] & 0x7f);
      return BigInt(small);
    }
    let value = 0n;
    for (let index = end - 1; index >= start; index--) value = (value << 7n) | BigInt(this.bytes[index] & 0x7f);
    return value;
  }

  /**
   * Reads a varint that must not exceed `maximum` (at most 2^53 − 1, so it is a number).
   * @param {string} field The field's name for the error.
   * @param {number} maximum
   * @returns {number}
   * @throws {FrameError} `valueOutOfRange(field, value, maximum)` and the varint errors.
   */
  readVarUInt(field, maximum) {
    const start = this.offset;
    const end = this.scanVarint();
    if (end - start > 7) {
      this.offset = start;
      const big = this.readVarUIntBig();
      if (big > BigInt(maximum)) throw FrameReaderErrors.outOfRange(field, big, maximum);
      return Number(big);
    }
    let value = 0;
    for (let index = end - 1; index >= start; index--) value = value * 128 + (this.bytes[index] & 0x7f);
    if (value > maximum) throw FrameReaderErrors.outOfRange(field, value, maximum);
    this.offset = end;
    return value;
  }

  /**
   * @param {string} field
   * @returns {number} A varint of at most 2^32 − 1.
   * @throws {FrameError}
   */
  readVarUInt32(field) {
    return this.readVarUInt(field, twoTo32 - 1);
  }

  /**
   * Validates the varint at the offset and returns the offset after it.
   * @returns {number}
   * @throws {FrameError}
   */
  scanVarint() {
    const start = this.offset;
    const bytes = this.bytes;
    let index = start;
    let shift = 0;
    for (;;) {
      if (index >= bytes.length) {
        throw new FrameError('truncated', { offset: bytes.length, needed: 1 }, `body ends at byte ${bytes.length} with 1 more bytes needed`);
      }
      const byte = bytes[index++];
      if (shift === 63 && byte > 1) throw FrameReaderErrors.overflow(start);
      if ((byte & 0x80) === 0) {
        if (byte === 0 && index - start > 1) {
          throw new FrameError('nonCanonicalVarint', { offset: start }, `varint at byte ${start} is longer than needed`);
        }
        return index;
      }
      shift += 7;
      if (shift > 63) throw FrameReaderErrors.overflow(start);
    }
  }

  /**
   * @param {number} count
   * @returns {Uint8Array} A copy of the next `count` bytes.
   * @throws {FrameError}
   */
  readBytes(count) {
    this.require(count);
    const slice = this.bytes.slice(this.offset, this.offset + count);
    this.offset += count;
    return slice;
  }

  /** @returns {Uint8Array} A copy of the rest of the body. */
  readRemainingBytes() {
    const slice = this.bytes.slice(this.offset);
    this.offset = this.bytes.length;
    return slice;
  }

  /**
   * The rest of the body without copying it: a view that shares the body's bytes, which the
   * frame decoder never reuses (a received frame, or a fresh inflater output).
   * @returns {Uint8Array}
   */
  readRemainingView() {
    const view = this.bytes.subarray(this.offset);
    this.offset = this.bytes.length;
    return view;
  }

  /**
   * Reads a `bytes` item, refusing a length over `limit` before copying anything.
   * @param {string} field
   * @param {number} limit
   * @returns {Uint8Array}
   * @throws {FrameError} `lengthExceeded(field, length, limit)`, `truncated`.
   */
  readLengthPrefixedBytes(field, limit) {
    const length = this.readVarUIntBig();
    if (length > BigInt(limit)) {
      throw new FrameError('lengthExceeded', { field, length, limit }, `${field} of ${length} bytes exceeds the limit of ${limit} bytes`);
    }
    return this.readBytes(Number(length));
  }

  /**
   * Reads a `text` item (UTF-8).
   * @param {string} field
   * @param {number} limit
   * @returns {string}
   * @throws {FrameError} `invalidUTF8(field)` and the `bytes` errors.
   */
  readString(field, limit) {
    const bytes = this.readLengthPrefixedBytes(field, limit);
    try {
      return utf8.decode(bytes);
    } catch {
      throw new FrameError('invalidUTF8', { field }, `${field} is not valid UTF-8`);
    }
  }
}

const FrameReaderErrors = {
  /** @param {number} offset */
  overflow(offset) {
    return new FrameError('varintOverflow', { offset }, `varint at byte ${offset} does not fit in 64 bits`);
  },
  /** @param {string} field @param {number | bigint} value @param {number} maximum */
  outOfRange(field, value, maximum) {
    return new FrameError('valueOutOfRange', { field, value, maximum }, `${field} is ${value}, over its maximum ${maximum}`);
  },
};
