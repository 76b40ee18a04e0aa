"""The relay's queue and counters on a virtual clock: no root, no devices."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from losslab.impairment import GilbertElliott, Impairment  # noqa: E402
from losslab.scheduler import Scheduler  # noqa: E402


class SchedulerTests(unittest.TestCase):
    def test_counters_balance(self):
        impairment = Impairment(delay_ms=30, jitter_ms=10, loss=0.05, reorder=0.02, duplicate=0.03,
                                burst=GilbertElliott(0.01, 0.3), seed=41)
        scheduler = Scheduler({"a_to_b": impairment, "b_to_a": impairment})
        now = 0.0
        for i in range(20_000):
            now = i * 0.002
            scheduler.admit("a_to_b", b"x" * (i % 100 + 20), now)
            for direction, packet in scheduler.due(now):
                scheduler.sent(direction, packet)
        c = scheduler.counters["a_to_b"]
        self.assertEqual(c["in"], c["out"] + c["dropped"] - c["duplicated"] + c["queued"])
        self.assertEqual(c["dropped"], c["dropped_random"] + c["dropped_burst"] + c["dropped_overflow"])
        for direction, packet in scheduler.due(math.inf):
            scheduler.sent(direction, packet)
        self.assertEqual(c["queued"], 0)
        self.assertEqual(c["in"], c["out"] + c["dropped"] - c["duplicated"])
        self.assertEqual(scheduler.counters["b_to_a"]["in"], 0)

    def test_counts_by_protocol(self):
        def ipv4(protocol):
            return bytes([0x45] + [0] * 8 + [protocol] + [0] * 10)
        scheduler = Scheduler({"a_to_b": Impairment(delay_ms=5, loss=0.2, duplicate=0.2, seed=43),
                               "b_to_a": Impairment()})
        for i in range(3000):
            scheduler.admit("a_to_b", ipv4((6, 17, 1)[i % 3]) if i % 10 else b"\x60" + bytes(39), i * 0.001)
        list(scheduler.due(math.inf))
        c = scheduler.counters["a_to_b"]
        self.assertEqual(sorted(c["by_protocol"]), ["icmp", "other", "tcp", "udp"])
        self.assertEqual(c["by_protocol"]["other"]["in"], 300, "IPv6 packets are counted as other")
        for key in ("in", "dropped", "duplicated"):
            self.assertEqual(sum(p[key] for p in c["by_protocol"].values()), c[key], key + " by protocol does not add up")

    def test_queue_limit_drops_and_counts(self):
        scheduler = Scheduler({"a_to_b": Impairment(delay_ms=1000), "b_to_a": Impairment()}, queue_limit=100)
        for i in range(150):
            scheduler.admit("a_to_b", b"p", i * 0.001)
        c = scheduler.counters["a_to_b"]
        self.assertEqual((c["queued"], c["dropped_overflow"], c["dropped"]), (100, 50, 50))

    def test_departures_in_time_order_across_directions(self):
        scheduler = Scheduler({"a_to_b": Impairment(delay_ms=30), "b_to_a": Impairment(delay_ms=10)})
        scheduler.admit("a_to_b", b"first", 0.0)
        scheduler.admit("b_to_a", b"second", 0.001)
        self.assertEqual(list(scheduler.due(0.0115)), [("b_to_a", b"second")])
        self.assertEqual(list(scheduler.due(0.0295)), [])
        self.assertEqual(list(scheduler.due(0.030)), [("a_to_b", b"first")])


if __name__ == "__main__":
    unittest.main()
