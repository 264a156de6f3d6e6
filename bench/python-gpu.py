"""On a GPU machine: the Python package against CuPy and PyTorch on the same host numpy arrays, and
sorts of PyOpenCL arrays on the device. Each timing is the wall time of the whole call, host array in
and host array out (what a numpy user sees), best and median of --reps after one untimed warm-up:

    clsort   clsort.sort(a)                                        (pinned staging in the library)
    cupy     cupy.asnumpy(cupy.sort(cupy.asarray(a)))
    torch    torch.sort(torch.from_numpy(a).cuda(), stable=True).values.cpu().numpy()
    numpy    numpy.sort(a, kind='stable')                          (--numpy, slow at 2^28)

and, with PyOpenCL, clsort.sort(g) on a pyopencl.array.Array in place on its own queue, plus
q.finish(), each on a fresh device copy of the same keys (the copy not timed): compare with
`bench_radix sweep` (clsort_enqueue() + clFinish() in C) on the same machine.
Every result is compared with numpy's. One line per measurement:

    python3 bench/python-gpu.py [--log2 24,28] [--dtypes float32,int64] [--reps 5] [--numpy]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or '.') == _here:
    del sys.path[0]

import clsort  # noqa: E402


def timed(fn, reps):
    fn()  # warm-up: programs, scratch, the other library's pools
    ts = []
    out = None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3, statistics.median(ts) * 1e3, out


def keys(n, dtype, rng):
    if np.dtype(dtype).kind == 'f':
        return rng.standard_normal(n, dtype=np.float64).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


def host_paths(args):
    rng = np.random.default_rng(7)
    paths = {'clsort': lambda a: clsort.sort(a)}
    try:
        import cupy as cp
        paths['cupy'] = lambda a: cp.asnumpy(cp.sort(cp.asarray(a)))
    except ImportError as e:
        print('cupy: not available:', e)
    try:
        import torch
        paths['torch'] = lambda a: torch.sort(torch.from_numpy(a).cuda(),
                                              stable=True).values.cpu().numpy()
    except ImportError as e:
        print('torch: not available:', e)
    if args.numpy:
        paths['numpy'] = lambda a: np.sort(a, kind='stable')
    for lg in args.log2:
        for dt in args.dtypes:
            a = keys(1 << lg, dt, rng)
            ref = np.sort(a, kind='stable')
            for name, fn in paths.items():
                try:
                    best, med, out = timed(lambda: fn(a), args.reps)
                    same = np.array_equal(out.view(np.uint8), ref.view(np.uint8))
                    print(f'host 2^{lg} {dt} {name}: best {best:.1f} ms, median {med:.1f} ms, '
                          f'{"same as numpy" if same else "DIFFERENT from numpy"}', flush=True)
                except Exception as e:  # one library's failure leaves the others measured
                    print(f'host 2^{lg} {dt} {name}: failed: {e!r}', flush=True)


def device_paths(args):
    try:
        import pyopencl as cl
        import pyopencl.array as cla
    except ImportError as e:
        print('pyopencl: not available:', e)
        return
    gpus = [d for p in cl.get_platforms() for d in p.get_devices()
            if args.any_device or d.type & cl.device_type.GPU]
    if not gpus:
        print('pyopencl: no GPU among', [(p.name, [d.name for d in p.get_devices()])
                                         for p in cl.get_platforms()])
        return
    ctx = cl.Context([gpus[0]])
    q = cl.CommandQueue(ctx)
    rng = np.random.default_rng(8)
    for lg in args.log2:
        for dt in ['uint32'] + list(args.dtypes):
            a = keys(1 << lg, dt, rng)
            src = cla.to_device(q, a)
            g = cla.empty_like(src)
            ts = []
            for r in range(args.reps + 1):
                cl.enqueue_copy(q, g.data, src.data)
                q.finish()
                t = time.perf_counter()
                clsort.sort(g)
                q.finish()
                if r:
                    ts.append(time.perf_counter() - t)
            same = np.array_equal(g.get().view(np.uint8), np.sort(a, kind='stable').view(np.uint8))
            print(f'pyopencl 2^{lg} {dt} in place on {gpus[0].name}: best {min(ts) * 1e3:.2f} ms, '
                  f'median {statistics.median(ts) * 1e3:.2f} ms, '
                  f'{"same as numpy" if same else "DIFFERENT from numpy"}', flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--log2', default='24,28', type=lambda s: [int(x) for x in s.split(',')])
    p.add_argument('--dtypes', default='float32,int64', type=lambda s: s.split(','))
    p.add_argument('--reps', type=int, default=5)
    p.add_argument('--numpy', action='store_true')
    p.add_argument('--no-host', action='store_true')
    p.add_argument('--no-device', action='store_true')
    p.add_argument('--any-device', action='store_true', help='PyOpenCL on a CPU device too (testing)')
    args = p.parse_args()
    if not args.no_host:
        host_paths(args)
    if not args.no_device:
        device_paths(args)


if __name__ == '__main__':
    main()
