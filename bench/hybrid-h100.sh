#!/usr/bin/env bash
# On the GPU machine (repository root): radix-hybrid against radix8 (onesweep) and CUB on the same key
# files, through the public call (bench_radix: wall time around clsort_enqueue() + clFinish(), kernel
# time beside; cub_radix timed the same way), after its correctness tests on the device.
#   TESTS=0 skips the tests; VARIANTS: runs of radix-hybrid, each with its settings
#   (CLSORT_HYBRID_LAG=2,CLSORT_HYBRID_WAVE_KEYS=2500000 ...; def: none);
#   PROFILE=1: per-command device times of one sort of the first file; FILES: key files (DIST-LOG2N.u32/.u64, made when missing);
#   KINDS: keys,pairs; REPS.
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
KINDS=${KINDS:-keys,pairs}
REPS=${REPS:-10}
DATA=${DATA:-/tmp/clsort-bench}
FILES=${FILES:-"uniform-24.u32 uniform-26.u32 uniform-28.u32"}
source tools/gpu-env.sh
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dcub_bench=enabled > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
fi
ninja -C build-gpu tests/test_sort tests/test_keys bench/bench_radix bench/cub_radix > "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache
if [ "${TESTS:-1}" != 0 ]; then
  for w in "" 100000; do
    echo "== test_sort radix-hybrid (wave keys ${w:-default})"
    CLSORT_HYBRID_WAVE_KEYS=$w timeout 300 ./build-gpu/tests/test_sort radix-hybrid 16777216 \
      > "$OUT/test-hybrid$w.txt" 2>&1 || { tail -20 "$OUT/test-hybrid$w.txt"; exit 1; }
    tail -1 "$OUT/test-hybrid$w.txt"
  done
  echo "== test_keys radix-hybrid"
  CLSORT_HYBRID_WAVE_KEYS=5000 timeout 300 ./build-gpu/tests/test_keys radix-hybrid \
    > "$OUT/test-keys-hybrid.txt" 2>&1 || { tail -20 "$OUT/test-keys-hybrid.txt"; exit 1; }
  tail -1 "$OUT/test-keys-hybrid.txt"
fi
mkdir -p "$DATA"
paths=()
for f in $FILES; do
  p=$DATA/$f
  paths+=("$p")
  [ -f "$p" ] && continue
  base=${f%.*}
  ./build-gpu/bench/bench_radix gen "${base%-*}" "${base##*-}" "$p"
done
summary() { grep RESULT "$1" | sed 's/RESULT //' | awk -v tag="$2" '{print tag, $0}'; }
timeout 300 ./build-gpu/bench/cub_radix --reps "$REPS" "${paths[@]}" > "$OUT/cub.txt" 2>&1 || true
summary "$OUT/cub.txt" cub
timeout 300 ./build-gpu/bench/bench_radix run --algos radix8 --kinds "$KINDS" --reps "$REPS" \
  "${paths[@]}" > "$OUT/radix8.txt" 2>&1 || { tail -5 "$OUT/radix8.txt"; }
summary "$OUT/radix8.txt" onesweep
# Each variant: settings for one run, comma-separated (def: none).
for v in ${VARIANTS:-def}; do
  tag="hybrid-$(echo "$v" | tr -c 'A-Za-z0-9=\n' '_')"
  sets=()
  [ "$v" = def ] || IFS=, read -r -a sets <<< "$v"
  env "${sets[@]}" timeout 300 ./build-gpu/bench/bench_radix run \
    --algos radix-hybrid --kinds "$KINDS" --reps "$REPS" "${paths[@]}" > "$OUT/$tag.txt" 2>&1 ||
    { tail -5 "$OUT/$tag.txt"; }
  grep -h "WRONG" "$OUT/$tag.txt" || true
  summary "$OUT/$tag.txt" "$v"
done
if [ -n "${PROFILE:-}" ]; then
  # Per-command device times of one sort of the first file (stderr of the profile setting).
  CLSORT_PROFILE=1 ./build-gpu/bench/bench_radix run --algos radix-hybrid --kinds keys --reps 2 \
    "${paths[0]}" > "$OUT/profile.txt" 2>&1 || true
  grep -v RESULT "$OUT/profile.txt" | sort | uniq -c | sort -rn | head -20
fi
