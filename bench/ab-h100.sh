#!/usr/bin/env bash
# On the GPU machine (repository root): the radix table of two trees measured in one run on one
# machine, to show whether a change moves performance. Tree A is another commit's tree unpacked in a
# folder (e.g. `git archive COMMIT | tar -x -C .before`, carried), tree B is this one. Both are built
# here; every file is timed A, B, A, B (bench_radix, median of REPS after a warm-up each time), and CUB
# once as the reference. Logs and tables go to $OUT.
#   usage: bash bench/ab-h100.sh DIR_A      SIZES (log2, uniform)  BANDS  REPS  ALGOS  CUB (a prebuilt
#   cub_radix; default: build-gpu-b/bench/cub_radix built with nvcc here)
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
A=$(cd "${1:?usage: ab-h100.sh DIR_A}" && pwd)
SIZES=${SIZES-"16 20 24 28"}
BANDS=${BANDS-"q4 constant"}
REPS=${REPS:-10}
ALGOS=${ALGOS:-radix8,radix4}
DATA=${DATA:-/tmp/clsort-ab}
source tools/gpu-env.sh
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}

build() { # tree, build dir
  (cd "$1" && meson setup "$2" -Dtests=false -Dcub_bench=disabled > "$OUT/setup-${2##*-}.log" 2>&1 &&
     ninja -C "$2" bench/bench_radix > "$OUT/build-${2##*-}.log" 2>&1) ||
    { tail -30 "$OUT/setup-${2##*-}.log" "$OUT/build-${2##*-}.log" 2>/dev/null; exit 1; }
}
build "$A" "$PWD/build-gpu-a" & build . "$PWD/build-gpu-b" & wait
CUB=${CUB:-}
if [ -z "$CUB" ]; then
  CUB=build-gpu-b/bench/cub_radix
  nvcc -O3 -std=c++17 -arch=sm_90 -o "$CUB" bench/cub_radix.cu
fi
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "(no nvidia-smi)"; } | tee "$OUT/gpu.txt"

mkdir -p "$DATA"
files=()
for s in $SIZES; do files+=("$DATA/uniform-$s.u32"); done
for b in $BANDS; do files+=("$DATA/$b-28.u32"); done
for f in "${files[@]}"; do
  [ -f "$f" ] && continue
  base=${f##*/}; base=${base%.u32}
  build-gpu-b/bench/bench_radix gen "${base%-*}" "${base##*-}" "$f"
done
for round in 1 2; do
  for t in a b; do
    # each tree its own program cache, so neither loads the other's binaries
    CLSORT_CACHE_DIR=$PWD/build-gpu-$t/cache build-gpu-$t/bench/bench_radix run --algos "$ALGOS" \
      --reps "$REPS" "${files[@]}" > "$OUT/$t$round.txt" 2> "$OUT/$t$round.err" ||
      { cat "$OUT/$t$round.err"; exit 1; }
  done
done
"$CUB" --reps "$REPS" "${files[@]}" > "$OUT/cub.txt" 2> "$OUT/cub.err" || cat "$OUT/cub.err"
python3 - "$OUT" <<'PY' | tee "$OUT/ab.txt"
import sys, statistics
out = sys.argv[1]
def rows(name):
    d = {}
    for line in open(f"{out}/{name}.txt"):
        if line.startswith("RESULT "):
            r = dict(kv.split("=", 1) for kv in line.split()[1:])
            d[(r["impl"], r["dist"], r["log2n"], r["kind"])] = float(r["gkeys"])
    return d
a1, a2, b1, b2, cub = (rows(n) for n in ("a1", "a2", "b1", "b2", "cub"))
cubk = {(k[1], k[2], k[3]): v for k, v in cub.items()}
print(f"{'algo':<10} {'dist':<8} {'log2':>4} {'kind':<5} {'A GK/s':>13} {'B GK/s':>13} {'B/A':>5} {'CUB':>6} {'A/CUB':>5} {'B/CUB':>5}")
for k in a1:
    a, b = (a1[k] + a2.get(k, a1[k])) / 2, (b1.get(k, 0) + b2.get(k, 0)) / 2
    c = cubk.get((k[1], k[2], k[3]), 0)
    rng = lambda x, y: f"{min(x, y):5.2f}-{max(x, y):5.2f}"
    print(f"{k[0]:<10} {k[1]:<8} {k[2]:>4} {k[3]:<5} {rng(a1[k], a2.get(k, a1[k])):>13} "
          f"{rng(b1.get(k, 0), b2.get(k, 0)):>13} {b / a if a else 0:5.2f} {c:6.2f} "
          f"{a / c if c else 0:5.2f} {b / c if c else 0:5.2f}")
PY
