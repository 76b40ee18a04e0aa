#!/usr/bin/env python3
"""An independent frame codec, written from Protocol/PROTOCOL.md sections 2.1, 5, 6 and 7.2 alone.

It decodes a connection's frames (the envelope of 5.1 in its check order, every message of
5.3-5.12, the three compression modes of section 6 with the inflation limits of 6.4) and refuses
each bad frame with the error section 7.2 names, written as the signature of 7.2.1
(`truncated(offset: 5, needed: 3)`), and it encodes messages again (compressed frames with Python's
zlib at level 6, the same library underneath Tickwire). One decoder serves two users:

    python3 frame_codec.py [--check]   # every vectors/frame-*.hex (frame_vectors.py): decode to
                                       # the values its comments state, re-encode byte for byte,
                                       # or be refused with the error its `# error:` line names
    conformance_adapter.py             # answers Tools/conformance's frame requests with Receiver

Shows that the spec is enough to interoperate.
"""
import json
import sys
import zlib

MAX_FRAME = MAX_BODY = 1 << 20
RATIO, ALLOWANCE = 256, 64 << 10
MAX_INPUTS, MAX_INPUT, MAX_TEXT, MAX_TOKEN, MAX_ROOM, MAX_PAYLOAD = 32, 512, 256, 64, 64, 1024
U32, U64 = (1 << 32) - 1, (1 << 64) - 1
MODES = {"none": 0, "perFrame": 1, "streaming": 2}
HANDSHAKE = {1, 2, 3}


def signature(name, *values, **labelled):
    """An error's signature (PROTOCOL.md 7.2.1): `name`, or `name(value, label: value, ...)`,
    integers in decimal, strings as JSON writes them, a nested signature as it is."""
    def text(value):
        if isinstance(value, Signature):
            return value.text
        return json.dumps(value) if isinstance(value, str) else str(value)
    arguments = [text(v) for v in values] + [f"{label}: {text(v)}" for label, v in labelled.items()]
    return Signature(name if not arguments else f"{name}({', '.join(arguments)})")


class Signature:
    """A nested error (`inflation`'s zlib error), kept as its written form."""

    def __init__(self, text):
        self.text = text


class FrameError(Exception):
    """A refused frame: `name` is the error's name in PROTOCOL.md 7.2, `signature` its 7.2.1 form."""

    def __init__(self, name, *values, **labelled):
        self.name = name
        self.signature = signature(name, *values, **labelled).text
        super().__init__(self.signature)


class Reader:
    """A body's fields, read in order; every read checks what is left first."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        left = len(self.data) - self.pos
        if n > left:
            raise FrameError("truncated", offset=len(self.data), needed=n - left)
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def fixed(self, n):
        return int.from_bytes(self.take(n), "big")

    def varint(self, maximum=U64, field=""):
        start, value, shift = self.pos, 0, 0
        while True:
            if self.pos >= len(self.data):
                raise FrameError("truncated", offset=len(self.data), needed=1)
            byte = self.data[self.pos]
            self.pos += 1
            if shift == 63 and byte > 1:
                raise FrameError("varintOverflow", offset=start)
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if byte == 0 and self.pos - start > 1:
                    raise FrameError("nonCanonicalVarint", offset=start)
                break
            shift += 7
        if value > maximum:
            raise FrameError("valueOutOfRange", field=field, value=value, maximum=maximum)
        return value

    def bytes_(self, limit, field):
        n = self.varint()
        if n > limit:
            raise FrameError("lengthExceeded", field=field, length=n, limit=limit)
        return self.take(n)

    def text(self, limit, field):
        raw = self.bytes_(limit, field)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise FrameError("invalidUTF8", field=field) from None

    def rest(self):
        return self.take(len(self.data) - self.pos)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def bstr(b):
    return varint(len(b)) + b


# Each message type: (decode body reader -> fields tuple, encode fields -> body bytes).
def dec_hello(r):
    # Flag bit 0: a resume token follows; bit 1: a connect token (5.3.1), 8 + 24 + 1024 fixed bytes.
    # A hello with a connect token decodes to 7 fields: (expire, nonce, private part) before the payload.
    version, fingerprint, modes, flags = r.fixed(2), r.fixed(8), r.fixed(1), r.fixed(1)
    if flags & ~3:
        raise FrameError("reservedBits", field="hello flags", value=flags)
    room = r.text(MAX_ROOM, "room name")
    token = r.bytes_(MAX_TOKEN, "resume token") if flags & 1 else None
    if flags & 2:
        connect = (r.fixed(8), r.take(24), r.take(1024))
        return version, fingerprint, modes, room, token, connect, r.bytes_(MAX_PAYLOAD, "hello payload")
    return version, fingerprint, modes, room, token, r.bytes_(MAX_PAYLOAD, "hello payload")


def enc_hello(f):
    version, fingerprint, modes, room, token, *connect, payload = f
    flags = (0 if token is None else 1) | (2 if connect else 0)
    tail = connect[0][0].to_bytes(8, "big") + connect[0][1] + connect[0][2] if connect else b""
    return (version.to_bytes(2, "big") + fingerprint.to_bytes(8, "big") + bytes([modes, flags])
            + bstr(room.encode()) + (b"" if token is None else bstr(token)) + tail + bstr(payload))


def dec_welcome(r):
    fields = (r.varint(U32, "client id"), r.varint(0xFFFF, "tick rate"), r.varint(U32, "current tick"), r.varint())
    mode = r.fixed(1)
    # Bits 0-3 are the mode. Bit 7 names entropy-coded deltas (4.5), bit 5 with it motion-predicted
    # ones (4.5.6), bit 6 accepts render times (5.7.1), bit 4 pongs with the server's hold (5.9.1).
    if mode & 0x0F > 2 or mode & 0xA0 == 0x20:
        raise FrameError("unknownCompressionMode", mode)
    return fields + (mode, r.bytes_(MAX_TOKEN, "resume token"))


def enc_welcome(f):
    return b"".join(varint(v) for v in f[:4]) + bytes([f[4]]) + bstr(f[5])


def dec_reason(field):
    return lambda r: (r.fixed(2), r.text(MAX_TEXT, field))


def enc_reason(f):
    return f[0].to_bytes(2, "big") + bstr(f[1].encode())


def dec_snapshot(r):
    tick, distance = r.varint(U32, "snapshot tick"), r.varint(U32, "baseline distance")
    baseline = None if distance == 0 else (tick - distance) & U32
    return tick, baseline, r.varint(U32, "last processed input"), r.varint(), r.rest()


def enc_snapshot(f):
    tick, baseline, last, time, delta = f
    return varint(tick) + varint(0 if baseline is None else (tick - baseline) & U32) + varint(last) + varint(time) + delta


def dec_input(r):
    ack, newest, count = r.varint(U32 + 1, "acknowledged tick + 1"), r.varint(U32, "newest input sequence"), r.varint()
    if count > MAX_INPUTS:
        raise FrameError("tooManyInputs", count=count, limit=MAX_INPUTS)
    if count > newest:
        raise FrameError("inputSequenceUnderflow", newest=newest, count=count)
    inputs = [r.bytes_(MAX_INPUT, "input") for _ in range(count)]
    if r.pos == len(r.data):
        return ack, newest, inputs
    # Section 5.7.1: bytes after the inputs are one render time (tick, fraction) per input.
    return ack, newest, inputs, [(r.varint(U32, "render tick"), r.fixed(1)) for _ in range(count)]


def enc_input(f):
    body = varint(f[0]) + varint(f[1]) + varint(len(f[2])) + b"".join(bstr(i) for i in f[2])
    return body + b"".join(varint(tick) + bytes([fraction]) for tick, fraction in (f[3] if len(f) > 3 else []))


def dec_pong(r):
    client_time, server_time = r.varint(), r.varint()
    if r.pos == len(r.data):
        return client_time, server_time
    # Section 5.9.1: one varint after the server time is the server's hold.
    return client_time, server_time, r.varint()


def dec_stats(r):
    names = ("stats tick", "tick duration p50", "tick duration p99", "tick duration max", "CPU per mille",
             "connected clients")
    return tuple(r.varint(U32, name) for name in names) + (r.varint(),)


def dec_ping(r):
    return (r.varint(),)


def enc_varints(f):
    return b"".join(varint(v) for v in f)


MESSAGES = {
    1: (dec_hello, enc_hello), 2: (dec_welcome, enc_welcome),
    3: (dec_reason("reject text"), enc_reason), 4: (dec_snapshot, enc_snapshot),
    5: (dec_input, enc_input), 6: (dec_ping, enc_varints), 7: (dec_pong, enc_varints),
    8: (dec_reason("disconnect text"), enc_reason), 9: (dec_stats, enc_varints),
}


def decode_body(mtype, body):
    """A message's fields from its uncompressed body (5.1 steps 6 and 7)."""
    if 0x40 <= mtype <= 0x7F:
        return body
    if mtype not in MESSAGES:
        raise FrameError("unknownMessageType", mtype)
    r = Reader(body)
    fields = MESSAGES[mtype][0](r)
    if r.pos != len(body):
        raise FrameError("trailingBytes", type=mtype, count=len(body) - r.pos)
    return fields


def encode_body(mtype, fields):
    return fields if 0x40 <= mtype <= 0x7F else MESSAGES[mtype][1](fields)


def inflation(nested, **values):
    return FrameError("inflation", signature(nested, **values))


class Receiver:
    """One connection's receiving side: frames in order, in one compression mode (section 6)."""

    def __init__(self, mode, limits=None):
        self.mode = mode
        self.inflater = zlib.decompressobj(-15) if mode == "streaming" else None
        self.max_frame = (limits or {}).get("maximumFrameBytes", MAX_FRAME)
        self.max_body = (limits or {}).get("maximumBodyBytes", MAX_BODY)
        self.broken = False

    def check_output(self, output, inp):
        """Section 6.4: the size cap, then the ratio cap past the allowance, as the output grows."""
        if output > self.max_body:
            raise inflation("inflatedSizeExceeded", limit=self.max_body)
        if output > ALLOWANCE and output // inp >= RATIO:
            raise inflation("ratioExceeded", ratio=RATIO, inputBytes=inp)

    def inflate_bounded(self, obj, data, inp):
        out = bytearray()
        try:
            # Feed in small slices so that a bomb is stopped early, as the spec requires.
            for i in range(0, len(data), 64):
                out += obj.decompress(data[i:i + 64], self.max_body + 1 - len(out))
                self.check_output(len(out), inp)
                while obj.unconsumed_tail:
                    out += obj.decompress(obj.unconsumed_tail, self.max_body + 1 - len(out))
                    self.check_output(len(out), inp)
        except zlib.error as error:
            raise inflation("corruptData", code=-3, message=str(error)) from None
        return bytes(out)

    def decode(self, frame):
        """The frame's message type and fields. Raises FrameError."""
        if self.broken:
            raise FrameError("compressionContextBroken")
        try:
            return self.decode_unbroken(frame)
        except FrameError:
            # Section 6.3: an error breaks a streaming context for every later frame.
            self.broken = self.mode == "streaming"
            raise

    def decode_unbroken(self, frame):
        if not frame:
            raise FrameError("emptyFrame")
        if len(frame) > self.max_frame:
            raise FrameError("frameTooLarge", size=len(frame), limit=self.max_frame)
        mtype, compressed, body = frame[0] & 0x7F, bool(frame[0] & 0x80), frame[1:]
        if mtype == 0:
            raise FrameError("reservedMessageType", 0)
        joins = self.mode == "streaming" and mtype not in HANDSHAKE
        if compressed:
            if self.mode == "none" or mtype in HANDSHAKE:
                raise FrameError("unexpectedCompression", type=mtype, mode=MODES[self.mode])
            if self.mode == "perFrame":
                obj = zlib.decompressobj()
                body = self.inflate_bounded(obj, body, len(body))
                if obj.unused_data:
                    raise inflation("corruptData", code=-3, message="bytes after the end of the zlib stream")
                if not obj.eof:
                    raise inflation("truncated")
            else:
                data = body + b"\x00\x00\xff\xff"
                body = self.inflate_bounded(self.inflater, data, len(data))
                if not body or self.inflater.eof:
                    raise FrameError("compressionStreamEnded")
        elif len(body) > self.max_body:
            raise FrameError("bodyTooLarge", size=len(body), limit=self.max_body)
        elif joins and body:
            blocks = b""
            for i in range(0, len(body), 65535):
                chunk = body[i:i + 65535]
                blocks += bytes([0]) + len(chunk).to_bytes(2, "little") + (len(chunk) ^ 0xFFFF).to_bytes(2, "little") + chunk
            if self.inflater.decompress(blocks) != body:
                raise FrameError("compressionStreamEnded")
        return mtype, decode_body(mtype, body)


class Sender:
    """One connection's sending side: compresses where it pays and the ratio cap allows (6.4)."""

    def __init__(self, mode):
        self.mode = mode
        self.deflater = zlib.compressobj(6, zlib.DEFLATED, -15) if mode == "streaming" else None

    def encode(self, mtype, fields):
        body = encode_body(mtype, fields)
        if self.mode == "none" or mtype in HANDSHAKE or not body:
            return bytes([mtype]) + body
        if self.mode == "perFrame":
            packed, extra = zlib.compress(body, 6), 0
        else:
            packed, extra = self.deflater.compress(body) + self.deflater.flush(zlib.Z_SYNC_FLUSH), 4
            assert packed.endswith(b"\x00\x00\xff\xff")
            packed = packed[:-4]
        if len(packed) < len(body) and (len(body) <= ALLOWANCE or len(body) // (len(packed) + extra) < RATIO):
            return bytes([mtype | 0x80]) + packed
        return bytes([mtype]) + body


if __name__ == "__main__":
    if any(argument in ("--help", "-h") for argument in sys.argv[1:]):
        print(__doc__.strip())
        sys.exit(0)
    import frame_vectors
    sys.exit(frame_vectors.check())
