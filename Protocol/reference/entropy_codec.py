#!/usr/bin/env python3
"""An independent reference implementation of Tickwire's entropy-coded delta (PROTOCOL.md §4.5),
with its motion-predicted variant (§4.5.6).

Written from PROTOCOL.md alone, on top of snapshot_codec.py (bit streams, schemas, vectors). It
generates the `entropy-*.hex` vectors and checks that every one decodes and re-encodes byte for
byte. API:

    encode(types, tick, entities, baseline=None) -> bytes                    # §4.5.4
    decode(types, data, baseline=None) -> (tick, entities)
    encode_predicted(types, tick, entities, baseline, baseline_motion) -> (bytes, motion)   # §4.5.6
    decode_predicted(types, data, baseline, baseline_motion) -> (tick, entities, motion)

A snapshot is (tick, {id: (type, [q...])}); a motion is Motion(span, {id: [m per field]}) (ids
missing from the dict have zero motion; ZERO_MOTION is a whole snapshot's). Usage:

    python3 entropy_codec.py [--check]    # decode and re-encode every entropy vector
    python3 entropy_codec.py --generate   # rewrite them (only when the format changes)
"""
import os
import sys

from snapshot_codec import VECTORS, SCHEMAS, BitReader, BitWriter, CodecError, check_utf8, read_vector, value_token

# ---------------------------------------------------------------- §4.5.2 range coder

SHIFT = [1, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
INITIAL = (2048 << 4) | 0   # probability of a 0 bit 2048/4096, nothing seen
TOP = 1 << 24


def adapt(model, bit):
    p, n = model >> 4, model & 15
    s = SHIFT[n]
    p = p - (p >> s) if bit else p + ((4096 - p) >> s)
    return (p << 4) | min(n + 1, 15)


class RangeEncoder:
    def __init__(self):
        self.low, self.range, self.cache, self.cache_size = 0, 0xFFFFFFFF, 0, 1
        self.out = bytearray()
        self.first = True

    def _emit(self, byte):
        if self.first:
            self.first = False   # LZMA's first byte, always 0, is not sent
        else:
            self.out.append(byte)

    def _shift_low(self):
        if self.low < 0xFF000000 or self.low >= 1 << 32:
            carry = self.low >> 32
            self._emit((self.cache + carry) & 0xFF)
            for _ in range(self.cache_size - 1):
                self._emit((0xFF + carry) & 0xFF)
            self.cache_size = 0
            self.cache = (self.low >> 24) & 0xFF
        self.cache_size += 1
        self.low = (self.low & 0x00FFFFFF) << 8

    def _normalize(self):
        while self.range < TOP:
            self.range = (self.range << 8) & 0xFFFFFFFF
            self._shift_low()

    def bit(self, bit, models, index):
        bound = (self.range >> 12) * (models[index] >> 4)
        if bit:
            self.low += bound
            self.range -= bound
        else:
            self.range = bound
        models[index] = adapt(models[index], bit)
        self._normalize()

    def raw(self, value, count):
        while count > 0:
            chunk = min(count, 8)
            count -= chunk
            self.range >>= chunk
            self.low += self.range * ((value >> count) & ((1 << chunk) - 1))
            self._normalize()

    def tree(self, value, bits, models, base):
        node = 1
        for i in range(bits - 1, -1, -1):
            b = (value >> i) & 1
            self.bit(b, models, base + node)
            node = 2 * node + b

    def finish(self):
        for _ in range(5):
            self._shift_low()
        return bytes(self.out)


class RangeDecoder:
    def __init__(self, data, start):
        self.data, self.pos = data, start
        if start >= len(data):
            raise CodecError("truncated")
        self.range, self.code = 0xFFFFFFFF, 0
        for _ in range(4):
            self.code = (self.code << 8) | self._next()
        if self.code >= self.range:
            raise CodecError("malformedRangeCode")

    def _next(self):
        i = self.pos
        if i >= len(self.data):
            raise CodecError("truncated")
        self.pos += 1
        return self.data[i]

    def _normalize(self):
        while self.range < TOP:
            self.range = (self.range << 8) & 0xFFFFFFFF
            self.code = ((self.code << 8) | self._next()) & 0xFFFFFFFF

    def bit(self, models, index):
        bound = (self.range >> 12) * (models[index] >> 4)
        if self.code < bound:
            self.range, b = bound, 0
        else:
            self.code -= bound
            self.range -= bound
            b = 1
        models[index] = adapt(models[index], b)
        self._normalize()
        return b

    def raw(self, count):
        value = 0
        while count > 0:
            chunk = min(count, 8)
            count -= chunk
            self.range >>= chunk
            v = self.code // self.range
            if v >= 1 << chunk:
                raise CodecError("malformedRangeCode")
            self.code -= v * self.range
            self._normalize()
            value = (value << chunk) | v
        return value

    def tree(self, bits, models, base):
        node = 1
        for _ in range(bits):
            node = 2 * node + self.bit(models, base + node)
        return node - (1 << bits)

    def finish(self):
        """The end of the payload (§4.5.2): every byte read, and (protocol 1.1) the code back at 0."""
        if self.pos != len(self.data):
            raise CodecError("trailingData")
        if self.code != 0:
            raise CodecError("malformedRangeCode")


# ---------------------------------------------------------------- §4.5.3 models

G_HAS_DESTROYED, G_HAS_CHANGED, G_HAS_CREATED, G_CHANGED = 0, 1, 2, 3
G_COUNT, G_GAP, G_TYPE = 11, 11 + 64, 11 + 128
G_DESTROYED_COUNT, G_DESTROYED_GAP, GLOBAL = 11 + 128 + 256, 11 + 128 + 256 + 64, 11 + 128 + 256 + 128
F_CHANGED, F_SIGN, F_BUCKET, F_ESCAPE, F_WHOLE = 0, 6, 7, 7 + 8, 7 + 8 + 64
F_CHANGED_P, F_MOTION_SIGN, PER_FIELD = 335, 335 + 12, 335 + 12 + 2   # §4.5.6: fieldChangedP_f, motionSign_f


class Models:
    """All models of one snapshot, at their initial state (§4.5.3)."""

    def __init__(self, types):
        starts, total = [], 0
        for _, fields in types:
            starts.append(total)
            total += len(fields)
        self.starts = starts
        self.p = [INITIAL] * (GLOBAL + total * PER_FIELD)
        self.activity = [next((f for f, (_, kind) in enumerate(fields) if kind.tag == "bool"), -1) for _, fields in types]

    def field(self, t, f):
        return GLOBAL + (self.starts[t] + f) * PER_FIELD

    def active(self, t, values):
        f = self.activity[t]
        return values[f] & 1 if f >= 0 else 0


ESCAPED = 7   # §4.5.3: in a field wider than 8 bits, buckets from 7 up are escaped


def bucket_bits(width):
    """B_f: the bits of bucket_f's tree."""
    return min(3, (width - 1).bit_length())


def escape_bits(width):
    """E_f: the bits of escape_f's tree (fields wider than 8 bits)."""
    return (width - 1 - ESCAPED).bit_length()


def encode_integer(rc, m, value, tree):
    """I(v, tree) of §4.5.3: the bucket of v + 1 through a 6-bit tree, then its bits below the leading one."""
    n = value + 1
    k = n.bit_length() - 1
    rc.tree(k, 6, m.p, tree)
    rc.raw(n - (1 << k), k)


def encode_bucket(rc, m, fb, width, k):
    escapes = width > 8 and k >= ESCAPED
    rc.tree(ESCAPED if escapes else k, bucket_bits(width), m.p, fb + F_BUCKET)
    if escapes:
        rc.tree(k - ESCAPED, escape_bits(width), m.p, fb + F_ESCAPE)


def decode_bucket(rc, m, fb, width):
    k = rc.tree(bucket_bits(width), m.p, fb + F_BUCKET)
    if width > 8 and k == ESCAPED:
        k += rc.tree(escape_bits(width), m.p, fb + F_ESCAPE)
        if k >= width:
            raise CodecError("valueOutOfRange")
    return k


def delta_of(kind, old, new):
    if kind.delta_mode == "wrapping":
        r = (new - old) % (1 << kind.width)
        return r - (1 << kind.width) if r >= 1 << (kind.width - 1) else r
    return new - old


# ---------------------------------------------------------------- §4.5.6 motion

class Motion:
    """A snapshot's motion (§4.5.6): per survivor id, per field, q_new - q_baseline; and its span."""

    def __init__(self, span, deltas):
        self.span, self.deltas = span, deltas

    def at(self, i, f):
        d = self.deltas.get(i)
        return d[f] if d is not None else 0

    def __eq__(self, other):
        def nonzero(m):
            return {i: d for i, d in m.deltas.items() if any(d)}
        return isinstance(other, Motion) and self.span == other.span and nonzero(self) == nonzero(other)

    def __repr__(self):
        return f"Motion({self.span}, {self.deltas})"


ZERO_MOTION = Motion(1, {})
MAX_PREDICTION_TICKS = 255


def is_motion_field(kind):
    return kind.delta_mode == "linear" and kind.width <= 32


def motion_of(types, tick, entities, baseline):
    """The motion of snapshot (tick, entities) against `baseline` (None: whole, zero motion, span 1)."""
    if baseline is None:
        return ZERO_MOTION
    deltas = {}
    for i, (t, values) in entities.items():
        if i in baseline[1] and baseline[1][i][0] == t:
            old = baseline[1][i][1]
            deltas[i] = [new - o if is_motion_field(kind) else 0 for (_, kind), new, o in zip(types[t][1], values, old)]
    return Motion((tick - baseline[0]) % (1 << 32), deltas)


def prediction_usable(age, span):
    return 1 <= age <= MAX_PREDICTION_TICKS and 1 <= span <= MAX_PREDICTION_TICKS


def scaled(m, age, span):
    """m' of §4.5.6: the baseline's motion m scaled from its span to the new age, rounded half away from 0."""
    if age == span or m == 0:
        return m
    s = (abs(m) * age + span // 2) // span
    return s if m > 0 else -s


def predict(kind, old, m):
    """p of §4.5.6: old + m', clamped to 0...maxQ."""
    return min(max(old + m, 0), kind.max_q)


# ---------------------------------------------------------------- §4.5.4 encoding

def encode(types, tick, entities, baseline=None):
    """The §4.5 (unpredicted) coding of (tick, entities) against `baseline` (None: whole)."""
    return _encode(types, tick, entities, baseline, None)


def encode_predicted(types, tick, entities, baseline, baseline_motion):
    """The §4.5.6 coding against `baseline` (None: whole) whose motion is `baseline_motion`;
    returns (bytes, the new snapshot's motion)."""
    data = _encode(types, tick, entities, baseline, baseline_motion)
    return data, motion_of(types, tick, entities, baseline)


def _encode(types, tick, entities, baseline, baseline_motion):
    header = BitWriter()
    header.varint(tick)
    header.bool(baseline is not None)
    empty = entities == (baseline[1] if baseline is not None else {})
    predicts = False
    if baseline is not None:
        age = (tick - baseline[0]) % (1 << 32)
        header.varint(age)
        if baseline_motion is not None:
            predicts = not empty and prediction_usable(age, baseline_motion.span)
            header.bool(predicts)
    header.bool(empty)
    if empty:
        return header.bytes()
    rc, m = RangeEncoder(), Models(types)
    type_bits = (len(types) - 1).bit_length()

    def integer(value, tree):
        encode_integer(rc, m, value, tree)

    def whole_value(kind, base, q):
        if kind.tag == "text":   # protocol 1.2: the length, then the bytes, raw (4.5.4)
            rc.raw(len(q), kind.width)
            for b in q:
                rc.raw(b, 8)
        elif kind.width <= 8:
            rc.tree(q, kind.width, m.p, base + F_WHOLE)
        else:
            rc.raw(q, kind.width)

    def wholes(ids):
        previous = -1
        for i in ids:
            integer(i - previous - 1, G_GAP)
            previous = i
            t, values = entities[i]
            if type_bits:
                rc.tree(t, type_bits, m.p, G_TYPE)
            for f, ((_, kind), q) in enumerate(zip(types[t][1], values)):
                whole_value(kind, m.field(t, f), q)

    if baseline is None:
        integer(len(entities), G_COUNT)
        wholes(sorted(entities))
        return header.bytes() + rc.finish()
    base = baseline[1]
    survivors = [i for i in sorted(base) if i in entities and entities[i][0] == base[i][0]]
    created = [i for i in sorted(entities) if i not in base or entities[i][0] != base[i][0]]
    rc.bit(int(len(survivors) < len(base)), m.p, G_HAS_DESTROYED)
    if len(survivors) < len(base):
        kept = set(survivors)
        destroyed = [index for index, i in enumerate(sorted(base)) if i not in kept]
        integer(len(destroyed) - 1, G_DESTROYED_COUNT)
        following = 0
        for index in destroyed:
            integer(index - following, G_DESTROYED_GAP)
            following = index + 1
    changed = [i for i in survivors if entities[i][1] != base[i][1]]
    rc.bit(int(bool(changed)), m.p, G_HAS_CHANGED)
    if changed:
        h = 0
        for i in survivors:
            t, old = base[i]
            a = m.active(t, old)
            c = int(entities[i][1] != old)
            rc.bit(c, m.p, G_CHANGED + h + 4 * a)
            h = (2 * h + c) % 4
            if not c:
                continue
            new, fields, state = entities[i][1], types[t][1], 0
            for f, (_, kind) in enumerate(fields):
                fb = m.field(t, f)
                p, mp = old[f], 0
                if predicts and is_motion_field(kind):
                    mp = scaled(baseline_motion.at(i, f), age, baseline_motion.span)
                    p = predict(kind, old[f], mp)
                ch = int(new[f] != p)
                if predicts:
                    rc.bit(ch, m.p, fb + F_CHANGED_P + state + 3 * a + 6 * int(mp != 0))
                elif f < len(fields) - 1 or state != 0:
                    rc.bit(ch, m.p, fb + F_CHANGED + state + 3 * a)
                state = 2 if ch else (1 if state else 0)
                if not ch:
                    continue
                if kind.delta_mode is None:
                    if kind.width != 1 or kind.tag == "text":
                        whole_value(kind, fb, new[f])
                    continue
                d = delta_of(kind, p, new[f])
                sign = F_SIGN if mp == 0 else F_MOTION_SIGN + int(mp < 0)
                rc.bit(int(d < 0), m.p, fb + sign)
                mag = abs(d)
                k = mag.bit_length() - 1
                encode_bucket(rc, m, fb, kind.width, k)
                rc.raw(mag, k)
    rc.bit(int(bool(created)), m.p, G_HAS_CREATED)
    if created:
        integer(len(created) - 1, G_COUNT)
        wholes(created)
    return header.bytes() + rc.finish()


# ---------------------------------------------------------------- §4.5.4 decoding

def decode(types, data, baseline=None, max_entities=65536, max_encoded_bytes=4 << 20):
    """Decodes the §4.5 (unpredicted) coding; returns (tick, entities)."""
    tick, entities, _ = _decode(types, data, baseline, None, max_entities, max_encoded_bytes)
    return tick, entities


def decode_predicted(types, data, baseline, baseline_motion, max_entities=65536, max_encoded_bytes=4 << 20):
    """Decodes the §4.5.6 coding against `baseline` whose motion is `baseline_motion`;
    returns (tick, entities, the new snapshot's motion)."""
    tick, entities, used = _decode(types, data, baseline, baseline_motion, max_entities, max_encoded_bytes)
    return tick, entities, motion_of(types, tick, entities, used)


def _decode(types, data, baseline, baseline_motion, max_entities, max_encoded_bytes=4 << 20):
    if len(data) > max_encoded_bytes:
        raise CodecError("inputTooLarge")
    r = BitReader(data)
    tick = r.varint32()
    has_baseline = r.bool()
    predicts = False
    if has_baseline:
        age = r.varint32()
        base_tick = (tick - age) % (1 << 32)
        if baseline_motion is not None:
            predicts = r.bool()
            if predicts and not 1 <= age <= MAX_PREDICTION_TICKS:
                raise CodecError("valueOutOfRange")   # baseline age for prediction
    empty = r.bool()
    if empty and predicts:
        raise CodecError("valueOutOfRange")
    if r.u((8 - r.pos % 8) % 8) != 0:
        raise CodecError("malformedRangeCode")
    if has_baseline:
        if baseline is None:
            raise CodecError("baselineMissing")
        if baseline[0] != base_tick:
            raise CodecError("baselineMismatch")
        if baseline_motion is not None:
            usable = prediction_usable(age, baseline_motion.span)
            if predicts and not usable:
                raise CodecError("valueOutOfRange")   # the span of the baseline's motion
            if not predicts and not empty and usable:
                raise CodecError("valueOutOfRange")   # protocol 1.1: predicted 0 where an encoder writes 1
    if empty:
        if r.pos // 8 != len(data):
            raise CodecError("trailingData")
        if not has_baseline:
            return tick, {}, None
        return tick, {i: (t, list(v)) for i, (t, v) in baseline[1].items()}, baseline
    rc, m = RangeDecoder(data, r.pos // 8), Models(types)
    type_bits = (len(types) - 1).bit_length()

    def integer(tree):
        k = rc.tree(6, m.p, tree)
        if k > 32:
            raise CodecError("valueOutOfRange")
        return (1 << k) + rc.raw(k) - 1

    def whole_value(kind, base):
        if kind.tag == "text":   # protocol 1.2: the length (checked first), then the bytes, raw (4.5.4)
            length = rc.raw(kind.width)
            if length > kind.max_q:
                raise CodecError("valueOutOfRange")
            text = bytes(rc.raw(8) for _ in range(length))
            check_utf8(text)
            return text
        return rc.tree(kind.width, m.p, base + F_WHOLE) if kind.width <= 8 else rc.raw(kind.width)

    def wholes(count, into):
        previous, created = -1, []
        for _ in range(count):
            i = previous + 1 + integer(G_GAP)
            if i > 0xFFFFFFFF:
                raise CodecError("entityIDOutOfRange")
            previous = i
            t = rc.tree(type_bits, m.p, G_TYPE) if type_bits else 0
            if t >= len(types):
                raise CodecError("unknownEntityType")
            values = []
            for f, (_, kind) in enumerate(types[t][1]):
                q = whole_value(kind, m.field(t, f))
                if kind.tag != "text" and q > kind.max_q:
                    raise CodecError("valueOutOfRange")
                values.append(q)
            created.append((i, (t, values)))
        # Protocol 1.1: checked once the whole list is read, the smallest such id first (4.5.4).
        if any(i in into for i, _ in created):
            raise CodecError("duplicateEntity")
        into.update(created)

    entities = {}
    if not has_baseline:
        count = integer(G_COUNT)
        if count == 0:
            raise CodecError("valueOutOfRange")   # protocol 1.1: no entities is isEmpty 1
        if count > max_entities:
            raise CodecError("tooManyEntities")
        wholes(count, entities)
        rc.finish()
        return tick, entities, None
    base = baseline[1]
    has_destroyed = rc.bit(m.p, G_HAS_DESTROYED)
    if has_destroyed:
        ids = sorted(base)
        count = integer(G_DESTROYED_COUNT) + 1
        if count > len(ids):
            raise CodecError("tooManyEntities")   # as in §4.2
        destroyed, following = set(), 0
        for _ in range(count):
            index = following + integer(G_DESTROYED_GAP)
            if index >= len(ids):
                raise CodecError("valueOutOfRange")
            destroyed.add(index)
            following = index + 1
        for index, i in enumerate(ids):
            if index not in destroyed:
                entities[i] = (base[i][0], list(base[i][1]))
    else:
        entities = {i: (t, list(v)) for i, (t, v) in base.items()}
    has_changed = rc.bit(m.p, G_HAS_CHANGED)
    if has_changed:
        h, any_changed = 0, False
        for i in sorted(entities):
            t, values = entities[i]
            a = m.active(t, values)
            c = rc.bit(m.p, G_CHANGED + h + 4 * a)
            h = (2 * h + c) % 4
            if not c:
                continue
            any_changed = True
            fields, state = types[t][1], 0
            for f, (_, kind) in enumerate(fields):
                fb = m.field(t, f)
                old = values[f]
                p, mp = old, 0
                if predicts and is_motion_field(kind):
                    mp = scaled(baseline_motion.at(i, f), age, baseline_motion.span)
                    p = predict(kind, old, mp)
                if predicts:
                    ch = rc.bit(m.p, fb + F_CHANGED_P + state + 3 * a + 6 * int(mp != 0))
                elif f < len(fields) - 1 or state != 0:
                    ch = rc.bit(m.p, fb + F_CHANGED + state + 3 * a)
                else:
                    ch = 1
                state = 2 if ch else (1 if state else 0)
                if not ch:
                    values[f] = p
                    continue
                if kind.tag == "text":
                    new = whole_value(kind, fb)
                    if new == old:
                        raise CodecError("valueOutOfRange")   # a changed text differs from the old one
                elif kind.delta_mode is None:
                    new = 1 - old if kind.width == 1 else whole_value(kind, fb)
                    if new > kind.max_q or new == old:
                        raise CodecError("valueOutOfRange")
                else:
                    negative = rc.bit(m.p, fb + (F_SIGN if mp == 0 else F_MOTION_SIGN + int(mp < 0)))
                    k = decode_bucket(rc, m, fb, kind.width)
                    mag = (1 << k) | rc.raw(k)
                    d = -mag if negative else mag
                    if kind.delta_mode == "wrapping":
                        half = 1 << (kind.width - 1)
                        if mag > half or (mag == half and not negative):   # protocol 1.1: a half turn is negative
                            raise CodecError("valueOutOfRange")
                        new = (old + d) % (1 << kind.width)
                    else:
                        new = p + d
                        if not 0 <= new <= kind.max_q:
                            raise CodecError("valueOutOfRange")
                values[f] = new
            if values == list(base[i][1]):
                raise CodecError("valueOutOfRange")   # protocol 1.1: a changed entity differs from its baseline
        if not any_changed:
            raise CodecError("valueOutOfRange")
    has_created = rc.bit(m.p, G_HAS_CREATED)
    if not (has_destroyed or has_changed or has_created):
        raise CodecError("valueOutOfRange")   # protocol 1.1: a delta changing nothing is isEmpty 1
    if has_created:
        count = integer(G_COUNT) + 1
        if len(entities) + count > max_entities:
            raise CodecError("tooManyEntities")
        wholes(count, entities)
    rc.finish()
    return tick, entities, baseline


# ---------------------------------------------------------------- vectors

def snapshot_of(name):
    meta, entities, _ = read_vector(name)
    return int(meta["tick"][0]), entities


def vector_motion(name):
    """The motion kept with a vector's snapshot: zero (span 1) when its `# baseline:` is `none`,
    else its snapshot's motion against that baseline's snapshot (§4.5.6), whatever its coding."""
    meta, entities, _ = read_vector(name)
    base_name = meta["baseline"][0]
    if base_name == "none":
        return ZERO_MOTION
    return motion_of(SCHEMAS[meta["schema"][0]], int(meta["tick"][0]), entities, snapshot_of(base_name))


def vector_lines(description, schema, coding, baseline_name):
    lines = ["# " + line for line in description.strip().splitlines()]
    return lines + [f"# schema: {schema}", f"# coding: {coding}", f"# baseline: {baseline_name or 'none'}"]


def write_vector_file(name, description, schema, coding, baseline_name, data, snapshot=None, error=None, canonical=True):
    """The one writer of an entropy vector: its header lines, then the snapshot it decodes to
    (`snapshot`: tick and entities) or the error it is refused with, then its bytes."""
    lines = vector_lines(description, schema, coding, baseline_name)
    if not canonical:
        lines.append("# canonical: no")
    if error is not None:
        lines.append(f"# error: {error}")
    else:
        tick, entities = snapshot
        lines.append(f"# tick: {tick}")
        for i in sorted(entities):
            t, values = entities[i]
            lines.append(f"# entity: {i} {t} " + " ".join(value_token(v) for v in values))
    lines.append(" ".join(f"{b:02x}" for b in data))
    with open(os.path.join(VECTORS, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_vector(name, description, schema, tick, entities, baseline_name=None, coding="entropy"):
    """A valid vector: the snapshot encoded against its baseline (and the baseline's motion in the
    predicted coding), checked to decode back, and written."""
    types = SCHEMAS[schema]
    baseline = snapshot_of(baseline_name) if baseline_name else None
    if coding == "predictedEntropy":
        motion = vector_motion(baseline_name) if baseline_name else ZERO_MOTION
        data, new_motion = encode_predicted(types, tick, entities, baseline, motion)
        assert decode_predicted(types, data, baseline, motion) == (tick, entities, new_motion)
    else:
        data = encode(types, tick, entities, baseline)
        assert decode(types, data, baseline) == (tick, entities)
    write_vector_file(name, description, schema, coding, baseline_name, data, snapshot=(tick, entities))
    return data


def write_vector_bytes(name, description, schema, tick, entities, baseline_name, data, coding="entropy"):
    """A valid vector whose bytes are not the encoder's (`# canonical: no`): decoders accept them."""
    write_vector_file(name, description, schema, coding, baseline_name, data, snapshot=(tick, entities), canonical=False)


def write_error_vector(name, description, schema, baseline_name, error, data, coding="entropy"):
    write_vector_file(name, description, schema, coding, baseline_name, data, error=error)


def generate():
    # The snapshots of the bit-packed vectors delta-01, delta-02, delta-04 and delta-05, entropy-coded.
    for name, source, baseline, text in [
        ("entropy-01-arena-full.hex", "delta-01-arena-full.hex", None,
         "delta-01's snapshot (the arena schema, tick 100, entities 1, 2, 7), whole, entropy-coded (PROTOCOL.md §4.5)."),
        ("entropy-02-arena-delta.hex", "delta-02-arena-delta.hex", "delta-01-arena-full.hex",
         "delta-02's snapshot against delta-01, entropy-coded: entity 1 moves, 2 loses health, 7 destroyed, 9 created."),
        ("entropy-03-mixed-full.hex", "delta-04-mixed-full.hex", None,
         "delta-04's snapshot (the mixed schema, 25 entities, tick 4294967294), whole, entropy-coded."),
        ("entropy-04-mixed-delta.hex", "delta-05-mixed-delta.hex", "delta-04-mixed-full.hex",
         "delta-05's snapshot against delta-04 across the tick wrap, entropy-coded: a wrapping angle delta,\n"
         "a 64-bit integer sent whole, a type change, a destroyed and a created entity."),
    ]:
        meta, entities, _ = read_vector(source)
        write_vector(name, text, meta["schema"][0], int(meta["tick"][0]), entities, baseline)
    # A moving arena entity: small deltas, then a world where nothing changed.
    base = snapshot_of("delta-01-arena-full.hex")
    moved = {i: (t, list(v)) for i, (t, v) in base[1].items()}
    moved[1] = (0, [moved[1][1][0] + 16, moved[1][1][1] - 5, 1020, 100, 1])   # heading 256 -> 1020: -260 steps
    moved[7] = (0, [moved[7][1][0] - 300, 65535, 3, 3, 7])                    # heading 1023 -> 3 wraps: +4
    write_vector("entropy-05-arena-moves.hex", """
Two arena entities move against delta-01 (tick 101): entity 1 by (+16, -5) turning -260 steps,
entity 7 by x -300 with its heading wrapping 1023 -> 3 (+4). Nothing destroyed or created.""",
                 "arena", 101, moved, "delta-01-arena-full.hex")
    write_vector("entropy-06-arena-idle.hex", """
An unchanged world: tick 102 against entropy-05 (tick 101), entropy-coded.""",
                 "arena", 102, moved, "entropy-05-arena-moves.hex")
    _, _, data = read_vector("entropy-02-arena-delta.hex")
    write_error_vector("entropy-error-truncated.hex", """
entropy-02 without its last byte: the decoder runs out of payload.""",
                       "arena", "delta-01-arena-full.hex", "truncated", data[:-1])
    _, _, idle = read_vector("entropy-06-arena-idle.hex")
    write_error_vector("entropy-error-empty-trailing-data.hex", """
entropy-06 (an unchanged world: the isEmpty bit, no payload) followed by one more byte.""",
                       "arena", "entropy-05-arena-moves.hex", "trailingData", idle + b"\0")
    write_error_vector("entropy-error-trailing-data.hex", """
entropy-02 followed by one more byte: the payload is not read to its end.""",
                       "arena", "delta-01-arena-full.hex", "trailingData", data + b"\0")
    # Entity 7's health (integer 0...100, 3 in the baseline) after a delta of +98: 101.
    types = SCHEMAS["arena"]
    header = BitWriter()
    header.varint(101); header.bool(True); header.varint(1); header.bool(False)
    rc, m = RangeEncoder(), Models(types)
    rc.bit(0, m.p, G_HAS_DESTROYED)
    rc.bit(1, m.p, G_HAS_CHANGED)
    rc.bit(0, m.p, G_CHANGED + 0); rc.bit(0, m.p, G_CHANGED + 0); rc.bit(1, m.p, G_CHANGED + 0)
    fb = m.field(0, 3)
    for f in range(3):
        rc.bit(0, m.p, m.field(0, f) + F_CHANGED)
    rc.bit(1, m.p, fb + F_CHANGED)
    rc.bit(0, m.p, fb + F_SIGN)
    encode_bucket(rc, m, fb, 7, 6)                                  # 98 = 0b1100010: bucket 6
    rc.raw(98, 6)
    rc.bit(0, m.p, m.field(0, 4) + F_CHANGED + 2)
    rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-value-out-of-range.hex", """
A delta against delta-01 adding 98 to entity 7's health (integer 0...100, 3 in the baseline): 101.""",
                       "arena", "delta-01-arena-full.hex", "valueOutOfRange", header.bytes() + rc.finish())
    # A destroyed entity at index 3 of delta-01's three: past the baseline.
    header = BitWriter()
    header.varint(101); header.bool(True); header.varint(1); header.bool(False)
    rc, m = RangeEncoder(), Models(types)
    rc.bit(1, m.p, G_HAS_DESTROYED)
    encode_integer(rc, m, 0, G_DESTROYED_COUNT)
    encode_integer(rc, m, 3, G_DESTROYED_GAP)
    rc.bit(0, m.p, G_HAS_CHANGED)
    rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-destroyed-out-of-range.hex", """
A delta against delta-01 (three entities) destroying one at index 3: past the baseline's last.
Decoders refuse it at the index.""",
                       "arena", "delta-01-arena-full.hex", "valueOutOfRange", header.bytes() + rc.finish())
    # Entity 1's x (16 bits wide) with an escaped bucket of 7 + 9 = 16: no 16-bit magnitude has it.
    header = BitWriter()
    header.varint(101); header.bool(True); header.varint(1); header.bool(False)
    rc, m = RangeEncoder(), Models(types)
    rc.bit(0, m.p, G_HAS_DESTROYED)
    rc.bit(1, m.p, G_HAS_CHANGED)
    rc.bit(1, m.p, G_CHANGED + 0)
    fb = m.field(0, 0)
    rc.bit(1, m.p, fb + F_CHANGED)
    rc.bit(0, m.p, fb + F_SIGN)
    rc.tree(ESCAPED, bucket_bits(16), m.p, fb + F_BUCKET)
    rc.tree(9, escape_bits(16), m.p, fb + F_ESCAPE)
    rc.raw(0, 16)
    write_error_vector("entropy-error-bucket-out-of-range.hex", """
A delta against delta-01 whose first changed field, entity 1's x (16 bits wide), escapes to bucket 16:
a 17-bit magnitude, which no 16-bit field holds. Decoders refuse it at the bucket.""",
                       "arena", "delta-01-arena-full.hex", "valueOutOfRange", header.bytes() + rc.finish())
    generate_predicted()
    from entropy_pinned import (   # protocol 1.1's pinned readings
        generate_busy, generate_canonical, generate_errors, generate_motion_cases, generate_order, generate_pinned,
        generate_range_code)
    generate_pinned()
    generate_range_code()
    generate_canonical()
    generate_order()
    generate_motion_cases()
    generate_busy()
    generate_errors()


def with_predicted_bit(types, data, tick, age, empty):
    """`data` (a predicted-coding snapshot with predicted = 0) with its header's predicted bit set."""
    old, new = BitWriter(), BitWriter()
    for w, bit in ((old, False), (new, True)):
        w.varint(tick); w.bool(True); w.varint(age); w.bool(bit); w.bool(empty)
    assert data.startswith(old.bytes())
    return new.bytes() + data[len(old.bytes()):]


def generate_predicted():
    """The motion-predicted vectors (§4.5.6): two chains, each starting at a whole snapshot."""
    P = "predictedEntropy"

    def changed(name, changes, removed=()):
        entities = {i: (t, list(v)) for i, (t, v) in snapshot_of(name)[1].items() if i not in removed}
        entities.update({i: (t, list(v)) for i, (t, v) in changes.items()})
        return entities

    # The arena chain: delta-01 (tick 100, whole: zero motion) -> 07 -> 08 -> ...
    s07 = changed("delta-01-arena-full.hex", {
        1: (0, [33424, 32443, 260, 100, 1]), 2: (0, [32868, 32765, 0, 75, 0]),
        4: (0, [20000, 20000, 512, 50, 2]), 7: (0, [700, 65535, 3, 1, 7])})
    write_vector("entropy-07-arena-motion-start.hex", """
The first delta of a motion-predicted chain (PROTOCOL.md §4.5.6): tick 101 against delta-01, a whole
snapshot (zero motion, span 1), so predicted is 1 but every prediction is the old value. Entity 1 moves
(+16, -5), 2 (+100, -3), 7 x -300 and health 3 -> 1; 4 is created. Its motion (span 1) is what 08 uses.""",
                 "arena", 101, s07, "delta-01-arena-full.hex", P)
    s08 = changed("entropy-07-arena-motion-start.hex", {
        1: (0, [33440, 32438, 260, 100, 1]), 2: (0, [32969, 32762, 1020, 75, 0]),
        7: (0, [380, 65535, 8, 0, 5]), 9: (0, [40000, 1000, 100, 100, 3])}, removed=(4,))
    write_vector("entropy-08-arena-predicted.hex", """
Tick 102 against entropy-07 (age 1 = its motion's span 1): entity 1 moves exactly as predicted (changed,
every field bit 0); 2 x one past its prediction (+1 under motion +100), y as predicted, heading 0 -> 1020
(wrapping, -4, not predicted); 7 x 20 short of its prediction (-20 under motion -300: motionSign slot 1),
health predicted 1 - 2 clamped to 0 and 0, state 7 -> 5; 4 destroyed, 9 created.""",
                 "arena", 102, s08, "entropy-07-arena-motion-start.hex", P)
    s09 = changed("entropy-08-arena-predicted.hex", {
        1: (0, [33472, 32431, 260, 100, 1]), 2: (0, [33160, 32756, 1020, 75, 0]),
        7: (0, [0, 65535, 8, 0, 5]), 9: (0, [40011, 1000, 100, 99, 3])})
    write_vector("entropy-09-arena-scaled-double.hex", """
Tick 104 against entropy-08 (age 2, span 1: twice 08's motion): entity 1 x as predicted (+32), y +3 past
it (-7, predicted -10); 2 x 11 short (+191, predicted +202: a negative residual under positive motion),
y as predicted (-6); 7 x predicted 380 - 640 clamped to 0, and 0; 9 (no motion yet) x +11, health -1.""",
                 "arena", 104, s09, "entropy-08-arena-predicted.hex", P)
    s10 = changed("entropy-09-arena-scaled-double.hex", {
        1: (0, [33488, 32427, 260, 100, 1]), 2: (0, [33256, 32752, 1020, 75, 0]),
        9: (0, [40017, 1000, 100, 98, 3])})
    write_vector("entropy-10-arena-scaled-half.hex", """
Tick 105 against entropy-09 (age 1, span 2: m' = sign(m) * ((|m| + 1) div 2), halves away from zero):
1 x +16 (32 -> 16), y -4 (-7 -> -4); 2 x +96 (191 -> 96), y -4 (-6 -> -3, one past); 7 unchanged
(its prediction, -190 clamped, is not used: the entity is not changed); 9 x +6 (11 -> 6), health -1 (-1 -> -1).""",
                 "arena", 105, s10, "entropy-09-arena-scaled-double.hex", P)
    s11 = changed("entropy-09-arena-scaled-double.hex", {
        1: (0, [33521, 32420, 260, 100, 1]), 2: (0, [33447, 32747, 1020, 75, 0]),
        9: (0, [40028, 1000, 100, 97, 3]), 12: (0, [100, 100, 0, 0, 0])}, removed=(7,))
    write_vector("entropy-11-arena-scaled-three-halves.hex", """
Tick 107 against entropy-09 (age 3, span 2: m' = sign(m) * ((3|m| + 1) div 2)): 1 x +49 (32 -> 48, one
past), y -11 (-7 -> -11); 2 x +287 (191 -> 287), y -9 (-6 -> -9); 9 x +17 (11 -> 17), health -2 (-1 -> -2);
7 destroyed, 12 created.""",
                 "arena", 107, s11, "entropy-09-arena-scaled-double.hex", P)
    write_vector("entropy-12-arena-predicted-idle.hex", """
An unchanged world in the predicted coding: tick 103 against entropy-08. The header holds the predicted
bit (0: an empty snapshot never predicts) before isEmpty 1, and nothing follows.""",
                 "arena", 103, s08, "entropy-08-arena-predicted.hex", P)
    s13 = changed("entropy-08-arena-predicted.hex", {
        1: (0, [37520, 31163, 260, 100, 1]), 2: (0, [58700, 31997, 1020, 75, 0]), 7: (0, [0, 65535, 8, 0, 5])})
    write_vector("entropy-13-arena-age-255.hex", """
Tick 357 against entropy-08: age 255, the largest that predicts (255 times 08's motion). Entity 1 as
predicted (+4080, -1275); 2 x 24 short of +25755, y as predicted (-765); 7 x clamped to 0.""",
                 "arena", 357, s13, "entropy-08-arena-predicted.hex", P)
    d14 = write_vector("entropy-14-arena-age-256.hex", """
entropy-13's entities at tick 358 against entropy-08: age 256 is one past the largest that predicts, so
predicted is 0 and the payload is that of §4.5.4. The motion kept with it spans 256.""",
                       "arena", 358, s13, "entropy-08-arena-predicted.hex", P)
    s15 = changed("entropy-14-arena-age-256.hex", {1: (0, [37530, 31163, 260, 100, 1])})
    d15 = write_vector("entropy-15-arena-span-256.hex", """
Tick 359 against entropy-14 (age 1): its motion spans 256, one past the largest that predicts, so
predicted is 0. Entity 1 x +10.""",
                       "arena", 359, s15, "entropy-14-arena-age-256.hex", P)

    # The mixed chain: delta-04 (tick 4294967294, whole) -> 16 -> 17, across the tick wrap.
    s16 = changed("delta-04-mixed-full.hex", {
        6: (2, [70, 4354685564936845354, 3]), 10: (0, [1, 301, 0]), 18: (2, [10, 5, 3]), 28: (0, [1, 870, 0]),
        36: (0, [0, 1170, 0]), 60: (2, [228, 6653367501949350308, 10]), 4294967295: (2, [0, 7, 10])})
    write_vector("entropy-16-mixed-motion-start.hex", """
The mixed schema's chain: tick 4294967295 against delta-04 (whole: zero motion). Scores move (10 +10
and 28 -3 with their flag 1, 36 +6 with it 0), levels (6 +1, 60 +1 to its maxQ 10), turns (6 -4,
4294967295 255 -> 0 wrapping), a 64-bit integer (sent whole, no motion); 18 changes type (created).""",
                 "mixed", 4294967295, s16, "delta-04-mixed-full.hex", P)
    s17 = changed("entropy-16-mixed-motion-start.hex", {
        6: (2, [70, 4354685564936845354, 4]), 10: (0, [1, 321, 0]), 18: (2, [10, 5, 4]), 28: (0, [0, 860, 0]),
        36: (0, [0, 1182, 0]), 60: (2, [230, 6653367501949350308, 10]), 200: (1, [])}, removed=(0,))
    write_vector("entropy-17-mixed-predicted.hex", """
Tick 1 against entropy-16 (age 2 across the tick wrap, span 1: twice 16's motion): 10 score as predicted
(+20); 28 flag 1 -> 0 and score 4 short (-10, predicted -6); 36 as predicted (+12); 60 level predicted
10 + 2 clamped to its maxQ 10, and 10, turn +2; 6 level 1 short (+1, predicted +2); 18 (no motion) level +1;
0 destroyed, 200 created.""",
                 "mixed", 1, s17, "entropy-16-mixed-motion-start.hex", P)

    types = SCHEMAS["arena"]
    write_error_vector("entropy-error-predicted-age.hex", """
entropy-14 (age 256) with its predicted bit set: a decoder refuses a prediction past age 255.""",
                       "arena", "entropy-08-arena-predicted.hex", "valueOutOfRange",
                       with_predicted_bit(types, d14, 358, 256, False), P)
    write_error_vector("entropy-error-predicted-span.hex", """
entropy-15 (age 1, but its baseline's motion spans 256) with its predicted bit set: refused.""",
                       "arena", "entropy-14-arena-age-256.hex", "valueOutOfRange",
                       with_predicted_bit(types, d15, 359, 1, False), P)
    write_error_vector("entropy-error-predicted-empty.hex", """
entropy-12 (an unchanged world) with its predicted bit set: an empty snapshot never predicts.""",
                       "arena", "entropy-08-arena-predicted.hex", "valueOutOfRange",
                       with_predicted_bit(types, read_vector("entropy-12-arena-predicted-idle.hex")[2], 103, 1, True), P)
    bad = changed("entropy-09-arena-scaled-double.hex", {7: (0, [0, 65535, 8, -1, 5])})
    data, _ = encode_predicted(types, 104, bad, snapshot_of("entropy-08-arena-predicted.hex"),
                               vector_motion("entropy-08-arena-predicted.hex"))
    write_error_vector("entropy-error-predicted-out-of-range.hex", """
entropy-09 with entity 7's health residual -1 from its prediction 0 (1 - 2 clamped): -1, below the field's range.""",
                       "arena", "entropy-08-arena-predicted.hex", "valueOutOfRange", data, P)


def check():
    failures = 0
    for name in sorted(os.listdir(VECTORS)):
        if not name.startswith("entropy-") or not name.endswith(".hex"):
            continue
        meta, entities, data = read_vector(name)
        types = SCHEMAS[meta["schema"][0]]
        base_name = meta["baseline"][0]
        baseline = snapshot_of(base_name) if base_name != "none" else None
        predicted = meta["coding"][0] == "predictedEntropy"
        motion = vector_motion(base_name) if predicted and base_name != "none" else ZERO_MOTION
        if "error" in meta:
            try:
                decode_predicted(types, data, baseline, motion) if predicted else decode(types, data, baseline)
                ok = False
            except CodecError as error:
                ok = str(error) == meta["error"][0]
        else:
            tick = int(meta["tick"][0])
            canonical = meta.get("canonical", ["yes"])[0] != "no"   # a `no` one re-encodes to other bytes
            if predicted:
                expected_motion = motion_of(types, tick, entities, baseline)
                encoded = encode_predicted(types, tick, entities, baseline, motion)
                ok = decode_predicted(types, data, baseline, motion) == (tick, entities, expected_motion) \
                    and (encoded == (data, expected_motion)) == canonical
            else:
                ok = decode(types, data, baseline) == (tick, entities) \
                    and (encode(types, tick, entities, baseline) == data) == canonical
        print(("ok   " if ok else "FAIL ") + name)
        failures += not ok
    return failures


def generate_text():
    """The text field's vectors (protocol 1.2, PROTOCOL.md 4.5.4): delta-06 and delta-07's snapshots."""
    from snapshot_codec import NAMED_FULL, named_delta
    full, full_name = NAMED_FULL, "delta-06-named-full.hex"
    write_vector("entropy-29-named-full.hex", """
delta-06's snapshot (the named schema, texts at their bounds, 2- to 4-byte characters), entropy-coded:
each text's length raw in 5 or 7 bits, then its bytes raw (4.5.4), outside the models.""", "named", 500, full)
    write_vector("entropy-30-named-delta.hex", """
delta-07's snapshot against delta-06, entropy-coded: an unchanged name is not sent, changed texts
are sent whole after their fieldChanged bit.""", "named", 501, named_delta(), full_name)
    write_vector("entropy-31-named-predicted.hex", """
delta-07's snapshot against delta-06 in the predicted coding (4.5.6): texts are not motion fields,
and a changed text is coded as in 4.5.4 after its fieldChangedP bit.""", "named", 501, named_delta(), full_name,
                 coding="predictedEntropy")
    types, baseline = SCHEMAS["named"], snapshot_of(full_name)

    def with_name(name):
        later = named_delta()
        later[1] = (0, [11, name, 1, b""])
        return encode(types, 501, later, baseline)

    write_error_vector("entropy-error-text-too-long.hex", """
entropy-30 with entity 1's name (at most 16 bytes) 17 bytes long: refused at its length.""",
                       "named", full_name, "valueOutOfRange", with_name(b"seventeen-bytes!!"))
    write_error_vector("entropy-error-text-invalid-utf8.hex", """
entropy-30 with entity 1's name the bytes c0 80 (an overlong form): not UTF-8.""",
                       "named", full_name, "invalidUTF8", with_name(bytes([0xC0, 0x80])))
    data = read_vector("entropy-29-named-full.hex")[2]
    write_error_vector("entropy-error-text-truncated.hex", """
entropy-29 without its last 24 bytes: the payload ends inside entity 6's motto (64 bytes, the last symbols).""",
                       "named", None, "truncated", data[:-24])
    fake = {i: (t, list(v)) for i, (t, v) in baseline[1].items()}
    fake[1] = (0, [10, b"Anx", 1, b""])
    write_error_vector("entropy-error-text-unchanged.hex", """
A delta against delta-06 coding entity 1's name as changed, to "Ann", its old text (the encoder
coded it against a baseline naming entity 1 "Anx"): a changed text equal to the old one.""",
                       "named", full_name, "valueOutOfRange", encode(types, 501, named_delta(), (500, fake)))


if __name__ == "__main__":
    if "--generate" in sys.argv:
        generate()
        generate_text()
    elif "--generate-text" in sys.argv:
        generate_text()
    sys.exit(1 if check() else 0)
