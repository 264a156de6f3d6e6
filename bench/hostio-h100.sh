#!/usr/bin/env bash
# On the GPU machine (repository root): bench/hostio's steps beside the floor and clsort itself, on
# one file of 2^LOG2N u32 keys in the page cache, process wall from /usr/bin/time, alternated.
#   COPIES=0 times the reads and writes alone
#   LOG2N (default 28)  REPS (default 3)  THREADS (read threads to try, default "1 4 8 16")
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
LOG2N=${LOG2N:-28}; REPS=${REPS:-3}; THREADS=${THREADS:-"1 4 8 16"}
DATA=${DATA:-/tmp/clsort-hostio}; mkdir -p "$DATA"
[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh
{ [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release > "$OUT/setup.log" 2>&1; } &&
  ninja -C build-gpu cli/clsort bench/hostio bench/bench_open > "$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log" "$OUT/setup.log"; exit 1; }
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
in=$DATA/keys.u32; new=$DATA/new.bin
[ -f "$in" ] || build-gpu/cli/clsort gen -n $((1 << LOG2N)) --seed 7 -o "$in"
cat "$in" > /dev/null
wall() { # label command...
  rm -f "$new"; sync -f "$DATA" 2>/dev/null || true
  local label=$1; shift
  /usr/bin/time -f %e -o "$OUT/t.txt" "$@" > "$OUT/last.txt" 2>"$OUT/last.err" || true
  printf '%-34s %s\n' "$label" "$(cat "$OUT/t.txt")" | tee -a "$OUT/walls.txt"
  { echo "== $label: $*"; cat "$OUT/last.txt" "$OUT/last.err"; } >> "$OUT/steps.txt"
}
H=build-gpu/bench/hostio
for r in $(seq "$REPS"); do
  wall "floor read" sh -c 'cat "$1" > /dev/null' sh "$in"
  wall "floor copy" sh -c 'cat "$1" > "$2"' sh "$in" "$new"
  for t in $THREADS; do
    wall "write T=$t write()" $H write "$in" "$new" "$t" write
    wall "write T=$t mmap" $H write "$in" "$new" "$t" mmap
    cmp "$in" "$new" || echo "write differs" | tee -a "$OUT/walls.txt"
  done
  [ "${COPIES:-1}" = 1 ] || continue
  wall "open, exit" $H open 0
  wall "open, release, exit" $H open 1
  wall "bench_open" build-gpu/bench/bench_open
  for t in $THREADS; do wall "copy T=$t pageable rel=2" $H copy "$in" "$new" "$t" pageable 2; done
  wall "copy T=8 pinned rel=2" $H copy "$in" "$new" 8 pinned 2
  wall "copy T=8 pageable rel=0" $H copy "$in" "$new" 8 pageable 0
  wall "copy T=8 pageable rel=1" $H copy "$in" "$new" 8 pageable 1
  cmp "$in" "$new" || echo "copy differs" | tee -a "$OUT/walls.txt"
  wall "clsort" build-gpu/cli/clsort -i "$in" -o "$new" --stats
  cp "$OUT/last.err" "$OUT/stats$r.txt"
done
