#!/usr/bin/env python3
"""After a failed sanitizer test run: print the names of the failed tests whose only trouble was
LeakSanitizer's own tracer crashing at exit ("Tracer caught signal", "LeakSanitizer has encountered a
fatal error": an intermittent sanitizer-runtime fault, not a leak report), one per line, for a rerun.
Exits 1, printing nothing, if any failure is anything else (a leak, an ASan or UBSan report, a
failed assertion, a timeout), so that a real failure is never retried away.
Usage: lsan-retry.py BUILD_DIR"""
import json
import sys

CRASH = "LeakSanitizer has encountered a fatal error"
REAL = ("detected memory leaks", "ERROR: AddressSanitizer", "runtime error:", "[  FAILED  ]",
        "[  ERROR   ]")

names = []
with open(sys.argv[1] + "/meson-logs/testlog.json") as f:
    for line in f:
        t = json.loads(line)
        if t["result"] == "OK" or t["result"] == "SKIP":
            continue
        out = (t.get("stdout") or "") + (t.get("stderr") or "")
        if t["result"] != "FAIL" or CRASH not in out or any(r in out for r in REAL):
            sys.exit(1)
        names.append(t["name"].split(" / ")[-1])
print("\n".join(names))
