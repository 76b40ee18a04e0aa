"""The game-layer checks against `arena serve` (#18 points 2-5, 8): close codes, garbage frames,
slot squatting, room names. Each starts its own server and a good client that plays beside the
attack; each prints PASS or FAIL with what it measured."""
import asyncio
import os
import random
import re
import signal

from harness import PROTOCOL, TICK_RATE, arena, good_client_problems, learn_fingerprint
from players import Player, join, play
from wire import Closed, RawWebSocket, disconnect_message, hello, input_message, now

# PROTOCOL.md 5.13 and the DocC article Limits.md (HostConfiguration defaults, as `arena serve` runs them).
BAD_FRAME_LIMIT = 10
ROOM_CAPACITY = 32
HELD_SLOT_LIMIT = 16
RESUME_GRACE_WITHOUT_INPUT_S = 2.0
MAXIMUM_JOIN_AFTER_SQUAT_S = 1.0
# Short timeouts this suite gives `arena serve` to stay fast.
IDLE_ROOM_TIMEOUT_S = 2.0
MAXIMUM_ROOMS = 16
SHORT_TIMEOUT_S = 1.0

# Close codes of PROTOCOL.md 1.3 that no client can make the server send, and why; every other
# documented code must have a path below that triggers it.
NOT_TRIGGERABLE = {
    1011: "a reject with reason unspecified: only when the server cannot set up a client's compression",
    4002: "kicked: an operator's action (Room.kick)",
    4006: "room closed: an operator's action (Host.closeRoom); idle rooms close only when empty",
    4007: "moved: a redirect or a drain, only from a server with a room directory (a fleet)",
}


def section(title):
    document = open(PROTOCOL, encoding="utf-8").read()
    start = document.index(title)
    end = document.find("\n### ", start + len(title))
    return document[start:end if end >= 0 else len(document)]


def documented_codes():
    """PROTOCOL.md 1.3: code -> name; 5.5 and 5.10: reason number -> (name, close code)."""
    codes = {int(m.group(1)): m.group(2).strip() for m in re.finditer(r"^\| (\d{4}) \| ([^|]+)\|", section("### 1.3 Close codes"), re.M)}

    def reasons(title):
        text = section(title)
        names = {}
        for m in re.finditer(r"^\| (\d+) \| ([^|]+?) \| (\d+) \| ([^|]+?) \|$", text, re.M):
            names[int(m.group(1))], names[int(m.group(3))] = (g.split(" (")[0] for g in (m.group(2), m.group(4)))
        closes = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| \d+ ([a-z ]+?) \| (\d{4}) \|$", text, re.M)}
        return {number: (name, closes.get(name)) for number, name in names.items()}

    return codes, reasons("### 5.5 Reject"), reasons("### 5.10 Disconnect")


def garbage(rng, kinds=(0x00,) + tuple(range(0x0A, 0x40)) + (0x85, 0x86, 0x02, 0x03, 0x04, 0x07, 0x09)):
    """Random bytes no client may send: an unknown or reserved type, a compressed frame in
    mode none, or a server's message."""
    return bytes([rng.choice(kinds)]) + os.urandom(rng.randrange(0, 48))


async def check_close_codes(report):
    name = "close codes: every reject and disconnect carries PROTOCOL.md's code"
    server = arena("--capacity", 3, "--max-rooms", 2, "--hello-timeout", SHORT_TIMEOUT_S, "--client-timeout", SHORT_TIMEOUT_S)
    port = server.port
    fingerprint = await learn_fingerprint(port)
    codes, reject_reasons, disconnect_reasons = documented_codes()
    problems, seen = [], {}
    if len(codes) < 10 or not reject_reasons or not disconnect_reasons:
        problems.append("could not read the close-code tables of PROTOCOL.md 1.3, 5.5, 5.10 (%d codes)" % len(codes))
    good = await play(port, fingerprint)
    start = now()

    def record(path, code, expected):
        seen.setdefault(code, []).append(path)
        if code != expected:
            problems.append("%s: closed with %s, PROTOCOL.md says %s" % (path, code, expected))

    async def rejected(path, reason_name, text_parts=(), room=b"main", schema=None, **fields):
        session = await join(port, fingerprint if schema is None else schema, room, **fields)
        if session.reject is None:
            problems.append("%s: no reject (welcome %r, close %r)" % (path, session.welcome, session.ws.close_code))
            session.ws.abort()
            return
        reason, words = session.reject
        documented_name, documented_code = reject_reasons.get(reason, ("?", None))
        if documented_name != reason_name:
            problems.append("%s: reject reason %s (%s), expected %s" % (path, reason, documented_name, reason_name))
        for part in text_parts:
            if part not in words:
                problems.append("%s: the reject text %r does not say %r" % (path, words, part))
        record(path, session.ws.close_code, documented_code)

    await rejected("hello of protocol version 2", "version mismatch", version=2)
    await rejected("hello of another schema", "schema mismatch", schema=fingerprint ^ 1)
    await rejected("garbage first frame", "invalid hello", raw_first_frame=bytes([0x3F, 1, 2, 3]))
    await rejected("input as first frame", "invalid hello", raw_first_frame=input_message(0, 1))
    await rejected("compressed hello", "invalid hello", ("compressed",), type_byte=0x81)
    await rejected("2000-byte hello payload", "invalid hello", ("hello payload", "2000", "1024"), payload=b"x" * 2000)
    await rejected("65-byte room name", "invalid hello", ("room name", "65", "64"), room=b"r" * 65)
    # Bit 1 is a connect token (PROTOCOL.md 5.3.1); bits 2-7 are reserved.
    await rejected("reserved hello flags", "invalid hello", ("reserved",), flags=0x04)
    fillers = [await play(port, fingerprint, b"main", b"filler%d" % i) for i in range(2)]
    await rejected("hello for a room full of players", "room full")
    second = await play(port, fingerprint, b"second", b"opener")
    await rejected("hello for one room more than --max-rooms", "unknown room", room=b"third")
    for player in fillers + [second]:
        await player.stop()
    stranger = await join(port, fingerprint, b"main", b"stranger", token=b"not-a-token")
    if stranger.welcome is None:
        problems.append("a hello with an unknown resume token was refused (%r, close %s); PROTOCOL.md 5.13: it joins as a new player" % (
            stranger.reject, stranger.ws.close_code))
    else:
        stranger.ws.send_binary(disconnect_message())
        await stranger.ws.wait_closed(2)

    # Timeouts: no hello at all; a hello and then silence (disconnect timed out first).
    silent = await RawWebSocket.open(port)
    opened = now()
    await silent.wait_closed(SHORT_TIMEOUT_S + 3)
    record("no hello within --hello-timeout (%.1f s)" % (now() - opened), silent.close_code, 4005)
    idle = await join(port, fingerprint, b"main", b"idle")
    idle_player = Player(idle, answers=False).start()
    idle_player.tasks[1].cancel()  # never pings, never sends an input
    await asyncio.wait([idle_player.tasks[0]], timeout=SHORT_TIMEOUT_S + 3)
    await idle_player.stop(leave=False)
    expect_disconnect(problems, "silent player", idle.disconnect, disconnect_reasons, "timed out")
    record("silent player past --client-timeout", idle.ws.close_code, disconnect_code(disconnect_reasons, "timed out"))

    # A player who says goodbye, and one dropped by the bad-frame policy.
    leaver = await join(port, fingerprint, b"main", b"leaver")
    leaver.ws.send_binary(disconnect_message())
    record("disconnect leaving", await leaver.ws.wait_closed(3), 1000)
    spammer = await play(port, fingerprint, b"main", b"spammer")
    rng = random.Random(18)
    for _ in range(BAD_FRAME_LIMIT + 1):
        spammer.ws.send_binary(garbage(rng))
    await asyncio.wait([spammer.tasks[0]], timeout=3)
    await spammer.stop(leave=False)
    expect_disconnect(problems, "bad frames", spammer.session.disconnect, disconnect_reasons, "protocol error")
    record("%d bad frames" % (BAD_FRAME_LIMIT + 1), spammer.ws.close_code, disconnect_code(disconnect_reasons, "protocol error"))

    # RFC 6455 violations, answered by the WebSocket layer under the game.
    for path, frame, expected in (
            ("text message", dict(opcode=0x1, payload=b"hi"), 1003),
            ("unmasked frame", dict(opcode=0x2, payload=b"\x01", mask=False), 1002),
            ("close reason not UTF-8", dict(opcode=0x8, payload=b"\x03\xe8\xff\xfe"), 1007),
            ("frame declaring 16 MiB + 1", dict(opcode=0x2, payload=b"", declared_length=(16 << 20) + 1), 1009)):
        ws = await RawWebSocket.open(port)
        ws.send_frame(**frame)
        record(path, await ws.wait_closed(3), expected)
    figures_end = now()
    problems += good_client_problems(good, start, figures_end, figures := {})

    # Shutdown last: the good client hears why (disconnect server shutting down) and 1001.
    server.process.send_signal(signal.SIGTERM)
    await asyncio.wait([good.tasks[0]], timeout=5)
    await good.stop(leave=False)
    expect_disconnect(problems, "server shutdown", good.session.disconnect, disconnect_reasons, "server shutting down")
    record("server shutdown (SIGTERM)", good.ws.close_code, disconnect_code(disconnect_reasons, "server shutting down"))

    for code, code_name in sorted(codes.items()):
        if code not in seen and code not in NOT_TRIGGERABLE:
            problems.append("documented code %d (%s) was never sent on any path this check triggers" % (code, code_name))
    for code in seen:
        if code not in codes:
            problems.append("code %s (%s) is not in PROTOCOL.md 1.3" % (code, ", ".join(seen[code])))
    figures["documented"] = len(codes)
    figures["seen"] = ",".join(str(c) for c in sorted(k for k in seen if k is not None))
    figures["not triggerable"] = ",".join(str(c) for c in sorted(NOT_TRIGGERABLE))
    figures["paths"] = sum(len(v) for v in seen.values())
    report.verdict(name, problems, figures)
    for code, paths in sorted(seen.items(), key=lambda item: str(item[0])):
        print("     %s %s: %s" % (code, codes.get(code, "?"), "; ".join(paths)), flush=True)
    for code in sorted(NOT_TRIGGERABLE):
        print("     %d %s: not triggerable from outside (%s)" % (code, codes.get(code, "?"), NOT_TRIGGERABLE[code]), flush=True)


def disconnect_code(reasons, reason_name):
    return next((code for name, code in reasons.values() if name == reason_name), None)


def expect_disconnect(problems, path, disconnect, reasons, reason_name):
    if disconnect is None:
        problems.append("%s: no disconnect message before the close" % path)
    elif reasons.get(disconnect[0], ("?",))[0] != reason_name:
        problems.append("%s: disconnect reason %d, expected %s" % (path, disconnect[0], reason_name))


async def garbage_attacker(session, rng, frames_per_burst, burst_interval, with_input, duration):
    """Sends garbage (and with `with_input` one valid input per burst) until closed; returns
    (garbage frames sent, seconds from the first to the close or None, close code, disconnect)."""
    player = Player(session).start()
    player.tasks[1].cancel()
    sent, first = 0, now()
    while player.ws.closed_at is None and now() - first < duration:
        if with_input:
            player.ws.send_binary(input_message(0, sent + 1))
        for _ in range(frames_per_burst):
            player.ws.send_binary(garbage(rng))
            sent += 1
        await asyncio.sleep(burst_interval)
    await asyncio.wait([player.tasks[0]], timeout=2)
    await player.stop(leave=False)
    closed = player.ws.closed_at
    return sent, (closed - first) if closed else None, player.ws.close_code, session.disconnect


async def check_garbage(report):
    name = "garbage frames: dropped past %d bad frames with 4004, good client unharmed" % BAD_FRAME_LIMIT
    server = arena()
    fingerprint = await learn_fingerprint(server.port)
    good = await play(server.port, fingerprint)
    rng, problems, figures = random.Random(1818), [], {}
    sessions = [await join(server.port, fingerprint, b"main", b"junk%d" % i) for i in range(22)]
    if any(s.welcome is None for s in sessions):
        problems.append("not every attacker was welcomed")
    start = now()
    # 20 clients of random garbage at 200 frames/s, one of a valid input plus 30 garbage frames
    # per tick; and one at the limit: 10 bad frames, then good play, then one more.
    random_attacks = [garbage_attacker(s, rng, 1, 0.005, False, 5) for s in sessions[:20]]
    mixed = garbage_attacker(sessions[20], rng, 30, 1 / TICK_RATE, True, 5)
    at_limit = limit_player(sessions[21], rng, problems, figures)
    results = await asyncio.gather(*random_attacks, mixed, at_limit)
    end = now()
    wrong = []
    for index, (sent, to_close, code, disconnect) in enumerate(results[:21]):
        kind = "random client %d" % index if index < 20 else "input + 30 garbage per tick"
        if code != 4004 or to_close is None or to_close > 1.0 or sent <= BAD_FRAME_LIMIT or disconnect is None or disconnect[0] != 5:
            wrong.append("%s: %d garbage frames sent, closed %s after the first with code %s, disconnect %r" % (
                kind, sent, "%.2f s" % to_close if to_close is not None else "never", code, disconnect))
    if wrong:
        problems.append("%d of 21 garbage clients were not dropped within 1 s with disconnect reason 5 (protocol error) and 4004; %s%s" % (
            len(wrong), "; ".join(wrong[:3]), "; …" if len(wrong) > 3 else ""))
    closes = [r[1] for r in results[:20] if r[1] is not None]
    figures["random dropped"] = "%d/20" % sum(1 for r in results[:20] if r[2] == 4004)
    figures["random drop ms max"] = max(closes) * 1000 if closes else float("inf")
    figures["mixed dropped ms"] = results[20][1] * 1000 if results[20][1] is not None else float("inf")
    problems += good_client_problems(good, start, end, figures)
    await good.stop()
    server.stop()
    report.verdict(name, problems, figures)


async def limit_player(session, rng, problems, figures):
    """At the limit and one past: 10 bad frames leave the client playing, the 11th drops it."""
    player = Player(session).start()
    for _ in range(BAD_FRAME_LIMIT):
        player.ws.send_binary(garbage(rng, kinds=tuple(range(0x0A, 0x40))))
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)
    playing_from = now()
    await asyncio.sleep(2.0)
    rate = player.figures(playing_from, now())["snapshots_per_s"]
    figures["at-limit snapshots/s"] = rate
    if player.ws.closed_at is not None or rate < 0.8 * TICK_RATE:
        problems.append("a client with exactly %d bad frames was dropped or starved (close %s, %.1f snapshots/s)" % (
            BAD_FRAME_LIMIT, player.ws.close_code, rate))
    one_more = now()
    player.ws.send_binary(garbage(rng, kinds=(0x3F,)))
    await asyncio.wait([player.tasks[0]], timeout=3)
    await player.stop(leave=False)
    figures["one past limit dropped ms"] = (player.ws.closed_at - one_more) * 1000 if player.ws.closed_at else float("inf")
    if player.ws.close_code != 4004 or player.ws.closed_at is None or player.ws.closed_at - one_more > 1.0:
        problems.append("bad frame %d did not drop the client within 1 s with 4004 (close %s)" % (BAD_FRAME_LIMIT + 1, player.ws.close_code))
    return 0, 0.0, 4004, (5, "")
