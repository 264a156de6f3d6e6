#!/usr/bin/env bash
# On a GPU machine (repository root): build clsort and clsort-mpi, then time clsort-mpi with G ranks
# (one GPU each where the host has G GPUs; shared otherwise) on generated files, each output compared
# byte for byte with clsort's. Prints the --stats phases and the wall time of each run, clsort's own
# wall time on one GPU and the I/O floors (the input read to /dev/null, and copied to a new file),
# all in the same run.
#   RANKS ("1 2 4")  LOG2N (30)  INPUTS ("u32 zipf u64kv"; also u64kvzipf)  DIR (/tmp/mpi-gpu)
#   DEVICE_MERGE=1, HOST_MERGE=1: each G > 1 run again with --merge device, --merge host (the
#   default is auto: the pieces merged on each rank's threads where they lie in memory)
#   MERGES: the merges of each G > 1 run, in this order (e.g. "device auto device auto")
#   MPIRUN_ARGS: more mpirun options
#   MPI_OPTS: more clsort-mpi options (e.g. -S 100Gi where the system reports too little memory)
#   CLSORT_OPTS: more options of the clsort run on one GPU (e.g. -S 8Gi, as MPI_OPTS gives each rank)
#   VARIANTS: each run again with these, among io-mpi (--io mpi: MPI-IO in place of POSIX I/O),
#   local-stream (CLSORT_MPI_LOCAL=stream: the slice streamed from the file through the device),
#   messages (CLSORT_MPI_SHARED=0: the pieces sent as messages and the output written by pwrite()),
#   map (CLSORT_MPI_SHARED=map: the slices in memory files that the other ranks map), partition
#   (CLSORT_MPI_LOCAL=partition: the slices partitioned, not sorted, before the exchange)
#   one-gpu (each rank sees only its GPU: CUDA_VISIBLE_DEVICES set to its local rank) and
#   engine-runs (CLSORT_MPI_RUNS=0: a slice beyond -S sorted in runs by the engine and merged into
#   one sorted file, in place of runs that are each a piece of the merge)
#   STARTUP=1: first, mpirun's own start (`mpirun -n G true`) and clsort-mpi on 1024 keys, with
#   mpirun's defaults and with MPIRUN_LEAN (default: shared memory and self as the only transports)
#   REF_RUNS (2): runs of clsort on one GPU (the first may build the kernels for a cold cache)
#   SYNC=1: dirty pages written back (sync) before each timed command, outside its time: else the
#   writeback of one run's 16 GiB output slows the next
set -uo pipefail
RANKS=${RANKS:-"1 2 4"}; LOG2N=${LOG2N:-30}; INPUTS=${INPUTS:-"u32 zipf u64kv"}
D=${DIR:-/tmp/mpi-gpu}; mkdir -p "$D"
source tools/gpu-env.sh
source tools/gpu-mpi.sh
[ -f build-gpu/build.ninja ] ||
    meson setup build-gpu -Dcub_bench=disabled -Dtests=false -Dbench=false -Dmpi=enabled >/dev/null
ninja -C build-gpu cli/clsort cli/mpi/clsort-mpi >/dev/null ||
    { ninja -C build-gpu cli/clsort cli/mpi/clsort-mpi | tail -20; exit 1; }
C=build-gpu/cli/clsort
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
settle() { [ "${SYNC:-0}" != 1 ] || sync; }
if [ "${STARTUP:-0}" = 1 ]; then
  lean=${MPIRUN_LEAN:-"--mca pml ob1 --mca btl self,vader --mca mtl ^ofi,psm,psm2 --mca osc ^ucx"}
  $C gen -n 1024 -o "$D/tiny.bin" -f || exit 1
  for g in $RANKS; do
    for how in default lean; do
      args=(); [ $how = lean ] && read -ra args <<< "$lean"
      for r in 1 2 3; do
        t0=$(date +%s%N); mpirun --bind-to none --map-by slot "${args[@]}" -n "$g" true
        echo "[startup] G=$g mpirun $how: true $(ms $t0) ms"
        t0=$(date +%s%N)
        mpirun --bind-to none --map-by slot "${args[@]}" -n "$g" env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" \
          build-gpu/cli/mpi/clsort-mpi -i "$D/tiny.bin" -o "$D/tiny.out" --stats 2>&1 | grep "device open" |
          sed "s/^/[startup] G=$g mpirun $how: /"
        echo "[startup] G=$g mpirun $how: clsort-mpi on 1024 keys $(ms $t0) ms"
        rm -f "$D/tiny.out"
      done
    done
  done
  rm -f "$D/tiny.bin"
fi
n=$((1 << LOG2N))
for in in $INPUTS; do
  case $in in
    u32) opts=() gen=() rs=4 ;;
    zipf) opts=() gen=(--dist zipf:1.1) rs=4 ;;
    u64kv) opts=(-t u64 --value-size 8) gen=(-t u64 --value-size 8) rs=16 ;;
    u64kvzipf) opts=(-t u64 --value-size 8) gen=(-t u64 --value-size 8 --dist zipf:1.1) rs=16 ;;
    *) echo "unknown input $in"; exit 1 ;;
  esac
  tag="[$in 2^$LOG2N]"
  $C gen -n $n "${gen[@]}" -o "$D/$in.bin" -f || exit 1
  settle; t0=$(date +%s%N); cat "$D/$in.bin" > /dev/null; echo "$tag I/O floor (read: cat in > /dev/null) $(ms $t0) ms"
  settle; t0=$(date +%s%N); cat "$D/$in.bin" > "$D/floor.bin"; echo "$tag I/O floor (copy to a new file) $(ms $t0) ms"
  rm -f "$D/floor.bin"
  # shellcheck disable=SC2086
  for ((r = 1; r <= ${REF_RUNS:-2}; r++)); do
    rm -f "$D/ref.bin"
    settle; t0=$(date +%s%N); $C "${opts[@]}" ${CLSORT_OPTS:-} -i "$D/$in.bin" -o "$D/ref.bin" || exit 1
    echo "$tag clsort on one GPU (run $r): wall $(ms $t0) ms"
  done
  # clsort-mpi's own first run of a lease builds programs that clsort's did not (its device open took
  # 2.75 s against 0.5 s after): one untimed run on the input's first 2^20 records
  head -c $((rs << 20)) "$D/$in.bin" > "$D/warm.bin"
  mpirun --bind-to none --map-by slot ${MPIRUN_ARGS:-} -n 1 env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" \
    build-gpu/cli/mpi/clsort-mpi "${opts[@]}" -i "$D/warm.bin" -o "$D/warm.out" || exit 1
  rm -f "$D/warm.bin" "$D/warm.out"
  for g in $RANKS; do
    merges=(auto); [ "${DEVICE_MERGE:-0}" = 1 ] && [ "$g" -gt 1 ] && merges+=(device)
    [ "${HOST_MERGE:-0}" = 1 ] && [ "$g" -gt 1 ] && merges+=(host)
    [ -z "${MERGES:-}" ] || [ "$g" -eq 1 ] || read -ra merges <<< "$MERGES"
    for v in ${VARIANTS:-}; do merges+=("auto:$v"); done
    for mgv in "${merges[@]}"; do
      mg=${mgv%%:*}; var=${mgv#"$mg"}; var=${var#:}; vopts=(); venv=(); pre=()
      case $var in
        io-mpi) vopts=(--io mpi) ;;
        local-stream) venv=(CLSORT_MPI_LOCAL=stream) ;;
        messages) venv=(CLSORT_MPI_SHARED=0) ;;
        map) venv=(CLSORT_MPI_SHARED=map) ;;
        partition) venv=(CLSORT_MPI_LOCAL=partition) ;;
        engine-runs) venv=(CLSORT_MPI_RUNS=0) ;;
        # shellcheck disable=SC2016
        one-gpu) pre=(bash -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$@"' one-gpu) ;;
        "") ;;
        *) echo "unknown variant $var"; exit 1 ;;
      esac
      settle; t0=$(date +%s%N)
      # The ICD variable is passed on explicitly: one machine's mpirun handed ranks only its first
      # entry (PoCL), and they sorted on the CPU.
      # shellcheck disable=SC2086
      mpirun --bind-to none --map-by slot ${MPIRUN_ARGS:-} -n "$g" \
        env OCL_ICD_FILENAMES="${OCL_ICD_FILENAMES:-}" "${venv[@]}" "${pre[@]}" \
        build-gpu/cli/mpi/clsort-mpi "${opts[@]}" ${MPI_OPTS:-} "${vopts[@]}" --merge $mg \
        -i "$D/$in.bin" -o "$D/out.bin" --stats 2>&1 | sed "s/^/$tag G=$g $mgv /"
      wall=$(ms $t0)
      same=different; cmp -s "$D/out.bin" "$D/ref.bin" && same="same as clsort"
      echo "$tag G=$g merge $mg${var:+ ($var)}: wall $wall ms, output $same"
      rm -f "$D/out.bin"
    done
  done
  rm -f "$D/$in.bin" "$D/ref.bin"
done
