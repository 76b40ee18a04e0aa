"""The browser suite (issue #20): headless Chromium (Debian's, driven by Playwright for Python,
never a downloaded browser) plays the arena page that a real `arena serve` on 127.0.0.1 serves,
beside scripted terminal clients (`arena join … --script … --dump`).

Checks, each printed as `browser: PASS name`, `browser: FAIL name: why` or `browser: SKIP name: why`,
then `browser: N passed, M failed, K skipped`:
  http          the page, a module, 404 for paths outside the table (.., %2e%2e, absolute), 405 for POST
  draws         the page connects, shows the arena and at least four bots (window.__tickwire, canvas pixels),
                n toggles the net graph; a screenshot
  bytes         a browser receives within 1.25x the bytes per snapshot a terminal client receives in the same room
  keys-move     pressed keys move the browser's player, and a terminal client's --dump sees it move, by name
  sees-terminal the browser sees the terminal client, by name
  shot          the browser's shots lower the terminal player's health (a server without bots: only they play)
  resume        the server is killed and restarted with --state: the page reconnects (countdown shown) as the same player
  name-field    without ?name= the page's field names the player; ?room= joins another room
  refused       a server of another schema or protocol version: the page says so in words
  garbage       a frame that cannot be decoded: the page closes with 4004 and shows the reason
  entropy       a server with --entropy-deltas: the page decodes motion-predicted entropy-coded deltas
                (none undecodable) and sees a terminal client where it is; bytes per snapshot beside it, logged
  room-list     the page without ?name= asks /rooms: on a server without a matchmaker (404) it hides the
                list and quick play; on one with (`arena serve --redis … --udp-key …`, a fleet of one on
                a redis-server of the suite's own), it shows the arena's rooms and refreshes them
  matchmaker    (issue #32, point 5) quick play on that server: the page asks its matchmaker for a seat
                (joinOrCreate "arena") and plays in that room, a terminal client (`arena join` of that
                room) is seen there, the listing counts both, and a second page joins the same room by
                its play button in the room list (joinById). Skipped, saying so, without a redis-server

Environment: BROWSER_ARENA (the arena binary, default .build/debug/arena), CHROMIUM (default
/usr/bin/chromium), REDIS_SERVER (default redis-server on the PATH), BROWSER_SCREENSHOT (where to copy the screenshot, for docs/arena-browser.png).
Every wait is bounded; every process started here is stopped by its PID.
"""
import asyncio
import collections
import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARENA = os.environ.get("BROWSER_ARENA", os.path.join(ROOT, ".build", "debug", "arena"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TEMP = tempfile.mkdtemp(prefix="tickwire-browser-")
HEADER = re.compile(r"^--- frame (\d+) · (?:you -|you ([\d.]+),([\d.]+) hp (\d+) kills (\d+) id (\d+)) · .* · (.*) ---$")
PLAYER = re.compile(r"^(\d+) (~?)(\S*) ([\d.]+),([\d.]+) hp (\d+) kills (\d+)$")

processes = []
results = []


def log(message):
    print("browser: " + message, flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, timeout, what, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))


class Process:
    """A child process whose output lines a thread collects."""

    def __init__(self, arguments, on_line=None):
        self.lines = collections.deque(maxlen=4000)
        self.popen = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        processes.append(self)
        self.on_line = on_line
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.popen.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            if self.on_line:
                self.on_line(line)

    def stop(self, sig=signal.SIGTERM, timeout=5):
        if self.popen.poll() is None:
            os.kill(self.popen.pid, sig)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.popen.pid, signal.SIGKILL)
                self.popen.wait(5)


def start_server(port, bots, state=None, entropy=False, extra=()):
    arguments = [ARENA, "serve", "--port", str(port), "--bots", str(bots), "--status-interval", "1"]
    if state:
        arguments += ["--state", state]
    if entropy:
        arguments += ["--entropy-deltas"]
    arguments += list(extra)
    server = Process(arguments)
    wait_for(lambda: any("in a browser to play" in line for line in server.lines) or server.popen.poll() is not None, 20, "the server to listen")
    if server.popen.poll() is not None:
        raise AssertionError("the server exited: " + " / ".join(server.lines))
    line = next(line for line in server.lines if "in a browser to play" in line)
    if "open http://127.0.0.1:%d/ in a browser to play" % port not in line:
        raise AssertionError("the server printed '%s'" % line)
    return server


def start_matchmaking_server(port):
    """`arena serve` answering the matchmaker (Protocol/MATCHMAKER.md) on its own port: a fleet of one on
    a redis-server of its own (persistence off), with a fleet key file. Returns None, and says why, when
    there is no redis-server (REDIS_SERVER, else redis-server on the PATH)."""
    binary = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    if not binary:
        log("no redis-server (REDIS_SERVER or the PATH): no server with a matchmaker")
        return None
    redis_port = free_port()
    redis = Process([binary, "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "", "--appendonly", "no",
                     "--protected-mode", "no"])
    def answers():
        try:
            with socket.create_connection(("127.0.0.1", redis_port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False
    wait_for(lambda: answers() or redis.popen.poll() is not None, 10, "redis-server to answer PING")
    if redis.popen.poll() is not None:
        raise AssertionError("redis-server exited: " + " / ".join(redis.lines))
    key = os.path.join(TEMP, "fleet.key")
    with open(key, "w") as file:
        file.write(os.urandom(32).hex() + "\n")
    os.chmod(key, 0o600)
    server = start_server(port, 0, extra=["--redis", "redis://127.0.0.1:%d" % redis_port, "--public-url",
                                          "ws://127.0.0.1:%d" % port, "--udp-key", key])
    wait_for(lambda: any(line.startswith("matchmaker: ") for line in server.lines), 10, "the server to say whether it matchmakes")
    line = next(line for line in server.lines if line.startswith("matchmaker: "))
    if not line.startswith("matchmaker: POST"):
        raise AssertionError("the server printed '%s'" % line)
    log("a matchmaking arena serve on port %d (redis-server on %d): %s" % (port, redis_port, line))
    return server


class Terminal:
    """`arena join --script … --dump`: its frames' headers and players lines, parsed."""

    def __init__(self, port, name, script, frames, room="main"):
        self.frames = []
        self.current = None
        self.process = Process([ARENA, "join", "ws://127.0.0.1:%d/%s" % (port, room), "--name", name, "--script", script,
                                "--frames", str(frames), "--dump"], on_line=self.take)

    def take(self, line):
        match = HEADER.match(line)
        if match:
            self.current = {"time": time.time(), "status": match.group(7),
                            "hp": int(match.group(4)) if match.group(4) else None, "players": {}, "in": None, "total": None,
                            "snapshots": None}
            self.frames.append(self.current)
        elif line.startswith("--- players") and self.current is not None:
            for part in line[len("--- "):-len(" ---")].split(" · ")[1:]:
                found = PLAYER.match(part)
                if found:
                    self.current["players"][found.group(3)] = {"x": float(found.group(4)), "y": float(found.group(5)),
                                                               "hp": int(found.group(6)), "bot": found.group(2) == "~"}
                elif part.startswith("in "):  # in R B/s, T B in all, S snapshots
                    words = part.split()
                    self.current["in"], self.current["total"], self.current["snapshots"] = int(words[1]), int(words[3]), int(words[7])

    def positions_of(self, name):
        return [(f["time"], f["players"][name]) for f in list(self.frames) if name in f["players"]]


class Skip(Exception):
    """Raised by a check that cannot run here; its words say why."""


skipped = []


def check(name):
    def decorate(function):
        def run(*arguments):
            try:
                function(*arguments)
                results.append((name, None))
                log("PASS " + name)
                return True
            except Skip as why:
                skipped.append((name, str(why)))
                log("SKIP %s: %s" % (name, why))
                return False
            except Exception as error:  # a failed check is reported, and the suite goes on
                results.append((name, "%s: %s" % (type(error).__name__, error)))
                log("FAIL %s: %s" % (name, error))
                return False
        return run
    return decorate


def state(page):
    return page.evaluate("window.__tickwire ? window.__tickwire.state() : null")


def me(page):
    current = state(page)
    if not current:
        return None
    return next((p for p in current["players"] if p["id"] == current["clientID"]), None)


def http_get(port, target, method="GET"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", "127.0.0.1:%d" % port)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@check("http")
def check_http(port):
    status, headers, body = http_get(port, "/?name=x")
    assert status == 200 and headers.get("Content-Type") == "text/html; charset=utf-8", (status, headers)
    assert headers.get("Cache-Control") == "no-cache" and b"/arena/page.js" in body
    # The page imports the client by its package name; its import map points that at /tickwire/.
    assert b'"@tickwire/client": "/tickwire/index.js"' in body, "the page's import map"
    for module in ["/tickwire/index.js", "/tickwire/clientSession.js"]:
        status, headers, body = http_get(port, module)
        assert status == 200 and headers.get("Content-Type") == "text/javascript; charset=utf-8" and headers.get("ETag"), (module, status, headers)
    for target in ["/../Package.swift", "/%2e%2e/Package.swift", "/arena/../../README.md", "//etc/passwd", "/etc/passwd",
                   "http://127.0.0.1/arena/page.js", "/arena/", "/nothing"]:
        status, _, _ = http_get(port, target)
        assert status == 404, "%s gave %d" % (target, status)
    status, headers, _ = http_get(port, "/", method="POST")
    assert status == 405 and headers.get("Allow") == "GET, HEAD", (status, headers)


@check("draws")
def check_draws(page, port):
    page.goto("http://127.0.0.1:%d/?name=webby" % port)
    wait_for(lambda: (s := state(page)) and s["connection"]["kind"] == "connected" and me(page)
             and sum(1 for p in s["players"] if p["isBot"]) >= 4 and s["framesDrawn"] > 10, 15, "the page to show itself and four bots")
    current = state(page)
    # The canvas really shows the arena: many wall-grey pixels, and the local player's green.
    counts = page.evaluate("""() => {
        const canvas = document.getElementById('arena');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let walls = 0, green = 0;
        for (let i = 0; i < data.length; i += 4) {
            if (data[i] === 0x70 && data[i + 1] === 0x70 && data[i + 2] === 0x7a) walls++;
            if (data[i] === 0x40 && data[i + 1] === 0xd0 && data[i + 2] === 0x40) green++;
        }
        return {walls, green};
    }""")
    assert counts["walls"] > 5000 and counts["green"] > 20, counts
    page.keyboard.press("n")
    wait_for(lambda: state(page)["showsNetGraph"], 2, "n to show the net graph")
    time.sleep(1.0)
    path = os.path.join(TEMP, "arena-browser.png")
    page.screenshot(path=path)
    page.keyboard.press("n")
    wait_for(lambda: not state(page)["showsNetGraph"], 2, "n to hide the net graph")
    log("screenshot: %s (%d players, %d bots, canvas: %d wall pixels)" % (
        path, len(current["players"]), sum(1 for p in current["players"] if p["isBot"]), counts["walls"]))
    if os.environ.get("BROWSER_SCREENSHOT"):
        shutil.copyfile(path, os.environ["BROWSER_SCREENSHOT"])


def bytes_per_snapshot(page, terminal, seconds=6):
    """Both clients' byte totals over one window: the page's counters read at its two ends, the
    terminal's from the last frame it dumped before each. Returns (browser B per snapshot,
    terminal B per snapshot, a line for the log). Judged per snapshot received, what the server's
    encoding and compression decide; bytes per second are logged beside it. (A per-second figure
    also follows how much CPU each client got: with two busy loops on the two cores, either one
    fell 20% behind the other now and then. And the terminal's per-second meter, which the check
    used first, steps once a second out of phase with the window: 0.92-1.22 on a quiet machine.)"""
    start, first = time.time(), state(page)
    time.sleep(seconds)
    end, last = time.time(), state(page)
    counted = [f for f in list(terminal.frames) if f["total"] is not None]
    before = [f for f in counted if f["time"] <= start][-1]
    after = [f for f in counted if f["time"] <= end][-1]
    browser_snapshots = last["snapshotsReceived"] - first["snapshotsReceived"]
    terminal_snapshots = after["snapshots"] - before["snapshots"]
    assert browser_snapshots >= 100 and terminal_snapshots >= 100, \
        "too few snapshots in %d s: browser %d, terminal %d" % (seconds, browser_snapshots, terminal_snapshots)
    browser_bytes, terminal_bytes = last["bytesIn"] - first["bytesIn"], after["total"] - before["total"]
    browser, terminal_figure = browser_bytes / browser_snapshots, terminal_bytes / terminal_snapshots
    line = "over %.1f s: browser %.1f B per snapshot (%.0f B/s), terminal %.1f B per snapshot (%.0f B/s), ratio %.3f" % (
        end - start, browser, browser_bytes / (end - start), terminal_figure,
        terminal_bytes / (after["time"] - before["time"]), browser / terminal_figure)
    return browser, terminal_figure, line


@check("bytes")
def check_bytes(page, port):
    terminal = Terminal(port, "meter", "_600", 450)
    try:
        wait_for(lambda: sum(1 for f in terminal.frames if f["status"].startswith("connected") and f["total"]) > 90, 20,
                 "the terminal client to play for three seconds")
        browser, terminal_figure, line = bytes_per_snapshot(page, terminal)
        log("bytes in " + line)
        assert browser / terminal_figure <= 1.25, "the browser receives %.2fx the terminal's bytes per snapshot" % (
            browser / terminal_figure)
    finally:
        terminal.process.stop()


@check("entropy")
def check_entropy(browser, port):
    """A server run with --entropy-deltas: the page's hello offers the motion-predicted entropy
    coding, the welcome chooses it, and the page decodes every snapshot (none undecodable) and
    sees the terminal client where it says it is. The bytes per snapshot beside the terminal's
    are logged, not judged: over twelve runs the ratio was 1.00 but for 0.84 and 1.18 once each,
    more spread than the bit-packed delta's, not yet explained (likely the acknowledgements: a
    predicted delta's size depends on its baseline's age, which each client's acks decide)."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    terminal = Terminal(port, "coder", "_600", 450)
    try:
        page.goto("http://127.0.0.1:%d/?name=ent" % port)
        wait_for(lambda: (s := state(page)) and s["connection"]["kind"] == "connected" and me(page)
                 and sum(1 for p in s["players"] if p["isBot"]) >= 4 and s["snapshotsReceived"] > 60, 15,
                 "the page to play on the entropy-coding server")
        wait_for(lambda: sum(1 for f in terminal.frames if f["status"].startswith("connected") and f["total"]) > 90, 20,
                 "the terminal client to play for three seconds")
        current = state(page)
        assert current["deltaCoding"] == "predictedEntropy", "the welcome chose %s" % current["deltaCoding"]
        _, _, line = bytes_per_snapshot(page, terminal)
        after = state(page)
        assert after["snapshotsUndecodable"] == 0, "%d snapshots undecodable: %s" % (
            after["snapshotsUndecodable"], after["lastDecodeError"])
        # The terminal client stands still: the page must see it where it sees itself (within a
        # few seconds, should the bots have just killed it and the respawn be on its way).
        def coder_in_place():
            seen = next((p for p in state(page)["players"] if p["name"] == "coder"), None)
            mine = next((f["players"]["coder"] for f in reversed(list(terminal.frames)) if "coder" in f["players"]), None)
            return seen is not None and mine is not None and abs(seen["x"] - mine["x"]) < 0.01 \
                and abs(seen["y"] - mine["y"]) < 0.01 and seen
        seen = wait_for(coder_in_place, 3, "the page to see coder where the terminal client says it is")
        log("entropy: %d snapshots decoded, none undecodable; coder seen at %.2f,%.2f; bytes in %s" % (
            after["snapshotsReceived"], seen["x"], seen["y"], line))
    finally:
        terminal.process.stop()
        page.close()


@check("resume")
def check_resume(page, port, state_path, servers):
    before = state(page)
    assert before["connection"]["kind"] == "connected", before["connection"]
    wait_for(lambda: os.path.exists(state_path), 5, "the state file")
    time.sleep(1.2)  # one more save with the player in it
    servers[0].stop(signal.SIGKILL)
    countdown = wait_for(lambda: (s := state(page)) and s["status"].startswith("reconnecting in") and s["status"], 15,
                         "the page to show the reconnect countdown")
    log("while the server is down the page shows '%s' and '%s'" % (countdown, state(page)["message"]))
    servers[0] = start_server(port, 4, state_path)
    after = wait_for(lambda: (s := state(page)) and s["connection"]["kind"] == "connected" and s, 30, "the page to reconnect")
    assert after["resumed"] and after["clientID"] == before["clientID"], \
        "after the restart: id %s (was %s), resumed %s" % (after["clientID"], before["clientID"], after["resumed"])
    assert after["status"] == "connected (resumed)", after["status"]
    assert after["reconnects"] >= 1


KEYS = {("x", 1): "d", ("x", -1): "a", ("y", 1): "s", ("y", -1): "w"}


def move_axis(page, axis, target, tolerance=0.18, timeout=6):
    """Holds the key toward `target` on one axis until the predicted player is within `tolerance`."""
    deadline = time.time() + timeout
    held = None
    try:
        while time.time() < deadline:
            player = me(page)
            if player is None or player["health"] <= 0:
                raise AssertionError("the browser's player is not alive")
            distance = target - player[axis]
            if abs(distance) <= tolerance:
                return
            key = KEYS[(axis, 1 if distance > 0 else -1)]
            if key != held:
                if held:
                    page.keyboard.up(held)
                page.keyboard.down(key)
                held = key
            time.sleep(0.004)
        raise AssertionError("could not reach %s = %.2f (at %.2f)" % (axis, target, me(page)[axis]))
    finally:
        if held:
            page.keyboard.up(held)


def plan(rows, start, goals):
    """Breadth-first search over floor tiles from `start` to any tile of `goals`: the tiles on the way."""
    previous = {start: None}
    queue = collections.deque([start])
    while queue:
        tile = queue.popleft()
        if tile in goals:
            path = []
            while tile is not None:
                path.append(tile)
                tile = previous[tile]
            return path[::-1]
        column, row = tile
        for step in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            neighbour = (column + step[0], row + step[1])
            if neighbour not in previous and 0 <= neighbour[1] < len(rows) and 0 <= neighbour[0] < len(rows[0]) \
                    and rows[neighbour[1]][neighbour[0]] != "#":
                previous[neighbour] = tile
                queue.append(neighbour)
    return None


def firing_positions(rows, column, row):
    """Tiles 2…12 columns to either side of (column, row) with no wall between: (tile, direction to face)."""
    positions = {}
    for direction in (-1, 1):
        for distance in range(1, 13):
            tile = (column + direction * distance, row)
            if rows[row][tile[0]] == "#":
                break
            if distance >= 2:
                positions[tile] = -direction  # face back toward the target
    return positions


def follow(page, path):
    """Walks a tile path, one straight segment at a time."""
    index = 0
    while index < len(path) - 1:
        axis = "x" if path[index + 1][1] == path[index][1] else "y"
        end = index + 1
        while end + 1 < len(path) and ("x" if path[end + 1][1] == path[end][1] else "y") == axis:
            end += 1
        move_axis(page, axis, path[end][0 if axis == "x" else 1] + 0.5)
        index = end


@check("keys-move")
def check_keys_move(page, terminal, rows):
    wait_for(lambda: any("webby" in f["players"] for f in list(terminal.frames)), 15, "the terminal client to see 'webby'")
    player = me(page)
    column, row = int(player["x"]), int(player["y"])
    for axis, sign in (("x", 1), ("x", -1), ("y", 1), ("y", -1)):
        neighbour = (column + (sign if axis == "x" else 0), row + (sign if axis == "y" else 0))
        if rows[neighbour[1]][neighbour[0]] != "#":
            break
    start = player[axis]
    seen_before = terminal.positions_of("webby")[-1][1]
    move_axis(page, axis, start + sign * 1.0)
    moved = me(page)[axis]
    assert abs(moved - start) >= 0.8, "the browser's player moved from %.2f to %.2f" % (start, moved)
    wait_for(lambda: abs(terminal.positions_of("webby")[-1][1][axis] - seen_before[axis]) >= 0.8, 5,
             "the terminal client to see webby move on %s from %.2f" % (axis, seen_before[axis]))
    log("webby moved on %s from %.2f to %.2f; the terminal saw %.2f -> %.2f" % (
        axis, start, moved, seen_before[axis], terminal.positions_of("webby")[-1][1][axis]))


@check("sees-terminal")
def check_sees_terminal(page):
    found = wait_for(lambda: next((p for p in state(page)["players"] if p["name"] == "term" and not p["isBot"]), None), 10,
                     "the browser to see 'term'")
    log("the browser sees term at %.2f,%.2f hp %d" % (found["x"], found["y"], found["health"]))


@check("shot")
def check_shot(page, terminal, rows):
    target = next(p for p in state(page)["players"] if p["name"] == "term")
    positions = firing_positions(rows, int(target["x"]), int(target["y"]))
    player = me(page)
    path = plan(rows, (int(player["x"]), int(player["y"])), positions)
    assert path, "no way from %s to a firing position beside term at %.1f,%.1f" % ((player["x"], player["y"]), target["x"], target["y"])
    follow(page, path)
    move_axis(page, "y", target["y"])
    face = positions[path[-1]]
    # A tick toward term turns the player to face it (heading 0 is east, pi west); then fire.
    for _ in range(5):
        if abs(math.cos(me(page)["heading"]) - face) < 0.1:
            break
        page.keyboard.down("d" if face > 0 else "a")
        time.sleep(0.05)
        page.keyboard.up("d" if face > 0 else "a")
        time.sleep(0.05)
    assert abs(math.cos(me(page)["heading"]) - face) < 0.1, "the browser's player does not face term"
    terminal_hp_before = min(f["hp"] for f in list(terminal.frames)[-5:] if f["hp"] is not None)
    assert terminal_hp_before == 100, "term was hurt before the browser fired (hp %d)" % terminal_hp_before
    page.keyboard.down(" ")
    try:
        seen = wait_for(lambda: next((p["health"] for p in state(page)["players"] if p["name"] == "term" and p["health"] < 100), None),
                        4, "the browser to see term's health drop")
    finally:
        page.keyboard.up(" ")
    wait_for(lambda: any(f["hp"] is not None and f["hp"] < 100 for f in list(terminal.frames)[-60:]), 3,
             "the terminal client to see its own health drop")
    log("the browser fired from %s facing %s: term's health %d in the browser, %d in its own dump" % (
        path[-1], "east" if face > 0 else "west", seen, min(f["hp"] for f in list(terminal.frames)[-60:] if f["hp"] is not None)))


class FakeServer:
    """A WebSocket server speaking just enough Tickwire to misbehave: by path, it refuses the hello
    as of another schema (/schema) or protocol version (/version), or answers it with a frame that
    cannot be decoded (/garbage); it records the close codes the page sends."""

    def __init__(self):
        from websockets.asyncio.server import serve
        self.close_codes = collections.defaultdict(list)
        self.loop = asyncio.new_event_loop()
        self.port = free_port()
        ready = threading.Event()

        async def handle(connection):
            path = connection.request.path
            try:
                await asyncio.wait_for(connection.recv(), 5)  # the hello
                if path == "/garbage":
                    await connection.send(bytes([0x00, 0x01, 0x02]))  # message type 0 is reserved
                else:
                    reason, code = (2, 4000) if path == "/schema" else (1, 4003)
                    words = b"this server runs schema 0123456789abcdef" if path == "/schema" else b"this server speaks version 9"
                    await connection.send(bytes([3, 0, reason, len(words)]) + words)
                    await connection.close(code, "refused")
                await asyncio.wait_for(connection.wait_closed(), 5)
            except Exception:
                pass
            self.close_codes[path].append(connection.close_code)

        async def main():
            async with serve(handle, "127.0.0.1", self.port, subprotocols=["tickwire.v1"]):
                ready.set()
                await asyncio.Future()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        ready.wait(10)


@check("name-field")
def check_name_field(browser, port):
    page = browser.new_page(viewport={"width": 800, "height": 900})
    try:
        page.goto("http://127.0.0.1:%d/?room=side" % port)
        page.fill("#name", "fieldy")
        page.press("#name", "Enter")
        joined = wait_for(lambda: (s := state(page)) and s["connection"]["kind"] == "connected" and me(page) and s, 15,
                          "the page to join with the name from its field")
        assert me(page)["name"] == "fieldy" and joined["room"] == "side", (me(page), joined["room"])
        log("without ?name= the field named the player '%s' in room '%s' (a tall window: the scoreboard below the map)"
            % (me(page)["name"], joined["room"]))
    finally:
        page.close()


@check("refused")
def check_refused(browser, port, fake):
    page = browser.new_page(viewport={"width": 1000, "height": 600})
    try:
        for path, words in (("/schema", "runs another game"), ("/version", "another version of the Tickwire protocol")):
            page.goto("http://127.0.0.1:%d/?name=x&server=ws://127.0.0.1:%d%s" % (port, fake.port, path))
            refused = wait_for(lambda: (s := state(page)) and s["connection"]["kind"] == "refused" and s, 10, "the page to be refused")
            assert words in refused["message"], "the page says '%s'" % refused["message"]
            assert refused["status"].startswith("refused: "), refused["status"]
            log("%s: the page says '%s'" % (path, refused["message"]))
        page.screenshot(path=os.path.join(TEMP, "refused.png"))
    finally:
        page.close()


@check("garbage")
def check_garbage(browser, port, fake):
    page = browser.new_page(viewport={"width": 1000, "height": 600})
    try:
        page.goto("http://127.0.0.1:%d/?name=x&server=ws://127.0.0.1:%d/garbage" % (port, fake.port))
        shown = wait_for(lambda: (s := state(page)) and s["message"].startswith("Connection lost: the server sent a frame that cannot be decoded") and s,
                         10, "the page to show the decode error")
        wait_for(lambda: fake.close_codes["/garbage"], 5, "the page to close the connection")
        assert fake.close_codes["/garbage"][0] == 4004, "the page closed with %s" % fake.close_codes["/garbage"]
        assert shown["closeReason"] is None or shown["closeReason"]["code"] != 1000
        log("the page closed with %d and shows '%s'" % (fake.close_codes["/garbage"][0], shown["message"]))
        page.screenshot(path=os.path.join(TEMP, "garbage.png"))
    finally:
        page.close()


def rooms_state(page):
    return page.evaluate("window.__tickwireRooms ? window.__tickwireRooms.state() : null")


def has_matchmaker(port):
    """Whether `arena serve` answers the matchmaker's GET /rooms (200), or not (404), as the page judges it."""
    status, _, body = http_get(port, "/rooms?mode=arena")
    assert status in (200, 404), "GET /rooms gave %d: %s" % (status, body[:200])
    return status == 200


@check("room-list")
def check_room_list(browser, plain_port, matchmaking_port):
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    try:
        assert not has_matchmaker(plain_port), "the plain server answers GET /rooms"
        page.goto("http://127.0.0.1:%d/" % plain_port)
        shown = wait_for(lambda: (r := rooms_state(page)) and r["matchmaker"] == "absent" and r, 10,
                         "the page to find no matchmaker (404 to /rooms)")
        assert page.is_hidden("#rooms") and page.is_hidden("#quick-play"), "the room list is shown on a server without a matchmaker"
        assert page.is_visible("#name"), "the name field is gone"
        log("a server without a matchmaker: the page asked /rooms %d time(s), got 404, and hides the list" % shown["refreshes"])
        if matchmaking_port is None:
            log("room-list: no server with a matchmaker to show the list (see the matchmaker check)")
            return
        assert has_matchmaker(matchmaking_port), "the matchmaking server answers 404 to GET /rooms"
        page.goto("http://127.0.0.1:%d/" % matchmaking_port)
        listed = wait_for(lambda: (r := rooms_state(page)) and r["matchmaker"] == "present" and r["refreshes"] >= 2 and r, 10,
                          "the page to show the room list and refresh it")
        assert page.is_visible("#rooms") and page.is_visible("#quick-play"), "the room list is hidden on a server with a matchmaker"
        log("a server with a matchmaker: %d refreshes, %d rooms listed" % (listed["refreshes"], len(listed["rooms"])))
    finally:
        page.close()


@check("matchmaker")
def check_matchmaker(browser, port):
    if port is None:
        raise Skip("no redis-server to run `arena serve --redis … --udp-key …`, the server that answers the matchmaker")
    if not has_matchmaker(port):
        raise AssertionError("`arena serve --redis … --udp-key …` answers 404 to GET /rooms")
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    picker = None
    terminal = None
    try:
        page.on("pageerror", lambda error: log("page error: %s" % error))
        page.goto("http://127.0.0.1:%d/" % port)
        wait_for(lambda: (r := rooms_state(page)) and r["matchmaker"] == "present", 10, "the page to find the matchmaker")
        page.fill("#name", "quick")
        page.click("#quick-play")
        joined = wait_for(lambda: (s := state(page)) and s["matchmade"] and s["connection"]["kind"] == "connected" and me(page) and s,
                          20, "the page to join through the matchmaker (quick play)")
        room = joined["room"]
        assert room and joined["url"].endswith("/" + room), "the seat's room %r and URL %r" % (room, joined["url"])
        log("quick play seated the page in room %s as %s (%s)" % (room, joined["seatName"], joined["url"]))
        terminal = Terminal(port, "term2", "_900", 900, room=room)
        found = wait_for(lambda: next((p for p in state(page)["players"] if p["name"] == "term2" and not p["isBot"]), None), 20,
                         "the page to see the terminal client 'term2' in room %s" % room)
        wait_for(lambda: any(f["status"].startswith("connected") for f in list(terminal.frames)), 10, "the terminal client to connect")
        def listed():
            status, _, body = http_get(port, "/rooms?mode=arena")
            rooms = json.loads(body)["rooms"] if status == 200 else []
            return next((r for r in rooms if r["room"] == room and r["clients"] >= 2), None)
        listing = wait_for(listed, 10, "GET /rooms to count the page and the terminal client in %s" % room)
        log("the page sees term2 at %.2f,%.2f; the listing says %s %d/%d" % (found["x"], found["y"], room, listing["clients"], listing["capacity"]))
        # A second page picks that room from its list (joinById).
        picker = browser.new_page(viewport={"width": 1000, "height": 700})
        picker.goto("http://127.0.0.1:%d/" % port)
        picker.fill("#name", "picker")
        button = '#room-list li[data-room="%s"] button' % room
        picker.wait_for_selector(button, timeout=10000)
        picker.click(button)
        seated = wait_for(lambda: (s := state(picker)) and s["matchmade"] and s["connection"]["kind"] == "connected" and s, 20,
                          "the second page to join %s from the room list" % room)
        assert seated["room"] == room, "the second page joined %r, not %r" % (seated["room"], room)
        wait_for(lambda: any(p["name"] == "term2" for p in state(picker)["players"]), 10, "the second page to see term2")
        log("a second page joined %s by its play button and sees term2" % room)
    finally:
        if terminal:
            terminal.process.stop()
        if picker:
            picker.close()
        page.close()


def main():
    log("chromium %s, arena %s, temporary files in %s" % (CHROMIUM, ARENA, TEMP))
    state_path = os.path.join(TEMP, "state.json")
    port_a, port_b = free_port(), free_port()
    servers = [None]
    try:
        servers[0] = start_server(port_a, 4, state_path)
        server_b = start_server(port_b, 0)
        check_http(port_a)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], timeout=30000)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.on("pageerror", lambda error: log("page error: %s" % error))
                if check_draws(page, port_a):
                    check_bytes(page, port_a)
                    check_resume(page, port_a, state_path, servers)
                page.close()
                # A server without bots: only the browser and the terminal client play, so every hit is theirs.
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.on("pageerror", lambda error: log("page error: %s" % error))
                page.goto("http://127.0.0.1:%d/?name=webby" % port_b)
                wait_for(lambda: me(page), 15, "the browser's player on the second server")
                rows = page.evaluate("import('/arena/arenaRules.js').then((module) => module.standardLayout)")
                terminal = Terminal(port_b, "term", "_1500", 1500)
                try:
                    check_keys_move(page, terminal, rows)
                    if check_sees_terminal(page):
                        check_shot(page, terminal, rows)
                finally:
                    terminal.process.stop()
                page.close()
                check_name_field(browser, port_b)
                port_d = free_port()
                try:
                    matchmaking = start_matchmaking_server(port_d)
                except AssertionError as error:
                    results.append(("matchmaking server", str(error)))
                    log("FAIL matchmaking server: %s" % error)
                    matchmaking = None
                check_room_list(browser, port_b, port_d if matchmaking else None)
                check_matchmaker(browser, port_d if matchmaking else None)
                fake = FakeServer()
                check_refused(browser, port_b, fake)
                check_garbage(browser, port_b, fake)
                port_c = free_port()
                start_server(port_c, 4, entropy=True)
                check_entropy(browser, port_c)
            finally:
                browser.close()
    except Exception as error:
        results.append(("setup", str(error)))
        log("FAIL setup: %s" % error)
    finally:
        for process in processes:
            process.stop()
    passed = sum(1 for _, failure in results if failure is None)
    failed = len(results) - passed
    print("browser: %d passed, %d failed, %d skipped" % (passed, failed, len(skipped)), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
