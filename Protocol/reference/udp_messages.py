#!/usr/bin/env python3
"""The UDP transport's own messages (PROTOCOL.md 1A.10 and 1A.11), written from PROTOCOL.md alone:
the close message (0x00, a close code, a reason) and the handover message (0x80, a netcode.io
connect token, read by the independent netcode.io peer of Tools/netcode-peer). Each travels as
one message of the reliable-ordered channel; a message that breaks its layout is a protocol error
(close code 1002), refused here as `protocolError`.

Generates and checks `Protocol/vectors/udp/*.hex`; the conformance adapter answers the `udp`
family with `decode`. Needs PyNaCl (through netcode.py): run it with the repository's .venv.

    python3 udp_messages.py [--check]    # decode every udp vector, compare its lines
    python3 udp_messages.py --generate   # rewrite them (only when the format changes)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, os.path.join(HERE, "..", "..", "Tools", "netcode-peer"))
import netcode  # noqa: E402

VECTORS = os.path.join(HERE, "..", "vectors", "udp")
CLOSE, HANDOVER = 0x00, 0x80
MAX_REASON = 123


class ProtocolError(Exception):
    """A message the transport closes the connection for, with 1002."""

    signature = "protocolError"


def decode(data):
    """A close message's code and reason, or a handover message's token fields (named as the
    netcode vectors name them). Raises ProtocolError."""
    if data[:1] == bytes([CLOSE]):
        if len(data) < 3 or len(data) - 3 > MAX_REASON:
            raise ProtocolError()
        code = int.from_bytes(data[1:3], "big")
        if not 1000 <= code <= 4999:
            raise ProtocolError()
        try:
            return {"close": {"code": code, "reason": data[3:].decode("utf-8")}}
        except UnicodeDecodeError:
            raise ProtocolError() from None
    if data[:1] == bytes([HANDOVER]):
        if len(data) != 1 + netcode.CONNECT_TOKEN_BYTES:
            raise ProtocolError()
        try:
            token = netcode.ConnectToken.read(data[1:])
        except netcode.Refused:
            raise ProtocolError() from None
        return {"handover": {"protocol-id": str(token.protocol_id), "create-timestamp": str(token.create_timestamp),
                             "expire-timestamp": str(token.expire_timestamp),
                             "server-address": [netcode.format_address(a) for a in token.server_addresses]}}
    raise ValueError(f"not a message of the transport's own: first byte {data[:1].hex() or 'none'}")


def close(code, reason):
    return bytes([CLOSE]) + code.to_bytes(2, "big") + reason


def vectors():
    """name -> (comment lines, bytes, the lines a reader must give, or None for protocolError)."""
    with open(os.path.join(HERE, "..", "vectors", "netcode", "connect-token.hex")) as file:
        token = bytes.fromhex("".join(line for line in file if not line.startswith("#")).replace(" ", "").replace("\n", ""))
    broken = token[:12] + b"1" + token[13:]
    return {
        "close-room-full": (["A close message (1A.10): code 4001 (room full), reason \"room full\"."],
                            close(4001, b"room full"), ["code: 4001", 'reason: "room full"']),
        "close-no-reason": (["A close message with code 1000 and an empty reason: the shortest, 3 bytes."],
                            close(1000, b""), ["code: 1000", 'reason: ""']),
        "close-longest-reason": (["A close message with a reason of 123 bytes, the most it may hold."],
                                 close(4999, b"r" * 123), ["code: 4999", 'reason: "' + "r" * 123 + '"']),
        "close-error-short": (["A close message of 2 bytes: shorter than its code."], bytes([CLOSE, 0x03]), None),
        "close-error-code-low": (["A close message with code 999, below 1000."], close(999, b""), None),
        "close-error-code-high": (["A close message with code 5000, above 4999."], close(5000, b""), None),
        "close-error-reason-long": (["A close message with a reason of 124 bytes, one more than it may hold."],
                                    close(1000, b"r" * 124), None),
        "close-error-utf8": (["A close message whose reason is not UTF-8 (a lone continuation byte)."],
                             close(1000, b"\x80"), None),
        "handover": (["A handover message (1A.11): 0x80, then the connect token of vectors/netcode/connect-token.hex."],
                     bytes([HANDOVER]) + token,
                     ["protocol-id: 1234605616436508552", "create-timestamp: 1700000000", "expire-timestamp: 1700000030",
                      "server-address: 127.0.0.1:40000", "server-address: [::1]:50000", "server-address: [2001:db8::1]:443"]),
        "handover-error-size": (["A handover message whose token is one byte short (2047 bytes)."],
                                bytes([HANDOVER]) + token[:-1], None),
        "handover-error-token": (["A handover message whose token does not parse: its version info says NETCODE 1.01."],
                                 bytes([HANDOVER]) + broken, None),
    }


def read(path):
    lines, digits = [], ""
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.startswith("# ") and ":" in line and " " not in line[2:].split(":")[0]:
                lines.append(line[2:].rstrip("\n"))
            elif not line.startswith("#"):
                digits += "".join(line.split())
    return lines, bytes.fromhex(digits)


def generate():
    os.makedirs(VECTORS, exist_ok=True)
    for name, (comments, data, expected) in vectors().items():
        with open(os.path.join(VECTORS, name + ".hex"), "w") as file:
            for line in comments + (expected if expected is not None else ["error: protocolError"]):
                file.write("# " + line + "\n")
            for start in range(0, len(data), 32):
                file.write(" ".join(f"{b:02x}" for b in data[start:start + 32]) + "\n")


def check():
    names = sorted(name for name in os.listdir(VECTORS) if name.endswith(".hex"))
    for name in names:
        lines, data = read(os.path.join(VECTORS, name))
        try:
            answer = decode(data)
        except ProtocolError:
            assert "error: protocolError" in lines, f"{name}: refused, but the vector says {lines}"
            continue
        if "close" in answer:
            got = [f"code: {answer['close']['code']}", "reason: " + json.dumps(answer["close"]["reason"])]
        else:
            fields = answer["handover"]
            got = [f"{key}: {fields[key]}" for key in ("protocol-id", "create-timestamp", "expire-timestamp")]
            got += [f"server-address: {address}" for address in fields["server-address"]]
        assert got == lines, f"{name}: read {got}, the vector says {lines}"
    print(f"{len(names)} UDP transport message vectors read as they state")


if __name__ == "__main__":
    if "--help" in sys.argv[1:]:
        print(__doc__.strip())
        sys.exit(0)
    if "--generate" in sys.argv[1:]:
        generate()
    check()
