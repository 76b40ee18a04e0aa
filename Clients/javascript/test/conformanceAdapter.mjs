// The JavaScript decoders of @tickwire/client behind the conformance contract (Protocol/CONFORMANCE.md):
// one JSON request per line on standard input, one JSON answer per line on standard output, after a
// first line naming the decoder and its families (bit streams, snapshots in the three codings, frames)
// and the families out of a browser client's scope, with why (the UDP layer's packets, messages and
// netcode.io, the WebSocket framing, the connect tokens a page forwards unread).
// Run it through the checker: Tools/conformance -- node Clients/javascript/test/conformanceAdapter.mjs
import { createInterface } from 'node:readline';
import { BitReader } from '../bitReader.js';
import { SnapshotDecoder } from '../deltaDecoder.js';
import { EntropySnapshotDecoder, Motion, motionOf } from '../entropyDecoder.js';
import { TickwireError } from '../errors.js';
import { FrameDecoder } from '../frameDecoder.js';
import { FrameLimits } from '../frameLimits.js';
import { CompressionMode, decodeBody, encodeBody } from '../message.js';
import { vectorSchemas } from './vectors.mjs';

/**
 * @param {string} digits
 * @returns {Uint8Array}
 */
function bytesOf(digits) {
  return Uint8Array.from(digits.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/**
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function hexOf(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * One read of a bits request: bool, varint, gamma, signedN (zigzag in N bits) or uN.
 * @param {BitReader} reader
 * @param {string} kind
 * @returns {string}
 */
function read(reader, kind) {
  if (kind === 'bool') return reader.readBool() ? '1' : '0';
  if (kind === 'varint') return String(reader.readVarint());
  if (kind === 'gamma') return String(reader.readGamma());
  const signed = /^signed(\d+)$/.exec(kind);
  if (signed) {
    const zigzag = reader.readBig(Number(signed[1]));
    return String((zigzag >> 1n) ^ -(zigzag & 1n));
  }
  const unsigned = /^u(\d+)$/.exec(kind);
  if (unsigned) return String(reader.readBig(Number(unsigned[1])));
  throw new Error(`unknown read kind ${kind}`);
}

/**
 * Decodes the steps in order, each against the snapshot (and the motion kept with it) before it.
 * @param {{schema: string, steps: Array<{coding: string, bytes: string}>, limits?: {maxEntities?: number, maxEncodedBytes?: number}}} request
 */
function decodeSnapshot(request) {
  const schema = vectorSchemas[/** @type {'arena' | 'mixed' | 'busy' | 'named'} */ (request.schema)];
  if (!schema) throw new Error(`unknown schema ${request.schema}`);
  /** @type {import('../snapshot.js').Snapshot | undefined} */
  let snapshot;
  let motion = Motion.zero;
  for (const step of request.steps) {
    const bytes = bytesOf(step.bytes);
    if (step.coding === 'bitPacked') {
      const decoded = new SnapshotDecoder(schema, request.limits).decode(bytes, snapshot);
      motion = motionOf(schema, decoded, snapshot);
      snapshot = decoded;
    } else if (step.coding === 'entropy' || step.coding === 'predictedEntropy') {
      const decoded = new EntropySnapshotDecoder(schema, request.limits).decode(bytes, snapshot, step.coding === 'predictedEntropy' ? motion : undefined);
      motion = decoded.motion;
      snapshot = decoded.snapshot;
    } else {
      throw new Error(`unknown coding ${step.coding}`);
    }
  }
  if (!snapshot) throw new Error('a snapshot request with no steps');
  return { tick: snapshot.tick, entities: snapshot.describeEntities() };
}

/**
 * Decodes the frames in order on one connection, going on after a refused one: each message's
 * body re-encoded, uncompressed, or the frame's error.
 * @param {{mode: string, frames: string[], limits?: Record<string, number>}} request
 */
function decodeFrames(request) {
  const mode = /** @type {Record<string, number>} */ (CompressionMode)[request.mode];
  if (mode === undefined) throw new Error(`unknown compression mode ${request.mode}`);
  const limits = { ...FrameLimits.standard, ...request.limits };
  const decoder = new FrameDecoder(mode, limits);
  /** @type {Array<{type: number, body: string} | {error: string}>} */
  const messages = [];
  for (const frame of request.frames) {
    try {
      const { type, body } = decoder.decompress(bytesOf(frame));
      messages.push({ type, body: hexOf(encodeBody(decodeBody(type, body, limits))) });
    } catch (error) {
      if (!(error instanceof TickwireError)) throw error;
      messages.push({ error: error.signature });
    }
  }
  return { messages };
}

/**
 * @param {any} request
 * @returns {Record<string, unknown>}
 */
function answer(request) {
  try {
    if (request.family === 'bits') {
      const reader = new BitReader(bytesOf(request.bytes));
      return { values: request.reads.map((/** @type {string} */ kind) => read(reader, kind)) };
    }
    if (request.family === 'snapshot') return decodeSnapshot(request);
    if (request.family === 'frame') return decodeFrames(request);
  } catch (error) {
    if (error instanceof TickwireError) return { error: error.signature };
    throw error;
  }
  return { unsupported: request.family };
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write('usage: node Clients/javascript/test/conformanceAdapter.mjs\n\n'
    + "  answers Tools/conformance's requests (Protocol/CONFORMANCE.md) on standard input and output\n"
    + '  with the JavaScript decoders of @tickwire/client; run it through Tools/conformance\n');
  process.exit(0);
}
/** The families a browser client has no business decoding, with why (Protocol/CONFORMANCE.md). */
const outOfScope = {
  packet: 'the UDP packet layer (PROTOCOL.md 1A): a browser has no UDP socket, so @tickwire/client connects over WebSocket only',
  udp: "the UDP transport's close and handover messages (PROTOCOL.md 1A.10, 1A.11): UDP only, which a browser cannot open",
  netcode: 'netcode.io (NETCODE.md) runs over UDP only, which a browser cannot open',
  websocket: "the WebSocket framing (RFC 6455): the browser's WebSocket decodes it, a page sees only whole messages",
  tokens: 'connect tokens (PROTOCOL.md 5.3.1, 5.3.2): a browser only forwards the token its matchmaker gave it; it never opens one or reads its user data',
};
process.stdout.write(`${JSON.stringify({ decoder: 'javascript', families: ['bits', 'snapshot', 'frame'], outOfScope })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ ...answer(request), id: request.id })}\n`);
}
