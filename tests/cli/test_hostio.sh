#!/usr/bin/env bash
# The host's side of a file-to-file sort: regular inputs read on several threads (4 or more: in
# pieces, across the 32 MiB piece), read whole while the device opens, outputs of known size reserved, mapped and
# filled on the host's threads (CLSORT_MAP_OUTPUT=1); every way the same bytes as the reference and as
# the plain way (one thread, write(), no read-ahead). No room for a mapped output: an error before the
# sort, exit 3, nothing left behind; an output longer than its input said (-u shorter) as before.
. "$(dirname "$0")/lib.sh" "$@"

N=9000001 # 36 MB of u32 keys: two pieces of the threaded read, many staging chunks
"$CLSORT" gen -n $N --seed 3 -o big.bin || exit 2
"$CLSORT" gen -n 300007 --seed 4 --kv -o kv.bin || exit 2
"$CLSORT" gen -n 300007 --dist few:40 --seed 5 --values-out vals.bin -o keys.bin || exit 2
"$CLSORT" gen -n 200003 --type u64 --seed 6 -o k64.bin || exit 2

check "reference: 36 MB of keys, plain way" env CLSORT_MAP_OUTPUT=0 CLSORT_READ_AHEAD=0 \
    "$CLSORT" --parallel=1 -i big.bin -o big.ref
check "reference: sorted" $CHECK keys big.bin big.ref
for par in 1 2 4; do
    for map in 0 1; do
        for ahead in 0 1; do
            how="--parallel=$par, CLSORT_MAP_OUTPUT=$map, CLSORT_READ_AHEAD=$ahead"
            rm -f big.out
            check "$how" env CLSORT_MAP_OUTPUT=$map CLSORT_READ_AHEAD=$ahead \
                "$CLSORT" --parallel=$par -i big.bin -o big.out
            check "$how: the same bytes" cmp big.out big.ref
        done
    done
done

# records, separate values, 64-bit keys, descending: against the reference (the map is taken where
# the whole input was read while the device opened and one output is written, which --stats says)
export CLSORT_READ_AHEAD=1
check "--stats: the output copied into a map" sh -c "CLSORT_MAP_OUTPUT=1 '$CLSORT' -i big.bin \
    -o big.map --stats 2>&1 | grep -q 'copied into a map of the output' && cmp big.map big.ref"
check "--stats, CLSORT_MAP_OUTPUT=0: written" sh -c "CLSORT_MAP_OUTPUT=0 '$CLSORT' -i big.bin \
    -o big.map --stats 2>&1 | grep -q '^  write  *[0-9.]* ms\$' && cmp big.map big.ref"
check "--stats-json: the map's threads" sh -c "CLSORT_MAP_OUTPUT=1 '$CLSORT' -i big.bin -o big.map \
    --stats-json s.json && $PYTHON -c \"import json,sys; sys.exit(json.load(open('s.json'))['write_mapped_threads'] < 1)\""

check "--kv, mapped" env CLSORT_MAP_OUTPUT=1 "$CLSORT" --kv -i kv.bin -o kv.out
check "--kv, mapped: stable" $CHECK kv kv.bin kv.out
check "--values, map asked (two outputs: written)" env CLSORT_MAP_OUTPUT=1 "$CLSORT" -i keys.bin -o keys.out \
    --values vals.bin --values-out vals.out
check "--values: both outputs" $CHECK separate keys.bin vals.bin keys.out vals.out
check "-r, mapped" env CLSORT_MAP_OUTPUT=1 "$CLSORT" -r -i big.bin -o big.desc
check "-r, mapped: descending" $CHECK keys big.bin big.desc desc
check "u64, written" env CLSORT_MAP_OUTPUT=0 "$CLSORT" --type u64 -i k64.bin -o k64.ref
check "u64, mapped" env CLSORT_MAP_OUTPUT=1 "$CLSORT" --type u64 -i k64.bin -o k64.out
check "u64, mapped: as written" cmp k64.out k64.ref

# records by a key field (the Sort Benchmark's 100-byte records): each sorted piece copied into the
# map (its pages made present meanwhile), as --stats says; against fields.py and the written way,
# with --index-out beside (written) and with -u (not mapped)
$PYTHON "$TESTS/fields.py" gen recs.in 50001 100 7 0 10 || exit 2
check "records, mapped" sh -c "CLSORT_MAP_OUTPUT=1 '$CLSORT' --record-size 100 --type bytes \
    --key-size 10 -i recs.in -o recs.out --stats 2>&1 | grep -q 'piece copied into a map of the output'"
check "records: the reference" $PYTHON "$TESTS/fields.py" check recs.in recs.out 100 0 bytes:10
check "records, written" env CLSORT_MAP_OUTPUT=0 "$CLSORT" --record-size 100 --type bytes \
    --key-size 10 -i recs.in -o recs.ref --index-out recs.idx.ref
check "records, mapped: as written" cmp recs.out recs.ref
check "records, mapped, --index-out" env CLSORT_MAP_OUTPUT=1 "$CLSORT" --record-size 100 \
    --type bytes --key-size 10 -i recs.in -o recs.out2 --index-out recs.idx
check "records, mapped, --index-out: as written" sh -c "cmp recs.out2 recs.ref && cmp recs.idx recs.idx.ref"
for ahead in 0 1; do
    check "records, CLSORT_READ_AHEAD=$ahead, --parallel=4" env CLSORT_READ_AHEAD=$ahead \
        CLSORT_MAP_OUTPUT=1 "$CLSORT" --parallel=4 --record-size 100 --type bytes --key-size 10 \
        -i recs.in -o recs.ra$ahead
    check "records, CLSORT_READ_AHEAD=$ahead: as written" cmp recs.ra$ahead recs.ref
    check "records, --top 1000, CLSORT_READ_AHEAD=$ahead" env CLSORT_READ_AHEAD=$ahead \
        "$CLSORT" --parallel=4 --record-size 100 --type bytes --key-size 10 --top 1000 \
        -i recs.in -o recs.top$ahead
    check "records, --top 1000, CLSORT_READ_AHEAD=$ahead: the first of the sort" sh -c \
        "head -c 100000 recs.ref | cmp - recs.top$ahead"
done
check "records, -u, map asked" env CLSORT_MAP_OUTPUT=1 "$CLSORT" --record-size 100 --type bytes \
    --key-size 10 -u -i recs.in -o recs.u
check "records, -u: as written" sh -c "CLSORT_MAP_OUTPUT=0 '$CLSORT' --record-size 100 --type bytes \
    --key-size 10 -u -i recs.in -o recs.u.ref && cmp recs.u recs.u.ref"

# -u writes fewer bytes than the input holds: not mapped, and the output as before
check "-u, mapped asked" env CLSORT_MAP_OUTPUT=1 "$CLSORT" -u -i keys.bin -o uniq.out
check "-u: as without" sh -c "CLSORT_MAP_OUTPUT=0 '$CLSORT' -u -i keys.bin -o uniq.ref && cmp uniq.out uniq.ref"

# a file replaced through the map keeps its mode; stdout is written, not mapped
cp big.bin repl.bin && chmod 640 repl.bin
check "the input replaced in place, mapped" env CLSORT_MAP_OUTPUT=1 "$CLSORT" -i repl.bin -o repl.bin
check "the input replaced: sorted" cmp repl.bin big.ref
check "the input replaced: its mode kept" test "$(stat -c %a repl.bin)" = 640
check "to stdout, mapped asked" sh -c "CLSORT_MAP_OUTPUT=1 '$CLSORT' -i big.bin > stdout.out && cmp stdout.out big.ref"

# no room for the mapped output (the file-size limit): refused before the sort, nothing left
mkdir -p room
run_clsort_limited() {
    (ulimit -f 4096 && CLSORT_MAP_OUTPUT=1 exec "$CLSORT" -i big.bin -o room/out.bin) 2>err.txt
    status=$?
}
run_clsort_limited
expect_status "no room for a mapped output" 3
expect_message "no room for a mapped output" "room/out.bin"
expect_message "no room for a mapped output: the bytes it needs" "no room for the output's 36000004 bytes"
expect_only room "no room for a mapped output"
(ulimit -f 4096 && CLSORT_MAP_OUTPUT=1 exec "$CLSORT" --record-size 100 --type bytes --key-size 10 \
    -i recs.in -o room/recs.out) 2>err.txt
status=$?
expect_status "no room for mapped records" 3
expect_message "no room for mapped records: the bytes they need" "no room for the output's 5000100 bytes"
expect_only room "no room for mapped records"

# a regular input cut short while it is read by the threads: an error, nothing left behind
cp big.bin cut.bin
mkdir -p cut
(CLSORT_TEST_STOP_AFTER_READ=1000000 CLSORT_READ_AHEAD=0 exec "$CLSORT" --parallel=4 -i cut.bin \
    -o cut/out.bin 2>err.txt) &
pid=$!
for _ in $(seq 200); do
    state=$(ps -o stat= -p $pid 2>/dev/null | cut -c1)
    [ "$state" = T ] && break
    sleep 0.05
done
truncate -s 1000000 cut.bin
kill -CONT $pid
wait $pid
status=$?
expect_status "an input cut short during the threaded read" 3
expect_message "an input cut short during the threaded read" "expected 36000004"
expect_only cut "an input cut short during the threaded read"

finish
