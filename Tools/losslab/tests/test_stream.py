"""The stream probe's figures from hand-made arrival records (no sockets)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from losslab.stream import HEADER, MESSAGE_SIZE, message, percentile, summarize  # noqa: E402

MS = 1_000_000


class SummarizeTests(unittest.TestCase):
    def test_loss_ages_freeze_duplicates_and_late(self):
        # Ten sent every 33 ms, 50 ms on the way; 9 never arrives, 4 arrives twice, 6 after 7 (a
        # 66 ms freeze between 5 and 7).
        records = [[s, s * 33 * MS, s * 33 * MS + 50 * MS] for s in (0, 1, 2, 3, 4, 5, 7, 8)]
        records.insert(5, [4, 4 * 33 * MS, 4 * 33 * MS + 51 * MS])
        records.insert(8, [6, 6 * 33 * MS, 7 * 33 * MS + 60 * MS])
        figures = summarize(records, 10)
        self.assertEqual((figures["received"], figures["lost"], figures["duplicates"], figures["late"]), (9, 1, 1, 1))
        self.assertAlmostEqual(figures["loss"], 0.1)
        self.assertEqual(figures["age_min_ms"], 50)
        self.assertEqual(figures["age_max_ms"], 93)
        self.assertEqual(figures["longest_freeze_ms"], 66)

    def test_nearest_rank_percentile(self):
        values = list(range(1, 101))
        self.assertEqual(percentile(values, 0.99), 99)
        self.assertEqual(percentile(values, 0.5), 50)
        self.assertEqual(percentile([7], 0.99), 7)

    def test_message_layout(self):
        data = message(513)
        self.assertEqual(len(data), MESSAGE_SIZE)
        self.assertEqual(HEADER.unpack_from(data)[0], 513)


if __name__ == "__main__":
    unittest.main()
