#!/usr/bin/env bash
# Tuning sweeps on the GPU machine (repository root), for a build-gpu prepared elsewhere and carried
# (bench_radix, cub_radix). Each line of the file $1 is one variant:
#   LABEL ALGOS KINDS FILES [VAR=VALUE ...]
# FILES is a comma list of DIST-LOG2N names (uniform-28, q4-28, ...), generated once under $DATA;
# ALGOS is a comma list of clsort algorithms, or "cub" for the CUB reference. Lines starting with #
# are skipped. Every RESULT line goes to $OUT/sweep.txt prefixed by its label, and a table of
# median ms and GKey/s is printed last.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
REPS=${REPS:-10}
DATA=${DATA:-/tmp/clsort-bench}
source tools/gpu-env.sh
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=${CLSORT_CACHE_DIR:-/tmp/clsort-cache}
mkdir -p "$DATA"
: > "$OUT/sweep.txt"
while read -r label algos kinds files envs; do
  [ -z "$label" ] || [ "${label#\#}" != "$label" ] && continue
  paths=()
  for f in ${files//,/ }; do
    p=$DATA/$f.u32
    [ -f "$p" ] || ./build-gpu/bench/bench_radix gen "${f%-*}" "${f##*-}" "$p" > /dev/null
    paths+=("$p")
  done
  if [ "$algos" = cub ]; then
    cmd=(./build-gpu/bench/cub_radix --reps "$REPS" --kinds "$kinds" "${paths[@]}")
  else
    cmd=(./build-gpu/bench/bench_radix run --algos "$algos" --kinds "$kinds" --reps "$REPS" "${paths[@]}")
  fi
  # shellcheck disable=SC2086
  env $envs timeout 120 "${cmd[@]}" 2>&1 | while read -r line; do
    case "$line" in
      RESULT*) echo "$label $line" ;;
      *rror*|*WRONG*|*bench:*) echo "$label ERROR $line" ;;
    esac
  done >> "$OUT/sweep.txt"
done < "$1"
awk '{ split("", f); for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
       if ($2 == "RESULT") printf "%-14s %-9s %-9s %-5s %3s %9s %8s\n", $1, f["impl"], f["dist"], f["kind"], f["log2n"], f["ms"], f["gkeys"]
       else print }' "$OUT/sweep.txt"
