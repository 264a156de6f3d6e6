#!/usr/bin/env bash
# Test: a recording of one library call (bench/clrecord.c) replays through OpenCL (bench/clreplay.c)
# to the same keys and values, byte for byte: a sort of pairs and a sort of variable segments with
# values. Arguments: bench_radix bench_segments libclrecord.so clreplay.
set -euo pipefail
radix=$1 segments=$2 recorder=$3 replay=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/radix" "$dir/segments"
"$radix" gen uniform 14 "$dir/uniform-14.u32"
REC_DIR=$dir/radix LD_PRELOAD=$recorder "$radix" run --algos radix8 --reps 1 --kinds pairs \
  "$dir/uniform-14.u32" > /dev/null
REC_DIR=$dir/segments LD_PRELOAD=$recorder "$segments" --algo radix8 --reps 1 --kinds pairs \
  --mixes mixed 15 > /dev/null
for r in radix segments; do
  grep -q '^launch ' "$dir/$r/ops.txt" || { echo "no launch recorded in $r"; exit 1; }
  "$replay" "$dir/$r"
done
