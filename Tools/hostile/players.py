"""Tickwire sessions over RawWebSocket: joining (welcome or reject, with the close that follows),
a good player that plays and measures (join time, snapshots per second, ping round trips), and a
good echo client for `tickwire echo` (round trips)."""
import asyncio
import statistics
import struct

from wire import (DISCONNECT, PONG, REJECT, SNAPSHOT, WELCOME, Closed, HandshakeRefused, RawWebSocket, disconnect_message, hello,
                  input_message, now, parse_reason_and_text, parse_welcome, ping_message, read_varint)


class Session:
    """The outcome of a hello: `welcome` (client id, tick rate) or `reject` (reason, text), the
    disconnect message the server sent (reason, text), and the connection with its close code."""

    def __init__(self, ws, started):
        self.ws, self.started = ws, started
        self.welcome = self.reject = self.disconnect = None
        self.http_status = None  # the status of a refused WebSocket handshake
        self.joined_at = None

    @property
    def join_time(self):
        return None if self.joined_at is None else self.joined_at - self.started

    async def close_code_after_reject(self, timeout=3.0):
        return await self.ws.wait_closed(timeout)


async def join(port, fingerprint, room=b"main", payload=b"good", local_address=None, raw_first_frame=None,
               timeout=5.0, host="127.0.0.1", **hello_fields):
    """Opens a connection, sends a hello (or `raw_first_frame`) and reads the answer: a Session
    with its welcome, or its reject (the close that follows is read too)."""
    started = now()
    try:
        ws = await RawWebSocket.open(port, path="/" + room.decode("utf-8", "replace"), local_address=local_address,
                                     timeout=timeout, host=host)
    except (HandshakeRefused, OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
        session = Session(NoConnection(), started)
        session.http_status = getattr(error, "status", None)
        session.reject = (None, "no WebSocket connection: %s" % (error or type(error).__name__))
        return session
    session = Session(ws, started)
    ws.send_binary(raw_first_frame if raw_first_frame is not None else hello(fingerprint, room, payload, **hello_fields))
    try:
        _, message = await ws.receive(timeout=timeout)
    except (Closed, asyncio.TimeoutError):
        return session
    if message[0] == WELCOME:
        session.welcome, session.joined_at = parse_welcome(message[1:]), now()
    elif message[0] == REJECT:
        session.reject = parse_reason_and_text(message[1:])
        await ws.wait_closed(timeout)
    return session


class NoConnection:
    """Stands for the connection of a hello that never got one (refused or failed handshake)."""

    close_code, close_reason, closed_at = None, "", 0.0

    async def wait_closed(self, timeout=0):
        return None

    def abort(self):
        pass

    def reset(self):
        pass

    def send_binary(self, payload):
        pass


class Player:
    """A good client: answers every snapshot with an input (acknowledging it), pings every
    `ping_interval` and records what arrives, until `stop()` or the server closes it."""

    def __init__(self, session, ping_interval=0.1, answers=True):
        self.session, self.ws, self.answers = session, session.ws, answers
        self.snapshots, self.sequence = [], 0
        self.round_trips = []  # (arrived at, round trip in seconds)
        self.ping_interval = ping_interval
        self.tasks = []

    def start(self):
        self.tasks = [asyncio.ensure_future(self._receive()), asyncio.ensure_future(self._ping())]
        return self

    async def _receive(self):
        try:
            while True:
                _, message = await self.ws.receive(timeout=3600)
                kind = message[0] & 0x7F
                if kind == SNAPSHOT and not message[0] & 0x80:
                    tick, _ = read_varint(message, 1)
                    self.snapshots.append(now())
                    if self.answers:
                        self.sequence += 1
                        self.ws.send_binary(input_message(tick + 1, self.sequence))
                elif kind == PONG:
                    sent_us, _ = read_varint(message, 1)
                    arrived = now()
                    self.round_trips.append((arrived, arrived - sent_us / 1e6))
                elif kind == DISCONNECT:
                    self.session.disconnect = parse_reason_and_text(message[1:])
        except (Closed, asyncio.TimeoutError, ConnectionError, OSError):
            pass

    async def _ping(self):
        try:
            while self.ws.closed_at is None:
                self.ws.send_binary(ping_message(int(now() * 1e6)))
                await asyncio.sleep(self.ping_interval)
        except (ConnectionError, OSError, RuntimeError):
            pass

    async def stop(self, leave=True):
        """Stops playing; with `leave`, says goodbye (disconnect leaving) and waits for the close."""
        self.tasks[1].cancel()
        if leave and self.ws.closed_at is None:
            try:
                self.ws.send_binary(disconnect_message())
            except Exception:
                pass
            await asyncio.wait([self.tasks[0]], timeout=2)
        self.tasks[0].cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.ws.abort()

    def figures(self, start, end):
        """Snapshots per second, the longest gap between two snapshots and the round trips
        (median, max, in ms) between `start` and `end` (monotonic seconds)."""
        inside = [t for t in self.snapshots if start <= t <= end]
        gaps = [b - a for a, b in zip(inside, inside[1:])]
        trips = [trip * 1000 for at, trip in self.round_trips if start <= at <= end]
        return {
            "snapshots_per_s": len(inside) / max(end - start, 1e-9),
            "max_gap_ms": max(gaps) * 1000 if gaps else float("inf"),
            "rtt_median_ms": statistics.median(trips) if trips else float("inf"),
            "rtt_max_ms": max(trips) if trips else float("inf"),
        }


async def play(port, fingerprint, room=b"main", name=b"good", local_address=None):
    """Joins and starts a Player; raises RuntimeError when the hello is not welcomed."""
    session = await join(port, fingerprint, room, name, local_address=local_address)
    if session.welcome is None:
        raise RuntimeError("the good client was not welcomed: reject %r, close %r" % (session.reject, session.ws.close_code))
    return Player(session).start()


class EchoProbe:
    """A good client of `tickwire echo`: one small message in flight at a time, every round trip recorded."""

    def __init__(self, ws, interval=0.005):
        self.ws, self.interval = ws, interval
        self.samples = []  # (sent at, round trip in seconds)
        self.task = None

    @classmethod
    async def open(cls, port, local_address=None, interval=0.005):
        probe = cls(await RawWebSocket.open(port, protocol=None, local_address=local_address), interval)
        probe.task = asyncio.ensure_future(probe._run())
        return probe

    async def _run(self):
        counter = 0
        try:
            while True:
                counter += 1
                payload = struct.pack(">Q", counter) * 2
                sent = now()
                self.ws.send_binary(payload)
                while True:
                    _, echoed = await self.ws.receive(timeout=10)
                    if echoed == payload:
                        break
                self.samples.append((sent, now() - sent))
                await asyncio.sleep(self.interval)
        except (Closed, asyncio.TimeoutError, ConnectionError, OSError):
            pass

    def worst_between(self, start, end):
        """The longest round trip (ms) of the messages sent between `start` and `end`, counting a
        message still unanswered at `end` as waiting since it was sent; and how many there were."""
        inside = [trip for sent, trip in self.samples if start <= sent <= end]
        pending_since = self.samples[-1][0] + self.samples[-1][1] if self.samples else start
        worst = max(inside) if inside else 0.0
        if self.task is not None and not self.task.done() and now() - pending_since > worst:
            worst = max(worst, min(now(), end) - max(pending_since, start))
        return worst * 1000, len(inside)

    async def stop(self):
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        self.ws.abort()
