"""netcode.io 1.02, written independently from mas-bandwidth/netcode STANDARD.md (with the errata of
IMPLEMENTERS.md), for checking Tickwire's Swift implementation: tokens, packets, replay protection,
and sans-IO client and server state machines. Crypto is libsodium through PyNaCl.

Everything on the wire is little-endian. Times are Unix seconds as floats.
"""

import os
import struct

from nacl import bindings as sodium

VERSION_INFO = b"NETCODE 1.02\x00"
KEY_BYTES = 32
MAC_BYTES = 16
USER_DATA_BYTES = 256
CONNECT_TOKEN_BYTES = 2048
CONNECT_TOKEN_PRIVATE_BYTES = 1024
CONNECT_TOKEN_NONCE_BYTES = 24
CHALLENGE_TOKEN_BYTES = 300
MAX_SERVERS_PER_CONNECT = 32
MAX_PAYLOAD_BYTES = 1200
MAX_DATAGRAM_BYTES = 1300
CONNECTION_REQUEST_BYTES = 1 + 13 + 8 + 8 + 24 + 1024
REPLAY_WINDOW = 256
SEND_INTERVAL = 0.1
DISCONNECT_PACKETS = 10
SERVER_GLOBAL_SEQUENCE_START = 1 << 63

REQUEST, DENIED, CHALLENGE, RESPONSE, KEEP_ALIVE, PAYLOAD, DISCONNECT = range(7)
TYPE_NAMES = ["request", "denied", "challenge", "response", "keep-alive", "payload", "disconnect"]


# The standard's names of the packet types, as the errors of NETCODE.md write them.
TYPE_DESCRIPTIONS = ["connection request", "connection denied", "connection challenge", "connection response", "keep-alive",
                     "payload", "disconnect"]


class Refused(Exception):
    """A token or packet that the standard says to ignore: `code` is the error's name in
    Protocol/NETCODE.md ("Reading and refusals"), `signature` the error with its values written as
    Protocol/CONFORMANCE.md says (`wrongSize(what: "connect token", size: 2047, expected: "2048")`).
    A refusal of the endpoints' own (a state, not a reading) may be a phrase alone."""

    def __init__(self, code, *values, **labelled):
        def text(value):
            return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"') if isinstance(value, str) else str(value)
        arguments = [text(v) for v in values] + ["%s: %s" % (label, text(v)) for label, v in labelled.items()]
        self.code = code
        self.signature = code if not arguments else "%s(%s)" % (code, ", ".join(arguments))
        super().__init__(self.signature)


# ---------------------------------------------------------------- addresses

def parse_address(text):
    """'a.b.c.d:port' or '[v6]:port' -> ('v4', bytes4, port) / ('v6', bytes16, port)."""
    import ipaddress
    if text.startswith("["):
        host, _, port = text[1:].partition("]:")
        return ("v6", ipaddress.IPv6Address(host).packed, int(port))
    host, _, port = text.rpartition(":")
    return ("v4", ipaddress.IPv4Address(host).packed, int(port))


def format_address(address):
    import ipaddress
    kind, raw, port = address
    if kind == "v4":
        return "%s:%d" % (ipaddress.IPv4Address(raw), port)
    return "[%s]:%d" % (ipaddress.IPv6Address(raw), port)


def write_address(address):
    kind, raw, port = address
    if kind == "v4":
        return bytes([1]) + raw + struct.pack("<H", port)
    groups = struct.unpack(">8H", raw)  # hextets a..h, each then written as a little-endian uint16
    return bytes([2]) + struct.pack("<8H", *groups) + struct.pack("<H", port)


class Reader:
    def __init__(self, data, what):
        self.data = data
        self.what = what
        self.offset = 0

    def take(self, count):
        if self.offset + count > len(self.data):
            raise Refused("truncated", what=self.what, needed=self.offset + count, available=len(self.data))
        chunk = self.data[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]


def read_address(reader):
    kind = reader.u8()
    if kind == 1:
        raw = reader.take(4)
        return ("v4", raw, reader.u16())
    if kind == 2:
        groups = struct.unpack("<8H", reader.take(16))
        return ("v6", struct.pack(">8H", *groups), reader.u16())
    raise Refused("invalidAddressType", kind)


def read_addresses(reader):
    count = reader.u32()
    if not 1 <= count <= MAX_SERVERS_PER_CONNECT:
        raise Refused("invalidServerAddressCount", count)
    return [read_address(reader) for _ in range(count)]


# ---------------------------------------------------------------- crypto

def sequence_nonce(sequence):
    """Four zero bytes, then the sequence as a little-endian uint64 (IMPLEMENTERS.md erratum)."""
    return b"\x00\x00\x00\x00" + struct.pack("<Q", sequence)


def seal(plaintext, aad, nonce, key):
    return sodium.crypto_aead_chacha20poly1305_ietf_encrypt(plaintext, aad, nonce, key)


def open_sealed(ciphertext, aad, nonce, key, what):
    try:
        return sodium.crypto_aead_chacha20poly1305_ietf_decrypt(ciphertext, aad, nonce, key)
    except Exception as error:  # nacl.exceptions.CryptoError
        raise Refused("authenticationFailed", what=what) from error


# ---------------------------------------------------------------- connect tokens

class PrivateToken:
    def __init__(self, client_id, timeout_seconds, server_addresses, client_to_server_key, server_to_client_key, user_data):
        assert len(user_data) == USER_DATA_BYTES
        self.client_id = client_id
        self.timeout_seconds = timeout_seconds
        self.server_addresses = server_addresses
        self.client_to_server_key = client_to_server_key
        self.server_to_client_key = server_to_client_key
        self.user_data = user_data

    def plaintext(self):
        data = struct.pack("<QiI", self.client_id, self.timeout_seconds, len(self.server_addresses))
        data += b"".join(write_address(a) for a in self.server_addresses)
        data += self.client_to_server_key + self.server_to_client_key + self.user_data
        return data.ljust(CONNECT_TOKEN_PRIVATE_BYTES - MAC_BYTES, b"\x00")

    @staticmethod
    def associated_data(protocol_id, expire_timestamp):
        return VERSION_INFO + struct.pack("<QQ", protocol_id, expire_timestamp)

    def encrypt(self, protocol_id, expire_timestamp, nonce, private_key):
        return sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
            self.plaintext(), self.associated_data(protocol_id, expire_timestamp), nonce, private_key)

    @classmethod
    def decrypt(cls, encrypted, protocol_id, expire_timestamp, nonce, private_key):
        if len(encrypted) != CONNECT_TOKEN_PRIVATE_BYTES:
            raise Refused("wrongSize", what="encrypted private connect token", size=len(encrypted),
                          expected=str(CONNECT_TOKEN_PRIVATE_BYTES))
        try:
            plain = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
                encrypted, cls.associated_data(protocol_id, expire_timestamp), nonce, private_key)
        except Exception as error:
            raise Refused("authenticationFailed", what="private connect token") from error
        reader = Reader(plain, "private connect token")
        client_id = reader.u64()
        timeout = struct.unpack("<i", reader.take(4))[0]
        addresses = read_addresses(reader)
        c2s = reader.take(KEY_BYTES)
        s2c = reader.take(KEY_BYTES)
        return cls(client_id, timeout, addresses, c2s, s2c, reader.take(USER_DATA_BYTES))


class ConnectToken:
    def __init__(self, protocol_id, create_timestamp, expire_timestamp, nonce, encrypted_private,
                 timeout_seconds, server_addresses, client_to_server_key, server_to_client_key):
        self.protocol_id = protocol_id
        self.create_timestamp = create_timestamp
        self.expire_timestamp = expire_timestamp
        self.nonce = nonce
        self.encrypted_private = encrypted_private
        self.timeout_seconds = timeout_seconds
        self.server_addresses = server_addresses
        self.client_to_server_key = client_to_server_key
        self.server_to_client_key = server_to_client_key

    @classmethod
    def generate(cls, private, protocol_id, create_timestamp, expire_timestamp, private_key, nonce=None):
        nonce = nonce if nonce is not None else os.urandom(CONNECT_TOKEN_NONCE_BYTES)
        encrypted = private.encrypt(protocol_id, expire_timestamp, nonce, private_key)
        return cls(protocol_id, create_timestamp, expire_timestamp, nonce, encrypted, private.timeout_seconds,
                   private.server_addresses, private.client_to_server_key, private.server_to_client_key)

    def write(self):
        data = VERSION_INFO + struct.pack("<QQQ", self.protocol_id, self.create_timestamp, self.expire_timestamp)
        data += self.nonce + self.encrypted_private
        data += struct.pack("<iI", self.timeout_seconds, len(self.server_addresses))
        data += b"".join(write_address(a) for a in self.server_addresses)
        data += self.client_to_server_key + self.server_to_client_key
        return data.ljust(CONNECT_TOKEN_BYTES, b"\x00")

    @classmethod
    def read(cls, data):
        if len(data) != CONNECT_TOKEN_BYTES:
            raise Refused("wrongSize", what="connect token", size=len(data), expected=str(CONNECT_TOKEN_BYTES))
        reader = Reader(data, "connect token")
        if reader.take(13) != VERSION_INFO:
            raise Refused("versionMismatch")
        protocol_id, create, expire = reader.u64(), reader.u64(), reader.u64()
        if create > expire:
            raise Refused("invalidTimestamps", create=create, expire=expire)
        nonce = reader.take(CONNECT_TOKEN_NONCE_BYTES)
        encrypted = reader.take(CONNECT_TOKEN_PRIVATE_BYTES)
        timeout = struct.unpack("<i", reader.take(4))[0]
        addresses = read_addresses(reader)
        return cls(protocol_id, create, expire, nonce, encrypted, timeout, addresses,
                   reader.take(KEY_BYTES), reader.take(KEY_BYTES))


def challenge_token_encrypt(client_id, user_data, sequence, key):
    plain = (struct.pack("<Q", client_id) + user_data).ljust(CHALLENGE_TOKEN_BYTES - MAC_BYTES, b"\x00")
    return seal(plain, b"", sequence_nonce(sequence), key)


def challenge_token_decrypt(encrypted, sequence, key):
    if len(encrypted) != CHALLENGE_TOKEN_BYTES:
        raise Refused("wrongSize", what="encrypted challenge token", size=len(encrypted), expected=str(CHALLENGE_TOKEN_BYTES))
    plain = open_sealed(encrypted, b"", sequence_nonce(sequence), key, "challenge token")
    return struct.unpack("<Q", plain[:8])[0], plain[8:8 + USER_DATA_BYTES]


# ---------------------------------------------------------------- packets

def sequence_bytes(sequence):
    count = 1
    while count < 8 and sequence >> (8 * count):
        count += 1
    return count


def write_request(protocol_id, expire_timestamp, nonce, encrypted_private):
    return bytes([REQUEST]) + VERSION_INFO + struct.pack("<QQ", protocol_id, expire_timestamp) + nonce + encrypted_private


def write_packet(packet_type, body, sequence, key, protocol_id):
    """An encrypted packet: prefix, sequence bytes (least significant first), sealed body."""
    count = sequence_bytes(sequence)
    prefix = (count << 4) | packet_type
    aad = VERSION_INFO + struct.pack("<QB", protocol_id, prefix)
    header = bytes([prefix]) + sequence.to_bytes(8, "little")[:count]
    return header + seal(body, aad, sequence_nonce(sequence), key)


def keep_alive_body(client_index, max_clients):
    return struct.pack("<II", client_index, max_clients)


def challenge_body(challenge_sequence, token):
    return struct.pack("<Q", challenge_sequence) + token


class ReplayProtection:
    def __init__(self):
        self.most_recent = 0
        self.received = [None] * REPLAY_WINDOW

    def already_received(self, sequence):
        if self.most_recent >= REPLAY_WINDOW and sequence <= self.most_recent - REPLAY_WINDOW:
            return True
        entry = self.received[sequence % REPLAY_WINDOW]
        return entry is not None and entry >= sequence

    def advance(self, sequence):
        self.most_recent = max(self.most_recent, sequence)
        self.received[sequence % REPLAY_WINDOW] = sequence


EXPECTED_BODY = {DENIED: (0, 0), CHALLENGE: (308, 308), RESPONSE: (308, 308), KEEP_ALIVE: (8, 8),
                 PAYLOAD: (1, MAX_PAYLOAD_BYTES), DISCONNECT: (0, 0)}
MIN_ENCRYPTED_PACKET_BYTES = 18


def read_request(data, protocol_id, now):
    """Reads a connection request, in the order of NETCODE.md's "Reading and refusals"."""
    if len(data) != CONNECTION_REQUEST_BYTES:
        raise Refused("wrongSize", what="connection request", size=len(data), expected=str(CONNECTION_REQUEST_BYTES))
    if data[1:14] != VERSION_INFO:
        raise Refused("versionMismatch")
    packet_protocol_id, expire = struct.unpack("<QQ", data[14:30])
    if packet_protocol_id != protocol_id:
        raise Refused("protocolIDMismatch", expected=protocol_id, received=packet_protocol_id)
    if expire <= now:
        raise Refused("tokenExpired", expireTimestamp=expire, now=now)
    return expire, data[30:54], data[54:]


def read_packet(data, key, protocol_id, allowed, replay=None):
    """Reads an encrypted packet in the standard's order. Returns (type, sequence, body)."""
    if len(data) < MIN_ENCRYPTED_PACKET_BYTES:
        raise Refused("wrongSize", what="encrypted packet", size=len(data), expected="at least %d" % MIN_ENCRYPTED_PACKET_BYTES)
    prefix = data[0]
    packet_type = prefix & 0x0F
    if packet_type >= 7:
        raise Refused("invalidPacketType", packet_type)
    if packet_type not in allowed:
        raise Refused("packetTypeNotAccepted", TYPE_DESCRIPTIONS[packet_type])
    count = prefix >> 4
    if not 1 <= count <= 8:
        raise Refused("invalidSequenceBytes", count)
    if len(data) < 1 + count + MAC_BYTES:
        raise Refused("wrongSize", what="encrypted packet", size=len(data), expected="at least %d" % (1 + count + MAC_BYTES))
    sequence = int.from_bytes(data[1:1 + count], "little")
    protected = packet_type >= KEEP_ALIVE and replay is not None
    if protected and replay.already_received(sequence):
        raise Refused("replayed", sequence=sequence)
    aad = VERSION_INFO + struct.pack("<QB", protocol_id, prefix)
    body = open_sealed(data[1 + count:], aad, sequence_nonce(sequence), key, "%s packet" % TYPE_DESCRIPTIONS[packet_type])
    if protected:
        replay.advance(sequence)
    low, high = EXPECTED_BODY[packet_type]
    if not low <= len(body) <= high:
        raise Refused("wrongSize", what="%s packet data" % TYPE_DESCRIPTIONS[packet_type], size=len(body),
                      expected=str(low) if low == high else "%d...%d" % (low, high))
    return packet_type, sequence, body


def read_datagram(data, key, protocol_id, now, allowed, replay=None):
    """Reads any datagram: a connection request (prefix byte 0, in the clear) or an encrypted
    packet. Returns (type, sequence, body); a request's body is (expire, nonce, encrypted private
    token) and its sequence 0."""
    if not data:
        raise Refused("truncated", what="packet", needed=1, available=0)
    if data[0] == REQUEST:
        if REQUEST not in allowed:
            raise Refused("packetTypeNotAccepted", TYPE_DESCRIPTIONS[REQUEST])
        return REQUEST, 0, read_request(data, protocol_id, now)
    return read_packet(data, key, protocol_id, allowed, replay)
