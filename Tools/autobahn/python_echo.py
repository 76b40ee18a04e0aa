"""An echo server built on the Python `websockets` library: a reference peer for
checking the Autobahn runner itself and a baseline for `tickwire bench ws`.

Usage: python_echo.py PORT_FILE   (binds 127.0.0.1 port 0, writes the port to PORT_FILE)
"""
import asyncio
import sys

import websockets


async def echo(connection):
    async for message in connection:
        await connection.send(message)


async def main():
    async with websockets.serve(echo, "127.0.0.1", 0, max_size=None, compression="deflate") as server:
        port = server.sockets[0].getsockname()[1]
        with open(sys.argv[1], "w") as f:
            f.write(str(port))
        await asyncio.Future()


asyncio.run(main())
