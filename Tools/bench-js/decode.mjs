// The JavaScript side of `tickwire bench js`: decodes the frames of the `arena-client-56` scene
// that Swift exported (Tools/tickwire/BenchJSCommand.swift) with the browser client library, as a
// browser takes them in, and prints the median microseconds per snapshot as JSON.
//
// usage: node Tools/bench-js/decode.mjs FRAMES_FILE RUNS [PERFRAME_FILE]
// The file holds the frames, each as a little-endian u32 length and the frame's bytes: the whole
// first snapshot, then one delta per tick against the previous one (uncompressed snapshot frames;
// PERFRAME_FILE: the same messages in perFrame mode, zlib-compressed, as `arena serve` sends them).
import { FrameDecoder } from '../../Clients/javascript/frameDecoder.js';
import { SnapshotDecoder } from '../../Clients/javascript/deltaDecoder.js';
import { CompressionMode } from '../../Clients/javascript/message.js';
// The arena's schema imports `@tickwire/client` by name (the page's import map); resolveClient.mjs
// resolves it for Node, for the dynamic import that follows it.
import '../../Sources/ArenaGame/Web/node/resolveClient.mjs';
import { readFrames, time as timeRuns } from './timing.mjs';

const { arenaSchema } = await import('../../Sources/ArenaGame/Web/arena/arenaSchema.js');

const [path, runsText, perFramePath] = process.argv.slice(2);
const runs = Number(runsText ?? 5);
const frames = readFrames(path);
const decoder = new SnapshotDecoder(arenaSchema);
const messages = frames.map((frame) => new FrameDecoder(CompressionMode.none).decode(frame));
if (messages.some((message) => message.type !== 'snapshot')) throw new Error('every frame must be a snapshot');
const deltas = messages.map((message) => /** @type {import('../../Clients/javascript/message.js').SnapshotMessage} */ (message).delta);

/** Decodes the first snapshot whole, then each delta against the previous snapshot; returns the snapshots. */
function decodeAll() {
  const snapshots = [decoder.decode(deltas[0], undefined)];
  for (let index = 1; index < deltas.length; index++) snapshots.push(decoder.decode(deltas[index], snapshots[index - 1]));
  return snapshots;
}

const snapshots = decodeAll();

/** Decodes each delta against its stored baseline, as Swift's `decode(_:baseline:)` row does. */
function decodeDeltas() {
  let entities = 0;
  for (let index = 1; index < deltas.length; index++) entities += decoder.decode(deltas[index], snapshots[index - 1]).count;
  return entities;
}

/**
 * Takes every frame as a client does: the envelope (inflated in perFrame mode), then the delta
 * against the previous snapshot.
 * @param {Uint8Array[]} frames
 * @param {number} mode
 */
function receiveAll(frames, mode) {
  const frameDecoder = new FrameDecoder(mode);
  let previous;
  let entities = 0;
  for (const frame of frames) {
    const message = /** @type {any} */ (frameDecoder.decode(frame));
    previous = decoder.decode(message.delta, message.baselineTick === undefined ? undefined : previous);
    entities += previous.count;
  }
  return entities;
}

/**
 * @param {() => unknown} body
 * @returns {{cpu: number, wall: number}} Median microseconds per delta (CPU of the process, and wall clock).
 */
function time(body) {
  return timeRuns(body, deltas.length - 1, runs);
}

const entities = snapshots.slice(1).reduce((sum, snapshot) => sum + snapshot.count, 0);
/** @type {Record<string, any>} */
const result = {
  node: process.version, deltas: deltas.length - 1, entitiesPerSnapshot: entities / (deltas.length - 1),
  lastSnapshot: snapshots[snapshots.length - 1].describeEntities().join('\n'),
  decode: time(decodeDeltas), receive: time(() => receiveAll(frames, CompressionMode.none)),
};
if (perFramePath) {
  const compressed = readFrames(perFramePath);
  // The compressed frames must decode to the same last snapshot.
  const frameDecoder = new FrameDecoder(CompressionMode.perFrame);
  let previous;
  for (const frame of compressed) {
    const message = /** @type {any} */ (frameDecoder.decode(frame));
    previous = decoder.decode(message.delta, message.baselineTick === undefined ? undefined : previous);
  }
  if (previous?.describeEntities().join('\n') !== result.lastSnapshot) throw new Error('the perFrame frames decode to another snapshot');
  result.receivePerFrame = time(() => receiveAll(compressed, CompressionMode.perFrame));
  result.perFrameBytes = compressed.reduce((sum, frame) => sum + frame.length, 0) / compressed.length;
}
process.stdout.write(JSON.stringify(result) + '\n');
