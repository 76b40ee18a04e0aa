// Every message of PROTOCOL.md section 5 (5.3–5.12): encoding and decoding of bodies;
// mirrors Message.swift and Message*.swift.
import { ByteReader } from './byteReader.js';
import { ByteWriter } from './byteWriter.js';
import { FrameError } from './errors.js';
import { FrameLimits } from './frameLimits.js';

/** The protocol version this library speaks (PROTOCOL.md 5.3). */
export const protocolVersion = 1;

/** Message types (PROTOCOL.md 5.2); 0x40…0x7F are the application's. */
export const MessageType = Object.freeze({
  hello: 0x01, welcome: 0x02, reject: 0x03, snapshot: 0x04, input: 0x05,
  ping: 0x06, pong: 0x07, disconnect: 0x08, stats: 0x09,
});

/** Compression modes (PROTOCOL.md 6): the welcome's choice. */
export const CompressionMode = Object.freeze({ none: 0, perFrame: 1, streaming: 2 });

/** Bits of the hello's compression modes field: bit 0 perFrame, bit 1 streaming. */
export const CompressionModes = Object.freeze({ none: 0, perFrame: 1, streaming: 2, all: 3 });

/** Bit 6 of the hello's and the welcome's compression byte: render times with inputs (PROTOCOL.md 5.7.1). */
export const renderTimesBit = 0x40;

/** Bit 7 of the hello's and the welcome's compression byte: entropy-coded snapshot deltas (PROTOCOL.md 4.5). */
export const entropyDeltasBit = 0x80;

/** Bit 5 of the hello's and the welcome's compression byte, only with bit 7: motion-predicted entropy deltas (PROTOCOL.md 4.5.6). */
export const motionPredictionBit = 0x20;

/** Bit 4 of the hello's and the welcome's compression byte: pongs that carry the server's hold (PROTOCOL.md 5.9.1). */
export const pongHoldBit = 0x10;

/** Bit 3 of the hello's compression byte: the client decodes text fields (protocol 1.2, PROTOCOL.md 3.2 and 5.3). */
export const textFieldsBit = 0x08;

/** How a connection's snapshot deltas are coded (the welcome's choice); mirrors Swift's `DeltaCoding`. */
export const DeltaCoding = Object.freeze({
  /** The bit-packed delta of PROTOCOL.md 4.2. */
  bitPacked: 'bitPacked',
  /** The entropy-coded delta of 4.5. */
  entropy: 'entropy',
  /** The motion-predicted entropy-coded delta of 4.5.6. */
  predictedEntropy: 'predictedEntropy',
});

/** Reject reasons (PROTOCOL.md 5.5); 32768…65535 are the application's. */
export const RejectReason = Object.freeze({
  unspecified: 0, versionMismatch: 1, schemaMismatch: 2, roomFull: 3, unknownRoom: 4,
  badResumeToken: 5, serverShuttingDown: 6, invalidHello: 7, redirect: 8,
  tokenRequired: 9, tokenInvalid: 10, tokenExpired: 11, tokenAlreadyUsed: 12, tokenWrongRoom: 13, tokensExhausted: 14,
});

/** Bit 1 of the hello's flags: a connect token follows the resume token (PROTOCOL.md 5.3.1). */
export const connectTokenFlag = 0x02;
/** The sizes of a hello's connect token (PROTOCOL.md 5.3.1): a u64 expire timestamp, a 24-byte nonce, a 1024-byte encrypted private part. */
export const ConnectTokenSize = Object.freeze({ nonce: 24, encryptedPrivateData: 1024, whole: 8 + 24 + 1024 });

/** Disconnect reasons (PROTOCOL.md 5.10); 32768…65535 are the application's. */
export const DisconnectReason = Object.freeze({
  unspecified: 0, leaving: 1, serverShuttingDown: 2, kicked: 3, timedOut: 4, protocolError: 5, tooSlow: 6, replaced: 7, moved: 8, kickedMayRejoin: 9,
});

/**
 * @typedef {{expireTimestamp: bigint, nonce: Uint8Array, encryptedPrivateData: Uint8Array}} HelloConnectToken
 *   What a hello carries of a netcode.io connect token (PROTOCOL.md 5.3.1), as the game's backend hands it over.
 * @typedef {{type: 'hello', protocolVersion: number, schemaFingerprint: bigint, compressionModes: number, room: string, resumeToken: Uint8Array | undefined, connectToken?: HelloConnectToken, payload: Uint8Array}} Hello
 * @typedef {{type: 'welcome', clientID: number, tickRate: number, currentTick: number, serverTime: bigint, compression: number, acceptsRenderTimes: boolean, acceptsPongHold?: boolean, deltaCoding?: string, resumeToken: Uint8Array}} Welcome
 *   `deltaCoding`: a `DeltaCoding` value; absent means bitPacked.
 * @typedef {{type: 'reject', reason: number, text: string}} Reject
 * @typedef {{type: 'snapshot', tick: number, baselineTick: number | undefined, lastProcessedInput: number, serverTime: bigint, delta: Uint8Array}} SnapshotMessage
 * @typedef {{tick: number, fraction: number}} RenderTime What the client showed when it sampled an input: `tick + fraction / 256` ticks (5.7.1).
 * @typedef {{type: 'input', ackTick: number | undefined, newestSequence: number, inputs: Uint8Array[], renderTimes?: RenderTime[]}} Input
 * @typedef {{type: 'ping', clientTime: bigint}} Ping
 * @typedef {{type: 'pong', clientTime: bigint, serverTime: bigint, hold?: bigint}} Pong A pong; `hold` (µs the server held the ping, 5.9.1) only when the welcome accepted it
 * @typedef {{type: 'disconnect', reason: number, text: string}} Disconnect
 * @typedef {{type: 'stats', tick: number, tickDurationP50: number, tickDurationP99: number, tickDurationMax: number, cpuPerMille: number, connectedClients: number, bytesOutPerSecond: bigint}} Stats
 * @typedef {{type: 'application', messageType: number, body: Uint8Array}} Application
 * @typedef {Hello | Welcome | Reject | SnapshotMessage | Input | Ping | Pong | Disconnect | Stats | Application} Message
 */

const u32 = 0xffffffff;

/**
 * @param {Message} message
 * @returns {number} Its message type byte (without the compressed flag).
 */
export function messageTypeOf(message) {
  return message.type === 'application' ? message.messageType : MessageType[message.type];
}

/**
 * Encodes a message's body.
 * @param {Message} message
 * @param {typeof FrameLimits.standard} [limits]
 * @returns {Uint8Array}
 * @throws {FrameError} A field over its limit (`lengthExceeded`, `tooManyInputs`, `inputSequenceUnderflow`, `bodyTooLarge` …).
 */
export function encodeBody(message, limits = FrameLimits.standard) {
  const writer = new ByteWriter(32);
  switch (message.type) {
    case 'hello':
      writer.writeUInt16(message.protocolVersion);
      writer.writeUInt64(message.schemaFingerprint);
      writer.writeUInt8(message.compressionModes);
      writer.writeUInt8((message.resumeToken ? 1 : 0) | (message.connectToken ? connectTokenFlag : 0));
      writer.writeString(message.room, 'room name', limits.maximumRoomNameBytes);
      if (message.resumeToken) writer.writeLengthPrefixedBytes(message.resumeToken, 'resume token', limits.maximumResumeTokenBytes);
      if (message.connectToken) {
        const token = message.connectToken;
        if (token.nonce.length !== ConnectTokenSize.nonce || token.encryptedPrivateData.length !== ConnectTokenSize.encryptedPrivateData) {
          throw new RangeError(`a connect token has a ${ConnectTokenSize.nonce}-byte nonce and a ${ConnectTokenSize.encryptedPrivateData}-byte private part, not ${token.nonce.length} and ${token.encryptedPrivateData.length}`);
        }
        writer.writeUInt64(token.expireTimestamp);
        writer.writeBytes(token.nonce);
        writer.writeBytes(token.encryptedPrivateData);
      }
      writer.writeLengthPrefixedBytes(message.payload, 'hello payload', limits.maximumHelloPayloadBytes);
      break;
    case 'welcome':
      writer.writeVarUInt(message.clientID);
      writer.writeVarUInt(message.tickRate);
      writer.writeVarUInt(message.currentTick);
      writer.writeVarUInt(message.serverTime);
      writer.writeUInt8(message.compression | (message.acceptsRenderTimes ? renderTimesBit : 0) | (message.acceptsPongHold ? pongHoldBit : 0)
        | (message.deltaCoding === DeltaCoding.entropy || message.deltaCoding === DeltaCoding.predictedEntropy ? entropyDeltasBit : 0)
        | (message.deltaCoding === DeltaCoding.predictedEntropy ? motionPredictionBit : 0));
      writer.writeLengthPrefixedBytes(message.resumeToken, 'resume token', limits.maximumResumeTokenBytes);
      break;
    case 'reject':
    case 'disconnect':
      writer.writeUInt16(message.reason);
      writer.writeString(message.text, `${message.type} text`, limits.maximumTextBytes);
      break;
    case 'snapshot': {
      const distance = message.baselineTick === undefined ? 0 : (message.tick - message.baselineTick) >>> 0;
      if (message.baselineTick !== undefined && distance === 0) {
        throw new FrameError('invalidBaseline', { tick: message.tick, baseline: message.baselineTick },
          `snapshot of tick ${message.tick} names baseline tick ${message.baselineTick}: a snapshot cannot be its own baseline`);
      }
      writer.writeVarUInt(message.tick);
      writer.writeVarUInt(distance);
      writer.writeVarUInt(message.lastProcessedInput);
      writer.writeVarUInt(message.serverTime);
      writer.writeBytes(message.delta);
      break;
    }
    case 'input':
      if (message.inputs.length > limits.maximumInputsPerMessage) {
        throw new FrameError('tooManyInputs', { count: message.inputs.length, limit: limits.maximumInputsPerMessage },
          `input message carries ${message.inputs.length} inputs, over the limit of ${limits.maximumInputsPerMessage}`);
      }
      if (message.inputs.length > message.newestSequence) {
        throw new FrameError('inputSequenceUnderflow', { newest: message.newestSequence, count: message.inputs.length },
          `input message carries ${message.inputs.length} inputs but its newest sequence number is only ${message.newestSequence}`);
      }
      writer.writeVarUInt(message.ackTick === undefined ? 0 : message.ackTick + 1);
      writer.writeVarUInt(message.newestSequence);
      if (message.renderTimes !== undefined && message.renderTimes.length !== message.inputs.length) {
        throw new FrameError('renderTimeCountMismatch', { inputs: message.inputs.length, renderTimes: message.renderTimes.length },
          `input message has ${message.renderTimes.length} render times for ${message.inputs.length} inputs: it carries one per input or none`);
      }
      writer.writeVarUInt(message.inputs.length);
      for (const input of message.inputs) writer.writeLengthPrefixedBytes(input, 'input', limits.maximumInputBytes);
      for (const renderTime of message.renderTimes ?? []) {
        writer.writeVarUInt(renderTime.tick);
        writer.writeUInt8(renderTime.fraction);
      }
      break;
    case 'ping':
      writer.writeVarUInt(message.clientTime);
      break;
    case 'pong':
      writer.writeVarUInt(message.clientTime);
      writer.writeVarUInt(message.serverTime);
      if (message.hold !== undefined) writer.writeVarUInt(message.hold);
      break;
    case 'stats':
      for (const value of [message.tick, message.tickDurationP50, message.tickDurationP99, message.tickDurationMax, message.cpuPerMille, message.connectedClients]) {
        writer.writeVarUInt(value);
      }
      writer.writeVarUInt(message.bytesOutPerSecond);
      break;
    case 'application':
      if (message.messageType < 0x40 || message.messageType > 0x7f) {
        throw new FrameError('notApplicationType', { type: message.messageType }, `message type ${message.messageType} is not in the application range 64...127`);
      }
      writer.writeBytes(message.body);
      break;
    default:
      throw new TypeError('not a Tickwire message');
  }
  if (writer.count > limits.maximumBodyBytes) {
    throw new FrameError('bodyTooLarge', { size: writer.count, limit: limits.maximumBodyBytes }, `message body of ${writer.count} bytes exceeds the limit of ${limits.maximumBodyBytes} bytes`);
  }
  return writer.bytes;
}

/**
 * Decodes a message body of a type.
 * @param {number} type The message type (1…127).
 * @param {Uint8Array} body The uncompressed body.
 * @param {typeof FrameLimits.standard} [limits]
 * @returns {Message}
 * @throws {FrameError} Any body error of PROTOCOL.md 7.2.
 */
export function decodeBody(type, body, limits = FrameLimits.standard) {
  if (body.length > limits.maximumBodyBytes) {
    throw new FrameError('bodyTooLarge', { size: body.length, limit: limits.maximumBodyBytes }, `message body of ${body.length} bytes exceeds the limit of ${limits.maximumBodyBytes} bytes`);
  }
  const reader = new ByteReader(body);
  /** @type {Message} */
  let message;
  switch (type) {
    case MessageType.hello: {
      const version = reader.readUInt16();
      const schemaFingerprint = reader.readUInt64();
      const compressionModes = reader.readUInt8();
      const flags = reader.readUInt8();
      if (flags & ~(1 | connectTokenFlag)) throw new FrameError('reservedBits', { field: 'hello flags', value: flags }, `hello flags 0x${flags.toString(16)} has reserved bits set`);
      const room = reader.readString('room name', limits.maximumRoomNameBytes);
      const resumeToken = flags & 1 ? reader.readLengthPrefixedBytes('resume token', limits.maximumResumeTokenBytes) : undefined;
      /** @type {HelloConnectToken | undefined} */
      let connectToken;
      if (flags & connectTokenFlag) {
        const expireTimestamp = reader.readUInt64();
        const nonce = reader.readBytes(ConnectTokenSize.nonce);
        connectToken = { expireTimestamp, nonce, encryptedPrivateData: reader.readBytes(ConnectTokenSize.encryptedPrivateData) };
      }
      const payload = reader.readLengthPrefixedBytes('hello payload', limits.maximumHelloPayloadBytes);
      message = { type: 'hello', protocolVersion: version, schemaFingerprint, compressionModes, room, resumeToken, ...(connectToken ? { connectToken } : {}), payload };
      break;
    }
    case MessageType.welcome: {
      const clientID = reader.readVarUInt32('client id');
      const tickRate = reader.readVarUInt('tick rate', 0xffff);
      const currentTick = reader.readVarUInt32('current tick');
      const serverTime = reader.readVarUIntBig();
      const compression = reader.readUInt8();
      // Bit 6 accepts render times (5.7.1), bit 7 chooses entropy-coded deltas (4.5), bit 5 with
      // it their motion-predicted form (4.5.6); bit 5 alone names no coding. Bit 4 says pongs carry
      // the server's hold (5.9.1).
      const mode = compression & ~(renderTimesBit | entropyDeltasBit | motionPredictionBit | pongHoldBit);
      if (mode > 2 || (compression & (entropyDeltasBit | motionPredictionBit)) === motionPredictionBit) {
        throw new FrameError('unknownCompressionMode', { mode: compression }, `unknown compression mode ${compression}`);
      }
      const resumeToken = reader.readLengthPrefixedBytes('resume token', limits.maximumResumeTokenBytes);
      const deltaCoding = !(compression & entropyDeltasBit) ? DeltaCoding.bitPacked
        : compression & motionPredictionBit ? DeltaCoding.predictedEntropy : DeltaCoding.entropy;
      message = {
        type: 'welcome', clientID, tickRate, currentTick, serverTime, compression: mode,
        acceptsRenderTimes: (compression & renderTimesBit) !== 0, acceptsPongHold: (compression & pongHoldBit) !== 0, deltaCoding, resumeToken,
      };
      break;
    }
    case MessageType.reject:
    case MessageType.disconnect: {
      const name = type === MessageType.reject ? 'reject' : 'disconnect';
      const reason = reader.readUInt16();
      const text = reader.readString(`${name} text`, limits.maximumTextBytes);
      message = type === MessageType.reject ? { type: 'reject', reason, text } : { type: 'disconnect', reason, text };
      break;
    }
    case MessageType.snapshot: {
      const tick = reader.readVarUInt32('snapshot tick');
      const distance = reader.readVarUInt32('baseline distance');
      const lastProcessedInput = reader.readVarUInt32('last processed input');
      const serverTime = reader.readVarUIntBig();
      // A view, not a copy: the snapshot decoder only reads it, and no frame buffer is reused.
      const delta = reader.readRemainingView();
      message = { type: 'snapshot', tick, baselineTick: distance === 0 ? undefined : (tick - distance) >>> 0, lastProcessedInput, serverTime, delta };
      break;
    }
    case MessageType.input: {
      const ack = reader.readVarUInt('acknowledged tick + 1', u32 + 1);
      const newestSequence = reader.readVarUInt32('newest input sequence');
      const count = reader.readVarUIntBig();
      if (count > BigInt(limits.maximumInputsPerMessage)) {
        throw new FrameError('tooManyInputs', { count, limit: limits.maximumInputsPerMessage }, `input message carries ${count} inputs, over the limit of ${limits.maximumInputsPerMessage}`);
      }
      if (Number(count) > newestSequence) {
        throw new FrameError('inputSequenceUnderflow', { newest: newestSequence, count: Number(count) },
          `input message carries ${count} inputs but its newest sequence number is only ${newestSequence}`);
      }
      const inputs = [];
      for (let index = 0; index < Number(count); index++) inputs.push(reader.readLengthPrefixedBytes('input', limits.maximumInputBytes));
      message = { type: 'input', ackTick: ack === 0 ? undefined : ack - 1, newestSequence, inputs };
      // Section 5.7.1: bytes after the inputs are one render time per input.
      if (!reader.isAtEnd) {
        message.renderTimes = inputs.map(() => ({ tick: reader.readVarUInt32('render tick'), fraction: reader.readUInt8() }));
      }
      break;
    }
    case MessageType.ping:
      message = { type: 'ping', clientTime: reader.readVarUIntBig() };
      break;
    case MessageType.pong: {
      const clientTime = reader.readVarUIntBig();
      const serverTime = reader.readVarUIntBig();
      // Section 5.9.1: a varint after the server time is the server's hold; its presence alone tells the form.
      message = !reader.isAtEnd ? { type: 'pong', clientTime, serverTime, hold: reader.readVarUIntBig() } : { type: 'pong', clientTime, serverTime };
      break;
    }
    case MessageType.stats: {
      const tick = reader.readVarUInt32('stats tick');
      const tickDurationP50 = reader.readVarUInt32('tick duration p50');
      const tickDurationP99 = reader.readVarUInt32('tick duration p99');
      const tickDurationMax = reader.readVarUInt32('tick duration max');
      const cpuPerMille = reader.readVarUInt32('CPU');
      const connectedClients = reader.readVarUInt32('connected clients');
      const bytesOutPerSecond = reader.readVarUIntBig();
      message = { type: 'stats', tick, tickDurationP50, tickDurationP99, tickDurationMax, cpuPerMille, connectedClients, bytesOutPerSecond };
      break;
    }
    default:
      if (type >= 0x40 && type <= 0x7f) {
        message = { type: 'application', messageType: type, body: reader.readRemainingBytes() };
      } else if (type === 0) {
        throw new FrameError('reservedMessageType', { type }, `message type ${type} is reserved and never sent`);
      } else {
        throw new FrameError('unknownMessageType', { type }, `unknown message type ${type}`);
      }
  }
  if (!reader.isAtEnd) {
    throw new FrameError('trailingBytes', { type, count: reader.remainingCount }, `message type ${type} is followed by ${reader.remainingCount} unexpected bytes`);
  }
  return message;
}
