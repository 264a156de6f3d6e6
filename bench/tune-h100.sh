#!/usr/bin/env bash
# One batched tuning session on the GPU machine (repository root), for a build-gpu prepared elsewhere
# (bench_radix, test_sort and cub_radix; builds them here only if missing): radix8 tests on NVIDIA
# (fail fast), then the throughput of radix8 shapes given as "WG:ITEMS[:ENV=VAL,...]" in VARIANTS on
# uniform keys of each size in LOG2NS, per-kernel times of the first variant, ptxas register counts of
# the cached programs, and optionally (NCU=1) Nsight Compute sections of one binning launch.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
LOG2NS=${LOG2NS:-"28 20"}
VARIANTS=${VARIANTS:-"256:16"}
KINDS=${KINDS:-keys}
REPS=${REPS:-5}
TEST_N=${TEST_N:-300000}
source tools/gpu-env.sh
if [ ! -x build-gpu/bench/bench_radix ] || [ ! -x build-gpu/tests/test_sort ]; then
  { [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcub_bench=enabled; } > "$OUT/setup.log" 2>&1
  ninja -C build-gpu tests/test_sort bench/bench_radix > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=/tmp/clsort-cache
for a in ${TESTS:-radix8 onesweep radix8-rts}; do
  for v in ${TEST_VARIANTS:-"256:16"}; do
    IFS=: read -r wg items <<< "$v"
    CLSORT_RADIX8_WG=$wg CLSORT_RADIX8_ITEMS=$items timeout 120 ./build-gpu/tests/test_sort "$a" "$TEST_N" \
      > "$OUT/test.txt" 2>&1 || { echo "FAILED test_sort $a $TEST_N ($v)"; tail -30 "$OUT/test.txt"; exit 1; }
    echo "test_sort $a $TEST_N ($v): $(tail -1 "$OUT/test.txt")"
  done
done
mkdir -p /tmp/clsort-bench
files=()
for s in $LOG2NS; do
  f=/tmp/clsort-bench/uniform-$s.u32
  [ -f "$f" ] || ./build-gpu/bench/bench_radix gen uniform "$s" "$f"
  files+=("$f")
done
for v in $VARIANTS; do
  IFS=: read -r wg items extra <<< "$v"
  echo "== $v"
  env CLSORT_RADIX8_WG=$wg CLSORT_RADIX8_ITEMS=$items ${extra:+${extra//,/ }} \
    ./build-gpu/bench/bench_radix run --algos radix8 --kinds "$KINDS" --reps "$REPS" "${files[@]}" 2>&1 | grep -E "RESULT|rror"
done | tee "$OUT/variants.txt"
for v in ${PROFILE_VARIANTS:-${VARIANTS%% *}}; do
  IFS=: read -r wg items extra <<< "$v"
  echo "== profile $v"
  env CLSORT_RADIX8_WG=$wg CLSORT_RADIX8_ITEMS=$items CLSORT_RADIX8_PROFILE=1 ${extra:+${extra//,/ }} \
    ./build-gpu/bench/bench_radix run --algos radix8 --kinds keys --reps 1 "${files[0]}" 2>&1 | grep radix8: | tail -6
done | tee "$OUT/profile.txt"
if [ -n "${CUB:-}" ]; then
  ./build-gpu/bench/cub_radix --reps "$REPS" --kinds "$KINDS" "${files[@]}" 2>&1 | tee "$OUT/cub.txt"
fi
# ptxas reports of the cached programs (NVIDIA's binaries are PTX text after the cache header).
for e in "$CLSORT_CACHE_DIR"/*; do
  python3 - "$e" > /tmp/k.ptx <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'//')
sys.stdout.write(b[i:].rstrip(b'\0').decode('latin1'))
PY
  grep -q "radix8_bin" /tmp/k.ptx || continue
  echo "== $(grep -o -m1 'reqntid [0-9, ]*' /tmp/k.ptx | head -1) $(grep -c 'vote.sync.ballot' /tmp/k.ptx) ballots"
  ptxas -arch=sm_90 -v /tmp/k.ptx -o /tmp/k.cubin 2>&1 | grep -A1 "Compiling entry function 'radix8_bin'" | grep -E "registers"
done > "$OUT/ptxas.txt" 2>&1; cat "$OUT/ptxas.txt"
if [ -n "${NCU:-}" ]; then
  IFS=: read -r wg items extra <<< "${NCU_VARIANT:-${VARIANTS%% *}}"
  f=/tmp/clsort-bench/uniform-${NCU_LOG2N:-24}.u32
  [ -f "$f" ] || ./build-gpu/bench/bench_radix gen uniform "${NCU_LOG2N:-24}" "$f"
  env CLSORT_RADIX8_WG=$wg CLSORT_RADIX8_ITEMS=$items ${extra:+${extra//,/ }} timeout 90 \
    ncu --clock-control none --target-processes all -k regex:radix8_bin -s 3 -c 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__inst_executed.sum \
      ./build-gpu/bench/bench_radix run --algos radix8 --kinds keys --reps 1 "$f" \
      > "$OUT/ncu.txt" 2>&1
  grep -E "Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers|Block Limit|Stall|bank_conflicts|inst_executed|Warp Cycles|Issued|==PROF==|rror" "$OUT/ncu.txt" | head -60
fi
