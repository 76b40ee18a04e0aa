#!/usr/bin/env python3
"""An independent reference implementation of Tickwire's UDP packet format (PROTOCOL.md §1A).

Written from PROTOCOL.md alone: it encodes and decodes one packet (the payload of one netcode.io
payload packet) with every refusal §1A.6 lists, generates the `vectors/packet/*.hex` vectors and
checks that every one decodes to its described fields (or is refused with its error) and
re-encodes byte for byte; a vector holding a sequence of packets (`# packet` lines) is received
in order by packet_receiver.Receiver (§1A.3-1A.5) and must deliver its `# message:` lines, or
be refused with its error at the last packet. Usage:

    python3 packet_codec.py [--check]    # decode and re-encode every packet vector
    python3 packet_codec.py --generate   # rewrite them (only when the format changes)
"""
import os
import struct
import sys

from frame_codec import signature

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "packet")

MAX_PACKET = 1200          # one netcode.io payload
FRAGMENT = 1024            # every fragment but the last
MAX_FRAGMENTS = 256        # PacketLimits.maximumFragmentsPerMessage, the standard value
ACK_ONLY, MESSAGE, FRAGMENT_TYPE = 0, 1, 2
CHANNELS = {0: "unreliable", 1: "reliable-ordered"}


class PacketError(Exception):
    """A refused packet: `code` is the error's name in PROTOCOL.md 1A.6, `signature` its written
    form with the values 1A.6 defines (`fragmentSizeInvalid(index: 0, count: 3, size: 1023)`)."""

    def __init__(self, code, *values, **labelled):
        self.code = code
        self.signature = signature(code, *values, **labelled).text
        super().__init__(self.signature)


def encode(p):
    """p: dict with sequence, acks (None or (ack, bits)), type, channel, message_id, index, count, payload."""
    flags = p["type"] | (p.get("channel", 0) << 2) | (8 if p["acks"] is not None else 0)
    out = struct.pack(">BH", flags, p["sequence"])
    if p["acks"] is not None:
        out += struct.pack(">HI", *p["acks"])
    if p["type"] == MESSAGE and p["channel"] == 1:
        out += struct.pack(">H", p["message_id"])
    if p["type"] == FRAGMENT_TYPE:
        out += struct.pack(">HHH", p["message_id"], p["index"], p["count"])
    return out + p.get("payload", b"")


def decode(data, max_fragments=MAX_FRAGMENTS):
    """One packet's fields, checked in the order of PROTOCOL.md 1A.6. Raises PacketError."""
    if len(data) > MAX_PACKET:
        raise PacketError("packetTooLarge", size=len(data), limit=MAX_PACKET)
    if not data:
        raise PacketError("truncated", what="header", needed=1, available=0)
    flags = data[0]
    if flags & 0xF0:
        raise PacketError("reservedBits", flags)
    kind, channel, has_acks = flags & 3, (flags >> 2) & 1, bool(flags & 8)
    if kind == 3:
        raise PacketError("unknownPacketType", flags)
    header = 9 if has_acks else 3
    if len(data) < header:
        raise PacketError("truncated", what="header", needed=header, available=len(data))
    (sequence,) = struct.unpack_from(">H", data, 1)
    acks = struct.unpack_from(">HI", data, 3) if has_acks else None
    p = {"sequence": sequence, "acks": acks, "type": kind, "channel": channel}
    offset = header
    if kind == ACK_ONLY:
        if channel or not has_acks:
            raise PacketError("invalidFlags", flags)
        if len(data) != offset:
            raise PacketError("trailingBytes", count=len(data) - offset)
        return p
    if kind == MESSAGE:
        if channel == 1:
            if len(data) < offset + 2:
                raise PacketError("truncated", what="message id", needed=offset + 2, available=len(data))
            (p["message_id"],) = struct.unpack_from(">H", data, offset)
            offset += 2
        if len(data) == offset:
            raise PacketError("emptyMessage")
        p["payload"] = data[offset:]
        return p
    if len(data) < offset + 6:
        raise PacketError("truncated", what="fragment header", needed=offset + 6, available=len(data))
    p["message_id"], p["index"], p["count"] = struct.unpack_from(">HHH", data, offset)
    offset += 6
    if p["count"] < 2:
        raise PacketError("fragmentCountOutOfRange", count=p["count"])
    if p["count"] > max_fragments:
        raise PacketError("fragmentCountExceeded", count=p["count"], limit=max_fragments)
    if p["index"] >= p["count"]:
        raise PacketError("fragmentIndexOutOfRange", index=p["index"], count=p["count"])
    size = len(data) - offset
    last = p["index"] == p["count"] - 1
    if (last and not 1 <= size <= FRAGMENT) or (not last and size != FRAGMENT):
        raise PacketError("fragmentSizeInvalid", index=p["index"], count=p["count"], size=size)
    p["payload"] = data[offset:]
    return p


def pattern(index, size):
    """Payload pattern `index`: byte k is (index × 1024 + k) mod 256."""
    return bytes((index * FRAGMENT + k) & 0xFF for k in range(size))


PING = bytes.fromhex("06c096b102")           # vectors/frame-ping.hex
DISCONNECT = bytes.fromhex("0800010362 7965".replace(" ", ""))  # vectors/frame-disconnect.hex
INPUT = bytes.fromhex("05e7073a0302050102050002 0100".replace(" ", ""))  # vectors/frame-input.hex


def fragment(seq, index, count, size, channel=0, message_id=9, acks=(50, 0)):
    return {"sequence": seq, "acks": acks, "type": FRAGMENT_TYPE, "channel": channel, "message_id": message_id,
            "index": index, "count": count, "payload": pattern(index, size)}


# name -> (comment lines, packet dict or raw bytes, error or None)
VALID = {
    "packet-no-acks": (["A client's first packet: nothing received yet, so no acks (flags 0x01, a 3-byte header);",
                        "an unreliable ping frame (vectors/frame-ping.hex)."],
                       {"sequence": 0, "acks": None, "type": MESSAGE, "channel": 0, "payload": PING}),
    "packet-header-acks": (["A header with acks across the sequence wrap: sequence 65535, ack 65534, ack bits 0x80000005",
                            "(65533, 65531 and 65502 received too); an unreliable input frame (vectors/frame-input.hex)."],
                           {"sequence": 65535, "acks": (65534, 0x80000005), "type": MESSAGE, "channel": 0, "payload": INPUT}),
    "packet-ack-only": (["An ack-only packet (flags 0x08): sequence 7 acknowledges 3 and the 32 before it (0 and 65535…65505)."],
                        {"sequence": 7, "acks": (3, 0xFFFFFFFF), "type": ACK_ONLY, "channel": 0}),
    "packet-unreliable": (["An unreliable message (flags 0x09): the ping frame, sequence 42, ack 17 with 16 and 15."],
                          {"sequence": 42, "acks": (17, 3), "type": MESSAGE, "channel": 0, "payload": PING}),
    "packet-reliable": (["A reliable-ordered message (flags 0x0d): message id 5, the disconnect frame",
                         "(vectors/frame-disconnect.hex); sequence 43, ack 17 with 16 and 15."],
                        {"sequence": 43, "acks": (17, 3), "type": MESSAGE, "channel": 1, "message_id": 5, "payload": DISCONNECT}),
    "packet-unreliable-max": (["The largest unreliable message sent whole: 1191 bytes, a 1200-byte packet (payload pattern index)."],
                              {"sequence": 1, "acks": (0, 0), "type": MESSAGE, "channel": 0, "payload": pattern(0, 1191)}),
    "packet-fragment-0": (["Fragment 0 of 3 of unreliable message 9 (flags 0x0a), a 2100-byte snapshot frame: 1024 bytes."],
                          fragment(100, 0, 3, 1024)),
    "packet-fragment-1": (["Fragment 1 of 3 of unreliable message 9: 1024 bytes."], fragment(101, 1, 3, 1024)),
    "packet-fragment-2": (["Fragment 2 of 3 of unreliable message 9, the last: 2100 - 2048 = 52 bytes."], fragment(102, 2, 3, 52)),
    "packet-fragment-reliable": (["Fragment 0 of 2 of reliable message 300 (flags 0x0e): 1024 bytes."],
                                 fragment(7, 0, 2, 1024, channel=1, message_id=300, acks=(6, 1))),
    "packet-fragment-count-limit": (["The last fragment of a message at the fragment limit: fragment 255 of 256, 1 byte."],
                                    fragment(8, 255, 256, 1, message_id=10, acks=(6, 0))),
}

# name -> (comment lines, bytes, the error's signature as 1A.6 defines its values)
ERRORS = {
    "packet-error-empty": (["A packet of zero bytes."], b"", 'truncated(what: "header", needed: 1, available: 0)'),
    "packet-error-truncated-header": (["The acks flag promises a 9-byte header; 7 bytes arrive."],
                                      bytes.fromhex("09 0001 0000 0000".replace(" ", "")),
                                      'truncated(what: "header", needed: 9, available: 7)'),
    "packet-error-truncated-short-header": (["A header without acks needs 3 bytes; 2 arrive."], bytes.fromhex("0100"),
                                            'truncated(what: "header", needed: 3, available: 2)'),
    "packet-error-too-large": (["1201 bytes: one more than a netcode.io payload holds."],
                               encode({"sequence": 1, "acks": (0, 0), "type": MESSAGE, "channel": 0, "payload": pattern(0, 1192)}),
                               "packetTooLarge(size: 1201, limit: 1200)"),
    "packet-error-reserved-bits": (["Flags 0x11: bit 4 is reserved."], bytes.fromhex("110001aa"), "reservedBits(17)"),
    "packet-error-unknown-type": (["Flags 0x0b: packet type 3 does not exist."], bytes.fromhex("0b0001000000000000aa"),
                                  "unknownPacketType(11)"),
    "packet-error-ack-only-channel": (["Flags 0x0c: an ack-only packet with the channel bit."],
                                      bytes.fromhex("0c000100000000000000"[:18]), "invalidFlags(12)"),
    "packet-error-ack-only-without-acks": (["Flags 0x00: an ack-only packet without acks."], bytes.fromhex("000001"),
                                           "invalidFlags(0)"),
    "packet-error-ack-only-trailing": (["An ack-only packet with one byte after its header."],
                                       bytes.fromhex("08000100000000000000"), "trailingBytes(count: 1)"),
    "packet-error-empty-message": (["An unreliable message packet with no message byte."], bytes.fromhex("090001000000000000"),
                                   "emptyMessage"),
    "packet-error-empty-reliable-message": (["A reliable message packet with its id and no message byte."],
                                            bytes.fromhex("0d0001000000000000 0005".replace(" ", "")), "emptyMessage"),
    "packet-error-truncated-message-id": (["A reliable message packet that ends inside its message id."],
                                          bytes.fromhex("0d000100000000000000"),
                                          'truncated(what: "message id", needed: 11, available: 10)'),
    "packet-error-truncated-fragment-header": (["A fragment whose header ends after the message id and index."],
                                               bytes.fromhex("0a000100000000000000090000"),
                                               'truncated(what: "fragment header", needed: 15, available: 13)'),
    "packet-error-fragment-count-one": (["A fragment whose count is 1: a message of one fragment is sent whole."],
                                        encode(fragment(1, 0, 1, 10)), "fragmentCountOutOfRange(count: 1)"),
    "packet-error-fragment-count-exceeded": (["Fragment 256 of 257: one more fragment than the limit of 256."],
                                             encode(fragment(1, 256, 257, 1)), "fragmentCountExceeded(count: 257, limit: 256)"),
    "packet-error-fragment-index": (["Fragment index 3 of a count of 3."], encode(fragment(1, 3, 3, 10)),
                                    "fragmentIndexOutOfRange(index: 3, count: 3)"),
    "packet-error-fragment-size": (["Fragment 0 of 3 with 1023 bytes: every fragment but the last holds 1024."],
                                   encode(fragment(1, 0, 3, 1023)), "fragmentSizeInvalid(index: 0, count: 3, size: 1023)"),
    "packet-error-last-fragment-size": (["The last fragment, 2 of 3, with 1025 bytes: one more than a fragment holds."],
                                        encode(fragment(1, 2, 3, 1025)), "fragmentSizeInvalid(index: 2, count: 3, size: 1025)"),
    # The order of 1A.6: each breaks two rules and is refused with the one checked first.
    "packet-error-order-size-before-flags": (["1201 bytes whose flags (0x19) set a reserved bit: the size is checked first."],
                                             bytes([0x19]) + encode({"sequence": 1, "acks": (0, 0), "type": MESSAGE, "channel": 0,
                                                                     "payload": pattern(0, 1192)})[1:],
                                             "packetTooLarge(size: 1201, limit: 1200)"),
    "packet-error-order-reserved-before-type": (["Flags 0x13: a reserved bit and packet type 3; the reserved bits are checked first."],
                                                bytes.fromhex("130001aa"), "reservedBits(19)"),
    "packet-error-order-type-before-truncated": (["Flags 0x0b (packet type 3, acks) in 2 bytes: the type is checked before the header's length."],
                                                 bytes.fromhex("0b00"), "unknownPacketType(11)"),
    "packet-error-order-truncated-before-flags": (["Flags 0x0c (ack-only with the channel bit and acks) in 5 of its 9 header bytes:",
                                                   "the header's length is checked before the flags' consistency."],
                                                  bytes.fromhex("0c00010000"), 'truncated(what: "header", needed: 9, available: 5)'),
    "packet-error-order-flags-before-trailing": (["Flags 0x0c (ack-only with the channel bit) with a byte after the header:",
                                                  "the flags are checked before the trailing bytes."],
                                                 bytes.fromhex("0c000100000000000000"), "invalidFlags(12)"),
    "packet-error-order-count-before-index": (["Fragment 5 of 1: the count is checked before the index."],
                                              encode(fragment(1, 5, 1, 10)), "fragmentCountOutOfRange(count: 1)"),
    "packet-error-order-limit-before-index": (["Fragment 400 of 300: the fragment limit is checked before the index."],
                                              encode(fragment(1, 400, 300, 10)), "fragmentCountExceeded(count: 300, limit: 256)"),
    "packet-error-order-index-before-size": (["Fragment 3 of 3 with 1024 bytes, a size no index-3 fragment can have:",
                                              "the index is checked before the size."],
                                             encode(fragment(1, 3, 3, 1024)), "fragmentIndexOutOfRange(index: 3, count: 3)"),
}


def reliable(seq, message_id, payload, acks=None):
    return encode({"sequence": seq, "acks": acks, "type": MESSAGE, "channel": 1, "message_id": message_id, "payload": payload})


# Sequences of packets one endpoint receives in order (1A.3-1A.5), from its first packet on:
# name -> (comment lines, packets, limits, the last packet's messages (channel, bytes) or its error).
SEQUENCES = {
    "packet-receive-reliable-order": (
        ["Reliable message 1 (\"b\") arrives before message 0 (\"a\"): it is held, and the packet carrying",
         "message 0 delivers both, in id order (1A.5)."],
        [reliable(0, 1, b"b"), reliable(1, 0, b"a")], {}, [("reliable-ordered", b"a"), ("reliable-ordered", b"b")]),
    "packet-receive-duplicate": (
        ["The same packet twice (an unreliable ping frame, sequence 42): the second is a duplicate,",
         "dropped without error, and delivers nothing (1A.3)."],
        [encode(VALID["packet-unreliable"][1])] * 2, {}, []),
    "packet-error-reliable-window": (
        ["Reliable message 256 arrives first, while message 0 is due: 256 ahead, outside the receive",
         "window of 256 (1A.5)."],
        [reliable(0, 256, b"x")], {}, "reliableProtocolViolation"),
    "packet-error-reliable-fragment-not-due": (
        ["A fragment of reliable message 1 while message 0 is due: a reliable fragment must belong to",
         "the message due (1A.5)."],
        [encode(fragment(0, 0, 2, 1024, channel=1, message_id=1, acks=None))], {}, "reliableProtocolViolation"),
    "packet-error-message-too-large": (
        ["Fragment 0 of 3 of unreliable message 9 under a message size limit of 2048 bytes: the message",
         "holds at least 2 x 1024 + 1 = 2049 bytes (1A.4)."],
        [encode(fragment(0, 0, 3, 1024))], {"maximumMessageBytes": 2048}, "messageTooLarge(size: 2049, limit: 2048)"),
    "packet-error-fragment-count-mismatch": (
        ["Fragment 0 of 3 of unreliable message 9, then fragment 1 of 4 of the same message (1A.4)."],
        [encode(fragment(0, 0, 3, 1024)), encode(fragment(1, 1, 4, 1024))], {},
        "fragmentCountMismatch(messageID: 9, count: 4, expected: 3)"),
}


def describe(p):
    lines = [f"sequence: {p['sequence']}"]
    if p["acks"] is not None:
        lines += [f"ack: {p['acks'][0]}", f"ack-bits: 0x{p['acks'][1]:08x}"]
    lines.append("type: " + {ACK_ONLY: "ack-only", MESSAGE: "message", FRAGMENT_TYPE: "fragment"}[p["type"]])
    if p["type"] != ACK_ONLY:
        lines.append("channel: " + CHANNELS[p["channel"]])
    if "message_id" in p:
        lines.append(f"message-id: {p['message_id']}")
    if p["type"] == FRAGMENT_TYPE:
        lines.append(f"fragment: {p['index']}/{p['count']}")
    if p["type"] != ACK_ONLY:
        payload = p["payload"]
        index = p.get("index", 0)
        if len(payload) > 32 and payload == pattern(index, len(payload)):
            lines.append("payload-pattern: index")
        else:
            lines.append("payload: " + payload.hex())
    return lines


def hex_lines(data):
    return [" ".join(f"{b:02x}" for b in data[i:i + 32]) for i in range(0, len(data), 32)]


def write(name, comments, data, fields):
    with open(os.path.join(VECTORS, name + ".hex"), "w") as f:
        for line in comments + fields:
            f.write("# " + line + "\n")
        for line in hex_lines(data):
            f.write(line + "\n")


def write_sequence(name, comments, packets, limits, expected):
    lines = comments + [f"limit: {limit} {value}" for limit, value in limits.items()]
    if isinstance(expected, str):
        lines.append(f"error: {expected}")
    else:
        lines += [f"message: {channel} {data.hex()}" for channel, data in expected]
    with open(os.path.join(VECTORS, name + ".hex"), "w") as f:
        for line in lines:
            f.write("# " + line + "\n")
        for number, packet in enumerate(packets):
            f.write(f"# packet {number}\n")
            for line in hex_lines(packet):
                f.write(line + "\n")


def read(path):
    """A vector's `name: value` lines (`message` and `limit` collected in lists) and its bytes:
    one packet, or the list of packets of a sequence (`# packet` lines)."""
    fields, hexdigits, packets = {"message": [], "limit": []}, "", None
    for line in open(path):
        if line.startswith("# packet"):
            if packets is not None:
                packets.append(bytes.fromhex("".join(hexdigits.split())))
            packets, hexdigits = packets or [], ""
        elif line.startswith("#"):
            body = line[1:].strip()
            key, sep, value = body.partition(":")
            if sep and " " not in key:
                if key in ("message", "limit"):
                    fields[key].append(value.strip())
                else:
                    fields[key] = value.strip()
        else:
            hexdigits += line
    data = bytes.fromhex("".join(hexdigits.split()))
    return fields, data if packets is None else packets + [data]


def check_sequence(name, fields, packets):
    from packet_receiver import Receiver
    limits = {limit.split()[0]: int(limit.split()[1]) for limit in fields["limit"]}
    receiver = Receiver(limits)
    for packet in packets[:-1]:
        receiver.receive(packet)
    try:
        delivered = receiver.receive(packets[-1])
    except PacketError as e:
        assert e.signature == fields.get("error") or e.code == fields.get("error"), \
            f"{name}: refused with {e.signature}, expected {fields.get('error') or 'no error'}"
        return
    assert "error" not in fields, f"{name}: received, expected {fields['error']}"
    got = [f"{channel} {data.hex()}" for channel, data in delivered]
    assert got == fields["message"], f"{name}: delivered {got}, the vector says {fields['message']}"


def generate():
    os.makedirs(VECTORS, exist_ok=True)
    for name, (comments, p) in VALID.items():
        write(name, comments, encode(p), describe(p))
    for name, (comments, data, error) in ERRORS.items():
        write(name, comments, data, [f"error: {error}"])
    for name, (comments, packets, limits, expected) in SEQUENCES.items():
        write_sequence(name, comments, packets, limits, expected)


def check():
    names = sorted(n for n in os.listdir(VECTORS) if n.endswith(".hex"))
    for name in names:
        fields, data = read(os.path.join(VECTORS, name))
        if isinstance(data, list):
            check_sequence(name, fields, data)
            continue
        if "error" in fields:
            try:
                decode(data)
            except PacketError as e:
                assert e.signature == fields["error"], f"{name}: refused with {e.signature}, expected {fields['error']}"
            else:
                raise AssertionError(f"{name}: decoded, expected {fields['error']}")
            continue
        p = decode(data)
        assert encode(p) == data, f"{name}: does not re-encode"
        described = {k: v for k, v in (line.split(": ", 1) for line in describe(p))}
        for key, value in described.items():
            assert fields.get(key) == value, f"{name}: {key} is {value}, the vector says {fields.get(key)}"
        assert not fields["message"] and not fields["limit"], f"{name}: message and limit lines belong to sequences"
    print(f"{len(names)} packet vectors decode and re-encode, or are received as their sequence says")


def main():
    if sys.argv[1:] == ["--generate"]:
        generate()
    check()


if __name__ == "__main__":
    # Through the imported module, so that packet_receiver (which imports packet_codec) raises the
    # same PacketError class this check catches.
    import packet_codec
    packet_codec.main()
