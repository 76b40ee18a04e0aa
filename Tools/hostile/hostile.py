"""The hostile-client suite of issue #18, run by Tools/suites/hostile.

Real sockets on 127.0.0.1 against real `arena serve` and `tickwire echo` processes (the
debug builds in .build/debug), each check with its own server and a good client that plays
beside the attack and whose snapshots per second, round trips and join times are asserted.
Every process is stopped by PID at the end; every wait is bounded. The UDP checks
(checks_udp.py) send raw netcode.io datagrams from other addresses of 127.0.0.0/8 beside a
headless `arena join udp://`.

Usage: hostile.py [WORD ...]   run only the checks whose function name contains a WORD
Prints PASS or FAIL per check with its figures, then `hostile: N passed, M failed`;
exits non-zero when a check failed.
"""
import asyncio
import os
import resource
import signal
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks_game import check_close_codes, check_garbage  # noqa: E402
from checks_slots import check_room_names, check_squatting  # noqa: E402
from checks_udp import UDP_CHECKS  # noqa: E402
from checks_ws import check_bomb, check_half_open, check_slow_readers  # noqa: E402
from harness import ARENA, TICKWIRE, Report, Server  # noqa: E402
from wire import now  # noqa: E402

CHECKS = [check_close_codes, check_garbage, check_squatting, check_room_names, check_half_open, check_slow_readers, check_bomb] + UDP_CHECKS
CHECK_TIMEOUT_S = 45


def raise_file_limit():
    """1000 half-open connections and the servers started from here (which inherit the limit:
    `arena serve` and `tickwire echo` do not raise their own) need more than the usual 1024 files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def run(report, checks):
    for check in checks:
        started = now()
        try:
            await asyncio.wait_for(check(report), CHECK_TIMEOUT_S)
        except asyncio.TimeoutError:
            report.verdict(check.__name__, ["did not finish within %d s" % CHECK_TIMEOUT_S], {})
        except Exception as error:
            report.verdict(check.__name__, ["raised %s: %s" % (type(error).__name__, error)], {})
            traceback.print_exc()
        finally:
            Server.stop_all()
            Server.running.clear()
        print("     (%s took %.1f s)" % (check.__name__, now() - started), flush=True)


def main():
    for program in (ARENA, TICKWIRE):
        if not os.access(program, os.X_OK):
            print("hostile: %s is missing: run `swift build` first" % program)
            print("hostile: 0 passed, 1 failed")
            return 1
    # Stopped from outside, still stop every server this suite started (the `finally` below).
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    files = raise_file_limit()
    words = sys.argv[1:]
    checks = [c for c in CHECKS if not words or any(w in c.__name__ for w in words)]
    print("hostile: %d checks, open-file limit %d" % (len(checks), files), flush=True)
    report = Report()
    try:
        asyncio.run(run(report, checks))
    finally:
        Server.stop_all()
    print(report.summary(), flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
