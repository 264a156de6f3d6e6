#!/usr/bin/env python3
"""After a failed sanitizer test run: print the names of the failed tests that may run once more,
one per line, and exit 0; exit 1, printing nothing, if any failure may not.

A failed test may run again when its only trouble is one of these intermittent faults outside the
project:
  - LeakSanitizer's own tracer crashing at exit ("Tracer caught signal", "LeakSanitizer has
    encountered a fatal error"): a sanitizer-runtime fault, not a leak report;
  - leaks whose every allocation stack lies in the system's libraries (PoCL's compiler, LLVM):
    seen once in a hundred runs of a test that builds kernels, never again on reruns. The fast
    unwinder often ends such a stack in frames of no module (code built without frame pointers,
    which the project's never is): those count as the system's when the stack has a system
    library's frame too.
Anything else (a leak with a frame of the project's code, an ASan or UBSan report, a failed
assertion, a timeout) is never retried away; a leak of ours would also come back on the rerun.
Usage: lsan-retry.py BUILD_DIR"""
import json
import re
import sys

CRASH = "LeakSanitizer has encountered a fatal error"
LEAKS = "detected memory leaks"
REAL = ("ERROR: AddressSanitizer", "runtime error:", "[  FAILED  ]", "[  ERROR   ]")
# Frames of the system's libraries and of the sanitizer runtime.
SYSTEM = re.compile(r"\((/(usr/)?lib/[^)]*)\)|/libsanitizer/|in __interceptor_|in operator new")
LIBRARY = re.compile(r"\((/(usr/)?lib/[^)]*)\)")
NO_MODULE = re.compile(r"\(<unknown module>\)")


def system_only_leaks(out):
    """True when the output reports leaks and every frame of every leak's stack is the system's
    (a frame of no module too, where a system library's frame is in the same stack)."""
    stacks = re.split(r"(?:Direct|Indirect) leak of", out)[1:]
    if not stacks:
        return False
    for s in stacks:
        frames = [l for l in s.splitlines() if re.match(r"\s*(\|\s*)?#\d+ ", l)]
        if not frames or not all(SYSTEM.search(f) or NO_MODULE.search(f) for f in frames):
            return False
        if any(NO_MODULE.search(f) for f in frames) and not any(LIBRARY.search(f) for f in frames):
            return False
    return True


names = []
with open(sys.argv[1] + "/meson-logs/testlog.json") as f:
    for line in f:
        t = json.loads(line)
        if t["result"] == "OK" or t["result"] == "SKIP":
            continue
        out = (t.get("stdout") or "") + (t.get("stderr") or "")
        if t["result"] != "FAIL" or any(r in out for r in REAL):
            sys.exit(1)
        if CRASH not in out and not (LEAKS in out and system_only_leaks(out)):
            sys.exit(1)
        if LEAKS in out and not system_only_leaks(out):
            sys.exit(1)
        names.append(t["name"].split(" / ")[-1])
print("\n".join(names))
