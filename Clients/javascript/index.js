// The Tickwire browser client (@tickwire/client): one import for everything a page needs.
export { BitReader } from './bitReader.js';
export { BitWriter, zigzag } from './bitWriter.js';
export { ByteReader } from './byteReader.js';
export { ByteWriter } from './byteWriter.js';
export { defaultClientConfiguration } from './clientConfiguration.js';
export { ClientSession, closeWait, malformedFrameCloseCode, subprotocol } from './clientSession.js';
export { disconnectReasonName, rejectReasonName } from './reasons.js';
export { ClockSync } from './clockSync.js';
export { CodecLimits, SnapshotDecoder } from './deltaDecoder.js';
export { EntropySnapshotDecoder, Motion } from './entropyDecoder.js';
export { CodecError, FrameError, MatchmakerError, SchemaDecodingError, SchemaError, TickwireError, ZlibError } from './errors.js';
export { FieldKind, KindTag } from './fieldKind.js';
export { FrameDecoder, encodeFrame } from './frameDecoder.js';
export { FrameLimits } from './frameLimits.js';
export { Inflater } from './inflater.js';
export { InterpolationBuffer } from './interpolationBuffer.js';
export { InterpolationDelay } from './interpolationDelay.js';
export { MatchmadeSession } from './matchmadeSession.js';
export { Matchmaker, MatchmakerLimits, helloConnectToken, roomListingsFromJSON, seatFromJSON } from './matchmaker.js';
export { CompressionMode, CompressionModes, DeltaCoding, DisconnectReason, MessageType, RejectReason, decodeBody, encodeBody, protocolVersion } from './message.js';
export { PlaybackClock } from './playbackClock.js';
export { PredictionBuffer } from './predictionBuffer.js';
export { ReconnectPolicy } from './reconnectPolicy.js';
export { ReconnectingSession } from './reconnectingSession.js';
export { Schema, SchemaLimits, entityType, field, fnv1a64 } from './schema.js';
export { Snapshot } from './snapshot.js';
export { SnapshotHistory } from './snapshotHistory.js';

// The shapes a game passes in or reads out, as types (for JSDoc and TypeScript; nothing at run time).
/** @typedef {import('./clientSession.js').GameAdapter} GameAdapter */
/** @typedef {import('./clientSession.js').SocketLike} SocketLike */
/** @typedef {import('./clientSession.js').ClientStatus} ClientStatus */
/** @typedef {import('./reconnectingSession.js').ConnectionState} ConnectionState */
/** @typedef {import('./reconnectingSession.js').StorageLike} StorageLike */
/** @typedef {import('./interpolationBuffer.js').WorldView} WorldView */
/** @typedef {import('./interpolationBuffer.js').EntityView} EntityView */
/** @typedef {import('./matchmaker.js').Seat} Seat */
/** @typedef {import('./matchmaker.js').RoomListing} RoomListing */
/** @typedef {import('./matchmaker.js').SeatOptions} SeatOptions */
/** @typedef {import('./matchmadeSession.js').MatchmadeState} MatchmadeState */
/** @typedef {import('./matchmadeSession.js').MatchmadeSessionOptions} MatchmadeSessionOptions */
/** @typedef {import('./reconnectingSession.js').ReconnectingSessionOptions} ReconnectingSessionOptions */
/** @typedef {import('./message.js').HelloConnectToken} HelloConnectToken */
/** @typedef {import('./message.js').Message} Message */
/** @typedef {import('./message.js').SnapshotMessage} SnapshotMessage */
/** @typedef {import('./schema.js').FieldDeclaration} FieldDeclaration */
/** @typedef {import('./schema.js').EntityTypeDeclaration} EntityTypeDeclaration */
