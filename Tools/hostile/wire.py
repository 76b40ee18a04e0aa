"""Just enough of RFC 6455 and of the Tickwire protocol (Protocol/PROTOCOL.md) for the hostile
suite: a raw WebSocket client on asyncio streams that can also break every rule (unmasked frames,
text messages, huge declared lengths, resets), Tickwire's hello, input, ping and disconnect
messages, and a good client that plays and measures what it gets.

Every wait here is bounded by a timeout.
"""
import asyncio
import base64
import os
import socket
import struct
import time

SUBPROTOCOL = "tickwire.v1"
HELLO, WELCOME, REJECT, SNAPSHOT, INPUT, PING, PONG, DISCONNECT, STATS = range(1, 10)
IDLE_INPUT = bytes([0x05])  # ArenaInput: no move (moveX + 1 = 1, moveY + 1 = 1 << 2), no fire


class HandshakeRefused(Exception):
    """The server answered the upgrade request with another status than 101."""

    def __init__(self, status):
        super().__init__("HTTP %d" % status)
        self.status = status


class Closed(Exception):
    """The connection ended (close frame, EOF or reset) while a message was awaited."""


def now():
    return time.monotonic()


# --- Tickwire byte items (PROTOCOL.md 2.1) and messages (5.3-5.10) ---

def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_varint(data, offset):
    value, shift = 0, 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset


def text(raw):
    return varint(len(raw)) + raw


def read_text(data, offset):
    length, offset = read_varint(data, offset)
    return data[offset:offset + length], offset + length


# Bit 3 of the hello's compression byte: the client decodes text fields (PROTOCOL.md 3.2, 5.3,
# protocol 1.2). The arena's schema has one (the player's name), and its host refuses a hello
# without the bit (reject 1, close 4003).
TEXT_FIELDS = 0x08


def hello(fingerprint, room=b"main", payload=b"good", version=1, modes=TEXT_FIELDS, flags=0, token=None, type_byte=HELLO,
          connect_token=None):
    """A hello (PROTOCOL.md 5.3): `token` is a resume token (flag bit 0), `connect_token` the 1056
    bytes of a connect token (flag bit 1, 5.3.1: expire timestamp, nonce, encrypted private part)."""
    flags |= (1 if token is not None else 0) | (2 if connect_token is not None else 0)
    body = struct.pack(">HQ", version, fingerprint) + bytes([modes, flags]) + text(room)
    if token is not None:
        body += text(token)
    if connect_token is not None:
        body += connect_token
    return bytes([type_byte]) + body + text(payload)


def input_message(ack, sequence, inputs=(IDLE_INPUT,)):
    body = varint(ack) + varint(sequence) + varint(len(inputs)) + b"".join(text(i) for i in inputs)
    return bytes([INPUT]) + body


def ping_message(client_time_us):
    return bytes([PING]) + varint(client_time_us)


def disconnect_message(reason=1, words=b"leaving"):
    return bytes([DISCONNECT]) + struct.pack(">H", reason) + text(words)


def parse_reason_and_text(body):
    reason = struct.unpack(">H", body[:2])[0]
    words, _ = read_text(body, 2)
    return reason, words.decode("utf-8", "replace")


def parse_welcome(body):
    client_id, offset = read_varint(body, 0)
    tick_rate, offset = read_varint(body, offset)
    return client_id, tick_rate


# --- WebSocket (RFC 6455) ---

def mask_bytes(payload, key):
    if not payload or key == b"\0\0\0\0":
        return payload
    repeated = (key * (len(payload) // 4 + 1))[:len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")


def frame_bytes(opcode, payload, fin=True, rsv=0, mask=True, declared_length=None, mask_key=None):
    length = len(payload) if declared_length is None else declared_length
    head = bytearray([(0x80 if fin else 0) | (rsv << 4) | opcode])
    mask_bit = 0x80 if mask else 0
    if length < 126:
        head.append(mask_bit | length)
    elif length < 1 << 16:
        head.append(mask_bit | 126)
        head += struct.pack(">H", length)
    else:
        head.append(mask_bit | 127)
        head += struct.pack(">Q", length)
    if not mask:
        return bytes(head) + payload
    key = os.urandom(4) if mask_key is None else mask_key
    return bytes(head) + key + mask_bytes(payload, key)


class RawWebSocket:
    """A WebSocket client connection whose every byte the caller controls."""

    def __init__(self, reader, writer, sock):
        self.reader, self.writer, self.sock = reader, writer, sock
        self.close_code = None  # the server's close code once its close frame arrived (1005 without one)
        self.close_reason = ""
        self.closed_at = None
        self.response_head = ""

    @classmethod
    async def open(cls, port, path="/", protocol=SUBPROTOCOL, local_address=None, extensions=None,
                   receive_buffer=None, timeout=5.0, head_only=False, host="127.0.0.1"):
        """Connects to host:port (127.0.0.1 by default) from `local_address` (127.0.0.2 for a
        second address) and completes the opening handshake; raises HandshakeRefused for another
        status than 101."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            if local_address:
                sock.bind((local_address, 0))
            if receive_buffer:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setblocking(False)
            await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (host, port)), timeout)
            reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 26)
        except BaseException:
            sock.close()
            raise
        connection = cls(reader, writer, sock)
        key = base64.b64encode(os.urandom(16)).decode()
        request = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n" % (path, host, port, key))
        if protocol:
            request += "Sec-WebSocket-Protocol: %s\r\n" % protocol
        if extensions:
            request += "Sec-WebSocket-Extensions: %s\r\n" % extensions
        writer.write((request + "\r\n").encode())
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        except BaseException:
            connection.abort()
            raise
        connection.response_head = head.decode("latin-1")
        status = int(connection.response_head.split(" ", 2)[1])
        if status != 101:
            connection.abort()
            raise HandshakeRefused(status)
        return connection

    def send_frame(self, opcode, payload, **options):
        self.writer.write(frame_bytes(opcode, payload, **options))

    def send_binary(self, payload):
        self.send_frame(0x2, payload)

    async def drain(self, timeout=5.0):
        await asyncio.wait_for(self.writer.drain(), timeout)

    async def _read_frame(self):
        head = await self.reader.readexactly(2)
        opcode, length = head[0] & 0x0F, head[1] & 0x7F
        if length == 126:
            length = struct.unpack(">H", await self.reader.readexactly(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", await self.reader.readexactly(8))[0]
        key = await self.reader.readexactly(4) if head[1] & 0x80 else None
        payload = await self.reader.readexactly(length)
        return head[0] & 0x80, opcode, mask_bytes(payload, key) if key else payload

    async def receive(self, timeout=5.0):
        """The next data message as (opcode, payload); answers pings; raises Closed at a close
        frame (after answering it), EOF or reset, and asyncio.TimeoutError after `timeout`."""
        if self.closed_at is not None:
            raise Closed()
        parts, first_opcode = [], None
        deadline = now() + timeout
        while True:
            try:
                fin, opcode, payload = await asyncio.wait_for(self._read_frame(), max(0.001, deadline - now()))
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                self._ended(1006, "")
                raise Closed()
            if opcode == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                self._ended(code, payload[2:].decode("utf-8", "replace"))
                try:
                    self.send_frame(0x8, payload[:2])
                except Exception:
                    pass
                self.abort()
                raise Closed()
            if opcode == 0x9:
                self.send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            if opcode != 0x0:
                first_opcode = opcode
            parts.append(payload)
            if fin:
                return first_opcode, b"".join(parts)

    async def wait_closed(self, timeout=5.0):
        """Reads (and drops) messages until the connection ends; returns the close code, or None
        when it is still open after `timeout`."""
        deadline = now() + timeout
        while self.closed_at is None and now() < deadline:
            try:
                await self.receive(timeout=deadline - now())
            except Closed:
                break
            except asyncio.TimeoutError:
                return None
        return self.close_code

    def _ended(self, code, reason):
        if self.closed_at is None:
            self.close_code, self.close_reason, self.closed_at = code, reason, now()

    def reset(self):
        """Ends the connection with a TCP reset: no close frame, no FIN."""
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.abort()

    def abort(self):
        try:
            self.writer.transport.abort()
        except Exception:
            pass
