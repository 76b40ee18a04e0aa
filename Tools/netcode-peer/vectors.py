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


def error_vectors():
    """(file name, description, [(header, value)], bytes) for every refusal of NETCODE.md's
    "Reading and refusals" a single datagram or token can meet: the inputs to read it with, and the
    error it must be refused with."""
    token = connect_token()
    request = netcode.write_request(PROTOCOL_ID, EXPIRE_TIMESTAMP, TOKEN_NONCE, token.encrypted_private)
    request_inputs = [("protocol-id", "%d" % PROTOCOL_ID), ("private-key", PRIVATE_KEY.hex()),
                      ("create-timestamp", "%d" % CREATE_TIMESTAMP)]
    keep_alive = netcode.write_packet(netcode.KEEP_ALIVE, netcode.keep_alive_body(3, 16), 0, SERVER_TO_CLIENT_KEY, PROTOCOL_ID)
    packet_inputs = [("protocol-id", "%d" % PROTOCOL_ID), ("key", SERVER_TO_CLIENT_KEY.hex()), ("key-name", "server-to-client")]
    token_inputs = [("private-key", PRIVATE_KEY.hex())]

    def vector(name, description, kind, inputs, data, error):
        return name, description, [("kind", kind)] + inputs + [("error", error)], data

    yield vector("packet-error-empty.hex", "A datagram of zero bytes.", "packet", packet_inputs, b"",
                 'truncated(what: "packet", needed: 1, available: 0)')
    yield vector("packet-error-request-size.hex", "A connection request one byte short (1077 bytes).", "packet", request_inputs,
                 request[:-1], 'wrongSize(what: "connection request", size: 1077, expected: "1078")')
    yield vector("packet-error-request-version.hex", 'A connection request whose version info says "NETCODE 1.01".', "packet",
                 request_inputs, request[:12] + b"1" + request[13:], "versionMismatch")
    yield vector("packet-error-request-protocol-id.hex", "The connection request of packet-connection-request.hex, read by a "
                 "server of protocol id 1 more.", "packet",
                 [("protocol-id", "%d" % (PROTOCOL_ID + 1))] + request_inputs[1:], request,
                 "protocolIDMismatch(expected: %d, received: %d)" % (PROTOCOL_ID + 1, PROTOCOL_ID))
    yield vector("packet-error-request-expired.hex", "The connection request of packet-connection-request.hex, read at its "
                 "token's expire timestamp (a token must expire after now).", "packet",
                 request_inputs[:2] + [("create-timestamp", "%d" % EXPIRE_TIMESTAMP)], request,
                 "tokenExpired(expireTimestamp: %d, now: %d)" % (EXPIRE_TIMESTAMP, EXPIRE_TIMESTAMP))
    yield vector("packet-error-too-small.hex", "The keep-alive of packet-keep-alive.hex cut to 17 bytes: an encrypted packet "
                 "has at least 18.", "packet", packet_inputs, keep_alive[:17],
                 'wrongSize(what: "encrypted packet", size: 17, expected: "at least 18")')
    yield vector("packet-error-type.hex", "Prefix byte 0x17: packet type 7, which does not exist.", "packet", packet_inputs,
                 bytes([0x17]) + keep_alive[1:], "invalidPacketType(7)")
    yield vector("packet-error-sequence-bytes.hex", "Prefix byte 0x94: a keep-alive with 9 sequence bytes (1 to 8 are allowed).",
                 "packet", packet_inputs, bytes([0x94]) + keep_alive[1:], "invalidSequenceBytes(9)")
    yield vector("packet-error-sequence-room.hex", "Prefix byte 0x84 (8 sequence bytes) in 20 bytes: no room for the sequence "
                 "and the 16-byte tag.", "packet", packet_inputs, bytes([0x84]) + keep_alive[1:20],
                 'wrongSize(what: "encrypted packet", size: 20, expected: "at least 25")')
    yield vector("packet-error-authentication.hex", "The keep-alive of packet-keep-alive.hex with the last byte of its tag "
                 "flipped.", "packet", packet_inputs, keep_alive[:-1] + bytes([keep_alive[-1] ^ 1]),
                 'authenticationFailed(what: "keep-alive packet")')
    yield vector("packet-error-body-size.hex", "A keep-alive whose encrypted data is 7 bytes (it must be 8).", "packet",
                 packet_inputs, netcode.write_packet(netcode.KEEP_ALIVE, b"\x03\x00\x00\x00\x10\x00\x00", 0,
                                                     SERVER_TO_CLIENT_KEY, PROTOCOL_ID),
                 'wrongSize(what: "keep-alive packet data", size: 7, expected: "8")')
    whole = token.write()
    yield vector("connect-token-error-size.hex", "The connect token of connect-token.hex one byte short (2047 bytes).",
                 "connect-token", token_inputs, whole[:-1], 'wrongSize(what: "connect token", size: 2047, expected: "2048")')
    yield vector("connect-token-error-version.hex", 'A connect token whose version info says "NETCODE 1.01".', "connect-token",
                 token_inputs, whole[:12] + b"1" + whole[13:], "versionMismatch")
    late = netcode.ConnectToken.generate(private_token(), PROTOCOL_ID, EXPIRE_TIMESTAMP + 1, EXPIRE_TIMESTAMP, PRIVATE_KEY,
                                         nonce=TOKEN_NONCE).write()
    yield vector("connect-token-error-timestamps.hex", "A connect token created one second after it expires.", "connect-token",
                 token_inputs, late, "invalidTimestamps(create: %d, expire: %d)" % (EXPIRE_TIMESTAMP + 1, EXPIRE_TIMESTAMP))
    # Version info, protocol id, create and expire timestamps, nonce, private part, timeout: the
    # server address count is at byte 13 + 24 + 24 + 1024 + 4 = 1089, the first address type after it.
    count_at = 13 + 24 + 24 + netcode.CONNECT_TOKEN_PRIVATE_BYTES + 4
    yield vector("connect-token-error-address-count.hex", "A connect token naming 0 server addresses (1 to 32 are allowed).",
                 "connect-token", token_inputs, whole[:count_at] + bytes(4) + whole[count_at + 4:], "invalidServerAddressCount(0)")
    yield vector("connect-token-error-address-type.hex", "A connect token whose first server address has type 3 (1 is IPv4, "
                 "2 IPv6).", "connect-token", token_inputs, whole[:count_at + 4] + bytes([3]) + whole[count_at + 5:],
                 "invalidAddressType(3)")
    yield vector("connect-token-private-error-authentication.hex", "The private connect token of connect-token-private.hex "
                 "with the last byte of its tag flipped.", "connect-token-private",
                 [(k, v) for k, v in token_headers() if k in ("protocol-id", "private-key", "nonce", "expire-timestamp")],
                 token.encrypted_private[:-1] + bytes([token.encrypted_private[-1] ^ 1]),
                 'authenticationFailed(what: "private connect token")')
    challenge = challenge_token()
    yield vector("challenge-token-error-authentication.hex", "The challenge token of challenge-token.hex read with sequence 8 "
                 "(it was sealed with 7).", "challenge-token",
                 [("challenge-key", CHALLENGE_KEY.hex()), ("challenge-sequence", "8")], challenge,
                 'authenticationFailed(what: "challenge token")')


def private_fields(private):
    """A decrypted private connect token's fields, named as the vectors name them."""
    return {"client-id": str(private.client_id), "timeout-seconds": str(private.timeout_seconds),
            "server-address": [netcode.format_address(a) for a in private.server_addresses],
            "client-to-server-key": private.client_to_server_key.hex(),
            "server-to-client-key": private.server_to_client_key.hex(), "user-data": private.user_data.hex()}


def decode(kind, data, inputs):
    """Reads a vector's bytes as its kind says, given its inputs (Protocol/CONFORMANCE.md, family
    netcode: `inputs` maps header names to their text); returns every field the reading yields,
    named and written as the vectors write them. Raises netcode.Refused."""
    number = lambda name: int(inputs[name])
    key = lambda name: bytes.fromhex(inputs[name])
    if kind == "connect-token-private":
        return private_fields(netcode.PrivateToken.decrypt(data, number("protocol-id"), number("expire-timestamp"), key("nonce"),
                                                           key("private-key")))
    if kind == "connect-token":
        token = netcode.ConnectToken.read(data)
        fields = private_fields(netcode.PrivateToken.decrypt(token.encrypted_private, token.protocol_id, token.expire_timestamp,
                                                             token.nonce, key("private-key")))
        fields.update({"protocol-id": str(token.protocol_id), "create-timestamp": str(token.create_timestamp),
                       "expire-timestamp": str(token.expire_timestamp), "nonce": token.nonce.hex(),
                       "timeout-seconds": str(token.timeout_seconds),
                       "server-address": [netcode.format_address(a) for a in token.server_addresses],
                       "client-to-server-key": token.client_to_server_key.hex(),
                       "server-to-client-key": token.server_to_client_key.hex()})
        return fields
    if kind == "challenge-token":
        client_id, user_data = netcode.challenge_token_decrypt(data, number("challenge-sequence"), key("challenge-key"))
        return {"client-id": str(client_id), "user-data": user_data.hex()}
    if kind != "packet":
        raise ValueError("unknown netcode kind %s" % kind)
    # Read as a peer reads a connected sender's datagram: every type accepted, a fresh replay window.
    packet_type, sequence, body = netcode.read_datagram(
        data, key("key") if "key" in inputs else None, number("protocol-id"),
        number("create-timestamp") if "create-timestamp" in inputs else 0, set(range(7)), netcode.ReplayProtection())
    if packet_type == netcode.REQUEST:
        expire, nonce, encrypted = body
        fields = {"type": "request", "protocol-id": inputs["protocol-id"], "expire-timestamp": str(expire), "nonce": nonce.hex()}
        if "private-key" in inputs:
            fields.update(private_fields(netcode.PrivateToken.decrypt(encrypted, number("protocol-id"), expire, nonce,
                                                                      key("private-key"))))
        return fields
    fields = {"type": netcode.TYPE_NAMES[packet_type], "sequence": str(sequence)}
    if packet_type in (netcode.CHALLENGE, netcode.RESPONSE):
        fields["challenge-sequence"] = str(int.from_bytes(body[:8], "little"))
        fields["challenge-token"] = body[8:].hex()
    elif packet_type == netcode.KEEP_ALIVE:
        fields["client-index"] = str(int.from_bytes(body[:4], "little"))
        fields["max-clients"] = str(int.from_bytes(body[4:], "little"))
    elif packet_type == netcode.PAYLOAD:
        fields["payload"] = body.hex()
    return fields


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
