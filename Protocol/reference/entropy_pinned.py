"""The vectors of protocol 1.1 that pin each reading of PROTOCOL.md §4.5 and §4.5.6 (issue #33).

Called by `entropy_codec.py --generate`. Each vector either decodes and re-encodes byte for byte or
is refused with the error the document names; the hand-built ones write their symbols here, step by
step, with the models and coder of entropy_codec.py.
"""
from snapshot_codec import SCHEMAS, BitWriter, CodecError
from entropy_codec import (
    ESCAPED, F_BUCKET, F_CHANGED, F_SIGN, G_CHANGED, G_COUNT, G_DESTROYED_COUNT, G_GAP,
    G_DESTROYED_GAP, G_HAS_CHANGED, G_HAS_CREATED, G_HAS_DESTROYED, Models, RangeEncoder, bucket_bits, encode_integer,
    F_WHOLE, RangeDecoder, decode, read_vector, snapshot_of, write_error_vector, write_vector)

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
