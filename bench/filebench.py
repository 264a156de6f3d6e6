#!/usr/bin/env python3
"""What a user of the clsort tool sees: file to file, end to end, against the I/O floor.

Every repetition, in the same run and on the same input, times
  floor_read   reading the whole input to nowhere,
  floor_write  writing as many bytes to a new file in the output directory (no fsync),
  clsort       `clsort -i INPUT -o OUT --stats-json J ARGS`: the wall time of the process, and
               the tool's own end to end time (total_ms: read, sort, write; device open apart),
  cupy         (keys only, where numpy and cupy import) numpy.fromfile, cupy.asarray, cupy.sort,
               .get(), tofile,
alternating the order between repetitions to spread cache effects. Outputs are new files, so
neither clsort nor the floor syncs (clsort syncs only a file it replaces).

  python3 bench/filebench.py --input keys.bin --reps 5 --device pocl
  python3 bench/filebench.py --gen 256Mi --dir /data -- --kv
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHUNK = 16 << 20      # read size of floor_read
WBUF_MAX = 64 << 20   # the largest buffer floor_write writes over and over
DTYPES = {"u32": "uint32", "i32": "int32", "f32": "float32",
          "u64": "uint64", "i64": "int64", "f64": "float64"}


def die(msg):
    sys.exit(f"filebench: {msg}")


def parse():
    argv = sys.argv[1:]
    sort_args = []
    if "--" in argv:  # everything after '--' goes to clsort untouched
        i = argv.index("--")
        argv, sort_args = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        usage="%(prog)s [options] (--input FILE | --gen N) [-- CLSORT SORT ARGS...]")
    p.add_argument("--clsort", default="build/cli/clsort", help="the tool (default: %(default)s)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", help="an existing input file")
    src.add_argument("--gen", metavar="N", help="make N keys or records with 'clsort gen -n N' "
                     "(suffixes as gen's: 1M, 64Mi), in the layout of the sort args after '--'; "
                     "removed at the end unless --keep")
    p.add_argument("--dist", default="uniform", help="--gen's distribution (default: uniform)")
    p.add_argument("--seed", default="1", help="--gen's seed (default: 1)")
    p.add_argument("--keep", action="store_true", help="keep the --gen input")
    p.add_argument("--dir", help="where outputs (and a --gen input) go (default: the input's "
                   "directory; with --gen, the current directory)")
    p.add_argument("--reps", type=int, default=5, help="timed repetitions (default: 5)")
    p.add_argument("--device", help="OpenCL device, passed as CLSORT_DEVICE")
    p.add_argument("--json", help="write every sample to this file")
    p.add_argument("--no-cupy", action="store_true", help="leave the numpy + cupy reference out")
    a = p.parse_args(argv)
    if a.reps < 1:
        p.error("--reps must be at least 1")
    a.sort_args = sort_args
    return a


def layout(sort_args):
    """The key type and record layout the sort args ask for (cli/sort/layout.c's rules)."""
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("-t", "--type", default="u32")
    p.add_argument("--kv", action="store_true")
    p.add_argument("--value-size", type=int)
    p.add_argument("--values")
    p.add_argument("-r", "--desc", "--reverse", action="store_true")
    p.add_argument("--bits")
    p.add_argument("--segment")
    p.add_argument("--record-size")
    l, _ = p.parse_known_args(sort_args)
    if l.value_size is None:
        l.value_size = 4 if l.kv or l.values else 0
    elif l.value_size > 0 and not l.values:
        l.kv = True  # --value-size V alone means records, as with gen
    return l


def floor_read(path, buf):
    mv = memoryview(buf)
    t = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        while f.readinto(mv):
            pass
    return time.perf_counter() - t


def floor_write(path, buf, nbytes):
    mv = memoryview(buf)
    t = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    left = nbytes
    while left:
        left -= os.write(fd, mv[:min(left, len(mv))])
    os.close(fd)
    dt = time.perf_counter() - t
    os.unlink(path)
    return dt


def run_clsort(a, inp, out, js, env):
    cmd = [a.clsort, "-i", inp, "-o", out, "--stats-json", js] + a.sort_args
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    try:
        if r.returncode != 0:
            die(f"clsort failed (exit {r.returncode}): {' '.join(cmd)}\n{r.stderr.rstrip()}")
        with open(js) as f:
            stats = json.load(f)
    finally:
        for path in (out, js):
            if os.path.exists(path):
                os.unlink(path)
    return dt, stats


def cupy_ref(dtype):
    """The reference pipeline as a function of (input, output), or a note why there is none."""
    try:
        import numpy
        import cupy
    except ImportError:
        return None, "cupy: not available"

    def ref(inp, out):
        t = time.perf_counter()
        keys = numpy.fromfile(inp, dtype=dtype)
        cupy.sort(cupy.asarray(keys)).get().tofile(out)
        dt = time.perf_counter() - t
        os.unlink(out)
        return dt
    version = getattr(cupy, "__version__", "?")
    return ref, f"cupy {version}: numpy.fromfile, cupy.asarray, cupy.sort, .get(), tofile"


def main():
    a = parse()
    lay = layout(a.sort_args)
    # gen and the cupy reference need a numeric key type; records by a key field (--type bytes)
    # are timed with --input and --no-cupy
    if lay.type not in DTYPES and (a.gen or not a.no_cupy):
        die(f"key type {lay.type!r}: give --input and --no-cupy")
    if not os.access(a.clsort, os.X_OK):
        die(f"{a.clsort}: not an executable (build it, or give --clsort)")
    env = dict(os.environ)
    if a.device:
        env["CLSORT_DEVICE"] = a.device
    tag = f"filebench-{os.getpid()}"

    if a.gen:
        d = a.dir or "."
        inp = os.path.join(d, f"{tag}.in")
        cmd = [a.clsort, "gen", "-n", a.gen, "--dist", a.dist, "--seed", a.seed,
               "--type", lay.type, "--value-size", str(lay.value_size if lay.kv else 0),
               "--no-progress", "-o", inp]
        r = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            die(f"clsort gen failed (exit {r.returncode}): {' '.join(cmd)}\n{r.stderr.rstrip()}")
    else:
        inp = a.input
        if not os.path.isfile(inp):
            die(f"{inp}: no such file")
        d = a.dir or os.path.dirname(os.path.abspath(inp))
    nbytes = os.path.getsize(inp)
    out, js, fw = (os.path.join(d, f"{tag}.{x}") for x in ("out", "json", "floor"))

    try:
        # Read once so that every timing below starts from the page cache.
        rbuf = bytearray(CHUNK)
        t0 = floor_read(inp, rbuf)
        with open(inp, "rb") as f:  # floor_write's data, filled once
            wbuf = bytearray(f.read(min(nbytes, WBUF_MAX))) or bytearray(1)
        # Warm-up: the program cache, the device and the output directory.
        _, stats = run_clsort(a, inp, out, js, env)
        n = stats["n"]
        rec = nbytes // n if n else 0

        ref, note = None, None
        if a.no_cupy:
            note = "cupy: left out (--no-cupy)"
        elif lay.kv or lay.values or lay.desc or lay.bits or lay.segment or lay.record_size:
            note = "cupy: skipped (the reference sorts whole files of keys, ascending)"
        else:
            ref, note = cupy_ref(DTYPES[lay.type])
            if ref:
                try:
                    ref(inp, out)  # warm-up: CUDA context, sort kernels
                except Exception as e:  # imports, but no usable GPU
                    ref, note = None, f"cupy: not usable ({type(e).__name__}: {e})"

        print(f"input     {inp}: {nbytes} bytes, {n} records of {rec} bytes "
              f"({stats['key_type']}, {stats['layout']})")
        print(f"          read once beforehand ({t0 * 1e3:.1f} ms): in the page cache")
        print(f"clsort    {a.clsort} -i IN -o OUT --stats-json J {' '.join(a.sort_args)}".rstrip())
        print(f"device    {stats['device']}, algorithm {stats['algorithm']}")
        print(f"outputs   new files in {d} (no fsync); {a.reps} rep(s) after a warm-up, "
              f"order alternating")
        if note:
            print(note)

        s = {k: [] for k in ("floor_read", "floor_write", "clsort_wall", "clsort_e2e",
                             "read", "sort", "write", "open", "cupy")}
        runs = []

        def floor():
            s["floor_read"].append(floor_read(inp, rbuf))
            s["floor_write"].append(floor_write(fw, wbuf, nbytes))

        def clsort():
            wall, st = run_clsort(a, inp, out, js, env)
            s["clsort_wall"].append(wall)
            for k, jk in (("clsort_e2e", "total_ms"), ("read", "read_ms"), ("sort", "sort_ms"),
                          ("write", "write_ms"), ("open", "open_ms")):
                s[k].append(st[jk] / 1e3)
            runs.append(st)

        steps = [floor, clsort] + ([lambda: s["cupy"].append(ref(inp, out))] if ref else [])
        for i in range(a.reps):
            for step in (steps if i % 2 == 0 else steps[::-1]):
                step()
    finally:
        for path in (out, js, fw) + ((inp,) if a.gen and not a.keep else ()):
            if os.path.exists(path):
                os.unlink(path)

    s["floor"] = [r + w for r, w in zip(s["floor_read"], s["floor_write"])]
    med = {k: statistics.median(v) for k, v in s.items() if v}
    # (label, samples, what the ratio compares with)
    rows = [("floor_read", "floor_read", None), ("floor_write", "floor_write", None),
            ("floor (read + write)", "floor", None),
            ("clsort wall (process)", "clsort_wall", "floor"),
            ("clsort end to end", "clsort_e2e", "floor"),
            ("  read", "read", "floor_read"), ("  sort call", "sort", None),
            ("  write", "write", "floor_write"), ("  device open (apart)", "open", None),
            ("cupy (numpy file I/O)", "cupy", "floor")]
    print(f"\n{'':<23} {'median ms':>10} {'min ms':>10} {'ratio':>7} {'GKey/s':>8}")
    for label, k, base in rows:
        if k not in med:
            continue
        ratio = f"{med[k] / med[base]:7.2f}" if base else ""
        g = f"{n / med[k] / 1e9:8.4f}" if k not in ("read", "sort", "write", "open") else ""
        line = f"{label:<23} {med[k] * 1e3:10.2f} {min(s[k]) * 1e3:10.2f} {ratio:>7} {g:>8}"
        print(line.rstrip())
    print("ratio: median / median of the floor (read, write: of floor_read, floor_write)")

    if a.json:
        with open(a.json, "w") as f:
            json.dump({"input": inp, "bytes": nbytes, "n": n, "record_size": rec,
                       "clsort": a.clsort, "sort_args": a.sort_args, "device": stats["device"],
                       "reps": a.reps, "note": note,
                       "samples_s": {k: v for k, v in s.items() if v},
                       "median_s": med, "clsort_stats": runs}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
