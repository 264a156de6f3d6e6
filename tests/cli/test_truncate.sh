#!/usr/bin/env bash
# An input file that changes size while clsort reads it. CLSORT_TEST_STOP_AFTER_READ=N makes clsort stop
# itself (SIGSTOP) once it has read N bytes of input; the test then really truncates (or extends) the
# file and lets clsort go on (SIGCONT). A file that ends early or grows is an I/O error (exit 3) whose
# message gives both sizes; no output is written (an existing one stays as it was), no temporary file is
# left, and the input is as the test left it. A file truncated once it has been read in full does not
# matter: its data is sorted.
. "$(dirname "$0")/lib.sh" "$@"

MIB=1048576
mkdir in out
"$CLSORT" gen -n 4M --seed 1 -o keys.orig || exit 2               # 16000000 bytes
"$CLSORT" gen -n 4M --seed 2 -o vals.orig || exit 2
"$CLSORT" gen -n 2M --seed 3 --kv -o pairs.orig || exit 2         # 16000000 bytes of 8-byte records
"$CLSORT" gen -n 1000 --seed 4 -o existing.orig || exit 2

# state PID: the process state letter from /proc (T: stopped), empty once it is gone
state() {
    sed -n 's/^.*) \([A-Za-z]\).*$/\1/p' "/proc/$1/stat" 2> /dev/null
}

# during_read NAME STOP_AT CHANGE ARGS...: run clsort ARGS with CLSORT_TEST_STOP_AFTER_READ=STOP_AT in the
# background (stdin from $DURING_STDIN, default /dev/null), wait (60 s at most) until it has stopped itself, run the shell command CHANGE, continue it
# and wait for it; sets $status, stderr in err.txt
during_read() {
    local name=$1 stop_at=$2 change=$3
    shift 3
    CLSORT_TEST_STOP_AFTER_READ=$stop_at "$CLSORT" "$@" 2> err.txt < "${DURING_STDIN:-/dev/null}" &
    local pid=$! i st
    for ((i = 0; i < 1200; i++)); do
        st=$(state $pid)
        [ "$st" = T ] || [ -z "$st" ] || [ "$st" = Z ] && break
        sleep 0.05
    done
    if [ "$st" = T ]; then
        ok "$name: clsort stopped during the read"
        eval "$change"
    else
        not_ok "$name: clsort did not stop during the read (state '$st')"
        [ "$st" = Z ] || [ -z "$st" ] || kill $pid
    fi
    kill -CONT $pid 2> /dev/null
    wait $pid
    status=$?
}

fresh() {
    rm -f in/* out/* out/.[!.]*
    cp keys.orig in/keys.bin
    cp vals.orig in/vals.bin
    cp pairs.orig in/pairs.bin
}

# Keys, truncated past the point read so far: the message gives the bytes there were and the size the
# file had when opened; a new output is not created.
fresh
during_read "keys truncated" $MIB "truncate -s 5000000 in/keys.bin" -i in/keys.bin -o out/sorted.bin
expect_status "keys truncated" 3
expect_message "keys truncated" \
    "clsort: in/keys.bin: input ended after 5000000 bytes, expected 16000000 (was the file truncated while being read?)"
expect_only out "keys truncated"
check "keys truncated: the input as it was left" cmp -s in/keys.bin <(head -c 5000000 keys.orig)

# Truncated to nothing, below what was already read; the existing output stays as it was.
fresh
cp existing.orig out/existing.bin
during_read "keys emptied" $MIB "truncate -s 0 in/keys.bin" -i in/keys.bin -o out/existing.bin
expect_status "keys emptied" 3
expect_message "keys emptied" "in/keys.bin: input ended after $MIB bytes, expected 16000000"
same_file "keys emptied: the existing output unchanged" out/existing.bin existing.orig
expect_only out "keys emptied" existing.bin
check "keys emptied: the input as it was left" test ! -s in/keys.bin

# Sorting in place: the input is also the output; it must not be replaced.
fresh
during_read "in place, truncated" $((3 * MIB)) "truncate -s 8000000 in/keys.bin" -i in/keys.bin -o in/keys.bin
expect_status "in place, truncated" 3
expect_message "in place, truncated" "in/keys.bin: input ended after 8000000 bytes, expected 16000000"
check "in place, truncated: the input as it was left" cmp -s in/keys.bin <(head -c 8000000 keys.orig)
expect_only in "in place, truncated" keys.bin vals.bin pairs.bin

# A file that grows while it is read (someone is still writing it) is refused as well.
fresh
during_read "keys grown" $MIB "printf 'abcd' >> in/keys.bin" -i in/keys.bin -o out/sorted.bin
expect_status "keys grown" 3
expect_message "keys grown" \
    "in/keys.bin: input grew while being read: it held 16000000 bytes when opened and has more now"
expect_only out "keys grown"
check "keys grown: the input as it was left" cmp -s in/keys.bin <(cat keys.orig; printf 'abcd')

# Records (--kv) are read a block at a time and split as they come: same checks.
fresh
during_read "records truncated" $MIB "truncate -s 6000000 in/pairs.bin" --kv -i in/pairs.bin -o out/sorted.bin
expect_status "records truncated" 3
expect_message "records truncated" "in/pairs.bin: input ended after 6000000 bytes, expected 16000000"
expect_only out "records truncated"
check "records truncated: the input as it was left" cmp -s in/pairs.bin <(head -c 6000000 pairs.orig)
fresh
during_read "records grown" $((15 * MIB)) "cat pairs.orig >> in/pairs.bin" --kv -i in/pairs.bin -o out/sorted.bin
expect_status "records grown" 3
expect_message "records grown" "in/pairs.bin: input grew while being read: it held 16000000 bytes"
expect_only out "records grown"

# A separate values file, truncated while it is read (keys and values are read side by side, a chunk
# of each at a time: stop 1 MiB into the keys, before the values are read); neither output is created.
fresh
during_read "values truncated" $MIB "truncate -s 2000000 in/vals.bin" \
    -i in/keys.bin -o out/k.bin --values in/vals.bin --values-out out/v.bin
expect_status "values truncated" 3
expect_message "values truncated" "in/vals.bin: input ended after 2000000 bytes, expected 16000000"
expect_only out "values truncated"
same_file "values truncated: the keys input untouched" in/keys.bin keys.orig
check "values truncated: the values input as it was left" cmp -s in/vals.bin <(head -c 2000000 vals.orig)

# Truncated exactly between two chunks (1 MiB chunks by CLSORT_STAGE_BYTES; stop once 2 MiB, two whole
# chunks, have been read): the next chunk finds the end.
fresh
CLSORT_STAGE_BYTES=$MIB during_read "truncated between chunks" $((2 * MIB)) \
    "truncate -s $((2 * MIB)) in/keys.bin" -i in/keys.bin -o out/sorted.bin
expect_status "truncated between chunks" 3
expect_message "truncated between chunks" "in/keys.bin: input ended after $((2 * MIB)) bytes, expected 16000000"
expect_only out "truncated between chunks"
check "truncated between chunks: the input as it was left" cmp -s in/keys.bin <(head -c $((2 * MIB)) keys.orig)

# stdin redirected from a regular file: read like a named file, reported as (stdin).
fresh
DURING_STDIN=in/keys.bin during_read "stdin truncated" $MIB "truncate -s 4000000 in/keys.bin" -o out/sorted.bin
expect_status "stdin truncated" 3
expect_message "stdin truncated" "(stdin): input ended after 4000000 bytes, expected 16000000"
expect_only out "stdin truncated"

# Truncated right after the last byte was read (it stops then, before anything else): clsort holds its
# own copy, so the sort goes on with the data as read. (The input used to be mapped, and this ended
# with SIGBUS and a temporary file left behind.)
fresh
during_read "truncated after the read" 16000000 "truncate -s 0 in/keys.bin" -i in/keys.bin -o out/sorted.bin
expect_status "truncated after the read" 0
check "truncated after the read: the data as read, sorted" $CHECK keys keys.orig out/sorted.bin
expect_only out "truncated after the read" sorted.bin
fresh
during_read "records truncated after the read" 16000000 "truncate -s 0 in/pairs.bin" \
    --kv -i in/pairs.bin -o out/sorted.bin
expect_status "records truncated after the read" 0
check "records truncated after the read: sorted" $CHECK kvset pairs.orig out/sorted.bin

# The hook set past the end of the input does nothing; a malformed value is ignored with a warning.
fresh
CLSORT_TEST_STOP_AFTER_READ=99999999999 run_clsort -i in/keys.bin -o out/sorted.bin
expect_status "hook past the end of the input" 0
CLSORT_TEST_STOP_AFTER_READ=12x run_clsort -i in/keys.bin -o out/sorted.bin
expect_status "malformed hook value" 0
expect_message "malformed hook value" "CLSORT_TEST_STOP_AFTER_READ='12x' is not a byte count: ignored"
check "hook: sorted as usual" $CHECK keys keys.orig out/sorted.bin
same_file "hook: the input untouched" in/keys.bin keys.orig

finish
