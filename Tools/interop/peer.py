"""An independent WebSocket peer for Tickwire's interop tests, built on the Python
`websockets` library (PyPI). Never a runtime dependency of Tickwire.

  peer.py server --port-file F [--port N] [--no-compression] [--ping-interval S]
      Echo server on 127.0.0.1. A text message "close:CODE:REASON" makes it close the
      connection with that code and reason instead of echoing. Writes its port to F.
      --ping-interval: ping every client every S seconds and drop it (1011) when no pong
      comes within S seconds (default: no pings).
  peer.py client URL [--no-compression]
      Runs a scripted conversation against an echo server at URL (ours) and checks every
      answer: text and binary from 0 bytes to 16 MiB, fragmented messages, ping and pong,
      and a close handshake for each close code. Prints one line per check; exits 1 on
      the first failure, naming it.
"""
import argparse
import asyncio
import os
import random
import sys

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
    async with websockets.serve(echo, "127.0.0.1", args.port, max_size=None,
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


async def client(args):
    compression = None if args.no_compression else "deflate"
    generator = random.Random(20261130)
    async with websockets.connect(args.url, max_size=None, compression=compression,
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
        async with websockets.connect(args.url, compression=compression, ping_interval=None) as connection:
            await connection.close(code, "reason %d" % code)
            received = connection.protocol.close_rcvd
            if received is None:
                fail("close %d: no close frame came back" % code)
            ok("close %d answered with %d" % (code, received.code))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    server_parser = sub.add_parser("server")
    server_parser.add_argument("--port-file", required=True)
    server_parser.add_argument("--port", type=int, default=0)
    server_parser.add_argument("--no-compression", action="store_true")
    server_parser.add_argument("--ping-interval", type=float, default=None)
    client_parser = sub.add_parser("client")
    client_parser.add_argument("url")
    client_parser.add_argument("--no-compression", action="store_true")
    args = parser.parse_args()
    asyncio.run(serve(args) if args.mode == "server" else client(args))


if __name__ == "__main__":
    main()
