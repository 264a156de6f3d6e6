#!/usr/bin/env bash
# clsort-mpi on 1 to 4 ranks (sharing the default device) against clsort with the same options:
# the same bytes for key types and record layouts, on uniform, constant, few-unique and skewed
# keys, for sizes that P does not divide and for fewer records than ranks; each rank's share of
# skewed and constant keys close to n/P; a failure on one rank (an input that is not whole records,
# or a failure made on purpose with CLSORT_MPI_FAIL_RANK) ends every rank with the same status,
# one message, no output and no temporary file; the merge on several threads gives the same bytes;
# shares larger than -S sorted in runs in temporary files give them too.
# Arguments: CLSORT SCRATCH CLSORT_MPI; $MPIRUN is mpirun.
MPI_EXE=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
. "$(dirname "$0")/lib.sh" "$@"

MPIRUN=${MPIRUN:-mpirun}
# Open MPI refuses to start as root without these; the test may run in a container as root
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# two cores: no binding, more ranks than cores; a rank that fails does not end the others, so that
# each one's own exit status is seen
MPI_FLAGS=(--oversubscribe --bind-to none --mca orte_abort_on_non_zero_status 0)
N=19999 # not a multiple of 2, 3 or 4

# run_mpi P ARGS...: clsort-mpi on P ranks, stderr to err.txt; each rank's own exit status lands
# in rank-status.R, and $status is rank 0's (mpirun's when that is missing)
run_mpi() {
    local p=$1
    shift
    rm -f rank-status.*
    # Under AddressSanitizer, no leak check of the ranks: Open MPI leaves thousands of allocations
    # at MPI_Finalize from components it has unloaded by then, which no suppression can name;
    # memory errors and undefined behaviour still end the run
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$MPIRUN" "${MPI_FLAGS[@]}" -n "$p" bash -c \
        '"$0" "$@"; s=$?; echo $s > rank-status.$OMPI_COMM_WORLD_RANK; exit $s' \
        "$MPI_EXE" "$@" > out.txt 2> err.txt
    status=$?
    [ -f rank-status.0 ] && status=$(cat rank-status.0)
}

# every_rank NAME P WANT: every rank of the last run exited with WANT
every_rank() {
    local r bad=""
    for ((r = 0; r < $2; r++)); do
        [ "$(cat rank-status.$r 2> /dev/null)" = "$3" ] || bad="$bad $r"
    done
    if [ -z "$bad" ]; then ok "$1: every rank exits $3"; else not_ok "$1: ranks$bad did not exit $3"; fi
}

# layouts: name, gen options, sort options
layouts=("u32|-t u32|-t u32"
         "f64-desc|-t f64|-t f64 --desc"
         "u64-v8|-t u64 --value-size 8|-t u64 --value-size 8"
         "i32-kv|-t i32 --kv|-t i32 --kv")
dists=(uniform constant few:3 zipf:1.5)

# each rank count meets every layout, and each layout every distribution
for p in 1 2 3 4; do
    for li in 0 1 2 3; do
        IFS='|' read -r name gopts sopts <<< "${layouts[$li]}"
        dist=${dists[$(((li + p) % 4))]}
        in=$name.${dist%%:*}.bin
        [ -f "$in" ] || "$CLSORT" gen -n $N --dist "$dist" --seed $((li + 7)) $gopts -o "$in" || exit 2
        [ -f "$in.ref" ] || "$CLSORT" $sopts -i "$in" -o "$in.ref" 2> err.txt ||
            { not_ok "clsort $sopts -i $in"; continue; }
        # shellcheck disable=SC2086
        run_mpi $p $sopts -i "$in" -o out.$p.bin --stats
        expect_status "$p ranks, $name, $dist" 0
        same_file "$p ranks, $name, $dist: as clsort sorts it" out.$p.bin "$in.ref"
        cp err.txt stats.txt # check() writes err.txt
        # the default merge: on two ranks on the rank's threads, from where the pieces lie; on
        # more, the device's sort of the pieces (a rank that received one piece, as one rank
        # always does, has nothing to merge)
        where="merged on [0-9]* threads\?"
        [ $p -le 2 ] || where="merged on the device"
        [ $status -ne 0 ] || check "$p ranks, $name, $dist: ${where%%\\*}" \
            test "$(grep -c "records out .*\($where\|one piece, no merge\)" stats.txt)" -eq $p
        [ $status -ne 0 ] || check "$p ranks, $name, $dist: slices sorted, not partitioned" \
            test "$(grep -c "partitioned" stats.txt)" -eq 0
        # one host: the output mapped; with more ranks, no messages of records
        [ $status -ne 0 ] || check "$p ranks, $name, $dist: output mapped" grep -q "output mapped" stats.txt
        [ $status -ne 0 ] || [ $p -eq 1 ] || check "$p ranks, $name, $dist: no messages" \
            grep -q "pieces read from the senders' memory" stats.txt
        if [ $p -gt 1 ] && [ "$dist" != uniform ] && [ $status -eq 0 ]; then
            # the largest share against n/P (a little over from the sample's resolution)
            max=$(sed -n 's/^ *rank [0-9]*: \([0-9]*\) records out.*/\1/p' stats.txt | sort -n | tail -1)
            limit=$((N * 105 / 100 / p + p))
            check "$p ranks, $name, $dist: largest share ${max:-?} <= $limit" test "${max:-999999999}" -le $limit
        fi
        rm -f out.$p.bin stats.txt
    done
done

# CLSORT_MPI_LOCAL=partition: the slices partitioned, not sorted, by splitters from a random sample
# of them, and each rank's received records sorted once: the same bytes, shares within 5%
for p in 2 4; do
    for li in 1 2; do
        IFS='|' read -r name gopts sopts <<< "${layouts[$li]}"
        for dist in constant zipf:1.5 uniform; do
            in=$name.${dist%%:*}.bin
            # shellcheck disable=SC2086
            [ -f "$in" ] || "$CLSORT" gen -n $N --dist "$dist" --seed $((li + 7)) $gopts -o "$in" || exit 2
            # shellcheck disable=SC2086
            [ -f "$in.ref" ] || "$CLSORT" $sopts -i "$in" -o "$in.ref" 2> err.txt ||
                { not_ok "clsort $sopts -i $in"; continue; }
            what="$p ranks, $name, $dist, CLSORT_MPI_LOCAL=partition"
            # shellcheck disable=SC2086
            CLSORT_MPI_LOCAL=partition run_mpi $p $sopts -i "$in" -o out.r.bin --stats
            expect_status "$what" 0
            cp err.txt stats.txt
            same_file "$what: as clsort sorts it" out.r.bin "$in.ref"
            check "$what: slices partitioned" grep -q "slices partitioned" stats.txt
            max=$(sed -n 's/^ *rank [0-9]*: \([0-9]*\) records out.*/\1/p' stats.txt | sort -n | tail -1)
            check "$what: largest share ${max:-?} <= $((N * 105 / 100 / p + p))" \
                test "${max:-999999999}" -le $((N * 105 / 100 / p + p))
            rm -f out.r.bin stats.txt
        done
    done
done

# a device that cannot be opened (it opens while the slice is read): every rank exits 2 with one
# message naming the device, the old output kept, nothing left behind
printf 'old' > kept.out
run_mpi 2 -d 0:7 -i u32.uniform.bin -o kept.out
expect_status "2 ranks, -d 0:7" 2
every_rank "2 ranks, -d 0:7" 2 2
expect_message "2 ranks, -d 0:7" "cannot open device 0:7"
check "2 ranks, -d 0:7: one message" test "$(grep -c '^clsort-mpi:' err.txt)" -eq 1
check "2 ranks, -d 0:7: the old output kept" test "$(cat kept.out)" = old
check "2 ranks, -d 0:7: no temporary output" test -z "$(ls -A | grep clsort-mpi)"
rm -f kept.out

# fewer records than ranks, and none
"$CLSORT" gen -n 2 -t i32 --kv -o two.bin
for n in 0 1 2; do
    head -c $((n * 8)) two.bin > small.bin
    "$CLSORT" -t i32 --kv -i small.bin -o small.ref
    run_mpi 4 -t i32 --kv -i small.bin -o small.out
    expect_status "4 ranks, $n records" 0
    same_file "4 ranks, $n records: sorted" small.out small.ref
done

# a bit range, and the exchange in messages of at most 1000 bytes (the path of pieces past 1 GiB)
"$CLSORT" gen -n $N --dist few:40 -t u64 --kv -o bits.bin
"$CLSORT" -t u64 --kv --bits 8:40 -r -i bits.bin -o bits.ref
# (the file I/O by MPI-IO in pieces too, --io mpi; the default on one host is POSIX on threads)
CLSORT_MPI_PIECE_BYTES=1000 run_mpi 3 -t u64 --kv --bits 8:40 -r --io mpi -i bits.bin -o bits.out --stats
expect_status "3 ranks, --bits 8:40 -r, pieces of 1000 bytes, --io mpi" 0
cp err.txt stats.txt # check() writes err.txt
same_file "3 ranks, --bits 8:40 -r, pieces of 1000 bytes, --io mpi: as clsort sorts it" bits.out bits.ref
check "--io mpi: the report says MPI-IO" grep -q "keys), MPI-IO I/O" stats.txt
rm -f bits.out
CLSORT_MPI_PIECE_BYTES=1000 run_mpi 3 -t u64 --kv --bits 8:40 -r -i bits.bin -o bits.out --stats --parallel 3
expect_status "3 ranks, --bits 8:40 -r, POSIX I/O on 3 threads" 0
cp err.txt stats.txt
same_file "3 ranks, --bits 8:40 -r, POSIX I/O on 3 threads: as clsort sorts it" bits.out bits.ref
check "one host: the report says POSIX" grep -q "keys), POSIX I/O" stats.txt
# a slice within the budget is read, then sorted in memory; CLSORT_MPI_LOCAL=stream streams it
# from the input through the device into memory (read and local sort in one): the same bytes
check "3 ranks: no slice streamed by default" test "$(grep -c "streamed" stats.txt)" -eq 0
rm -f bits.out
CLSORT_MPI_LOCAL=stream run_mpi 3 -t u64 --kv --bits 8:40 -r -i bits.bin -o bits.out --stats
expect_status "3 ranks, CLSORT_MPI_LOCAL=stream" 0
cp err.txt stats.txt
same_file "3 ranks, CLSORT_MPI_LOCAL=stream: as clsort sorts it" bits.out bits.ref
check "CLSORT_MPI_LOCAL=stream: every slice streamed through the device" \
    test "$(grep -c "slice streamed from the input through the device" stats.txt)" -eq 3
# CLSORT_MPI_SHARED=0: the pieces sent as messages and the output written by pwrite(), the same bytes
for p in 2 4; do
    rm -f bits.out
    CLSORT_MPI_SHARED=0 run_mpi $p -t u64 --kv --bits 8:40 -r -i bits.bin -o bits.out --stats
    expect_status "$p ranks, CLSORT_MPI_SHARED=0" 0
    cp err.txt stats.txt
    same_file "$p ranks, CLSORT_MPI_SHARED=0: as clsort sorts it" bits.out bits.ref
    check "$p ranks, CLSORT_MPI_SHARED=0: messages, pwrite()" \
        test "$(grep -c "shared memory\|output mapped" stats.txt)" -eq 0
done
# CLSORT_MPI_SHARED=map: the slices in memory files that the other ranks map, the same bytes
for p in 2 3; do
    rm -f bits.out
    CLSORT_MPI_SHARED=map run_mpi $p -t u64 --kv --bits 8:40 -r -i bits.bin -o bits.out --stats
    expect_status "$p ranks, CLSORT_MPI_SHARED=map" 0
    cp err.txt stats.txt
    same_file "$p ranks, CLSORT_MPI_SHARED=map: as clsort sorts it" bits.out bits.ref
    check "$p ranks, CLSORT_MPI_SHARED=map: memory files mapped" \
        grep -q "pieces read from the senders' memory files, output mapped" stats.txt
done
CLSORT_MPI_SHARED=2 run_mpi 2 -i bits.bin -o x
expect_status "CLSORT_MPI_SHARED=2" 1
expect_message "CLSORT_MPI_SHARED=2" "CLSORT_MPI_SHARED='2': expected 0, 1 or map"
CLSORT_MPI_LOCAL=mmap run_mpi 2 -i bits.bin -o x
expect_status "CLSORT_MPI_LOCAL=mmap" 1
expect_message "CLSORT_MPI_LOCAL=mmap" "CLSORT_MPI_LOCAL='mmap': expected partition, read or stream"
rm -f stats.txt

# the merge on several threads (--merge host: the engine's runs merged on the host's threads; runs
# of 1000 records, CLSORT_CHUNK_KEYS, so that 5001 records make several): its parts are cut inside
# runs of equal keys (few distinct keys, more threads than cores), for key types, values and
# --desc; the same bytes as clsort
merges=("3|7|-t u32|-t u32|few:2"
        "2|16|-t f32|-t f32 --desc|few:5"
        "3|4|-t i64 --kv|-t i64 --kv|few:4"
        "4|6|-t u64 --value-size 8|-t u64 --value-size 8 -r|few:3"
        "2|3|-t f64 --value-size 4|-t f64 --value-size 4 -r|zipf:1.5")
for m in "${merges[@]}"; do
    IFS='|' read -r p t gopts sopts dist <<< "$m"
    what="$p ranks, --parallel $t, $sopts, $dist"
    # shellcheck disable=SC2086
    "$CLSORT" gen -n 5001 --dist "$dist" --seed $t $gopts -o mt.bin || exit 2
    # shellcheck disable=SC2086
    "$CLSORT" $sopts -i mt.bin -o mt.ref 2> err.txt || { not_ok "clsort $sopts -i mt.bin"; continue; }
    # shellcheck disable=SC2086
    CLSORT_CHUNK_KEYS=1000 run_mpi $p $sopts --merge host --parallel $t -i mt.bin -o mt.out --stats
    expect_status "$what" 0
    same_file "$what: as clsort sorts it" mt.out mt.ref
    check "$what: merged on $t threads" test "$(grep -c "merged on $t threads" err.txt)" -eq $p
    # the pieces merged on the rank's threads where they lie (the default on two ranks), in
    # segments of 7 records (CLSORT_MPI_MERGE_SEGMENT), so that runs of equal keys are cut between
    # threads
    for how in "" "--merge pieces"; do
        [ -n "$how" ] || [ "$p" -le 2 ] || continue
        for sh in 1 0; do
            # shellcheck disable=SC2086
            CLSORT_MPI_SHARED=$sh CLSORT_MPI_MERGE_SEGMENT=7 \
                run_mpi $p $sopts $how --parallel $t -i mt.bin -o mt.out --stats
            expect_status "$what ${how:-(default)}, CLSORT_MPI_SHARED=$sh" 0
            same_file "$what ${how:-(default)}, CLSORT_MPI_SHARED=$sh: as clsort sorts it" mt.out mt.ref
            check "$what ${how:-(default)}, CLSORT_MPI_SHARED=$sh: merged on $t threads" \
                test "$(grep -c "merged on $t threads" err.txt)" -eq $p
        done
    done
    # a stable sort of the pieces on the device
    # shellcheck disable=SC2086
    run_mpi $p $sopts --merge device -i mt.bin -o mt.out --stats
    expect_status "$p ranks, $sopts, $dist, merged on the device" 0
    same_file "$p ranks, $sopts, $dist, merged on the device: as clsort sorts it" mt.out mt.ref
    check "$p ranks, $sopts, $dist: every rank merged on the device" \
        test "$(grep -c "merged on the device" err.txt)" -eq $p
    # the engine's runs merged on the device
    # shellcheck disable=SC2086
    CLSORT_CHUNK_KEYS=1000 run_mpi $p $sopts --merge device -i mt.bin -o mt.out --stats
    expect_status "$p ranks, $sopts, $dist, runs merged on the device" 0
    same_file "$p ranks, $sopts, $dist, runs merged on the device: as clsort sorts it" mt.out mt.ref
    check "$p ranks, $sopts, $dist: every rank merged its runs on the device" \
        test "$(grep -c "merged on the device" err.txt)" -eq $p
done
rm -f mt.bin mt.ref mt.out
# 9 pieces, a merge tree four levels deep (one side of the root deeper than the other), 9 ranks,
# segments of 500 records
# (segments of a few records hold fewer pieces), keys that repeat across every rank
"$CLSORT" gen -n 20011 --dist few:50 --seed 9 -t i64 --kv -o mt.bin || exit 2
"$CLSORT" -t i64 --kv -r -i mt.bin -o mt.ref 2> err.txt || not_ok "clsort -t i64 --kv -r -i mt.bin"
for sh in 1 0; do
    CLSORT_MPI_SHARED=$sh CLSORT_MPI_MERGE_SEGMENT=500 \
        run_mpi 9 -t i64 --kv -r --merge pieces --parallel 3 -i mt.bin -o mt.out --stats
    expect_status "9 ranks, CLSORT_MPI_SHARED=$sh" 0
    same_file "9 ranks, CLSORT_MPI_SHARED=$sh: as clsort sorts it" mt.out mt.ref
    check "9 ranks, CLSORT_MPI_SHARED=$sh: merged on 3 threads" \
        test "$(grep -c "merged on 3 threads" err.txt)" -eq 9
done
rm -f mt.bin mt.ref mt.out

# shares larger than -S: sorted in runs in temporary files (-T), merged from the stretches of the
# senders' sorted files that each rank maps where they lie (or, with CLSORT_MPI_SHARED=0, sent as
# messages into a file of the received part). A rank sorts a few runs itself, each a piece of every
# rank's merge (runs.c); CLSORT_MPI_RUNS=0 leaves them to the engine, which merges them into one
# sorted slice first.
# -S far too small names the least every rank takes for its data (what the OpenCL driver and MPI
# hold is not counted, as with clsort); a few MiB more is a data budget below each rank's share.
mkdir runs
run_mpi 2 -i two.bin -o small.out -S 1Mi
expect_status "-S 1Mi" 1
expect_message "-S 1Mi" "is too small"
# least_mpi P ARGS...: the least -S clsort-mpi names on P ranks for ARGS, asked twice (the first ask
# builds and caches the programs those options take, and holds the compiler's memory then); what a
# rank holds differs between ranks and with the options, so each case asks for its own
least_mpi() {
    local p=$1
    shift
    run_mpi "$p" "$@" -S 1Mi -o small.out
    run_mpi "$p" "$@" -S 1Mi -o small.out
    least_mi err.txt
}
# P, records a rank, gen options, sort options, distribution, whether every rank's runs go to
# files (the first: slices sorted in runs that may fit memory). A rank sorts in runs where its
# slice's sort takes more than the budget: keys alone are sorted in place (R bytes a record), records
# take 2R + 32. 4000000 u32 keys take 15 MiB, well above the 7 MiB the least -S + 3 gives
exts=("2|4000000|-t u32|-t u32 -r|few:2|0"
      "1|4000000|-t u32|-t u32|uniform|1"
      "2|2000000|-t f64|-t f64 --desc|few:3|1"
      "3|400000|-t u64 --value-size 8|-t u64 --value-size 8|constant|1"
      "4|500000|-t i32 --kv|-t i32 --kv -r|zipf:1.5|1")
for e in "${exts[@]}"; do
    IFS='|' read -r p n gopts sopts dist spill <<< "$e"
    # shellcheck disable=SC2086
    "$CLSORT" gen -n $((p * n + 1)) --dist "$dist" --seed $p $gopts -o ext.bin || exit 2
    # shellcheck disable=SC2086
    least=$(least_mpi $p $sopts -T runs -i ext.bin)
    S=$((${least:-100} + 3))Mi
    what="$p ranks, -S $S, $sopts, $dist"
    # shellcheck disable=SC2086
    "$CLSORT" $sopts -i ext.bin -o ext.ref 2> err.txt || { not_ok "clsort $sopts -i ext.bin"; continue; }
    # the exchange in pieces of 100000 bytes too
    # shellcheck disable=SC2086
    CLSORT_MPI_PIECE_BYTES=$((p == 3 ? 100000 : 1 << 30)) \
        run_mpi $p $sopts -S "$S" -T runs -i ext.bin -o ext.out --stats
    expect_status "$what" 0
    same_file "$what: as clsort sorts it" ext.out ext.ref
    sorted=$(grep -c 'slice sorted in runs ([0-9]*, each a piece)' err.txt)
    files=$(grep -c 'runs in temporary files' err.txt)
    mapped=$(grep -c "pieces read from the senders' sorted files" err.txt)
    threads=$(grep -c "merged on [0-9]* threads\?" err.txt)
    check "$what: every rank's slice sorted in runs, each a piece" test "$sorted" -eq $p
    [ "$spill" = 0 ] || check "$what: every rank's runs in files" test "$files" -eq $p
    check "$what: the pieces read from the senders' sorted files" test "$mapped" -eq 1
    check "$what: the pieces merged on the ranks' threads" test "$threads" -eq $p
    expect_only runs "$what" # nameless files only
    # the engine's sort in runs into one sorted slice, a piece a rank
    # shellcheck disable=SC2086
    CLSORT_MPI_RUNS=0 run_mpi $p $sopts -S "$S" -T runs -i ext.bin -o ext.out --stats
    expect_status "$what, CLSORT_MPI_RUNS=0" 0
    same_file "$what, CLSORT_MPI_RUNS=0: as clsort sorts it" ext.out ext.ref
    sorted=$(grep -c 'slice sorted in runs$\|slice sorted in runs,' err.txt)
    threads=$(grep -c "merged on [0-9]* threads\?\|one piece, no merge" err.txt)
    check "$what, CLSORT_MPI_RUNS=0: every slice sorted by the engine" test "$sorted" -eq $p
    check "$what, CLSORT_MPI_RUNS=0: the pieces merged on the threads" test "$threads" -eq $p
    expect_only runs "$what, CLSORT_MPI_RUNS=0"
    [ "$p" = 2 ] || continue
    # shellcheck disable=SC2086
    CLSORT_MPI_SHARED=0 run_mpi $p $sopts -S "$S" -T runs -i ext.bin -o ext.out --stats
    expect_status "$what, CLSORT_MPI_SHARED=0" 0
    received=$(grep -c 'received part in a file' err.txt)
    device=$(grep -c 'merged on the device' err.txt)
    same_file "$what, CLSORT_MPI_SHARED=0: as clsort sorts it" ext.out ext.ref
    check "$what, CLSORT_MPI_SHARED=0: every rank's received part in a file" \
        test "$received" -eq $p
    check "$what, CLSORT_MPI_SHARED=0: the part in a file merged by the device's sort" \
        test "$device" -eq $p
    expect_only runs "$what, CLSORT_MPI_SHARED=0"
done
# --merge host beyond the budget: the received pieces sorted by the engine in runs that it merges
# on the host's threads (each rank receives more than one run of them)
"$CLSORT" gen -n 3000001 --dist few:5 --seed 5 -t u32 -o exth.bin || exit 2
least=$(least_mpi 2 -t u32 --merge host -T runs -i exth.bin)
S=$((${least:-100} + 3))Mi
what="2 ranks, -S $S, --merge host --parallel 3"
"$CLSORT" -t u32 -i exth.bin -o exth.ref 2> err.txt || not_ok "clsort -t u32 -i exth.bin"
run_mpi 2 -t u32 --merge host --parallel 3 -S "$S" -T runs -i exth.bin -o exth.out --stats
expect_status "$what" 0
same_file "$what: as clsort sorts it" exth.out exth.ref
cp err.txt stats.txt # check() writes err.txt
check "$what: every rank merged on 3 threads" test "$(grep -c 'merged on 3 threads' stats.txt)" -eq 2
check "$what: the pieces read from the senders' sorted files" \
    grep -q "pieces read from the senders' sorted files" stats.txt
expect_only runs "$what"
rm -f exth.bin exth.ref exth.out stats.txt
# a failure with runs: a missing -T directory, and a rank that fails at the write (its merge
# streams into the output): every rank stops, the old output stays, nothing is left behind
cp two.bin kept.bin
least=$(least_mpi 2 -t i32 --kv -T runs -i ext.bin)
S=$((${least:-100} + 3))Mi
run_mpi 2 -t i32 --kv -S "$S" -T runs/missing -i ext.bin -o kept.bin
expect_status "-T a missing directory" 3
every_rank "-T a missing directory" 2 3
expect_message "-T a missing directory" "cannot create a temporary file in runs/missing"
same_file "-T a missing directory: the old output kept" kept.bin two.bin
least=$(least_mpi 3 -t i32 --kv -T runs -i ext.bin)
S=$((${least:-100} + 3))Mi
CLSORT_MPI_FAIL_RANK=1:write run_mpi 3 -t i32 --kv -S "$S" -T runs -i ext.bin -o kept.bin
expect_status "runs, rank 1 fails at write" 3
every_rank "runs, rank 1 fails at write" 3 3
expect_message "runs, rank 1 fails at write" "rank 1 of 3: write failed on purpose"
same_file "runs, rank 1 fails at write: the old output kept" kept.bin two.bin
expect_only runs "runs, rank 1 fails at write"
check "runs, rank 1 fails at write: no temporary output" test -z "$(ls -A | grep clsort-mpi)"
rm -f ext.bin kept.bin

# failures: every rank exits with the same status, one message, nothing left behind
mkdir fail && head -c 10 two.bin > fail/odd.bin
run_mpi 3 -t u64 -i fail/odd.bin -o fail/out.bin
expect_status "input not whole records" 1
every_rank "input not whole records" 3 1
expect_message "input not whole records" "fail/odd.bin: 10 bytes is not a multiple of the 8-byte key size (u64 keys)"
expect_only fail "input not whole records" odd.bin
run_mpi 2 -i fail/missing.bin -o fail/out.bin
expect_status "missing input" 1
expect_message "missing input" "fail/missing.bin: cannot open: No such file or directory"
# names in messages are shown as clsort shows them: control characters as \xNN, UTF-8 as it is
run_mpi 2 -i "fail/bad$(printf '\033]0;x\007')é.bin" -o fail/out.bin
expect_status "a crafted input name" 1
expect_message "a crafted input name" 'fail/bad\x1b]0;x\x07é.bin: cannot open: No such file'
check "a crafted input name: no control character reaches stderr" \
    test "$(tr -d '\n' < err.txt | LC_ALL=C grep -c '[[:cntrl:]]')" -eq 0
# an input larger than the output's file system has room for is refused before anything is read
# or allocated (a sparse file of 8 TiB; a -T too small for a share: test_mpi_commit.sh)
if truncate -s 8T fail/huge.bin 2> /dev/null; then
    run_mpi 2 -i fail/huge.bin -o fail/out.bin -T fail
    expect_status "a share larger than the disk" 3
    every_rank "a share larger than the disk" 2 3
    expect_message "a share larger than the disk" "fail/out.bin: no room for the output's 8796093022208 bytes"
    expect_message "a share larger than the disk" "(No space left on device)"
    rm -f fail/huge.bin
    expect_only fail "a share larger than the disk" odd.bin
fi
cp two.bin fail/in.bin
cp bits.bin fail/kept.bin
for phase in sort write; do
    CLSORT_MPI_FAIL_RANK=1:$phase run_mpi 3 -t u64 --kv --bits 8:40 -r -i bits.bin -o fail/kept.bin
    expect_status "rank 1 fails at $phase" 3
    every_rank "rank 1 fails at $phase" 3 3
    expect_message "rank 1 fails at $phase" "rank 1 of 3: $phase failed on purpose"
    check "rank 1 fails at $phase: one message" test "$(grep -c '^clsort-mpi:' err.txt)" -eq 1
    same_file "rank 1 fails at $phase: the old output kept" fail/kept.bin bits.bin
    expect_only fail "rank 1 fails at $phase" odd.bin in.bin kept.bin
done

# usage errors: one message, before any work
run_mpi 2 -i two.bin
expect_status "no -o" 1
expect_message "no -o" "-o OUTPUT is missing"
check "no -o: one message" test "$(grep -c '^clsort-mpi:' err.txt)" -eq 1
run_mpi 2 -i two.bin -o x --bits 0:40
expect_status "--bits past the key" 1
expect_message "--bits past the key" "--bits 0:40 is not a bit range of u32 keys"
run_mpi 1 --value-size 3 -i two.bin -o x
expect_status "--value-size 3" 1
expect_message "--value-size 3" "3 is not a value size (0, 4 or 8 bytes)"
run_mpi 2 --parallel 0 -i two.bin -o x
expect_status "--parallel 0" 1
expect_message "--parallel 0" "--parallel 0: expected 1 to 256 threads"
run_mpi 2 --merge gpu -i two.bin -o x
expect_status "--merge gpu" 1
expect_message "--merge gpu" "--merge gpu: expected auto, pieces, device or host"
CLSORT_MPI_RUNS=-1 run_mpi 2 -i two.bin -o x
expect_status "CLSORT_MPI_RUNS=-1" 1
expect_message "CLSORT_MPI_RUNS=-1" "CLSORT_MPI_RUNS='-1': expected the most runs a rank sorts itself"
CLSORT_MPI_MERGE_SEGMENT=0x10 run_mpi 2 -i two.bin -o x
expect_status "CLSORT_MPI_MERGE_SEGMENT=0x10" 1
expect_message "CLSORT_MPI_MERGE_SEGMENT=0x10" "CLSORT_MPI_MERGE_SEGMENT='0x10': expected a number of records"
run_mpi 2 --io stdio -i two.bin -o x
expect_status "--io stdio" 1
expect_message "--io stdio" "--io stdio: expected auto, posix or mpi"
check "usage errors: no output" test ! -e x

finish
