#!/usr/bin/env bash
# On the GPU machine (repository root): `clsort text` against `LC_ALL=C sort --parallel=16 -S 8G`
# on about 1 GiB of text each: integers one per line (-n), random words (byte order) and
# word<TAB>number (-t TAB -k2,2n). The two alternate (sort, clsort, sort, clsort), RUNS runs each,
# process wall time through /usr/bin/time, beside the floor (cat in > /dev/null; cat in > new);
# each clsort run also gives its --stats line (where the time went). The outputs are compared
# byte for byte with cmp. One line per run on stdout and in $OUT/text-gpu.txt; logs under $OUT.
# About 5 minutes on a 16-core host (most of it GNU sort), the build and the inputs included.
#   JOBS (default "n bytes k2n")  RUNS (default 2)  SIZE (bytes per input, default 2^30)
#   DATA (the inputs and outputs, default /tmp/clsort-text)  CLSORT_DEVICE (default nvidia)
#   THREADS (GNU sort's --parallel, default 16)  CLSORT (a clsort already built: no build)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
JOBS=${JOBS:-"n bytes k2n"}
RUNS=${RUNS:-2}
SIZE=${SIZE:-1073741824}
DATA=${DATA:-/tmp/clsort-text}
THREADS=${THREADS:-16}
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
export CLSORT_CACHE_DIR=${CLSORT_CACHE_DIR:-$DATA/cache}
SUMMARY=$OUT/text-gpu.txt
: > "$SUMMARY"
fail=0
say() { echo "$*" | tee -a "$SUMMARY"; }
die() { say "FAILED: $*"; exit 1; }

for tool in /usr/bin/time sort cmp cat awk meson ninja; do
  command -v "$tool" > /dev/null || die "$tool is not installed"
done
mkdir -p "$DATA" || die "cannot make $DATA"
[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh

# the tool, release build (no tests, benchmarks or MPI: only cli/clsort)
if [ -n "${CLSORT:-}" ]; then
  C=$(readlink -f "$CLSORT") && [ -x "$C" ] || die "CLSORT=$CLSORT is not a program"
else
  B=build-text-gpu
  if [ ! -f "$B/build.ninja" ]; then
    meson setup "$B" -Dbuildtype=release -Dtests=false -Dbench=false -Dmpi=disabled \
      -Dcub_bench=disabled > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; die "meson setup"; }
  fi
  ninja -C "$B" cli/clsort > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; die "build"; }
  C=$PWD/$B/cli/clsort
fi
"$C" devices > "$OUT/devices.txt" 2>&1 || { cat "$OUT/devices.txt"; die "clsort devices"; }
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$SUMMARY"
say "host: $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo '?'), CLSORT_DEVICE=$CLSORT_DEVICE"

# the inputs: 16 awk processes each write 1/16 of SIZE (whole lines), then one cat
gen() { # file awk-format-of-a-line
  local f=$1 fmt=$2
  [ -s "$f" ] && return 0
  local part=$((SIZE / 16)) pids=()
  for i in $(seq 0 15); do
    awk -v seed=$((i + 1)) -v lim="$part" 'BEGIN { srand(seed); b = 0
      while (b < lim) { s = sprintf('"$fmt"'); b += length(s) + 1; print s } }' > "$f.$i" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { rm -f "$f".*; die "generating $f"; }; done
  cat "$f".? "$f".?? > "$f.tmp" && mv "$f.tmp" "$f" && rm -f "$f".? "$f".?? || die "writing $f"
}
declare -A FILE
for job in $JOBS; do
  case $job in
    n) FILE[n]=$DATA/ints.txt; gen "${FILE[n]}" '"%d", int(rand() * 1e9)' ;;
    bytes) FILE[bytes]=$DATA/words.txt
       gen "${FILE[bytes]}" '"%x%x", int(rand() * 1e9), int(rand() * 1e9)' ;;
    k2n) FILE[k2n]=$DATA/wordnum.txt
       gen "${FILE[k2n]}" '"%x\t%d", int(rand() * 1e9), int(rand() * 1e9)' ;;
    *) die "unknown job '$job' (n bytes k2n)" ;;
  esac
done

# one timed command: its line on stdout and in the summary; a failure is said and counted
timed() { # label bytes command...
  local label=$1 bytes=$2; shift 2
  local tf=$OUT/time.tmp
  if /usr/bin/time -o "$tf" -f "%e %U %S %M" "$@" 2> "$OUT/stderr.tmp"; then
    read -r wall user sys rss < <(tail -1 "$tf")
    local gbs; gbs=$(awk -v b="$bytes" -v w="$wall" 'BEGIN { printf "%.2f", (w > 0 ? b / w / 1e9 : 0) }')
    say "$(printf '%-34s %8.2f s wall %8.2f user %7.2f sys %9d KB %6s GB/s' "$label" "$wall" "$user" "$sys" "$rss" "$gbs")"
    grep -h "clsort: text:" "$OUT/stderr.tmp" | sed 's/^/    /' | tee -a "$SUMMARY"
  else
    say "FAILED: $label (exit $?):"; tail -5 "$OUT/stderr.tmp" | tee -a "$SUMMARY"; fail=1
  fi
}

# one untimed run first: the device's programs built and cached (CLSORT_CACHE_DIR) before timing
first=${FILE[${JOBS%% *}]}
env LC_ALL=C "$C" text -n "$first" -o "$DATA/warm.out" > "$OUT/warm.txt" 2>&1 ||
  { cat "$OUT/warm.txt"; die "the untimed first run of clsort text"; }
rm -f "$DATA/warm.out"

for job in $JOBS; do
  in=${FILE[$job]}
  bytes=$(stat -c %s "$in")
  case $job in n) o=(-n) ;; bytes) o=() ;; k2n) o=(-t "$(printf '\t')" -k2,2n) ;; esac
  say "== $job: $(basename "$in"), $bytes bytes, options: ${o[*]:-(none)}"
  for r in $(seq 1 "$RUNS"); do
    timed "floor $job #$r (cat > /dev/null)" "$bytes" sh -c 'cat "$1" > /dev/null' sh "$in"
    timed "floor $job #$r (cat > new)" "$bytes" sh -c 'cat "$1" > "$2"' sh "$in" "$DATA/floor.out"
    rm -f "$DATA/floor.out"
    # no output there before: clsort syncs a file it replaces (GNU sort does not)
    rm -f "$DATA/$job.sort" "$DATA/$job.clsort"
    timed "sort $job #$r" "$bytes" env LC_ALL=C sort "${o[@]}" --parallel="$THREADS" -S 8G "$in" -o "$DATA/$job.sort"
    timed "clsort text $job #$r" "$bytes" env LC_ALL=C "$C" text --stats "${o[@]}" "$in" -o "$DATA/$job.clsort"
  done
  if cmp "$DATA/$job.sort" "$DATA/$job.clsort" > "$OUT/cmp-$job.txt" 2>&1; then
    say "$job: outputs identical"
  else
    say "FAILED: $job: outputs differ: $(head -1 "$OUT/cmp-$job.txt")"; fail=1
  fi
  rm -f "$DATA/$job.sort" "$DATA/$job.clsort"
done
rm -f "$OUT/time.tmp" "$OUT/stderr.tmp"
[ "$fail" = 0 ] && say "all runs done, outputs identical" || say "FAILED: see above"
exit "$fail"
