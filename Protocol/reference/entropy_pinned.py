"""The vectors of protocol 1.1 that pin each reading of PROTOCOL.md §4.5 and §4.5.6 (issue #33).

Called by `entropy_codec.py --generate`. Each vector either decodes and re-encodes byte for byte or
is refused with the error the document names; the hand-built ones write their symbols here, step by
step, with the models and coder of entropy_codec.py.
"""
from snapshot_codec import SCHEMAS, BitWriter
from entropy_codec import (
    ESCAPED, F_BUCKET, F_CHANGED, F_SIGN, G_CHANGED, G_COUNT, G_DESTROYED_COUNT, G_GAP,
    G_DESTROYED_GAP, G_HAS_CHANGED, G_HAS_CREATED, G_HAS_DESTROYED, Models, RangeEncoder, bucket_bits, encode_integer,
    F_WHOLE, snapshot_of, write_error_vector, write_vector)

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
