#!/usr/bin/env bash
# On a GPU machine (repository root): build clsort and clsort-mpi, then time clsort-mpi with G ranks
# (one GPU each where the host has G GPUs; shared otherwise) on generated files, each output compared
# byte for byte with clsort's. Prints the --stats phases and the wall time of each run.
#   RANKS ("1 2 4")  LOG2N (30)  INPUTS ("u32 zipf u64kv"; also u64kvzipf)  DIR (/tmp/mpi-gpu)
set -uo pipefail
RANKS=${RANKS:-"1 2 4"}; LOG2N=${LOG2N:-30}; INPUTS=${INPUTS:-"u32 zipf u64kv"}
D=${DIR:-/tmp/mpi-gpu}; mkdir -p "$D"
source tools/gpu-env.sh
source tools/gpu-mpi.sh
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcub_bench=disabled -Dmpi=enabled >/dev/null
ninja -C build-gpu >/dev/null || { ninja -C build-gpu | tail -20; exit 1; }
C=build-gpu/cli/clsort
nvidia-smi -L; build-gpu/bench/membw 4
n=$((1 << LOG2N))
for in in $INPUTS; do
  case $in in
    u32) opts=() gen=() ;;
    zipf) opts=() gen=(--dist zipf:1.1) ;;
    u64kv) opts=(-t u64 --value-size 8) gen=(-t u64 --value-size 8) ;;
    u64kvzipf) opts=(-t u64 --value-size 8) gen=(-t u64 --value-size 8 --dist zipf:1.1) ;;
    *) echo "unknown input $in"; exit 1 ;;
  esac
  $C gen -n $n "${gen[@]}" -o "$D/$in.bin" -f && $C "${opts[@]}" -i "$D/$in.bin" -o "$D/ref.bin" || exit 1
  for g in $RANKS; do
    t0=$(date +%s%N)
    # The ICD variable is passed on explicitly: one machine's mpirun handed ranks only its first
    # entry (PoCL), and they sorted on the CPU.
    mpirun --bind-to none --map-by slot -n "$g" env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" \
      build-gpu/cli/mpi/clsort-mpi "${opts[@]}" -i "$D/$in.bin" -o "$D/out.bin" --stats 2>&1 |
      sed "s/^/[$in 2^$LOG2N G=$g] /"
    t1=$(date +%s%N)
    same=different; cmp -s "$D/out.bin" "$D/ref.bin" && same="same as clsort"
    echo "[$in 2^$LOG2N G=$g] wall $(( (t1 - t0) / 1000000 )) ms, output $same"
  done
  rm -f "$D/$in.bin" "$D/ref.bin" "$D/out.bin"
done
