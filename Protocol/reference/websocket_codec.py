#!/usr/bin/env python3
"""A WebSocket frame reader (RFC 6455 section 5, and RFC 7692's permessage-deflate), as PROTOCOL.md
section 1 uses them, for the `websocket-*.hex` vectors: the conformance adapter answers their
requests with it.

A Receiver reads the frames one side of a connection receives (a server's from a client, masked;
a client's from a server, unmasked), in one connection's state: it returns each message or control
frame as an event and the bytes it writes back (the pong that answers a ping; the close that
answers a close). It reads whole, unfragmented frames, which is what the vectors hold; a fragmented
message, a frame masked the wrong way, a reserved bit or opcode, or a control frame over 125 bytes
is refused (WebSocketError), as RFC 6455 requires.
"""
import struct
import zlib

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class WebSocketError(Exception):
    """A frame RFC 6455 says to fail the connection for; `signature` names the rule broken."""

    def __init__(self, signature):
        super().__init__(signature)
        self.signature = signature


def frame(opcode, payload, mask=None):
    """One final frame: the header, then the payload (masked with `mask`, 4 bytes, when given)."""
    length = len(payload)
    head = bytes([0x80 | opcode])
    bit = 0x80 if mask is not None else 0
    if length < 126:
        head += bytes([bit | length])
    elif length < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", length)
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", length)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Receiver:
    """One side of a connection: `role` is "server-receives" or "client-receives"."""

    def __init__(self, role, permessage_deflate=False):
        self.from_client = role == "server-receives"
        self.inflater = zlib.decompressobj(-15) if permessage_deflate else None

    def receive(self, data):
        """(events, reply) for the frames in `data`: events as dicts ({"kind": "binary",
        "payload": HEX}, "text", "close" with code and reason, "ping", "pong")."""
        events, reply, offset = [], b"", 0
        while offset < len(data):
            event, answer, offset = self.read_frame(data, offset)
            events.append(event)
            reply += answer
        return events, reply

    def read_frame(self, data, offset):
        def need(count):
            if offset + count > len(data):
                raise WebSocketError("truncated")
        need(2)
        first, second = data[offset], data[offset + 1]
        fin, rsv, opcode, masked, length = first & 0x80, first & 0x70, first & 0x0F, second & 0x80, second & 0x7F
        offset += 2
        if length == 126:
            need(2)
            length, offset = struct.unpack_from(">H", data, offset)[0], offset + 2
        elif length == 127:
            need(8)
            length, offset = struct.unpack_from(">Q", data, offset)[0], offset + 8
        if bool(masked) != self.from_client:
            raise WebSocketError("maskedFromServer" if masked else "unmaskedFromClient")
        if rsv & ~(0x40 if self.inflater is not None and opcode in (TEXT, BINARY) else 0):
            raise WebSocketError("reservedBits")
        if opcode not in (TEXT, BINARY, CLOSE, PING, PONG) or not fin:
            raise WebSocketError("unsupportedFrame")
        if opcode >= CLOSE and length > 125:
            raise WebSocketError("controlFrameTooLarge")
        key = b""
        if masked:
            need(4)
            key, offset = data[offset:offset + 4], offset + 4
        need(length)
        payload = bytes(b ^ key[i % 4] if key else b for i, b in enumerate(data[offset:offset + length]))
        offset += length
        if rsv & 0x40:
            payload = self.inflater.decompress(payload + b"\x00\x00\xff\xff")
        return self.event(opcode, payload) + (offset,)

    def event(self, opcode, payload):
        # A server's own frames go unmasked; a client would mask its answers with a fresh random key,
        # which no vector can pin, so a client's answers are not given here.
        answer = (lambda op, body: frame(op, body)) if self.from_client else (lambda op, body: b"")
        if opcode == TEXT:
            try:
                return {"kind": "text", "text": payload.decode("utf-8")}, b""
            except UnicodeDecodeError:
                raise WebSocketError("invalidUTF8") from None
        if opcode == BINARY:
            return {"kind": "binary", "payload": payload.hex()}, b""
        if opcode == PING:
            return {"kind": "ping", "payload": payload.hex()}, answer(PONG, payload)
        if opcode == PONG:
            return {"kind": "pong", "payload": payload.hex()}, b""
        if len(payload) == 1:
            raise WebSocketError("invalidClosePayload")
        code = struct.unpack(">H", payload[:2])[0] if payload else None
        try:
            reason = payload[2:].decode("utf-8")
        except UnicodeDecodeError:
            raise WebSocketError("invalidUTF8") from None
        return {"kind": "close", "code": code, "reason": reason}, answer(CLOSE, payload[:2])
