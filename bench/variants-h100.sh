#!/usr/bin/env bash
# Tuning aid on the GPU machine: per-kernel times and ptxas register reports of radix8, and the
# 2^LOG2N uniform keys-only throughput under tuning variants given as "WG:ITEMS[:PTX[:LB_AT]]" in VARIANTS.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
LOG2N=${LOG2N:-28}
VARIANTS=${VARIANTS:-"256:16"}
source tools/gpu-env.sh
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dcub_bench=enabled > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
fi
ninja -C build-gpu tests/test_sort bench/bench_radix bench/cub_radix > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache-variants
mkdir -p /tmp/clsort-bench
files=()
for d in $DISTS; do
  f=/tmp/clsort-bench/$d-$LOG2N.u32
  [ -f "$f" ] || ./build-gpu/bench/bench_radix gen "$d" "$LOG2N" "$f"
  files+=("$f")
done
f=${files[0]}
for v in $VARIANTS; do
  IFS=: read -r wg items ptx lb_at <<< "$v"
  echo "== variant wg=$wg items=$items ptx=${ptx:-default} lb_at=${lb_at:-default}"
  env CLSORT_RADIX8_WG=$wg CLSORT_RADIX8_ITEMS=$items ${ptx:+CLSORT_RADIX8_PTX=$ptx} ${lb_at:+CLSORT_RADIX8_LB_AT=$lb_at} \
    ./build-gpu/bench/bench_radix run --algos "${ALGOS:-radix8}" --kinds "${KINDS:-keys}" --reps 5 "${files[@]}" 2>&1 | grep -E "RESULT|rror"
done | tee "$OUT/variants.txt"
IFS=: read -r wg items ptx <<< "${VARIANTS%% *}"
for a in ${PROFILE_ALGOS:-radix8}; do
  CLSORT_RADIX8_WG=$wg CLSORT_RADIX8_ITEMS=$items CLSORT_RADIX8_PROFILE=1 \
    ./build-gpu/bench/bench_radix run --algos $a --kinds keys --reps 1 "$f" 2>&1 | tail -${PROFILE_LINES:-8}
done | tee "$OUT/profile.txt"
# ptxas reports of the cached programs (NVIDIA's binaries are PTX text after the cache header).
for e in "$CLSORT_CACHE_DIR"/*; do
  python3 - "$e" > /tmp/k.ptx <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'//')
sys.stdout.write(b[i:].rstrip(b'\0').decode('latin1'))
PY
  grep -q "radix8_bin" /tmp/k.ptx || continue
  echo "== $(grep -m1 -o 'ITEMS[^ ]*' /tmp/k.ptx || true) $e"
  ptxas -arch=sm_90 -v /tmp/k.ptx -o /tmp/k.cubin 2>&1 | grep -E "Compiling|registers" | grep -A1 "radix8_bin"
done | tee "$OUT/ptxas.txt"
