// Field kinds and quantization (PROTOCOL.md 3.2); mirrors FieldKind.swift.

/** Kind tags of the canonical encoding (PROTOCOL.md 3.4). */
export const KindTag = Object.freeze({ bool: 0, integer: 1, float: 2, angle: 3, enumeration: 4, text: 5 });

/**
 * Rounds half away from zero, as Swift's `rounded()` and PROTOCOL.md 3.2 do.
 * @param {number} value
 * @returns {number}
 */
export function roundHalfAway(value) {
  return value < 0 ? -Math.round(-value) : Math.round(value);
}

/**
 * The number of bits of a maximum (0 for 0).
 * @param {number | bigint} maximum
 * @returns {number}
 */
export function bitWidth(maximum) {
  if (typeof maximum === 'bigint') return maximum === 0n ? 0 : maximum.toString(2).length;
  return maximum === 0 ? 0 : maximum.toString(2).length;
}

/** A field's kind: bool, integer, float, angle, enumeration or text (protocol 1.2), with its parameters. */
export class FieldKind {
  /**
   * @param {number} tag A `KindTag`.
   * @param {{min?: bigint | number, max?: bigint | number, resolution?: number, bits?: number, cases?: number, maxBytes?: number}} parameters
   *   Integers take bigint `min`/`max` (signed 64-bit); floats number `min`, `max`, `resolution`.
   */
  constructor(tag, parameters = {}) {
    /** @type {number} */
    this.tag = tag;
    /** @type {bigint | number} */
    this.min = parameters.min ?? 0;
    /** @type {bigint | number} */
    this.max = parameters.max ?? 0;
    /** @type {number} */
    this.resolution = parameters.resolution ?? 0;
    /** @type {number} */
    this.bits = parameters.bits ?? 0;
    /** @type {number} */
    this.cases = parameters.cases ?? 0;
    /** @type {number} A text's largest length in UTF-8 bytes (text kinds only). */
    this.maxBytes = parameters.maxBytes ?? 0;
    Object.freeze(this);
  }

  /** @type {FieldKind} */
  static bool = new FieldKind(KindTag.bool);

  /**
   * @param {bigint | number} min
   * @param {bigint | number} max
   * @returns {FieldKind} An integer in `min … max` (signed 64-bit).
   */
  static integer(min, max) {
    return new FieldKind(KindTag.integer, { min: BigInt(min), max: BigInt(max) });
  }

  /**
   * @param {number} min
   * @param {number} max
   * @param {number} resolution
   * @returns {FieldKind} A float in `min … max` in steps of `resolution`.
   */
  static float(min, max, resolution) {
    return new FieldKind(KindTag.float, { min, max, resolution });
  }

  /**
   * @param {number} bits 1 … 32.
   * @returns {FieldKind} An angle in radians, `2^bits` steps per turn.
   */
  static angle(bits) {
    return new FieldKind(KindTag.angle, { bits });
  }

  /**
   * @param {number} cases 1 … 256.
   * @returns {FieldKind} A case index.
   */
  static enumeration(cases) {
    return new FieldKind(KindTag.enumeration, { cases });
  }

  /**
   * A short UTF-8 text (protocol 1.2, PROTOCOL.md 3.2): its `q` is always 0, its string travels
   * whole when it changes; snapshots hold it as its bytes (`Snapshot.text` reads it).
   * @param {number} maxBytes 1 … 64.
   * @returns {FieldKind}
   */
  static text(maxBytes) {
    return new FieldKind(KindTag.text, { maxBytes });
  }

  /** @returns {boolean} Whether the kind is a text. */
  get isText() {
    return this.tag === KindTag.text;
  }

  /** @returns {'linear' | 'shortestArc' | 'step'} How a client interpolates the field. */
  get interpolation() {
    if (this.tag === KindTag.integer || this.tag === KindTag.float) return 'linear';
    if (this.tag === KindTag.angle) return 'shortestArc';
    return 'step';
  }

  /** @returns {bigint} The largest quantized value, `maxQ` (a bigint: integer spans reach 2^64 − 1). */
  get maxQuantizedBig() {
    switch (this.tag) {
      case KindTag.bool: return 1n;
      case KindTag.integer: return BigInt.asUintN(64, BigInt(this.max) - BigInt(this.min));
      case KindTag.float: return BigInt(FieldKind.floatSteps(Number(this.min), Number(this.max), this.resolution));
      case KindTag.angle: return (1n << BigInt(this.bits)) - 1n;
      case KindTag.text: return 0n;
      default: return BigInt(Math.max(this.cases, 1) - 1);
    }
  }

  /** @returns {number} The width in bits of a quantized value. */
  get bitWidth() {
    return bitWidth(this.maxQuantizedBig);
  }

  /** @returns {boolean} Whether a changed value may travel as a delta (integer, float, angle of 4 … 62 bits). */
  get allowsDelta() {
    if (this.tag === KindTag.bool || this.tag === KindTag.enumeration || this.tag === KindTag.text) return false;
    const width = this.bitWidth;
    return width >= 4 && width <= 62;
  }

  /** @returns {boolean} Whether deltas wrap modulo 2^width (angles). */
  get wrapsAround() {
    return this.tag === KindTag.angle;
  }

  /**
   * The float `maxQ`, computed exactly as PROTOCOL.md 3.2 writes it.
   * @param {number} min
   * @param {number} max
   * @param {number} resolution
   * @returns {number}
   */
  static floatSteps(min, max, resolution) {
    const steps = Math.ceil((max - min) / resolution - 1e-9);
    if (!Number.isFinite(steps) || steps < 0 || steps >= 18446744073709551616) return 0;
    return steps;
  }

  /**
   * Quantizes a value as a sender does (PROTOCOL.md 3.2).
   * @param {number} value
   * @returns {number | bigint} `q`: a number, or a bigint for integer kinds wider than 52 bits.
   */
  quantize(value) {
    if (Number.isNaN(value) || this.tag === KindTag.text) return 0;
    switch (this.tag) {
      case KindTag.bool: return value !== 0 ? 1 : 0;
      case KindTag.integer: {
        const min = BigInt(this.min), max = BigInt(this.max);
        const clamped = Math.min(Math.max(roundHalfAway(value), Number(min)), Number(max));
        let integer = clamped >= 9.2e18 ? max : (clamped <= -9.2e18 ? min : BigInt(clamped));
        if (integer < min) integer = min;
        if (integer > max) integer = max;
        const q = integer - min;
        return this.bitWidth > 52 ? q : Number(q);
      }
      case KindTag.float: {
        const steps = roundHalfAway((value - Number(this.min)) / this.resolution);
        if (steps <= 0) return 0;
        const top = FieldKind.floatSteps(Number(this.min), Number(this.max), this.resolution);
        return steps >= top ? top : steps;
      }
      case KindTag.angle: {
        const turns = value / (2 * Math.PI);
        const fraction = turns - Math.floor(turns);
        if (!Number.isFinite(fraction)) return 0;
        const scaled = roundHalfAway(fraction * 2 ** this.bits);
        return scaled % 2 ** this.bits;
      }
      default: {
        const top = Math.max(this.cases, 1) - 1;
        if (value <= 0) return 0;
        if (value >= top) return top;
        return roundHalfAway(value);
      }
    }
  }

  /**
   * The value a quantized `q` stands for, as a receiver computes it.
   * @param {number | bigint | Uint8Array} quantized A text field's value (its bytes) dequantizes to 0.
   * @returns {number}
   */
  dequantize(quantized) {
    if (quantized instanceof Uint8Array) return 0;
    switch (this.tag) {
      case KindTag.integer: return Number(BigInt(this.min) + BigInt(quantized));
      case KindTag.float: return Number(this.min) + Number(quantized) * this.resolution;
      case KindTag.angle: return Number(quantized) * (2 * Math.PI) / 2 ** this.bits;
      default: return Number(quantized);
    }
  }

  /**
   * Interpolates between two values as the kind says (PROTOCOL.md 3.2).
   * @param {number} from
   * @param {number} to
   * @param {number} fraction 0 gives `from`, 1 gives `to`; above 1 extrapolates.
   * @returns {number}
   */
  interpolate(from, to, fraction) {
    const mode = this.interpolation;
    if (mode === 'linear') return from + (to - from) * fraction;
    if (mode === 'shortestArc') {
      const turn = 2 * Math.PI;
      let difference = (to - from) % turn;
      if (difference > Math.PI) difference -= turn;
      if (difference < -Math.PI) difference += turn;
      let result = (from + difference * fraction) % turn;
      if (result < 0) result += turn;
      return result;
    }
    return fraction < 1 ? from : to;
  }

  /** @returns {string} The kind as Swift describes it. */
  toString() {
    switch (this.tag) {
      case KindTag.bool: return 'bool';
      case KindTag.integer: return `integer(${this.min}...${this.max})`;
      case KindTag.float: return `float(${this.min}...${this.max} by ${this.resolution})`;
      case KindTag.angle: return `angle(${this.bits} bits)`;
      case KindTag.text: return `text(${this.maxBytes} bytes)`;
      default: return `enumeration(${this.cases} cases)`;
    }
  }
}
