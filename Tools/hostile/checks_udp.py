"""Hostile datagrams against `arena serve`'s netcode.io port (issue #31 point 7): no amplification
before a connection is confirmed, spoofed sources never connect, replays are dropped, a token
works from one address only, garbage is dropped cheaply and counted, and connection-request
floods are bounded per address. A good UDP client plays beside every attack.

Each attacker binds its own address of 127.0.0.0/8 (Linux routes the whole block to loopback),
so that the per-address bounds of one attack touch neither the good client (127.0.0.1) nor
another attack."""
import asyncio
import os
import random
import socket
import struct
import time

from udp import ArenaUDP, GoodUDPPlayer, NetcodeClient, bound, drain, packet_type, request_packet

import endpoints  # noqa: E402 (Tools/netcode-peer, on the path once `udp` is imported)
import netcode as nc  # noqa: E402

# `arena serve --max-udp-requests-per-address` for the flood check (the default is 64).
FLOOD_CHECK_BUDGET = 5
# The most CPU the server may spend on one dropped datagram (a debug build), on average.
MAXIMUM_CPU_PER_DROPPED_DATAGRAM_US = 500
REPLY_WAIT_S = 0.15


def run_udp_check(report, name, seconds, attack, options=()):
    """Starts a server (with `options`) and a good UDP client playing for `seconds`, runs
    `attack(server, figures)` (which returns its problems) once the client is connected, and
    judges both."""
    server = ArenaUDP(*options)
    try:
        good = GoodUDPPlayer(server, seconds)
        good.wait_connected()
        figures = {}
        start = time.monotonic()
        problems = attack(server, figures)
        end = time.monotonic()
        time.sleep(0.3)  # the frames drawn just after the attack
        problems += good.problems(start, end + 0.3, figures)
        good.stop()
    finally:
        server.stop()
    report.verdict(name, problems, figures)


def amplification(server, figures):
    """Every datagram the server sends an unconnected address, against the one that caused it."""
    token = server.token()
    sock = bound("127.0.0.2")
    problems, exchanges = [], []
    rng = random.Random(31)

    def exchange(label, datagram):
        sock.sendto(datagram, server.address)
        replies = drain(sock, REPLY_WAIT_S)
        exchanges.append((label, len(datagram), [len(r) for r in replies]))
        for reply in replies:
            if len(reply) > len(datagram):
                problems.append("%s of %d bytes drew a reply of %d bytes" % (label, len(datagram), len(reply)))
        return replies

    for size in (1, 17, 18, 100, 1077, 1300):
        exchange("garbage", bytes(rng.getrandbits(8) for _ in range(size)))
    exchange("truncated request", request_packet(token)[:-1])
    exchange("request with a forged token", request_packet(token)[:-16] + bytes(16))
    challenges = exchange("request", request_packet(token))
    exchange("request again", request_packet(token))
    challenge = next((c for c in challenges if packet_type(c, token) == nc.CHALLENGE), None)
    if challenge is None:
        problems.append("a valid request got no challenge (replies %s)" % exchanges[-2][2])
    else:
        body = nc.read_packet(challenge, token.server_to_client_key, token.protocol_id, {nc.CHALLENGE})[2]
        exchange("response", nc.write_packet(nc.RESPONSE, body, 0, token.client_to_server_key, token.protocol_id))
    sock.close()
    sent = sum(e[1] for e in exchanges)
    replied = sum(sum(e[2]) for e in exchanges)
    figures["datagrams sent"] = len(exchanges)
    figures["bytes sent/replied"] = "%d/%d" % (sent, replied)
    figures["largest reply/request"] = "%.2f" % max((max(e[2]) / e[1] for e in exchanges if e[2]), default=0.0)
    replies_to_garbage = [e for e in exchanges if e[0] != "request" and e[0] != "request again" and e[0] != "response" and e[2]]
    if replies_to_garbage:
        problems.append("invalid datagrams drew replies: %s" % replies_to_garbage)
    return problems


def raw_socket():
    """A raw IPv4 socket that writes its own headers (needs CAP_NET_RAW), or None."""
    try:
        return socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    except PermissionError:
        return None


def spoofed(source, destination, payload):
    """An IPv4/UDP packet from `source` to `destination`, whatever socket sends it. The kernel
    fills the IP checksum and length; a UDP checksum of 0 means none (RFC 768)."""
    udp = struct.pack("!HHHH", source[1], destination[1], 8 + len(payload), 0) + payload
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, socket.IPPROTO_UDP, 0,
                         socket.inet_aton(source[0]), socket.inet_aton(destination[0]))
    return header + udp


def spoofing(server, figures):
    """An attacker at 127.0.0.2 holding a victim's token sends its request from the victim's address
    127.0.0.3 (a raw socket writes that source; without CAP_NET_RAW it sends from its own address and
    the victim's socket checks where the challenge goes). The challenge goes to the claimed source
    only, so the attacker, which cannot receive there, has no challenge token: its guessed responses
    (from the victim's address, and from its own) never connect."""
    token = server.token()
    attacker, victim = bound("127.0.0.2"), bound("127.0.0.3")
    raw = raw_socket()
    problems = []
    before = server.dropped()
    if raw is not None:
        raw.sendto(spoofed(victim.getsockname(), server.address, request_packet(token)), server.address)
    else:
        attacker.sendto(request_packet(token), server.address)
    at_victim, at_attacker = drain(victim, 0.3), drain(attacker, 0.01)
    figures["source"] = "spoofed by a raw socket" if raw is not None else "the attacker's own (no CAP_NET_RAW)"
    claimed, real = (at_victim, at_attacker) if raw is not None else (at_attacker, at_victim)
    figures["challenges at the claimed/other address"] = "%d/%d" % (len(claimed), len(real))
    if [packet_type(d, token) for d in claimed] != [nc.CHALLENGE]:
        problems.append("the request's source got %s, not one challenge" % [packet_type(d, token) for d in claimed])
    if real:
        problems.append("%d datagrams went to an address that sent no request" % len(real))
    guesses = 5
    for sequence in range(guesses):
        guessed = struct.pack("<Q", sequence) + os.urandom(nc.CHALLENGE_TOKEN_BYTES)
        response = nc.write_packet(nc.RESPONSE, guessed, sequence, token.client_to_server_key, token.protocol_id)
        if raw is not None:
            raw.sendto(spoofed(victim.getsockname(), server.address, response), server.address)
        attacker.sendto(response, server.address)
    answered = drain(victim, 0.3) + drain(attacker, 0.01)
    refused = server.dropped().get("refused", 0) - before.get("refused", 0)
    figures["guessed responses refused"] = "%d of %d" % (refused, guesses * (2 if raw is not None else 1))
    if answered:
        problems.append("guessed challenge responses drew %d datagrams (types %s): a spoofer connected" % (
            len(answered), [packet_type(d, token) for d in answered]))
    if refused < guesses * (2 if raw is not None else 1):
        problems.append("only %d guessed responses were counted refused" % refused)
    for sock in (attacker, victim) + ((raw,) if raw is not None else ()):
        sock.close()
    return problems


def replay(server, figures):
    """A connected netcode.io client's payload and keep-alive, captured and sent again: netcode.io's
    replay protection drops each copy before the packet layer sees it, and counts it."""
    client = NetcodeClient(server, "127.0.0.4")
    problems = []
    if not client.connect(server.token_bytes()):
        return ["the netcode.io client did not connect (state %d)" % client.client.state]
    captured = [client.send_payload(b"\x00" * 40) for _ in range(3)]
    # The client sends a keep-alive once 0.1 s pass without sending (bounded wait for it).
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and not any(d[0] & 0x0F == nc.KEEP_ALIVE for d in client.sent):
        client.pump(0.02)
    keep_alive = next((d for d in reversed(client.sent) if d[0] & 0x0F == nc.KEEP_ALIVE), None)
    if keep_alive is None:
        problems.append("the client sent no keep-alive to capture")
    else:
        captured.append(keep_alive)
    before = server.dropped()
    copies = 4
    for datagram in captured:
        for _ in range(copies):
            client.sock.sendto(datagram, server.address)
    time.sleep(0.2)
    client.pump(0.05)
    after = server.dropped()
    replayed = after.get("replayed", 0) - before.get("replayed", 0)
    figures["copies sent/dropped as replays"] = "%d/%d" % (copies * len(captured), replayed)
    if replayed != copies * len(captured):
        problems.append("%d replayed copies were counted, not %d" % (replayed, copies * len(captured)))
    if client.client.state != endpoints.CONNECTED:
        problems.append("the replaying client itself lost its connection (state %d)" % client.client.state)
    client.close()
    return problems


def second_address(server, figures):
    """One guest token from 127.0.0.5 and then from 127.0.0.6: the second address is never
    challenged, neither while the first is connecting nor once it is connected."""
    token_bytes = server.token_bytes()
    token = nc.ConnectToken.read(token_bytes)
    first = NetcodeClient(server, "127.0.0.5")
    thief = bound("127.0.0.6")
    problems = []
    before = server.dropped()
    first.sock.sendto(request_packet(token), server.address)
    thief.sendto(request_packet(token), server.address)
    stolen_early = drain(thief, REPLY_WAIT_S)
    if not first.connect(token_bytes):
        problems.append("the token's first address did not connect (state %d)" % first.client.state)
    thief.sendto(request_packet(token), server.address)
    stolen_late = drain(thief, REPLY_WAIT_S)
    refused = server.dropped().get("refused", 0) - before.get("refused", 0)
    figures["replies to the second address"] = len(stolen_early) + len(stolen_late)
    figures["refused"] = refused
    if stolen_early or stolen_late:
        problems.append("the second address got %d replies while connecting and %d once connected" % (
            len(stolen_early), len(stolen_late)))
    if refused < 2:
        problems.append("only %d requests were counted refused" % refused)
    first.close()
    thief.close()
    return problems


def garbage(server, figures):
    """Short (under netcode.io's 18-byte minimum), oversized (over its 1300 bytes, up to UDP's
    largest) and random datagrams: each dropped, counted under its reason, for little CPU."""
    sock = bound("127.0.0.7")
    rng = random.Random(7)
    batches = {
        "short": [bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 17))) for _ in range(300)],
        "oversized": [bytes(rng.randint(1301, 1500)) for _ in range(200)] + [bytes(9000)] * 20 + [bytes(65000)] * 5,
        "refused": [bytes([rng.choice((1, 2, 3, 4, 5, 6, 0x15, 0x83, 0xF7))]) + os.urandom(rng.randint(17, 1299)) for _ in range(300)],
    }
    problems = []
    # The server's CPU while quiet (ticking the room), to tell the datagrams' cost from the game's.
    quiet_start, quiet_cpu = time.monotonic(), server.cpu_seconds()
    time.sleep(0.5)
    idle_rate = (server.cpu_seconds() - quiet_cpu) / (time.monotonic() - quiet_start)
    before, cpu_before, started = server.dropped(), server.cpu_seconds(), time.monotonic()
    kernel_before = server.kernel_drops()
    lost = {}
    for reason, datagrams in batches.items():
        lost_before = server.kernel_drops()
        unpaced = 0
        for index, datagram in enumerate(datagrams):
            sock.sendto(datagram, server.address)
            # Paced within the server socket's receive buffer, so that the kernel drops none
            # unless the machine is too busy to run the server (counted below).
            unpaced += len(datagram)
            if unpaced > 8192 or index % 10 == 9:
                time.sleep(0.005)
                unpaced = 0
        time.sleep(0.1)
        lost[reason] = server.kernel_drops() - lost_before
    time.sleep(0.2)
    after = server.dropped()
    cpu = server.cpu_seconds() - cpu_before - idle_rate * (time.monotonic() - started)
    replies = drain(sock, 0.01)
    total = sum(len(d) for d in batches.values()) - (server.kernel_drops() - kernel_before)
    for reason, datagrams in batches.items():
        counted = after.get(reason, 0) - before.get(reason, 0)
        figures[reason] = "%d/%d" % (counted, len(datagrams)) + (" (%d lost in the kernel)" % lost[reason] if lost[reason] else "")
        # The kernel's drops are the socket's, the good client's datagrams among them.
        if not len(datagrams) - lost[reason] <= counted <= len(datagrams):
            problems.append("%d %s datagrams sent, %d counted under reason=%s, %d dropped by the kernel" % (
                len(datagrams), reason, counted, reason, lost[reason]))
    per_datagram_us = max(cpu, 0.0) * 1e6 / total
    figures["server CPU per datagram us"] = per_datagram_us
    if per_datagram_us > MAXIMUM_CPU_PER_DROPPED_DATAGRAM_US:
        problems.append("the server spent %.0f us of CPU per dropped datagram (limit %d)" % (
            per_datagram_us, MAXIMUM_CPU_PER_DROPPED_DATAGRAM_US))
    if replies:
        problems.append("garbage drew %d replies" % len(replies))
    sock.close()
    return problems


def request_flood(server, figures):
    """A burst of the budget's requests from one host, then of one past it, then a flood of 2000 in
    about a second: at the limit every request is challenged; one past, one is dropped unread and
    counted; the flood gets at most a burst plus the rate's worth of challenges. The server runs
    with a budget of FLOOD_CHECK_BUDGET, whose refill interval (0.2 s) is far longer than a burst
    takes, even in a debug build on a busy machine."""
    limit = FLOOD_CHECK_BUDGET
    problems = []
    results = []
    for host, count in (("127.0.0.8", limit), ("127.0.0.9", limit + 1)):
        token = server.token()
        sock = bound(host)
        before = server.dropped()
        for _ in range(count):
            sock.sendto(request_packet(token), server.address)
        challenges = [d for d in drain(sock, 0.3) if packet_type(d, token) == nc.CHALLENGE]
        dropped = server.dropped().get("request_rate", 0) - before.get("request_rate", 0)
        results.append("%d→%d challenged, %d dropped" % (count, len(challenges), dropped))
        expected = (min(count, limit), max(count - limit, 0))
        if (len(challenges), dropped) != expected:
            problems.append("%d requests at once from %s: %d challenged and %d dropped, not %d and %d" % (
                count, host, len(challenges), dropped, *expected))
        sock.close()
    token = server.token()
    sock = bound("127.0.0.16")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    before, kernel_before = server.dropped(), server.kernel_drops()
    started = time.monotonic()
    flood = 2000
    for index in range(flood):
        sock.sendto(request_packet(token), server.address)
        if index % 20 == 19:
            time.sleep(0.01)
    elapsed = time.monotonic() - started
    challenges = [d for d in drain(sock, 0.3) if packet_type(d, token) == nc.CHALLENGE]
    dropped = server.dropped().get("request_rate", 0) - before.get("request_rate", 0)
    lost = server.kernel_drops() - kernel_before
    allowed = limit + limit * (elapsed + 0.3)
    results.append("%d in %.1f s→%d challenged, %d dropped%s" % (
        flood, elapsed, len(challenges), dropped, ", %d lost in the kernel" % lost if lost else ""))
    if len(challenges) > allowed:
        problems.append("a flood of %d requests in %.1f s drew %d challenges, over the %.0f its budget allows" % (
            flood, elapsed, len(challenges), allowed))
    # The kernel's drops are the socket's, the good client's datagrams among them.
    if not flood - lost <= len(challenges) + dropped <= flood:
        problems.append("of %d flooded requests %d were challenged, %d dropped and %d lost in the kernel" % (
            flood, len(challenges), dropped, lost))
    figures["bursts"] = "; ".join(results)
    sock.close()
    return problems


def udp_check(name, seconds, attack, options=()):
    async def check(report):
        await asyncio.to_thread(run_udp_check, report, name, seconds, attack, options)
    check.__name__ = "check_udp_" + attack.__name__
    return check


UDP_CHECKS = [
    udp_check("udp amplification: no reply to an unconnected address is larger than its request", 4, amplification),
    udp_check("udp spoofing: the challenge goes to the request's source only; a spoofer never connects", 4, spoofing),
    udp_check("udp replay: captured payload and keep-alive packets sent again are dropped and counted", 4, replay),
    udp_check("udp token theft: a token used from a second address is refused", 4, second_address),
    udp_check("udp garbage: short, oversized and random datagrams are dropped cheaply and counted", 5, garbage),
    udp_check("udp request flood: --max-udp-requests-per-address %d, the burst at the limit and one past" % FLOOD_CHECK_BUDGET,
              6, request_flood, ("--max-udp-requests-per-address", FLOOD_CHECK_BUDGET)),
]
