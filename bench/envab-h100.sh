#!/usr/bin/env bash
# On the GPU machine (repository root): radix8 under several variants in one run on one machine,
# each file timed by every variant in turn, ROUNDS rounds, CUB once as the reference; wall ms
# through the public call (bench_radix run), printed as a table of ranges to $OUT/ab.txt.
# A variant is NAME:VAR=VALUE[,VAR=VALUE...] (environment variables for that variant alone, e.g.
# "split:CLSORT_BUILD_OPTIONS=-DMATCH_SPLIT=3" or "h8:CLSORT_RADIX8_HIST_COPIES=8"; "base:" for
# none). A name that starts with "old" runs the tree unpacked in .before (e.g. `git archive REF |
# tar -x -C .before`, carried), built in build-gpu-old. Each variant keeps its own program cache.
#   VARIANTS ("base:")  FILES (names in DATA, made by `bench_radix gen` from NAME-LOG2N.u32|u64)
#   ROUNDS (2)  REPS (10)  KINDS (keys,pairs)  DATA (/tmp/clsort-wall)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source tools/gpu-env.sh
export PATH=$PATH:/usr/local/cuda/bin CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcub_bench=enabled > "$OUT/setup.log" 2>&1
ninja -C build-gpu bench/bench_radix bench/cub_radix > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
if [ -d .before ]; then
  [ -f build-gpu-old/build.ninja ] ||
    (cd .before && meson setup ../build-gpu-old -Dtests=false -Dcub_bench=disabled) > "$OUT/setup-old.log" 2>&1
  ninja -C build-gpu-old bench/bench_radix > "$OUT/build-old.log" 2>&1 ||
    { tail -30 "$OUT/build-old.log"; exit 1; }
fi
B=build-gpu/bench/bench_radix; D=${DATA:-/tmp/clsort-wall}; mkdir -p "$D"
FILES=${FILES:-"uniform-24.u32 uniform-28.u32 q4-28.u32 nearly-28.u32 uniform-24.u64 uniform-27.u64"}
VARIANTS=${VARIANTS:-"base:"}
files=()
for f in $FILES; do
  [ -f "$D/$f" ] || { base=${f%.*}; $B gen "${base%-*}" "${base##*-}" "$D/$f"; }
  files+=("$D/$f")
done
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in $VARIANTS; do
    name=${v%%:*}; envs=${v#*:}; bin=$B
    case $name in old*) bin=build-gpu-old/bench/bench_radix ;; esac
    # shellcheck disable=SC2086
    env ${envs//,/ } CLSORT_CACHE_DIR="$PWD/build-gpu/cache-$name" $bin run --algos radix8 \
      --reps "${REPS:-10}" --kinds "${KINDS:-keys,pairs}" "${files[@]}" > "$OUT/$name$round.txt" \
      2> "$OUT/$name$round.err" || tail -5 "$OUT/$name$round.err"
  done
done
build-gpu/bench/cub_radix --reps "${REPS:-10}" --kinds "${KINDS:-keys,pairs}" "${files[@]}" > "$OUT/cub.txt" 2>&1
# shellcheck disable=SC2086
python3 - "$OUT" "${ROUNDS:-2}" $VARIANTS <<'PY' | tee "$OUT/ab.txt"
import os, sys
out, rounds, names = sys.argv[1], int(sys.argv[2]), [v.split(":")[0] for v in sys.argv[3:]]
def rows(fn):
    d = {}
    if os.path.exists(fn):
        for line in open(fn):
            if line.startswith("RESULT "):
                r = dict(kv.split("=", 1) for kv in line.split()[1:])
                d[(r.get("type", "u32"), r["dist"], int(r["log2n"]), r["kind"])] = float(r["wall_ms"])
    return d
tabs = {n: [rows(f"{out}/{n}{r}.txt") for r in range(1, rounds + 1)] for n in names}
cub = rows(f"{out}/cub.txt")
print("| keys | n | kind | " + " | ".join(names) + " | CUB |")
print("|---|---|---|" + "---|" * (len(names) + 1))
for k in sorted(tabs[names[0]][0]):
    cells = []
    for n in names:
        v = sorted(t[k] for t in tabs[n] if k in t)
        cells.append(f"{v[0]:.3f}-{v[-1]:.3f}" if v else "?")
    print(f"| {k[0]} {k[1]} | 2^{k[2]} | {k[3]} | " + " | ".join(cells) + f" | {cub.get(k, 0):.3f} |")
PY
(cd "$OUT" && tar czf results.tgz ./*.txt ./*.err 2>/dev/null)
