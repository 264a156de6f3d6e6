#!/usr/bin/env bash
# Odd-even's size limit (65536 keys per array or segment) applies to the keys sorted, whatever the
# input is: a pipe or an empty file of fewer keys is sorted (the staging buffers' capacity is not the
# input's size), and a pipe of more is refused with the library's words once it has read past the
# limit, nothing written.
. "$(dirname "$0")/lib.sh" "$@"

case " $(algorithms) " in *" oddeven "*) ;; *) echo "oddeven not built"; exit 77 ;; esac

"$CLSORT" gen -n 70000 --seed 5 -o k70.bin || exit 2
head -c 8 k70.bin > k2.bin
head -c 120000 k70.bin > k30k.bin
head -c 262144 k70.bin > k64k.bin # 65536 keys: the limit itself
head -c 262148 k70.bin > k64k1.bin # one more
: > empty.bin

# fewer keys than the limit, through a pipe: sorted
for f in k2.bin k64k.bin; do
    cat $f | "$CLSORT" --algo oddeven > $f.out 2>err.txt
    status=$?
    expect_status "pipe of $f" 0
    check "pipe of $f: sorted" $CHECK keys $f $f.out
done
# with records and values (8-byte records: the limit counts records)
"$CLSORT" gen -n 1000 --kv --seed 6 -o kv.bin || exit 2
cat kv.bin | "$CLSORT" --algo oddeven --kv > kv.out 2>err.txt
status=$?
expect_status "pipe of 1000 records --kv" 0
check "pipe of 1000 records --kv: sorted, values with their keys" $CHECK kvset kv.bin kv.out
# runs smaller than the input, merged (the limit is the input's, not a run's)
cat k30k.bin | CLSORT_CHUNK_KEYS=10000 "$CLSORT" --algo oddeven > runs.out 2>err.txt
status=$?
expect_status "pipe of 30000 keys in runs of 10000" 0
check "pipe of 30000 keys in runs of 10000: sorted" $CHECK keys k30k.bin runs.out

# an empty file, and an empty pipe: an empty output
run_clsort --algo oddeven -i empty.bin -o empty.out
expect_status "empty file" 0
check "empty file: empty output" test -f empty.out -a ! -s empty.out
"$CLSORT" --algo oddeven < /dev/null > empty-pipe.out 2>err.txt
status=$?
expect_status "empty pipe" 0
check "empty pipe: empty output" test ! -s empty-pipe.out

# more keys than the limit through a pipe: refused with the library's message, nothing written
for f in k64k1.bin k70.bin; do
    for env in "" CLSORT_CHUNK_KEYS=10000; do
        rm -f refused.out
        cat $f | env $env "$CLSORT" --algo oddeven -o refused.out 2>err.txt
        status=$?
        expect_status "pipe of $f $env" 1
        expect_message "pipe of $f $env" \
            "oddeven sorts at most 65536 keys per array or segment (its cost grows as n^2); the input has more than 65536"
        check "pipe of $f $env: nothing written" test ! -e refused.out
    done
done
cat k70.bin | "$CLSORT" --algo oddeven --segment 70000 > /dev/null 2>err.txt
status=$?
expect_status "pipe, a segment over the limit" 1
expect_message "pipe, a segment over the limit" "a segment has more than 65536"
# ... and accepted where asked for, or in segments under the limit
cat k64k1.bin | "$CLSORT" --algo oddeven -f > forced.out 2>err.txt
status=$?
expect_status "pipe of 65537 keys, -f" 0
check "pipe of 65537 keys, -f: sorted" $CHECK keys k64k1.bin forced.out
cat k70.bin | "$CLSORT" --algo oddeven --segment 1000 > seg.out 2>err.txt
status=$?
expect_status "pipe of 70000 keys in segments of 1000" 0
check "pipe of 70000 keys in segments of 1000: sorted" $CHECK tsort k70.bin seg.out --segment 1000 --unstable
# a file over the limit: refused before reading (the tool knows its size), as before
run_clsort --algo oddeven -i k70.bin -o refused.out
expect_status "file of 70000 keys" 1
expect_message "file of 70000 keys" "the input has 70000"

finish
