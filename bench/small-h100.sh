#!/usr/bin/env bash
# On the GPU machine (repository root): what a tiny file costs clsort's process beside what
# opening the device alone costs (bench/bench_open), alternated, REPS rounds; each process's wall
# time from Python's perf_counter around it (ms resolution, where /usr/bin/time gives 10 ms).
# Beside them: the same clsort with auto's host sort of small inputs off (CLSORT_HOST_SMALL_BYTES=0)
# and, where BEFORE names a built tree, that tree's clsort; then bench_open --sort: clsort_sort()'s
# first and warm wall time on small host arrays, radix8 against host-radix (the crossover that
# tuning.c's host_small_bytes takes). Prints markdown to $OUT/small.md.
#   REPS (default 20)  N (keys of the file, default 4096: 16 KiB)  SIZES (log2, bench_open --sort)
#   BEFORE (a source tree with build-gpu/cli/clsort built; default none)
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
REPS=${REPS:-20}
N=${N:-4096}
SIZES=${SIZES:-8,10,12,13,14,15,16,17,18}
BEFORE=${BEFORE:-none}
DATA=${DATA:-/tmp/clsort-small}
mkdir -p "$DATA"
[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh
{ [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release > "$OUT/setup.log" 2>&1; } &&
  meson configure build-gpu -Dbench=true > /dev/null &&
  ninja -C build-gpu cli/clsort bench/bench_open > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
export CLSORT_CACHE_DIR=$DATA/cache
build-gpu/cli/clsort gen -n "$N" --seed 7 -o "$DATA/small.u32"
build-gpu/cli/clsort -i "$DATA/small.u32" -o "$DATA/warm.out" 2>/dev/null # programs into the cache
CLSORT_HOST_SMALL_BYTES=0 build-gpu/cli/clsort -i "$DATA/small.u32" -o "$DATA/warm.out"
[ "$BEFORE" = none ] || CLSORT_CACHE_DIR=$DATA/cache-before "$BEFORE/build-gpu/cli/clsort" \
  -i "$DATA/small.u32" -o "$DATA/warm.out"
python3 - "$OUT" "$DATA" "$REPS" "$BEFORE" <<'PY' | tee "$OUT/small.md"
import os, statistics, subprocess, sys, time
out, data, reps, before = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
inp = f"{data}/small.u32"
ways = {
    "open alone (bench_open)": (["build-gpu/bench/bench_open"], {}),
    "clsort (default)": (["build-gpu/cli/clsort", "-i", inp, "-o", f"{data}/a.out"], {}),
    "clsort, CLSORT_HOST_SMALL_BYTES=0": (["build-gpu/cli/clsort", "-i", inp, "-o", f"{data}/b.out"],
                                          {"CLSORT_HOST_SMALL_BYTES": "0"}),
}
if before != "none":
    ways["clsort, before"] = ([f"{before}/build-gpu/cli/clsort", "-i", inp, "-o", f"{data}/c.out"],
                              {"CLSORT_CACHE_DIR": f"{data}/cache-before"})
t = {k: [] for k in ways}
for r in range(reps):
    order = list(ways) if r % 2 == 0 else list(reversed(ways))
    for k in order:
        cmd, env = ways[k]
        for f in (f"{data}/a.out", f"{data}/b.out", f"{data}/c.out"):
            if os.path.exists(f):
                os.remove(f)
        e = dict(os.environ, **env)
        t0 = time.perf_counter()
        subprocess.run(cmd, env=e, check=True, stdout=subprocess.DEVNULL)
        t[k].append((time.perf_counter() - t0) * 1e3)
base = statistics.median(t["open alone (bench_open)"])
print(f"{reps} rounds, alternated; process wall ms")
print()
print("| process | min | median | max | median - open alone's |")
print("|---|---|---|---|---|")
for k, v in t.items():
    m = statistics.median(v)
    print(f"| {k} | {min(v):.1f} | {m:.1f} | {max(v):.1f} | {m - base:+.1f} |")
PY
for way in default 0; do
  echo "== --stats, CLSORT_HOST_SMALL_BYTES=$way" >> "$OUT/small-stats.txt"
  if [ $way = default ]; then env_=(); else env_=(CLSORT_HOST_SMALL_BYTES=0); fi
  env "${env_[@]}" build-gpu/cli/clsort -i "$DATA/small.u32" -o "$DATA/s.out" --stats 2>> "$OUT/small-stats.txt"
  rm -f "$DATA/s.out"
done
build-gpu/bench/bench_open - --sort "$SIZES" --reps 21 > "$OUT/small-sorts.txt"
python3 - "$OUT/small-sorts.txt" <<'PY' | tee -a "$OUT/small.md"
import sys, collections
r = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    if line.startswith("SMALL "):
        kv = dict(x.split("=", 1) for x in line.split()[1:])
        r[(kv["kind"], int(kv["log2n"]))][kv["algo"]] = (float(kv["first_ms"]), float(kv["warm_ms"]))
print()
print("clsort_sort() on host arrays, wall ms: the first call in the context, the median of 21 after")
print()
print("| records | bytes | radix8 first | radix8 warm | host-radix first | host-radix warm | warm host / radix8 |")
print("|---|---|---|---|---|---|---|")
for (kind, l), a in sorted(r.items()):
    rb = (4 if kind == "keys" else 16) << l
    d, h = a["radix8"], a["host-radix"]
    print(f"| 2^{l} {kind} | {rb} | {d[0]:.3f} | {d[1]:.3f} | {h[0]:.3f} | {h[1]:.3f} | {h[1] / d[1]:.2f} |")
PY
