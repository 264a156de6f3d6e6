#!/usr/bin/env bash
# On the GPU machine (repository root), with build-gpu built: clsort through the public call against
# CUB timed the same way, on the same key files, in one run: wall time around clsort_enqueue() +
# clFinish() (bench_radix) and around cub::DeviceRadixSort + cudaDeviceSynchronize() with temporary
# storage allocated once (cub_radix), both with kernel time beside, median of REPS after a warm-up,
# each file timed clsort, CUB, clsort, CUB. Prints a markdown table (both runs as a range) to
# $OUT/wall.md.
#   SIZES (u32, uniform)  BANDS (at 2^28: q2..q16, constant, low16, nearly, skew)  WIDE ("24 27": u64)
#   REPS  CUB (a prebuilt cub_radix; default build-gpu/bench/cub_radix)
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES=${SIZES-"16 20 24 26 28"}
BANDS=${BANDS-"q2 q3 q4 q8 q16 constant nearly skew"}
WIDE=${WIDE-"24 27"}
REPS=${REPS:-10}
CUB=${CUB:-build-gpu/bench/cub_radix}
DATA=${DATA:-/tmp/clsort-wall}
B=build-gpu/bench/bench_radix
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
mkdir -p "$DATA"
files=()
for s in $SIZES; do files+=("$DATA/uniform-$s.u32"); done
for b in $BANDS; do files+=("$DATA/$b-28.u32"); done
for s in $WIDE; do files+=("$DATA/uniform-$s.u64"); done
for f in "${files[@]}"; do
  [ -f "$f" ] && continue
  base=${f##*/}; base=${base%.*}
  "$B" gen "${base%-*}" "${base##*-}" "$f"
done
for round in 1 2; do
  "$B" run --algos radix8 --reps "$REPS" "${files[@]}" > "$OUT/clsort$round.txt" 2> "$OUT/clsort$round.err"
  "$CUB" --reps "$REPS" "${files[@]}" > "$OUT/cub$round.txt" 2> "$OUT/cub$round.err"
done
python3 - "$OUT" <<'PY' | tee "$OUT/wall.md"
import sys
out = sys.argv[1]
def rows(name):
    d = {}
    for line in open(f"{out}/{name}.txt"):
        if line.startswith("RESULT "):
            r = dict(kv.split("=", 1) for kv in line.split()[1:])
            d[(r.get("type", "u32"), r["dist"], int(r["log2n"]), r["kind"])] = r
    return d
c = [rows("clsort1"), rows("clsort2")]
u = [rows("cub1"), rows("cub2")]
rng = lambda a, b, f="%.3f": (f % min(a, b)) + ("" if f % a == f % b else "-" + f % max(a, b))
print("| keys | n | kind | clsort wall ms | clsort kernel ms | kernel / wall | CUB wall ms | CUB / clsort (wall) |")
print("|---|---|---|---|---|---|---|---|")
for k in sorted(c[0], key=lambda k: (k[0], k[1] != "uniform", k[1], k[2], k[3])):
    if not all(k in x for x in c + u):
        continue
    cw = [float(x[k]["wall_ms"]) for x in c]
    ck = [float(x[k]["ms"]) for x in c]
    uw = [float(x[k]["wall_ms"]) for x in u]
    ratio = [uw[i] / cw[i] for i in range(2)]
    eff = [ck[i] / cw[i] for i in range(2)]
    print(f"| {k[0]} {k[1]} | 2^{k[2]} | {k[3]} | {rng(*cw)} | {rng(*ck)} | {rng(*eff, f='%.2f')} | "
          f"{rng(*uw)} | {rng(*ratio, f='%.2f')} |")
PY
