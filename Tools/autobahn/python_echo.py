"""An echo server built on the Python `websockets` library: a reference peer for
checking the Autobahn runner itself and a baseline for `tickwire bench ws`.

Usage: python_echo.py PORT_FILE [CERT KEY]
    binds 127.0.0.1 port 0, writes the port to PORT_FILE; with CERT and KEY (PEM files) it
    serves wss:// over Python's `ssl`
"""
import asyncio
import ssl
import sys

import websockets


async def echo(connection):
    async for message in connection:
        await connection.send(message)


async def main():
    tls = None
    if len(sys.argv) >= 4:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(sys.argv[2], sys.argv[3])
    async with websockets.serve(echo, "127.0.0.1", 0, max_size=None, compression="deflate", ssl=tls) as server:
        port = server.sockets[0].getsockname()[1]
        with open(sys.argv[1], "w") as f:
            f.write(str(port))
        await asyncio.Future()


asyncio.run(main())
