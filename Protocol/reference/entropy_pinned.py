"""The vectors of protocol 1.1 that pin each reading of PROTOCOL.md §4.5 and §4.5.6 (issue #33).

Called by `entropy_codec.py --generate`. Each vector either decodes and re-encodes byte for byte or
is refused with the error the document names; the hand-built ones write their symbols here, step by
step, with the models and coder of entropy_codec.py.
"""
from snapshot_codec import SCHEMAS, BitWriter, CodecError
from entropy_codec import (
    ESCAPED, F_BUCKET, F_CHANGED, F_SIGN, G_CHANGED, G_COUNT, G_DESTROYED_COUNT, G_GAP, G_TYPE,
    G_DESTROYED_GAP, G_HAS_CHANGED, G_HAS_CREATED, G_HAS_DESTROYED, Models, RangeEncoder, bucket_bits, encode_integer,
    F_CHANGED_P, F_ESCAPE, F_MOTION_SIGN, F_WHOLE, RangeDecoder, decode, encode, read_vector, snapshot_of, write_error_vector, write_vector,
    write_vector_bytes)

P = "predictedEntropy"
BASE01 = "delta-01-arena-full.hex"


def header(tick, age=None, predicted=None, empty=False):
    """The header of §4.5.1 (age None: a whole snapshot; predicted None: the coding of §4.5.4)."""
    w = BitWriter()
    w.varint(tick)
    w.bool(age is not None)
    if age is not None:
        w.varint(age)
        if predicted is not None:
            w.bool(predicted)
    w.bool(empty)
    return w


def hand_built(schema, symbols, tick=101, age=1, predicted=None, cut=0):
    """A snapshot whose payload holds what `symbols(rc, m)` codes, flushed, less its last `cut` bytes."""
    rc, m = RangeEncoder(), Models(SCHEMAS[schema])
    symbols(rc, m)
    data = header(tick, age, predicted).bytes() + rc.finish()
    return data[:len(data) - cut]


def changed_entity_7_health(rc, m):
    """Against delta-01: no destroyed; survivors 1 and 2 unchanged, 7 changed, its first changed field health."""
    rc.bit(0, m.p, G_HAS_DESTROYED)
    rc.bit(1, m.p, G_HAS_CHANGED)
    rc.bit(0, m.p, G_CHANGED + 0); rc.bit(0, m.p, G_CHANGED + 0); rc.bit(1, m.p, G_CHANGED + 0)
    for f in range(3):
        rc.bit(0, m.p, m.field(0, f) + F_CHANGED)
    rc.bit(1, m.p, m.field(0, 3) + F_CHANGED)


def whole_zeros(rc, m, t, schema="arena"):
    """W_f(0) for each field of type `t` (§4.5.3)."""
    for f, (_, kind) in enumerate(SCHEMAS[schema][t][1]):
        if kind.width <= 8:
            rc.tree(0, kind.width, m.p, m.field(t, f) + F_WHOLE)
        else:
            rc.raw(0, kind.width)


def generate_pinned():
    types = SCHEMAS["arena"]

    # §4.5.4 step 1 and §4.2: a destroyed count above the baseline's is tooManyEntities in both codings.
    def destroy_four(rc, m):
        rc.bit(1, m.p, G_HAS_DESTROYED)
        encode_integer(rc, m, 3, G_DESTROYED_COUNT)
        for _ in range(4):
            encode_integer(rc, m, 0, G_DESTROYED_GAP)
        rc.bit(0, m.p, G_HAS_CHANGED)
        rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-destroyed-count.hex", """
A delta against delta-01 (three entities) destroying four: more than the baseline holds, refused at the
count (before any gap) with tooManyEntities, as in the bit-packed coding (PROTOCOL.md 4.2).""",
                       "arena", BASE01, "tooManyEntities", hand_built("arena", destroy_four))

    # §4.5.3: an integer code's bucket above 32 is refused as the tree is read.
    def count_bucket_33(rc, m):
        rc.tree(33, 6, m.p, G_COUNT)
        rc.raw(0, 33)
    write_error_vector("entropy-error-integer-bucket.hex", """
A whole snapshot whose entity count is an integer code with bucket k = 33: no value below 2^32 has it,
refused (valueOutOfRange) when the 6-bit tree is read, before its raw bits.""",
                       "arena", None, "valueOutOfRange", hand_built("arena", count_bucket_33, tick=7, age=None))

    # §4.5.3: a bucket of 32 carries values up to 2^33 - 2; the use of the value refuses them.
    def id_past_32_bits(rc, m):
        encode_integer(rc, m, 1, G_COUNT)
        encode_integer(rc, m, 1 << 32, G_GAP)
        whole_zeros(rc, m, 0)
    write_error_vector("entropy-error-entity-id-out-of-range.hex", """
A whole snapshot of one entity whose id gap is 2^32 (an integer code of bucket 32, which the code itself
accepts): the id passes 2^32 - 1, refused by its use (entityIDOutOfRange), not by the integer code.""",
                       "arena", None, "entityIDOutOfRange", hand_built("arena", id_past_32_bits, tick=7, age=None))

    # §4.5.4: an unescaped bucket at or past a 5...7-bit field's width is refused when applied, after its
    # raw bits: cut inside them, the payload runs out first (the cut vector below).
    def health_bucket_7(rc, m):
        changed_entity_7_health(rc, m)
        fb = m.field(0, 3)
        rc.bit(0, m.p, fb + F_SIGN)
        rc.tree(ESCAPED, bucket_bits(7), m.p, fb + F_BUCKET)

    def health_bucket_7_whole(rc, m):
        health_bucket_7(rc, m)
        rc.raw(0, 7)
        rc.bit(0, m.p, m.field(0, 4) + F_CHANGED + 2)
        rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-bucket-unescaped.hex", """
entropy-error-bucket-unescaped-truncated with the bucket's raw bits and the rest of the delta: the
magnitude 128 leaves the health's 0...100 when applied (valueOutOfRange).""",
                       "arena", BASE01, "valueOutOfRange", hand_built("arena", health_bucket_7_whole))
    write_error_vector("entropy-error-bucket-unescaped-truncated.hex", """
entropy-error-bucket-unescaped without its last byte. Bucket 7 of entity 7's health (7 bits wide)
still decodes, and the payload runs out inside its raw bits: truncated, because an unescaped bucket is
not refused when read (a decoder refusing it there would say valueOutOfRange).""",
                       "arena", BASE01, "truncated", hand_built("arena", health_bucket_7_whole, cut=1))

    # §4.5.6: age 0 (the baseline has the snapshot's own tick) does not predict, and its motion spans 0.
    s08 = snapshot_of("entropy-08-arena-predicted.hex")[1]
    s18 = {i: (t, list(v)) for i, (t, v) in s08.items()}
    s18[1] = (0, [33441, 32438, 260, 100, 1])
    d18 = write_vector("entropy-18-arena-age-zero.hex", """
Tick 102 against entropy-08, itself tick 102: baseline age 0, allowed, but it never predicts (predicted 0).
Entity 1 x +1. The motion kept with it spans 0, so no snapshot coded against it predicts either.""",
                       "arena", 102, s18, "entropy-08-arena-predicted.hex", P)
    s19 = {i: (t, list(v)) for i, (t, v) in s18.items()}
    s19[1] = (0, [33442, 32438, 260, 100, 1])
    write_vector("entropy-19-arena-after-span-zero.hex", """
Tick 103 against entropy-18 (age 1), whose motion spans 0: predicted 0. Entity 1 x +1.""",
                 "arena", 103, s19, "entropy-18-arena-age-zero.hex", P)
    assert d18[:3] == header(102, 0, False).bytes()
    write_error_vector("entropy-error-predicted-age-zero.hex", """
entropy-18 (age 0) with its predicted bit set: a prediction needs an age in 1...255 (valueOutOfRange).""",
                       "arena", "entropy-08-arena-predicted.hex", "valueOutOfRange",
                       header(102, 0, True).bytes() + d18[3:], P)


def raised_in(function, call):
    """The error `call()` raises and whether it came from a function named `function`, or (None, False)."""
    import traceback
    try:
        call()
    except CodecError as error:
        names = [frame.name for frame in traceback.extract_tb(error.__traceback__)]
        return str(error), function in names
    return None, False


def encode_with_bad_chunk(types, tick, entities, target):
    """The whole snapshot coded up to raw chunk number `target`, which gets the value 2^chunk, then
    flushed; None when that chunk's range leaves no room for it (a multiple of 2^chunk)."""
    import entropy_codec
    state = {"chunks": 0, "stopped": False, "room": False}

    class BadChunk(RangeEncoder):
        def bit(self, bit, models, index):
            if not state["stopped"]:
                super().bit(bit, models, index)

        def raw(self, value, count):
            while count > 0 and not state["stopped"]:
                chunk = min(count, 8)
                count -= chunk
                if state["chunks"] == target:
                    whole = self.range
                    self.range >>= chunk
                    self.low += self.range << chunk
                    self.range = whole - (self.range << chunk)
                    state["stopped"], state["room"] = True, self.range != 0
                    if self.range:
                        self._normalize()
                    return
                state["chunks"] += 1
                self.range >>= chunk
                self.low += self.range * ((value >> count) & ((1 << chunk) - 1))
                self._normalize()

    entropy_codec.RangeEncoder = BadChunk
    try:
        data = entropy_codec.encode(types, tick, entities)
    finally:
        entropy_codec.RangeEncoder = RangeEncoder
    return data if state["room"] else None


def generate_range_code():
    """Every form of malformedRangeCode (§4.5.1, §4.5.2)."""
    types = SCHEMAS["arena"]
    base = snapshot_of(BASE01)
    _, _, e02 = read_vector("entropy-02-arena-delta.hex")
    write_error_vector("entropy-error-padding.hex", """
entropy-02 with the last padding bit of its header (bit 7 of byte 2) set: malformedRangeCode.""",
                       "arena", BASE01, "malformedRangeCode", e02[:2] + bytes([e02[2] | 0x80]) + e02[3:])
    write_error_vector("entropy-error-range-code-start.hex", """
entropy-02 with the first four payload bytes FF FF FF FF: an initial code no encoder writes, refused
before any symbol is decoded (malformedRangeCode).""",
                       "arena", BASE01, "malformedRangeCode", e02[:3] + b"\xff" * 4 + e02[7:])
    # A raw (direct) symbol whose value does not fit its bits: entropy-03's snapshot coded up to its first
    # raw chunk whose range is not a multiple of 2^chunk, where the encoder writes the value 2^chunk (it
    # lands in the sliver of the range below the one no chunk-bit value reaches), then flushed.
    meta, entities03, _ = read_vector("entropy-03-mixed-full.hex")
    direct = None
    for target in range(200):
        data = encode_with_bad_chunk(SCHEMAS["mixed"], int(meta["tick"][0]), entities03, target)
        if data is None:
            continue
        error, in_raw = raised_in("raw", lambda: decode(SCHEMAS["mixed"], data))
        if error == "malformedRangeCode" and in_raw:
            direct = data
            break
    write_error_vector("entropy-error-range-code-direct.hex", """
entropy-03's whole snapshot, coded up to a raw chunk of k bits whose value decodes to 2^k or more
(v = code div range does not fit the chunk; no encoder writes it), then flushed: malformedRangeCode.""",
                       "mixed", None, "malformedRangeCode", direct)
    # The code not back at 0 at the end (protocol 1.1): a single-byte change of entropy-02's last four
    # bytes that, without that check, decodes to entropy-02's own snapshot.
    expected = decode(types, e02, base)
    finish = RangeDecoder.finish
    end = None
    for position in range(len(e02) - 4, len(e02)):
        for value in range(256):
            data = e02[:position] + bytes([value]) + e02[position + 1:]
            if data == e02:
                continue
            RangeDecoder.finish = lambda self: None if self.pos == len(self.data) else finish(self)
            try:
                same = decode(types, data, base) == expected
            except CodecError:
                same = False
            finally:
                RangeDecoder.finish = finish
            if same:
                end = data
                break
        if end:
            break
    write_error_vector("entropy-error-range-code-end.hex", """
entropy-02 with one of its last four bytes changed: every symbol decodes as in entropy-02 and every byte
is read, but the decoder's code does not end at 0, as it does for every payload an encoder writes
(protocol 1.1): malformedRangeCode.""",
                       "arena", BASE01, "malformedRangeCode", end)


def changed_section(rc, m, schema, baseline, changed_fields):
    """Step 2 of §4.5.4 against `baseline`'s entities (no destroyed): hasChanged 1, each survivor's changed
    bit in its context, and for each id in `changed_fields` its field changes, written by the function."""
    rc.bit(1, m.p, G_HAS_CHANGED)
    h = 0
    for i in sorted(baseline):
        t, values = baseline[i]
        a = m.active(t, values)
        c = int(i in changed_fields)
        rc.bit(c, m.p, G_CHANGED + h + 4 * a)
        h = (2 * h + c) % 4
        if c:
            changed_fields[i](rc, m, t, a)


def generate_canonical():
    """Protocol 1.1 refuses the non-canonical forms that decoded (§4.5.4, §4.5.6), and accepts an entity
    destroyed and created again with its type, counting its motion."""
    arena, mixed = SCHEMAS["arena"], SCHEMAS["mixed"]
    base01 = snapshot_of(BASE01)

    def empty_whole(rc, m):
        encode_integer(rc, m, 0, G_COUNT)
    write_error_vector("entropy-error-empty-whole-payload.hex", """
A whole snapshot with isEmpty 0 whose payload codes a count of 0 entities: an encoder sets isEmpty 1
for it instead (protocol 1.1: valueOutOfRange).""",
                       "arena", None, "valueOutOfRange", hand_built("arena", empty_whole, tick=7, age=None))

    def no_sections(rc, m):
        for flag in (G_HAS_DESTROYED, G_HAS_CHANGED, G_HAS_CREATED):
            rc.bit(0, m.p, flag)
    write_error_vector("entropy-error-empty-delta-payload.hex", """
A delta against delta-01 with isEmpty 0 whose payload has its three section flags 0: it changes nothing,
and an encoder sets isEmpty 1 for it instead (protocol 1.1: valueOutOfRange).""",
                       "arena", BASE01, "valueOutOfRange", hand_built("arena", no_sections))

    def no_changed_entity(rc, m):
        rc.bit(0, m.p, G_HAS_DESTROYED)
        changed_section(rc, m, "arena", base01[1], {})
        rc.bit(1, m.p, G_HAS_CREATED)
        encode_integer(rc, m, 0, G_COUNT)
        encode_integer(rc, m, 9, G_GAP)
        whole_zeros(rc, m, 0)
    write_error_vector("entropy-error-no-changed-entity.hex", """
A delta against delta-01 with hasChanged 1 and every survivor's changed bit 0 (then entity 9 created):
the section must change something (valueOutOfRange).""",
                       "arena", BASE01, "valueOutOfRange", hand_built("arena", no_changed_entity))

    base04 = snapshot_of("delta-04-mixed-full.hex")

    def fieldless_changed(rc, m):
        rc.bit(0, m.p, G_HAS_DESTROYED)
        changed_section(rc, m, "mixed", base04[1], {4: lambda rc, m, t, a: None})
        rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-changed-without-fields.hex", """
A delta against delta-04 (mixed schema) marking entity 4, of type b (no fields), changed: it has nothing to
change, as 4.2 refuses an empty field mask (protocol 1.1: valueOutOfRange).""",
                       "mixed", "delta-04-mixed-full.hex", "valueOutOfRange",
                       hand_built("mixed", fieldless_changed, tick=base04[0] + 1))

    # A half turn of a wrapping field is -2^(width-1): entity 2's heading 0 -> 512 (10 bits).
    half = {i: (t, list(v)) for i, (t, v) in base01[1].items()}
    half[2] = (0, [32768, 32768, 512, 75, 0])
    write_vector("entropy-20-arena-half-turn.hex", """
Entity 2's heading (angle, 10 bits) turns half a turn against delta-01, 0 -> 512: the centred delta is
-512 (sign 1), never +512.""", "arena", 101, half, BASE01)

    def heading(sign):
        def fields(rc, m, t, a):
            for f in range(2):
                rc.bit(0, m.p, m.field(t, f) + F_CHANGED + (1 if f else 0) + 3 * a)
            fb = m.field(t, 2)
            rc.bit(1, m.p, fb + F_CHANGED + 1 + 3 * a)
            rc.bit(sign, m.p, fb + F_SIGN)
            rc.tree(ESCAPED, bucket_bits(10), m.p, fb + F_BUCKET)
            rc.tree(9 - ESCAPED, 2, m.p, fb + F_ESCAPE)
            rc.raw(0, 9)
            rc.bit(0, m.p, m.field(t, 3) + F_CHANGED + 2 + 3 * a)
            rc.bit(0, m.p, m.field(t, 4) + F_CHANGED + 1 + 3 * a)
        return fields

    def half_turn(sign):
        def symbols(rc, m):
            rc.bit(0, m.p, G_HAS_DESTROYED)
            changed_section(rc, m, "arena", base01[1], {2: heading(sign)})
            rc.bit(0, m.p, G_HAS_CREATED)
        return symbols
    assert hand_built("arena", half_turn(1)) == read_vector("entropy-20-arena-half-turn.hex")[2]
    write_error_vector("entropy-error-half-turn-positive.hex", """
entropy-20 with the heading's sign bit 0: +512, a half turn written with the sign no encoder gives it
(deltas are centred, -512...511; protocol 1.1: valueOutOfRange).""",
                       "arena", BASE01, "valueOutOfRange", hand_built("arena", half_turn(0)))

    # predicted = 0 where an encoder writes 1: entropy-08's snapshot, its header's bit cleared and its
    # payload that of §4.5.4.
    s07 = snapshot_of("entropy-07-arena-motion-start.hex")
    s08 = snapshot_of("entropy-08-arena-predicted.hex")
    plain = encode(arena, 102, s08[1], s07)
    write_error_vector("entropy-error-predicted-zero.hex", """
entropy-08's snapshot with predicted 0 (its payload that of 4.5.4): age 1 and a span of 1 predict, so an
encoder writes 1; protocol 1.1 refuses the 0 (valueOutOfRange), once the baseline's motion is known.""",
                       "arena", "entropy-07-arena-motion-start.hex", "valueOutOfRange",
                       header(102, 1, False).bytes() + plain[3:], P)

    # A changed entity that decodes to its baseline: entity 1 against entropy-08 (motion +16, -5), each
    # predicted value changed by the residual that brings it back.
    def back_to_old(rc, m, t, a):
        x, y = m.field(t, 0), m.field(t, 1)
        rc.bit(1, m.p, x + F_CHANGED_P + 0 + 3 * a + 6)
        rc.bit(1, m.p, x + F_MOTION_SIGN + 0)       # under positive motion, a negative residual: -16
        rc.tree(4, bucket_bits(16), m.p, x + F_BUCKET)
        rc.raw(0, 4)
        rc.bit(1, m.p, y + F_CHANGED_P + 2 + 3 * a + 6)
        rc.bit(0, m.p, y + F_MOTION_SIGN + 1)       # under negative motion, a positive residual: +5
        rc.tree(2, bucket_bits(16), m.p, y + F_BUCKET)
        rc.raw(1, 2)
        for f, state in ((2, 2), (3, 1), (4, 1)):
            rc.bit(0, m.p, m.field(t, f) + F_CHANGED_P + state + 3 * a)

    def unchanged_entity(rc, m):
        rc.bit(0, m.p, G_HAS_DESTROYED)
        changed_section(rc, m, "arena", s08[1], {1: back_to_old})
        rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-changed-equal-baseline.hex", """
A predicted delta against entropy-08 (tick 103, age 1) marking entity 1 changed, whose x and y residuals
(-16 and +5) undo its predicted motion (+16, -5): it decodes to its baseline values, and an encoder marks
such an entity unchanged (protocol 1.1: valueOutOfRange).""",
                       "arena", "entropy-08-arena-predicted.hex", "valueOutOfRange",
                       hand_built("arena", unchanged_entity, tick=103, predicted=True), P)


def generate_order():
    """The order of the header's checks (§4.5.6): each vector breaks two rules, and the first is refused."""
    _, _, e02 = read_vector("entropy-02-arena-delta.hex")
    _, _, e06 = read_vector("entropy-06-arena-idle.hex")
    _, _, empty_predicted = read_vector("entropy-error-predicted-empty.hex")
    _, _, age256 = read_vector("entropy-error-predicted-age.hex")
    _, _, span256 = read_vector("entropy-error-predicted-span.hex")
    span_header = header(359, 1, True).bytes()   # four bytes: tick 359 takes two
    assert span256.startswith(span_header)
    write_error_vector("entropy-error-order-empty-before-padding.hex", """
entropy-error-predicted-empty (predicted 1 with isEmpty 1) with a padding bit of 1 as well: the predicted
bit is checked before the padding (valueOutOfRange, not malformedRangeCode).""",
                       "arena", "entropy-08-arena-predicted.hex", "valueOutOfRange",
                       empty_predicted[:-1] + bytes([empty_predicted[-1] | 0x80]), P)
    write_error_vector("entropy-error-order-age-before-baseline.hex", """
entropy-error-predicted-age (predicted 1 at age 256) decoded without a baseline: the age is checked
with the header, before the baseline is looked at (valueOutOfRange, not baselineMissing).""",
                       "arena", None, "valueOutOfRange", age256, P)
    write_error_vector("entropy-error-order-padding-before-baseline.hex", """
entropy-02 (against tick 100) with a padding bit of 1, decoded against delta-02 (tick 101): the padding is
checked before the baseline (malformedRangeCode, not baselineMismatch).""",
                       "arena", "delta-02-arena-delta.hex", "malformedRangeCode",
                       e02[:2] + bytes([e02[2] | 0x80]) + e02[3:])
    write_error_vector("entropy-error-order-baseline-before-span.hex", """
entropy-error-predicted-span (predicted 1 against entropy-14, whose motion spans 256) with its tick 360:
its baseline tick 359 is not entropy-14's 358. The baseline is checked before the span of its motion
(baselineMismatch, not valueOutOfRange).""",
                       "arena", "entropy-14-arena-age-256.hex", "baselineMismatch",
                       header(360, 1, True).bytes() + span256[len(span_header):], P)
    write_error_vector("entropy-error-order-baseline-before-trailing.hex", """
entropy-06 (an empty delta of tick 102 against 101) with a byte after its header, decoded against delta-01
(tick 100): the baseline is checked before an empty snapshot's trailing data (baselineMismatch, not
trailingData).""",
                       "arena", BASE01, "baselineMismatch", e06 + b"\0")


def generate_motion_cases():
    """§4.5.6's motion: kept from a snapshot coded with predicted 0, and counted for an entity destroyed
    and created again with its type (which no encoder writes and a decoder accepts)."""
    s15 = snapshot_of("entropy-15-arena-span-256.hex")
    s21 = {i: (t, list(v)) for i, (t, v) in s15[1].items()}
    s21[1] = (0, [37540, 31163, 260, 100, 1])
    s21[2] = (0, [58703, 31997, 1020, 75, 0])
    write_vector("entropy-21-arena-after-unpredicted.hex", """
Tick 360 against entropy-15, which was coded with predicted 0 (its baseline's motion spanned 256) but
keeps its motion all the same (entity 1 x +10, span 1): predicted 1, entity 1 x as predicted (+10), and
entity 2 (no motion) x +3.""",
                 "arena", 360, s21, "entropy-15-arena-span-256.hex", P)
    # Entity 2 of entropy-08 destroyed and created again, same type, moved: a survivor for the motion.
    s08 = snapshot_of("entropy-08-arena-predicted.hex")
    s22 = {i: (t, list(v)) for i, (t, v) in s08[1].items()}
    s22[2] = (0, [33000, 32750, 1020, 75, 0])

    def recreate_2(rc, m):
        rc.bit(1, m.p, G_HAS_DESTROYED)
        encode_integer(rc, m, 0, G_DESTROYED_COUNT)
        encode_integer(rc, m, 1, G_DESTROYED_GAP)     # index 1 of 1, 2, 7, 9
        rc.bit(0, m.p, G_HAS_CHANGED)
        rc.bit(1, m.p, G_HAS_CREATED)
        encode_integer(rc, m, 0, G_COUNT)
        encode_integer(rc, m, 2, G_GAP)
        for f, ((_, kind), q) in enumerate(zip(SCHEMAS["arena"][0][1], s22[2][1])):
            if kind.width <= 8:
                rc.tree(q, kind.width, m.p, m.field(0, f) + F_WHOLE)
            else:
                rc.raw(q, kind.width)
    write_vector_bytes("entropy-22-arena-recreated.hex", """
Tick 103 against entropy-08 (age 1): entity 2 destroyed and created again with the same type, at x 33000
(+31), y 32750 (-12). No encoder writes this (it codes entity 2 as changed), but a decoder accepts it,
and entity 2 is still a survivor for the motion kept with the snapshot: (+31, -12) over span 1. These
bytes are not the encoder's (re-encoding gives the changed form).""",
                       "arena", 103, s22, "entropy-08-arena-predicted.hex",
                       hand_built("arena", recreate_2, tick=103, predicted=True), P)
    s23 = {i: (t, list(v)) for i, (t, v) in s22.items()}
    s23[2] = (0, [33031, 32738, 1020, 75, 0])
    write_vector("entropy-23-arena-after-recreated.hex", """
Tick 104 against entropy-22 (age 1): entity 2 moves exactly as the motion entropy-22 kept for it predicts
(+31, -12), so its field bits are all 0: a decoder that did not count the recreated entity's motion
decodes x 33000 and y 32750 instead.""",
                 "arena", 104, s23, "entropy-22-arena-recreated.hex", P)


class SplitMix64:
    """A seeded generator whose numbers do not depend on Python's `random` (the vectors stay stable)."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def busy_world(rng, count=64):
    """`count` entities of the busy schema, ids spread out, about one marker in four."""
    types, world, i = SCHEMAS["busy"], {}, 0
    for _ in range(count):
        i += 1 + rng.below(4)
        t = 1 if rng.below(4) == 0 else 0
        world[i] = (t, [rng.below(kind.max_q + 1) for _, kind in types[t][1]])
    return world


def busy_step(rng, world, motion=None, keep_motion=0):
    """The next busy world: most entities change (bools, the 1-bit integer and enumeration(2) flip, x moves,
    the 40-bit integer and the heading change), a few are destroyed and created; with `motion` (id -> the
    last step of x), `keep_motion` in 4 entities repeat their last x step exactly."""
    types = SCHEMAS["busy"]
    new = {}
    for i, (t, values) in world.items():
        if rng.below(20) == 0:
            continue   # destroyed
        values = list(values)
        if rng.below(10) != 0:   # changed
            for f, (_, kind) in enumerate(types[t][1]):
                roll = rng.below(4)
                if f == 2 and motion is not None and rng.below(4) < keep_motion:
                    values[f] = min(max(values[f] + motion.get(i, 0), 0), kind.max_q)
                elif kind.width == 1:
                    values[f] ^= int(roll == 0)
                elif f == 2 or roll == 0:
                    step = rng.below(41) - 20 if kind.width < 32 else rng.below(1 << 20) - (1 << 19)
                    values[f] = (values[f] + step) % (1 << kind.width) if kind.tag == "angle" \
                        else min(max(values[f] + step, 0), kind.max_q)
        new[i] = (t, values)
    top = max(world)
    for _ in range(3):   # created
        top += 1 + rng.below(3)
        t = rng.below(2)
        new[top] = (t, [rng.below(kind.max_q + 1) for _, kind in types[t][1]])
    return new


def carries(data_of):
    """How many times the encoder carries into pending 0xFF bytes while `data_of()` encodes."""
    import entropy_codec
    count = [0]

    class Counting(RangeEncoder):
        def _shift_low(self):
            if self.low >= 1 << 32 and self.cache_size > 1:
                count[0] += 1
            super()._shift_low()

    entropy_codec.RangeEncoder = Counting
    try:
        data_of()
    finally:
        entropy_codec.RangeEncoder = RangeEncoder
    return count[0]


def generate_busy():
    """Busy vectors (§4.5.5): many survivors, every context model used many times, in both codings; and
    a delta whose range coder carries into pending 0xFF bytes (§4.5.2)."""
    types = SCHEMAS["busy"]
    rng = SplitMix64(33)
    full = busy_world(rng)
    write_vector("entropy-24-busy-full.hex", """
A whole snapshot of the busy schema (PROTOCOL.md 4.5.5), tick 500: 64 entities of two types.""",
                 "busy", 500, full)
    delta = busy_step(rng, full)
    write_vector("entropy-25-busy-delta.hex", """
Tick 501 against entropy-24: most of the 64 entities change (both bools, the 1-bit integer and the
enumeration(2) flip, x moves in both types, the 40-bit integer and the heading change), a few are
destroyed and three created.""",
                 "busy", 501, delta, "entropy-24-busy-full.hex")
    start = busy_step(rng, full)
    write_vector("entropy-26-busy-motion-start.hex", """
The busy chain in the predicted coding: tick 501 against entropy-24 (a whole snapshot: zero motion).
Most entities change; their x steps are the motion entropy-27 predicts from.""",
                 "busy", 501, start, "entropy-24-busy-full.hex", P)
    steps = {i: v[2] - full[i][1][2] for i, (t, v) in start.items() if i in full and full[i][0] == t}
    predicted = busy_step(rng, start, steps, keep_motion=2)
    write_vector("entropy-27-busy-predicted.hex", """
Tick 502 against entropy-26 (age 1, span 1): most entities change again; 22 repeat their x step exactly
(field bit 0 under motion), the others move off their prediction, with both signs of motion.""",
                 "busy", 502, predicted, "entropy-26-busy-motion-start.hex", P)
    # The carry: the first seeded busy delta whose encoder carries into pending 0xFF bytes.
    base = snapshot_of("entropy-24-busy-full.hex")
    for seed in range(1, 1000):
        candidate = busy_step(SplitMix64(seed), full)
        if carries(lambda: encode(types, 501, candidate, base)):
            break
    else:
        raise AssertionError("no busy delta carries")
    n = carries(lambda: encode(types, 501, candidate, base))
    write_vector("entropy-28-busy-carry.hex", f"""
Tick 501 against entropy-24, another busy delta (seed {seed}), chosen because its range encoder carries
into pending 0xFF bytes ({n} time{'s' if n > 1 else ''}: shiftLow with low at 2^32 or more and cacheSize
above 1, PROTOCOL.md 4.5.2). An encoder that drops the carry writes other bytes.""",
                 "busy", 501, candidate, "entropy-24-busy-full.hex")


def generate_errors():
    """An error vector for each error the entropy coding can meet (§4.5.4, §7.1) not pinned above."""
    base01 = snapshot_of(BASE01)

    def whole_count(count):
        def symbols(rc, m):
            encode_integer(rc, m, count, G_COUNT)
            encode_integer(rc, m, 0, G_GAP)
            whole_zeros(rc, m, 0)
        return symbols
    write_error_vector("entropy-error-too-many-entities.hex", """
A whole snapshot announcing 65537 entities, one more than the protocol's limit: refused at the count,
before any entity is read or room reserved (tooManyEntities).""",
                       "arena", None, "tooManyEntities", hand_built("arena", whole_count(65537), tick=7, age=None))

    def create(ids, t=0, schema="arena"):
        def symbols(rc, m):
            rc.bit(0, m.p, G_HAS_DESTROYED)
            rc.bit(0, m.p, G_HAS_CHANGED)
            rc.bit(1, m.p, G_HAS_CREATED)
            encode_integer(rc, m, len(ids) - 1, G_COUNT)
            previous = -1
            for i in ids:
                encode_integer(rc, m, i - previous - 1, G_GAP)
                previous = i
                whole_zeros(rc, m, t, schema)
        return symbols
    write_error_vector("entropy-error-duplicate-entity.hex", """
A delta against delta-01 creating entity 2, which survives from the baseline (duplicateEntity).""",
                       "arena", BASE01, "duplicateEntity", hand_built("arena", create([2])))
    write_error_vector("entropy-error-order-duplicate-before-truncated.hex", """
A delta against delta-01 creating entities 2 and 9, its payload cut inside entity 9's fields: entity 2
survives from the baseline, but (protocol 1.1) a decoder checks the created ids against the survivors only
once the whole created list is read (4.5.4), so the error is truncated, not duplicateEntity.""",
                       "arena", BASE01, "truncated", hand_built("arena", create([2, 9]), cut=3))

    def created_over_limit(rc, m):
        rc.bit(0, m.p, G_HAS_DESTROYED)
        rc.bit(0, m.p, G_HAS_CHANGED)
        rc.bit(1, m.p, G_HAS_CREATED)
        encode_integer(rc, m, 65534 - 1, G_COUNT)
    write_error_vector("entropy-error-too-many-created.hex", """
A delta against delta-01 (three survivors) creating 65534 entities: 65537 in all, over the limit, refused
at the count before any entity is read (tooManyEntities).""",
                       "arena", BASE01, "tooManyEntities", hand_built("arena", created_over_limit))

    def type_3(rc, m):
        encode_integer(rc, m, 1, G_COUNT)
        encode_integer(rc, m, 0, G_GAP)
        rc.tree(3, 2, m.p, G_TYPE)
    write_error_vector("entropy-error-unknown-entity-type.hex", """
A whole snapshot of the mixed schema (three types, 2-bit type indices) whose entity has type index 3
(unknownEntityType).""",
                       "mixed", None, "unknownEntityType", hand_built("mixed", type_3, tick=7, age=None))

    def state_same(rc, m, t, a):
        for f in range(4):
            rc.bit(0, m.p, m.field(t, f) + F_CHANGED + 3 * a)
        # The last field when no earlier one changed: implied changed, its whole value the old 7.
        rc.tree(7, 3, m.p, m.field(t, 4) + F_WHOLE)

    def whole_same(rc, m):
        rc.bit(0, m.p, G_HAS_DESTROYED)
        changed_section(rc, m, "arena", base01[1], {7: state_same})
        rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-whole-value-unchanged.hex", """
A delta against delta-01 changing only entity 7's state (an enumeration, sent whole) to its old value 7:
a changed field equal to the old one (valueOutOfRange).""",
                       "arena", BASE01, "valueOutOfRange", hand_built("arena", whole_same))

    def heading_513(rc, m, t, a):
        for f in range(2):
            rc.bit(0, m.p, m.field(t, f) + F_CHANGED + (1 if f else 0) + 3 * a)
        fb = m.field(t, 2)
        rc.bit(1, m.p, fb + F_CHANGED + 1 + 3 * a)
        rc.bit(0, m.p, fb + F_SIGN)
        rc.tree(ESCAPED, bucket_bits(10), m.p, fb + F_BUCKET)
        rc.tree(9 - ESCAPED, 2, m.p, fb + F_ESCAPE)
        rc.raw(1, 9)                                  # 2^9 + 1 = 513
        rc.bit(0, m.p, m.field(t, 3) + F_CHANGED + 2 + 3 * a)
        rc.bit(0, m.p, m.field(t, 4) + F_CHANGED + 1 + 3 * a)

    def wrapping_too_far(rc, m):
        rc.bit(0, m.p, G_HAS_DESTROYED)
        changed_section(rc, m, "arena", base01[1], {2: heading_513})
        rc.bit(0, m.p, G_HAS_CREATED)
    write_error_vector("entropy-error-wrapping-magnitude.hex", """
A delta against delta-01 turning entity 2's heading (angle, 10 bits) by +513: more than half a turn, which
no centred delta is (valueOutOfRange).""",
                       "arena", BASE01, "valueOutOfRange", hand_built("arena", wrapping_too_far))
