// End to end against frames Swift produced: the recorded session of the test game
// (Tests/TickwireCodecTests/Fixtures/dots-session.twrec, PROTOCOL.md section 9) replayed
// through the JavaScript client's decoders (its welcome names mode streaming, and Swift's zlib
// compressed some frames): the schema from its canonical encoding, the
// server's frames in the mode its welcome names, every snapshot against its baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ByteReader } from '../byteReader.js';
import { SnapshotDecoder } from '../deltaDecoder.js';
import { FrameDecoder } from '../frameDecoder.js';
import { Schema } from '../schema.js';
import { SnapshotHistory } from '../snapshotHistory.js';
import { root } from './vectors.mjs';

test('every frame of a recorded Swift session decodes, and every snapshot against its baseline', () => {
  const bytes = new Uint8Array(readFileSync(join(root, 'Tests', 'TickwireCodecTests', 'Fixtures', 'dots-session.twrec')));
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 8)), 'TWRECORD');
  const reader = new ByteReader(bytes.subarray(8));
  assert.equal(reader.readUInt8(), 1, 'version');
  const schema = Schema.fromCanonicalEncoding(reader.readLengthPrefixedBytes('schema', 1 << 20));
  assert.deepEqual(schema.entityTypes.map((type) => type.name).slice(0, 1), ['player']);
  /** @type {Record<number, FrameDecoder>} */
  const decoders = { 1: new FrameDecoder(), 2: new FrameDecoder() };
  const snapshots = new SnapshotDecoder(schema);
  const history = new SnapshotHistory();
  const counts = { frames: 0, snapshots: 0, deltas: 0, mode: -1 };
  while (!reader.isAtEnd) {
    const direction = reader.readUInt8();
    reader.readVarUIntBig();
    const frame = reader.readLengthPrefixedBytes('frame', 1 << 20);
    const message = decoders[direction].decode(frame);
    counts.frames += 1;
    if (message.type === 'welcome') {
      counts.mode = message.compression;
      decoders[1] = new FrameDecoder(message.compression);
      decoders[2] = new FrameDecoder(message.compression);
    }
    if (message.type === 'snapshot') {
      const baseline = message.baselineTick === undefined ? undefined : history.snapshot(message.baselineTick);
      assert.ok(message.baselineTick === undefined || baseline, `baseline ${message.baselineTick} of tick ${message.tick} is held`);
      const snapshot = snapshots.decode(message.delta, baseline);
      assert.equal(snapshot.tick, message.tick);
      history.store(snapshot);
      counts.snapshots += 1;
      if (baseline) counts.deltas += 1;
    }
  }
  assert.ok(counts.snapshots > 5 && counts.deltas > 0, `decoded ${JSON.stringify(counts)}`);
  assert.ok(counts.mode >= 0, "the recording holds a welcome");
});
