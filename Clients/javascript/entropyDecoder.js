// Decoding an entropy-coded snapshot (PROTOCOL.md 4.5) and its motion-predicted variant (4.5.6),
// with every limit of section 7.1; written from the protocol and Protocol/reference/entropy_codec.py.
// Values of fields up to 52 bits are numbers, wider ones bigints, as in deltaDecoder.js.
import { BitReader } from './bitReader.js';
import { checkDecoderInput, decoderLimits } from './deltaDecoder.js';
import { CodecError } from './errors.js';
import { KindTag } from './fieldKind.js';
import { Snapshot } from './snapshot.js';
import { checkTextLength, checkUTF8 } from './textValue.js';

/** @typedef {import('./schema.js').Schema} Schema */
/** @typedef {import('./schema.js').FieldLayout} FieldLayout */

// ---------------------------------------------------------------- errors

/**
 * @param {string} what
 * @param {string} value
 * @param {string} allowed
 * @returns {CodecError}
 */
function outOfRange(what, value, allowed) {
  return new CodecError('valueOutOfRange', { what, value, allowed }, `${what} is ${value}, outside the allowed ${allowed}`);
}

/**
 * @param {number} count
 * @param {number} limit
 * @returns {CodecError}
 */
function tooManyEntities(count, limit) {
  return new CodecError('tooManyEntities', { count, limit }, `${count} entities exceed the limit of ${limit}`);
}

/**
 * @param {number} atByte
 * @param {string} why
 * @returns {CodecError}
 */
function malformedRangeCode(atByte, why) {
  return new CodecError('malformedRangeCode', { atByte }, `malformed range code at byte ${atByte}: ${why}`);
}

/**
 * @param {number} bytes Bytes left over.
 * @returns {CodecError}
 */
function trailingData(bytes) {
  return new CodecError('trailingData', { bytes }, `${bytes} bytes follow the end of the entropy-coded snapshot`);
}

// ---------------------------------------------------------------- 4.5.6 motion

/** The largest baseline age and motion span that predict (PROTOCOL.md 4.5.6). */
const maxPredictionTicks = 255;

/** A snapshot's motion (PROTOCOL.md 4.5.6): how its values changed since its baseline, and over how many ticks. */
export class Motion {
  /**
   * @param {number} span Ticks between the snapshot and its baseline (1 for a whole snapshot).
   * @param {ReadonlyMap<number, ReadonlyArray<number>>} [deltas] Per entity id, `q_new − q_baseline` per field
   *   (0 for fields that are not motion fields); ids not present have zero motion.
   */
  constructor(span, deltas = new Map()) {
    /** @type {number} */
    this.span = span;
    /** @type {ReadonlyMap<number, ReadonlyArray<number>>} Only entities whose motion is not all 0. */
    this.deltas = deltas;
  }

  /** @type {Motion} The motion of a whole snapshot: none, over a span of 1 tick. */
  static zero = Object.freeze(new Motion(1));

  /**
   * @param {number} id
   * @returns {ReadonlyArray<number> | undefined} The entity's motion per field, undefined when it is all 0.
   */
  deltasOf(id) {
    return this.deltas.get(id);
  }
}

/**
 * @param {FieldLayout} layout
 * @returns {boolean} Whether the field carries motion: linear delta, at most 32 bits wide (4.5.6).
 */
function isMotionField(layout) {
  return layout.deltaMode === 1 && layout.width <= 32;
}

/** @type {WeakMap<Schema, number[][]>} Per schema, per type, the indices of its motion fields. */
const motionFieldsBySchema = new WeakMap();

/**
 * @param {Schema} schema
 * @returns {number[][]} Per type, the indices of its motion fields.
 */
function motionFieldsOf(schema) {
  let fields = motionFieldsBySchema.get(schema);
  if (!fields) {
    fields = schema.layouts.map((layouts) => layouts.flatMap((layout, field) => (isMotionField(layout) ? [field] : [])));
    motionFieldsBySchema.set(schema, fields);
  }
  return fields;
}

/**
 * The motion of a snapshot against the baseline it was coded against (PROTOCOL.md 4.5.6): for each
 * entity with the same id and type in both, `q − q_baseline` per motion field. Mirrors `motion_of`.
 * @param {Schema} schema
 * @param {Snapshot} snapshot
 * @param {Snapshot | undefined} baseline Undefined for a whole snapshot: zero motion, span 1.
 * @returns {Motion}
 */
export function motionOf(schema, snapshot, baseline) {
  if (!baseline) return Motion.zero;
  const motionFields = motionFieldsOf(schema);
  /** @type {Map<number, number[]>} */
  const deltas = new Map();
  let baselineIndex = 0;
  for (let index = 0; index < snapshot.count && baselineIndex < baseline.count; index++) {
    const id = snapshot.ids[index];
    while (baselineIndex < baseline.count && baseline.ids[baselineIndex] < id) baselineIndex++;
    if (baseline.ids[baselineIndex] !== id || baseline.types[baselineIndex] !== snapshot.types[index]) continue;
    const values = snapshot.values[index], old = baseline.values[baselineIndex];
    // Unchanged entities share their value array with the baseline.
    if (values === old) continue;
    const entityDeltas = entityMotion(motionFields[snapshot.types[index]], values, old);
    if (entityDeltas) deltas.set(id, entityDeltas);
  }
  return new Motion((snapshot.tick - baseline.tick) >>> 0, deltas);
}

/**
 * @param {number[]} motionFields
 * @param {ReadonlyArray<number | bigint | Uint8Array>} values
 * @param {ReadonlyArray<number | bigint | Uint8Array>} old
 * @returns {number[] | undefined} The motion per field, undefined when it is all 0.
 */
function entityMotion(motionFields, values, old) {
  /** @type {number[] | undefined} */
  let deltas;
  for (const field of motionFields) {
    const delta = /** @type {number} */ (values[field]) - /** @type {number} */ (old[field]);
    if (delta === 0) continue;
    deltas ??= new Array(values.length).fill(0);
    deltas[field] = delta;
  }
  return deltas;
}

/**
 * @param {number} age The new snapshot's baseline age.
 * @param {number} span The baseline's motion span.
 * @returns {boolean} Whether a snapshot may be predicted (both in 1 … 255).
 */
function predictionUsable(age, span) {
  return age >= 1 && age <= maxPredictionTicks && span >= 1 && span <= maxPredictionTicks;
}

/**
 * m' of PROTOCOL.md 4.5.6: the motion `m` scaled from its span to the new age, rounded half away from 0.
 * @param {number} m
 * @param {number} age
 * @param {number} span
 * @returns {number}
 */
function scaled(m, age, span) {
  if (age === span || m === 0) return m;
  const magnitude = Math.floor((Math.abs(m) * age + Math.floor(span / 2)) / span);
  return m > 0 ? magnitude : -magnitude;
}

// ---------------------------------------------------------------- 4.5.2 range coder

/** The range below which the decoder takes in another byte. */
const topOfRange = 2 ** 24;

/** A model's adaptation shift by the count of bits it has seen (0 … 15). */
const shiftByCount = Uint8Array.of(1, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4);

/** Every model's state at the start of a snapshot: P = 2048 (of 4096), nothing seen. */
const initialModel = 0x8000;

/**
 * A model after coding one bit with it: bits 4–15 the probability of a 0, bits 0–3 the count.
 * @param {number} model
 * @param {number} bit
 * @returns {number}
 */
function adapted(model, bit) {
  const count = model & 15;
  const shift = shiftByCount[count];
  const p = model >>> 4;
  const next = bit === 0 ? p + ((4096 - p) >>> shift) : p - (p >>> shift);
  return (next << 4) | (count < 15 ? count + 1 : 15);
}

/**
 * LZMA's binary range decoder over one payload. `range` and `code` are uint32 values in doubles:
 * `(range >>> 12) × P` stays below 2^32 and `code / range` is exact, so no arithmetic rounds.
 */
class RangeDecoder {
  constructor() {
    /** @type {Uint8Array} */
    this.bytes = new Uint8Array(0);
    /** @type {number} The next byte to read. */
    this.position = 0;
    /** @type {number} */
    this.range = 0xffffffff;
    /** @type {number} */
    this.code = 0;
  }

  /**
   * Starts decoding the payload at `offset`.
   * @param {Uint8Array} bytes
   * @param {number} offset
   * @throws {CodecError} `truncated`, `malformedRangeCode`.
   */
  start(bytes, offset) {
    this.bytes = bytes;
    this.position = offset;
    this.range = 0xffffffff;
    this.code = 0;
    for (let index = 0; index < 4; index++) this.code = this.code * 256 + this.nextByte();
    if (this.code === 0xffffffff) throw malformedRangeCode(offset, 'the code starts at 0xFFFFFFFF, which no encoder writes');
  }

  /** @returns {number} @throws {CodecError} `truncated`. */
  nextByte() {
    if (this.position >= this.bytes.length) {
      throw new CodecError('truncated', { neededBits: 8, availableBits: 0 }, 'the entropy-coded payload ends early');
    }
    return this.bytes[this.position++];
  }

  normalize() {
    while (this.range < topOfRange) {
      this.range = (this.range << 8) >>> 0;
      this.code = ((this.code << 8) | this.nextByte()) >>> 0;
    }
  }

  /**
   * Decodes one bit with a model, and adapts it.
   * @param {Uint16Array} models
   * @param {number} index
   * @returns {number} 0 or 1.
   */
  bit(models, index) {
    const model = models[index];
    const bound = (this.range >>> 12) * (model >>> 4);
    let bit;
    if (this.code < bound) {
      this.range = bound;
      bit = 0;
    } else {
      this.code -= bound;
      this.range -= bound;
      bit = 1;
    }
    models[index] = adapted(model, bit);
    this.normalize();
    return bit;
  }

  /**
   * Decodes `bits` (1 … 8) equiprobable bits.
   * @param {number} bits
   * @returns {number}
   * @throws {CodecError} `malformedRangeCode` for a value no encoder writes.
   */
  direct(bits) {
    this.range = this.range >>> bits;
    const value = Math.floor(this.code / this.range);
    if (value >= 1 << bits) throw malformedRangeCode(this.position, `a direct value of ${value} in ${bits} bits`);
    this.code -= value * this.range;
    this.normalize();
    return value;
  }

  /**
   * `raw(k)` as a number: the bits in chunks of 8, most significant first.
   * @param {number} bits 0 … 52.
   * @returns {number}
   */
  raw(bits) {
    let value = 0;
    for (let left = bits; left > 0;) {
      const chunk = Math.min(left, 8);
      left -= chunk;
      value = value * (1 << chunk) + this.direct(chunk);
    }
    return value;
  }

  /**
   * `raw(k)` as a bigint, for fields over 52 bits.
   * @param {number} bits 0 … 64.
   * @returns {bigint}
   */
  rawBig(bits) {
    let value = 0n;
    for (let left = bits; left > 0;) {
      const chunk = Math.min(left, 8);
      left -= chunk;
      value = (value << BigInt(chunk)) | BigInt(this.direct(chunk));
    }
    return value;
  }

  /**
   * Decodes a `bits`-bit value through a binary tree of models at `base + 1 …`.
   * @param {number} bits 0 … 8.
   * @param {Uint16Array} models
   * @param {number} base
   * @returns {number}
   */
  tree(bits, models, base) {
    let node = 1;
    for (let level = 0; level < bits; level++) node = 2 * node + this.bit(models, base + node);
    return node - (1 << bits);
  }

  /**
   * The end of the payload: every byte read, and (protocol 1.1) the code back at 0, as the encoder's
   * flush leaves it for every payload it writes (PROTOCOL.md 4.5.2).
   * @throws {CodecError} `trailingData` when the payload was not read to its end, then `malformedRangeCode`.
   */
  finish() {
    if (this.position !== this.bytes.length) throw trailingData(this.bytes.length - this.position);
    if (this.code !== 0) throw malformedRangeCode(this.position, `the code ends at ${this.code}, not 0`);
  }
}

// ---------------------------------------------------------------- 4.5.3 models

/** Offsets of the global models in the table. */
const GlobalModel = Object.freeze({
  hasDestroyed: 0, hasChanged: 1, hasCreated: 2, changed: 3,
  countTree: 11, gapTree: 75, typeTree: 139, destroyedCount: 395, destroyedGap: 459,
  /** The size of the global block. */
  size: 523,
});

/** Offsets of a field's models within its block. */
const FieldModel = Object.freeze({
  changed: 0, sign: 6, bucket: 7, escape: 15, whole: 79,
  changedPredicted: 335, motionSign: 347,
  /** The size of a field's block. */
  size: 349,
});

/** In a field wider than 8 bits, the bucket that escapes to `escape_f` (buckets 7 and up). */
const escapedBucket = 7;

/** The models of one snapshot in one table, a type's blocks reset when the snapshot first touches it. */
class EntropyModels {
  /** @param {Schema} schema */
  constructor(schema) {
    /** @type {number[]} The offset of each type's first field block. */
    this.typeStarts = [];
    let size = GlobalModel.size;
    for (const layouts of schema.layouts) {
      this.typeStarts.push(size);
      size += layouts.length * FieldModel.size;
    }
    /** @type {number[]} The offset after each type's last field block. */
    this.typeEnds = schema.layouts.map((layouts, type) => this.typeStarts[type] + layouts.length * FieldModel.size);
    /** @type {Uint16Array} */
    this.table = new Uint16Array(size);
    /** @type {Uint8Array} 1 for the types whose models this snapshot has reset. */
    this.typeReady = new Uint8Array(schema.layouts.length);
  }

  /** Starts a snapshot: the global models afresh, every type's to be reset when first used. */
  reset() {
    this.table.fill(initialModel, 0, GlobalModel.size);
    this.typeReady.fill(0);
  }

  /**
   * @param {number} type
   * @returns {number} The offset of the type's first field block, its models reset for this snapshot.
   */
  typeStart(type) {
    if (this.typeReady[type] === 0) {
      this.table.fill(initialModel, this.typeStarts[type], this.typeEnds[type]);
      this.typeReady[type] = 1;
    }
    return this.typeStarts[type];
  }
}

/**
 * What the decoder needs of a field beyond its layout.
 * @typedef {{layout: FieldLayout, isMotion: boolean, bucketBits: number, escapeBits: number}} FieldCoding
 */

/**
 * @param {FieldLayout} layout
 * @returns {FieldCoding}
 */
function fieldCodingOf(layout) {
  const bitsOf = (/** @type {number} */ value) => (value <= 0 ? 0 : 32 - Math.clz32(value));
  return {
    layout,
    isMotion: isMotionField(layout),
    bucketBits: Math.min(3, bitsOf(layout.width - 1)),
    escapeBits: bitsOf(layout.width - 1 - escapedBucket),
  };
}

/**
 * @param {Schema} schema
 * @returns {number[]} Per type, the index of its first bool field (its activity bit), or −1.
 */
function activityFieldsOf(schema) {
  return schema.entityTypes.map((type) => type.fields.findIndex((declared) => declared.kind.tag === KindTag.bool));
}

// ---------------------------------------------------------------- 4.5.1 header

/**
 * The header of an entropy-coded snapshot.
 * @typedef {object} EntropyHeader
 * @property {number} tick
 * @property {number | undefined} baselineTick Undefined for a whole snapshot.
 * @property {number} age The baseline age (0 for a whole snapshot).
 * @property {boolean} predicts The predicted bit (4.5.6).
 * @property {boolean} isEmpty
 * @property {number} payloadStart The byte where the range-coded payload starts.
 */

/**
 * Reads the header (4.5.1, with the predicted bit of 4.5.6 when `baselineMotion` is given) and
 * makes the checks that need no baseline.
 * @param {BitReader} reader
 * @param {Motion | undefined} baselineMotion
 * @returns {EntropyHeader}
 * @throws {CodecError}
 */
function readHeader(reader, baselineMotion) {
  const tick = reader.readVarint32('snapshot tick');
  let baselineTick, age = 0, predicts = false;
  if (reader.readBool()) {
    age = reader.readVarint32('baseline age');
    baselineTick = (tick - age) >>> 0;
    if (baselineMotion !== undefined) {
      predicts = reader.readBool();
      // The header's own checks here, in the order of 4.5.6; the span needs the baseline (checkPredictedBit).
      if (predicts && !(age >= 1 && age <= maxPredictionTicks)) throw outOfRange('baseline age for prediction', String(age), `1...${maxPredictionTicks}`);
    }
  }
  const isEmpty = reader.readBool();
  if (isEmpty && predicts) throw outOfRange('predicted bit of an empty snapshot', '1', '0');
  const padding = (8 - (reader.position & 7)) & 7;
  if (reader.read(padding) !== 0) throw malformedRangeCode(reader.position >>> 3, 'a padding bit after the header is 1');
  return { tick, baselineTick, age, predicts, isEmpty, payloadStart: reader.position >>> 3 };
}

/**
 * @param {number} baselineTick
 * @param {Snapshot | undefined} baseline
 * @returns {Snapshot}
 * @throws {CodecError} `baselineMissing`, `baselineMismatch`.
 */
function requireBaseline(baselineTick, baseline) {
  if (!baseline) {
    throw new CodecError('baselineMissing', { tick: baselineTick }, `the delta is against baseline tick ${baselineTick} but no baseline was given`);
  }
  if (baseline.tick !== baselineTick) {
    throw new CodecError('baselineMismatch', { expected: baselineTick, given: baseline.tick },
      `the delta is against baseline tick ${baselineTick} but the given baseline is tick ${baseline.tick}`);
  }
  return baseline;
}

/**
 * Checks the predicted bit against the baseline's motion (4.5.6), once the baseline is known: 1 only
 * when the span is in 1 … 255, and (protocol 1.1) 0 only where an encoder writes 0.
 * @param {EntropyHeader} header
 * @param {Motion} baselineMotion
 * @throws {CodecError} `valueOutOfRange`.
 */
function checkPredictedBit(header, baselineMotion) {
  const usable = predictionUsable(header.age, baselineMotion.span);
  if (header.predicts && !usable) {
    throw outOfRange("span of the baseline's motion for prediction", String(baselineMotion.span), `1...${maxPredictionTicks}`);
  }
  if (!header.predicts && !header.isEmpty && usable) {
    throw outOfRange(`predicted bit of a snapshot ${header.age} ticks after a baseline whose motion spans ${baselineMotion.span}`, '0',
      '1 (an encoder predicts every non-empty snapshot it can)');
  }
}

// ---------------------------------------------------------------- decoder

/**
 * A decoded snapshot and its motion against its baseline, to keep with it for the predicted coding.
 * @typedef {{snapshot: Snapshot, motion: Motion}} DecodedSnapshot
 */

/** Decodes entropy-coded snapshots of one schema (PROTOCOL.md 4.5, and 4.5.6 given a baseline motion). */
export class EntropySnapshotDecoder {
  /**
   * @param {Schema} schema
   * @param {{maxEntities?: number, maxEncodedBytes?: number}} [limits] Defaults: 65 536 entities, 4 MiB.
   */
  constructor(schema, limits = {}) {
    /** @type {Schema} */
    this.schema = schema;
    const { maxEntities, maxEncodedBytes } = decoderLimits(limits);
    /** @type {number} */
    this.maxEntities = maxEntities;
    /** @type {number} */
    this.maxEncodedBytes = maxEncodedBytes;
    /** @type {EntropyPass} One decode pass, reused by every call (decoding is synchronous). */
    this.pass = new EntropyPass(schema, this.maxEntities);
  }


  /**
   * Decodes a snapshot.
   * @param {Uint8Array} bytes The encoded snapshot (a snapshot message's delta).
   * @param {Snapshot | undefined} baseline The snapshot of the baseline tick, when the encoding is a delta.
   * @param {Motion} [baselineMotion] For a connection in the predicted coding (4.5.6): the motion kept with
   *   `baseline` (`Motion.zero` when there is no baseline). Undefined for the plain coding (4.5).
   * @returns {DecodedSnapshot} The snapshot, and its motion against the baseline (zero for a whole snapshot).
   * @throws {CodecError}
   */
  decode(bytes, baseline, baselineMotion) {
    checkDecoderInput(this.schema, this.maxEncodedBytes, bytes, baseline);
    return this.pass.decode(bytes, baseline, baselineMotion);
  }
}

/**
 * A prediction in force (4.5.6): the baseline's motion and the new snapshot's age.
 * @typedef {{motion: Motion, age: number}} Prediction
 */

/** Decode passes over entropy-coded snapshots, one at a time; mirrors `_decode` of entropy_codec.py. */
class EntropyPass {
  /**
   * @param {Schema} schema
   * @param {number} maxEntities
   */
  constructor(schema, maxEntities) {
    this.schema = schema;
    this.maxEntities = maxEntities;
    this.reader = new BitReader(new Uint8Array(0));
    this.rangeDecoder = new RangeDecoder();
    this.models = new EntropyModels(schema);
    /** @type {FieldCoding[][]} Per type, per field. */
    this.codings = schema.layouts.map((layouts) => layouts.map(fieldCodingOf));
    /** @type {number[]} */
    this.activityFields = activityFieldsOf(schema);
    /** @type {number[][]} Per type, the indices of its motion fields. */
    this.motionFields = motionFieldsOf(schema);
    /** @type {Map<number, number[]>} The motion of the snapshot being decoded, filled as its entities are read. */
    this.motionDeltas = new Map();
  }

  /**
   * @param {Uint8Array} bytes
   * @param {Snapshot | undefined} baseline
   * @param {Motion | undefined} baselineMotion
   * @returns {DecodedSnapshot}
   */
  decode(bytes, baseline, baselineMotion) {
    this.reader.reset(bytes);
    const header = readHeader(this.reader, baselineMotion);
    const base = header.baselineTick === undefined ? undefined : requireBaseline(header.baselineTick, baseline);
    if (base && baselineMotion !== undefined) checkPredictedBit(header, baselineMotion);
    if (header.isEmpty) return this.emptySnapshot(bytes, header, base);
    this.rangeDecoder.start(bytes, header.payloadStart);
    this.models.reset();
    if (!base) {
      const snapshot = this.readWhole(header.tick);
      this.rangeDecoder.finish();
      return { snapshot, motion: Motion.zero };
    }
    // The motion (what motionOf computes) is gathered as the delta is read: only changed
    // survivors, and created entities that replace one of the same type, can have any.
    this.motionDeltas = new Map();
    const prediction = header.predicts && baselineMotion ? { motion: baselineMotion, age: header.age } : undefined;
    const snapshot = this.readDelta(header.tick, base, prediction);
    this.rangeDecoder.finish();
    return { snapshot, motion: new Motion((header.tick - base.tick) >>> 0, this.motionDeltas) };
  }

  /**
   * An empty snapshot (isEmpty 1): no entities, or exactly the baseline's, with zero motion over its age.
   * @param {Uint8Array} bytes
   * @param {EntropyHeader} header
   * @param {Snapshot | undefined} baseline
   * @returns {DecodedSnapshot}
   */
  emptySnapshot(bytes, header, baseline) {
    if (header.payloadStart !== bytes.length) throw trailingData(bytes.length - header.payloadStart);
    const snapshot = new Snapshot(this.schema, header.tick);
    if (!baseline) return { snapshot, motion: Motion.zero };
    snapshot.ids = baseline.ids.slice();
    snapshot.types = baseline.types.slice();
    snapshot.values = baseline.values.slice();
    return { snapshot, motion: new Motion(header.age) };
  }

  /**
   * A whole snapshot (4.5.4): a count, then the entities.
   * @param {number} tick
   * @returns {Snapshot}
   */
  readWhole(tick) {
    const count = this.readInteger(GlobalModel.countTree);
    // Protocol 1.1: a snapshot without entities is coded with isEmpty 1, never as a payload.
    if (count === 0) throw outOfRange('entity count of a whole payload', '0', '1 or more (isEmpty codes 0)');
    if (count > this.maxEntities) throw tooManyEntities(count, this.maxEntities);
    const snapshot = new Snapshot(this.schema, tick);
    this.readEntities(count, snapshot, undefined);
    return snapshot;
  }

  /**
   * A delta (4.5.4 steps 1–3, with the prediction of 4.5.6 when one is given).
   * @param {number} tick
   * @param {Snapshot} baseline
   * @param {Prediction | undefined} prediction
   * @returns {Snapshot}
   */
  readDelta(tick, baseline, prediction) {
    const models = this.models.table, rangeDecoder = this.rangeDecoder;
    const survivors = new Snapshot(this.schema, tick);
    const hasDestroyed = rangeDecoder.bit(models, GlobalModel.hasDestroyed);
    if (hasDestroyed) {
      this.readSurvivors(baseline, survivors);
    } else {
      survivors.ids = baseline.ids.slice();
      survivors.types = baseline.types.slice();
      survivors.values = baseline.values.slice();
    }
    const hasChanged = rangeDecoder.bit(models, GlobalModel.hasChanged);
    if (hasChanged) this.readChanges(survivors, prediction);
    const hasCreated = rangeDecoder.bit(models, GlobalModel.hasCreated);
    // Protocol 1.1: a delta that changes nothing is coded with isEmpty 1, never as a payload.
    if (!hasDestroyed && !hasChanged && !hasCreated) throw outOfRange('section flags of a delta payload', 'all 0', 'at least one 1 (isEmpty codes none)');
    if (!hasCreated) return survivors;
    const count = this.readInteger(GlobalModel.countTree) + 1;
    if (survivors.count + count > this.maxEntities) throw tooManyEntities(survivors.count + count, this.maxEntities);
    const created = new Snapshot(this.schema, tick);
    this.readEntities(count, created, survivors);
    this.addReplacementMotion(baseline, created);
    return merged(survivors, created);
  }

  /**
   * Adds the motion of created entities whose id the baseline holds with the same type: an
   * entity destroyed and created again is a survivor for the motion (4.5.6; no encoder writes it).
   * @param {Snapshot} baseline
   * @param {Snapshot} created
   */
  addReplacementMotion(baseline, created) {
    for (let index = 0; index < created.count; index++) {
      const type = created.types[index];
      const baselineIndex = baseline.indexOf(created.ids[index]);
      if (baselineIndex < 0 || baseline.types[baselineIndex] !== type) continue;
      const entityDeltas = entityMotion(this.motionFields[type], created.values[index], baseline.values[baselineIndex]);
      if (entityDeltas) this.motionDeltas.set(created.ids[index], entityDeltas);
    }
  }

  /**
   * `I(v, tree)` of 4.5.3: a 6-bit bucket, then the bits of `v + 1` below its leading one.
   * @param {number} tree The offset of the 6-bit tree's models.
   * @returns {number} 0 … 2^33 − 2.
   */
  readInteger(tree) {
    const bucket = this.rangeDecoder.tree(6, this.models.table, tree);
    if (bucket > 32) throw outOfRange('integer code bucket', String(bucket), '0...32');
    return 2 ** bucket + this.rangeDecoder.raw(bucket) - 1;
  }

  /**
   * Reads the destroyed entities (4.5.4 step 1) and copies the rest of the baseline, in id order.
   * @param {Snapshot} baseline
   * @param {Snapshot} survivors Empty; receives the survivors.
   */
  readSurvivors(baseline, survivors) {
    const count = this.readInteger(GlobalModel.destroyedCount) + 1;
    // More destroyed than the baseline holds: tooManyEntities, as in the bit-packed coding (4.2).
    if (count > baseline.count) throw tooManyEntities(count, baseline.count);
    let next = 0;
    for (let number = 0; number < count; number++) {
      const index = next + this.readInteger(GlobalModel.destroyedGap);
      if (index >= baseline.count) throw outOfRange('destroyed entity index', String(index), `0...${baseline.count - 1}`);
      copyEntities(baseline, next, index, survivors);
      next = index + 1;
    }
    copyEntities(baseline, next, baseline.count, survivors);
  }

  /**
   * Reads the changed bits of the survivors and each changed one's field changes (4.5.4 step 2).
   * @param {Snapshot} survivors Whose value arrays are still the baseline's; a changed one gets a copy.
   * @param {Prediction | undefined} prediction
   */
  readChanges(survivors, prediction) {
    const models = this.models.table;
    let history = 0, anyChanged = false;
    for (let index = 0; index < survivors.count; index++) {
      const type = survivors.types[index];
      const activity = this.activityOf(type, survivors.values[index]);
      const changed = this.rangeDecoder.bit(models, GlobalModel.changed + history + 4 * activity);
      history = ((history << 1) | changed) & 3;
      if (changed === 0) continue;
      anyChanged = true;
      const old = survivors.values[index];
      const values = old.slice();
      this.readFieldChanges(survivors.ids[index], type, activity, values, prediction);
      // Protocol 1.1: a changed survivor differs from its baseline (a type without fields never does).
      if (values.every((value, field) => value === old[field])) {
        throw outOfRange(`changed entity ${survivors.ids[index]}`, 'equal to its baseline', 'a value that differs');
      }
      survivors.values[index] = values;
      const entityDeltas = entityMotion(this.motionFields[type], values, old);
      if (entityDeltas) this.motionDeltas.set(survivors.ids[index], entityDeltas);
    }
    if (!anyChanged) throw outOfRange('changed entity bits', 'all 0', 'at least one 1');
  }

  /**
   * @param {number} type
   * @param {ReadonlyArray<number | bigint | Uint8Array>} values The entity's baseline values.
   * @returns {number} The activity bit: the first bool field's value, 0 without one.
   */
  activityOf(type, values) {
    const field = this.activityFields[type];
    return field < 0 ? 0 : /** @type {number} */ (values[field]) & 1;
  }

  /**
   * Reads one changed entity's field changes into `values` (4.5.4 step 2; 4.5.6).
   * @param {number} id
   * @param {number} type
   * @param {number} activity
   * @param {Array<number | bigint | Uint8Array>} values The baseline values, overwritten with the new ones.
   * @param {Prediction | undefined} prediction
   */
  readFieldChanges(id, type, activity, values, prediction) {
    const codings = this.codings[type];
    const typeStart = this.models.typeStart(type);
    const motion = prediction?.motion.deltasOf(id);
    const rangeDecoder = this.rangeDecoder, models = this.models.table;
    let state = 0;
    for (let field = 0; field < codings.length; field++) {
      const coding = codings[field];
      const modelBase = typeStart + field * FieldModel.size;
      const old = values[field];
      let predicted = old, predictedMotion = 0;
      if (motion && coding.isMotion && motion[field] !== 0) {
        predictedMotion = scaled(motion[field], /** @type {Prediction} */ (prediction).age, /** @type {Prediction} */ (prediction).motion.span);
        predicted = Math.min(Math.max(/** @type {number} */ (old) + predictedMotion, 0), /** @type {number} */ (coding.layout.maxQ));
      }
      let changed;
      if (prediction) {
        changed = rangeDecoder.bit(models, modelBase + FieldModel.changedPredicted + state + 3 * activity + (predictedMotion !== 0 ? 6 : 0));
      } else if (field < codings.length - 1 || state !== 0) {
        changed = rangeDecoder.bit(models, modelBase + FieldModel.changed + state + 3 * activity);
      } else {
        changed = 1;   // the last field, when no earlier one changed
      }
      state = changed ? 2 : (state ? 1 : 0);
      values[field] = changed ? this.readChangedValue(id, field, coding, modelBase, old, predicted, predictedMotion) : predicted;
    }
  }

  /**
   * Reads a changed field's new value: the other bool value, a whole value, or a residual.
   * @param {number} id
   * @param {number} field
   * @param {FieldCoding} coding
   * @param {number} modelBase The field's block of models.
   * @param {number | bigint | Uint8Array} old The baseline value (a text's bytes, protocol 1.2).
   * @param {number | bigint | Uint8Array} predicted The prediction, `old` unless a motion field is predicted.
   * @param {number} predictedMotion m', 0 when not predicted.
   * @returns {number | bigint | Uint8Array}
   */
  readChangedValue(id, field, coding, modelBase, old, predicted, predictedMotion) {
    const layout = coding.layout;
    if (layout.deltaMode === 3) {
      // A changed text (protocol 1.2) is sent whole and must differ from the old one.
      const text = this.readText(layout, field, id);
      if (old instanceof Uint8Array && text.length === old.length && text.every((byte, index) => byte === old[index])) {
        throw outOfRange(`changed text field ${field} of entity ${id}`, 'its old text', 'another text');
      }
      return text;
    }
    if (layout.deltaMode === 0) return this.readReplacement(id, field, layout, modelBase, old);
    const signModel = predictedMotion === 0 ? FieldModel.sign : FieldModel.motionSign + (predictedMotion < 0 ? 1 : 0);
    const negative = this.rangeDecoder.bit(this.models.table, modelBase + signModel) === 1;
    const bucket = this.readBucket(coding, modelBase);
    if (layout.isWide) return this.readWideResidual(id, field, layout, bucket, negative, BigInt(/** @type {number | bigint} */ (old)));
    const magnitude = (bucket < 31 ? 1 << bucket : 2 ** bucket) + this.rangeDecoder.raw(bucket);
    const delta = negative ? -magnitude : magnitude;
    if (layout.deltaMode === 2) {
      const modulus = 2 ** layout.width;
      // Centred deltas: −2^(width−1) … 2^(width−1) − 1, so a half turn is negative (protocol 1.1).
      if (magnitude > modulus / 2 || (magnitude === modulus / 2 && !negative)) {
        throw outOfRange(`wrapping delta of field ${field} of entity ${id}`, String(delta), `${-modulus / 2}...${modulus / 2 - 1}`);
      }
      // Within 30 bits the wrap is a mask; wider, a modulo kept non-negative.
      return layout.width <= 30 ? (/** @type {number} */ (old) + delta) & (modulus - 1)
        : (((/** @type {number} */ (old) + delta) % modulus) + modulus) % modulus;
    }
    const next = /** @type {number} */ (predicted) + delta;
    if (next < 0 || next > /** @type {number} */ (layout.maxQ)) {
      throw outOfRange(`field ${field} of entity ${id} after a delta of ${delta} from ${predicted}`, String(next), `0...${layout.maxQ}`);
    }
    return next;
  }

  /**
   * A changed field that is not delta-capable: a bool flips, another takes a whole value that must differ.
   * @param {number} id
   * @param {number} field
   * @param {FieldLayout} layout
   * @param {number} modelBase
   * @param {number | bigint | Uint8Array} old
   * @returns {number | bigint}
   */
  readReplacement(id, field, layout, modelBase, old) {
    if (old instanceof Uint8Array) throw new Error('a text field is not replaced by a number');
    const next = layout.width === 1 ? 1 - /** @type {number} */ (old) : this.readWholeValue(layout, modelBase);
    if (next > layout.maxQ || next === old) {
      throw outOfRange(`changed field ${field} of entity ${id}`, String(next), `0...${layout.maxQ} other than ${old}`);
    }
    return next;
  }

  /**
   * The bucket of a delta's magnitude: `B_f` bits, escaped to `E_f` more in fields over 8 bits.
   * @param {FieldCoding} coding
   * @param {number} modelBase
   * @returns {number}
   */
  readBucket(coding, modelBase) {
    const models = this.models.table, width = coding.layout.width;
    let bucket = this.rangeDecoder.tree(coding.bucketBits, models, modelBase + FieldModel.bucket);
    if (width > 8 && bucket === escapedBucket) {
      bucket += this.rangeDecoder.tree(coding.escapeBits, models, modelBase + FieldModel.escape);
      if (bucket >= width) throw outOfRange('escaped delta bucket', String(bucket), `0...${width - 1}`);
    }
    return bucket;
  }

  /**
   * A linear residual in a field over 52 bits (never a motion field, so against the old value), in bigints.
   * @param {number} id
   * @param {number} field
   * @param {FieldLayout} layout
   * @param {number} bucket
   * @param {boolean} negative
   * @param {bigint} old
   * @returns {bigint}
   */
  readWideResidual(id, field, layout, bucket, negative, old) {
    const magnitude = (1n << BigInt(bucket)) | this.rangeDecoder.rawBig(bucket);
    const next = negative ? old - magnitude : old + magnitude;
    if (next < 0n || next > BigInt(layout.maxQ)) {
      throw outOfRange(`field ${field} of entity ${id} after a delta from ${old}`, String(next), `0...${layout.maxQ}`);
    }
    return next;
  }

  /**
   * `W_f(q)` of 4.5.3: a tree for fields up to 8 bits, raw bits for wider ones.
   * @param {FieldLayout} layout
   * @param {number} modelBase
   * @returns {number | bigint}
   */
  readWholeValue(layout, modelBase) {
    if (layout.width <= 8) return this.rangeDecoder.tree(layout.width, this.models.table, modelBase + FieldModel.whole);
    return layout.isWide ? this.rangeDecoder.rawBig(layout.width) : this.rangeDecoder.raw(layout.width);
  }

  /**
   * Reads `count` whole entities (4.5.3) into `target`, refusing ids that are among `survivors`.
   * @param {number} count
   * @param {Snapshot} target Receives the entities, in increasing id order.
   * @param {Snapshot | undefined} survivors The survivors the entities are created beside.
   */
  readEntities(count, target, survivors) {
    let id = -1;
    let survivor = 0;
    for (let number = 0; number < count; number++) {
      id = this.readEntityID(id);
      const type = this.readTypeIndex();
      const values = this.readWholeValues(type);
      target.append(id, type, values);
    }
    // Protocol 1.1: the created ids are checked against the survivors once the whole list is read,
    // so a payload that ends inside a later entity is truncated whatever came before (4.5.4).
    if (!survivors) return;
    for (let index = target.count - count; index < target.count; index++) {
      const created = target.ids[index];
      while (survivor < survivors.count && survivors.ids[survivor] < created) survivor++;
      if (survivors.ids[survivor] === created) throw new CodecError('duplicateEntity', { id: created }, `created entity ${created} already exists`);
    }
  }

  /**
   * @param {number} previous The previous id of the list, −1 before the first.
   * @returns {number} The next id.
   */
  readEntityID(previous) {
    const gap = this.readInteger(GlobalModel.gapTree);
    const id = previous + 1 + gap;
    if (id > 0xffffffff) {
      throw new CodecError('entityIDOutOfRange', { previous: Math.max(previous, 0), gap },
        `entity id gap ${gap} after id ${Math.max(previous, 0)} passes the largest id 4294967295`);
    }
    return id;
  }

  /** @returns {number} A type index, checked against the type count. */
  readTypeIndex() {
    const bits = this.schema.typeIndexBits;
    if (bits === 0) return 0;
    const type = this.rangeDecoder.tree(bits, this.models.table, GlobalModel.typeTree);
    const typeCount = this.schema.layouts.length;
    if (type >= typeCount) {
      throw new CodecError('unknownEntityType', { index: type, typeCount }, `entity type index ${type} but the schema has ${typeCount} types`);
    }
    return type;
  }

  /**
   * Reads a text value (4.5.4, protocol 1.2): its length raw, checked against the field's bound
   * before any byte, its bytes raw, then UTF-8.
   * @param {FieldLayout} layout
   * @param {number} field
   * @param {number | undefined} id
   * @returns {Uint8Array}
   */
  readText(layout, field, id) {
    const length = this.rangeDecoder.raw(layout.width);
    checkTextLength(length, Number(layout.maxQ), field, id);
    const bytes = new Uint8Array(length);
    for (let index = 0; index < length; index++) bytes[index] = this.rangeDecoder.raw(8);
    checkUTF8(bytes, field, id);
    return bytes;
  }

  /**
   * @param {number} type
   * @returns {Array<number | bigint | Uint8Array>} A whole entity's values, each checked against `maxQ` (a text's bytes, protocol 1.2).
   */
  readWholeValues(type) {
    const codings = this.codings[type];
    const typeStart = this.models.typeStart(type);
    /** @type {Array<number | bigint | Uint8Array>} */
    const values = [];
    for (let field = 0; field < codings.length; field++) {
      const layout = codings[field].layout;
      if (layout.deltaMode === 3) {
        values.push(this.readText(layout, field, undefined));
        continue;
      }
      const value = this.readWholeValue(layout, typeStart + field * FieldModel.size);
      if (value > layout.maxQ) throw outOfRange(`field ${field} value`, String(value), `0...${layout.maxQ}`);
      values.push(value);
    }
    return values;
  }
}

/**
 * Appends the baseline's entities `from` … `to − 1` (their value arrays shared).
 * @param {Snapshot} baseline
 * @param {number} from
 * @param {number} to
 * @param {Snapshot} target
 */
function copyEntities(baseline, from, to, target) {
  for (let index = from; index < to; index++) target.append(baseline.ids[index], baseline.types[index], baseline.values[index]);
}

/**
 * @param {Snapshot} survivors
 * @param {Snapshot} created No id of which is among the survivors.
 * @returns {Snapshot} Both, in increasing id order.
 */
function merged(survivors, created) {
  const snapshot = new Snapshot(survivors.schema, survivors.tick);
  let fromCreated = 0;
  for (let index = 0; index < survivors.count; index++) {
    const id = survivors.ids[index];
    while (fromCreated < created.count && created.ids[fromCreated] < id) {
      snapshot.append(created.ids[fromCreated], created.types[fromCreated], created.values[fromCreated]);
      fromCreated++;
    }
    snapshot.append(id, survivors.types[index], survivors.values[index]);
  }
  copyEntities(created, fromCreated, created.count, snapshot);
  return snapshot;
}
