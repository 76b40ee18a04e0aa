"""Summarises an Autobahn|Testsuite report: counts per verdict and every failed case.

Usage: summarize.py REPORT_DIR AGENT
Exits 1 when any case is FAILED or UNIMPLEMENTED (or the report is missing).
"""
import json
import os
import sys
from collections import Counter

report_dir, agent = sys.argv[1], sys.argv[2]
index_path = os.path.join(report_dir, "index.json")
if not os.path.exists(index_path):
    print("autobahn: no report at %s" % index_path)
    sys.exit(1)
with open(index_path) as f:
    index = json.load(f)
if agent not in index:
    print("autobahn: agent %r not in the report (agents: %s)" % (agent, ", ".join(index)))
    sys.exit(1)

cases = index[agent]
behaviour = Counter(result["behavior"] for result in cases.values())
closing = Counter(result["behaviorClose"] for result in cases.values())


def case_key(case_id):
    return [int(part) for part in case_id.split(".")]


bad = sorted((case for case, result in cases.items()
              if result["behavior"] in ("FAILED", "UNIMPLEMENTED")
              or result["behaviorClose"] in ("FAILED", "UNIMPLEMENTED")), key=case_key)
print("autobahn: %d cases against %s" % (len(cases), agent))
print("  behaviour:       " + ", ".join("%s %d" % item for item in sorted(behaviour.items())))
print("  close behaviour: " + ", ".join("%s %d" % item for item in sorted(closing.items())))
for case in bad:
    result = cases[case]
    print("  %s: %s / close %s (%s)" % (case, result["behavior"], result["behaviorClose"],
                                         os.path.join(report_dir, result["reportfile"])))
if bad:
    print("autobahn: %d cases FAILED or UNIMPLEMENTED" % len(bad))
    sys.exit(1)
print("autobahn: every case OK, NON-STRICT or INFORMATIONAL")
