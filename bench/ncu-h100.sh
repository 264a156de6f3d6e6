#!/usr/bin/env bash
# On the GPU machine (repository root): Nsight Compute counters of clsort's kernels beside CUB's, on
# the same data. ncu does not see OpenCL kernels, so one library call is recorded (bench/clrecord.c,
# LD_PRELOAD) and its commands replayed through the CUDA driver from the PTX that NVIDIA's OpenCL
# built (bench/ptxreplay.c, which checks the replay's result against the OpenCL one byte for byte).
# Then ncu profiles the replay's kernels and CUB's, with clocks at base as ncu sets them.
#   CASES: radix:FILE[:pairs] (bench_radix's DIST-LOG2N.u32/.u64, made when missing; keys unless
#   :pairs) or segments:MIX-LOG2N (default "radix:uniform-28.u32 radix:q4-28.u32 segments:medium-24")
#   HIST=1: the radix cases profile the up-front histogram kernels too (ours and CUB's)
#   STALLS=1: the radix cases instead profile one binning pass each side (the second; PASS=N picks
#   another) and write where its warps wait: $OUT/stalls.md (bench/ncu_stalls.py: the sampled stall
#   reasons, the instructions that hold most samples and what kind of instruction holds them) and
#   the per-instruction CSVs in $OUT/stalls.tgz
# Writes $OUT/ncu.md (a table per case) and the full ncu output beside it.
set -euo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CASES=${CASES:-"radix:uniform-28.u32 radix:q4-28.u32 segments:medium-24"}
DATA=${DATA:-/tmp/clsort-ncu}
export PATH=$PATH:/usr/local/cuda/bin
source tools/gpu-env.sh
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dcub_bench=enabled > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
fi
ninja -C build-gpu bench/bench_radix bench/bench_segments bench/cub_radix > "$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; exit 1; }
[ -x build-gpu/cub_segments ] ||
  nvcc -O3 -std=c++17 -arch=sm_90 -I bench -o build-gpu/cub_segments bench/cub_segments.cu
cc -O2 -shared -fPIC -o build-gpu/libclrecord.so bench/clrecord.c -ldl
cc -O2 -I/usr/local/cuda/include -I bench -o build-gpu/ptxreplay bench/ptxreplay.c \
  -L/usr/local/cuda/lib64/stubs -lcuda
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia} CLSORT_CACHE_DIR=$PWD/build-gpu/cache
mkdir -p "$DATA"

n=0
for c in $CASES; do
  n=$((n + 1)); what=${c%%:*}; arg=${c#*:}; rec=$DATA/rec$n; mkdir -p "$rec"
  case $what in
    radix)
      kind=keys; [ "${arg##*:}" = pairs ] && { kind=pairs; arg=${arg%:*}; }
      f=$DATA/$arg; base=${arg%.*}; kind_size=4; [ "${arg##*.}" = u64 ] && kind_size=8
      [ -f "$f" ] || build-gpu/bench/bench_radix gen "${base%-*}" "${base##*-}" "$f"
      REC_DIR=$rec LD_PRELOAD=$PWD/build-gpu/libclrecord.so build-gpu/bench/bench_radix run \
        --reps 1 --kinds "$kind" "$f" > /dev/null
      passes=$(grep -c ' radix8_bin ' "$rec/ops.txt")
      ours="-k regex:radix8_bin -c $passes"
      cub=(build-gpu/bench/cub_radix --reps 1 --kinds "$kind" "$f"); cubk="-k regex:Onesweep -c $passes"
      if [ "${HIST:-0}" = 1 ]; then
        ours="-k regex:radix8_histogram|radix8_bin -c $((passes + 1))"
        cubk="-k regex:Histogram|Onesweep -c $((passes + 1))"
      fi ;;
    segments)
      mix=${arg%-*}; lg=${arg##*-}
      REC_DIR=$rec LD_PRELOAD=$PWD/build-gpu/libclrecord.so build-gpu/bench/bench_segments \
        --reps 1 --kinds keys --mixes "$mix" "$lg" > /dev/null
      ours="-k regex:seg_short|radix8_bin -c 5"
      cub=(build-gpu/cub_segments --reps 1 --kinds keys --mixes "$mix" "$lg"); cubk="-c 12" ;;
  esac
  echo "== $c: replay" | tee -a "$OUT/replay.txt"
  build-gpu/ptxreplay "$rec" 3 | tee -a "$OUT/replay.txt"
  if [ "${STALLS:-0}" = 1 ] && [ "$what" = radix ]; then
    s=$(( ${PASS:-2} - 1 )); sd=$DATA/stalls; mkdir -p "$sd"
    ncu --set full --import-source no -k regex:radix8_bin -s $s -c 1 -f -o "$sd/$n-clsort" \
      build-gpu/ptxreplay "$rec" 1 > "$sd/$n-clsort.log" 2>&1 || { tail "$sd/$n-clsort.log"; continue; }
    # CUB sorts at most ((2^28 - 1) / tile) * tile keys a launch, so 2^28 keys take two launches
    # a pass, the second of a single tile: skip two a pass there.
    cs=$s; [ "$(( $(stat -c %s "$f") / ${kind_size:-4} ))" -ge $(( (1 << 28) - 65536 )) ] && cs=$((2 * s))
    ncu --set full --import-source no -k regex:Onesweep -s $cs -c 1 -f -o "$sd/$n-cub" \
      "${cub[@]}" > "$sd/$n-cub.log" 2>&1 || { tail "$sd/$n-cub.log"; continue; }
    for side in clsort cub; do
      ncu -i "$sd/$n-$side.ncu-rep" --page raw --csv > "$sd/$n-$side-raw.csv"
      ncu -i "$sd/$n-$side.ncu-rep" --page source --print-source sass --csv > "$sd/$n-$side-sass.csv"
    done
    python3 bench/ncu_stalls.py "$c (pass $((s + 1)))" "$sd/$n-clsort" "$sd/$n-cub" | tee -a "$OUT/stalls.md"
    tar -czf "$OUT/stalls.tgz" -C "$sd" $(cd "$sd" && ls ./*.csv)
    continue
  fi
  # shellcheck disable=SC2086
  ncu --set full $ours build-gpu/ptxreplay "$rec" 1 > "$OUT/ncu-$n-clsort.txt" 2>&1 ||
    echo "ncu on the replay failed: $OUT/ncu-$n-clsort.txt"
  # shellcheck disable=SC2086
  ncu --set full $cubk "${cub[@]}" > "$OUT/ncu-$n-cub.txt" 2>&1 ||
    echo "ncu on CUB failed: $OUT/ncu-$n-cub.txt"
  python3 - "$c" "$OUT/ncu-$n-clsort.txt" "$OUT/ncu-$n-cub.txt" <<'PY' | tee -a "$OUT/ncu.md"
import re, sys
rows = [("Duration", "ms"), ("DRAM Throughput", "%"), ("Memory Throughput", "%"),
        ("Issue Slots Busy", "%"), ("Executed Instructions", "inst"),
        ("Registers Per Thread", "register/thread"), ("Achieved Occupancy", "%")]
print(f"\n### {sys.argv[1]}\n")
print("| side | kernel (grid x block) | " + " | ".join(r for r, _ in rows) +
      " | excess shared wavefronts |")
print("|---" * (len(rows) + 3) + "|")
for side, path in (("clsort", sys.argv[2]), ("CUB", sys.argv[3])):
    text = open(path).read()
    for block in re.split(r"\n  (?=\S)", text)[1:]:
        head = block.splitlines()[0]
        m = re.match(r"(?:void )?([A-Za-z_0-9]+).*?\((\d+), 1, 1\)x\((\d+), 1, 1\)", head)
        if not m:
            continue
        vals = []
        for name, unit in rows:
            v = re.search(rf"\n\s+{re.escape(name)}\s+{re.escape(unit)}\s+([\d,.]+)", block)
            if not v and name == "Duration":
                v = re.search(r"\n\s+Duration\s+us\s+([\d,.]+)", block)
                vals.append(f"{float(v.group(1).replace(',', '')) / 1000:.4f}" if v else "")
                continue
            if not v and name == "Memory Throughput":
                v = re.search(r"\n\s+Memory Throughput\s+%\s+([\d,.]+)", block)
            vals.append(v.group(1) if v else "")
        x = re.search(r"total of (\d+) excessive wavefronts \((\d+)%", block)
        print(f"| {side} | {m.group(1)[:40]} ({m.group(2)} x {m.group(3)}) | " + " | ".join(vals) +
              f" | {x.group(2) + '%' if x else ''} |")
PY
done
