#!/usr/bin/env python3
"""torch.topk on the GPU as the reference for bench_top: the k smallest of a key file's u32 keys,
sorted, timed as a user times it (host clock around the call + torch.cuda.synchronize(), the keys
already on the device), median of --reps after a warm-up. u32 keys are mapped to int32 with the sign
bit flipped, which keeps their order, as torch has no unsigned 32-bit topk.

  python3 bench/topk_torch.py [--k K] [--reps N] FILE...   (files named DIST-LOG2N.u32)
Prints RESULT impl=torch-topk dist=... log2n=... k=... ms=...
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--k', type=int, default=1000)
    ap.add_argument('--reps', type=int, default=10)
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    for path in a.files:
        base = os.path.basename(path).rsplit('.', 1)[0]
        dist, log2n = base.rsplit('-', 1)
        keys = np.fromfile(path, dtype=np.uint32)
        x = torch.from_numpy((keys ^ np.uint32(0x80000000)).view(np.int32)).cuda()
        ms = []
        for r in range(a.reps + 1):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            vals, idx = torch.topk(x, a.k, largest=False, sorted=True)
            torch.cuda.synchronize()
            if r:
                ms.append((time.perf_counter() - t0) * 1e3)
        want = np.sort(keys)[:a.k]
        got = (vals.cpu().numpy().view(np.uint32) ^ np.uint32(0x80000000))
        ok = np.array_equal(got, want)
        print(f'RESULT impl=torch-topk dist={dist} log2n={log2n} n={keys.size} k={a.k} '
              f'ms={statistics.median(ms):.4f} ok={int(ok)}', flush=True)
        if not ok:
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
