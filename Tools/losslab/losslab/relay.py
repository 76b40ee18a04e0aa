"""The relay: one process that holds the TUN device of each namespace and moves IP packets
between them through the impairment model. It opens no socket on any network: only the two
TUN descriptors, and a Unix stream socket in the lab's state directory for control.

    python3 -m losslab.relay STATE_DIR/spec.json

spec.json (written by lab.py): {"name", "namespaces": {"a", "b"}, "device",
"impairments": {"a_to_b", "b_to_a"}, "queue_limit", "owner_pid" (or null)}.

Control socket (STATE_DIR/control.sock): one JSON line in, one JSON line out.
    {"cmd": "ping"}                                   → {"ok": true}
    {"cmd": "stats"}                                  → {"ok": true, "counters": …, …}
    {"cmd": "configure", "a_to_b": {…}, "b_to_a": {…}} → {"ok": true} (either may be left out)
SIGUSR1 writes STATE_DIR/counters.json. SIGTERM, SIGINT, SIGHUP, or the owner process's exit
(watched through a pidfd) stop the relay: it stops every process left in the two namespaces,
deletes them, and writes counters.json with the final counters (and prints them).
"""
import json
import os
import select
import shutil
import signal
import socket
import sys
import time

from . import netns
from .impairment import Impairment
from .scheduler import DIRECTIONS, Scheduler

MAX_PACKET = 65535
READ_BURST = 256            # packets read from one descriptor before looking at the clock again
IDLE_WAKE = 0.5             # seconds: the longest the loop sleeps with nothing queued
CONTROL_TIMEOUT = 0.2       # seconds a control client may take to send its request (packets wait meanwhile)
MAX_REQUEST = 64 * 1024


class Relay:
    def __init__(self, spec, state_dir):
        self.spec = spec
        self.state_dir = state_dir
        self.name = spec["name"]
        impairments = {d: Impairment.from_json(spec["impairments"][d]) for d in DIRECTIONS}
        self.impairments = impairments
        self.scheduler = Scheduler(impairments, spec.get("queue_limit") or 10_000)
        self.started = time.monotonic()
        self.stop_reason = None
        self.write_error_logged = 0

    # -- setup ---------------------------------------------------------------------------------

    def open(self):
        self.tun = {}
        for side in ("a", "b"):
            with netns.inside(self.spec["namespaces"][side]):
                netns.disable_ipv6()
                self.tun[side] = netns.open_tun(self.spec["device"])
        self.control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path = os.path.join(self.state_dir, "control.sock")
        if os.path.exists(path):
            os.unlink(path)
        self.control.bind(path)
        self.control.listen(8)
        self.control.setblocking(False)
        self.wake_read, self.wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(self.wake_write)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_stop_signal)
        signal.signal(signal.SIGUSR1, lambda *_: self.write_counters())
        self.owner = None
        owner = self.spec.get("owner_pid")
        if owner:
            try:
                self.owner = os.pidfd_open(owner)
            except ProcessLookupError:
                self.stop_reason = "owner %d was gone at start" % owner

    def _on_stop_signal(self, number, _frame):
        self.stop_reason = self.stop_reason or signal.Signals(number).name

    # -- the loop ------------------------------------------------------------------------------

    def run(self):
        scheduler = self.scheduler
        fd_a, fd_b = self.tun["a"], self.tun["b"]
        direction_of = {fd_a: "a_to_b", fd_b: "b_to_a"}
        out_fd = {"a_to_b": fd_b, "b_to_a": fd_a}
        watched = [fd_a, fd_b, self.control, self.wake_read] + ([self.owner] if self.owner is not None else [])
        while self.stop_reason is None:
            now = time.monotonic()
            for direction, packet in scheduler.due(now):
                self._write(out_fd[direction], direction, packet)
            following = scheduler.next_departure()
            timeout = IDLE_WAKE if following is None else min(IDLE_WAKE, max(0.0, following - time.monotonic()))
            readable, _, _ = select.select(watched, [], [], timeout)
            for item in readable:
                if item is self.control:
                    self._serve_control()
                elif item == self.wake_read:
                    self._drain_wake()
                elif item == self.owner:
                    self.stop_reason = "owner %d exited" % self.spec["owner_pid"]
                else:
                    self._read(item, direction_of[item])

    def _read(self, fd, direction):
        scheduler = self.scheduler
        for _ in range(READ_BURST):
            try:
                packet = os.read(fd, MAX_PACKET)
            except BlockingIOError:
                return
            scheduler.admit(direction, packet, time.monotonic())

    def _write(self, fd, direction, packet):
        try:
            os.write(fd, packet)
        except OSError as error:
            self.scheduler.failed(direction)
            if self.write_error_logged < 10:
                self.write_error_logged += 1
                print("relay %s: write %s failed: %s" % (self.name, direction, error), file=sys.stderr, flush=True)
            return
        self.scheduler.sent(direction, packet)

    def _drain_wake(self):
        try:
            while os.read(self.wake_read, 64):
                pass
        except BlockingIOError:
            pass

    # -- control -------------------------------------------------------------------------------

    def _serve_control(self):
        try:
            connection, _ = self.control.accept()
        except BlockingIOError:
            return
        with connection:
            connection.settimeout(CONTROL_TIMEOUT)
            try:
                request = b""
                while not request.endswith(b"\n") and len(request) < MAX_REQUEST:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    request += chunk
                reply = self._answer(request)
                connection.sendall(json.dumps(reply).encode() + b"\n")
            except (OSError, socket.timeout) as error:
                print("relay %s: control client failed: %s" % (self.name, error), file=sys.stderr, flush=True)

    def _answer(self, request):
        try:
            message = json.loads(request)
            command = message["cmd"]
        except (ValueError, KeyError, TypeError) as error:
            return {"ok": False, "error": "a request is one JSON object with \"cmd\": %s" % error}
        if command == "ping":
            return {"ok": True}
        if command == "stats":
            return dict(self.report(), ok=True)
        if command == "configure":
            try:
                changes = {d: Impairment.from_json(message[d]) for d in DIRECTIONS if d in message}
            except (ValueError, TypeError) as error:
                return {"ok": False, "error": str(error)}
            self.scheduler.reconfigure(changes)
            self.impairments.update(changes)
            return {"ok": True}
        return {"ok": False, "error": "unknown cmd %r (ping, stats, configure)" % command}

    def report(self):
        counters = self.scheduler.snapshot()
        return {"name": self.name, "uptime_s": round(time.monotonic() - self.started, 3), "counters": counters,
                "impairments": {d: self.impairments[d].to_json() for d in DIRECTIONS}}

    def write_counters(self, reason=None):
        report = self.report()
        if reason:
            report["stopped"] = reason
        path = os.path.join(self.state_dir, "counters.json")
        with open(path + ".tmp", "w") as f:
            json.dump(report, f, indent=1)
        os.replace(path + ".tmp", path)
        return report

    # -- teardown ------------------------------------------------------------------------------

    def close(self):
        """Closes the TUN descriptors (which removes the devices), empties and deletes both
        namespaces, and writes the final counters."""
        for fd in getattr(self, "tun", {}).values():
            os.close(fd)
        problems = [netns.empty_and_delete(self.spec["namespaces"][side]) for side in ("a", "b")]
        for problem in filter(None, problems):
            print("relay %s: %s" % (self.name, problem), file=sys.stderr, flush=True)
        control_path = os.path.join(self.state_dir, "control.sock")
        if os.path.exists(control_path):
            os.unlink(control_path)
        report = self.write_counters(self.stop_reason or "error")
        print(json.dumps(report), flush=True)


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m losslab.relay STATE_DIR/spec.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        spec = json.load(f)
    relay = Relay(spec, os.path.dirname(os.path.abspath(argv[0])))
    try:
        relay.open()
        print("relay %s: up, pid %d" % (relay.name, os.getpid()), flush=True)
        relay.run()
    finally:
        relay.close()
        if relay.stop_reason and relay.stop_reason.startswith("owner"):
            # Nobody is left to read the state directory: remove it, counters and all (the
            # final counters went to the log, which goes with it).
            shutil.rmtree(relay.state_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
