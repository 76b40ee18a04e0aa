"""The WebSocket-level checks (#18 points 1, 6, 7): half-open connections from one address, clients
that never read, a deflate bomb, against `arena serve` and `tickwire echo` with the limit options
below. A server that refuses an option fails the check."""
import asyncio
import select
import socket
import zlib

from harness import Unsupported, arena, echo, good_client_problems, learn_fingerprint
from players import EchoProbe, join, play
from wire import RawWebSocket, frame_bytes, now

# #18 point 1: per-address connection and handshake budgets of `arena serve`.
ARENA_CONNECTION_BUDGET_OPTIONS = ["--max-connections-per-address", 64, "--max-handshakes-per-address", 16]
HALF_OPEN_CONNECTIONS = 1000
MAXIMUM_SECOND_ADDRESS_JOIN_S = 1.0
# #18 point 6: the write timeout and the process-wide output budget of `tickwire echo`.
ECHO_WRITE_TIMEOUT_S = 2.0
ECHO_OUTPUT_BUDGET_BYTES = 32 << 20
ECHO_SLOW_READER_OPTIONS = ["--write-timeout", ECHO_WRITE_TIMEOUT_S, "--output-budget-bytes", ECHO_OUTPUT_BUDGET_BYTES]
NEVER_READERS = 10
MAXIMUM_ECHO_ROUND_TRIP_MS = 50
# #18 point 7: inflation in bounded steps in `tickwire echo`.
ECHO_BOMB_OPTIONS = []  # inflation steps are always on (256 KiB per connection per loop turn by default)
BOMB_INFLATED_BYTES = 1 << 30
BOMBS = 3


def start_or_fail(start, options, report, name):
    """The server with `options`, or None after reporting the check FAILED when it refuses one."""
    try:
        return start(*options)
    except Unsupported as error:
        report.verdict(name, ["the server refused its limit options: %s" % error], {})
        return None


async def check_half_open(report):
    name = "%d half-open connections from 127.0.0.1: 127.0.0.2 joins in under %.0f s" % (HALF_OPEN_CONNECTIONS, MAXIMUM_SECOND_ADDRESS_JOIN_S)
    server = start_or_fail(arena, ARENA_CONNECTION_BUDGET_OPTIONS, report, name)
    if server is None:
        return
    fingerprint = await learn_fingerprint(server.port)
    good = await play(server.port, fingerprint, name=b"second", local_address="127.0.0.2")
    problems, figures, sockets = [], {}, []
    start = now()
    loop = asyncio.get_running_loop()

    async def half_open():
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sockets.append(sock)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", server.port)), 3)
            sock.send(b"G")  # one byte of a request that never ends
            return True
        except (OSError, asyncio.TimeoutError):
            return False

    try:
        opened = 0
        for _ in range(HALF_OPEN_CONNECTIONS // 100):
            opened += sum(await asyncio.gather(*[half_open() for _ in range(100)]))
        figures["half-open connected"] = opened
        waits = []
        for attempt in range(3):
            session = await join(server.port, fingerprint, b"main", b"late%d" % attempt, local_address="127.0.0.2")
            waits.append(session.join_time)
            if session.join_time is None or session.join_time > MAXIMUM_SECOND_ADDRESS_JOIN_S:
                problems.append("a hello from 127.0.0.2 %s (reject %r, close %s)" % (
                    "took %.2f s" % session.join_time if session.join_time else "was not welcomed", session.reject, session.ws.close_code))
            session.ws.abort()
            await asyncio.sleep(0.3)
        figures["127.0.0.2 join ms"] = "/".join("%.0f" % (w * 1000) if w is not None else "-" for w in waits)
        await asyncio.sleep(1.0)
        problems += good_client_problems(good, start, now(), figures, label="127.0.0.2 good")
    finally:
        for sock in sockets:
            sock.close()
    await good.stop()
    server.stop()
    report.verdict(name, problems, figures)


def connection_ended(sock):
    """Whether the peer ended the connection (reset or FIN), without reading from it."""
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLERR | select.POLLHUP | select.POLLRDHUP)
    return bool(poller.poll(0))


async def check_slow_readers(report):
    name = "%d never-reading clients: closed within the write timeout, RSS under the output budget" % NEVER_READERS
    server = start_or_fail(echo, ECHO_SLOW_READER_OPTIONS, report, name)
    if server is None:
        return
    probe = await EchoProbe.open(server.port, interval=0.01)
    problems, figures = [], {}
    baseline = server.rss_bytes()
    readers = []
    for _ in range(NEVER_READERS):
        ws = await RawWebSocket.open(server.port, protocol=None, receive_buffer=4096)
        ws.writer.transport.pause_reading()  # never reads again
        readers.append(ws)
    message = frame_bytes(0x2, b"\x55" * 65536, mask_key=b"\0\0\0\0")
    start = now()
    ended, peak = {}, baseline
    while len(ended) < NEVER_READERS and now() - start < ECHO_WRITE_TIMEOUT_S + 8:
        for index, ws in enumerate(readers):
            if index in ended:
                continue
            if ws.writer.transport.is_closing() or connection_ended(ws.sock):
                ended[index] = now() - start
            elif ws.writer.transport.get_write_buffer_size() < 1 << 20:
                ws.writer.write(message)
        peak = max(peak, server.rss_bytes())
        await asyncio.sleep(0.02)
    end = now()
    figures["closed"] = "%d/%d" % (len(ended), NEVER_READERS)
    figures["slowest close s"] = max(ended.values()) if ended else float("inf")
    figures["RSS baseline/peak MiB"] = "%.1f/%.1f" % (baseline / 2**20, peak / 2**20)
    if len(ended) < NEVER_READERS or max(ended.values()) > ECHO_WRITE_TIMEOUT_S + 2:
        problems.append("%d of %d never-readers closed within %.1f s (write timeout %.1f s + 2 s)" % (
            sum(1 for t in ended.values() if t <= ECHO_WRITE_TIMEOUT_S + 2), NEVER_READERS, ECHO_WRITE_TIMEOUT_S + 2, ECHO_WRITE_TIMEOUT_S))
    if peak - baseline > ECHO_OUTPUT_BUDGET_BYTES:
        problems.append("RSS grew %.1f MiB, over the %.0f MiB output budget" % ((peak - baseline) / 2**20, ECHO_OUTPUT_BUDGET_BYTES / 2**20))
    worst, count = probe.worst_between(start, end)
    figures["good echo rtt max ms"] = worst
    if count == 0 or worst > MAXIMUM_ECHO_ROUND_TRIP_MS:
        problems.append("the good echo client's worst round trip was %.1f ms over %d messages (limit %d)" % (worst, count, MAXIMUM_ECHO_ROUND_TRIP_MS))
    for ws in readers:
        ws.abort()
    await probe.stop()
    server.stop()
    report.verdict(name, problems, figures)


def deflate_bomb():
    """A permessage-deflate payload that inflates to BOMB_INFLATED_BYTES of zeros (about 1 MiB):
    full-flushed blocks of 1 MiB each, so one compressed block repeats."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return (block * (BOMB_INFLATED_BYTES >> 20))[:-4]  # RFC 7692: without the trailing 00 00 FF FF


async def bomb_round_trips(port):
    """Sends BOMBS bombs while a good client echoes; returns (worst round trip ms, messages, close codes, ms to each close)."""
    payload = deflate_bomb()
    probe = await EchoProbe.open(port, interval=0.005)
    await asyncio.sleep(0.3)
    codes, closes, worst, count = [], [], 0.0, 0
    for _ in range(BOMBS):
        bomber = await RawWebSocket.open(port, protocol=None, extensions="permessage-deflate")
        if "permessage-deflate" not in bomber.response_head:
            codes.append("no permessage-deflate")
            break
        sent = now()
        bomber.writer.write(frame_bytes(0x2, payload, rsv=4, mask_key=b"\0\0\0\0"))
        codes.append(await bomber.wait_closed(15))
        closes.append((now() - sent) * 1000)
        await asyncio.sleep(0.1)
        bomb_worst, bomb_count = probe.worst_between(sent, now())
        worst, count = max(worst, bomb_worst), count + bomb_count
        bomber.abort()
    await probe.stop()
    return worst, count, codes, closes


async def check_bomb(report):
    name = "deflate bomb (1 MiB inflating toward 1 GiB): other connections' round trips under %d ms" % MAXIMUM_ECHO_ROUND_TRIP_MS
    server = start_or_fail(echo, ECHO_BOMB_OPTIONS, report, name)
    if server is None:
        return
    worst, count, codes, closes = await bomb_round_trips(server.port)
    server.stop()
    figures = {"good echo rtt max ms": worst, "echoes": count, "bomb closes": ",".join(str(c) for c in codes),
               "bomb close ms": "/".join("%.0f" % c for c in closes)}
    problems = []
    if any(code != 1009 for code in codes):
        problems.append("bombs were closed with %s, expected 1009 each" % codes)
    if count == 0 or worst > MAXIMUM_ECHO_ROUND_TRIP_MS:
        problems.append("the good echo client's worst round trip during the bombs was %.1f ms over %d messages" % (worst, count))
    report.verdict(name, problems, figures)
