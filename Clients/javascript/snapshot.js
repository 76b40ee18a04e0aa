// A decoded snapshot (PROTOCOL.md 3.3): a tick and entities in increasing id order, each with
// a type index and one quantized value per field; mirrors Snapshot.swift.

import { textOf } from './textValue.js';

/** @typedef {import('./schema.js').Schema} Schema */

/** A snapshot of quantized entity values. Treat as immutable once decoded: later snapshots share its value arrays. */
export class Snapshot {
  /**
   * @param {Schema} schema
   * @param {number} tick
   */
  constructor(schema, tick) {
    /** @type {Schema} */
    this.schema = schema;
    /** @type {number} */
    this.tick = tick;
    /** @type {number[]} Entity ids, strictly increasing. */
    this.ids = [];
    /** @type {number[]} Type index of each entity. */
    this.types = [];
    /** @type {Array<Array<number | bigint | Uint8Array>>} Quantized values of each entity (bigints for fields over 52 bits; a text field's UTF-8 bytes, protocol 1.2). */
    this.values = [];
  }

  /** @returns {number} The number of entities. */
  get count() {
    return this.ids.length;
  }

  /**
   * Appends an entity; ids must be appended in increasing order.
   * @param {number} id
   * @param {number} type
   * @param {Array<number | bigint | Uint8Array>} values
   */
  append(id, type, values) {
    this.ids.push(id);
    this.types.push(type);
    this.values.push(values);
  }

  /**
   * @param {number} id
   * @returns {number} The entity's index, or −1.
   */
  indexOf(id) {
    let low = 0, high = this.ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.ids[middle] < id) low = middle + 1; else high = middle;
    }
    return low < this.ids.length && this.ids[low] === id ? low : -1;
  }

  /**
   * The dequantized value of one field.
   * @param {number} index An entity index.
   * @param {number} field A field index of the entity's type.
   * @returns {number}
   */
  double(index, field) {
    return this.schema.entityTypes[this.types[index]].fields[field].kind.dequantize(this.values[index][field]);
  }

  /**
   * The string of a text field (protocol 1.2, PROTOCOL.md 3.2).
   * @param {number} index An entity index.
   * @param {number} field A text field's index.
   * @returns {string} The text; empty for a field of another kind.
   */
  text(index, field) {
    const value = this.values[index][field];
    return value instanceof Uint8Array ? textOf(value) : '';
  }

  /**
   * The entities in the form the vectors' `# entity:` lines use: `id type q…`, a text as `t:` and its bytes in hex.
   * @returns {string[]}
   */
  describeEntities() {
    /** @param {number | bigint | Uint8Array} value */
    const token = (value) => (value instanceof Uint8Array ? 't:' + Array.from(value, (byte) => byte.toString(16).padStart(2, '0')).join('') : String(value));
    return this.ids.map((id, index) => [id, this.types[index], ...this.values[index].map(token)].join(' '));
  }
}
