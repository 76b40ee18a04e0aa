// Reading Protocol/vectors/*.hex (format: Protocol/vectors/README.md) for the JavaScript tests.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FieldKind } from '../fieldKind.js';
import { Schema, entityType, field } from '../schema.js';

/** The repository's root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Protocol/vectors. */
export const vectorsDirectory = join(root, 'Protocol', 'vectors');

/**
 * @param {string} prefix
 * @returns {string[]} The names of the vectors starting with `prefix`, sorted.
 */
export function vectorNames(prefix) {
  return readdirSync(vectorsDirectory).filter((name) => name.startsWith(prefix) && name.endsWith('.hex')).sort();
}

/**
 * Reads one vector: its `# key: value` lines (repeatable keys collected), and its frames
 * (split at `# frame` lines), or its single byte string.
 * @param {string} name
 */
export function readVector(name) {
  const text = readFileSync(join(vectorsDirectory, name), 'utf8');
  /** @type {Record<string, string[]>} */
  const keys = {};
  /** @type {string[]} */
  const frames = [];
  let hex = '';
  let sawFrameMarker = false;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line.startsWith('# frame')) {
      if (sawFrameMarker || hex) frames.push(hex);
      sawFrameMarker = true;
      hex = '';
      continue;
    }
    if (line.startsWith('#')) {
      const match = /^#\s*([A-Za-z ]+):\s?(.*)$/.exec(line);
      if (match) (keys[match[1].trim()] ??= []).push(match[2].trim());
      continue;
    }
    hex += line.replace(/\s+/g, '');
  }
  frames.push(hex);
  const toBytes = (/** @type {string} */ digits) => Uint8Array.from(digits.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  return { name, keys, frames: frames.map(toBytes), bytes: toBytes(frames.join('')) };
}

const position = FieldKind.float(-512, 512 - 1 / 64, 1 / 64);

/** The vectors' schemas (PROTOCOL.md 8.1). */
export const vectorSchemas = {
  arena: new Schema([entityType('ship', [
    field('x', position), field('y', position), field('heading', FieldKind.angle(10)),
    field('health', FieldKind.integer(0, 100)), field('state', FieldKind.enumeration(8)),
  ])]),
  mixed: new Schema([
    entityType('a', [field('flag', FieldKind.bool), field('score', FieldKind.integer(-1000, 1000)), field('mode', FieldKind.enumeration(3))]),
    entityType('b', []),
    entityType('c', [field('turn', FieldKind.angle(8)), field('wide', FieldKind.integer(-(2n ** 63n), 2n ** 63n - 1n)), field('level', FieldKind.float(0, 1, 0.1))]),
  ]),
  // The busy vectors' (PROTOCOL.md 4.5.5): two bools in one type, a 1-bit integer, an enumeration(2), a 40-bit integer, x in both types.
  busy: new Schema([
    entityType('body', [
      field('moving', FieldKind.bool), field('awake', FieldKind.bool), field('x', FieldKind.integer(0, 65535)),
      field('lit', FieldKind.integer(0, 1)), field('side', FieldKind.enumeration(2)), field('big', FieldKind.integer(0, 2 ** 40 - 1)),
      field('heading', FieldKind.angle(8)),
    ]),
    entityType('marker', [
      field('on', FieldKind.bool), field('kind', FieldKind.enumeration(5)), field('x', FieldKind.integer(-1000, 1000)),
      field('y', FieldKind.float(0, 100, 0.5)), field('hp', FieldKind.integer(0, 1000)),
    ]),
  ]),
  // The text vectors' (PROTOCOL.md 3.4, protocol 1.2): a name of at most 16 bytes, a motto at the largest bound (64).
  named: new Schema([
    entityType('player', [
      field('x', FieldKind.integer(0, 255)), field('name', FieldKind.text(16)), field('alive', FieldKind.bool), field('motto', FieldKind.text(64)),
    ]),
    entityType('stone', [field('x', FieldKind.integer(0, 255))]),
  ]),
};

/**
 * @param {Uint8Array} bytes
 * @returns {string} Lower-case hex with spaces, for messages.
 */
export function hex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join(' ');
}

/**
 * One value of an `# entity:` line as a decoder holds it: a text's bytes (`t:` and hex, protocol 1.2),
 * a bigint for a wide field, a number otherwise.
 * @param {string} token
 * @param {{isWide: boolean}} layout
 * @returns {number | bigint | Uint8Array}
 */
export function statedValue(token, layout) {
  if (token.startsWith('t:')) return Uint8Array.from(token.slice(2).match(/../g) ?? [], (pair) => parseInt(pair, 16));
  return layout.isWide ? BigInt(token) : Number(token);
}
