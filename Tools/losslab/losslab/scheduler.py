"""The relay's queue and counters, without file descriptors: packets go in with `admit`, and
`due(now)` hands back those whose time has come, in departure order. The relay (relay.py)
drives it from its loop; the unit tests drive it on a virtual clock.
"""
import heapq

from .impairment import Channel

DIRECTIONS = ("a_to_b", "b_to_a")
DEFAULT_QUEUE_LIMIT = 10_000


PROTOCOLS = {1: "icmp", 6: "tcp", 17: "udp"}


def protocol_of(packet):
    """"tcp", "udp" or "icmp" for an IPv4 packet carrying one (the protocol byte at offset 9),
    else "other"."""
    if len(packet) >= 20 and packet[0] >> 4 == 4:
        return PROTOCOLS.get(packet[9], "other")
    return "other"


def empty_counters():
    return {"in": 0, "out": 0, "dropped": 0, "dropped_random": 0, "dropped_burst": 0, "dropped_overflow": 0,
            "duplicated": 0, "reordered": 0, "bytes_in": 0, "bytes_out": 0, "queued": 0, "write_errors": 0,
            "by_protocol": {}}


class Scheduler:
    """Both directions' channels, one departure heap and the counters (also by protocol: in,
    dropped, duplicated and reordered for "tcp", "udp", "icmp" and "other").

    `reordered` counts what really happened at the exit: a packet that leaves after a packet of
    its direction that arrived later than it did (its first copy, when duplicated). `out` counts every copy written, so
    `in = out + dropped - duplicated + queued` at any moment (`write_errors` counted in `out`'s
    place when a write fails).
    """

    def __init__(self, impairments, queue_limit=DEFAULT_QUEUE_LIMIT):
        if queue_limit < 1:
            raise ValueError("queue_limit must be at least 1, got %r" % (queue_limit,))
        self.channels = {d: Channel(impairments[d]) for d in DIRECTIONS}
        self.counters = {d: empty_counters() for d in DIRECTIONS}
        self.queue_limit = queue_limit
        self._heap = []
        self._order = 0
        self._arrivals = {d: 0 for d in DIRECTIONS}
        self._latest_out = {d: -1 for d in DIRECTIONS}

    def reconfigure(self, impairments):
        for direction, impairment in impairments.items():
            self.channels[direction].reconfigure(impairment)

    def admit(self, direction, packet, now):
        counters = self.counters[direction]
        protocol = protocol_of(packet)
        by_protocol = counters["by_protocol"].setdefault(protocol, {"in": 0, "dropped": 0, "duplicated": 0, "reordered": 0})
        counters["in"] += 1
        by_protocol["in"] += 1
        counters["bytes_in"] += len(packet)
        arrival = self._arrivals[direction]
        self._arrivals[direction] = arrival + 1
        fate = self.channels[direction].admit(now)
        if fate.dropped or counters["queued"] + len(fate.departures) > self.queue_limit:
            cause = fate.dropped or "overflow"
            counters["dropped"] += 1
            counters["dropped_" + cause] += 1
            by_protocol["dropped"] += 1
            return
        if fate.duplicated:
            counters["duplicated"] += 1
            by_protocol["duplicated"] += 1
        for copy, departure in enumerate(fate.departures):
            self._order += 1
            heapq.heappush(self._heap, (departure, self._order, direction, arrival, copy, protocol, packet))
            counters["queued"] += 1

    def next_departure(self):
        return self._heap[0][0] if self._heap else None

    def due(self, now):
        """Yields (direction, packet) for every packet whose departure time is at or before now."""
        heap = self._heap
        while heap and heap[0][0] <= now:
            _, _, direction, arrival, copy, protocol, packet = heapq.heappop(heap)
            counters = self.counters[direction]
            counters["queued"] -= 1
            if arrival < self._latest_out[direction]:
                # A duplicated packet that leaves late is one reordered packet, not two.
                if copy == 0:
                    counters["reordered"] += 1
                    counters["by_protocol"][protocol]["reordered"] += 1
            else:
                self._latest_out[direction] = arrival
            yield direction, packet

    def sent(self, direction, packet):
        self.counters[direction]["out"] += 1
        self.counters[direction]["bytes_out"] += len(packet)

    def failed(self, direction):
        self.counters[direction]["write_errors"] += 1

    def snapshot(self):
        return {d: dict(c, by_protocol={k: dict(v) for k, v in c["by_protocol"].items()}) for d, c in self.counters.items()}
