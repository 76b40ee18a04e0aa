"""Slots and rooms against `arena serve` (#18 points 4 and 5): squatters who join and reset
cannot lock a room, and one client's hundred room names leave the room cap usable again once it
leaves and the idle-room timeout has passed."""
import asyncio

from checks_game import HELD_SLOT_LIMIT, IDLE_ROOM_TIMEOUT_S, MAXIMUM_JOIN_AFTER_SQUAT_S, MAXIMUM_ROOMS, RESUME_GRACE_WITHOUT_INPUT_S, ROOM_CAPACITY
from harness import arena, good_client_problems, learn_fingerprint
from players import Player, join, play
from wire import disconnect_message, input_message, now

# The per-address connection and handshake budgets off (0), for checks of the game layer's own rules
# whose clients all come from one address.
NO_ADDRESS_LIMITS = ("--max-connections-per-address", 0, "--max-handshakes-per-address", 0)

SQUAT_ROUNDS = (True, False, True)  # whether the round's squatters send an input (30 s grace) or not (2 s)


async def check_squatting(report):
    name = "squatting: %d clients join and reset, a real player still joins within %.0f s" % (ROOM_CAPACITY, MAXIMUM_JOIN_AFTER_SQUAT_S)
    # Every squatter comes from 127.0.0.1: the per-address budgets (#18 point 1) would refuse
    # most of them before they reach a room, so they are lifted to test the held-slot rules alone.
    server = arena("--capacity", ROOM_CAPACITY, *NO_ADDRESS_LIMITS)
    fingerprint = await learn_fingerprint(server.port)
    good = await play(server.port, fingerprint)
    problems, figures, joins, tries = [], {}, [], []
    start = now()
    for round_number, with_input in enumerate(SQUAT_ROUNDS, 1):
        squatters = await asyncio.gather(*[join(server.port, fingerprint, b"main", b"squat%d" % i) for i in range(ROOM_CAPACITY)])
        admitted = [s for s in squatters if s.welcome]
        refused = [s for s in squatters if s.reject]
        # The good client holds one slot: the room is full of connected players, and only then refuses.
        if len(admitted) != ROOM_CAPACITY - 1 or len(refused) != 1 or refused[0].ws.close_code != 4001:
            problems.append("round %d: %d squatters admitted, %d refused (close %s); expected %d and 1 with 4001" % (
                round_number, len(admitted), len(refused), sorted({s.ws.close_code for s in refused}, key=str), ROOM_CAPACITY - 1))
        if with_input:
            for squatter in admitted:
                squatter.ws.send_binary(input_message(0, 1))
            await asyncio.sleep(0.3)  # a few ticks: the host has read the inputs
        for squatter in squatters:
            squatter.ws.reset()
        reset_at = now()
        session, attempts = None, 0
        while True:  # hellos every 0.1 s for the limit and 2 s more, to tell "late" from "never"
            attempts += 1
            session = await join(server.port, fingerprint, b"main", b"real%d" % round_number)
            if session.welcome or now() - reset_at > MAXIMUM_JOIN_AFTER_SQUAT_S + 2:
                break
            await asyncio.sleep(0.1)
        waited = (session.joined_at - reset_at) if session and session.welcome else None
        joins.append(waited)
        tries.append(attempts)
        if waited is None or waited > MAXIMUM_JOIN_AFTER_SQUAT_S:
            problems.append("round %d (squatters %s input): the real player %s (%d attempts, last reject %r)" % (
                round_number, "with" if with_input else "without",
                "joined after %.2f s" % waited if waited else "did not join", attempts, session.reject if session else None))
        elif attempts > 1:
            problems.append("round %d: the real player's first hello after the resets was refused (it joined at attempt %d)" % (
                round_number, attempts))
        if session and session.welcome:
            player = Player(session).start()
            await asyncio.sleep(0.5)
            if len(player.snapshots) < 5:
                problems.append("round %d: the real player got %d snapshots in 0.5 s" % (round_number, len(player.snapshots)))
            await player.stop()
    end = now()
    figures["real player's join after the resets ms"] = "/".join("%.0f" % (j * 1000) if j is not None else "-" for j in joins)
    figures["hellos needed"] = "/".join(str(t) for t in tries)
    figures["rounds"] = len(SQUAT_ROUNDS)
    problems += good_client_problems(good, start, end, figures)
    await good.stop()
    server.stop()
    report.verdict(name, problems, figures)


async def check_room_names(report):
    name = "100 room names from one client: the room cap is usable again once it leaves"
    server = arena("--max-rooms", MAXIMUM_ROOMS, "--idle-room-timeout", IDLE_ROOM_TIMEOUT_S, *NO_ADDRESS_LIMITS)
    port = server.port
    fingerprint = await learn_fingerprint(port)
    good = await play(port, fingerprint)
    problems, figures = [], {}
    start = now()
    attempts = []
    for batch in range(5):
        attempts += await asyncio.gather(*[join(port, fingerprint, b"name%03d" % (batch * 20 + i), b"namer") for i in range(20)])
    admitted = [s for s in attempts if s.welcome]
    refused = [s for s in attempts if s.reject]
    figures["names admitted/refused"] = "%d/%d" % (len(admitted), len(refused))
    if len(admitted) != MAXIMUM_ROOMS - 1:
        problems.append("%d of 100 room names opened a room; with 'main' and --max-rooms %d, expected %d" % (
            len(admitted), MAXIMUM_ROOMS, MAXIMUM_ROOMS - 1))
    if len(refused) != 100 - len(admitted) or any(s.reject[0] != 4 or s.ws.close_code != 1008 for s in refused):
        problems.append("refused names: reasons %s, close codes %s; expected unknown room (4) and 1008" % (
            sorted({s.reject[0] for s in refused}, key=str), sorted({s.ws.close_code for s in refused}, key=str)))
    probe = await join(port, fingerprint, b"fresh", b"probe")
    if probe.reject is None or probe.ws.close_code != 1008:
        problems.append("with the cap used up, a new room name got %r, close %s (expected unknown room, 1008)" % (
            probe.welcome or probe.reject, probe.ws.close_code))
    # The client leaves: half say goodbye, half reset (their slots held for the 2 s grace without input).
    for index, session in enumerate(admitted):
        if index % 2:
            session.ws.reset()
        else:
            session.ws.send_binary(disconnect_message())
    left_at = now()
    await asyncio.gather(*[s.ws.wait_closed(2) for i, s in enumerate(admitted) if not i % 2])
    fresh = None
    while now() - left_at < IDLE_ROOM_TIMEOUT_S + RESUME_GRACE_WITHOUT_INPUT_S + 10:
        fresh = await join(port, fingerprint, b"fresh", b"probe")
        if fresh.welcome:
            break
        await asyncio.sleep(0.2)
    freed = (fresh.joined_at - left_at) if fresh and fresh.welcome else None
    figures["first new room after leaving s"] = freed if freed is not None else float("inf")
    latest = IDLE_ROOM_TIMEOUT_S + 1.5
    if freed is None or freed < IDLE_ROOM_TIMEOUT_S - 0.25 or freed > latest:
        problems.append("a new room name was accepted %s after the client left; expected between %.1f s (--idle-room-timeout) and %.1f s" % (
            "%.2f s" % freed if freed is not None else "never", IDLE_ROOM_TIMEOUT_S, latest))
    fresh_player = Player(fresh).start() if fresh and fresh.welcome else None
    # Every room slot again, once the reset clients' held slots are gone and their rooms idled out:
    # 'main' + 'fresh' + 14 more is the cap; one more is refused.
    await asyncio.sleep(max(0.0, left_at + RESUME_GRACE_WITHOUT_INPUT_S + IDLE_ROOM_TIMEOUT_S + 1.0 - now()))
    again = [await join(port, fingerprint, b"again%02d" % i, b"again") for i in range(MAXIMUM_ROOMS - 1)]
    opened = sum(1 for s in again if s.welcome)
    figures["rooms opened again"] = "%d of %d" % (opened, MAXIMUM_ROOMS - 2)
    if opened != MAXIMUM_ROOMS - 2 or again[-1].ws.close_code != 1008:
        problems.append("after the idle timeout %d new rooms opened (expected %d) and the one past the cap got close %s (expected 1008)" % (
            opened, MAXIMUM_ROOMS - 2, again[-1].ws.close_code))
    end = now()
    problems += good_client_problems(good, start, end, figures)
    for session in again:
        session.ws.abort()
    if fresh_player:
        await fresh_player.stop()
    await good.stop()
    server.stop()
    report.verdict(name, problems, figures)


__all__ = ["check_squatting", "check_room_names", "HELD_SLOT_LIMIT"]
