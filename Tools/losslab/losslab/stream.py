"""A game-like stream for the lab: a sender that writes one small message at a fixed rate over
UDP or TCP, and a receiver that records when each arrives. Both sides read CLOCK_MONOTONIC,
which network namespaces share, so the receiver's age of a message is its one-way delay.

    python3 -m losslab.stream receive --transport udp --bind 10.201.0.2:9000 --seconds 20 --out FILE
    python3 -m losslab.stream send --transport udp --to 10.201.0.2:9000 --hz 30 --seconds 18

A message is MESSAGE_SIZE bytes: sequence number (u64, big-endian), send time in ns (u64), and
padding. Over TCP messages are back to back (TCP_NODELAY set, so each is its own segment).
The receiver prints "ready" once bound and writes {"transport", "records": [[sequence, sent_ns, received_ns], …]}; the sender
prints {"transport", "sent"}. `summarize` turns both into the figures the suite prints.
"""
import argparse
import json
import socket
import struct
import sys
import time

MESSAGE_SIZE = 64
HEADER = struct.Struct(">QQ")
CONNECT_TIMEOUT = 5.0


def address(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


def message(sequence):
    return HEADER.pack(sequence, time.monotonic_ns()).ljust(MESSAGE_SIZE, b"\0")


def send(transport, to, hz, seconds):
    count = int(round(hz * seconds))
    if transport == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while True:
            try:
                s.settimeout(max(0.1, deadline - time.monotonic()))
                s.connect(to)
                break
            except (ConnectionRefusedError, socket.timeout):
                if time.monotonic() > deadline:
                    raise
                s.close()
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                time.sleep(0.05)
        s.settimeout(5.0)
    start = time.monotonic()
    for sequence in range(count):
        pause = start + sequence / hz - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        if transport == "udp":
            s.sendto(message(sequence), to)
        else:
            s.sendall(message(sequence))
    s.close()
    return {"transport": transport, "sent": count}


def ready():
    print("ready", flush=True)


def receive(transport, bind, seconds, idle):
    """Records arrivals until SECONDS have passed, the TCP sender closes, or (once a message has
    come) IDLE seconds pass without one. Prints "ready" once the socket is bound."""
    records = []
    deadline = time.monotonic() + seconds
    if transport == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(bind)
        ready()
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, min(deadline - time.monotonic(), idle if records else seconds)))
            try:
                data = s.recv(2048)
            except socket.timeout:
                break
            now = time.monotonic_ns()
            if len(data) >= HEADER.size:
                sequence, sent = HEADER.unpack_from(data)
                records.append([sequence, sent, now])
        s.close()
        return {"transport": transport, "records": records}
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(bind)
    listener.listen(1)
    ready()
    listener.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        connection, _ = listener.accept()
    except socket.timeout:
        return {"transport": transport, "records": records, "error": "no connection"}
    finally:
        listener.close()
    pending = b""
    with connection:
        while time.monotonic() < deadline:
            connection.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            now = time.monotonic_ns()
            pending += chunk
            while len(pending) >= MESSAGE_SIZE:
                sequence, sent = HEADER.unpack_from(pending)
                records.append([sequence, sent, now])
                pending = pending[MESSAGE_SIZE:]
    return {"transport": transport, "records": records}


def percentile(values, fraction):
    """The nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-fraction * len(ordered) // 1))))
    return ordered[rank - 1]


def summarize(records, sent):
    """Figures of one stream: loss (fraction of messages never received), ages in ms (median,
    p99, min, max), the longest freeze (ms between two arrivals of new messages at the receiver),
    and counts of duplicates and of messages that arrived after a later one."""
    seen, ages, arrivals, duplicates, late, highest = set(), [], [], 0, 0, -1
    for sequence, sent_ns, received_ns in records:
        if sequence in seen:
            duplicates += 1
            continue
        seen.add(sequence)
        if sequence < highest:
            late += 1
        highest = max(highest, sequence)
        ages.append((received_ns - sent_ns) / 1e6)
        arrivals.append(received_ns / 1e6)
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    return {"sent": sent, "received": len(seen), "lost": sent - len(seen), "loss": (sent - len(seen)) / sent if sent else 0.0,
            "age_min_ms": min(ages) if ages else None, "age_median_ms": percentile(ages, 0.5) if ages else None,
            "age_p99_ms": percentile(ages, 0.99) if ages else None, "age_max_ms": max(ages) if ages else None,
            "longest_freeze_ms": max(gaps) if gaps else None, "duplicates": duplicates, "late": late}


def main(argv=None):
    top = argparse.ArgumentParser(prog="python3 -m losslab.stream", description="a fixed-rate stream of small messages")
    commands = top.add_subparsers(dest="command", required=True)
    sender = commands.add_parser("send", help="send HZ messages a second for SECONDS")
    sender.add_argument("--transport", choices=("udp", "tcp"), required=True)
    sender.add_argument("--to", type=address, required=True, metavar="HOST:PORT")
    sender.add_argument("--hz", type=float, default=30.0)
    sender.add_argument("--seconds", type=float, default=10.0)
    receiver = commands.add_parser("receive", help="record arrivals for SECONDS (or until the TCP sender closes)")
    receiver.add_argument("--transport", choices=("udp", "tcp"), required=True)
    receiver.add_argument("--bind", type=address, required=True, metavar="HOST:PORT")
    receiver.add_argument("--seconds", type=float, default=12.0)
    receiver.add_argument("--idle", type=float, default=1.0, help="UDP: stop after this long without a message")
    receiver.add_argument("--out", required=True, help="where the JSON of arrivals goes")
    arguments = top.parse_args(argv)
    if arguments.command == "send":
        print(json.dumps(send(arguments.transport, arguments.to, arguments.hz, arguments.seconds)), flush=True)
    else:
        result = receive(arguments.transport, arguments.bind, arguments.seconds, arguments.idle)
        with open(arguments.out, "w") as f:
            json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
