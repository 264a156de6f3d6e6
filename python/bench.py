"""clsort.sort against numpy.sort on the same arrays, in one process: 2^24 float32 and int64 keys
(best and median of --reps calls, each on a fresh copy of the same data, the copy not timed), and
the time of one call on 1,000 keys (the mean over many calls: the binding's and the library's
overhead). --numpy-only leaves clsort out, to time numpy in a process of its own with other CPU
features (NPY_DISABLE_CPU_FEATURES).

    python3 python/bench.py [--reps 5] [--log2 24] [--numpy-only]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

# The package as installed or as PYTHONPATH names it: only the script's own folder, which Python puts
# first, is left out (its sources have no built extension beside them).
_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or '.') == _here:
    del sys.path[0]


def timed(fn, make, reps):
    ts = []
    for _ in range(reps):
        a = make()
        t = time.perf_counter()
        fn(a)
        ts.append(time.perf_counter() - t)
    return min(ts), statistics.median(ts)


def per_call(fn, a, calls):
    fn(a)
    t = time.perf_counter()
    for _ in range(calls):
        fn(a)
    return (time.perf_counter() - t) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=5)
    ap.add_argument('--log2', type=int, default=24)
    ap.add_argument('--calls', type=int, default=3000)
    ap.add_argument('--numpy-only', action='store_true')
    o = ap.parse_args()
    rng = np.random.default_rng(1)
    n = 1 << o.log2
    data = {
        'float32': rng.standard_normal(n).astype(np.float32),
        'int64': rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, n, dtype=np.int64),
    }
    sorts = [('numpy.sort', np.sort), ("numpy.sort(kind='stable')",
                                       lambda a: np.sort(a, kind='stable'))]
    if not o.numpy_only:
        import clsort
        ctx = clsort.default_context()
        print('clsort device:', ctx.device_name)
        for a in data.values():  # programs built, scratch allocated: not timed
            clsort.sort(a[:1 << 16])
            clsort.sort(a)
        sorts.insert(0, ('clsort.sort', clsort.sort))
    print('NPY_DISABLE_CPU_FEATURES=%r' % os.environ.get('NPY_DISABLE_CPU_FEATURES', ''))
    print('load average: %.2f %.2f %.2f' % os.getloadavg())
    for name, a in data.items():
        for label, fn in sorts:
            best, med = timed(fn, a.copy, o.reps)
            print('2^%d %-7s %-26s best %8.1f ms  median %8.1f ms' % (o.log2, name, label,
                                                                       best * 1e3, med * 1e3))
    small = rng.standard_normal(1000).astype(np.float32)
    for label, fn in sorts:
        print('1000 float32 %-26s %8.1f us a call' % (label, per_call(fn, small, o.calls) * 1e6))


if __name__ == '__main__':
    main()
