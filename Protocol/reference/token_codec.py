#!/usr/bin/env python3
"""An independent reference implementation of Tickwire's connect token user data (PROTOCOL.md 5.3.2).

Written from PROTOCOL.md alone: it decodes the 256 bytes of a connect token's user data (layout
version, room, display name, claims, zero padding) with every refusal 5.3.2 lists, and encodes
them again. With --check it decodes every `vectors/tokens/user-data-*.hex` vector to its
`# room:`, `# display name:` and `# claims:` lines (or its `# error:` line) and re-encodes the
valid ones byte for byte. A whole connect token (`token-*.hex`) is netcode.io's: `open_token`
opens it as a verifier does (5.3.1) with Tools/netcode-peer's netcode.py (which needs PyNaCl) and
reads its user data here, so --check also opens every `token-*.hex` vector with its key, protocol
id and time to its `# user id:` and user data, or refuses it with its `# error:` line
(`tokenExpired`, `tokenInvalid`); without PyNaCl it says that it skips them. Usage:

    python3 token_codec.py [--check]
"""
import os
import sys

from frame_codec import signature

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "vectors", "tokens")
NETCODE_PEER = os.path.join(HERE, "..", "..", "Tools", "netcode-peer")

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


class TokenRefused(Exception):
    """A whole connect token a verifier refuses (5.3.1): `signature` is `tokenExpired` or `tokenInvalid`."""

    def __init__(self, signature):
        self.signature = signature
        super().__init__(signature)


def open_token(data, key, protocol_id, now):
    """Opens a 2048-byte connect token as a server opens a hello's (5.3.1), with the fleet's `key`,
    the server's `protocol_id` and its clock `now` (Unix seconds): (user id, user data fields).
    Refuses with TokenRefused: tokenExpired when the expire timestamp is not after now (checked
    first, before anything is decrypted), tokenInvalid when the private part does not open or its
    user data is not layout 1. A token netcode.io cannot read raises netcode.Refused. Needs PyNaCl."""
    if NETCODE_PEER not in sys.path:
        sys.path.append(NETCODE_PEER)
    import netcode  # Tools/netcode-peer; ImportError without PyNaCl
    token = netcode.ConnectToken.read(data)
    if token.expire_timestamp <= now:
        raise TokenRefused("tokenExpired")
    try:
        private = netcode.PrivateToken.decrypt(token.encrypted_private, protocol_id, token.expire_timestamp, token.nonce, key)
        return private.client_id, decode(private.user_data)
    except (netcode.Refused, UserDataError):
        raise TokenRefused("tokenInvalid") from None


def read_vector(path):
    keys, digits = {}, ""
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if line.startswith("#"):
                key, colon, value = line[1:].strip().partition(":")
                if colon and key in ("room", "display name", "claims", "error", "key", "protocol id", "now", "user id"):
                    keys[key] = value.strip()
            else:
                digits += "".join(line.split())
    return keys, bytes.fromhex(digits)


def attempt(name, keys, read, verb):
    """Reads one vector with `read()`: (what it yields, None) for a valid vector; (None, None) for
    an error vector refused with its `# error:` line; (None, what is wrong) for anything else."""
    try:
        result = read()
    except (UserDataError, TokenRefused) as refusal:
        if refusal.signature == keys.get("error"):
            return None, None
        return None, f"{name}: refused with {refusal.signature}, expected {keys.get('error', 'no error')}"
    if "error" in keys:
        return None, f"{name}: {verb}, but must be refused with {keys['error']}"
    return result, None


def vector_names(prefix):
    return sorted(n for n in os.listdir(VECTORS) if n.startswith(prefix) and n.endswith(".hex"))


def check():
    """Decodes every user-data vector (and re-encodes the valid ones); returns the failures."""
    failures = []
    for name in vector_names("user-data-"):
        keys, data = read_vector(os.path.join(VECTORS, name))
        fields, failure = attempt(name, keys, lambda: decode(data), "decoded")
        if fields is None:
            failures += [failure] if failure else []
            continue
        got = (fields["room"], fields["displayName"], fields["claims"].hex())
        if got != (keys.get("room"), keys.get("display name"), keys.get("claims")):
            failures.append(f"{name}: decoded to {got}")
        elif encode(fields["room"], fields["displayName"], fields["claims"]) != data:
            failures.append(f"{name}: encodes to other bytes")
    return failures + check_tokens()


def check_tokens():
    """Opens every whole-token vector with its key, protocol id and time; returns the failures.
    Without PyNaCl (netcode.py's crypto) it says so and checks none."""
    names = vector_names("token-")
    failures = []
    try:
        for name in names:
            keys, data = read_vector(os.path.join(VECTORS, name))
            inputs = bytes.fromhex(keys["key"]), int(keys["protocol id"], 0), int(keys["now"])
            opened, failure = attempt(name, keys, lambda: open_token(data, *inputs), "opened")
            if opened is None:
                failures += [failure] if failure else []
                continue
            user_id, fields = opened
            got = (str(user_id), fields["room"], fields["displayName"], fields["claims"].hex())
            if got != (keys.get("user id"), keys.get("room"), keys.get("display name"), keys.get("claims")):
                failures.append(f"{name}: opened to {got}")
    except ImportError as missing:
        print(f"token_codec: the {len(names)} token-*.hex vectors need PyNaCl ({missing}); run with the repository's "
              ".venv/bin/python to open them", file=sys.stderr)
        return []
    return failures


def main(arguments):
    if "--help" in arguments or "-h" in arguments:
        print(__doc__.strip())
        return 0
    failures = check()
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"token_codec: {'every vector decodes as stated' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
