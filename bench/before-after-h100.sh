#!/usr/bin/env bash
# On the GPU machine (repository root): this tree against an earlier one, in one run on the same
# files, alternated (before, after, before, after): the public call's wall time (bench_radix, as in
# bench/wall-h100.sh) and clsort's process wall time file to file (/usr/bin/time) beside the floor
# (cat in > /dev/null; cat in > new). Prints markdown tables to $OUT/before-after.md.
#   BEFORE (a source tree of the earlier commit, e.g. from `git archive`; default .deps/before;
#   none: this tree alone, against the floor)
#   SIZES (log2 of u32 keys for the API table)  N_KEYS (log2, file to file)  N_REC (records, 100 B)
#   REPS  SPILL (-S for the records run larger than the budget)
#   JOBS (file-to-file jobs, default "keys records spill"; also u64 zipf kv small 8g)
#   API=0 leaves out the API table
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
BEFORE=${BEFORE:-.deps/before}
SIZES=${SIZES-"20 24 28"}
N_KEYS=${N_KEYS:-28}
N_REC=${N_REC:-16777216}
REPS=${REPS:-3}
SPILL=${SPILL:-512Mi}
DATA=${DATA:-/tmp/clsort-ba}
mkdir -p "$DATA"
[ -f tools/gpu-env.sh ] && source tools/gpu-env.sh
here=$PWD
build() { # tree build-dir
  (cd "$1" && { [ -f "$2/build.ninja" ] || meson setup "$2" -Dbuildtype=release > "$OUT/setup-$3.log" 2>&1; } &&
    ninja -C "$2" cli/clsort bench/bench_radix ${4-} > "$OUT/build-$3.log" 2>&1) ||
    { tail -40 "$OUT/build-$3.log" "$OUT/setup-$3.log" 2>/dev/null; exit 1; }
}
build "$here" build-gpu after bench/bench_open
VERSIONS="before after"
if [ "$BEFORE" = none ]; then VERSIONS=after; else build "$BEFORE" build-gpu before; fi
declare -A TOOL=([before]="$BEFORE/build-gpu/cli/clsort" [after]="$here/build-gpu/cli/clsort")
declare -A BENCH=([before]="$BEFORE/build-gpu/bench/bench_radix" [after]="$here/build-gpu/bench/bench_radix")
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

# the API table: wall around clsort_enqueue() + clFinish(), kernel time beside
files=()
for s in $SIZES; do
  f="$DATA/uniform-$s.u32"; files+=("$f")
  [ -f "$f" ] || "${BENCH[after]}" gen uniform "$s" "$f"
done
for round in $([ "${API:-1}" = 0 ] || echo 1 2); do
  for v in $VERSIONS; do
    CLSORT_CACHE_DIR=$DATA/cache-$v "${BENCH[$v]}" run --algos radix8 --reps 10 "${files[@]}" \
      > "$OUT/api-$v$round.txt" 2> "$OUT/api-$v$round.err"
  done
done

# file to file
JOBS=${JOBS:-"keys records spill"}
recs=$DATA/records.bin
gen() { # file gen-args...
  local f=$1; shift
  [ -f "$f" ] || "${TOOL[after]}" gen "$@" -o "$f"
}
jobs=()
for job in $JOBS; do
  case $job in
    keys) gen "$DATA/keys.u32" -n $((1 << N_KEYS)) --seed 7; jobs+=("keys|$DATA/keys.u32|") ;;
    u64) gen "$DATA/keys.u64" -n $((1 << (N_KEYS - 1))) --type u64 --seed 7
         jobs+=("u64|$DATA/keys.u64|--type u64") ;;
    zipf) gen "$DATA/zipf.u32" -n $((1 << N_KEYS)) --dist zipf:1.1 --seed 7
          jobs+=("zipf|$DATA/zipf.u32|") ;;
    kv) gen "$DATA/pairs.kv" -n $((1 << N_KEYS)) --kv --seed 7; jobs+=("kv|$DATA/pairs.kv|--kv") ;;
    small) gen "$DATA/small.u32" -n 4096 --seed 7; jobs+=("small-16KiB|$DATA/small.u32|") ;;
    8g) gen "$DATA/keys8g.u32" -n $((1 << 31)) --seed 7
        jobs+=("8GiB-S1Gi|$DATA/keys8g.u32|-S 1Gi -T $DATA") ;;
    records) gen "$recs" -n $((N_REC * 25)) --seed 5
             jobs+=("records|$recs|--record-size 100 --key-size 10 --type bytes") ;;
    spill) gen "$recs" -n $((N_REC * 25)) --seed 5
           jobs+=("records-S$SPILL|$recs|--record-size 100 --key-size 10 --type bytes -S $SPILL -T $DATA") ;;
    *) echo "unknown job $job" >&2; exit 1 ;;
  esac
done
: > "$OUT/files.txt"
# SYNC=1: the dirty pages of the runs before written back first (large jobs), outside the time
wall() {
  [ "${SYNC:-0}" = 1 ] && sync
  /usr/bin/time -f %e -o "$DATA/t" "$@" > /dev/null 2> "$DATA/err" || { cat "$DATA/err"; exit 1; }
  cat "$DATA/t"
}
for job in "${jobs[@]}"; do
  IFS='|' read -r name in args <<< "$job"
  for r in $(seq "$REPS"); do
    rm -f "$DATA/copy"
    echo "$name floor_read $(wall sh -c "cat '$in' > /dev/null")" >> "$OUT/files.txt"
    echo "$name floor_copy $(wall sh -c "cat '$in' > '$DATA/copy'")" >> "$OUT/files.txt"
    rm -f "$DATA/copy"
    order=$VERSIONS # before first in odd repetitions, after first in even ones
    [ $((r % 2)) = 0 ] && order=$(echo "$VERSIONS" | tr ' ' '\n' | tac | tr '\n' ' ')
    for v in $order; do
      rm -f "$DATA/out-$v" # a new output each time, as the floor's copy (a replaced one is synced)
      # shellcheck disable=SC2086
      t=$(CLSORT_CACHE_DIR=$DATA/cache-$v wall "${TOOL[$v]}" $args -i "$in" -o "$DATA/out-$v")
      echo "$name $v $t" >> "$OUT/files.txt"
    done
    [ "$VERSIONS" = after ] || cmp "$DATA/out-before" "$DATA/out-after" ||
      { echo "$name: outputs differ"; exit 1; }
  done
done
# one --stats of this tree per job: where its time went
for job in "${jobs[@]}"; do
  IFS='|' read -r name in args <<< "$job"
  rm -f "$DATA/out-after"
  echo "== $name" >> "$OUT/stats.txt"
  # shellcheck disable=SC2086
  CLSORT_CACHE_DIR=$DATA/cache-after "${TOOL[after]}" $args -i "$in" -o "$DATA/out-after" --stats \
    2>> "$OUT/stats.txt" || true
done
rm -f "$DATA"/out-* "$DATA/copy"
# opening the device alone, in a process of its own (beside the small file's job)
for r in $(seq "$REPS"); do
  echo "device-open-alone after $(CLSORT_CACHE_DIR=$DATA/cache-after wall "$here/build-gpu/bench/bench_open")" >> "$OUT/files.txt"
done

python3 - "$OUT" <<'PY' | tee "$OUT/before-after.md"
import os, sys, collections
out = sys.argv[1]
def api(v):
    d = collections.defaultdict(list)
    for r in (1, 2):
        for line in open(f"{out}/api-{v}{r}.txt"):
            if line.startswith("RESULT "):
                kv = dict(x.split("=", 1) for x in line.split()[1:])
                d[(int(kv["log2n"]), kv["kind"])].append((float(kv["wall_ms"]), float(kv["ms"])))
    return d
b, a = (api("before"), api("after")) if os.path.exists(f"{out}/api-before1.txt") else ({}, {})
print("| u32 keys | kind | before wall ms | after wall ms | after / before | before kernel ms | after kernel ms |")
print("|---|---|---|---|---|---|---|")
for k in sorted(b):
    if k not in a:
        continue
    bw, aw = min(x[0] for x in b[k]), min(x[0] for x in a[k])
    bk, ak = min(x[1] for x in b[k]), min(x[1] for x in a[k])
    print(f"| 2^{k[0]} | {k[1]} | {bw:.3f} | {aw:.3f} | {aw / bw:.2f} | {bk:.3f} | {ak:.3f} |")
t = collections.defaultdict(list)
for line in open(f"{out}/files.txt"):
    name, what, s = line.split()
    t[(name, what)].append(float(s))
print()
print("| file to file | floor (read + copy) s | before s | after s | after / before | after / floor |")
print("|---|---|---|---|---|---|")
for name in dict.fromkeys(k[0] for k in t):
    if (name, "floor_read") not in t:
        print(f"| {name} | - | - | {min(t[(name, 'after')]):.2f}-{max(t[(name, 'after')]):.2f} | - | - |")
        continue
    fl = min(t[(name, "floor_read")]) + min(t[(name, "floor_copy")])
    bb, aa = t.get((name, "before"), [float("nan")]), t[(name, "after")]
    rng = lambda x: f"{min(x):.2f}-{max(x):.2f}"
    ratio = lambda x, y: f"{x / y:.2f}" if y else "-"
    print(f"| {name} | {fl:.2f} | {rng(bb)} | {rng(aa)} | {ratio(min(aa), min(bb))} | {ratio(min(aa), fl)} |")
PY
