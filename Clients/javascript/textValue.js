// The checks a decoder makes on a text field's value (PROTOCOL.md 3.2, protocol 1.2): its length
// against the field's bound before any byte is read, then UTF-8 validity; mirrors TextValue.swift.
import { CodecError } from './errors.js';

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * @param {number | undefined} id
 * @returns {string}
 */
function entityWords(id) {
  return id === undefined ? '' : ` of entity ${id}`;
}

/**
 * Checks a decoded length against the field's `maxBytes`.
 * @param {number} length
 * @param {number} maxBytes
 * @param {number} field
 * @param {number | undefined} id The entity's id for a changed value, undefined for a created one.
 * @throws {CodecError} `valueOutOfRange` for a length over the bound.
 */
export function checkTextLength(length, maxBytes, field, id) {
  if (length > maxBytes) {
    const what = `length of text field ${field}${entityWords(id)}`;
    throw new CodecError('valueOutOfRange', { what, value: String(length), allowed: `0...${maxBytes}` }, `${what} is ${length}, outside the allowed 0...${maxBytes}`);
  }
}

/**
 * Checks that decoded bytes are UTF-8 (RFC 3629: the WHATWG decoder in fatal mode refuses
 * overlong forms, surrogates and code points past U+10FFFF).
 * @param {Uint8Array} bytes
 * @param {number} field
 * @param {number | undefined} id
 * @throws {CodecError} `invalidUTF8` otherwise.
 */
export function checkUTF8(bytes, field, id) {
  let ascii = true;
  for (let index = 0; index < bytes.length; index++) if (bytes[index] >= 0x80) { ascii = false; break; }
  if (ascii) return;
  try {
    strictDecoder.decode(bytes);
  } catch {
    const what = `text field ${field}${entityWords(id)}`;
    throw new CodecError('invalidUTF8', { what }, `${what} is not valid UTF-8`);
  }
}

/**
 * The string of a text field's bytes.
 * @param {Uint8Array} bytes Valid UTF-8.
 * @returns {string}
 */
export function textOf(bytes) {
  return new TextDecoder().decode(bytes);
}

/** The empty text, the value of a new entity's text field. */
export const emptyText = new Uint8Array(0);
