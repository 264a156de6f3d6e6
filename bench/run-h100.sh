#!/usr/bin/env bash
# On the GPU machine (repository root): build clsort and the CUB reference, test the radix8 sorts on
# NVIDIA, benchmark clsort and CUB on the same key files and print the ratio table last. Logs and the
# table go to $OUT. Fails fast.
#   SIZES (log2, uniform)  BANDS (entropy bands / constant)  BAND_SIZES  ALGOS  REPS  TESTS  TEST_N
#   BIG (log2 of a keys-only radix8 sort checked on the host, e.g. 31; empty to skip)
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES=${SIZES-"16 18 20 22 24 26 28"}
BANDS=${BANDS-"q2 q3 q4 q8 q16 constant"}
BAND_SIZES=${BAND_SIZES-"28"}
ALGOS=${ALGOS:-radix8,radix4}
REPS=${REPS:-10}
TESTS=${TESTS-"radix8 radix8-rts"}
TEST_N=${TEST_N:-1048576}
BIG=${BIG-}
DATA=${DATA:-/tmp/clsort-bench}

source tools/gpu-env.sh
# PREBUILT=1: build-gpu was built elsewhere and carried (cub_radix with nvcc -arch=sm_90): run it as is.
if [ -z "${PREBUILT:-}" ]; then
  if [ ! -f build-gpu/build.ninja ]; then
    meson setup build-gpu -Dcub_bench=enabled > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
  fi
  ninja -C build-gpu tests/test_sort bench/bench_radix bench/cub_radix > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee "$OUT/gpu.txt"

for a in $TESTS; do
  echo "== test_sort $a $TEST_N"
  timeout 300 ./build-gpu/tests/test_sort "$a" "$TEST_N" > "$OUT/test-$a.txt" 2>&1 \
    || { tail -20 "$OUT/test-$a.txt"; exit 1; }
  tail -1 "$OUT/test-$a.txt"
done
if [ -n "$BIG" ]; then
  echo "== radix8 keys-only sort of 2^$BIG keys, checked on the host"
  ./build-gpu/bench/bench_radix sweep --algos radix8 --sizes "$BIG" --dists uniform --kinds keys \
    --reps 1 | tee "$OUT/big.txt"
fi

mkdir -p "$DATA"
files=()
for s in $SIZES; do files+=("$DATA/uniform-$s.u32"); done
for b in $BANDS; do for s in $BAND_SIZES; do files+=("$DATA/$b-$s.u32"); done; done
for f in "${files[@]}"; do
  [ -f "$f" ] && continue
  base=${f##*/}; base=${base%.u32}
  ./build-gpu/bench/bench_radix gen "${base%-*}" "${base##*-}" "$f"
done
echo "== clsort"
./build-gpu/bench/bench_radix run --algos "$ALGOS" --reps "$REPS" "${files[@]}" > "$OUT/clsort.txt" 2> "$OUT/clsort.err" \
  || { cat "$OUT/clsort.err"; echo "(bench_radix failed)"; }
echo "== CUB"
./build-gpu/bench/cub_radix --reps "$REPS" "${files[@]}" > "$OUT/cub.txt" 2> "$OUT/cub.err" || cat "$OUT/cub.err"
if [ -n "${PROFILE:-}" ]; then
  CLSORT_RADIX8_PROFILE=1 ./build-gpu/bench/bench_radix run --algos radix8 --reps 1 "$DATA/uniform-$PROFILE.u32" \
    > /dev/null 2> "$OUT/profile.txt" || true
  tail -30 "$OUT/profile.txt"
fi
echo "== ratio table (clsort / CUB, same data, median of $REPS after warm-up)"
python3 bench/ratio.py "$OUT/clsort.txt" "$OUT/cub.txt" | tee "$OUT/table.txt"
