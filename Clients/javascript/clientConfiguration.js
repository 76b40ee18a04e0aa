// The client's configuration and its defaults; mirrors ClientConfiguration.swift.
import { FrameLimits } from './frameLimits.js';
import { CompressionModes, protocolVersion } from './message.js';

/** Configuration; the defaults are Swift's `ClientConfiguration`'s. */
export const defaultClientConfiguration = Object.freeze({
  /** The room to join; empty for the server's default. */
  room: /** @type {string} */ (''),
  /** Modes offered in the hello: perFrame and streaming (the library inflates both). */
  compressionModes: CompressionModes.all,
  /** Whether the hello offers render times with inputs, for a lag-compensating host (PROTOCOL.md 5.7.1). */
  offersRenderTimes: true,
  /** Whether the hello offers to read pongs that carry the server's hold (PROTOCOL.md 5.9.1), so that the round trip and clock offset leave out the server's tick wait. */
  offersPongHold: true,
  /** Whether the hello offers to decode entropy-coded deltas and their motion-predicted form (PROTOCOL.md 4.5, 4.5.6); the host decides which to use. */
  offersEntropyDeltas: true,
  /** Unacknowledged inputs repeated in every input message. */
  inputRedundancy: 3,
  /** Seconds between pings. */
  pingInterval: 0.5,
  historySize: 32,
  maximumExtrapolation: 0.1,
  interpolationCapacity: 32,
  interpolationDelayMinimum: 0.03,
  interpolationDelayMaximum: 0.5,
  protocolVersion,
  helloPayload: new Uint8Array(0),
  /** @type {import('./message.js').HelloConnectToken | undefined} The connect token to join with (PROTOCOL.md 5.3.1), from the game's backend; sent in a joining hello, never in a resume, and spent by the welcome. */
  connectToken: undefined,
  frameLimits: FrameLimits.standard,
  /** @type {{maxEntities?: number, maxEncodedBytes?: number}} */
  codecLimits: {},
});

