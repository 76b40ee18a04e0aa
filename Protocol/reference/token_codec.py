#!/usr/bin/env python3
"""An independent reference implementation of Tickwire's connect token user data (PROTOCOL.md 5.3.2).

Written from PROTOCOL.md alone: it decodes the 256 bytes of a connect token's user data (layout
version, room, display name, claims, zero padding) with every refusal 5.3.2 lists, and encodes
them again. With --check it decodes every `vectors/tokens/user-data-*.hex` vector to its
`# room:`, `# display name:` and `# claims:` lines (or its `# error:` line) and re-encodes the
valid ones byte for byte. A whole connect token (`token-*.hex`) is netcode.io's: the conformance
adapter opens it with Tools/netcode-peer's netcode.py and reads its user data here. Usage:

    python3 token_codec.py [--check]
"""
import os
import sys

from frame_codec import signature

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "tokens")

USER_DATA_BYTES = 256      # netcode.io's user data
LAYOUT_VERSION = 1
MAX_ROOM = 64              # UTF-8 bytes
MAX_DISPLAY_NAME = 64      # UTF-8 bytes
MAX_CLAIMS = USER_DATA_BYTES - 4  # with an empty room and name


class UserDataError(Exception):
    """Bytes that are not user data in layout 1: `code` is the error's name in 5.3.2, `signature`
    its written form (`lengthExceeded(field: "room", length: 65, limit: 64)`)."""

    def __init__(self, code, *values, **labelled):
        self.code = code
        self.signature = signature(code, *values, **labelled).text
        super().__init__(self.signature)


def decode(data):
    """The user data's fields: {"version", "room", "displayName", "claims" (bytes)}, or UserDataError."""
    if len(data) != USER_DATA_BYTES:
        raise UserDataError("wrongSize", len(data))
    if data[0] != LAYOUT_VERSION:
        raise UserDataError("unknownLayout", data[0])
    offset = 1

    def field(name, limit):
        nonlocal offset
        if offset >= len(data):
            raise UserDataError("truncated", field=name, offset=offset)
        length = data[offset]
        offset += 1
        # The limit first, then the bytes left, before any byte is read.
        if length > limit:
            raise UserDataError("lengthExceeded", field=name, length=length, limit=limit)
        if length > len(data) - offset:
            raise UserDataError("truncated", field=name, offset=offset)
        value = data[offset:offset + length]
        offset += length
        return value

    def text(name, limit):
        raw = field(name, limit)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UserDataError("invalidUTF8", field=name) from None

    room = text("room", MAX_ROOM)
    name = text("display name", MAX_DISPLAY_NAME)
    claims = field("claims", MAX_CLAIMS)
    for index in range(offset, len(data)):
        if data[index] != 0:
            raise UserDataError("nonZeroPadding", offset=index)
    return {"version": LAYOUT_VERSION, "room": room, "displayName": name, "claims": bytes(claims)}


def encode(room, display_name, claims):
    """The 256 bytes of user data in layout 1 (UserDataError for a field over its limit)."""
    room, name = room.encode("utf-8"), display_name.encode("utf-8")
    if len(room) > MAX_ROOM:
        raise UserDataError("lengthExceeded", field="room", length=len(room), limit=MAX_ROOM)
    if len(name) > MAX_DISPLAY_NAME:
        raise UserDataError("lengthExceeded", field="display name", length=len(name), limit=MAX_DISPLAY_NAME)
    limit = MAX_CLAIMS - len(room) - len(name)
    if len(claims) > limit:
        raise UserDataError("lengthExceeded", field="claims", length=len(claims), limit=limit)
    data = bytes([LAYOUT_VERSION])
    for part in (room, name, bytes(claims)):
        data += bytes([len(part)]) + part
    return data.ljust(USER_DATA_BYTES, b"\x00")


def read_vector(path):
    keys, digits = {}, ""
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if line.startswith("#"):
                key, colon, value = line[1:].strip().partition(":")
                if colon and key in ("room", "display name", "claims", "error"):
                    keys[key] = value.strip()
            else:
                digits += "".join(line.split())
    return keys, bytes.fromhex(digits)


def check():
    """Decodes every user-data vector (and re-encodes the valid ones); returns the failures."""
    failures = []
    for name in sorted(n for n in os.listdir(VECTORS) if n.startswith("user-data-") and n.endswith(".hex")):
        keys, data = read_vector(os.path.join(VECTORS, name))
        try:
            fields = decode(data)
        except UserDataError as error:
            if error.signature != keys.get("error"):
                failures.append(f"{name}: refused with {error.signature}, expected {keys.get('error', 'no error')}")
            continue
        if "error" in keys:
            failures.append(f"{name}: decoded, but must be refused with {keys['error']}")
            continue
        got = (fields["room"], fields["displayName"], fields["claims"].hex())
        if got != (keys.get("room"), keys.get("display name"), keys.get("claims")):
            failures.append(f"{name}: decoded to {got}")
        elif encode(fields["room"], fields["displayName"], fields["claims"]) != data:
            failures.append(f"{name}: encodes to other bytes")
    return failures


def main(arguments):
    if "--help" in arguments or "-h" in arguments:
        print(__doc__.strip())
        return 0
    failures = check()
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"token_codec: {'every user-data vector decodes as stated' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
