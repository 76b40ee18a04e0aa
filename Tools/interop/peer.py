"""An independent WebSocket peer for Tickwire's interop tests, built on the Python
`websockets` library (PyPI). Never a runtime dependency of Tickwire.

  peer.py server --port-file F [--port N] [--no-compression] [--ping-interval S]
                 [--tls-cert CHAIN --tls-key KEY]
      Echo server on 127.0.0.1 (wss:// with --tls-cert and --tls-key). A text message "close:CODE:REASON" makes it close the
      connection with that code and reason instead of echoing. Writes its port to F.
      --ping-interval: ping every client every S seconds and drop it (1011) when no pong
      comes within S seconds (default: no pings).
  peer.py client URL [--no-compression] [--ca FILE]
      Runs a scripted conversation against an echo server at URL (ours) and checks every
      answer: text and binary from 0 bytes to 16 MiB, fragmented messages, ping and pong,
      and a close handshake for each close code. Prints one line per check; exits 1 on
      the first failure, naming it. A wss:// URL is checked against --ca (or the system store).
  peer.py cut wss://HOST:PORT/ --ca FILE
      Upgrades over TLS, sends half of one TLS record and closes the socket: a peer that
      cuts the connection mid-record.
"""
import argparse
import asyncio
import os
import random
import socket
import ssl
import sys
import urllib.parse

import websockets
from websockets.exceptions import ConnectionClosed

SIZES = [0, 1, 125, 126, 127, 65535, 65536, 1 << 20, 16 << 20]
CLOSE_CODES = [1000, 1001, 1003, 1007, 1008, 1011, 3000, 4000, 4999]


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def ok(message):
    print("ok: " + message, flush=True)


async def serve(args):
    async def echo(connection):
        try:
            async for message in connection:
                if isinstance(message, str) and message.startswith("close:"):
                    _, code, reason = message.split(":", 2)
                    await connection.close(int(code), reason)
                    return
                await connection.send(message)
        except ConnectionClosed:
            pass

    compression = None if args.no_compression else "deflate"
    tls = None
    if args.tls_cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    async with websockets.serve(echo, "127.0.0.1", args.port, max_size=None, ssl=tls,
                                compression=compression, ping_interval=args.ping_interval,
                                ping_timeout=args.ping_interval) as server:
        port = server.sockets[0].getsockname()[1]
        temporary = args.port_file + ".tmp"
        with open(temporary, "w") as f:
            f.write(str(port))
        os.replace(temporary, args.port_file)
        await asyncio.Future()


async def expect_echo(connection, message, label):
    try:
        await connection.send(message)
        answer = await asyncio.wait_for(connection.recv(), timeout=30)
    except (ConnectionClosed, asyncio.TimeoutError) as error:
        fail("%s: no echo (%s)" % (label, error or "timed out"))
    if type(answer) is not type(message):
        fail("%s: sent %s, got %s back" % (label, type(message).__name__, type(answer).__name__))
    if answer != message:
        fail("%s: echo differs (%d bytes sent, %d received)" % (label, len(message), len(answer)))
    ok(label)


def client_tls(args):
    """The TLS context for a wss:// URL: trusting --ca (or the system store), checking the host."""
    if not args.url.startswith("wss://"):
        return {}
    return {"ssl": ssl.create_default_context(cafile=args.ca)}


async def client(args):
    compression = None if args.no_compression else "deflate"
    generator = random.Random(20261130)
    tls = client_tls(args)
    async with websockets.connect(args.url, max_size=None, compression=compression, **tls,
                                  ping_interval=None, open_timeout=10) as connection:
        extensions = [extension.name for extension in connection.protocol.extensions]
        ok("connected with extensions %s" % (extensions or "none"))
        if compression and "permessage-deflate" not in extensions:
            fail("permessage-deflate was offered but not negotiated")
        await expect_echo(connection, "", "empty text")
        await expect_echo(connection, "h\u00e9llo \u2713 \U0001F600", "multi-byte text")
        for size in SIZES:
            await expect_echo(connection, generator.randbytes(size), "binary of %d bytes" % size)
        await expect_echo(connection, "x" * (1 << 20), "text of 1 MiB")
        # Fragmented messages: websockets sends an iterable as one message in fragments.
        fragments = [generator.randbytes(n) for n in (1, 100, 0, 5000, 70000)]
        await connection.send(fragments)
        answer = await asyncio.wait_for(connection.recv(), timeout=30)
        if answer != b"".join(fragments):
            fail("fragmented binary message came back different")
        ok("fragmented binary message")
        text_fragments = ["h\u00e9", "llo", "", " w\u00f6rld"]
        await connection.send(text_fragments)
        answer = await asyncio.wait_for(connection.recv(), timeout=30)
        if answer != "".join(text_fragments):
            fail("fragmented text message came back different")
        ok("fragmented text message")
        pong = await connection.ping(b"tickwire-ping")
        await asyncio.wait_for(pong, timeout=10)
        ok("ping answered by a pong")
        await connection.close(1000, "done")
        if connection.close_code != 1000:
            fail("normal close: expected 1000 back, got %s" % connection.close_code)
        ok("normal close handshake")
    for code in CLOSE_CODES:
        async with websockets.connect(args.url, compression=compression, ping_interval=None, **tls) as connection:
            await connection.close(code, "reason %d" % code)
            received = connection.protocol.close_rcvd
            if received is None:
                fail("close %d: no close frame came back" % code)
            ok("close %d answered with %d" % (code, received.code))


def cut(args):
    """Upgrades over TLS, then sends half of one TLS record and closes the socket (a cut mid-record)."""
    url = urllib.parse.urlsplit(args.url)
    context = ssl.create_default_context(cafile=args.ca)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=url.hostname)

    def send_pending():
        data = outgoing.read()
        if data:
            sock.sendall(data)

    def receive():
        data = sock.recv(65536)
        if not data:
            fail("the server closed early")
        incoming.write(data)

    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            send_pending()
            receive()
    send_pending()
    ok("TLS handshake with %s" % tls.version())
    request = ("GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n") % (url.hostname, url.port)
    tls.write(request.encode())
    send_pending()
    response = b""
    while b"\r\n\r\n" not in response:
        try:
            response += tls.read(65536)
        except ssl.SSLWantReadError:
            receive()
    if not response.startswith(b"HTTP/1.1 101"):
        fail("no upgrade: %r" % response[:100])
    ok("upgraded")
    payload = bytes(1000)
    tls.write(b"\x82\xfe" + len(payload).to_bytes(2, "big") + bytes(4) + payload)  # masked with a zero key
    record = outgoing.read()
    sock.sendall(record[: len(record) // 2])
    sock.close()
    ok("cut after %d of %d record bytes" % (len(record) // 2, len(record)))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    server_parser = sub.add_parser("server")
    server_parser.add_argument("--port-file", required=True)
    server_parser.add_argument("--port", type=int, default=0)
    server_parser.add_argument("--no-compression", action="store_true")
    server_parser.add_argument("--ping-interval", type=float, default=None)
    server_parser.add_argument("--tls-cert", help="serve wss:// with this PEM certificate chain")
    server_parser.add_argument("--tls-key", help="the PEM private key of --tls-cert")
    client_parser = sub.add_parser("client")
    client_parser.add_argument("url")
    client_parser.add_argument("--no-compression", action="store_true")
    client_parser.add_argument("--ca", help="for wss://: trust this PEM CA file instead of the system store")
    cut_parser = sub.add_parser("cut", help="upgrade over wss://, then cut the connection mid-record")
    cut_parser.add_argument("url")
    cut_parser.add_argument("--ca", required=True)
    args = parser.parse_args()
    if args.mode == "cut":
        cut(args)
    else:
        asyncio.run(serve(args) if args.mode == "server" else client(args))


if __name__ == "__main__":
    main()
