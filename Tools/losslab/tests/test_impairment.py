"""The impairment model on a virtual clock: no root, no devices.

Tolerances are statistical and stated: with n independent trials of probability p the count
has standard deviation sqrt(n·p·(1−p)); every rate is checked within 5 of those (a chance of
about 6e-7 of a false failure for a fair generator, and the seeds are fixed anyway, so a failure
means the model changed, not bad luck).
"""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from losslab.impairment import Channel, GilbertElliott, Impairment  # noqa: E402
from losslab.scheduler import Scheduler  # noqa: E402

SIGMAS = 5


def within(test, observed, expected_rate, n, what):
    spread = SIGMAS * math.sqrt(n * expected_rate * (1 - expected_rate))
    test.assertLessEqual(abs(observed - n * expected_rate), spread,
                         "%s: %d of %d, expected %.1f ± %.1f (%d sigma)" % (what, observed, n, n * expected_rate, spread, SIGMAS))


def fates(impairment, count, interval=0.001):
    channel = Channel(impairment)
    return [channel.admit(i * interval) for i in range(count)]


class DeterminismTests(unittest.TestCase):
    def test_same_seed_same_fates(self):
        impairment = Impairment(delay_ms=40, jitter_ms=8, loss=0.05, reorder=0.03, duplicate=0.02,
                                burst=GilbertElliott(0.01, 0.3), seed=7)
        first, second = fates(impairment, 5000), fates(impairment, 5000)
        self.assertEqual([(f.departures, f.dropped, f.reordered, f.duplicated) for f in first],
                         [(f.departures, f.dropped, f.reordered, f.duplicated) for f in second])

    def test_other_seed_other_losses(self):
        a = [f.dropped for f in fates(Impairment(loss=0.1, seed=1), 2000)]
        b = [f.dropped for f in fates(Impairment(loss=0.1, seed=2), 2000)]
        self.assertNotEqual(a, b, "seeds 1 and 2 lost exactly the same packets")

    def test_losses_do_not_depend_on_other_settings(self):
        plain = [f.dropped for f in fates(Impairment(loss=0.05, seed=3), 5000)]
        busy = [f.dropped for f in fates(Impairment(loss=0.05, seed=3, delay_ms=30, jitter_ms=10, reorder=0.2,
                                                    duplicate=0.1), 5000)]
        self.assertEqual(plain, busy, "jitter, reordering or duplication changed which packets were lost")


class LossTests(unittest.TestCase):
    def test_random_loss_rate(self):
        n = 50_000
        lost = sum(1 for f in fates(Impairment(loss=0.02, seed=11), n) if f.dropped == "random")
        within(self, lost, 0.02, n, "random loss at 2%")

    def test_no_loss_loses_nothing(self):
        self.assertFalse(any(f.dropped for f in fates(Impairment(delay_ms=10, jitter_ms=5, seed=5), 5_000)))

    def test_gilbert_elliott_mean_burst_length_and_rate(self):
        model = GilbertElliott(p_good_to_bad=0.01, p_bad_to_good=0.25)
        n = 200_000
        lost = [f.dropped == "burst" for f in fates(Impairment(burst=model, seed=12), n)]
        bursts, run = [], 0
        for is_lost in lost + [False]:
            if is_lost:
                run += 1
            elif run:
                bursts.append(run)
                run = 0
        mean = sum(bursts) / len(bursts)
        # Bad spells are geometric with mean 1/r = 4 and variance (1−r)/r² = 12.
        spread = SIGMAS * math.sqrt((1 - 0.25) / 0.25 ** 2 / len(bursts))
        self.assertAlmostEqual(mean, model.mean_bad_spell, delta=spread,
                               msg="mean burst %.3f over %d bursts, expected 4 ± %.3f" % (mean, len(bursts), spread))
        # The loss rate is the bad fraction p/(p+r); bursts make the count vary more than a
        # binomial, by a factor (1 + 2·(1−p−r)/(p+r)) in variance for this chain.
        inflation = 1 + 2 * (1 - 0.01 - 0.25) / (0.01 + 0.25)
        expected = model.mean_loss * n
        spread = SIGMAS * math.sqrt(n * model.mean_loss * (1 - model.mean_loss) * inflation)
        self.assertLessEqual(abs(sum(lost) - expected), spread,
                             "burst loss %d of %d, expected %.0f ± %.0f" % (sum(lost), n, expected, spread))

    def test_gilbert_elliott_partial_loss_in_each_state(self):
        model = GilbertElliott(p_good_to_bad=0.05, p_bad_to_good=0.2, loss_good=0.01, loss_bad=0.5)
        n = 200_000
        lost = sum(1 for f in fates(Impairment(burst=model, seed=13), n) if f.dropped)
        expected = model.mean_loss  # 0.8·0.01 + 0.2·0.5 = 0.108
        self.assertAlmostEqual(expected, 0.108, places=9)
        self.assertAlmostEqual(lost / n, expected, delta=0.01,
                               msg="loss %.4f, expected %.4f from the stationary state" % (lost / n, expected))

    def test_random_and_burst_loss_add_up(self):
        impairment = Impairment(loss=0.02, burst=GilbertElliott(0.01, 0.5), seed=14)
        n = 100_000
        lost = sum(1 for f in fates(impairment, n) if f.dropped)
        self.assertAlmostEqual(lost / n, impairment.expected_loss, delta=0.004,
                               msg="loss %.4f, expected %.4f" % (lost / n, impairment.expected_loss))


class DelayTests(unittest.TestCase):
    def test_fixed_delay_is_exact(self):
        for i, fate in enumerate(fates(Impairment(delay_ms=50, seed=1), 1000, interval=0.033)):
            self.assertAlmostEqual(fate.departures[0] - i * 0.033, 0.050, places=9)

    def test_jitter_stays_in_bounds_and_keeps_order(self):
        # Packets 1 ms apart, jitter ±15 ms: without the FIFO line they would overtake each other.
        result = fates(Impairment(delay_ms=50, jitter_ms=15, seed=21), 20_000, interval=0.001)
        delays = [f.departures[0] - i * 0.001 for i, f in enumerate(result)]
        self.assertGreaterEqual(min(delays), 0.035 - 1e-9, "a packet left earlier than delay − jitter")
        self.assertLessEqual(max(delays), 0.065 + 1e-9, "a packet left later than delay + jitter")
        departures = [f.departures[0] for f in result]
        self.assertEqual(departures, sorted(departures), "jitter reordered packets without reorder set")

    def test_jitter_spreads_over_the_whole_range(self):
        # Packets 100 ms apart never wait for each other: delays are uniform in [35, 65] ms.
        result = fates(Impairment(delay_ms=50, jitter_ms=15, seed=22), 20_000, interval=0.1)
        delays = [f.departures[0] - i * 0.1 for i, f in enumerate(result)]
        self.assertLess(min(delays), 0.0355)
        self.assertGreater(max(delays), 0.0645)
        mean = sum(delays) / len(delays)
        spread = SIGMAS * 0.030 / math.sqrt(12 * len(delays))
        self.assertAlmostEqual(mean, 0.050, delta=spread, msg="mean delay %.5f s, expected 0.05" % mean)

    def test_jitter_larger_than_delay_never_goes_negative(self):
        result = fates(Impairment(delay_ms=5, jitter_ms=20, seed=23), 5000, interval=0.1)
        self.assertTrue(all(f.departures[0] >= i * 0.1 for i, f in enumerate(result)))


class ReorderAndDuplicateTests(unittest.TestCase):
    def test_duplication_rate_and_copies(self):
        n = 50_000
        result = fates(Impairment(duplicate=0.03, delay_ms=20, seed=31), n)
        duplicated = [f for f in result if f.duplicated]
        within(self, len(duplicated), 0.03, n, "duplication at 3%")
        self.assertTrue(all(len(f.departures) == 2 and f.departures[0] == f.departures[1] for f in duplicated))
        self.assertTrue(all(len(f.departures) == 1 for f in result if not f.duplicated))

    def test_reorder_rate_and_real_overtaking(self):
        # Packets every 1 ms; a reordered one is held 10 ms more, so the next ones overtake it.
        # Duplicates too: a late packet sent twice is one reordered packet, as a receiver sees it.
        n = 50_000
        impairment = Impairment(delay_ms=20, reorder=0.05, reorder_ms=10, duplicate=0.05, seed=32)
        scheduler = Scheduler({"a_to_b": impairment, "b_to_a": Impairment()}, queue_limit=2 * n)
        for i in range(n):
            scheduler.admit("a_to_b", b"%d" % i, i * 0.001)
        out = [int(packet) for _, packet in scheduler.due(math.inf)]
        chosen = sum(1 for f in fates(impairment, n) if f.reordered)
        within(self, chosen, 0.05, n, "reordering at 5%")
        counters = scheduler.counters["a_to_b"]
        late, highest, seen = 0, -1, set()
        for seq in out:
            if seq in seen:
                continue
            seen.add(seq)
            if seq < highest:
                late += 1
            highest = max(highest, seq)
        self.assertEqual(counters["reordered"], late, "the scheduler's reorder count is not what left out of order")
        # Every chosen packet is overtaken unless it is among the last few, which nothing follows.
        self.assertLessEqual(chosen - counters["reordered"], 10)
        self.assertEqual(sorted(seen), list(range(n)), "reordering lost or invented packets")
        self.assertEqual(len(out), n + counters["duplicated"])


class ValidationTests(unittest.TestCase):
    def test_out_of_range_settings_are_refused_with_their_name(self):
        for settings, word in (({"loss": 1.5}, "loss"), ({"delay_ms": -1}, "delay_ms"), ({"reorder": -0.1}, "reorder"),
                               ({"duplicate": float("nan")}, "duplicate")):
            with self.assertRaisesRegex(ValueError, word):
                Impairment(**settings)
        with self.assertRaisesRegex(ValueError, "p_bad_to_good"):
            GilbertElliott(p_good_to_bad=0.1, p_bad_to_good=0.0)

    def test_json_round_trip_and_unknown_keys(self):
        impairment = Impairment(delay_ms=12, jitter_ms=3, loss=0.01, burst=GilbertElliott(0.02, 0.4, 0.0, 0.9), seed=9)
        self.assertEqual(Impairment.from_json(impairment.to_json()), impairment)
        with self.assertRaisesRegex(ValueError, "lossy"):
            Impairment.from_json({"lossy": 0.1})


if __name__ == "__main__":
    unittest.main()
