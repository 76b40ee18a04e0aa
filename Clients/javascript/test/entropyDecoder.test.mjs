// The entropy-coded snapshot decoder (PROTOCOL.md 4.5, 4.5.6) over Protocol/vectors/entropy-*.hex.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BitWriter } from '../bitWriter.js';
import { SnapshotDecoder } from '../deltaDecoder.js';
import { EntropySnapshotDecoder, Motion, motionOf } from '../entropyDecoder.js';
import { CodecError } from '../errors.js';
import { FieldKind } from '../fieldKind.js';
import { Schema, entityType, field } from '../schema.js';
import { Snapshot } from '../snapshot.js';
import { readVector, statedValue, vectorNames, vectorSchemas } from './vectors.mjs';

/** @typedef {ReturnType<typeof readVector>} Vector */

/**
 * @param {Vector} vector
 * @returns {import('../schema.js').Schema}
 */
function schemaOf(vector) {
  return vectorSchemas[/** @type {'arena' | 'mixed' | 'busy'} */ (vector.keys.schema[0])];
}

/** @param {Vector} vector @returns {string} The `# baseline:` vector's name, or 'none'. */
function baselineNameOf(vector) {
  return vector.keys.baseline?.[0] ?? 'none';
}

/** @param {Vector} vector @returns {boolean} Whether the vector is in the predicted coding (4.5.6). */
function isPredicted(vector) {
  return vector.keys.coding?.[0] === 'predictedEntropy';
}

/**
 * The snapshot a vector states in its `# tick:` and `# entity:` lines (as entropy_codec.py's `snapshot_of`).
 * @param {string} name
 * @returns {Snapshot}
 */
function statedSnapshot(name) {
  const vector = readVector(name);
  const schema = schemaOf(vector);
  const snapshot = new Snapshot(schema, Number(vector.keys.tick[0]));
  for (const line of vector.keys.entity ?? []) {
    const [id, type, ...values] = line.trim().split(/\s+/);
    const layouts = schema.layouts[Number(type)];
    snapshot.append(Number(id), Number(type), values.map((value, field) => statedValue(value, layouts[field])));
  }
  return snapshot;
}

/**
 * The motion kept with a vector's snapshot (entropy_codec.py's `vector_motion`): zero when its
 * baseline is `none`, else its stated snapshot's motion against its baseline's stated snapshot.
 * @param {string} name
 * @returns {Motion}
 */
function statedMotion(name) {
  const vector = readVector(name);
  const baselineName = baselineNameOf(vector);
  if (baselineName === 'none') return Motion.zero;
  return motionOf(schemaOf(vector), statedSnapshot(name), statedSnapshot(baselineName));
}

/**
 * @param {Motion} motion
 * @returns {{span: number, deltas: Array<[number, number[]]>}} The span and the nonzero motions, by id.
 */
function describeMotion(motion) {
  const deltas = [...motion.deltas].filter(([, values]) => values.some((value) => value !== 0)).map(([id, values]) => /** @type {[number, number[]]} */ ([id, [...values]]));
  return { span: motion.span, deltas: deltas.sort((a, b) => a[0] - b[0]) };
}

/**
 * Decodes a vector's bytes (or others) against its stated baseline and, in the predicted coding,
 * the stated baseline motion.
 * @param {string} name
 * @param {{maxEntities?: number, maxEncodedBytes?: number}} [limits]
 * @param {Uint8Array} [bytes] Instead of the vector's own.
 */
function decodeAgainstStated(name, limits = {}, bytes = readVector(name).bytes) {
  const vector = readVector(name);
  const baselineName = baselineNameOf(vector);
  const baseline = baselineName === 'none' ? undefined : statedSnapshot(baselineName);
  const motion = isPredicted(vector) ? (baselineName === 'none' ? Motion.zero : statedMotion(baselineName)) : undefined;
  return new EntropySnapshotDecoder(schemaOf(vector), limits).decode(bytes, baseline, motion);
}

/** @type {Map<string, {snapshot: Snapshot, motion: Motion}>} */
const chained = new Map();

/**
 * Decodes a vector as a client does: its baseline first (down the chain to a whole snapshot), each
 * with the motion kept from decoding it; bit-packed `delta-*` vectors with `SnapshotDecoder`.
 * @param {string} name
 * @returns {{snapshot: Snapshot, motion: Motion}}
 */
function decodeChained(name) {
  const cached = chained.get(name);
  if (cached) return cached;
  const vector = readVector(name);
  const schema = schemaOf(vector);
  const baselineName = baselineNameOf(vector);
  const base = baselineName === 'none' ? undefined : decodeChained(baselineName);
  let result;
  if (name.startsWith('delta-')) {
    const snapshot = new SnapshotDecoder(schema).decode(vector.bytes, base?.snapshot);
    result = { snapshot, motion: motionOf(schema, snapshot, base?.snapshot) };
  } else {
    result = new EntropySnapshotDecoder(schema).decode(vector.bytes, base?.snapshot, isPredicted(vector) ? (base?.motion ?? Motion.zero) : undefined);
  }
  chained.set(name, result);
  return result;
}

/**
 * @param {unknown} error
 * @param {string} kind
 * @returns {true}
 */
function isCodecError(error, kind) {
  assert.ok(error instanceof CodecError, `a CodecError, not ${error}`);
  assert.equal(error.kind, kind, `refused with ${error.kind} (${error.message}), expected ${kind}`);
  return true;
}

const validNames = vectorNames('entropy-').filter((name) => !name.startsWith('entropy-error-'));

for (const name of validNames) {
  test(`${name} decodes to the tick and entities it states${isPredicted(readVector(name)) ? ', and its motion' : ''}`, () => {
    const vector = readVector(name);
    const { snapshot, motion } = decodeAgainstStated(name);
    assert.equal(snapshot.tick, Number(vector.keys.tick[0]), 'tick');
    assert.deepEqual(snapshot.describeEntities(), (vector.keys.entity ?? []).map((line) => line.trim()), 'entities (id type q…)');
    // The motion a caller keeps: the stated snapshot against the stated baseline (zero for a whole one).
    assert.deepEqual(describeMotion(motion), describeMotion(statedMotion(name)), 'motion');
    // The header starts as in 4.1: the bit-packed decoder's header reader serves both codings.
    const header = SnapshotDecoder.header(vector.bytes);
    assert.equal(header.tick, snapshot.tick);
    const baselineName = baselineNameOf(vector);
    assert.equal(header.baselineTick, baselineName === 'none' ? undefined : statedSnapshot(baselineName).tick);
  });

  test(`${name} decodes the same down its chain, keeping each snapshot's motion as a client does`, () => {
    const vector = readVector(name);
    const { snapshot, motion } = decodeChained(name);
    assert.deepEqual(snapshot.describeEntities(), (vector.keys.entity ?? []).map((line) => line.trim()));
    assert.deepEqual(describeMotion(motion), describeMotion(statedMotion(name)));
  });
}

for (const name of vectorNames('entropy-error-')) {
  test(`${name} is refused with its error`, () => {
    const expected = readVector(name).keys.error[0];
    assert.throws(() => decodeAgainstStated(name), (error) => isCodecError(error, expected));
  });
}

test('motions: entropy-07 moves against a whole snapshot, 12 is idle over 1 tick, 14 spans 256, 15 moves over 1 tick', () => {
  assert.deepEqual(describeMotion(decodeAgainstStated('entropy-07-arena-motion-start.hex').motion), {
    span: 1,
    // x and y (floats) and health (integer) are motion fields; heading (angle) and state (enumeration) are not.
    deltas: [[1, [16, -5, 0, 0, 0]], [2, [100, -3, 0, 0, 0]], [7, [-300, 0, 0, -2, 0]]],
  });
  assert.deepEqual(describeMotion(decodeAgainstStated('entropy-12-arena-predicted-idle.hex').motion), { span: 1, deltas: [] });
  assert.equal(decodeAgainstStated('entropy-14-arena-age-256.hex').motion.span, 256);
  assert.deepEqual(describeMotion(decodeAgainstStated('entropy-15-arena-span-256.hex').motion), { span: 1, deltas: [[1, [10, 0, 0, 0, 0]]] });
  assert.deepEqual(describeMotion(decodeAgainstStated('entropy-01-arena-full.hex').motion), { span: 1, deltas: [] });
  // The mixed chain crosses the tick wrap: 1 − 4294967295 is 2 ticks.
  assert.equal(decodeAgainstStated('entropy-17-mixed-predicted.hex').motion.span, 2);
});

test('motionOf counts an entity destroyed and created again with the same type as a survivor, and a type change as none', () => {
  const schema = vectorSchemas.mixed;
  const baseline = new Snapshot(schema, 10);
  baseline.append(1, 0, [1, 500, 0]);
  baseline.append(2, 0, [0, 500, 0]);
  const snapshot = new Snapshot(schema, 13);
  snapshot.append(1, 0, [0, 520, 2]);
  snapshot.append(2, 2, [1, 5n, 3]);
  assert.deepEqual(describeMotion(motionOf(schema, snapshot, baseline)), { span: 3, deltas: [[1, [0, 20, 0]]] });
  assert.equal(motionOf(schema, snapshot, undefined), Motion.zero);
});

test('decoding leaves the baseline untouched: changed entities get their own value arrays', () => {
  const baseline = statedSnapshot('entropy-07-arena-motion-start.hex');
  const before = baseline.describeEntities();
  const { snapshot } = new EntropySnapshotDecoder(vectorSchemas.arena)
    .decode(readVector('entropy-08-arena-predicted.hex').bytes, baseline, statedMotion('entropy-07-arena-motion-start.hex'));
  assert.deepEqual(baseline.describeEntities(), before);
  assert.notEqual(snapshot.values[snapshot.indexOf(2)], baseline.values[baseline.indexOf(2)]);
});

test('the entity limit holds at the limit and refuses one past it, for whole snapshots and created entities', () => {
  // entropy-03: a whole snapshot of 25 entities.
  assert.equal(decodeAgainstStated('entropy-03-mixed-full.hex', { maxEntities: 25 }).snapshot.count, 25);
  assert.throws(() => decodeAgainstStated('entropy-03-mixed-full.hex', { maxEntities: 24 }),
    (error) => isCodecError(error, 'tooManyEntities') && error.details.limit === 24 && error.details.count === 25);
  // entropy-02: two survivors of delta-01 and one created.
  assert.equal(decodeAgainstStated('entropy-02-arena-delta.hex', { maxEntities: 3 }).snapshot.count, 3);
  assert.throws(() => decodeAgainstStated('entropy-02-arena-delta.hex', { maxEntities: 2 }),
    (error) => isCodecError(error, 'tooManyEntities') && error.details.count === 3);
  // The limit never exceeds the protocol's.
  assert.equal(new EntropySnapshotDecoder(vectorSchemas.arena, { maxEntities: 1e9 }).maxEntities, 65536);
});

test('the encoded size limit holds at the limit and refuses one byte more', () => {
  const bytes = readVector('entropy-01-arena-full.hex').bytes;
  assert.equal(new EntropySnapshotDecoder(vectorSchemas.arena, { maxEncodedBytes: bytes.length }).decode(bytes, undefined).snapshot.count, 3);
  assert.throws(() => new EntropySnapshotDecoder(vectorSchemas.arena, { maxEncodedBytes: bytes.length - 1 }).decode(bytes, undefined),
    (error) => isCodecError(error, 'inputTooLarge'));
});

test('a delta without its baseline, or against another tick, is refused', () => {
  const bytes = readVector('entropy-02-arena-delta.hex').bytes;
  const decoder = new EntropySnapshotDecoder(vectorSchemas.arena);
  assert.throws(() => decoder.decode(bytes, undefined), (error) => isCodecError(error, 'baselineMissing') && error.details.tick === 100);
  assert.throws(() => decoder.decode(bytes, statedSnapshot('delta-02-arena-delta.hex')), (error) => isCodecError(error, 'baselineMismatch'));
  assert.throws(() => decoder.decode(bytes, statedSnapshot('entropy-04-mixed-delta.hex')), (error) => isCodecError(error, 'schemaMismatch'));
});

test('a 1 padding bit after the header, and a payload starting FF FF FF FF, are malformed range codes', () => {
  const decoder = new EntropySnapshotDecoder(vectorSchemas.arena);
  const baseline = statedSnapshot('delta-01-arena-full.hex');
  const bytes = readVector('entropy-02-arena-delta.hex').bytes.slice();
  // Header: tick 101 (8 bits), hasBaseline, age 1 (8 bits), isEmpty: 18 bits, so bits 2…7 of byte 2 pad.
  bytes[2] |= 0x80;
  assert.throws(() => decoder.decode(bytes, baseline), (error) => isCodecError(error, 'malformedRangeCode'));
  const allOnes = Uint8Array.of(0x65, 0x03, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00);
  assert.throws(() => decoder.decode(allOnes, baseline), (error) => isCodecError(error, 'malformedRangeCode'));
});

test('every truncation of every valid vector is refused as truncated', () => {
  for (const name of validNames) {
    const bytes = readVector(name).bytes;
    for (let length = 0; length < bytes.length; length++) {
      assert.throws(() => decodeAgainstStated(name, {}, bytes.subarray(0, length)),
        (error) => isCodecError(error, 'truncated'), `${name} cut to ${length} bytes`);
    }
  }
});

/** A small deterministic generator of bytes. */
function randomBytes(seed = 0x2545f491) {
  let state = seed >>> 0;
  return () => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state >>> 24; };
}

test('garbage and corrupted vectors never escape as anything but a CodecError, and never hang', { timeout: 20000 }, () => {
  const next = randomBytes();
  const contexts = [
    { schema: vectorSchemas.arena, baseline: statedSnapshot('entropy-08-arena-predicted.hex'), motion: statedMotion('entropy-08-arena-predicted.hex') },
    { schema: vectorSchemas.mixed, baseline: statedSnapshot('entropy-16-mixed-motion-start.hex'), motion: statedMotion('entropy-16-mixed-motion-start.hex') },
  ];
  /** @type {Map<string, number>} */
  const outcomes = new Map();
  const started = Date.now();
  for (let round = 0; round < 6000; round++) {
    const { schema, baseline, motion } = contexts[round % 2];
    const mode = (round >> 1) % 3;   // 0: a whole snapshot, 1: a plain delta, 2: a predicted delta
    const predicted = mode === 2;
    // Mostly a valid header, so that the random payload gets decoded; sometimes random bytes throughout.
    const header = new BitWriter();
    header.writeVarint(baseline.tick + 1);
    header.writeBool(mode !== 0);
    if (mode !== 0) header.writeVarint(1);
    if (predicted) header.writeBool(next() % 2 === 1);
    header.writeBool(false);
    const payload = Uint8Array.from({ length: 1 + (next() % 48) }, next);
    const bytes = round % 8 === 7 ? payload : Uint8Array.from([...header.bytes, ...payload]);
    try {
      new EntropySnapshotDecoder(schema).decode(bytes, mode === 0 ? undefined : baseline, predicted ? motion : undefined);
      outcomes.set('decoded', (outcomes.get('decoded') ?? 0) + 1);
    } catch (error) {
      assert.ok(error instanceof CodecError, `round ${round} threw ${error}`);
      outcomes.set(error.kind, (outcomes.get(error.kind) ?? 0) + 1);
    }
  }
  for (const name of validNames) {
    const vector = readVector(name);
    for (let round = 0; round < 200; round++) {
      const bytes = vector.bytes.slice();
      const flips = 1 + (next() % 3);
      for (let flip = 0; flip < flips; flip++) bytes[next() % bytes.length] ^= 1 << (next() % 8);
      try {
        decodeAgainstStated(name, {}, bytes);
      } catch (error) {
        assert.ok(error instanceof CodecError, `${name} corrupted (round ${round}) threw ${error}`);
      }
    }
  }
  assert.ok(Date.now() - started < 15000, 'bounded work');
  // The payloads reach deep into the decoder, not only its header checks.
  for (const kind of ['truncated', 'trailingData', 'valueOutOfRange']) {
    assert.ok((outcomes.get(kind) ?? 0) > 0, `some rounds end with ${kind}: ${[...outcomes]}`);
  }
});

// ---------------------------------------------------------------- a range encoder for focused inputs

/** Model offsets of PROTOCOL.md 4.5.3 (global block; a one-type schema's fields follow at 523, 349 each). */
const model = { hasDestroyed: 0, hasChanged: 1, hasCreated: 2, changed: 3, countTree: 11, gapTree: 75, typeTree: 139, firstField: 523, fieldSize: 349, fieldChanged: 0, sign: 6, bucket: 7, escape: 15 };

/** LZMA's range encoder (PROTOCOL.md 4.5.2), as entropy_codec.py's `RangeEncoder`; `low` stays below 2^33, exact in doubles. */
class RangeEncoder {
  constructor() {
    this.low = 0; this.range = 0xffffffff; this.cache = 0; this.cacheSize = 1;
    /** @type {number[]} */
    this.out = [];
    this.first = true;
    this.models = new Uint16Array(model.firstField + 4 * model.fieldSize).fill(0x8000);
  }

  /** @param {number} byte */
  emit(byte) {
    if (this.first) this.first = false; else this.out.push(byte);
  }

  shiftLow() {
    if (this.low < 0xff000000 || this.low >= 2 ** 32) {
      const carry = this.low >= 2 ** 32 ? 1 : 0;
      this.emit((this.cache + carry) & 0xff);
      for (let index = 1; index < this.cacheSize; index++) this.emit((0xff + carry) & 0xff);
      this.cacheSize = 0;
      this.cache = Math.floor(this.low / 2 ** 24) & 0xff;
    }
    this.cacheSize += 1;
    this.low = (this.low % 2 ** 24) * 256;
  }

  normalize() {
    while (this.range < 2 ** 24) { this.range *= 256; this.shiftLow(); }
  }

  /** @param {number} bit @param {number} index */
  bit(bit, index) {
    const m = this.models[index], p = m >>> 4, n = m & 15, shift = [1, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4][n];
    const bound = (this.range >>> 12) * p;
    if (bit) { this.low += bound; this.range -= bound; } else this.range = bound;
    this.models[index] = ((bit ? p - (p >>> shift) : p + ((4096 - p) >>> shift)) << 4) | Math.min(n + 1, 15);
    this.normalize();
  }

  /** @param {bigint} value @param {number} bits */
  raw(value, bits) {
    while (bits > 0) {
      const chunk = Math.min(bits, 8);
      bits -= chunk;
      this.range = this.range >>> chunk;
      this.low += this.range * Number((value >> BigInt(bits)) & ((1n << BigInt(chunk)) - 1n));
      this.normalize();
    }
  }

  /** @param {number} value @param {number} bits @param {number} base */
  tree(value, bits, base) {
    let node = 1;
    for (let level = bits - 1; level >= 0; level--) {
      const bit = (value >>> level) & 1;
      this.bit(bit, base + node);
      node = 2 * node + bit;
    }
  }

  /** `I(v, tree)`. @param {number} value @param {number} tree */
  integer(value, tree) {
    const n = BigInt(value) + 1n, bucket = n.toString(2).length - 1;
    this.tree(bucket, 6, tree);
    this.raw(n - (1n << BigInt(bucket)), bucket);
  }

  /**
   * A delta's sign, bucket and raw bits in a field wider than 8 bits (escaped buckets from 7).
   * @param {bigint} delta @param {number} width @param {number} fieldBase
   */
  delta(delta, width, fieldBase) {
    const magnitude = delta < 0n ? -delta : delta, bucket = magnitude.toString(2).length - 1;
    this.bit(delta < 0n ? 1 : 0, fieldBase + model.sign);
    const bucketBits = Math.min(3, (width - 1).toString(2).length), escapeBits = (width - 8).toString(2).length;
    this.tree(Math.min(bucket, 7), bucketBits, fieldBase + model.bucket);
    if (bucket >= 7) this.tree(bucket - 7, escapeBits, fieldBase + model.escape);
    this.raw(magnitude - (1n << BigInt(bucket)), bucket);
  }

  /** @returns {number[]} The payload. */
  finish() {
    for (let index = 0; index < 5; index++) this.shiftLow();
    return this.out;
  }
}

/**
 * The header of 4.5.1, then a payload.
 * @param {number} tick
 * @param {number | undefined} age Undefined for a whole snapshot.
 * @param {RangeEncoder} encoder
 * @returns {Uint8Array}
 */
function entropyCoded(tick, age, encoder) {
  const header = new BitWriter();
  header.writeVarint(tick);
  header.writeBool(age !== undefined);
  if (age !== undefined) header.writeVarint(age);
  header.writeBool(false);
  return Uint8Array.from([...header.bytes, ...encoder.finish()]);
}

test('the entity limit of 65 536 holds at the limit and refuses one past it before reading an entity', () => {
  const schema = vectorSchemas.mixed;
  // A whole snapshot of `count` entities of type b (no fields): id gap 0 and type 1 (2 bits) each.
  const whole = (/** @type {number} */ count, /** @type {number} */ written) => {
    const encoder = new RangeEncoder();
    encoder.integer(count, model.countTree);
    for (let index = 0; index < written; index++) { encoder.integer(0, model.gapTree); encoder.tree(1, 2, model.typeTree); }
    return entropyCoded(7, undefined, encoder);
  };
  const decoder = new EntropySnapshotDecoder(schema);
  const { snapshot } = decoder.decode(whole(65536, 65536), undefined);
  assert.equal(snapshot.count, 65536);
  assert.equal(snapshot.ids[65535], 65535);
  assert.throws(() => decoder.decode(whole(65537, 0), undefined), (error) => isCodecError(error, 'tooManyEntities') && error.details.limit === 65536);
  const limited = new EntropySnapshotDecoder(schema, { maxEntities: 100 });
  assert.equal(limited.decode(whole(100, 100), undefined).snapshot.count, 100);
  assert.throws(() => limited.decode(whole(101, 0), undefined), (error) => isCodecError(error, 'tooManyEntities') && error.details.count === 101);
});

test('fields over 32 bits: a 40-bit value in numbers, a 61-bit one in bigints, whole and as deltas', () => {
  const schema = new Schema([entityType('w', [field('big', FieldKind.integer(0, 2n ** 40n - 1n)), field('wide', FieldKind.integer(0, 2n ** 60n))])]);
  const bigBase = model.firstField, wideBase = model.firstField + model.fieldSize;
  // Tick 1: entity 3 with big = 2^39 + 5 and wide = 2^59 + 7, both sent raw.
  const encoder = new RangeEncoder();
  encoder.integer(1, model.countTree);
  encoder.integer(3, model.gapTree);
  encoder.raw(2n ** 39n + 5n, 40);
  encoder.raw(2n ** 59n + 7n, 61);
  const decoder = new EntropySnapshotDecoder(schema);
  const { snapshot: baseline } = decoder.decode(entropyCoded(1, undefined, encoder), undefined);
  assert.deepEqual(baseline.values, [[2 ** 39 + 5, 2n ** 59n + 7n]]);
  // Tick 2: big changes by `bigDelta` and wide by `wideDelta`.
  const delta = (/** @type {bigint} */ bigDelta, /** @type {bigint} */ wideDelta) => {
    const changes = new RangeEncoder();
    changes.bit(0, model.hasDestroyed);
    changes.bit(1, model.hasChanged);
    changes.bit(1, model.changed);
    changes.bit(1, bigBase + model.fieldChanged);
    changes.delta(bigDelta, 40, bigBase);
    changes.bit(1, wideBase + model.fieldChanged + 2);
    changes.delta(wideDelta, 61, wideBase);
    changes.bit(0, model.hasCreated);
    return entropyCoded(2, 1, changes);
  };
  const { snapshot, motion } = decoder.decode(delta(-(2n ** 38n) - 1n, 2n ** 45n + 9n), baseline);
  assert.deepEqual(snapshot.values, [[2 ** 39 - 2 ** 38 + 4, 2n ** 59n + 2n ** 45n + 16n]]);
  assert.equal(typeof snapshot.values[0][0], 'number');
  assert.deepEqual(describeMotion(motion), { span: 1, deltas: [] }, 'fields over 32 bits carry no motion');
  assert.throws(() => decoder.decode(delta(2n ** 39n, 1n), baseline), (error) => isCodecError(error, 'valueOutOfRange'));
  assert.throws(() => decoder.decode(delta(1n, -(2n ** 59n) - 8n), baseline), (error) => isCodecError(error, 'valueOutOfRange'));
  assert.throws(() => decoder.decode(delta(1n, 2n ** 59n), baseline), (error) => isCodecError(error, 'valueOutOfRange'));
});

test('an entity destroyed and created again with the same type carries motion, as motionOf counts it (no encoder writes this)', () => {
  const schema = new Schema([entityType('a', [field('score', FieldKind.integer(0, 1000))])]);
  const baseline = new Snapshot(schema, 10);
  baseline.append(4, 0, [500]);
  const encoder = new RangeEncoder();
  encoder.bit(1, model.hasDestroyed);
  encoder.integer(0, 395); // destroyedCount_tree: one entity
  encoder.integer(0, 459); // destroyedGap_tree: the baseline's entity 0 (id 4)
  encoder.bit(0, model.hasChanged);
  encoder.bit(1, model.hasCreated);
  encoder.integer(0, model.countTree); // one created entity
  encoder.integer(4, model.gapTree); // id 4 again (one type: no type bits)
  encoder.raw(520n, 10); // score, a whole 10-bit value
  const { snapshot, motion } = new EntropySnapshotDecoder(schema).decode(entropyCoded(13, 3, encoder), baseline);
  assert.deepEqual(snapshot.describeEntities(), ['4 0 520']);
  assert.deepEqual(describeMotion(motion), { span: 3, deltas: [[4, [20]]] });
  assert.deepEqual(describeMotion(motion), describeMotion(motionOf(schema, snapshot, baseline)));
});
