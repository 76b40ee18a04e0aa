// The frame envelope (PROTOCOL.md 5.1) and decompression (section 6) of received frames, and
// the encoding of sent ones; mirrors Frame.swift, FrameDecompressor.swift and FrameCompressor.swift.
import { FrameError, ZlibError } from './errors.js';
import { FrameLimits } from './frameLimits.js';
import { Inflater } from './inflater.js';
import { CompressionMode, decodeBody, encodeBody, messageTypeOf } from './message.js';

/** @typedef {import('./message.js').Message} Message */

const compressedFlag = 0x80;
const maximumStoredBlockBytes = 65535;
const syncFlushTrailer = Uint8Array.of(0x00, 0x00, 0xff, 0xff);

/**
 * @param {number} type
 * @returns {boolean} Whether the type is hello, welcome or reject (never compressed, never in a stream's history).
 */
function isHandshake(type) {
  return type >= 1 && type <= 3;
}

/**
 * Encodes a message as a frame. The client never compresses what it sends: a sender may always
 * send a body uncompressed (PROTOCOL.md 6), and in streaming mode the server's inflater adds
 * uncompressed bodies to its history itself.
 * @param {Message} message
 * @param {typeof FrameLimits.standard} [limits]
 * @returns {Uint8Array} Type byte and body.
 * @throws {FrameError} A field over its limit.
 */
export function encodeFrame(message, limits = FrameLimits.standard) {
  const body = encodeBody(message, limits);
  const frame = new Uint8Array(body.length + 1);
  frame[0] = messageTypeOf(message);
  frame.set(body, 1);
  return frame;
}

/** Decodes the frames of one direction of one connection in one compression mode. */
export class FrameDecoder {
  /**
   * @param {number} [mode] A `CompressionMode` (none, perFrame, streaming).
   * @param {typeof FrameLimits.standard} [limits]
   */
  constructor(mode = CompressionMode.none, limits = FrameLimits.standard) {
    /** @type {number} */
    this.mode = mode;
    this.limits = limits;
    /** @type {Inflater | undefined} */
    this.inflater = mode === CompressionMode.streaming ? new Inflater('raw') : mode === CompressionMode.perFrame ? new Inflater('zlib') : undefined;
    /** @type {boolean} Whether a streaming context broke; every later frame is refused. */
    this.isBroken = false;
  }

  /**
   * Decodes one frame into its message.
   * @param {Uint8Array} bytes One whole WebSocket binary message.
   * @returns {Message}
   * @throws {FrameError}
   */
  decode(bytes) {
    const frame = this.decompress(bytes);
    return decodeBody(frame.type, frame.body, this.limits);
  }

  /**
   * Checks the envelope and inflates a compressed body.
   * @param {Uint8Array} bytes
   * @returns {{type: number, body: Uint8Array}}
   * @throws {FrameError}
   */
  decompress(bytes) {
    if (this.isBroken) throw new FrameError('compressionContextBroken', {}, 'the streaming compression context is broken by an earlier error; the connection must be closed');
    const isStreaming = this.mode === CompressionMode.streaming;
    try {
      if (bytes.length === 0) throw new FrameError('emptyFrame', {}, 'empty frame: there is no type byte');
      if (bytes.length > this.limits.maximumFrameBytes) {
        throw new FrameError('frameTooLarge', { size: bytes.length, limit: this.limits.maximumFrameBytes }, `frame of ${bytes.length} bytes exceeds the limit of ${this.limits.maximumFrameBytes} bytes`);
      }
      const type = bytes[0] & 0x7f;
      const isCompressed = (bytes[0] & compressedFlag) !== 0;
      if (type === 0) throw new FrameError('reservedMessageType', { type }, `message type ${type} is reserved and never sent`);
      // An unknown type (10…63) is refused by decodeBody, once the body is inflated (PROTOCOL.md 5.1).
      const joinsHistory = isStreaming && !isHandshake(type);
      const body = bytes.subarray(1);
      if (!isCompressed) {
        if (body.length > this.limits.maximumBodyBytes) {
          throw new FrameError('bodyTooLarge', { size: body.length, limit: this.limits.maximumBodyBytes }, `message body of ${body.length} bytes exceeds the limit of ${this.limits.maximumBodyBytes} bytes`);
        }
        if (joinsHistory) this.appendStored(body);
        return { type, body };
      }
      if (isHandshake(type) || !this.inflater) {
        throw new FrameError('unexpectedCompression', { type, mode: this.mode },
          `message type ${type} has the compressed flag set, which compression mode ${this.mode} or a handshake message does not allow`);
      }
      let input = body;
      if (joinsHistory) {
        input = new Uint8Array(body.length + 4);
        input.set(body);
        input.set(syncFlushTrailer, body.length);
      }
      const limit = {
        maximumBytes: this.limits.maximumBodyBytes, maximumRatio: this.limits.maximumInflationRatio,
        ratioAllowanceBytes: this.limits.inflationRatioAllowanceBytes,
      };
      let output;
      try {
        output = this.inflater.inflate(input, limit);
      } catch (error) {
        if (error instanceof ZlibError) throw new FrameError('inflation', { error }, `cannot inflate the frame body: ${error.message}`);
        throw error;
      }
      // A conforming sender never ends its stream (PROTOCOL.md 6.3): a final block, whatever it
      // inflated to, or nothing out at all (the stream ended in an earlier frame) is refused.
      if (joinsHistory && (output.length === 0 || this.inflater.hasEnded)) throw streamEnded();
      return { type, body: output };
    } catch (error) {
      if (isStreaming) this.isBroken = true;
      throw error;
    }
  }

  /**
   * Feeds an uncompressed body to the streaming inflater as stored blocks (PROTOCOL.md 6.3).
   * @param {Uint8Array} body
   */
  appendStored(body) {
    if (!this.inflater || body.length === 0) return;
    const blockCount = Math.ceil(body.length / maximumStoredBlockBytes);
    const blocks = new Uint8Array(body.length + 5 * blockCount);
    let at = 0;
    for (let start = 0; start < body.length; start += maximumStoredBlockBytes) {
      const chunk = body.subarray(start, Math.min(start + maximumStoredBlockBytes, body.length));
      blocks[at] = 0x00;
      blocks[at + 1] = chunk.length & 0xff;
      blocks[at + 2] = chunk.length >>> 8;
      blocks[at + 3] = ~chunk.length & 0xff;
      blocks[at + 4] = (~chunk.length >>> 8) & 0xff;
      blocks.set(chunk, at + 5);
      at += 5 + chunk.length;
    }
    let output;
    try {
      output = this.inflater.inflate(blocks, { maximumBytes: body.length, maximumRatio: Number.MAX_SAFE_INTEGER, ratioAllowanceBytes: body.length });
    } catch (error) {
      if (error instanceof ZlibError) throw new FrameError('inflation', { error }, `cannot inflate the frame body: ${error.message}`);
      throw error;
    }
    if (output.length !== body.length) throw streamEnded();
  }
}

/** @returns {FrameError} */
function streamEnded() {
  return new FrameError('compressionStreamEnded', {}, "the peer's deflate stream ended inside a streaming compression context");
}
