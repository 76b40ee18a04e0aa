// The schema (PROTOCOL.md 3): entity types and their fields, the canonical encoding and the
// fingerprint (3.4); mirrors Schema.swift, Schema+Fingerprint.swift and Schema+CanonicalDecoding.swift.
import { FieldKind, KindTag, bitWidth } from './fieldKind.js';
import { SchemaDecodingError, SchemaError } from './errors.js';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Schema limits of PROTOCOL.md 3.1 and 7.1. */
export const SchemaLimits = Object.freeze({
  maxEntityTypes: 256,
  maxFieldsPerType: 64,
  maxNameLength: 255,
  maxEnumerationCases: 256,
  /** The largest `maxBytes` of a text field (protocol 1.2, PROTOCOL.md 3.2). */
  maxTextBytes: 64,
  /** The largest canonical encoding `Schema.fromCanonicalEncoding` reads (1 MiB, as Swift). */
  maxCanonicalEncodingBytes: 1 << 20,
});

/**
 * @typedef {{name: string, kind: FieldKind}} FieldDeclaration A field: its name and kind.
 * @typedef {{name: string, fields: ReadonlyArray<FieldDeclaration>}} EntityTypeDeclaration An entity type.
 * @typedef {{width: number, maxQ: number | bigint, isWide: boolean, deltaMode: 0 | 1 | 2 | 3}} FieldLayout
 *   What the decoder needs of a field: width, `maxQ` (a bigint when `isWide`, width over 52 bits),
 *   delta mode 0 none, 1 linear, 2 wrapping, 3 text (protocol 1.2: `width` the bits of its
 *   length, `maxQ` its largest length in bytes).
 */

/**
 * 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3) of some bytes.
 * @param {Uint8Array} bytes
 * @returns {bigint}
 */
export function fnv1a64(bytes) {
  // Two 32-bit halves with exact 16-bit partial products, so no bigint work per byte.
  let high = 0xcbf29ce4, low = 0x84222325;
  for (let index = 0; index < bytes.length; index++) {
    low ^= bytes[index];
    // (high:low) × 0x100000001b3 = (high:low) × 0x1b3 + (low << 40), modulo 2^64.
    const lowLow = (low & 0xffff) * 0x1b3;
    const lowHigh = (low >>> 16) * 0x1b3 + (lowLow >>> 16);
    const newLow = ((lowHigh & 0xffff) << 16) | (lowLow & 0xffff);
    const carry = Math.floor(lowHigh / 0x10000);
    high = (Math.imul(high, 0x1b3) + carry + (low << 8)) >>> 0;
    low = newLow >>> 0;
  }
  return (BigInt(high) << 32n) | BigInt(low);
}

/**
 * A field declaration.
 * @param {string} name
 * @param {FieldKind} kind
 * @returns {FieldDeclaration}
 */
export function field(name, kind) {
  return { name, kind };
}

/**
 * An entity type declaration.
 * @param {string} name
 * @param {FieldDeclaration[]} fields
 * @returns {EntityTypeDeclaration}
 */
export function entityType(name, fields) {
  return { name, fields };
}

/** A validated schema with its fingerprint and the layouts the decoder uses. */
export class Schema {
  /**
   * Declares a schema, checking every rule of PROTOCOL.md 3.1.
   * @param {EntityTypeDeclaration[]} entityTypes
   * @throws {SchemaError}
   */
  constructor(entityTypes) {
    if (entityTypes.length === 0) throw new SchemaError('noEntityTypes', {}, 'a schema needs at least one entity type');
    if (entityTypes.length > SchemaLimits.maxEntityTypes) {
      throw new SchemaError('tooManyEntityTypes', { count: entityTypes.length, limit: SchemaLimits.maxEntityTypes },
        `${entityTypes.length} entity types exceed the limit of ${SchemaLimits.maxEntityTypes}`);
    }
    const typeNames = new Set();
    for (const type of entityTypes) {
      checkName(type.name);
      if (typeNames.has(type.name)) throw new SchemaError('duplicateTypeName', { name: type.name }, `two entity types are called '${type.name}'`);
      typeNames.add(type.name);
      if (type.fields.length > SchemaLimits.maxFieldsPerType) {
        throw new SchemaError('tooManyFields', { type: type.name, count: type.fields.length, limit: SchemaLimits.maxFieldsPerType },
          `entity type '${type.name}' has ${type.fields.length} fields, more than the limit of ${SchemaLimits.maxFieldsPerType}`);
      }
      const fieldNames = new Set();
      for (const declared of type.fields) {
        checkName(declared.name);
        if (fieldNames.has(declared.name)) {
          throw new SchemaError('duplicateFieldName', { type: type.name, field: declared.name }, `entity type '${type.name}' has two fields called '${declared.name}'`);
        }
        fieldNames.add(declared.name);
        const why = problemWith(declared.kind);
        if (why) {
          throw new SchemaError('invalidKind', { type: type.name, field: declared.name, kind: String(declared.kind), why },
            `field '${declared.name}' of '${type.name}' is ${declared.kind}: ${why}`);
        }
      }
    }
    /** @type {ReadonlyArray<EntityTypeDeclaration>} */
    this.entityTypes = Object.freeze(entityTypes.map((type) => Object.freeze({ name: type.name, fields: Object.freeze(type.fields.map((f) => Object.freeze({ ...f }))) })));
    /** @type {FieldLayout[][]} */
    this.layouts = this.entityTypes.map((type) => type.fields.map((declared) => layoutOf(declared.kind)));
    /** @type {number} Bits of a type index: the width of `typeCount − 1`. */
    this.typeIndexBits = bitWidth(entityTypes.length - 1);
    /** @type {Uint8Array} */
    this.canonicalBytes = encodeCanonical(this.entityTypes);
    /** @type {bigint} The 64-bit FNV-1a fingerprint of the canonical encoding (PROTOCOL.md 3.4). */
    this.fingerprint = fnv1a64(this.canonicalBytes);
  }

  /** @returns {Uint8Array} A copy of the canonical encoding (PROTOCOL.md 3.4). */
  canonicalEncoding() {
    return this.canonicalBytes.slice();
  }

  /**
   * @param {string} name
   * @returns {number | undefined} The index of the type called `name`.
   */
  typeIndex(name) {
    const index = this.entityTypes.findIndex((type) => type.name === name);
    return index < 0 ? undefined : index;
  }

  /**
   * Builds a schema from its canonical encoding, refusing bytes that are not canonical.
   * @param {Uint8Array} bytes
   * @returns {Schema}
   * @throws {SchemaDecodingError}
   */
  static fromCanonicalEncoding(bytes) {
    if (bytes.length > SchemaLimits.maxCanonicalEncodingBytes) {
      throw new SchemaDecodingError('inputTooLarge', { count: bytes.length, limit: SchemaLimits.maxCanonicalEncodingBytes },
        `a schema encoding of ${bytes.length} bytes exceeds the limit of ${SchemaLimits.maxCanonicalEncodingBytes} bytes`);
    }
    const reader = new CanonicalReader(bytes);
    const version = reader.byte();
    if (version !== 1) throw new SchemaDecodingError('unsupportedVersion', { version }, `schema encoding version ${version} is not supported (only version 1)`);
    const typeCount = reader.count('entity type count', SchemaLimits.maxEntityTypes, 3);
    /** @type {EntityTypeDeclaration[]} */
    const types = [];
    for (let typeIndex = 0; typeIndex < typeCount; typeIndex++) {
      const name = reader.name();
      const fieldCount = reader.count(`field count of '${name}'`, SchemaLimits.maxFieldsPerType, 3);
      /** @type {FieldDeclaration[]} */
      const fields = [];
      for (let index = 0; index < fieldCount; index++) {
        const fieldName = reader.name();
        fields.push(field(fieldName, reader.kind()));
      }
      types.push(entityType(name, fields));
    }
    if (reader.offset !== bytes.length) {
      throw new SchemaDecodingError('trailingBytes', { count: bytes.length - reader.offset }, `${bytes.length - reader.offset} bytes follow the end of the schema encoding`);
    }
    let schema;
    try {
      schema = new Schema(types);
    } catch (error) {
      throw new SchemaDecodingError('invalidSchema', { error }, `the encoded schema is invalid: ${error instanceof Error ? error.message : error}`);
    }
    const again = schema.canonicalBytes;
    if (again.length !== bytes.length || again.some((byte, index) => byte !== bytes[index])) {
      throw new SchemaDecodingError('notCanonical', {}, 'the schema encoding is not in canonical form (it does not re-encode to the same bytes)');
    }
    return schema;
  }
}

/**
 * @param {string} name
 * @throws {SchemaError}
 */
function checkName(name) {
  const length = utf8Encoder.encode(name).length;
  if (length < 1 || length > SchemaLimits.maxNameLength) {
    throw new SchemaError('badName', { name, limit: SchemaLimits.maxNameLength }, `name '${name}' must be 1...${SchemaLimits.maxNameLength} UTF-8 bytes long`);
  }
}

/**
 * @param {FieldKind} kind
 * @returns {string | undefined} Why the kind breaks a rule of PROTOCOL.md 3.2, if it does.
 */
function problemWith(kind) {
  switch (kind.tag) {
    case KindTag.bool: return undefined;
    case KindTag.integer: return BigInt(kind.min) <= BigInt(kind.max) ? undefined : `min ${kind.min} is above max ${kind.max}`;
    case KindTag.float: {
      const min = Number(kind.min), max = Number(kind.max);
      if (!Number.isFinite(min) || !Number.isFinite(max) || !Number.isFinite(kind.resolution)) return 'min, max and resolution must be finite';
      if (!(min < max)) return `min ${min} must be below max ${max}`;
      if (!(kind.resolution > 0)) return `resolution ${kind.resolution} must be above 0`;
      const steps = Math.ceil((max - min) / kind.resolution - 1e-9);
      if (!Number.isFinite(steps) || steps > 4294967295) return 'needs more than 32 bits; raise the resolution or narrow the range';
      return undefined;
    }
    case KindTag.angle: return kind.bits >= 1 && kind.bits <= 32 ? undefined : `bits ${kind.bits} must be in 1...32`;
    case KindTag.enumeration: return kind.cases >= 1 && kind.cases <= SchemaLimits.maxEnumerationCases ? undefined : `cases ${kind.cases} must be in 1...${SchemaLimits.maxEnumerationCases}`;
    case KindTag.text: return kind.maxBytes >= 1 && kind.maxBytes <= SchemaLimits.maxTextBytes ? undefined : `maxBytes ${kind.maxBytes} must be in 1...${SchemaLimits.maxTextBytes}`;
    default: return `unknown kind tag ${kind.tag}`;
  }
}

/**
 * @param {FieldKind} kind
 * @returns {FieldLayout}
 */
function layoutOf(kind) {
  // A text (protocol 1.2): deltaMode 3, the width of its length and its largest length.
  if (kind.isText) return { width: bitWidth(kind.maxBytes), maxQ: kind.maxBytes, isWide: false, deltaMode: 3 };
  const maxBig = kind.maxQuantizedBig;
  const width = bitWidth(maxBig);
  const isWide = width > 52;
  const deltaMode = !kind.allowsDelta ? 0 : (kind.wrapsAround ? 2 : 1);
  return { width, maxQ: isWide ? maxBig : Number(maxBig), isWide, deltaMode };
}

/**
 * @param {ReadonlyArray<EntityTypeDeclaration>} types
 * @returns {Uint8Array}
 */
function encodeCanonical(types) {
  /** @type {number[]} */
  const out = [];
  /** @param {bigint | number} value */
  const varint = (value) => {
    let rest = BigInt(value);
    while (rest >= 0x80n) {
      out.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    out.push(Number(rest));
  };
  /** @param {string} text */
  const name = (text) => {
    const bytes = utf8Encoder.encode(text);
    varint(bytes.length);
    out.push(...bytes);
  };
  /** @param {number} value */
  const double = (value) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value === 0 ? 0 : value, true);
    for (let index = 0; index < 8; index++) out.push(view.getUint8(index));
  };
  /** @param {bigint} value */
  const zigzag = (value) => BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
  out.push(1);
  varint(types.length);
  for (const type of types) {
    name(type.name);
    varint(type.fields.length);
    for (const declared of type.fields) {
      name(declared.name);
      const kind = declared.kind;
      out.push(kind.tag);
      switch (kind.tag) {
        case KindTag.integer: varint(zigzag(BigInt(kind.min))); varint(zigzag(BigInt(kind.max))); break;
        case KindTag.float: double(Number(kind.min)); double(Number(kind.max)); double(kind.resolution); break;
        case KindTag.angle: varint(kind.bits); break;
        case KindTag.enumeration: varint(kind.cases); break;
        case KindTag.text: varint(kind.maxBytes); break;
        default: break;
      }
    }
  }
  return Uint8Array.from(out);
}

/** Reads the canonical encoding; mirrors Swift's private `CanonicalReader`. */
class CanonicalReader {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.bytes = bytes;
    this.offset = 0;
  }

  /** @returns {number} */
  byte() {
    if (this.offset >= this.bytes.length) throw new SchemaDecodingError('truncated', { offset: this.offset }, `the schema encoding ends early at byte ${this.offset}`);
    return this.bytes[this.offset++];
  }

  /** @returns {bigint} */
  varint() {
    const start = this.offset;
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.byte();
      if (shift === 63n && byte > 1) throw malformed(start);
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (byte === 0 && this.offset - start > 1) throw malformed(start);
        return value;
      }
      shift += 7n;
      if (shift > 63n) throw malformed(start);
    }
  }

  /**
   * @param {string} what
   * @param {number} limit
   * @param {number} minimumBytesEach
   * @returns {number}
   */
  count(what, limit, minimumBytesEach) {
    const value = this.varint();
    if (value > BigInt(limit)) throw new SchemaDecodingError('countOverLimit', { what, count: value, limit }, `${what} is ${value}, over the limit of ${limit}`);
    if (Number(value) * minimumBytesEach > this.bytes.length - this.offset) {
      throw new SchemaDecodingError('truncated', { offset: this.bytes.length }, `the schema encoding ends early at byte ${this.bytes.length}`);
    }
    return Number(value);
  }

  /** @returns {string} */
  name() {
    const length = this.varint();
    if (length < 1n || length > BigInt(SchemaLimits.maxNameLength)) {
      throw new SchemaDecodingError('countOverLimit', { what: 'name length', count: length, limit: SchemaLimits.maxNameLength }, `name length is ${length}, over the limit of ${SchemaLimits.maxNameLength}`);
    }
    const start = this.offset;
    if (Number(length) > this.bytes.length - this.offset) {
      throw new SchemaDecodingError('truncated', { offset: this.bytes.length }, `the schema encoding ends early at byte ${this.bytes.length}`);
    }
    this.offset += Number(length);
    try {
      return utf8Decoder.decode(this.bytes.subarray(start, this.offset));
    } catch {
      throw new SchemaDecodingError('invalidUTF8', { offset: start }, `the name at byte ${start} of the schema encoding is not valid UTF-8`);
    }
  }

  /** @returns {FieldKind} */
  kind() {
    const tagOffset = this.offset;
    const tag = this.byte();
    const unzigzag = (/** @type {bigint} */ z) => BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n));
    switch (tag) {
      case KindTag.bool: return FieldKind.bool;
      case KindTag.integer: {
        const min = unzigzag(this.varint());
        return FieldKind.integer(min, unzigzag(this.varint()));
      }
      case KindTag.float: {
        const min = this.double(), max = this.double();
        return FieldKind.float(min, max, this.double());
      }
      case KindTag.angle: return FieldKind.angle(this.parameter('angle bits', 64));
      case KindTag.enumeration: return FieldKind.enumeration(this.parameter('enumeration cases', SchemaLimits.maxEnumerationCases));
      case KindTag.text: return FieldKind.text(this.parameter('text bytes', SchemaLimits.maxTextBytes));
      default:
        throw new SchemaDecodingError('unknownKindTag', { tag, offset: tagOffset }, `unknown field kind tag ${tag} at byte ${tagOffset} of the schema encoding`);
    }
  }

  /**
   * A field kind's parameter (angle bits, enumeration cases, text bytes): a varint at most `limit`.
   * @param {string} what the parameter's name, as the error names it
   * @param {number} limit the largest value allowed
   * @returns {number}
   * @throws {SchemaDecodingError} `parameterOutOfRange` with the value and its offset
   */
  parameter(what, limit) {
    const start = this.offset;
    const value = this.varint();
    if (value > BigInt(limit)) {
      throw new SchemaDecodingError('parameterOutOfRange', { what, value, offset: start }, `${what} ${value} at byte ${start} of the schema encoding is out of range`);
    }
    return Number(value);
  }

  /** @returns {number} */
  double() {
    if (this.bytes.length - this.offset < 8) throw new SchemaDecodingError('truncated', { offset: this.bytes.length }, `the schema encoding ends early at byte ${this.bytes.length}`);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.offset, 8);
    this.offset += 8;
    return view.getFloat64(0, true);
  }
}

/**
 * @param {number} offset
 * @returns {SchemaDecodingError}
 */
function malformed(offset) {
  return new SchemaDecodingError('malformedVarint', { offset }, `malformed varint at byte ${offset} of the schema encoding (over 64 bits or not in shortest form)`);
}
