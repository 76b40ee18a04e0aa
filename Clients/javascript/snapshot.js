// A decoded snapshot (PROTOCOL.md 3.3): a tick and entities in increasing id order, each with
// a type index and one quantized value per field; mirrors Snapshot.swift.

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
    /** @type {Array<Array<number | bigint>>} Quantized values of each entity (bigints for fields over 52 bits). */
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
   * @param {Array<number | bigint>} values
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
   * The entities in the form the vectors' `# entity:` lines use: `id type q…`.
   * @returns {string[]}
   */
  describeEntities() {
    return this.ids.map((id, index) => [id, this.types[index], ...this.values[index]].join(' '));
  }
}
