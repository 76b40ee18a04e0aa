"""The suite's frame: the servers it starts (stopped by PID at the end), the report (PASS or FAIL
with the measured figures) and what a good client must see beside every attack."""
import os
import re
import signal
import subprocess
import threading
import time

from players import join

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Another build (release, or an older commit's) through HOSTILE_ARENA and HOSTILE_TICKWIRE.
ARENA = os.environ.get("HOSTILE_ARENA") or os.path.join(ROOT, ".build", "debug", "arena")
TICKWIRE = os.environ.get("HOSTILE_TICKWIRE") or os.path.join(ROOT, ".build", "debug", "tickwire")
PROTOCOL = os.path.join(ROOT, "Protocol", "PROTOCOL.md")

# What a good client must see beside an attack, at TICK_RATE (`arena serve --tick`).
TICK_RATE = 20
MINIMUM_SNAPSHOT_SHARE = 0.85          # of the tick rate, over the attack
MAXIMUM_SNAPSHOT_GAP_S = 0.5           # between two snapshots
MAXIMUM_MEDIAN_ROUND_TRIP_MS = 1000 / TICK_RATE + 40   # a ping is answered at the next tick
MAXIMUM_ROUND_TRIP_MS = 300


class Unsupported(Exception):
    """The server refused a command-line option: the feature it configures is not built yet."""


class Server:
    """A real `arena serve` or `tickwire echo` process on 127.0.0.1, port 0."""

    running = []

    def __init__(self, arguments, name):
        self.arguments, self.name = arguments, name
        self.process, self.port, self.lines = None, None, []

    def start(self, timeout=20.0):
        self.process = subprocess.Popen(self.arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        Server.running.append(self)
        ready = threading.Event()

        def read():
            for line in self.process.stdout:
                self.lines.append(line.rstrip("\n"))
                match = re.search(r"ws://127\.0\.0\.1:(\d+)/", line)
                if match and self.port is None:
                    self.port = int(match.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        ready.wait(timeout)
        if self.port is None:
            self.stop()
            output = "\n".join(self.lines)
            unknown = re.search(r"unknown option (\S+)", output)
            if unknown:
                raise Unsupported("%s has no option %s" % (self.name, unknown.group(1)))
            raise RuntimeError("%s did not report its port within %.0f s:\n%s" % (self.name, timeout, output[-2000:]))
        return self

    @property
    def pid(self):
        return self.process.pid

    def rss_bytes(self):
        try:
            with open("/proc/%d/status" % self.pid) as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    @classmethod
    def stop_all(cls):
        for server in cls.running:
            try:
                server.stop()
            except Exception as error:  # keep stopping the others
                print("hostile: could not stop %s (pid %d): %s" % (server.name, server.pid, error), flush=True)


def arena(*options):
    return Server([ARENA, "serve", "--port", "0", "--bots", "2", "--tick", str(TICK_RATE), "--status-interval", "60"]
                  + [str(option) for option in options], "arena serve").start()


def echo(*options):
    return Server([TICKWIRE, "echo", "--port", "0"] + [str(option) for option in options], "tickwire echo").start()


async def learn_fingerprint(port):
    """The arena's schema fingerprint, from the schema-mismatch reject a hello with fingerprint 0 gets."""
    session = await join(port, 0, payload=b"probe")
    match = session.reject and re.search(r"server's schema fingerprint is 0x([0-9a-f]{16})", session.reject[1])
    if not match:
        raise RuntimeError("cannot learn the arena's schema fingerprint from the reject %r" % (session.reject,))
    return int(match.group(1), 16)


class Report:
    """Counts and prints each check's verdict with the figures it measured."""

    def __init__(self):
        self.passed, self.failed = 0, 0

    def verdict(self, name, problems, figures):
        shown = "  ".join("%s %s" % (key, format_figure(value)) for key, value in figures.items())
        if problems:
            self.failed += 1
            print("FAIL %s: %s" % (name, shown), flush=True)
            for problem in problems:
                print("     - %s" % problem, flush=True)
        else:
            self.passed += 1
            print("PASS %s: %s" % (name, shown), flush=True)

    def summary(self):
        return "hostile: %d passed, %d failed" % (self.passed, self.failed)


def format_figure(value):
    if isinstance(value, float):
        return "%.1f" % value if abs(value) < 1000 else "%.0f" % value
    return str(value)


def good_client_problems(player, start, end, figures, label="good"):
    """Checks a good Player over [start, end]: snapshots at about the tick rate, no long gap, round
    trips of about a tick, still connected; adds its figures to `figures`."""
    measured = player.figures(start, end)
    figures["%s snapshots/s" % label] = measured["snapshots_per_s"]
    figures["%s max gap ms" % label] = measured["max_gap_ms"] * 1.0
    figures["%s rtt median/max ms" % label] = "%.1f/%.1f" % (measured["rtt_median_ms"], measured["rtt_max_ms"])
    problems = []
    if measured["snapshots_per_s"] < MINIMUM_SNAPSHOT_SHARE * TICK_RATE:
        problems.append("%s client got %.1f snapshots/s, under %.0f%% of %d Hz" % (
            label, measured["snapshots_per_s"], MINIMUM_SNAPSHOT_SHARE * 100, TICK_RATE))
    if measured["max_gap_ms"] > MAXIMUM_SNAPSHOT_GAP_S * 1000:
        problems.append("%s client waited %.0f ms for a snapshot (limit %.0f)" % (label, measured["max_gap_ms"], MAXIMUM_SNAPSHOT_GAP_S * 1000))
    if measured["rtt_median_ms"] > MAXIMUM_MEDIAN_ROUND_TRIP_MS or measured["rtt_max_ms"] > MAXIMUM_ROUND_TRIP_MS:
        problems.append("%s client's round trip median %.1f ms, max %.1f ms (limits %.0f, %.0f)" % (
            label, measured["rtt_median_ms"], measured["rtt_max_ms"], MAXIMUM_MEDIAN_ROUND_TRIP_MS, MAXIMUM_ROUND_TRIP_MS))
    if player.ws.closed_at is not None and player.ws.closed_at <= end:
        problems.append("%s client was closed (code %s, %r)" % (label, player.ws.close_code, player.ws.close_reason))
    return problems


def elapsed_ms(start):
    return (time.monotonic() - start) * 1000
