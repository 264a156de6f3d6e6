#!/usr/bin/env bash
# On the GPU machine (repository root), with build-gpu built beforehand and carried:
#   meson setup build-gpu -Dcub_bench=disabled && ninja -C build-gpu tests/test_sort tests/test_keys \
#     tests/test_segments tests/test_api tests/test_process bench/bench_radix cli/clsort
#   nvcc -O3 -std=c++17 -arch=sm_90 -o build-gpu/bench/cub_radix bench/cub_radix.cu
# runs every library test on the NVIDIA platform, a sort of 2^30 + 12345 keys checked on the host,
# and the radix benchmark against CUB (bench/run-h100.sh). Logs go to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source tools/gpu-env.sh
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=$PWD/build-gpu/cache CMOCKA_MESSAGE_OUTPUT=stdout
t=./build-gpu/tests
fail=0
run() { # name, command...
  local name=$1; shift
  if timeout 300 "$@" > "$OUT/t-$name.txt" 2>&1; then echo "ok    $name"; else echo "FAIL  $name"; tail -15 "$OUT/t-$name.txt"; fail=1; fi
}
{
  for a in radix4 radix8 onesweep radix8-rts bitonic; do run "sort-$a" $t/test_sort $a; done
  run sort-oddeven $t/test_sort oddeven 20000
  # From 2^23 keys the warp ranking takes the large shapes (radix4 pairs: values reordered with keys).
  for a in radix4 radix8; do run "sort-$a-large" $t/test_sort $a 9000000; done
  for a in radix4 auto radix8 onesweep bitonic oddeven; do run "keys-$a" $t/test_keys $a; done
  for a in bitonic oddeven; do run "segments-$a" $t/test_segments $a; done
  run api $t/test_api
  run process $t/test_process
} 2>&1 | tee "$OUT/tests.txt"
echo "== 2^30 + 12345 uniform keys through clsort, --verify checks order and permutation on the host"
big=/tmp/clsort-big.u32
./build-gpu/cli/clsort gen -n 1073754169 --seed 5 -o $big &&
  timeout 240 ./build-gpu/cli/clsort -i $big -o $big.sorted --verify --stats 2>&1 | tee "$OUT/big.txt"
echo "big sort exit status ${PIPESTATUS[0]}"
rm -f $big $big.sorted
PREBUILT=1 TESTS="" SIZES="${SIZES-20 24 28}" BANDS="${BANDS-q4 q16 constant}" BAND_SIZES=28 \
  ALGOS=radix8,radix4 REPS=${REPS:-10} bash bench/run-h100.sh
grep -c FAIL "$OUT/tests.txt" && exit 1 || exit 0
