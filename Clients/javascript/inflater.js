// A small bounded inflater (RFC 1951 deflate, RFC 1950 zlib wrapper) for compression modes
// perFrame and streaming (PROTOCOL.md 6); mirrors Inflater.swift and InflationLimit.swift.
// Synchronous and pure JavaScript, so that decoding stays in step with the frames and every
// limit of section 6.4 is checked while inflating: a zlib bomb costs at most the limit.
import { ZlibError } from './errors.js';

const windowSize = 32 * 1024;
/** The history of a zlib stream, which starts afresh with every call. */
const noHistory = new Uint8Array(0);

/**
 * @typedef {{maximumBytes: number, maximumRatio: number, ratioAllowanceBytes: number}} InflationLimit
 *   The size cap and the ratio cap past an allowance (PROTOCOL.md 6.4).
 */

// Length and distance bases and extra bits (RFC 1951 3.2.5).
const lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
class Huffman {
  /** @param {Uint8Array} lengths Code length of each symbol (0: unused). */
  constructor(lengths) {
    this.counts = new Uint16Array(16);
    this.symbols = new Uint16Array(lengths.length);
    for (const length of lengths) this.counts[length]++;
    this.counts[0] = 0;
    const offsets = new Uint16Array(16);
    for (let length = 1; length < 16; length++) offsets[length] = offsets[length - 1] + this.counts[length - 1];
    for (let symbol = 0; symbol < lengths.length; symbol++) if (lengths[symbol]) this.symbols[offsets[lengths[symbol]]++] = symbol;
  }
}

/** @returns {ZlibError} */
function corrupt(/** @type {string} */ why) {
  return new ZlibError('corruptData', { code: -3, message: why }, `corrupt deflate data (${why})`);
}

/** @returns {ZlibError} */
function truncatedStream() {
  return new ZlibError('truncated', {}, 'compressed data ended before the end of its stream');
}

const fixedLiterals = new Huffman(Uint8Array.from({ length: 288 }, (_, symbol) => (symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8)));
const fixedDistances = new Huffman(new Uint8Array(30).fill(5));

/** Inflates zlib streams (one per call) or one raw deflate stream across calls, keeping its 32 KiB window. */
export class Inflater {
  /** @param {'zlib' | 'raw'} format `zlib` for perFrame (each call one complete stream), `raw` for streaming. */
  constructor(format) {
    /** @type {'zlib' | 'raw'} */
    this.format = format;
    /** @type {Uint8Array} The last ≤ 32 KiB of output (raw format only). */
    this.history = new Uint8Array(0);
    /** @type {boolean} Whether a final block ended the raw stream. */
    this.hasEnded = false;
  }

  /**
   * Inflates one input.
   * @param {Uint8Array} input For `raw`, a frame's deflate data with `00 00 FF FF` restored (or stored blocks).
   * @param {InflationLimit} limit Checked while inflating; `input.length` is the ratio's input size.
   * @returns {Uint8Array} The output.
   * @throws {ZlibError} `corruptData`, `truncated`, `inflatedSizeExceeded`, `ratioExceeded`.
   */
  inflate(input, limit) {
    const state = new InflateState(input, this.format === 'raw' ? this.history : noHistory, limit);
    if (this.format === 'zlib') {
      const cmf = state.byte(), flg = state.byte();
      if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) throw corrupt('incorrect header check');
      while (!state.block()) { /* until the final block */ }
      state.alignToByte();
      let adler = 0;
      for (let index = 0; index < 4; index++) adler = adler * 256 + state.byte();
      if (adler !== adler32(state.output())) throw corrupt('incorrect data check');
      if (state.offset !== input.length) throw corrupt('trailing bytes after the stream');
      return state.output();
    }
    if (this.hasEnded) return new Uint8Array(0);
    while (state.hasMoreBlocks()) {
      if (state.block()) {
        this.hasEnded = true;
        break;
      }
    }
    const output = state.output();
    this.history = state.windowAfter();
    return output;
  }
}

/**
 * Adler-32 of some bytes (RFC 1950).
 * @param {Uint8Array} bytes
 * @returns {number}
 */
export function adler32(bytes) {
  let a = 1, b = 0;
  for (let index = 0; index < bytes.length;) {
    const end = Math.min(index + 3800, bytes.length);
    for (; index < end; index++) {
      a += bytes[index];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return b * 65536 + a;
}

/** The state of one inflate call: input bits, output after the carried window, the limits. */
class InflateState {
  /**
   * @param {Uint8Array} input
   * @param {Uint8Array} history
   * @param {InflationLimit} limit
   */
  constructor(input, history, limit) {
    this.input = input;
    this.offset = 0;
    this.bitBuffer = 0;
    this.bitCount = 0;
    this.start = history.length;
    this.out = new Uint8Array(Math.max(1024, history.length + input.length * 4));
    this.out.set(history);
    this.position = history.length;
    this.limit = limit;
    // Output beyond this many bytes breaks the size cap or the ratio cap.
    const ratioStop = Math.max(limit.ratioAllowanceBytes + 1, limit.maximumRatio * Math.max(input.length, 1));
    this.stop = Math.min(limit.maximumBytes + 1, ratioStop);
  }

  /** @returns {number} */
  byte() {
    if (this.offset >= this.input.length) throw truncatedStream();
    return this.input[this.offset++];
  }

  /** @param {number} count @returns {number} */
  bits(count) {
    while (this.bitCount < count) {
      if (this.offset >= this.input.length) throw truncatedStream();
      this.bitBuffer |= this.input[this.offset++] << this.bitCount;
      this.bitCount += 8;
    }
    const value = this.bitBuffer & ((1 << count) - 1);
    this.bitBuffer >>>= count;
    this.bitCount -= count;
    return value;
  }

  alignToByte() {
    this.bitBuffer = 0;
    this.bitCount = 0;
  }

  /** @returns {boolean} Whether input is left beyond the padding of the last byte. */
  hasMoreBlocks() {
    return this.offset < this.input.length;
  }

  /** @param {Huffman} code @returns {number} */
  symbol(code) {
    // One bit at a time as `bits(1)` would, with the bit buffer in locals.
    const input = this.input, counts = code.counts;
    let buffer = this.bitBuffer, left = this.bitCount;
    let value = 0, first = 0, index = 0;
    for (let length = 1; length < 16; length++) {
      if (left === 0) {
        if (this.offset >= input.length) throw truncatedStream();
        buffer = input[this.offset++];
        left = 8;
      }
      value |= buffer & 1;
      buffer >>>= 1;
      left -= 1;
      const count = counts[length];
      if (value - first < count) {
        this.bitBuffer = buffer;
        this.bitCount = left;
        return code.symbols[index + value - first];
      }
      index += count;
      first = (first + count) << 1;
      value <<= 1;
    }
    throw corrupt('invalid Huffman code');
  }

  /** @param {number} extra */
  ensure(extra) {
    if (this.position + extra <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.position + extra));
    grown.set(this.out.subarray(0, this.position));
    this.out = grown;
  }

  checkLimits() {
    const produced = this.position - this.start;
    if (produced < this.stop) return;
    if (produced > this.limit.maximumBytes) {
      throw new ZlibError('inflatedSizeExceeded', { limit: this.limit.maximumBytes }, `inflated data exceeds the limit of ${this.limit.maximumBytes} bytes`);
    }
    throw new ZlibError('ratioExceeded', { ratio: this.limit.maximumRatio, inputBytes: this.input.length },
      `inflated data exceeds ${this.limit.maximumRatio} times its ${this.input.length} compressed bytes`);
  }

  /**
   * Inflates one block.
   * @returns {boolean} Whether it was the final block.
   */
  block() {
    const isFinal = this.bits(1) === 1;
    const type = this.bits(2);
    if (type === 0) {
      this.alignToByte();
      const length = this.byte() | (this.byte() << 8);
      const check = this.byte() | (this.byte() << 8);
      if ((length ^ 0xffff) !== check) throw corrupt('invalid stored block lengths');
      if (this.offset + length > this.input.length) throw truncatedStream();
      this.ensure(length);
      // Stored data may break the size cap; check it before copying all of it.
      const produced = this.position - this.start + length;
      if (produced >= this.stop) {
        this.position += Math.min(length, this.stop - (this.position - this.start));
        this.checkLimits();
      }
      this.out.set(this.input.subarray(this.offset, this.offset + length), this.position);
      this.offset += length;
      this.position += length;
    } else if (type === 1) {
      this.codes(fixedLiterals, fixedDistances);
    } else if (type === 2) {
      const [literals, distances] = this.dynamicCodes();
      this.codes(literals, distances);
    } else {
      throw corrupt('invalid block type');
    }
    return isFinal;
  }

  /** @returns {[Huffman, Huffman]} */
  dynamicCodes() {
    const literalCount = this.bits(5) + 257;
    const distanceCount = this.bits(5) + 1;
    const codeLengthCount = this.bits(4) + 4;
    if (literalCount > 286 || distanceCount > 30) throw corrupt('too many length or distance symbols');
    const codeLengths = new Uint8Array(19);
    for (let index = 0; index < codeLengthCount; index++) codeLengths[codeLengthOrder[index]] = this.bits(3);
    const codeLengthCode = new Huffman(codeLengths);
    const lengths = new Uint8Array(literalCount + distanceCount);
    for (let index = 0; index < lengths.length;) {
      const symbol = this.symbol(codeLengthCode);
      if (symbol < 16) {
        lengths[index++] = symbol;
        continue;
      }
      let repeat, value = 0;
      if (symbol === 16) {
        if (index === 0) throw corrupt('invalid bit length repeat');
        value = lengths[index - 1];
        repeat = 3 + this.bits(2);
      } else if (symbol === 17) {
        repeat = 3 + this.bits(3);
      } else {
        repeat = 11 + this.bits(7);
      }
      if (index + repeat > lengths.length) throw corrupt('invalid bit length repeat');
      lengths.fill(value, index, index + repeat);
      index += repeat;
    }
    if (lengths[256] === 0) throw corrupt('invalid code -- missing end-of-block');
    return [new Huffman(lengths.subarray(0, literalCount)), new Huffman(lengths.subarray(literalCount))];
  }

  /**
   * Inflates the symbols of a compressed block up to its end-of-block.
   * @param {Huffman} literals
   * @param {Huffman} distances
   */
  codes(literals, distances) {
    for (;;) {
      const symbol = this.symbol(literals);
      if (symbol < 256) {
        this.ensure(1);
        this.out[this.position++] = symbol;
      } else if (symbol === 256) {
        return;
      } else {
        const lengthIndex = symbol - 257;
        if (lengthIndex >= 29) throw corrupt('invalid literal/length code');
        const length = lengthBase[lengthIndex] + this.bits(lengthExtra[lengthIndex]);
        const distanceIndex = this.symbol(distances);
        if (distanceIndex >= 30) throw corrupt('invalid distance code');
        const distance = distanceBase[distanceIndex] + this.bits(distanceExtra[distanceIndex]);
        if (distance > this.position) throw corrupt('invalid distance too far back');
        this.ensure(length);
        const out = this.out;
        let from = this.position - distance;
        for (let index = 0; index < length; index++) out[this.position++] = out[from++];
      }
      this.checkLimits();
    }
  }

  /** @returns {Uint8Array} What this call produced: a view of this call's own output buffer, which nothing reuses. */
  output() {
    return this.out.subarray(this.start, this.position);
  }

  /** @returns {Uint8Array} The last 32 KiB of everything inflated, for the next call. */
  windowAfter() {
    return this.out.slice(Math.max(0, this.position - windowSize), this.position);
  }
}
