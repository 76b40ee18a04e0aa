// The schema: declaration rules (PROTOCOL.md 3.1), field kinds (3.2), the canonical encoding
// and fingerprint (3.4), and reading canonical bytes back; plus the byte-level varints of 2.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteReader } from '../byteReader.js';
import { ByteWriter } from '../byteWriter.js';
import { FrameError, SchemaDecodingError, SchemaError } from '../errors.js';
import { FieldKind } from '../fieldKind.js';
import { Schema, entityType, field, fnv1a64 } from '../schema.js';
import { hex, vectorSchemas } from './vectors.mjs';

test('the canonical encoding and fingerprint of PROTOCOL.md 3.4\'s example and of the arena schema', () => {
  const example = new Schema([entityType('a', [field('b', FieldKind.integer(-1, 2)), field('c', FieldKind.angle(3))])]);
  assert.equal(hex(example.canonicalEncoding()), '01 01 01 61 02 01 62 01 01 04 01 63 03 03');
  assert.equal(example.fingerprint, 0x15817a355b104356n);
  assert.equal(vectorSchemas.arena.fingerprint, 0x027bea4b4c809bcfn);
});

test('FNV-1a 64 of the empty input is the offset basis, and of "a" the published value', () => {
  assert.equal(fnv1a64(new Uint8Array(0)), 0xcbf29ce484222325n);
  assert.equal(fnv1a64(new TextEncoder().encode('a')), 0xaf63dc4c8601ec8cn);
});

test('a schema read back from its canonical encoding has the same fingerprint; bytes that are not canonical are refused', () => {
  for (const schema of Object.values(vectorSchemas)) {
    assert.equal(Schema.fromCanonicalEncoding(schema.canonicalEncoding()).fingerprint, schema.fingerprint);
  }
  const bytes = vectorSchemas.arena.canonicalEncoding();
  const withTrailing = Uint8Array.of(...bytes, 0);
  assert.throws(() => Schema.fromCanonicalEncoding(withTrailing), (error) => error instanceof SchemaDecodingError && error.kind === 'trailingBytes');
  assert.throws(() => Schema.fromCanonicalEncoding(bytes.subarray(0, 10)), (error) => error instanceof SchemaDecodingError && error.kind === 'truncated');
  assert.throws(() => Schema.fromCanonicalEncoding(Uint8Array.of(2, 0)), (error) => error instanceof SchemaDecodingError && error.kind === 'unsupportedVersion');
  // A float written as −0 is not canonical (the encoder writes +0).
  const negativeZero = new Schema([entityType('t', [field('f', FieldKind.float(0, 1, 0.5))])]).canonicalEncoding();
  negativeZero[negativeZero.length - 17] = 0x80;
  assert.throws(() => Schema.fromCanonicalEncoding(negativeZero), (error) => error instanceof SchemaDecodingError && error.kind === 'notCanonical');
});

test('a kind parameter over its limit is refused with its name, value and offset: angle bits, enumeration cases, text bytes', () => {
  // One type `a` with one field `c`: 01 (version), 01 a, 01 c, then the kind's tag and its parameter at byte 8.
  const cases = [
    { tag: 3, parameter: [0x41], what: 'angle bits', value: 65n },
    { tag: 4, parameter: [0x81, 0x02], what: 'enumeration cases', value: 257n },
    { tag: 5, parameter: [0x41], what: 'text bytes', value: 65n },
  ];
  for (const { tag, parameter, what, value } of cases) {
    const bytes = Uint8Array.of(0x01, 0x01, 0x01, 0x61, 0x01, 0x01, 0x63, tag, ...parameter);
    assert.throws(() => Schema.fromCanonicalEncoding(bytes), (error) => error instanceof SchemaDecodingError
      && error.kind === 'parameterOutOfRange' && error.details.what === what && error.details.value === value && error.details.offset === 8,
    `${what} ${value} is refused as parameterOutOfRange at byte 8`);
  }
  // At its limit a parameter is read: whatever 3.1 then says of the schema, it is not parameterOutOfRange.
  for (const [tag, parameter] of [[3, [0x40]], [4, [0x80, 0x02]], [5, [0x40]]]) {
    let kind = 'none';
    try {
      Schema.fromCanonicalEncoding(Uint8Array.of(0x01, 0x01, 0x01, 0x61, 0x01, 0x01, 0x63, tag, ...parameter));
    } catch (error) {
      kind = error instanceof SchemaDecodingError ? error.kind : String(error);
    }
    assert.notEqual(kind, 'parameterOutOfRange', `tag ${tag}: a parameter at its limit is within range`);
  }
});

test('declarations breaking a rule of 3.1 are refused with the rule', () => {
  const kinds = /** @type {const} */ ([
    [[], 'noEntityTypes'],
    [Array.from({ length: 257 }, (_, index) => entityType(`t${index}`, [])), 'tooManyEntityTypes'],
    [[entityType('t', Array.from({ length: 65 }, (_, index) => field(`f${index}`, FieldKind.bool)))], 'tooManyFields'],
    [[entityType('', [])], 'badName'],
    [[entityType('x'.repeat(256), [])], 'badName'],
    [[entityType('t', []), entityType('t', [])], 'duplicateTypeName'],
    [[entityType('t', [field('f', FieldKind.bool), field('f', FieldKind.bool)])], 'duplicateFieldName'],
    [[entityType('t', [field('f', FieldKind.angle(33))])], 'invalidKind'],
    [[entityType('t', [field('f', FieldKind.enumeration(257))])], 'invalidKind'],
    [[entityType('t', [field('f', FieldKind.float(0, 1e10, 1))])], 'invalidKind'],
    [[entityType('t', [field('f', FieldKind.integer(2, 1))])], 'invalidKind'],
  ]);
  for (const [types, kind] of kinds) {
    assert.throws(() => new Schema(/** @type {any} */ (types)), (error) => error instanceof SchemaError && error.kind === kind, kind);
  }
  // At the limits: 256 types, 64 fields, 255-byte names, 32-bit angles, 256 cases.
  assert.equal(new Schema(Array.from({ length: 256 }, (_, index) => entityType(`t${index}`, []))).typeIndexBits, 8);
  new Schema([entityType('x'.repeat(255), Array.from({ length: 64 }, (_, index) => field(`f${index}`, index % 2 ? FieldKind.angle(32) : FieldKind.enumeration(256))))]);
});

test('field kinds quantize as PROTOCOL.md 3.2 says', () => {
  const position = FieldKind.float(-512, 512 - 1 / 64, 1 / 64);
  assert.equal(position.bitWidth, 16);
  assert.equal(position.quantize(10), 33408);
  assert.equal(position.dequantize(33408), 10);
  const heading = FieldKind.angle(10);
  assert.equal(heading.quantize(Math.PI / 2), 256);
  assert.equal(heading.quantize(-Math.PI / 2), 768);
  assert.equal(FieldKind.integer(0, 100).bitWidth, 7);
  assert.equal(FieldKind.integer(-(2n ** 63n), 2n ** 63n - 1n).bitWidth, 64);
  assert.equal(FieldKind.enumeration(8).quantize(9), 7);
  assert.equal(FieldKind.bool.allowsDelta, false);
  assert.equal(FieldKind.angle(3).allowsDelta, false, 'under 4 bits');
  assert.equal(FieldKind.angle(10).wrapsAround, true);
});

test('byte-level varints of PROTOCOL.md 2.1 round-trip in their one encoding', () => {
  const cases = [[0n, '00'], [127n, '7f'], [128n, '80 01'], [300n, 'ac 02'], [2n ** 32n - 1n, 'ff ff ff ff 0f'], [2n ** 64n - 1n, 'ff ff ff ff ff ff ff ff ff 01']];
  for (const [value, encoding] of cases) {
    const writer = new ByteWriter();
    writer.writeVarUInt(/** @type {bigint} */ (value));
    assert.equal(hex(writer.bytes), encoding);
    assert.equal(new ByteReader(writer.bytes).readVarUIntBig(), value);
  }
  assert.throws(() => new ByteReader(Uint8Array.of(0x80, 0x00)).readVarUIntBig(), (error) => error instanceof FrameError && error.signature === 'nonCanonicalVarint(offset: 0)');
  assert.throws(() => new ByteReader(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02)).readVarUIntBig(), (error) => error instanceof FrameError && error.kind === 'varintOverflow');
  assert.throws(() => new ByteReader(Uint8Array.of(0x80)).readVarUIntBig(), (error) => error instanceof FrameError && error.signature === 'truncated(offset: 1, needed: 1)');
});

test('text fields (protocol 1.2): maxBytes 64 is a schema and 65 or 0 is refused; the named schema encodes as PROTOCOL.md 3.4 says', () => {
  assert.doesNotThrow(() => new Schema([entityType('t', [field('name', FieldKind.text(64))])]));
  for (const bad of [65, 0]) {
    assert.throws(() => new Schema([entityType('t', [field('name', FieldKind.text(bad))])]), SchemaError, `maxBytes ${bad} is outside 1...64`);
  }
  const named = vectorSchemas.named;
  assert.equal(hex(named.canonicalEncoding()), '01 02 06 70 6c 61 79 65 72 04 01 78 01 00 fe 03 04 6e 61 6d 65 05 10 05 61 6c 69 76 65 00 05 6d 6f 74 74 6f 05 40 05 73 74 6f 6e 65 01 01 78 01 00 fe 03');
  assert.equal(named.fingerprint, 0xe365253b58e42e55n);
  assert.equal(Schema.fromCanonicalEncoding(named.canonicalEncoding()).fingerprint, named.fingerprint);
  const tooLarge = named.canonicalEncoding().slice();
  tooLarge[37] = 0x41;
  assert.throws(() => Schema.fromCanonicalEncoding(tooLarge), SchemaDecodingError, 'maxBytes 65 in an encoding is refused as it is read');
});
