"""The UDP side of the suite (issue #31 point 7): a real `arena serve` with its netcode.io port, guest
tokens from its `GET /udp-token`, raw netcode.io datagrams from Tools/netcode-peer (written from the
standard, not from Tickwire), the server's `/metrics`, and a good UDP client (`arena join udp://…
--script … --dump`, headless) whose frames are asserted beside every attack."""
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from harness import ARENA, ROOT, TICK_RATE, Server, arena

sys.path.insert(0, os.path.join(ROOT, "Tools", "netcode-peer"))
import endpoints  # noqa: E402
import netcode as nc  # noqa: E402

# What the good UDP client must see over an attack: the room's tick advancing at this share of
# the tick rate, and no snapshot older than this when a frame is drawn.
MINIMUM_TICK_SHARE = 0.85
MAXIMUM_SNAPSHOT_AGE_MS = 500


class ArenaUDP:
    """`arena serve` with its UDP port (the WebSocket port + 1 by default, read from its banner)."""

    def __init__(self, *options):
        self.server = arena(*options)
        self.port = self.server.port
        deadline = time.monotonic() + 5
        self.udp_port = None
        while self.udp_port is None and time.monotonic() < deadline:
            for line in list(self.server.lines):
                match = re.search(r"udp://127\.0\.0\.1:(\d+)/", line)
                if match:
                    self.udp_port = int(match.group(1))
            time.sleep(0.02)
        if self.udp_port is None:
            raise RuntimeError("arena serve named no udp:// port:\n%s" % "\n".join(self.server.lines))
        self.address = ("127.0.0.1", self.udp_port)

    def token_bytes(self):
        """A fresh guest connect token (2048 bytes) from `GET /udp-token`."""
        with urllib.request.urlopen("http://127.0.0.1:%d/udp-token" % self.port, timeout=3) as response:
            return bytes.fromhex(response.read().decode().strip())

    def token(self):
        return nc.ConnectToken.read(self.token_bytes())

    def dropped(self):
        """The datagrams the netcode.io port ignored, from `tickwire_udp_datagrams_ignored_total`
        on `/metrics`: `short`, `oversized` and `request_rate` (dropped unread), `replayed`
        (netcode.io's replay window) and `refused` (every other check of netcode.io's)."""
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.port, timeout=3) as response:
            text = response.read().decode()
        ignored = {reason: int(float(value)) for reason, value in
                   re.findall(r'^tickwire_udp_datagrams_ignored_total\{reason="(\w+)"\} (\S+)$', text, re.M)}
        unread = ("short", "oversized", "request_rate")
        figures = {reason: ignored.get(reason, 0) for reason in unread}
        figures["replayed"] = ignored.get("replay", 0)
        figures["refused"] = sum(count for reason, count in ignored.items() if reason not in unread + ("replay",))
        return figures

    def kernel_drops(self):
        """The datagrams the kernel dropped for the server's UDP socket (its receive buffer full):
        the last column of its line in /proc/net/udp."""
        local = "0100007F:%04X" % self.udp_port
        with open("/proc/net/udp") as table:
            for line in table:
                fields = line.split()
                if len(fields) > 1 and fields[1] == local:
                    return int(fields[-1])
        return 0

    def cpu_seconds(self):
        """The server process's user and system CPU time so far."""
        with open("/proc/%d/stat" % self.server.pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.server.stop()


def request_packet(token):
    """The connection request a client sends with `token` (unencrypted, 1078 bytes)."""
    return nc.write_request(token.protocol_id, token.expire_timestamp, token.nonce, token.encrypted_private)


def bound(host):
    """A UDP socket on `host` (an address of 127.0.0.0/8), port 0."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((host, 0))
    return sock


def drain(sock, wait):
    """Every datagram `sock` receives within `wait` seconds (bounded), as bytes."""
    received, deadline = [], time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return received
        readable, _, _ = select.select([sock], [], [], left)
        if readable:
            received.append(sock.recvfrom(65536)[0])


def packet_type(datagram, token):
    """The netcode.io type of a datagram the server sent under `token`'s keys, or None when it does not read."""
    try:
        return nc.read_packet(datagram, token.server_to_client_key, token.protocol_id, set(range(7)))[0]
    except (nc.Refused, KeyError):
        return None


class NetcodeClient:
    """A netcode.io client of Tools/netcode-peer on its own socket, connected by hand, every
    datagram it sends kept (for replays)."""

    def __init__(self, server, host):
        self.sock = bound(host)
        self.sock.setblocking(False)
        self.server = server
        self.client = endpoints.Client()
        self.sent = []

    def connect(self, token_bytes, timeout=3.0):
        self.client.connect(token_bytes, time.time())
        deadline = time.monotonic() + timeout
        while self.client.state in (endpoints.SENDING_REQUEST, endpoints.SENDING_RESPONSE) and time.monotonic() < deadline:
            self.pump(0.02)
        return self.client.state == endpoints.CONNECTED

    def pump(self, wait):
        readable, _, _ = select.select([self.sock], [], [], wait)
        if readable:
            while True:
                try:
                    data, peer = self.sock.recvfrom(65536)
                except BlockingIOError:
                    break
                self.client.receive(data, ("v4", socket.inet_aton(peer[0]), peer[1]), time.time())
        self.client.update(time.time())
        for data, _ in self.client.take_outgoing():
            self.sent.append(data)
            self.sock.sendto(data, self.server.address)

    def send_payload(self, payload):
        self.client.send_payload(payload, time.time())
        self.pump(0)
        return self.sent[-1]

    def close(self):
        self.client.disconnect(time.time())
        self.pump(0)
        self.sock.close()


class GoodUDPPlayer:
    """`arena join udp://… --script … --dump`: a real UDP client playing headless, each frame's
    header (tick, age of the newest snapshot, status) recorded with the time it was printed."""

    def __init__(self, server, seconds):
        self.name, self.frames = "arena join udp://", []
        frames = int(seconds * TICK_RATE)
        self.process = subprocess.Popen(
            [ARENA, "join", "udp://127.0.0.1:%d/main" % server.udp_port, "--token-port", str(server.port), "--name", "goodudp",
             "--script", "d5 w3 space _10 a5 s3 e _5", "--frames", str(frames), "--dump"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
            errors="replace")
        Server.running.append(self)
        self.connected = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self):
        return self.process.pid

    def _read(self):
        for line in self.process.stdout:
            if not line.startswith("--- frame"):
                continue
            tick = re.search(r" tick (\d+)", line)
            age = re.search(r" age (\d+)", line)
            status = line.rstrip(" -\n").rsplit("· ", 1)[-1]
            self.frames.append((time.monotonic(), int(tick.group(1)) if tick else None, int(age.group(1)) if age else None, status))
            if status == "connected":
                self.connected.set()

    def wait_connected(self, timeout=5.0):
        if not self.connected.wait(timeout):
            raise RuntimeError("the good UDP client did not connect within %.0f s" % timeout)

    def problems(self, start, end, figures):
        """The good client over [start, end]: connected in every frame, the tick advancing at the
        tick rate, fresh snapshots; its figures go into `figures`."""
        frames = [f for f in self.frames if start <= f[0] <= end]
        problems = []
        if len(frames) < 2:
            return ["the good UDP client drew %d frames over the attack" % len(frames)]
        ticks = [f[1] for f in frames if f[1] is not None]
        ages = [f[2] for f in frames if f[2] is not None]
        rate = (ticks[-1] - ticks[0]) / (frames[-1][0] - frames[0][0]) if len(ticks) >= 2 else 0.0
        worst_age = max(ages) if ages else None
        figures["good udp ticks/s"] = rate
        figures["good udp worst age ms"] = worst_age if worst_age is not None else "-"
        lost = [f for f in frames if f[3] != "connected"]
        if lost:
            problems.append("the good UDP client was %r in %d frames" % (lost[0][3], len(lost)))
        if rate < MINIMUM_TICK_SHARE * TICK_RATE:
            problems.append("the good UDP client saw the room tick %.1f times a second, under %.0f%% of %d Hz" % (
                rate, MINIMUM_TICK_SHARE * 100, TICK_RATE))
        if worst_age is None or worst_age > MAXIMUM_SNAPSHOT_AGE_MS:
            problems.append("the good UDP client drew a snapshot %s ms old (limit %d)" % (worst_age, MAXIMUM_SNAPSHOT_AGE_MS))
        return problems

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
