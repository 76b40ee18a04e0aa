#!/usr/bin/env python3
"""An independent reference implementation of Tickwire's snapshot codec (PROTOCOL.md §2.2, 3, 4).

Written from PROTOCOL.md alone, it generates the `delta-*.hex` and `bits-*.hex` vectors and
checks that every vector decodes and re-encodes byte for byte. Usage:

    python3 snapshot_codec.py [--check]    # decode and re-encode every vector
    python3 snapshot_codec.py --generate   # rewrite the vectors (only when the format changes)
"""
import math
import os
import struct
import sys

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors")


class CodecError(Exception):
    pass


# ---------------------------------------------------------------- §2.2 bit streams

class BitWriter:
    def __init__(self):
        self.bits = []  # 0/1 in stream order

    def u(self, value, width):
        for i in range(width):
            self.bits.append((value >> i) & 1)

    def bool(self, value):
        self.u(1 if value else 0, 1)

    def varint(self, value):
        while value >= 0x80:
            self.u((value & 0x7F) | 0x80, 8)
            value >>= 7
        self.u(value, 8)

    def gamma(self, value):
        assert value >= 1
        n = value.bit_length() - 1
        self.u(1 << n, n + 1)  # n zero bits, then a one
        self.u(value & ((1 << n) - 1), n)

    def bytes(self):
        out = bytearray()
        for start in range(0, len(self.bits), 8):
            chunk = self.bits[start:start + 8]
            out.append(sum(bit << i for i, bit in enumerate(chunk)))
        return bytes(out)


class BitReader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def u(self, width):
        if width > len(self.data) * 8 - self.pos:
            raise CodecError("truncated")
        value = 0
        for i in range(width):
            byte = self.data[(self.pos + i) // 8]
            value |= ((byte >> ((self.pos + i) % 8)) & 1) << i
        self.pos += width
        return value

    def bool(self):
        return self.u(1) == 1

    def varint(self):
        value, shift = 0, 0
        while True:
            group = self.u(8)
            if shift == 63 and group > 1:
                raise CodecError("malformedVarint")
            value |= (group & 0x7F) << shift
            if group & 0x80 == 0:
                if group == 0 and shift > 0:
                    raise CodecError("malformedVarint")
                return value
            shift += 7

    def varint32(self):
        value = self.varint()
        if value > 0xFFFFFFFF:
            raise CodecError("valueOutOfRange")
        return value

    def gamma(self):
        zeros = 0
        while not self.bool():
            zeros += 1
            if zeros > 63:
                raise CodecError("malformedGammaCode")
        return (1 << zeros) | self.u(zeros)

    def finish(self):
        left = len(self.data) * 8 - self.pos
        if left >= 8 or (left and self.u(left) != 0):
            raise CodecError("trailingData")


def zigzag(n):
    return ((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF


def write_op(w, kind, value):
    """One bit-stream write of a bits- vector: bool, varint, gamma, signedN (zigzag in N bits) or uN."""
    if kind == "bool":
        w.bool(value)
    elif kind == "varint":
        w.varint(value)
    elif kind == "gamma":
        w.gamma(value)
    elif kind.startswith("signed"):
        w.u(zigzag(value), int(kind[6:]))
    else:
        w.u(value, int(kind[1:]))


def unzigzag(z):
    return (z >> 1) ^ -(z & 1)


# ---------------------------------------------------------------- §3 schema

class Kind:
    def __init__(self, tag, *params):
        self.tag, self.params = tag, params

    @property
    def max_q(self):
        """The largest q; for a text (protocol 1.2), the largest length in bytes."""
        if self.tag in ("text",):
            return self.params[0]
        if self.tag == "bool":
            return 1
        if self.tag == "integer":
            return self.params[1] - self.params[0]
        if self.tag == "float":
            lo, hi, res = self.params
            return int(math.ceil((hi - lo) / res - 1e-9))
        if self.tag == "angle":
            return (1 << self.params[0]) - 1
        return self.params[0] - 1  # enumeration

    @property
    def width(self):
        return self.max_q.bit_length()

    @property
    def delta_mode(self):
        if self.tag in ("integer", "float", "angle") and 4 <= self.width <= 62:
            return "wrapping" if self.tag == "angle" else "linear"
        return None


def canonical_encoding(types):
    out = bytearray([1])

    def varint(v):
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)

    def name(s):
        b = s.encode()
        varint(len(b))
        out.extend(b)

    varint(len(types))
    for type_name, fields in types:
        name(type_name)
        varint(len(fields))
        for field_name, kind in fields:
            name(field_name)
            tag = ["bool", "integer", "float", "angle", "enumeration", "text"].index(kind.tag)
            out.append(tag)
            if kind.tag == "integer":
                varint(zigzag(kind.params[0]))
                varint(zigzag(kind.params[1]))
            elif kind.tag == "float":
                for v in kind.params:
                    out.extend(struct.pack("<d", 0.0 if v == 0 else v))
            elif kind.tag in ("angle", "enumeration", "text"):
                varint(kind.params[0])
    return bytes(out)


def fingerprint(types):
    h = 0xCBF29CE484222325
    for b in canonical_encoding(types):
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


SCHEMAS = {
    "arena": [("ship", [
        ("x", Kind("float", -512.0, 512.0 - 1 / 64, 1 / 64)),
        ("y", Kind("float", -512.0, 512.0 - 1 / 64, 1 / 64)),
        ("heading", Kind("angle", 10)),
        ("health", Kind("integer", 0, 100)),
        ("state", Kind("enumeration", 8)),
    ])],
    "mixed": [
        ("a", [("flag", Kind("bool")), ("score", Kind("integer", -1000, 1000)), ("mode", Kind("enumeration", 3))]),
        ("b", []),
        ("c", [("turn", Kind("angle", 8)), ("wide", Kind("integer", -(1 << 63), (1 << 63) - 1)),
               ("level", Kind("float", 0.0, 1.0, 0.1))]),
    ],
    # The busy vectors' (PROTOCOL.md 4.5.5): two bools in one type, a 1-bit integer, an enumeration(2),
    # a 40-bit integer, and field 2 (x) in both types.
    "busy": [
        ("body", [("moving", Kind("bool")), ("awake", Kind("bool")), ("x", Kind("integer", 0, 65535)),
                  ("lit", Kind("integer", 0, 1)), ("side", Kind("enumeration", 2)),
                  ("big", Kind("integer", 0, (1 << 40) - 1)), ("heading", Kind("angle", 8))]),
        ("marker", [("on", Kind("bool")), ("kind", Kind("enumeration", 5)), ("x", Kind("integer", -1000, 1000)),
                    ("y", Kind("float", 0.0, 100.0, 0.5)), ("hp", Kind("integer", 0, 1000))]),
    ],
    # The text vectors' (PROTOCOL.md 3.2, protocol 1.2): a name at a small bound, a motto at the
    # largest (64 bytes), and a type without texts.
    "named": [
        ("player", [("x", Kind("integer", 0, 255)), ("name", Kind("text", 16)), ("alive", Kind("bool")),
                    ("motto", Kind("text", 64))]),
        ("stone", [("x", Kind("integer", 0, 255))]),
    ],
}


# ---------------------------------------------------------------- text values (protocol 1.2)
# A text field's value is a bytes object (valid UTF-8) in the values list; its q is not sent.

def write_text(w, text, kind):
    """A text value (4.1): its length in bits(maxBytes) bits, then each byte as u(8)."""
    w.u(len(text), kind.width)
    for b in text:
        w.u(b, 8)


def read_text(r, kind):
    length = r.u(kind.width)
    if length > kind.max_q:
        raise CodecError("valueOutOfRange")
    if length * 8 > len(r.data) * 8 - r.pos:
        raise CodecError("truncated")
    text = bytes(r.u(8) for _ in range(length))
    check_utf8(text)
    return text


def check_utf8(text):
    """RFC 3629 UTF-8 (Python's strict decoder refuses overlong forms, surrogates and code points past U+10FFFF)."""
    try:
        text.decode("utf-8", "strict")
    except UnicodeDecodeError:
        raise CodecError("invalidUTF8")


def value_token(v):
    """A value on an `# entity:` line: q in decimal, a text as t: and its bytes in hex."""
    return "t:" + v.hex() if isinstance(v, bytes) else str(v)


def parse_token(token):
    return bytes.fromhex(token[2:]) if token.startswith("t:") else int(token)


# ---------------------------------------------------------------- §4 snapshots
# A snapshot is (tick, {id: (type, [q...])}).

def encode(types, tick, entities, baseline=None):
    w = BitWriter()
    w.varint(tick)
    type_bits = (len(types) - 1).bit_length()

    def write_entities(ids):
        w.varint(len(ids))
        previous = -1
        for i in ids:
            w.varint(i - previous - 1)
            previous = i
            t, values = entities[i]
            w.u(t, type_bits)
            for (_, kind), q in zip(types[t][1], values):
                if kind.tag == "text":
                    write_text(w, q, kind)
                else:
                    w.u(q, kind.width)

    if baseline is None:
        w.bool(False)
        write_entities(sorted(entities))
        return w.bytes()
    base_tick, base = baseline
    w.bool(True)
    w.varint((tick - base_tick) % (1 << 32))
    destroyed = sorted(i for i in base if i not in entities or entities[i][0] != base[i][0])
    created = sorted(i for i in entities if i not in base or entities[i][0] != base[i][0])
    survivors = [i for i in sorted(base) if i not in destroyed]
    changed = [k for k, i in enumerate(survivors) if entities[i][1] != base[i][1]]
    w.bool(bool(destroyed))
    if destroyed:
        w.varint(len(destroyed))
        previous = -1
        for i in destroyed:
            w.varint(i - previous - 1)
            previous = i
    w.bool(bool(changed))
    if changed:
        gaps = [k - p for k, p in zip(changed, [-1] + changed[:-1])]
        list_bits = 8 * max(1, (len(changed).bit_length() + 6) // 7) + sum(2 * (g.bit_length() - 1) + 1 for g in gaps)
        if list_bits < len(survivors):
            w.bool(True)
            w.varint(len(changed))
            for g in gaps:
                w.gamma(g)
        else:
            w.bool(False)
            for k in range(len(survivors)):
                w.bool(k in changed)
        for k in changed:
            i = survivors[k]
            t, new = entities[i]
            old = base[i][1]
            fields = types[t][1]
            w.u(sum(1 << f for f in range(len(fields)) if new[f] != old[f]), len(fields))
            for f, (_, kind) in enumerate(fields):
                if new[f] == old[f]:
                    continue
                mode = kind.delta_mode
                if kind.tag == "text":
                    write_text(w, new[f], kind)
                    continue
                if mode is None:
                    w.u(new[f], kind.width)
                    continue
                if mode == "wrapping":
                    raw = (new[f] - old[f]) % (1 << kind.width)
                    d = raw - (1 << kind.width) if raw >= 1 << (kind.width - 1) else raw
                else:
                    d = new[f] - old[f]
                z = zigzag(d)
                if 2 * (z.bit_length() - 1) + 1 < kind.width:
                    w.bool(True)
                    w.gamma(z)
                else:
                    w.bool(False)
                    w.u(new[f], kind.width)
    w.bool(bool(created))
    if created:
        write_entities(created)
    return w.bytes()


def decode(types, data, baseline=None, max_entities=65536, max_encoded_bytes=4 << 20):
    if len(data) > max_encoded_bytes:
        raise CodecError("inputTooLarge")
    r = BitReader(data)
    type_bits = (len(types) - 1).bit_length()
    tick = r.varint32()

    def read_entities(into, existing):
        count = r.varint()
        if existing + count > max_entities:
            raise CodecError("tooManyEntities")
        previous = -1
        created = []
        for _ in range(count):
            i = previous + 1 + r.varint()
            if i > 0xFFFFFFFF:
                raise CodecError("entityIDOutOfRange")
            previous = i
            t = r.u(type_bits)
            if t >= len(types):
                raise CodecError("unknownEntityType")
            values = []
            for _, kind in types[t][1]:
                if kind.tag == "text":
                    values.append(read_text(r, kind))
                    continue
                q = r.u(kind.width)
                if q > kind.max_q:
                    raise CodecError("valueOutOfRange")
                values.append(q)
            created.append((i, (t, values)))
        # Checked once the whole list is read (4.2), before the trailing bits.
        if any(i in into for i, _ in created):
            raise CodecError("duplicateEntity")
        into.update(created)
        return count

    if not r.bool():
        entities = {}
        read_entities(entities, 0)
        r.finish()
        return tick, entities
    base_tick = (tick - r.varint32()) % (1 << 32)
    if baseline is None:
        raise CodecError("baselineMissing")
    if baseline[0] != base_tick:
        raise CodecError("baselineMismatch")
    entities = {i: (t, list(v)) for i, (t, v) in baseline[1].items()}
    if r.bool():
        count = r.varint()
        if count < 1:
            raise CodecError("valueOutOfRange")
        if count > len(entities):
            raise CodecError("tooManyEntities")
        previous = -1
        for _ in range(count):
            i = previous + 1 + r.varint()
            previous = i
            if i not in entities:
                raise CodecError("unknownEntity")
            del entities[i]
    survivors = sorted(entities)
    if r.bool():
        if r.bool():
            count = r.varint()
            if not 1 <= count <= len(survivors):
                raise CodecError("valueOutOfRange")
            marked, k = [], -1
            for _ in range(count):
                k += r.gamma()
                if k >= len(survivors):
                    raise CodecError("entityIndexOutOfRange")
                marked.append(k)
        else:
            marked = [k for k in range(len(survivors)) if r.bool()]
            if not marked:
                raise CodecError("valueOutOfRange")
        for k in marked:
            t, values = entities[survivors[k]]
            fields = types[t][1]
            mask = r.u(len(fields))
            if mask == 0:
                raise CodecError("valueOutOfRange")
            for f, (_, kind) in enumerate(fields):
                if not mask >> f & 1:
                    continue
                if kind.tag == "text":
                    values[f] = read_text(r, kind)
                    continue
                if kind.delta_mode is not None and r.bool():
                    d = unzigzag(r.gamma())
                    if kind.delta_mode == "wrapping":
                        values[f] = (values[f] + d) % (1 << kind.width)
                    else:
                        values[f] += d
                        if not 0 <= values[f] <= kind.max_q:
                            raise CodecError("valueOutOfRange")
                else:
                    q = r.u(kind.width)
                    if q > kind.max_q:
                        raise CodecError("valueOutOfRange")
                    values[f] = q
    if r.bool():
        if read_entities(entities, len(entities)) < 1:
            raise CodecError("valueOutOfRange")
    r.finish()
    return tick, entities


# ---------------------------------------------------------------- vectors

def read_vector(name):
    meta, hexdigits = {}, ""
    entities = {}
    for line in open(os.path.join(VECTORS, name)):
        line = line.strip()
        if line.startswith("#"):
            body = line[1:].strip()
            key, _, value = body.partition(":")
            if key in ("schema", "coding", "baseline", "tick", "write", "error", "canonical", "limit"):
                meta.setdefault(key, []).append(value.strip())
            elif key == "entity":
                numbers = [parse_token(x) for x in value.split()]
                entities[numbers[0]] = (numbers[1], numbers[2:])
        else:
            hexdigits += "".join(line.split())
    return meta, entities, bytes.fromhex(hexdigits)


def vector_snapshot(name):
    meta, entities, _ = read_vector(name)
    return int(meta["tick"][0]), entities


def write_vector(name, description, schema, tick, entities, baseline_name=None):
    types = SCHEMAS[schema]
    baseline = vector_snapshot(baseline_name) if baseline_name else None
    data = encode(types, tick, entities, baseline)
    assert decode(types, data, baseline) == (tick, entities)
    lines = ["# " + line for line in description.strip().splitlines()]
    lines.append(f"# schema: {schema}")
    lines.append(f"# baseline: {baseline_name or 'none'}")
    lines.append(f"# tick: {tick}")
    for i in sorted(entities):
        t, values = entities[i]
        lines.append(f"# entity: {i} {t} " + " ".join(value_token(v) for v in values))
    hexed = data.hex()
    for start in range(0, len(hexed), 64):
        lines.append(" ".join(hexed[k:k + 2] for k in range(start, min(start + 64, len(hexed)), 2)))
    with open(os.path.join(VECTORS, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def check():
    failures = 0
    for name in sorted(os.listdir(VECTORS)):
        if not name.endswith(".hex") or not (name.startswith("delta-") or name.startswith("bits-")):
            continue
        meta, entities, data = read_vector(name)
        if name.startswith("bits-"):
            w = BitWriter()
            for op in meta["write"]:
                kind, value = op.split()
                write_op(w, kind, int(value, 0))
            ok = w.bytes() == data
        elif "error" in meta:
            types = SCHEMAS[meta["schema"][0]]
            base_name = meta["baseline"][0]
            baseline = vector_snapshot(base_name) if base_name != "none" else None
            limits = dict(limit.split() for limit in meta.get("limit", []))
            try:
                decode(types, data, baseline, max_encoded_bytes=int(limits.get("maxEncodedBytes", 4 << 20)))
                ok = False
            except CodecError as error:
                ok = str(error) == meta["error"][0]
        else:
            types = SCHEMAS[meta["schema"][0]]
            base_name = meta["baseline"][0]
            baseline = vector_snapshot(base_name) if base_name != "none" else None
            tick = int(meta["tick"][0])
            ok = decode(types, data, baseline) == (tick, entities) and encode(types, tick, entities, baseline) == data
        print(("ok   " if ok else "FAIL ") + name)
        failures += not ok
    return failures


def generate():
    arena = {1: (0, [32768 + 640, 32768 - 320, 256, 100, 1]),
             2: (0, [32768, 32768, 0, 75, 0]),
             7: (0, [1000, 65535, 1023, 3, 7])}
    write_vector("delta-01-arena-full.hex", """
A full snapshot (no baseline) of the arena schema (PROTOCOL.md §8.1): tick 100, entities 1, 2 and 7.
Entity values are quantized: x, y (16 bits), heading (10), health (7), state (3).""", "arena", 100, arena)
    moved = dict(arena)
    moved[1] = (0, [32768 + 640 + 16, 32768 - 320 - 5, 260, 100, 1])   # moved a quarter unit, turned
    moved[2] = (0, [32768, 32768, 0, 37, 0])                          # health 75 -> 37
    del moved[7]                                                       # destroyed
    moved[9] = (0, [40000, 20000, 512, 100, 2])                        # created
    write_vector("delta-02-arena-delta.hex", """
A delta of the arena schema (PROTOCOL.md §8.1): tick 101 against tick 100 (delta-01).
Entity 1 moves (x +16, y -5, heading +4: small deltas), entity 2's health drops 75 -> 37
(sent whole: shorter than the delta), entity 7 is destroyed and entity 9 created.""", "arena", 101, moved, "delta-01-arena-full.hex")
    write_vector("delta-03-arena-idle.hex", """
An unchanged world: tick 102 against tick 101 (delta-02), nothing changed: three bytes.""",
                 "arena", 102, moved, "delta-02-arena-delta.hex")
    mixed = {}
    for n in range(24):
        i = n * 3 + (n % 2)
        t = n % 3
        if t == 0:
            mixed[i] = (0, [n % 2, (n * 97) % 2001, n % 3])
        elif t == 1:
            mixed[i] = (1, [])
        else:
            mixed[i] = (2, [(n * 37) % 256, (n * 0x9E3779B97F4A7C15) % (1 << 64), n % 11])
    mixed[4294967295] = (2, [255, (1 << 64) - 1, 10])
    write_vector("delta-04-mixed-full.hex", """
A full snapshot of the mixed schema (three types, one with no fields; bool, integer, enumeration,
angle, a 64-bit integer, float): tick 4294967294, 25 entities, the last with the largest id.""",
                 "mixed", 4294967294, mixed)
    later = {i: (t, list(v)) for i, (t, v) in mixed.items()}
    later[6] = (2, [later[6][1][0], later[6][1][1], 3])     # level 2 -> 3: a delta of +1
    later[4294967295] = (2, [0, 0, 10])                     # turn 255 -> 0 wraps (+1); wide sent whole
    del later[10]                                           # destroyed
    later[18] = (1, [])                                     # was type 0: destroyed and created again as type 1
    later[100] = (0, [1, 0, 2])                             # created
    write_vector("delta-05-mixed-delta.hex", """
A delta of the mixed schema across the tick wrap: tick 1 against tick 4294967294 (delta-04, age 3).
Entities 6 (level +1, a delta) and 4294967295 (turn 255 -> 0 wraps: a delta of +1; wide sent whole)
change: list mode, cheaper than a bit per survivor. Entity 10 is destroyed, entity 18 changes type
(sent as destroyed and created), entity 100 is created.""", "mixed", 1, later, "delta-04-mixed-full.hex")
    generate_errors()
    # Bits: one of each primitive, at odd alignments.
    ops = [("u3", 5), ("bool", 1), ("u12", 0xABC), ("varint", 300), ("gamma", 5), ("signed7", -3),
           ("u64", 0x0123456789ABCDEF), ("gamma", 1), ("varint", 0), ("u1", 1)]
    w = BitWriter()
    for kind, value in ops:
        write_op(w, kind, value)
    lines = ["# Bit stream primitives (PROTOCOL.md §2.2), written in order, least significant bit first.",
             "# Each '# write:' line is one write; the hex is the stream, zero-padded to a byte."]
    lines += [f"# write: {kind} {value}" for kind, value in ops]
    lines.append(" ".join(f"{b:02x}" for b in w.bytes()))
    with open(os.path.join(VECTORS, "bits-primitives.hex"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_error_vector(name, description, schema, baseline_name, error, data, limits=()):
    lines = ["# " + line for line in description.strip().splitlines()]
    lines += [f"# schema: {schema}", f"# baseline: {baseline_name or 'none'}"]
    lines += [f"# limit: {limit}" for limit in limits] + [f"# error: {error}"]
    lines.append(" ".join(f"{b:02x}" for b in data))
    with open(os.path.join(VECTORS, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def generate_errors():
    base01 = "delta-01-arena-full.hex"

    def delta_header(tick=101, age=1):
        w = BitWriter()
        w.varint(tick)
        w.bool(True)
        w.varint(age)
        return w

    _, _, delta02 = read_vector("delta-02-arena-delta.hex")
    write_error_vector("delta-error-truncated.hex", """
delta-02 without its last byte: the created entity's fields run past the end.""",
                       "arena", base01, "truncated", delta02[:-1])
    _, _, delta03 = read_vector("delta-03-arena-idle.hex")
    write_error_vector("delta-error-trailing-data.hex", """
delta-03 (an idle delta) followed by one more byte: more than the padding follows the end.""",
                       "arena", "delta-02-arena-delta.hex", "trailingData", delta03 + b"\x00")
    write_error_vector("delta-error-malformed-varint.hex", """
A tick written as 80 00: a varint not in its shortest form.""", "arena", None, "malformedVarint", bytes([0x80, 0x00, 0x00]))
    w = delta_header(age=2)
    w.bool(False); w.bool(False); w.bool(False)
    write_error_vector("delta-error-baseline-mismatch.hex", """
A delta of tick 101 against tick 99 (age 2), decoded with delta-01 (tick 100) as the baseline.""",
                       "arena", base01, "baselineMismatch", w.bytes())
    w = delta_header()
    w.bool(True); w.varint(1); w.varint(5)
    w.bool(False); w.bool(False)
    write_error_vector("delta-error-unknown-entity.hex", """
A delta against delta-01 destroying entity 5, which the baseline does not hold.""",
                       "arena", base01, "unknownEntity", w.bytes())
    w = delta_header()
    w.bool(False); w.bool(False)
    w.bool(True); w.varint(1); w.varint(2)
    for q, width in [(0, 16), (0, 16), (0, 10), (0, 7), (0, 3)]:
        w.u(q, width)
    write_error_vector("delta-error-duplicate-entity.hex", """
A delta against delta-01 creating entity 2, which survives from the baseline.""",
                       "arena", base01, "duplicateEntity", w.bytes())
    w = delta_header()
    w.bool(False); w.bool(False)
    w.bool(True); w.varint(2); w.varint(2)
    for q, width in [(0, 16), (0, 16), (0, 10), (0, 7), (0, 3)]:
        w.u(q, width)
    w.varint(6); w.u(0, 16)
    write_error_vector("delta-error-order-duplicate-before-truncated.hex", """
A delta against delta-01 creating entities 2 and 9, cut inside entity 9's fields: entity 2 survives from
the baseline, but a decoder checks the created ids against the survivors only once the whole created
list is read (4.2), so the error is truncated, not duplicateEntity.""",
                       "arena", base01, "truncated", w.bytes())
    w = delta_header()
    w.bool(False); w.bool(False)
    w.bool(True); w.varint(1); w.varint(2)
    for q, width in [(0, 16), (0, 16), (0, 10), (0, 7), (0, 3)]:
        w.u(q, width)
    write_error_vector("delta-error-order-duplicate-before-trailing.hex", """
delta-error-duplicate-entity with a byte 00 after it: the created list is checked before the end of the
encoding (4.2), so the error is duplicateEntity, not trailingData.""",
                       "arena", base01, "duplicateEntity", w.bytes() + b"\x00")
    w = delta_header()
    w.bool(False)
    w.bool(True); w.bool(False); w.u(0b100, 3)   # mask mode: survivor 2 (entity 7) changed
    w.u(1 << 3, 5); w.bool(False); w.u(101, 7)   # health sent whole as 101
    w.bool(False)
    write_error_vector("delta-error-value-out-of-range.hex", """
A delta against delta-01 setting entity 7's health (integer 0...100) to 101.""",
                       "arena", base01, "valueOutOfRange", w.bytes())
    w = delta_header()
    w.bool(False)
    w.bool(True); w.bool(True); w.varint(1); w.gamma(4)   # list mode: index 3 of 3 survivors
    w.u(1, 5); w.bool(False); w.u(0, 16)
    w.bool(False)
    write_error_vector("delta-error-entity-index-out-of-range.hex", """
A delta against delta-01 marking survivor index 3 as changed; there are only three (0...2).""",
                       "arena", base01, "entityIndexOutOfRange", w.bytes())
    w = BitWriter()
    w.varint(7); w.bool(False); w.varint(1); w.varint(0); w.u(3, 2)
    write_error_vector("delta-error-unknown-entity-type.hex", """
A whole snapshot of the mixed schema (three types, 2-bit type indices) with type index 3.""",
                       "mixed", None, "unknownEntityType", w.bytes())
    w = delta_header()
    w.bool(False)
    w.bool(True); w.bool(True); w.varint(1)      # list mode, one index: its gamma gap follows
    w.u(0, 8 - len(w.bits) % 8 + 40)             # 44 zero bits to the end: no 1 bit, fewer than 64 zeros
    write_error_vector("delta-error-gamma-truncated.hex", """
A delta against delta-01 whose list index gap (a gamma code) is cut inside its leading zeros: the
stream ends after 44 zero bits, before the 64th that would make it malformed.""",
                       "arena", base01, "truncated", w.bytes())
    w = delta_header()
    w.bool(False)
    w.bool(True); w.bool(True); w.varint(1)
    w.u(0, 64); w.bool(True); w.u(0, 64)          # 64 leading zeros, then what would be the rest
    write_error_vector("delta-error-malformed-gamma.hex", """
A delta against delta-01 whose list index gap (a gamma code) has 64 leading zero bits: refused at
the 64th zero, whatever follows.""",
                       "arena", base01, "malformedGammaCode", w.bytes())
    w = BitWriter()
    w.varint(7); w.bool(False); w.varint(65537)
    write_error_vector("delta-error-too-many-entities.hex", """
A whole snapshot announcing 65537 entities, one more than the protocol's limit.""",
                       "arena", None, "tooManyEntities", w.bytes())
    write_error_vector("delta-error-baseline-missing.hex", """
delta-02 (a delta of tick 101 against tick 100) decoded with no baseline.""",
                       "arena", None, "baselineMissing", delta02)
    _, _, delta01 = read_vector(base01)
    write_error_vector("delta-error-input-too-large.hex", """
delta-01 (a whole snapshot of 25 bytes) decoded by a decoder whose encoded snapshot size limit
(7.1, configurable) is lowered to 24 bytes, as its `# limit:` line says: refused before decoding.""",
                       "arena", None, "inputTooLarge", delta01, limits=["maxEncodedBytes 24"])


NAMED_FULL = {
    1: (0, [10, "Ann".encode(), 1, b""]),
    2: (0, [200, "Zoë 日本".encode(), 0, "ok 🙂".encode()]),                 # 2-, 3- and 4-byte characters
    3: (1, [7]),
    5: (0, [0, b"", 1, b""]),                                                   # empty texts
    6: (0, [255, "sixteen-bytes-ok".encode(), 1, ("m" * 63 + "!").encode()]),   # both texts at their bounds
}


def named_delta():
    """delta-07's snapshot: texts change only where they are sent."""
    later = {i: (t, list(v)) for i, (t, v) in NAMED_FULL.items()}
    later[1] = (0, [11, "Ann".encode(), 1, b""])            # x moves, the name stays: not sent
    later[2] = (0, [200, "Zoë".encode(), 0, "ok 🙂".encode()])  # only the name changes
    later[5] = (0, [0, "Eve".encode(), 1, b""])            # an empty name filled
    later[6] = (0, [255, b"", 1, ("m" * 63 + "!").encode()])  # a name emptied
    del later[3]
    later[9] = (0, [1, "Bo".encode(), 0, "hi".encode()])    # created with its texts
    return later


def generate_text():
    """The text field's vectors (protocol 1.2, PROTOCOL.md 3.2 and 4.1)."""
    write_vector("delta-06-named-full.hex", """
A full snapshot of the named schema (PROTOCOL.md 3.2, protocol 1.2: text fields): each player's name
(text of at most 16 bytes) and motto (at most 64) travel as a length in 5 or 7 bits, then bytes.
Entity 2 holds 2-, 3- and 4-byte characters, entity 5 empty texts, entity 6 texts at their bounds
(16 and 64 bytes). On `# entity:` lines a text is t: and its UTF-8 bytes in hex.""", "named", 500, NAMED_FULL)
    write_vector("delta-07-named-delta.hex", """
A delta of the named schema against delta-06: entity 1 moves with its name unchanged (not sent),
entity 2 changes its name only, entity 5's empty name is filled, entity 6's name emptied, entity 3
destroyed and entity 9 created with its texts.""", "named", 501, named_delta(), "delta-06-named-full.hex")
    base = "delta-06-named-full.hex"

    def delta_header():
        w = BitWriter()
        w.varint(501); w.bool(True); w.varint(1)
        w.bool(False)                      # nothing destroyed
        w.bool(True); w.bool(False)        # changed, mask mode over the 5 survivors
        for k in range(5):
            w.bool(k == 0)                 # survivor 0: entity 1
        w.u(0b0010, 4)                     # its name changes
        return w

    w = delta_header()
    w.u(17, 5)
    for b in b"seventeen-bytes!!":
        w.u(b, 8)
    w.bool(False)
    write_error_vector("delta-error-text-too-long.hex", """
A delta against delta-06 setting entity 1's name (text of at most 16 bytes) to 17 bytes: refused as
the length is read, before any byte.""", "named", base, "valueOutOfRange", w.bytes())
    w = delta_header()
    w.u(2, 5); w.u(0xC0, 8); w.u(0x80, 8)   # an overlong form of U+0000
    w.bool(False)
    write_error_vector("delta-error-text-invalid-utf8.hex", """
A delta against delta-06 setting entity 1's name to the bytes c0 80 (an overlong form): not UTF-8.""",
                       "named", base, "invalidUTF8", w.bytes())
    w = delta_header()
    w.u(16, 5)
    for b in b"only-ten!!":
        w.u(b, 8)
    write_error_vector("delta-error-text-truncated.hex", """
A delta against delta-06 setting entity 1's name to 16 bytes, cut after 10 of them.""",
                       "named", base, "truncated", w.bytes())
    w = BitWriter()
    w.varint(500); w.bool(False); w.varint(1); w.varint(1); w.u(0, 1)
    w.u(0, 8); w.u(0, 5); w.bool(True); w.u(65, 7)
    write_error_vector("delta-error-text-over-largest.hex", """
A whole snapshot of the named schema whose player motto (text of at most 64 bytes, the largest
bound) declares 65 bytes: refused at the length.""", "named", None, "valueOutOfRange", w.bytes())


if __name__ == "__main__":
    if "--generate" in sys.argv:
        generate()
        generate_text()
    elif "--generate-text" in sys.argv:
        generate_text()
    sys.exit(1 if check() else 0)
