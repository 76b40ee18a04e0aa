"""The netcode.io vectors of Protocol/vectors/netcode/: their fixed inputs, and the bytes this
Python implementation computes for them. make_vectors.py writes the files; check_vectors.py
checks the files against this implementation, both ways (encode and decode)."""

import os

import netcode

VECTOR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Protocol", "vectors", "netcode")

PROTOCOL_ID = 0x1122334455667788
PRIVATE_KEY = bytes(range(0x00, 0x20))
CLIENT_TO_SERVER_KEY = bytes(range(0x40, 0x60))
SERVER_TO_CLIENT_KEY = bytes(range(0x60, 0x80))
CHALLENGE_KEY = bytes(range(0x80, 0xA0))
TOKEN_NONCE = bytes(range(0xA0, 0xB8))
CLIENT_ID = 0x0123456789ABCDEF
TIMEOUT_SECONDS = 5
CREATE_TIMESTAMP = 1700000000
EXPIRE_TIMESTAMP = 1700000030
SERVER_ADDRESSES = ["127.0.0.1:40000", "[::1]:50000", "[2001:db8::1]:443"]
USER_DATA = bytes(i & 0xFF for i in range(256))
CHALLENGE_SEQUENCE = 7
PAYLOAD_SHORT = b"hello, netcode"
PAYLOAD_MAX = bytes((i * 7 + 3) & 0xFF for i in range(netcode.MAX_PAYLOAD_BYTES))


def private_token():
    return netcode.PrivateToken(CLIENT_ID, TIMEOUT_SECONDS, [netcode.parse_address(a) for a in SERVER_ADDRESSES],
                                CLIENT_TO_SERVER_KEY, SERVER_TO_CLIENT_KEY, USER_DATA)


def connect_token():
    return netcode.ConnectToken.generate(private_token(), PROTOCOL_ID, CREATE_TIMESTAMP, EXPIRE_TIMESTAMP, PRIVATE_KEY,
                                         nonce=TOKEN_NONCE)


def challenge_token():
    return netcode.challenge_token_encrypt(CLIENT_ID, USER_DATA, CHALLENGE_SEQUENCE, CHALLENGE_KEY)


def token_headers():
    lines = [("protocol-id", "%d" % PROTOCOL_ID), ("private-key", PRIVATE_KEY.hex()), ("nonce", TOKEN_NONCE.hex()),
             ("create-timestamp", "%d" % CREATE_TIMESTAMP), ("expire-timestamp", "%d" % EXPIRE_TIMESTAMP),
             ("client-id", "%d" % CLIENT_ID), ("timeout-seconds", "%d" % TIMEOUT_SECONDS)]
    lines += [("server-address", a) for a in SERVER_ADDRESSES]
    lines += [("client-to-server-key", CLIENT_TO_SERVER_KEY.hex()), ("server-to-client-key", SERVER_TO_CLIENT_KEY.hex()),
              ("user-data", USER_DATA.hex())]
    return lines


def packet(name, description, packet_type, key, key_name, sequence, body, extra):
    data = netcode.write_packet(packet_type, body, sequence, key, PROTOCOL_ID)
    headers = [("kind", "packet"), ("type", netcode.TYPE_NAMES[packet_type]), ("protocol-id", "%d" % PROTOCOL_ID),
               ("key", key.hex()), ("key-name", key_name), ("sequence", "%d" % sequence)] + extra
    return name, description, headers, data


def all_vectors():
    """(file name, description, [(header, value)], expected bytes) for every vector."""
    token = connect_token()
    challenge = challenge_token()
    global_sequence = netcode.SERVER_GLOBAL_SEQUENCE_START
    yield ("connect-token-private.hex",
           "The encrypted private part of a connect token (1024 bytes: 1008 encrypted with XChaCha20-Poly1305-IETF, "
           "then the tag); associated data: version info, protocol id, expire timestamp.",
           [("kind", "connect-token-private")] + token_headers(), token.encrypted_private)
    yield ("connect-token.hex", "A whole connect token (2048 bytes), its private part as in connect-token-private.hex.",
           [("kind", "connect-token")] + token_headers(), token.write())
    yield ("challenge-token.hex",
           "An encrypted challenge token (300 bytes, ChaCha20-Poly1305-IETF, no associated data, nonce from the sequence).",
           [("kind", "challenge-token"), ("challenge-key", CHALLENGE_KEY.hex()), ("challenge-sequence", "%d" % CHALLENGE_SEQUENCE),
            ("client-id", "%d" % CLIENT_ID), ("user-data", USER_DATA.hex())], challenge)
    yield ("packet-connection-request.hex",
           "A connection request (1078 bytes, not encrypted) for the connect token of connect-token.hex.",
           [("kind", "packet"), ("type", "request"), ("token", "connect-token.hex")] + token_headers(),
           netcode.write_request(PROTOCOL_ID, EXPIRE_TIMESTAMP, TOKEN_NONCE, token.encrypted_private))
    yield packet("packet-connection-denied.hex", "A connection denied packet, server to client, first global sequence (8 sequence bytes).",
                 netcode.DENIED, SERVER_TO_CLIENT_KEY, "server-to-client", global_sequence, b"", [])
    yield packet("packet-connection-challenge.hex", "A connection challenge carrying challenge-token.hex, second global sequence.",
                 netcode.CHALLENGE, SERVER_TO_CLIENT_KEY, "server-to-client", global_sequence + 1,
                 netcode.challenge_body(CHALLENGE_SEQUENCE, challenge),
                 [("challenge-sequence", "%d" % CHALLENGE_SEQUENCE), ("challenge-token", challenge.hex())])
    yield packet("packet-connection-response.hex", "The client's connection response to that challenge, client sequence 1.",
                 netcode.RESPONSE, CLIENT_TO_SERVER_KEY, "client-to-server", 1, netcode.challenge_body(CHALLENGE_SEQUENCE, challenge),
                 [("challenge-sequence", "%d" % CHALLENGE_SEQUENCE), ("challenge-token", challenge.hex())])
    yield packet("packet-keep-alive.hex", "A keep-alive from the server: client index 3 of 16, slot sequence 0 (one sequence byte).",
                 netcode.KEEP_ALIVE, SERVER_TO_CLIENT_KEY, "server-to-client", 0, netcode.keep_alive_body(3, 16),
                 [("client-index", "3"), ("max-clients", "16")])
    yield packet("packet-payload.hex", "A payload from the client at sequence 1000 (two sequence bytes e8 03, as in the standard).",
                 netcode.PAYLOAD, CLIENT_TO_SERVER_KEY, "client-to-server", 1000, PAYLOAD_SHORT, [("payload", PAYLOAD_SHORT.hex())])
    yield packet("packet-payload-max.hex", "A 1200-byte payload (the maximum) from the server at sequence 0x0102030405060708.",
                 netcode.PAYLOAD, SERVER_TO_CLIENT_KEY, "server-to-client", 0x0102030405060708, PAYLOAD_MAX,
                 [("payload", PAYLOAD_MAX.hex())])
    yield packet("packet-disconnect.hex", "A disconnect from the client at sequence 2^64 - 1 (eight sequence bytes).",
                 netcode.DISCONNECT, CLIENT_TO_SERVER_KEY, "client-to-server", 2 ** 64 - 1, b"", [])


def read_vector(path):
    """-> ({header: [values]}, bytes)."""
    headers = {}
    hex_text = []
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line.startswith("#"):
                key, sep, value = line[1:].strip().partition(":")
                if sep:
                    headers.setdefault(key.strip(), []).append(value.strip())
            elif line:
                hex_text.append(line)
    return headers, bytes.fromhex("".join(hex_text))
