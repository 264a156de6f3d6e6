#!/usr/bin/env bash
# On the GPU machine (repository root): build clsort and cub_segments, test variable segments on the
# GPU, then time clsort_enqueue_segments() and cub::DeviceSegmentedSort on the same mixes (wall time
# around the call + synchronisation, median of REPS) and print both RESULT lines and the ratios.
#   SIZES (log2)  MIXES (benchgen.h)  KINDS  REPS  ALGO (auto, radix8, radix8-rts)
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES=${SIZES-"20 22 24 26"}
MIXES=${MIXES:-mixed,small,medium,large}
KINDS=${KINDS:-keys,pairs}
REPS=${REPS:-10}
ALGO=${ALGO:-auto}

[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
fi
ninja -C build-gpu tests/test_segvar bench/bench_segments > "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
nvcc -O3 -std=c++17 -arch=sm_90 -I bench -o build-gpu/cub_segments bench/cub_segments.cu
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"

build-gpu/tests/test_segvar > "$OUT/test_segvar.log" 2>&1 || { tail -30 "$OUT/test_segvar.log"; exit 1; }
# shellcheck disable=SC2086
build-gpu/bench/bench_segments --reps "$REPS" --kinds "$KINDS" --mixes "$MIXES" --algo "$ALGO" \
  $SIZES | tee "$OUT/clsort.txt"
# shellcheck disable=SC2086
build-gpu/cub_segments --reps "$REPS" --kinds "$KINDS" --mixes "$MIXES" $SIZES | tee "$OUT/cub.txt"
# speedup = CUB's wall time / clsort's, per mix, size and kind
cat "$OUT/clsort.txt" "$OUT/cub.txt" | awk '
  /^RESULT/ { impl = ""; key = ""; ms = 0
    for (i = 2; i <= NF; i++) { split($i, kv, "=")
      if (kv[1] == "impl") impl = kv[2]
      else if (kv[1] == "mix" || kv[1] == "log2n" || kv[1] == "kind") key = key " " $i
      else if (kv[1] == "wall_ms") ms = kv[2] }
    t[impl, key] = ms; keys[key] = 1 }
  END { for (k in keys) if (t["clsort-seg", k] > 0 && t["cub-seg", k] > 0)
          printf "%s clsort %.4f ms cub %.4f ms speedup %.2fx\n", k, t["clsort-seg", k],
                 t["cub-seg", k], t["cub-seg", k] / t["clsort-seg", k] }' | sort | tee "$OUT/ratio.txt"
