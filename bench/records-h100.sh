#!/usr/bin/env bash
# On the GPU machine (repository root): records by a key field, file to file, the ways below in one
# run on the same file, each against the I/O floor measured beside it (bench/filebench.py).
# Also test_fields on the GPU, both ways.
#   N (records, default 2^24)  RS (record bytes, default 100)  KEY (key bytes, default 10)  REPS
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
N=${N:-16777216}; RS=${RS:-100}; KEY=${KEY:-10}; REPS=${REPS:-3}
DIR=${DIR:-/tmp/records-bench}; mkdir -p "$DIR"

[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
fi
ninja -C build-gpu cli/clsort tests/test_fields > "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"

for v in "CLSORT_DEVICE_GATHER=1" "CLSORT_DEVICE_GATHER=1 CLSORT_TRANSFER_SLOT=1000000" \
         "CLSORT_DEVICE_GATHER=0"; do
  env $v build-gpu/tests/test_fields radix8 > "$OUT/test_fields.log" 2>&1 ||
    { echo "test_fields failed with $v"; tail -30 "$OUT/test_fields.log"; exit 1; }
done
echo "test_fields passed: records gathered on the device (staged transfers too) and on the host"

# random records: uniform u32 words, as many bytes as N records
in="$DIR/records.bin"
build-gpu/cli/clsort gen -n $((N * RS / 4)) --seed 5 -o "$in"
args=(--record-size "$RS" --key-size "$KEY" --type bytes)
# the default (records gathered on the device, through pinned staging slots, the run's memory
# faulted in by several threads before the read), plain transfers (CLSORT_STAGING=host), the read
# faulting the run's memory in (CLSORT_PREFAULT=0), and the host's gather
ways=("CLSORT_DEVICE_GATHER=1" "CLSORT_DEVICE_GATHER=1 CLSORT_STAGING=host"
      "CLSORT_DEVICE_GATHER=1 CLSORT_PREFAULT=0" "CLSORT_DEVICE_GATHER=0")
for v in "${ways[@]}"; do
  tag=$(echo "$v" | tr ' =' '__')
  echo "== $v"
  env $v build-gpu/cli/clsort "${args[@]}" -i "$in" -o "$DIR/out-$tag.bin" --stats \
    2>&1 | tail -12 | tee "$OUT/stats-$tag.txt"
  cmp "$DIR/out-$tag.bin" "$DIR/out-CLSORT_DEVICE_GATHER_1.bin" && echo "output identical"
  env $v python3 bench/filebench.py --clsort build-gpu/cli/clsort --input "$in" \
    --reps "$REPS" --no-cupy --dir "$DIR" -- "${args[@]}" 2>&1 | tee "$OUT/filebench-$tag.txt"
done
rm -rf "$DIR"
