// One connection's client session over a browser WebSocket: handshake, snapshots against stored
// baselines, acknowledgements, inputs with redundancy, clock sync, interpolation and prediction;
// mirrors ClientSession.swift and its extensions.
import { defaultClientConfiguration } from './clientConfiguration.js';
import { ClockSync } from './clockSync.js';
import { SnapshotDecoder } from './deltaDecoder.js';
import { EntropySnapshotDecoder, Motion } from './entropyDecoder.js';
import { CodecError } from './errors.js';
import { FrameDecoder, encodeFrame } from './frameDecoder.js';
import { InterpolationBuffer } from './interpolationBuffer.js';
import { InterpolationDelay } from './interpolationDelay.js';
import { CompressionMode, DeltaCoding, DisconnectReason, entropyDeltasBit, motionPredictionBit, pongHoldBit, renderTimesBit, textFieldsBit } from './message.js';
import { PlaybackClock } from './playbackClock.js';
import { PredictionBuffer } from './predictionBuffer.js';
import { disconnectReasonName } from './reasons.js';
import { SnapshotHistory } from './snapshotHistory.js';

/** The bits of the hello's compression byte that offer modes rather than extensions (PROTOCOL.md 5.3). */
const helloModeBits = 0x07;

/** @typedef {import('./schema.js').Schema} Schema */
/** @typedef {import('./snapshot.js').Snapshot} Snapshot */
/** @typedef {import('./message.js').Message} Message */
/** @typedef {import('./interpolationBuffer.js').WorldView} WorldView */
/** @typedef {import('./interpolationBuffer.js').EntityView} EntityView */

/** The WebSocket subprotocol of PROTOCOL.md 1.1. */
export const subprotocol = 'tickwire.v1';

/** The close code a client sends when the server's frames cannot be decoded (PROTOCOL.md 1.3). */
export const malformedFrameCloseCode = 4004;

/**
 * The part of the browser `WebSocket` a session uses; tests pass a fake.
 * @typedef {{binaryType: string, readyState: number, send(data: Uint8Array): void, close(code?: number, reason?: string): void,
 *   onopen: ((event: unknown) => void) | null, onmessage: ((event: {data: unknown}) => void) | null,
 *   onclose: ((event: {code: number, reason: string}) => void) | null, onerror: ((event: unknown) => void) | null}} SocketLike
 */

/**
 * What the session needs of a game. `predict` is optional: without it the local player is
 * interpolated like everyone else.
 * @typedef {{
 *   schema: Schema,
 *   encodeInput(input: unknown): Uint8Array,
 *   predict?: {
 *     restore(snapshot: Snapshot, clientID: number): unknown,
 *     step(state: unknown, input: unknown, dt: number): unknown,
 *     localEntity(state: unknown, clientID: number): EntityView | undefined,
 *   },
 * }} GameAdapter
 */

/**
 * The session's status.
 * @typedef {{kind: 'idle'} | {kind: 'handshaking'} | {kind: 'connected'} | {kind: 'rejected', reason: number, text: string} | {kind: 'disconnected', reason: string}} ClientStatus
 */

/** Seconds a client waits for the host to close after a reject or disconnect before closing itself. */
export const closeWait = 1;

/** One connection's session. Drive it with `tick(input)` at the tick rate and `render()` per frame. */
export class ClientSession {
  /**
   * @param {GameAdapter} game
   * @param {{clock?: () => number, configuration?: Partial<typeof defaultClientConfiguration>}} [options]
   *   `clock` returns seconds (default `performance.now() / 1000`).
   */
  constructor(game, options = {}) {
    this.game = game;
    /** @type {() => number} */
    this.clock = options.clock ?? (() => performance.now() / 1000);
    this.configuration = { ...defaultClientConfiguration, ...options.configuration };
    this.decoder = new SnapshotDecoder(game.schema, this.configuration.codecLimits);
    /** @type {EntropySnapshotDecoder} The decoder of entropy-coded deltas (PROTOCOL.md 4.5), when the welcome chooses them. */
    this.entropyDecoder = new EntropySnapshotDecoder(game.schema, this.configuration.codecLimits);
    /** @type {ClientStatus} */
    this.status = { kind: 'idle' };
    /** @type {{reason: number, text: string} | undefined} The disconnect message that ended the last connection (moved: its text is the URL to go to). */
    this.lastDisconnect = undefined;
    /** @type {number | undefined} */
    this.clientID = undefined;
    /** @type {Uint8Array | undefined} The token to resume this session in a later hello. */
    this.resumeToken = undefined;
    this.wasResumed = false;
    /** @type {import('./message.js').HelloConnectToken | undefined} The connect token the next joining hello carries (PROTOCOL.md 5.3.1); spent by a welcome. */
    this.connectToken = this.configuration.connectToken;
    /** Whether the last hello carried `connectToken`. */
    this.helloCarriedConnectToken = false;
    /** @type {number} Welcomes taken since the session was made: a welcome and the end of its connection may arrive between two ticks. */
    this.welcomes = 0;
    this.tickRate = 20;
    /** @type {Snapshot | undefined} */
    this.latestSnapshot = undefined;
    this.lastProcessedInput = 0;
    /** @type {import('./message.js').Stats | undefined} */
    this.latestServerStats = undefined;
    /** @type {{code: number, reason: string} | undefined} How the last connection closed. */
    this.closeReason = undefined;
    /** @type {Error | undefined} The last frame or snapshot that could not be decoded. */
    this.lastDecodeError = undefined;
    /** @type {(message: Message) => void} Called with every application message. */
    this.onApplicationMessage = () => {};
    this.metrics = { snapshotsReceived: 0, fullSnapshotsReceived: 0, snapshotsUndecodable: 0, lastSnapshotBytes: 0, bytesIn: 0, bytesOut: 0, extrapolatedFrames: 0 };
    /** @type {SocketLike | undefined} */
    this.socket = undefined;
    this.resetConnectionState();
  }

  /** Resets what belongs to one connection. */
  resetConnectionState() {
    const configuration = this.configuration;
    this.frames = new FrameDecoder(CompressionMode.none, configuration.frameLimits);
    this.received = new SnapshotHistory(configuration.historySize);
    this.buffer = new InterpolationBuffer(configuration.interpolationCapacity, configuration.maximumExtrapolation);
    this.delay = this.makeDelay(0.05);
    this.playback = new PlaybackClock();
    this.clockSync = new ClockSync();
    /** @type {number | undefined} */
    this.provisionalOffset = undefined;
    this.prediction = new PredictionBuffer();
    /** @type {unknown} */
    this.predictedState = undefined;
    this.latestSnapshot = undefined;
    this.lastProcessedInput = 0;
    this.sequence = 0;
    /** @type {boolean} Whether the welcome accepted render times: every input then carries one. */
    this.sendsRenderTimes = false;
    /** @type {string} How this connection's snapshot deltas are coded: the welcome's `DeltaCoding`. */
    this.deltaCoding = DeltaCoding.bitPacked;
    /** @type {import('./message.js').RenderTime[]} The newest inputs' render times, oldest first, one per sequence number. */
    this.inputRenderTimes = [];
    /** @type {number | undefined} */
    this.lastPing = undefined;
    /** @type {number | undefined} */
    this.lastRender = undefined;
    /** @type {number | undefined} */
    this.closingSince = undefined;
  }

  /**
   * @param {number} interval
   * @returns {InterpolationDelay}
   */
  makeDelay(interval) {
    const delay = new InterpolationDelay(interval);
    delay.minimum = this.configuration.interpolationDelayMinimum;
    delay.maximum = this.configuration.interpolationDelayMaximum;
    return delay;
  }

  /**
   * Starts a session over a socket (opened or opening): sends the hello once it is open.
   * @param {SocketLike} socket
   */
  connect(socket) {
    this.detach();
    this.socket = socket;
    this.closeReason = undefined;
    this.resetConnectionState();
    this.status = { kind: 'handshaking' };
    this.lastDisconnect = undefined;
    socket.binaryType = 'arraybuffer';
    socket.onmessage = (event) => this.handle(event.data);
    socket.onclose = (event) => this.closed(event.code, event.reason);
    socket.onerror = () => {};
    const connectToken = this.resumeToken === undefined ? this.connectToken : undefined;
    this.helloCarriedConnectToken = connectToken !== undefined;
    const sendHello = () => this.send({
      type: 'hello', protocolVersion: this.configuration.protocolVersion, schemaFingerprint: this.game.schema.fingerprint,
      // Only the mode bits (0-2) of `compressionModes`; the extension bits come from their own
      // settings: entropy-coded deltas with their motion-predicted form (bits 7 and 5), render times (bit 6),
      // pongs with the server's hold (bit 4); text fields (bit 3, protocol 1.2) always: this client decodes them.
      compressionModes: (this.configuration.compressionModes & helloModeBits) | textFieldsBit | (this.configuration.offersRenderTimes ? renderTimesBit : 0)
        | (this.configuration.offersEntropyDeltas ? entropyDeltasBit | motionPredictionBit : 0)
        | (this.configuration.offersPongHold ? pongHoldBit : 0),
      room: this.configuration.room, resumeToken: this.resumeToken,
      ...(connectToken ? { connectToken } : {}),
      payload: this.configuration.helloPayload,
    });
    if (socket.readyState === 1) sendHello(); else socket.onopen = sendHello;
  }

  /** Stops listening to the current socket (without closing it). */
  detach() {
    const socket = this.socket;
    if (!socket) return;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
    this.socket = undefined;
  }

  /**
   * Closes the current socket with a code and stops listening to it.
   * @param {number} [code]
   * @param {string} [reason]
   */
  closeSocket(code, reason) {
    const socket = this.socket;
    this.detach();
    try {
      socket?.close(code, reason);
    } catch {
      // A socket that is already closing refuses a second close; nothing is left to do.
    }
  }

  /** Leaves cleanly: a disconnect (reason leaving), close 1000, and forgets the resume token. */
  leave() {
    this.send({ type: 'disconnect', reason: DisconnectReason.leaving, text: '' });
    this.closeSocket(1000, 'leaving');
    this.closingSince = undefined;
    this.resumeToken = undefined;
    this.status = { kind: 'disconnected', reason: 'left' };
  }

  /**
   * One client tick: predicts the local player, sends an input message (with the last few
   * unacknowledged inputs and the newest snapshot tick held) and, every ping interval, a ping.
   * @param {unknown} input This tick's input, or undefined to send only the acknowledgement.
   */
  tick(input) {
    this.checkCloseWait();
    if (this.status.kind !== 'connected' || this.clientID === undefined) return;
    if (input !== undefined) {
      this.sequence = (this.sequence + 1) >>> 0;
      this.prediction.record(input, this.sequence);
      if (this.sendsRenderTimes) {
        // Before the first snapshot nothing is shown: tick 0, which the host replaces by its estimate.
        this.inputRenderTimes.push(this.renderTime ?? { tick: 0, fraction: 0 });
        const limit = this.configuration.frameLimits.maximumInputsPerMessage;
        if (this.inputRenderTimes.length > limit) this.inputRenderTimes.splice(0, this.inputRenderTimes.length - limit);
      }
      const predict = this.game.predict;
      if (predict && this.predictedState !== undefined) this.predictedState = predict.step(this.predictedState, input, 1 / this.tickRate);
    }
    const count = Math.min(this.configuration.inputRedundancy, this.sequence, this.configuration.frameLimits.maximumInputsPerMessage);
    const inputs = this.prediction.newest(count).map((each) => this.game.encodeInput(each));
    // One render time per input, newest first, as the inputs are (5.7.1).
    const renderTimes = inputs.length > 0 ? this.inputRenderTimes.slice(-inputs.length).reverse() : [];
    if (this.sendsRenderTimes && renderTimes.length === inputs.length) {
      this.send({ type: 'input', ackTick: this.received.newestTick, newestSequence: this.sequence, inputs, renderTimes });
    } else {
      this.send({ type: 'input', ackTick: this.received.newestTick, newestSequence: this.sequence, inputs });
    }
    const now = this.clock();
    if (this.lastPing === undefined || now - this.lastPing >= this.configuration.pingInterval) {
      this.lastPing = now;
      this.send({ type: 'ping', clientTime: BigInt(Math.max(0, Math.round(now * 1e6))) });
    }
  }

  /** Closes the socket when the host did not close within `closeWait` after a reject or disconnect. */
  checkCloseWait() {
    if (this.closingSince !== undefined && this.clock() - this.closingSince >= closeWait) {
      this.closeSocket(1000, '');
      this.closingSince = undefined;
    }
  }

  /**
   * @param {Message} message
   */
  send(message) {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) return;
    const frame = encodeFrame(message, this.configuration.frameLimits);
    socket.send(frame);
    this.metrics.bytesOut += frame.length;
  }

  /**
   * @param {number} code
   * @param {string} reason
   */
  closed(code, reason) {
    this.detach();
    this.closingSince = undefined;
    this.closeReason = { code, reason };
    if (this.status.kind === 'connected' || this.status.kind === 'handshaking') {
      this.status = { kind: 'disconnected', reason: reason ? `closed ${code}: ${reason}` : `closed ${code}` };
    }
  }

  /**
   * Handles one received WebSocket message.
   * @param {unknown} data An ArrayBuffer (binaryType 'arraybuffer'); text messages close with 1003.
   */
  handle(data) {
    if (!(data instanceof ArrayBuffer) && !ArrayBuffer.isView(data)) {
      this.closeSocket(1003, 'text messages are not used');
      this.status = { kind: 'disconnected', reason: 'the server sent a text message' };
      return;
    }
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    this.metrics.bytesIn += bytes.length;
    if (this.closingSince !== undefined) return;
    const now = this.clock();
    let message;
    try {
      message = this.frames.decode(bytes);
    } catch (error) {
      this.metrics.snapshotsUndecodable += 1;
      this.lastDecodeError = /** @type {Error} */ (error);
      if (this.frames.isBroken || this.status.kind === 'handshaking') {
        this.closeSocket(malformedFrameCloseCode, 'malformed frame');
        this.status = { kind: 'disconnected', reason: `the server sent a frame that cannot be decoded: ${/** @type {Error} */ (error).message}` };
      }
      return;
    }
    switch (message.type) {
      case 'welcome': {
        if (this.status.kind !== 'handshaking') return;
        const deltaCoding = message.deltaCoding ?? DeltaCoding.bitPacked;
        // A welcome may choose only what the hello offered (PROTOCOL.md 5.4): 4004 otherwise.
        const unoffered = deltaCoding !== DeltaCoding.bitPacked && !this.configuration.offersEntropyDeltas ? 'entropy-coded deltas'
          : message.acceptsRenderTimes && !this.configuration.offersRenderTimes ? 'render times with inputs'
            : message.compression !== CompressionMode.none && !(this.configuration.compressionModes & (1 << (message.compression - 1))) ? `compression mode ${message.compression}`
              : undefined;
        if (unoffered !== undefined) {
          this.closeSocket(malformedFrameCloseCode, 'welcome chose what the hello did not offer');
          this.status = { kind: 'disconnected', reason: `the welcome chose ${unoffered}, which the hello did not offer` };
          return;
        }
        this.deltaCoding = deltaCoding;
        const token = message.resumeToken;
        this.wasResumed = this.resumeToken !== undefined && this.clientID === message.clientID
          && token.length === this.resumeToken.length && token.every((byte, index) => byte === this.resumeToken?.[index]);
        this.clientID = message.clientID;
        this.resumeToken = token.length === 0 ? undefined : token;
        if (this.helloCarriedConnectToken) this.connectToken = undefined;
        this.tickRate = Math.max(1, message.tickRate);
        this.provisionalOffset = Number(message.serverTime) / 1e6 - now;
        this.delay = this.makeDelay(1 / this.tickRate);
        this.frames = new FrameDecoder(message.compression, this.configuration.frameLimits);
        this.sendsRenderTimes = message.acceptsRenderTimes;
        this.status = { kind: 'connected' };
        this.welcomes += 1;
        break;
      }
      case 'reject':
        this.status = { kind: 'rejected', reason: message.reason, text: message.text };
        this.closingSince = now;
        break;
      case 'snapshot':
        this.take(message, bytes.length, now);
        break;
      case 'stats':
        this.latestServerStats = message;
        break;
      case 'pong':
        // With the server's hold (5.9.1) the round trip and offset leave out its tick wait.
        this.clockSync.addSample(Number(message.clientTime) / 1e6, Number(message.serverTime) / 1e6, now, Number(message.hold ?? 0n) / 1e6);
        break;
      case 'disconnect':
        this.lastDisconnect = { reason: message.reason, text: message.text };
        // A kicked player is gone from the room: its token resumes nothing (PROTOCOL.md 5.10).
        if (message.reason === DisconnectReason.kicked || message.reason === DisconnectReason.kickedMayRejoin) this.resumeToken = undefined;
        this.status = { kind: 'disconnected', reason: message.text ? `${disconnectReasonName(message.reason)}: ${message.text}` : disconnectReasonName(message.reason) };
        this.closingSince = now;
        break;
      case 'application':
        this.onApplicationMessage(message);
        break;
      default:
        break;
    }
  }

  /**
   * Takes a snapshot: decode against its baseline, store, acknowledge, buffer, reconcile.
   * @param {import('./message.js').SnapshotMessage} message
   * @param {number} frameBytes
   * @param {number} now
   */
  take(message, frameBytes, now) {
    // The delta's own header repeats the message's tick and baseline (PROTOCOL.md 5.6): a delta
    // that disagrees is one no encoder writes, refused before any baseline is looked up.
    try {
      const header = SnapshotDecoder.header(message.delta);
      if (header.tick !== message.tick || header.baselineTick !== message.baselineTick) {
        throw new CodecError('baselineMismatch', { tick: header.tick, baselineTick: header.baselineTick },
          `the delta's header (tick ${header.tick}, baseline ${header.baselineTick ?? 'none'}) disagrees with its snapshot message (tick ${message.tick}, baseline ${message.baselineTick ?? 'none'})`);
      }
    } catch (error) {
      this.metrics.snapshotsUndecodable += 1;
      this.lastDecodeError = /** @type {Error} */ (error);
      return;
    }
    let baseline;
    if (message.baselineTick !== undefined) {
      baseline = this.received.snapshot(message.baselineTick);
      if (!baseline) {
        this.metrics.snapshotsUndecodable += 1;
        return;
      }
    }
    let snapshot, motion;
    try {
      if (this.deltaCoding === DeltaCoding.bitPacked) {
        snapshot = this.decoder.decode(message.delta, baseline);
      } else if (this.deltaCoding === DeltaCoding.entropy) {
        ({ snapshot, motion } = this.entropyDecoder.decode(message.delta, baseline));
      } else {
        // The motion-predicted coding predicts from the motion kept with the baseline (4.5.6).
        const baselineMotion = message.baselineTick === undefined ? Motion.zero : this.received.motion(message.baselineTick);
        if (!baselineMotion) {
          throw new CodecError('baselineMissing', { tick: message.baselineTick }, `no motion is held with baseline tick ${message.baselineTick}`);
        }
        ({ snapshot, motion } = this.entropyDecoder.decode(message.delta, baseline, baselineMotion));
      }
    } catch (error) {
      this.metrics.snapshotsUndecodable += 1;
      this.lastDecodeError = /** @type {Error} */ (error);
      return;
    }
    if (this.received.isStale(snapshot.tick)) return;
    this.received.store(snapshot, motion);
    this.latestSnapshot = snapshot;
    this.metrics.snapshotsReceived += 1;
    this.metrics.lastSnapshotBytes = frameBytes;
    if (message.baselineTick === undefined) this.metrics.fullSnapshotsReceived += 1;
    const serverTime = Number(message.serverTime) / 1e6;
    this.buffer.insert(snapshot, serverTime);
    this.delay.recordArrival(serverTime, this.estimatedServerTime ?? serverTime);
    this.lastProcessedInput = message.lastProcessedInput;
    this.prediction.acknowledge(message.lastProcessedInput);
    this.reconcile(snapshot, message.lastProcessedInput);
  }

  /**
   * Replays the unacknowledged inputs over the authoritative state.
   * @param {Snapshot} snapshot
   * @param {number} lastProcessed
   */
  reconcile(snapshot, lastProcessed) {
    const predict = this.game.predict;
    if (!predict || this.clientID === undefined) return;
    let state = predict.restore(snapshot, this.clientID);
    if (state === undefined || predict.localEntity(state, this.clientID) === undefined) {
      this.predictedState = undefined;
      return;
    }
    this.prediction.acknowledge(lastProcessed);
    const dt = 1 / this.tickRate;
    for (const input of this.prediction.inputs) state = predict.step(state, input, dt);
    this.predictedState = state;
  }

  /**
   * What the session shows now, in ticks (what `render()` last showed, or estimated server time −
   * interpolation delay before the first frame), as a lag-compensating host wants it with each input.
   * @returns {import('./message.js').RenderTime | undefined} Undefined before the first snapshot.
   */
  get renderTime() {
    const serverNow = this.estimatedServerTime;
    const time = this.playback.renderTime ?? (serverNow === undefined ? undefined : serverNow - this.delay.target);
    const ticks = time === undefined ? undefined : this.buffer.ticks(time);
    if (ticks === undefined || Number.isNaN(ticks)) return undefined;
    const scaled = Math.min(Math.max(Math.round(ticks * 256), 0), 0xffffffff * 256 + 255);
    return { tick: Math.floor(scaled / 256), fraction: scaled % 256 };
  }

  /** @returns {number | undefined} The server's clock now, from ping/pong or, before, the welcome. */
  get estimatedServerTime() {
    const now = this.clock();
    const synced = this.clockSync.serverTime(now);
    if (synced !== undefined) return synced;
    return this.provisionalOffset === undefined ? undefined : now + this.provisionalOffset;
  }

  /** @returns {EntityView | undefined} The predicted local player, when the game predicts. */
  get predictedLocalEntity() {
    const predict = this.game.predict;
    if (!predict || this.predictedState === undefined || this.clientID === undefined) return undefined;
    return predict.localEntity(this.predictedState, this.clientID);
  }

  /**
   * The world to draw now: everyone interpolated at the adaptive delay behind the server's
   * clock, the local player predicted.
   * @returns {WorldView | undefined}
   */
  render() {
    const now = this.clock();
    const elapsed = this.lastRender === undefined ? 0 : now - this.lastRender;
    this.lastRender = now;
    const serverNow = this.estimatedServerTime ?? this.buffer.newestTime;
    if (serverNow === undefined) return undefined;
    const renderTime = this.playback.advance(elapsed, serverNow - this.delay.target);
    const view = this.buffer.sample(renderTime);
    if (!view) return undefined;
    this.buffer.discard(renderTime);
    if (view.isExtrapolated) this.metrics.extrapolatedFrames += 1;
    const local = this.predictedLocalEntity;
    if (local) {
      const index = view.entities.findIndex((entity) => entity.id === local.id);
      if (index >= 0) {
        // The prediction holds numbers only: the texts are the snapshot's (protocol 1.2).
        const texts = view.entities[index].texts;
        view.entities[index] = texts ? { ...local, texts } : local;
      } else {
        const position = view.entities.findIndex((entity) => entity.id > local.id);
        view.entities.splice(position < 0 ? view.entities.length : position, 0, local);
      }
    }
    return view;
  }

  /** @returns {{roundTrip: number, serverHold: number, roundTripJitter: number, snapshotJitter: number, interpolationDelay: number, bufferDepth: number, playbackRate: number}} Clock and buffer figures for a net graph: `roundTrip` is the network's (the server's hold, its tick wait, left out when pongs carry it, PROTOCOL.md 5.9.1), `serverHold` that hold. */
  get timing() {
    const renderTime = this.playback.renderTime;
    return {
      roundTrip: this.clockSync.roundTrip, serverHold: this.clockSync.hold, roundTripJitter: this.clockSync.jitter, snapshotJitter: this.delay.jitter,
      interpolationDelay: this.delay.target, bufferDepth: renderTime === undefined ? this.buffer.count : this.buffer.depth(renderTime),
      playbackRate: this.playback.rate,
    };
  }
}
