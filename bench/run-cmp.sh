#!/usr/bin/env bash
# Comparison sorts against CUB on one NVIDIA GPU, same input file, same run; prints a ratio table.
# Usage (repository root): bash bench/run-cmp.sh [BUILD_DIR]   results under $OUT when set.
# Needs nvcc unless bench/cub_cmp (a prebuilt binary) or $CUB_CMP exists.
set -u
B=${1:-build-gpu}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
export CLSORT_CACHE_DIR=${CLSORT_CACHE_DIR:-$PWD/$B/cache}
# PREBUILT=1: $B was built elsewhere and carried: run it as is.
if [ -z "${PREBUILT:-}" ]; then
  [ -f "$B/build.ninja" ] || meson setup "$B" -Dtests=false > "$OUT/setup.log" 2>&1 || { tail -20 "$OUT/setup.log"; exit 1; }
  ninja -C "$B" bench/bench_cmp > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
fi
CUB=${CUB_CMP:-$B/cub_cmp}
if [ ! -x "$CUB" ]; then
  nvcc -O3 -std=c++17 -arch=native -o "$CUB" bench/cub_cmp.cu > "$OUT/nvcc.log" 2>&1 || { tail -20 "$OUT/nvcc.log"; exit 1; }
fi
BC=$B/bench/bench_cmp
DATA=$B/u32_24.bin
$BC gen "$DATA" $((1 << 24)) 42
R=$OUT/raw.txt; : > "$R"
run() { timeout 120 "$@" | tee -a "$R" || echo "FAILED: $*" | tee -a "$R"; }

# Whole arrays: bitonic (and radix8) against DeviceMergeSort.
for n in $((1 << 20)) $((1 << 24)); do
  run "$CUB" merge "$DATA" 10 $n
  run $BC bitonic "$DATA" 0 10 $n
  run $BC radix8 "$DATA" 0 10 $n
done
# Batched segments, 2^24 keys in all: bitonic (and radix8 from 4096) against DeviceSegmentedSort,
# odd-even against bitonic for tiles of 256 .. 4096 keys.
for s in 256 512 1024 2048 4096 16384 65536 1048576; do
  case $s in 512|1024|2048) ;; *) run "$CUB" segmented "$DATA" $s 10 ;; esac
  run $BC bitonic "$DATA" $s 10
  [ $s -le 4096 ] && run $BC oddeven "$DATA" $s 3
  [ $s -ge 4096 ] && run $BC radix8 "$DATA" $s 10
done

# Ratio table: each clsort line against the reference of the same n and segment.
awk '
  $1 ~ /^cub-/ { ref[$2 " " $3] = $5; refname[$2 " " $3] = $1; next }
  $1 == "bitonic" { bit[$2 " " $3] = $5 }
  NF == 5 { line[++k] = $0 }
  END {
    printf "%-8s %10s %8s %10s %12s %10s  %s\n", "algo", "n", "segment", "ms", "GKey/s", "ratio", "against"
    for (i = 1; i <= k; i++) {
      split(line[i], f, " "); key = f[2] " " f[3]
      if (f[1] ~ /^cub-/) { printf "%-8s %10s %8s %10s %12s\n", f[1], f[2], f[3], f[4], f[5]; continue }
      against = (f[1] == "oddeven") ? "bitonic" : refname[key]
      r = (f[1] == "oddeven") ? bit[key] : ref[key]
      printf "%-8s %10s %8s %10s %12s %10s  %s\n", f[1], f[2], f[3], f[4], f[5], r ? sprintf("%.3fx", f[5] / r) : "-", against
    }
  }' "$R" | tee "$OUT/table.txt"
