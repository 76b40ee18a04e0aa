#!/usr/bin/env python3
"""An independent reference implementation of Tickwire's entropy-coded delta (PROTOCOL.md §4.5).

Written from PROTOCOL.md alone, on top of snapshot_codec.py (bit streams, schemas, vectors). It
generates the `entropy-*.hex` vectors and checks that every one decodes and re-encodes byte for
byte. Usage:

    python3 entropy_codec.py [--check]    # decode and re-encode every entropy vector
    python3 entropy_codec.py --generate   # rewrite them (only when the format changes)
"""
import os
import sys

from snapshot_codec import VECTORS, SCHEMAS, BitReader, BitWriter, CodecError, read_vector

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
        if self.pos != len(self.data):
            raise CodecError("trailingData")


# ---------------------------------------------------------------- §4.5.3 models

G_HAS_DESTROYED, G_HAS_CHANGED, G_HAS_CREATED, G_DESTROYED, G_CHANGED = 0, 1, 2, 3, 5
G_COUNT, G_GAP, G_TYPE, GLOBAL = 13, 13 + 64, 13 + 128, 13 + 128 + 256
F_CHANGED, F_SIGN, F_BUCKET, F_TOP, F_WHOLE, PER_FIELD = 0, 6, 7, 7 + 64, 7 + 64 + 128, 7 + 64 + 128 + 256


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


def bucket_bits(width):
    return (width - 1).bit_length()


def delta_of(kind, old, new):
    if kind.delta_mode == "wrapping":
        r = (new - old) % (1 << kind.width)
        return r - (1 << kind.width) if r >= 1 << (kind.width - 1) else r
    return new - old


# ---------------------------------------------------------------- §4.5.4 encoding

def encode(types, tick, entities, baseline=None):
    header = BitWriter()
    header.varint(tick)
    header.bool(baseline is not None)
    if baseline is not None:
        header.varint((tick - baseline[0]) % (1 << 32))
    empty = entities == (baseline[1] if baseline is not None else {})
    header.bool(empty)
    if empty:
        return header.bytes()
    rc, m = RangeEncoder(), Models(types)
    type_bits = (len(types) - 1).bit_length()

    def integer(value, tree):
        n = value + 1
        k = n.bit_length() - 1
        rc.tree(k, 6, m.p, tree)
        rc.raw(n - (1 << k), k)

    def whole_value(kind, base, q):
        if kind.width <= 8:
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
        previous, kept = 0, set(survivors)
        for i in sorted(base):
            b = int(i not in kept)
            rc.bit(b, m.p, G_DESTROYED + previous)
            previous = b
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
                ch = int(new[f] != old[f])
                if f < len(fields) - 1 or state != 0:
                    rc.bit(ch, m.p, fb + F_CHANGED + state + 3 * a)
                state = 2 if ch else (1 if state else 0)
                if not ch:
                    continue
                if kind.delta_mode is None:
                    if kind.width != 1:
                        whole_value(kind, fb, new[f])
                    continue
                d = delta_of(kind, old[f], new[f])
                rc.bit(int(d < 0), m.p, fb + F_SIGN)
                mag = abs(d)
                k = mag.bit_length() - 1
                rc.tree(k, bucket_bits(kind.width), m.p, fb + F_BUCKET)
                if k >= 1:
                    rc.tree((mag >> (k - 1)) & 1, 1, m.p, fb + F_TOP + 2 * k)
                    rc.raw(mag, k - 1)
    rc.bit(int(bool(created)), m.p, G_HAS_CREATED)
    if created:
        integer(len(created) - 1, G_COUNT)
        wholes(created)
    return header.bytes() + rc.finish()


# ---------------------------------------------------------------- §4.5.5 decoding

def decode(types, data, baseline=None, max_entities=65536):
    r = BitReader(data)
    tick = r.varint32()
    has_baseline = r.bool()
    if has_baseline:
        base_tick = (tick - r.varint32()) % (1 << 32)
    empty = r.bool()
    if r.u((8 - r.pos % 8) % 8) != 0:
        raise CodecError("malformedRangeCode")
    if has_baseline:
        if baseline is None:
            raise CodecError("baselineMissing")
        if baseline[0] != base_tick:
            raise CodecError("baselineMismatch")
    if empty:
        if r.pos // 8 != len(data):
            raise CodecError("trailingData")
        return tick, ({i: (t, list(v)) for i, (t, v) in baseline[1].items()} if has_baseline else {})
    rc, m = RangeDecoder(data, r.pos // 8), Models(types)
    type_bits = (len(types) - 1).bit_length()

    def integer(tree):
        k = rc.tree(6, m.p, tree)
        if k > 32:
            raise CodecError("valueOutOfRange")
        return (1 << k) + rc.raw(k) - 1

    def whole_value(kind, base):
        return rc.tree(kind.width, m.p, base + F_WHOLE) if kind.width <= 8 else rc.raw(kind.width)

    def wholes(count, into):
        previous = -1
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
                if q > kind.max_q:
                    raise CodecError("valueOutOfRange")
                values.append(q)
            if i in into:
                raise CodecError("duplicateEntity")
            into[i] = (t, values)

    entities = {}
    if not has_baseline:
        count = integer(G_COUNT)
        if count > max_entities:
            raise CodecError("tooManyEntities")
        wholes(count, entities)
        rc.finish()
        return tick, entities
    base = baseline[1]
    if rc.bit(m.p, G_HAS_DESTROYED):
        previous, destroyed = 0, 0
        for i in sorted(base):
            previous = rc.bit(m.p, G_DESTROYED + previous)
            destroyed += previous
            if not previous:
                entities[i] = (base[i][0], list(base[i][1]))
        if destroyed == 0:
            raise CodecError("valueOutOfRange")
    else:
        entities = {i: (t, list(v)) for i, (t, v) in base.items()}
    if rc.bit(m.p, G_HAS_CHANGED):
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
                ch = rc.bit(m.p, fb + F_CHANGED + state + 3 * a) if f < len(fields) - 1 or state != 0 else 1
                state = 2 if ch else (1 if state else 0)
                if not ch:
                    continue
                old = values[f]
                if kind.delta_mode is None:
                    new = 1 - old if kind.width == 1 else whole_value(kind, fb)
                    if new > kind.max_q or new == old:
                        raise CodecError("valueOutOfRange")
                else:
                    negative = rc.bit(m.p, fb + F_SIGN)
                    k = rc.tree(bucket_bits(kind.width), m.p, fb + F_BUCKET)
                    mag = 1
                    if k >= 1:
                        mag = ((2 + rc.tree(1, m.p, fb + F_TOP + 2 * k)) << (k - 1)) | rc.raw(k - 1)
                    d = -mag if negative else mag
                    if kind.delta_mode == "wrapping":
                        if mag > 1 << (kind.width - 1):
                            raise CodecError("valueOutOfRange")
                        new = (old + d) % (1 << kind.width)
                    else:
                        new = old + d
                        if not 0 <= new <= kind.max_q:
                            raise CodecError("valueOutOfRange")
                values[f] = new
        if not any_changed:
            raise CodecError("valueOutOfRange")
    if rc.bit(m.p, G_HAS_CREATED):
        count = integer(G_COUNT) + 1
        if len(entities) + count > max_entities:
            raise CodecError("tooManyEntities")
        wholes(count, entities)
    rc.finish()
    return tick, entities


# ---------------------------------------------------------------- vectors

def snapshot_of(name):
    meta, entities, _ = read_vector(name)
    return int(meta["tick"][0]), entities


def write_vector(name, description, schema, tick, entities, baseline_name=None):
    types = SCHEMAS[schema]
    baseline = snapshot_of(baseline_name) if baseline_name else None
    data = encode(types, tick, entities, baseline)
    assert decode(types, data, baseline) == (tick, entities)
    lines = ["# " + line for line in description.strip().splitlines()]
    lines += [f"# schema: {schema}", "# coding: entropy", f"# baseline: {baseline_name or 'none'}", f"# tick: {tick}"]
    for i in sorted(entities):
        t, values = entities[i]
        lines.append(f"# entity: {i} {t} " + " ".join(str(v) for v in values))
    lines.append(" ".join(f"{b:02x}" for b in data))
    with open(os.path.join(VECTORS, name), "w") as f:
        f.write("\n".join(lines) + "\n")
    return data


def write_error_vector(name, description, schema, baseline_name, error, data):
    lines = ["# " + line for line in description.strip().splitlines()]
    lines += [f"# schema: {schema}", "# coding: entropy", f"# baseline: {baseline_name or 'none'}", f"# error: {error}"]
    lines.append(" ".join(f"{b:02x}" for b in data))
    with open(os.path.join(VECTORS, name), "w") as f:
        f.write("\n".join(lines) + "\n")


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
    rc.tree(6, bucket_bits(7), m.p, fb + F_BUCKET)                  # 98 = 0b1100010: bucket 6
    rc.tree(1, 1, m.p, fb + F_TOP + 2 * 6)
    rc.raw(98, 5)
    rc.bit(0, m.p, m.field(0, 4) + F_CHANGED + 2)
    rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-value-out-of-range.hex", """
A delta against delta-01 adding 98 to entity 7's health (integer 0...100, 3 in the baseline): 101.""",
                       "arena", "delta-01-arena-full.hex", "valueOutOfRange", header.bytes() + rc.finish())


def check():
    failures = 0
    for name in sorted(os.listdir(VECTORS)):
        if not name.startswith("entropy-") or not name.endswith(".hex"):
            continue
        meta, entities, data = read_vector(name)
        types = SCHEMAS[meta["schema"][0]]
        base_name = meta["baseline"][0]
        baseline = snapshot_of(base_name) if base_name != "none" else None
        if "error" in meta:
            try:
                decode(types, data, baseline)
                ok = False
            except CodecError as error:
                ok = str(error) == meta["error"][0]
        else:
            tick = int(meta["tick"][0])
            ok = decode(types, data, baseline) == (tick, entities) and encode(types, tick, entities, baseline) == data
        print(("ok   " if ok else "FAIL ") + name)
        failures += not ok
    return failures


if __name__ == "__main__":
    if "--generate" in sys.argv:
        generate()
    sys.exit(1 if check() else 0)
