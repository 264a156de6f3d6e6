#!/usr/bin/env bash
# PoCL against Intel's CPU OpenCL runtime on this machine, same run, same files:
#  1. through the API (clsort bench: kernels, and end to end = upload + sort + download) for radix8,
#     host-radix and auto at each size;
#  2. file to file (the process's wall time, bench/filebench.py beside the I/O floor) for the same.
# Runs alternate between the two runtimes. Needs tools/intel-ocl.sh BUILD first.
#
#   bash bench/cpu-runtimes.sh [BUILD]      (LOG2N="24 26" REPS=5 ALGOS="auto radix8 host-radix")
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
clsort=$build/cli/clsort
log2n=${LOG2N:-24 26}
reps=${REPS:-5}
algos=${ALGOS:-auto radix8 host-radix}
[ -f "$build/intel-ocl/env.sh" ] || { echo "run tools/intel-ocl.sh $build first" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/cpu-runtimes.XXXXXX")
trap 'rm -rf "$dir"' EXIT

intel() { (. "$build/intel-ocl/env.sh" && "$@"); }
pocl() { (unset OCL_ICD_VENDORS; "$@"); }

for l in $log2n; do
  n=$((1 << l))
  "$clsort" gen -n "$n" --seed 7 -o "$dir/k$l.bin"
  csv=$(echo "$algos" | tr ' ' ',')
  for rt in pocl intel; do
    echo "== API, 2^$l u32 keys, $rt: clsort bench -n $n -a $csv --keys -r $reps"
    $rt "$clsort" bench -n "$n" -a "$csv" --keys -r "$reps" --no-progress --no-reference
  done
  for a in $algos; do
    for rt in pocl intel; do
      echo "== file to file, 2^$l u32 keys, $rt, --algo $a"
      $rt python3 bench/filebench.py --clsort "$clsort" --input "$dir/k$l.bin" --dir "$dir" \
        --reps "$reps" --no-cupy -- --algo "$a" | grep -E "^(floor|clsort|  )"
    done
  done
  rm -f "$dir/k$l.bin"
done
