#!/usr/bin/env python3
"""Checks Protocol/vectors/netcode/*.hex against this independent Python netcode.io 1.02: each
vector's bytes are re-encoded from its header inputs and must match, and decoded back (tokens
decrypted and read, packets decrypted and their fields compared); each error vector (`error`
header) is read with its inputs and must be refused with that error, values included (NETCODE.md,
"Reading and refusals"). Exits non-zero on any mismatch.

Usage: check_vectors.py [--help]
"""

import glob
import os
import sys

import netcode
import vectors


def check_error(headers, data):
    """An error vector: read with its inputs, it must be refused with its error, values included."""
    inputs = {key: values[0] for key, values in headers.items() if " " not in key}
    try:
        vectors.decode(headers["kind"][0], data, inputs)
    except netcode.Refused as refusal:
        if refusal.signature != headers["error"][0]:
            raise AssertionError("refused with %s, expected %s" % (refusal.signature, headers["error"][0])) from None
        return
    raise AssertionError("read, but must be refused with %s" % headers["error"][0])


def check(path):
    headers, data = vectors.read_vector(path)
    one = lambda key: headers[key][0]
    kind = one("kind")
    if "error" in headers:
        return check_error(headers, data)
    if kind in ("connect-token-private", "connect-token") or (kind == "packet" and one("type") == "request"):
        private = netcode.PrivateToken(int(one("client-id")), int(one("timeout-seconds")),
                                       [netcode.parse_address(a) for a in headers["server-address"]],
                                       bytes.fromhex(one("client-to-server-key")), bytes.fromhex(one("server-to-client-key")),
                                       bytes.fromhex(one("user-data")))
        protocol_id, expire = int(one("protocol-id")), int(one("expire-timestamp"))
        nonce, key = bytes.fromhex(one("nonce")), bytes.fromhex(one("private-key"))
        token = netcode.ConnectToken.generate(private, protocol_id, int(one("create-timestamp")), expire, key, nonce=nonce)
        if kind == "connect-token-private":
            expected = token.encrypted_private
            encrypted = data
        elif kind == "connect-token":
            expected = token.write()
            read = netcode.ConnectToken.read(data)
            assert (read.protocol_id, read.expire_timestamp, read.timeout_seconds) == (protocol_id, expire, private.timeout_seconds)
            assert read.server_addresses == private.server_addresses, "server addresses differ"
            encrypted = read.encrypted_private
        else:
            expected = netcode.write_request(protocol_id, expire, nonce, token.encrypted_private)
            read_expire, read_nonce, encrypted = netcode.read_request(data, protocol_id, expire - 1)
            assert (read_expire, read_nonce) == (expire, nonce)
        decrypted = netcode.PrivateToken.decrypt(encrypted, protocol_id, expire, nonce, key)
        assert decrypted.plaintext() == private.plaintext(), "decrypted private token differs"
    elif kind == "challenge-token":
        key, sequence = bytes.fromhex(one("challenge-key")), int(one("challenge-sequence"))
        expected = netcode.challenge_token_encrypt(int(one("client-id")), bytes.fromhex(one("user-data")), sequence, key)
        assert netcode.challenge_token_decrypt(data, sequence, key) == (int(one("client-id")), bytes.fromhex(one("user-data")))
    else:
        packet_type = netcode.TYPE_NAMES.index(one("type"))
        key, sequence, protocol_id = bytes.fromhex(one("key")), int(one("sequence")), int(one("protocol-id"))
        if packet_type in (netcode.CHALLENGE, netcode.RESPONSE):
            body = netcode.challenge_body(int(one("challenge-sequence")), bytes.fromhex(one("challenge-token")))
        elif packet_type == netcode.KEEP_ALIVE:
            body = netcode.keep_alive_body(int(one("client-index")), int(one("max-clients")))
        elif packet_type == netcode.PAYLOAD:
            body = bytes.fromhex(one("payload"))
        else:
            body = b""
        expected = netcode.write_packet(packet_type, body, sequence, key, protocol_id)
        read_type, read_sequence, read_body = netcode.read_packet(data, key, protocol_id, set(range(1, 7)), netcode.ReplayProtection())
        assert (read_type, read_sequence, read_body) == (packet_type, sequence, body), "decoded packet differs"
    if data != expected:
        raise AssertionError("bytes differ from this implementation's encoding")


def main():
    if "--help" in sys.argv[1:]:
        print(__doc__.strip())
        return 0
    paths = sorted(glob.glob(os.path.join(vectors.VECTOR_DIR, "*.hex")))
    if not paths:
        print("no vectors in %s" % vectors.VECTOR_DIR)
        return 1
    failures = 0
    for path in paths:
        try:
            check(path)
            print("ok   %s" % os.path.basename(path))
        except Exception as error:  # report every vector, then fail
            failures += 1
            print("FAIL %s: %s: %s" % (os.path.basename(path), type(error).__name__, error))
    print("%d vectors, %d failed" % (len(paths), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
