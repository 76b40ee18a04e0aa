#!/usr/bin/env python3
"""An independent netcode.io 1.02 peer over real UDP sockets, for interop with Tickwire.

Usage:
  peer.py server --protocol-id N --private-key HEX [--address 127.0.0.1] [--port 0]
                 [--max-clients 4] [--port-file PATH] [--duration SECONDS]
      Binds a UDP socket, writes the bound port to --port-file (when given) and to stdout
      ("listening 127.0.0.1:PORT"), echoes every payload back to its client, and stops after
      --duration seconds (default 20) or on SIGTERM, disconnecting its clients.
  peer.py client --protocol-id N --private-key HEX --server ADDRESS [--client-id N]
                 [--payloads 5] [--timeout 10]
      Mints a connect token for ADDRESS (timeout 5 s, expiry 60 s), connects from 127.0.0.1
      port 0, sends --payloads payloads, waits for each to be echoed, disconnects. Exits 0 when
      every payload came back, 1 otherwise; every wait is bounded by --timeout seconds.
  peer.py token --protocol-id N --private-key HEX --server ADDRESS [--client-id N]
      Prints a connect token (2048 bytes) as hex.
"""

import argparse
import os
import select
import signal
import socket
import sys
import time

import endpoints
import netcode as nc


def udp_socket(host, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((host, port))
    sock.setblocking(False)
    return sock


def to_address(peer):
    return ("v4", socket.inet_aton(peer[0]), peer[1])


def from_address(address):
    return (socket.inet_ntoa(address[1]), address[2])


def pump(sock, endpoint, wait):
    """Waits up to `wait` seconds for datagrams, feeds them, sends what the endpoint queued."""
    readable, _, _ = select.select([sock], [], [], wait)
    if readable:
        for _ in range(64):
            try:
                data, peer = sock.recvfrom(2048)
            except BlockingIOError:
                break
            endpoint.receive(data, to_address(peer), time.time())
    endpoint.update(time.time())
    for data, address in endpoint.take_outgoing():
        sock.sendto(data, from_address(address))


def mint(args):
    private = nc.PrivateToken(args.client_id, 5, [nc.parse_address(args.server)], os.urandom(32), os.urandom(32),
                              bytes(256))
    now = int(time.time())
    return nc.ConnectToken.generate(private, args.protocol_id, now, now + 60, bytes.fromhex(args.private_key)).write()


def run_server(args):
    sock = udp_socket(args.address, args.port)
    host, port = sock.getsockname()
    server = endpoints.Server(args.protocol_id, bytes.fromhex(args.private_key), nc.parse_address("%s:%d" % (host, port)),
                              args.max_clients)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as out:
            out.write("%d\n" % port)
        os.replace(args.port_file + ".tmp", args.port_file)
    print("listening %s:%d" % (host, port), flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    deadline = time.time() + args.duration
    echoed = 0
    while not stopping and time.time() < deadline:
        pump(sock, server, 0.01)
        for index, payload in server.payloads:
            server.send_payload(index, payload)
            echoed += 1
        server.payloads = []
        for event in server.events:
            print("server: %s" % event, flush=True)
        server.events = []
        for data, address in server.take_outgoing():
            sock.sendto(data, from_address(address))
    server.disconnect_all()
    for data, address in server.take_outgoing():
        sock.sendto(data, from_address(address))
    print("server: echoed %d payloads, ignored %d packets" % (echoed, server.ignored), flush=True)
    return 0


def run_client(args):
    sock = udp_socket("127.0.0.1", 0)
    client = endpoints.Client()
    client.connect(mint(args), time.time())
    deadline = time.time() + args.timeout
    while client.state != endpoints.CONNECTED and client.state > 0 and time.time() < deadline:
        pump(sock, client, 0.01)
    if client.state != endpoints.CONNECTED:
        print("client: not connected (state %d)" % client.state, flush=True)
        return 1
    print("client: connected as client %d of %d" % (client.client_index, client.max_clients), flush=True)
    sent = [("python payload %d" % i).encode() for i in range(args.payloads)]
    for payload in sent:
        client.send_payload(payload, time.time())
    received = []
    while len(received) < len(sent) and client.state == endpoints.CONNECTED and time.time() < deadline:
        pump(sock, client, 0.01)
        received += client.received
        client.received = []
    client.disconnect(time.time())
    for data, address in client.take_outgoing():
        sock.sendto(data, from_address(address))
    ok = sorted(received) == sorted(sent)
    print("client: echoed %d/%d payloads%s" % (len(received), len(sent), "" if ok else " (mismatch)"), flush=True)
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("server", "client", "token"):
        command = sub.add_parser(name, help="see the usage above")
        command.add_argument("--protocol-id", type=lambda v: int(v, 0), required=True)
        command.add_argument("--private-key", required=True)
        if name == "server":
            command.add_argument("--address", default="127.0.0.1")
            command.add_argument("--port", type=int, default=0)
            command.add_argument("--max-clients", type=int, default=4)
            command.add_argument("--port-file")
            command.add_argument("--duration", type=float, default=20.0)
        else:
            command.add_argument("--server", required=True)
            command.add_argument("--client-id", type=lambda v: int(v, 0), default=0x5059)
        if name == "client":
            command.add_argument("--payloads", type=int, default=5)
            command.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    if args.command == "server":
        return run_server(args)
    if args.command == "client":
        return run_client(args)
    print(mint(args).hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
