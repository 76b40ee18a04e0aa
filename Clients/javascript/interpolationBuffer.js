// Snapshots by server time and the interpolated world between them; mirrors InterpolationBuffer.swift.

/** @typedef {import('./snapshot.js').Snapshot} Snapshot */

/**
 * An entity as the app draws it: dequantized values (0 for a text field), and, for a type with
 * text fields (protocol 1.2), `texts`: each text field's string by field index, stepping as
 * enumerations do.
 * @typedef {{id: number, typeIndex: number, values: number[], texts?: Record<number, string>}} EntityView
 */

/**
 * The texts of entity `index` of `snapshot`, or undefined when its type has no text field.
 * @param {Snapshot} snapshot
 * @param {number} index
 * @returns {Record<number, string> | undefined}
 */
function textsOf(snapshot, index) {
  /** @type {Record<number, string> | undefined} */
  let texts;
  const values = snapshot.values[index];
  for (let field = 0; field < values.length; field++) {
    if (values[field] instanceof Uint8Array) (texts ??= {})[field] = snapshot.text(index, field);
  }
  return texts;
}

/**
 * The world at a render time.
 * @typedef {{time: number, entities: EntityView[], isExtrapolated: boolean}} WorldView
 */

/**
 * @param {Snapshot} snapshot
 * @param {number} time
 * @returns {WorldView}
 */
function viewOf(snapshot, time) {
  const entities = snapshot.ids.map((id, index) => {
    /** @type {EntityView} */
    const entity = { id, typeIndex: snapshot.types[index], values: snapshot.values[index].map((_, field) => snapshot.double(index, field)) };
    const texts = textsOf(snapshot, index);
    if (texts) entity.texts = texts;
    return entity;
  });
  return { time, entities, isExtrapolated: false };
}

/** A fixed-capacity ring of snapshots in server-time order. */
export class InterpolationBuffer {
  /**
   * @param {number} [capacity] At least 2 (default 32).
   * @param {number} [maximumExtrapolation] Seconds past the newest snapshot to extrapolate (default 0.1).
   */
  constructor(capacity = 32, maximumExtrapolation = 0.1) {
    /** @type {number} */
    this.capacity = Math.max(2, capacity);
    this.maximumExtrapolation = maximumExtrapolation;
    /** @type {number[]} */
    this.times = [];
    /** @type {Snapshot[]} */
    this.snapshots = [];
  }

  /** @returns {number} Snapshots held. */
  get count() {
    return this.snapshots.length;
  }

  /** @returns {number | undefined} The newest snapshot's server time. */
  get newestTime() {
    return this.times.length > 0 ? this.times[this.times.length - 1] : undefined;
  }

  /**
   * @param {number} renderTime
   * @returns {number} Snapshots newer than the render time.
   */
  depth(renderTime) {
    return this.times.filter((time) => time > renderTime).length;
  }

  /**
   * Adds a snapshot; one not newer than the newest is ignored, and a full buffer drops its oldest.
   * @param {Snapshot} snapshot
   * @param {number} serverTime
   * @returns {boolean} Whether it was added.
   */
  insert(snapshot, serverTime) {
    const newest = this.newestTime;
    if (newest !== undefined && serverTime <= newest) return false;
    if (this.snapshots.length === this.capacity) {
      this.snapshots.shift();
      this.times.shift();
    }
    this.snapshots.push(snapshot);
    this.times.push(serverTime);
    return true;
  }

  /**
   * Drops snapshots no longer needed at `renderTime`, keeping at least two.
   * @param {number} renderTime
   */
  discard(renderTime) {
    let keepFrom = 0;
    while (keepFrom + 2 < this.times.length && this.times[keepFrom + 1] <= renderTime) keepFrom += 1;
    this.snapshots.splice(0, keepFrom);
    this.times.splice(0, keepFrom);
  }

  removeAll() {
    this.snapshots = [];
    this.times = [];
  }

  /**
   * Where a render time falls on the snapshots' tick numbers (the older bracketing snapshot's
   * tick plus the fraction of the way to the newer one's): what a client tells a
   * lag-compensating server it showed (PROTOCOL.md 5.7.1). Mirrors `ticks(at:)` in Swift.
   * @param {number} renderTime
   * @returns {number | undefined} The render time in ticks, or undefined when the buffer is empty.
   */
  ticks(renderTime) {
    const newest = this.newestTime;
    if (newest === undefined) return undefined;
    const count = this.snapshots.length;
    if (renderTime <= this.times[0] || count === 1) return this.snapshots[renderTime <= this.times[0] ? 0 : count - 1].tick;
    if (renderTime >= newest) {
      const previous = count - 2;
      const interval = newest - this.times[previous];
      const ahead = Math.min(renderTime - newest, this.maximumExtrapolation);
      const span = (this.snapshots[count - 1].tick - this.snapshots[previous].tick) >>> 0;
      return this.snapshots[count - 1].tick + (interval > 0 ? (ahead / interval) * span : 0);
    }
    let upper = 1;
    while (this.times[upper] <= renderTime) upper += 1;
    const fraction = (renderTime - this.times[upper - 1]) / (this.times[upper] - this.times[upper - 1]);
    const older = this.snapshots[upper - 1].tick;
    return older + fraction * ((this.snapshots[upper].tick - older) >>> 0);
  }

  /**
   * The world at a render time: interpolated between the snapshots around it, extrapolated at
   * most `maximumExtrapolation` past the newest, the oldest held before the first.
   * @param {number} renderTime
   * @returns {WorldView | undefined}
   */
  sample(renderTime) {
    const newest = this.newestTime;
    if (newest === undefined) return undefined;
    const count = this.snapshots.length;
    const oldest = this.times[0];
    if (renderTime <= oldest || (count === 1 && renderTime >= newest)) {
      return viewOf(this.snapshots[renderTime <= oldest ? 0 : count - 1], renderTime);
    }
    if (renderTime >= newest) {
      const previous = count - 2;
      const interval = newest - this.times[previous];
      const ahead = Math.min(renderTime - newest, this.maximumExtrapolation);
      const fraction = 1 + (interval > 0 ? ahead / interval : 0);
      const view = blend(this.snapshots[previous], this.snapshots[previous + 1], fraction, renderTime, true);
      view.isExtrapolated = renderTime > newest;
      return view;
    }
    let upper = 1;
    while (this.times[upper] <= renderTime) upper += 1;
    const fraction = (renderTime - this.times[upper - 1]) / (this.times[upper] - this.times[upper - 1]);
    return blend(this.snapshots[upper - 1], this.snapshots[upper], fraction, renderTime, false);
  }
}

/**
 * Interpolates (or extrapolates past `newer`) every entity of the base snapshot by its field kinds.
 * @param {Snapshot} older
 * @param {Snapshot} newer
 * @param {number} fraction
 * @param {number} time
 * @param {boolean} extrapolating
 * @returns {WorldView}
 */
function blend(older, newer, fraction, time, extrapolating) {
  const base = extrapolating ? newer : older;
  const other = extrapolating ? older : newer;
  const types = base.schema.entityTypes;
  /** @type {EntityView[]} */
  const entities = [];
  for (let index = 0; index < base.count; index++) {
    const id = base.ids[index];
    const type = base.types[index];
    const fields = types[type].fields;
    const values = new Array(fields.length);
    const match = other.indexOf(id);
    let texts;
    if (match >= 0 && other.types[match] === type) {
      const from = extrapolating ? match : index;
      const to = extrapolating ? index : match;
      for (let field = 0; field < fields.length; field++) {
        values[field] = fields[field].kind.interpolate(older.double(from, field), newer.double(to, field), fraction);
      }
      // Texts step: the older snapshot's until the newer one is reached.
      texts = fraction < 1 ? textsOf(older, from) : textsOf(newer, to);
    } else {
      for (let field = 0; field < fields.length; field++) values[field] = base.double(index, field);
      texts = textsOf(base, index);
    }
    /** @type {EntityView} */
    const entity = { id, typeIndex: type, values };
    if (texts) entity.texts = texts;
    entities.push(entity);
  }
  return { time, entities, isExtrapolated: false };
}
