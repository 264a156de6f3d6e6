#!/usr/bin/env bash
# On the GPU machine (repository root): clsort_sort() on host arrays as its caller sees it (the whole
# call: uploads from the caller's pageable arrays, the sort, the read-back; bench_radix --host's
# HOSTCALL lines), with large arrays staged through pinned slots (the default) and plainly
# (CLSORT_STAGING=host), in one run on the same files. Also test_sort with small slots on the GPU.
#   SIZES (log2, default "24 26 28")  REPS
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES=${SIZES:-"24 26 28"}; REPS=${REPS:-5}; DATA=${DATA:-/tmp/clsort-bench}
[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
fi
ninja -C build-gpu tests/test_sort bench/bench_radix > "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache
CLSORT_TRANSFER_SLOT=1000000 timeout 300 build-gpu/tests/test_sort radix8 16777216 \
  > "$OUT/test_sort-staged.log" 2>&1 || { tail -20 "$OUT/test_sort-staged.log"; exit 1; }
echo "test_sort radix8 with slots of 1 MB: $(tail -1 "$OUT/test_sort-staged.log")"
mkdir -p "$DATA"
files=()
for s in $SIZES; do
  f=$DATA/uniform-$s.u32
  [ -f "$f" ] || build-gpu/bench/bench_radix gen uniform "$s" "$f"
  files+=("$f")
done
for r in 1 2; do
  for v in "" "CLSORT_STAGING=host"; do
    env $v build-gpu/bench/bench_radix run --host --algos radix8 --kinds keys,pairs \
      --reps "$REPS" "${files[@]}" 2>/dev/null | grep HOSTCALL | sed "s/^/${v:-staged} /"
  done
done | tee "$OUT/hostcall.txt"
