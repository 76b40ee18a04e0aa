// Decoding a snapshot, whole or as a delta against a baseline (PROTOCOL.md 4.1, 4.2), with
// every limit of section 7.1; mirrors DeltaDecoder.swift and SnapshotCodec.swift.
import { BitReader } from './bitReader.js';
import { CodecError } from './errors.js';
import { Snapshot } from './snapshot.js';
import { checkTextLength, checkUTF8 } from './textValue.js';

/** @typedef {import('./schema.js').Schema} Schema */
/** @typedef {import('./schema.js').FieldLayout} FieldLayout */

/** The decoder's limits (PROTOCOL.md 7.1); mirrors `CodecLimits`. */
export const CodecLimits = Object.freeze({
  /** Entities per snapshot: the protocol's limit; a decoder may set lower. */
  maxEntitiesPerSnapshot: 65536,
  /** Encoded snapshot size checked before decoding (4 MiB). */
  defaultMaxEncodedBytes: 4 * 1024 * 1024,
});

/**
 * A decoder's limits from the caller's: the entity limit clamped to 0 … 65 536, the size limit
 * to 0 or more, each defaulting to `CodecLimits`'s.
 * @param {{maxEntities?: number, maxEncodedBytes?: number}} limits
 * @returns {{maxEntities: number, maxEncodedBytes: number}}
 */
export function decoderLimits(limits) {
  return {
    maxEntities: Math.min(Math.max(limits.maxEntities ?? CodecLimits.maxEntitiesPerSnapshot, 0), CodecLimits.maxEntitiesPerSnapshot),
    maxEncodedBytes: Math.max(limits.maxEncodedBytes ?? CodecLimits.defaultMaxEncodedBytes, 0),
  };
}

/**
 * The checks every snapshot decoder makes before reading a bit: the encoded size, and the
 * baseline's schema.
 * @param {Schema} schema The decoder's schema.
 * @param {number} maxEncodedBytes
 * @param {Uint8Array} bytes
 * @param {Snapshot | undefined} baseline
 * @throws {CodecError} `inputTooLarge`, `schemaMismatch`.
 */
export function checkDecoderInput(schema, maxEncodedBytes, bytes, baseline) {
  if (bytes.length > maxEncodedBytes) {
    throw new CodecError('inputTooLarge', { count: bytes.length, limit: maxEncodedBytes },
      `encoded snapshot of ${bytes.length} bytes exceeds the limit of ${maxEncodedBytes} bytes`);
  }
  if (baseline && baseline.schema.fingerprint !== schema.fingerprint) {
    throw new CodecError('schemaMismatch', { expected: schema.fingerprint, given: baseline.schema.fingerprint },
      `schema fingerprint 0x${baseline.schema.fingerprint.toString(16)} where the codec's is 0x${schema.fingerprint.toString(16)}`);
  }
}

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
 * @param {number} needed
 * @param {number} available
 * @returns {CodecError}
 */
function truncated(needed, available) {
  return new CodecError('truncated', { neededBits: needed, availableBits: available }, `input ends early: needed ${needed} more bits, only ${available} left`);
}

/** Decodes snapshots of one schema; mirrors `SnapshotCodec.decode`. */
export class SnapshotDecoder {
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
    /** @type {DeltaDecoder} One decode pass, reused by every call (decoding is synchronous). */
    this.pass = new DeltaDecoder(schema, this.maxEntities, new BitReader(new Uint8Array(0)));
  }

  /**
   * Reads the tick and baseline tick of an encoded snapshot without decoding it.
   * @param {Uint8Array} bytes
   * @returns {{tick: number, baselineTick: number | undefined}}
   * @throws {CodecError}
   */
  static header(bytes) {
    const reader = new BitReader(bytes);
    const tick = reader.readVarint32('snapshot tick');
    if (!reader.readBool()) return { tick, baselineTick: undefined };
    const age = reader.readVarint32('baseline age');
    return { tick, baselineTick: (tick - age) >>> 0 };
  }

  /**
   * Decodes a snapshot.
   * @param {Uint8Array} bytes The encoded snapshot (a snapshot message's delta).
   * @param {Snapshot | undefined} baseline The snapshot of the baseline tick, when the encoding is a delta.
   * @returns {Snapshot}
   * @throws {CodecError}
   */
  decode(bytes, baseline) {
    checkDecoderInput(this.schema, this.maxEncodedBytes, bytes, baseline);
    this.pass.reader.reset(bytes);
    return this.pass.decode(baseline);
  }
}

/** Destroyed entities up to which the survivors are copied whole and the destroyed spliced out. */
const fewDestroyed = 8;

/** Decode passes over bit streams, one at a time: the reader is reset before each. */
class DeltaDecoder {
  /**
   * @param {Schema} schema
   * @param {number} maxEntities
   * @param {BitReader} reader
   */
  constructor(schema, maxEntities, reader) {
    this.schema = schema;
    this.maxEntities = maxEntities;
    this.reader = reader;
    /** @type {Int32Array} Scratch for the changed entities' indices; grows to the most survivors seen. */
    this.changed = new Int32Array(64);
  }

  /**
   * @param {Snapshot | undefined} baseline
   * @returns {Snapshot}
   */
  decode(baseline) {
    const reader = this.reader;
    const tick = reader.readVarint32('snapshot tick');
    const snapshot = new Snapshot(this.schema, tick);
    if (!reader.readBool()) {
      const count = this.readEntityCount(0);
      this.readCreated(count, snapshot);
      reader.finish();
      return snapshot;
    }
    const age = reader.readVarint32('baseline age');
    const baselineTick = (tick - age) >>> 0;
    if (!baseline) {
      throw new CodecError('baselineMissing', { tick: baselineTick }, `the delta is against baseline tick ${baselineTick} but no baseline was given`);
    }
    if (baseline.tick !== baselineTick) {
      throw new CodecError('baselineMismatch', { expected: baselineTick, given: baseline.tick },
        `the delta is against baseline tick ${baselineTick} but the given baseline is tick ${baseline.tick}`);
    }

    // Destroyed: read and checked against the baseline, then the survivors copied in id order.
    /** @type {number[]} */
    const destroyed = [];
    if (reader.readBool()) {
      const count = reader.readVarint();
      if (count < 1) throw outOfRange('destroyed entity count', '0', '1 or more');
      if (count > baseline.count) {
        throw new CodecError('tooManyEntities', { count, limit: baseline.count }, `${count} entities exceed the limit of ${baseline.count}`);
      }
      this.requireBits(count * 8);
      const previous = { id: -1 };
      for (let index = 0; index < count; index++) destroyed.push(this.readID(previous));
    }
    this.copySurvivors(baseline, destroyed, snapshot);

    if (reader.readBool()) this.readChanges(snapshot);

    if (reader.readBool()) {
      const survivors = snapshot.count;
      const count = this.readEntityCount(survivors);
      if (count < 1) throw outOfRange('created entity count', '0', '1 or more');
      this.readCreated(count, snapshot);
      if (survivors > 0 && snapshot.ids[survivors] <= snapshot.ids[survivors - 1]) mergeCreated(snapshot, survivors);
    }
    reader.finish();
    return snapshot;
  }

  /**
   * Reads a whole or created entity count, checking the entity limit and the bits left first.
   * @param {number} existing
   * @returns {number}
   */
  readEntityCount(existing) {
    const count = this.reader.readVarint();
    if (existing + count > this.maxEntities) {
      throw new CodecError('tooManyEntities', { count: existing + count, limit: this.maxEntities },
        `${existing + count} entities exceed the limit of ${this.maxEntities}`);
    }
    this.requireBits(count * 8);
    return count;
  }

  /** @param {number} bits */
  requireBits(bits) {
    if (bits > this.reader.remainingBits) throw truncated(bits, this.reader.remainingBits);
  }

  /**
   * Reads the next id of an increasing list (PROTOCOL.md 4.1, id gaps).
   * @param {{id: number}} previous The previous id, −1 before the first; updated.
   * @returns {number}
   */
  readID(previous) {
    const gap = this.reader.readVarint();
    const id = previous.id + 1 + gap;
    if (id > 0xffffffff) {
      throw new CodecError('entityIDOutOfRange', { previous: Math.max(previous.id, 0), gap },
        `entity id gap ${gap} after id ${Math.max(previous.id, 0)} passes the largest id 4294967295`);
    }
    previous.id = id;
    return id;
  }

  /**
   * @param {number} count
   * @param {Snapshot} snapshot
   */
  readCreated(count, snapshot) {
    const reader = this.reader;
    const typeCount = this.schema.layouts.length;
    const previous = { id: -1 };
    for (let entity = 0; entity < count; entity++) {
      const id = this.readID(previous);
      const type = reader.read(this.schema.typeIndexBits);
      if (type >= typeCount) {
        throw new CodecError('unknownEntityType', { index: type, typeCount }, `entity type index ${type} but the schema has ${typeCount} types`);
      }
      const layout = this.schema.layouts[type];
      /** @type {Array<number | bigint | Uint8Array>} Pushed, not preallocated: a packed array copies faster when a later delta changes it. */
      const values = [];
      for (let field = 0; field < layout.length; field++) values.push(this.readWhole(layout[field], field, undefined));
      snapshot.append(id, type, values);
    }
  }

  /**
   * Reads a value sent whole and checks it against `maxQ`.
   * @param {FieldLayout} layout
   * @param {number} field The field's index, for the error.
   * @param {number | undefined} id The entity's id for a changed value, undefined for a created one.
   * @returns {number | bigint | Uint8Array} A text field's bytes (protocol 1.2), else `q`.
   */
  readWhole(layout, field, id) {
    if (layout.deltaMode === 3) return this.readText(layout, field, id);
    const value = layout.isWide ? this.reader.readBig(layout.width) : this.reader.read(layout.width);
    if (value > layout.maxQ) {
      // The message is built only here: the hot path makes no strings.
      throw outOfRange(id === undefined ? `field ${field} value` : `field ${field} of entity ${id}`, String(value), `0...${layout.maxQ}`);
    }
    return value;
  }

  /**
   * Reads a text value (PROTOCOL.md 4.1, protocol 1.2): its length, checked against the field's
   * bound and then against the bits left before anything is allocated, its bytes, then UTF-8.
   * @param {FieldLayout} layout
   * @param {number} field
   * @param {number | undefined} id
   * @returns {Uint8Array}
   */
  readText(layout, field, id) {
    const reader = this.reader;
    const length = reader.read(layout.width);
    checkTextLength(length, Number(layout.maxQ), field, id);
    if (length * 8 > reader.remainingBits) throw truncated(length * 8, reader.remainingBits);
    const bytes = new Uint8Array(length);
    for (let index = 0; index < length; index++) bytes[index] = reader.read(8);
    checkUTF8(bytes, field, id);
    return bytes;
  }

  /**
   * @param {Snapshot} baseline
   * @param {number[]} destroyed Sorted ids, each of which must be in the baseline; overwritten with their indices there.
   * @param {Snapshot} snapshot
   */
  copySurvivors(baseline, destroyed, snapshot) {
    // Each destroyed id's index in the baseline, checked in increasing order.
    const indices = destroyed;
    let position = 0;
    for (let number = 0; number < destroyed.length; number++) {
      const id = destroyed[number];
      let low = position, high = baseline.count;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (baseline.ids[middle] < id) low = middle + 1; else high = middle;
      }
      if (low >= baseline.count || baseline.ids[low] !== id) {
        throw new CodecError('unknownEntity', { id }, `destroyed entity ${id} is not in the baseline`);
      }
      indices[number] = low;
      position = low + 1;
    }
    if (indices.length <= fewDestroyed) {
      // Most ticks destroy none or a few: copy the arrays whole (the value arrays stay shared
      // until they change), then take the destroyed out, the last first.
      const ids = baseline.ids.slice(), types = baseline.types.slice(), values = baseline.values.slice();
      for (let number = indices.length - 1; number >= 0; number--) {
        ids.splice(indices[number], 1);
        types.splice(indices[number], 1);
        values.splice(indices[number], 1);
      }
      snapshot.ids = ids;
      snapshot.types = types;
      snapshot.values = values;
      return;
    }
    position = 0;
    for (const low of indices) {
      for (let index = position; index < low; index++) snapshot.append(baseline.ids[index], baseline.types[index], baseline.values[index]);
      position = low + 1;
    }
    for (let index = position; index < baseline.count; index++) snapshot.append(baseline.ids[index], baseline.types[index], baseline.values[index]);
  }

  /** @param {Snapshot} snapshot Holds the survivors, whose value arrays are still the baseline's. */
  readChanges(snapshot) {
    const reader = this.reader;
    const survivors = snapshot.count;
    if (this.changed.length < survivors) this.changed = new Int32Array(Math.max(survivors, this.changed.length * 2));
    const changed = this.changed;
    let changedCount = 0;
    if (reader.readBool()) {
      const count = reader.readVarint();
      if (count < 1 || count > survivors) throw outOfRange('changed entity count', String(count), `1...${survivors}`);
      this.requireBits(count);
      let index = 0;
      for (let number = 0; number < count; number++) {
        const gap = reader.readGamma();
        const next = typeof gap === 'bigint' ? Infinity : (number === 0 ? gap - 1 : index + gap);
        if (next >= survivors) {
          throw new CodecError('entityIndexOutOfRange', { index: next, count: survivors },
            `changed entity index ${next} but only ${survivors} entities survive from the baseline`);
        }
        index = next;
        changed[changedCount++] = index;
      }
    } else {
      this.requireBits(survivors);
      // One bit per survivor, 25 at a time; only the set bits are visited.
      for (let base = 0; base < survivors; base += 25) {
        let bits = reader.read(Math.min(25, survivors - base));
        while (bits !== 0) {
          changed[changedCount++] = base + 31 - Math.clz32(bits & -bits);
          bits &= bits - 1;
        }
      }
      if (changedCount === 0) throw outOfRange('changed entity bits', 'all 0', 'at least one 1');
    }
    const allValues = snapshot.values, layouts = this.schema.layouts;
    for (let number = 0; number < changedCount; number++) {
      const index = changed[number];
      // Copy on write: the survivor's values are the baseline's until they change.
      const values = allValues[index].slice();
      allValues[index] = values;
      this.readFieldChanges(snapshot.ids[index], values, layouts[snapshot.types[index]]);
    }
  }

  /**
   * @param {number} id
   * @param {Array<number | bigint | Uint8Array>} values
   * @param {FieldLayout[]} layouts
   */
  readFieldChanges(id, values, layouts) {
    const reader = this.reader;
    const fieldCount = layouts.length;
    // The field mask, u(F) with F ≤ 64, as two 32-bit halves; only the set bits are visited.
    let low = reader.read(Math.min(fieldCount, 32)) | 0;
    let high = fieldCount > 32 ? reader.read(fieldCount - 32) | 0 : 0;
    if (low === 0 && high === 0) throw outOfRange(`changed field mask of entity ${id}`, '0', 'at least one 1');
    while (low !== 0) {
      const field = 31 - Math.clz32(low & -low);
      low &= low - 1;
      this.readFieldChange(id, values, field, layouts[field]);
    }
    while (high !== 0) {
      const field = 63 - Math.clz32(high & -high);
      high &= high - 1;
      this.readFieldChange(id, values, field, layouts[field]);
    }
  }

  /**
   * Reads one changed field: a whole value, or a zigzag delta against the old one.
   * @param {number} id
   * @param {Array<number | bigint | Uint8Array>} values
   * @param {number} field
   * @param {FieldLayout} layout
   */
  readFieldChange(id, values, field, layout) {
    const reader = this.reader;
    if (layout.deltaMode === 0 || layout.deltaMode === 3 || !reader.readBool()) {
      values[field] = this.readWhole(layout, field, id);
      return;
    }
    const z = reader.readGamma();
    const old = /** @type {number | bigint} */ (values[field]);
    if (typeof z !== 'number' || typeof old !== 'number' || z > 0x7fffffff || (layout.deltaMode === 2 && layout.width > 30)) {
      values[field] = applyWideDelta(id, old, field, layout, z);
      return;
    }
    // The hot path, small enough to inline: unzigzag in 32-bit integer arithmetic (even z is
    // z/2, odd z is −(z+1)/2), then wrap or check the range.
    const delta = (z >>> 1) ^ -(z & 1);
    if (layout.deltaMode === 2) {
      values[field] = (old + delta) & ((1 << layout.width) - 1);
      return;
    }
    const next = old + delta;
    if (next < 0 || next > /** @type {number} */ (layout.maxQ)) {
      throw outOfRange(`field ${field} of entity ${id} after a delta of ${delta} from ${old}`, String(next), `0...${layout.maxQ}`);
    }
    values[field] = next;
  }
}

/**
 * Applies a delta the hot path does not take: a gamma code over 31 bits, a bigint value, or a
 * wrapping field over 30 bits.
 * @param {number} id
 * @param {number | bigint} old
 * @param {number} field
 * @param {FieldLayout} layout
 * @param {number | bigint} z The zigzag-encoded delta.
 * @returns {number | bigint} The new value.
 * @throws {CodecError} `valueOutOfRange`.
 */
function applyWideDelta(id, old, field, layout, z) {
  if (typeof z === 'number' && typeof old === 'number' && z <= 2 ** 52) {
    const delta = z <= 0x7fffffff ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    if (layout.deltaMode === 2) {
      if (layout.width <= 30) return (old + delta) & ((1 << layout.width) - 1);
      const modulus = 2 ** layout.width;
      return (((old + delta) % modulus) + modulus) % modulus;
    }
    const next = old + delta;
    if (next < 0 || next > /** @type {number} */ (layout.maxQ)) {
      throw outOfRange(`field ${field} of entity ${id} after a delta of ${delta} from ${old}`, String(next), `0...${layout.maxQ}`);
    }
    return next;
  }
  // 64-bit arithmetic in bigints.
  const big = BigInt(z);
  const delta = BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n));
  const oldBig = BigInt(old);
  let next;
  if (layout.deltaMode === 2) {
    next = BigInt.asUintN(layout.width, oldBig + delta);
  } else {
    next = oldBig + delta;
    if (next < 0n || next > BigInt(layout.maxQ) || next >= 1n << 63n) {
      throw outOfRange(`field ${field} of entity ${id} after a delta of ${delta} from ${old}`, next >= 1n << 63n ? 'overflow' : String(next), `0...${layout.maxQ}`);
    }
  }
  return layout.isWide ? next : Number(next);
}

/**
 * Merges the created entities (from `start`, increasing) into the survivors (before it).
 * @param {Snapshot} snapshot
 * @param {number} start
 * @throws {CodecError} `duplicateEntity` for a created id that survives from the baseline.
 */
function mergeCreated(snapshot, start) {
  let survivor = 0;
  for (let created = start; created < snapshot.count; created++) {
    const id = snapshot.ids[created];
    while (survivor < start && snapshot.ids[survivor] < id) survivor++;
    if (survivor < start && snapshot.ids[survivor] === id) {
      throw new CodecError('duplicateEntity', { id }, `created entity ${id} already exists`);
    }
  }
  const order = snapshot.ids.map((_, index) => index).sort((a, b) => snapshot.ids[a] - snapshot.ids[b]);
  snapshot.ids = order.map((index) => snapshot.ids[index]);
  snapshot.types = order.map((index) => snapshot.types[index]);
  snapshot.values = order.map((index) => snapshot.values[index]);
}
