// The snapshot decoder over Protocol/vectors/delta-*.hex and bits-primitives.hex.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BitReader } from '../bitReader.js';
import { BitWriter, zigzag } from '../bitWriter.js';
import { SnapshotDecoder } from '../deltaDecoder.js';
import { CodecError } from '../errors.js';
import { hex, readVector, vectorNames, vectorSchemas } from './vectors.mjs';

/** @type {Map<string, import('../snapshot.js').Snapshot>} */
const decoded = new Map();

/**
 * Decodes a valid delta vector (and its baseline chain first).
 * @param {string} name
 */
function decodeVector(name) {
  const cached = decoded.get(name);
  if (cached) return cached;
  const vector = readVector(name);
  const baselineName = vector.keys.baseline?.[0] ?? 'none';
  const baseline = baselineName === 'none' ? undefined : decodeVector(baselineName);
  const snapshot = new SnapshotDecoder(vectorSchemas[vector.keys.schema[0]]).decode(vector.bytes, baseline);
  decoded.set(name, snapshot);
  return snapshot;
}

for (const name of vectorNames('delta-').filter((name) => !name.startsWith('delta-error-'))) {
  test(`${name} decodes to the tick and entities its comments list`, () => {
    const vector = readVector(name);
    const snapshot = decodeVector(name);
    assert.equal(snapshot.tick, Number(vector.keys.tick[0]), 'tick');
    assert.deepEqual(snapshot.describeEntities(), vector.keys.entity.map((line) => line.trim()), 'entities (id type q…)');
    const header = SnapshotDecoder.header(vector.bytes);
    assert.equal(header.tick, snapshot.tick);
  });
}

for (const name of vectorNames('delta-error-')) {
  test(`${name} is refused with its error`, () => {
    const vector = readVector(name);
    const expected = vector.keys.error[0];
    const baselineName = vector.keys.baseline?.[0] ?? 'none';
    const baseline = baselineName === 'none' ? undefined : decodeVector(baselineName);
    // A decoder that lowered a limit (PROTOCOL.md 7.1): `# limit: NAME VALUE`.
    const limits = Object.fromEntries((vector.keys.limit ?? []).map((line) => {
      const [limit, value] = line.split(/\s+/);
      return [limit, Number(value)];
    }));
    const decoder = new SnapshotDecoder(vectorSchemas[/** @type {'arena' | 'mixed' | 'busy'} */ (vector.keys.schema[0])], limits);
    assert.throws(() => decoder.decode(vector.bytes, baseline), (error) => {
      assert.ok(error instanceof CodecError, `a CodecError, not ${error}`);
      assert.equal(error.kind, expected, `refused with ${error.kind} (${error.message}), expected ${expected}`);
      return true;
    });
  });
}

test('bits-primitives.hex: each write reads back, and the writes produce the vector', () => {
  const vector = readVector('bits-primitives.hex');
  const writer = new BitWriter();
  const reader = new BitReader(vector.bytes);
  for (const line of vector.keys.write) {
    const [item, text] = line.split(/\s+/);
    if (item === 'bool') {
      writer.writeBool(text === '1');
      assert.equal(reader.readBool(), text === '1');
    } else if (item === 'varint') {
      writer.writeVarint(BigInt(text));
      assert.equal(reader.readVarint(), Number(text));
    } else if (item === 'gamma') {
      writer.writeGamma(BigInt(text));
      assert.equal(reader.readGamma(), Number(text));
    } else if (item.startsWith('signed')) {
      const bits = Number(item.slice(6));
      writer.write(zigzag(BigInt(text)), bits);
      const z = reader.read(bits);
      assert.equal(z % 2 === 0 ? z / 2 : -(z + 1) / 2, Number(text));
    } else {
      const bits = Number(item.slice(1));
      writer.write(BigInt(text), bits);
      assert.equal(bits > 52 ? reader.readBig(bits) : BigInt(reader.read(bits)), BigInt(text), line);
    }
  }
  reader.finish();
  assert.equal(hex(writer.bytes), hex(vector.bytes));
});

test('the entity limit holds at the limit and refuses one past it, before reading entities', () => {
  const schema = vectorSchemas.mixed;
  // A whole snapshot of `count` entities of type b (no fields): id gap 0 and type 1 (2 bits) each.
  const encode = (/** @type {number} */ count) => {
    const writer = new BitWriter();
    writer.writeVarint(5); writer.writeBool(false); writer.writeVarint(count);
    for (let index = 0; index < count; index++) { writer.writeVarint(0); writer.write(1, 2); }
    return writer.bytes;
  };
  const decoder = new SnapshotDecoder(schema, { maxEntities: 100 });
  assert.equal(decoder.decode(encode(100), undefined).count, 100);
  assert.throws(() => decoder.decode(encode(101), undefined), (error) => error instanceof CodecError && error.kind === 'tooManyEntities' && error.details.limit === 100);
});

test('the encoded size limit holds at the limit and refuses one byte more', () => {
  const decoder = new SnapshotDecoder(vectorSchemas.arena, { maxEncodedBytes: 3 });
  assert.equal(decoder.decode(Uint8Array.of(0x64, 0x00, 0x00), undefined).count, 0);
  assert.throws(() => decoder.decode(Uint8Array.of(0x64, 0x00, 0x00, 0x00), undefined), (error) => error instanceof CodecError && error.kind === 'inputTooLarge' && error.details.count === 4);
});

test('a delta without its baseline is refused with baselineMissing', () => {
  const vector = readVector('delta-02-arena-delta.hex');
  assert.throws(() => new SnapshotDecoder(vectorSchemas.arena).decode(vector.bytes, undefined), (error) => error instanceof CodecError && error.kind === 'baselineMissing' && error.details.tick === 100);
});

test('garbage never escapes as anything but a CodecError', () => {
  let seed = 0x2545f491;
  const next = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed >>> 24; };
  const baseline = decodeVector('delta-04-mixed-full.hex');
  const decoder = new SnapshotDecoder(vectorSchemas.mixed);
  for (let round = 0; round < 2000; round++) {
    const bytes = Uint8Array.from({ length: 1 + (next() % 40) }, next);
    try {
      decoder.decode(bytes, round % 2 === 0 ? baseline : undefined);
    } catch (error) {
      assert.ok(error instanceof CodecError, `round ${round} threw ${error}`);
    }
  }
});

test('destroying up to 8 entities (spliced out) and more (copied around) leaves the same survivors and refuses an unknown id', () => {
  const schema = vectorSchemas.mixed;
  // A whole snapshot at tick 5 of entities 0 … 19 of type b (no fields).
  const whole = new BitWriter();
  whole.writeVarint(5); whole.writeBool(false); whole.writeVarint(20);
  for (let index = 0; index < 20; index++) { whole.writeVarint(0); whole.write(1, 2); }
  const decoder = new SnapshotDecoder(schema);
  const baseline = decoder.decode(whole.bytes, undefined);
  // A delta at tick 6 that destroys the given increasing ids and changes and creates nothing.
  const destroying = (/** @type {number[]} */ ids) => {
    const writer = new BitWriter();
    writer.writeVarint(6); writer.writeBool(true); writer.writeVarint(1);
    writer.writeBool(true); writer.writeVarint(ids.length);
    ids.forEach((id, index) => writer.writeVarint(index === 0 ? id : id - ids[index - 1] - 1));
    writer.writeBool(false); writer.writeBool(false);
    return writer.bytes;
  };
  for (const count of [1, 8, 9, 20]) {
    const ids = Array.from({ length: count }, (_, index) => (index * 2 + 1) % 20).sort((a, b) => a - b);
    const unique = [...new Set(ids)];
    const snapshot = decoder.decode(destroying(unique), baseline);
    assert.deepEqual(snapshot.ids, baseline.ids.filter((id) => !unique.includes(id)), `${unique.length} destroyed`);
    assert.equal(snapshot.types.length, snapshot.count);
    assert.equal(snapshot.values.length, snapshot.count);
    assert.deepEqual(baseline.ids, Array.from({ length: 20 }, (_, index) => index), 'the baseline is untouched');
  }
  for (const count of [2, 12]) {
    // Two ids past the baseline's last: the first of them is the one reported.
    const ids = [...Array.from({ length: count - 2 }, (_, index) => index), 25, 30];
    assert.throws(() => decoder.decode(destroying(ids), baseline), (error) => error instanceof CodecError && error.kind === 'unknownEntity' && error.details.id === 25);
  }
});

test('gamma codes read back across the word path (up to 12 leading zeros), the long path and the end of the stream', () => {
  const values = [1n, 2n, 3n, 4095n, 4096n, 8191n, 8192n, 16383n, 16384n, (1n << 24n) - 1n, 1n << 24n, (1n << 40n) + 5n, (1n << 52n) - 1n, 1n << 53n, (1n << 64n) - 1n];
  for (let offset = 0; offset < 8; offset++) {
    const writer = new BitWriter();
    writer.write(0n, offset);
    for (const value of values) writer.writeGamma(value);
    // The last codes end the stream, so that the word path is refused near the end.
    writer.writeGamma(4096n);
    writer.writeGamma(3n);
    const reader = new BitReader(writer.bytes);
    reader.read(offset);
    for (const value of [...values, 4096n, 3n]) {
      const read = reader.readGamma();
      assert.equal(BigInt(read), value, `offset ${offset}`);
      assert.equal(typeof read, value < 1n << 53n ? 'number' : 'bigint', `offset ${offset}: ${value} as a number while it fits in 52 value bits`);
    }
    reader.finish();
  }
  // Fewer bits than the code needs: truncated, on both paths.
  for (const value of [5n, 9000n]) {
    const writer = new BitWriter();
    writer.writeGamma(value);
    const bytes = writer.bytes.subarray(0, value < 8n ? 0 : 2);
    assert.throws(() => new BitReader(bytes).readGamma(), (error) => error instanceof CodecError && error.kind === 'truncated');
  }
});
