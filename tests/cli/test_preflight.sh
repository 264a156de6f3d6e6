#!/usr/bin/env bash
# What clsort checks before it reads any input: every output (opened, writable, not a directory, not
# the same as another output by any name), that no output names an input (the keys, the values, the
# offsets of --segments), and the size limits it can see; a FIFO input is not waited for before.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" gen -n 1000 --seed 1 -o keys.bin || exit 2
"$CLSORT" gen -n 1000 --seed 2 -o vals.bin || exit 2

# fed NAME ARGS...: run clsort ARGS with stdin a pipe from a writer that offers 64 MiB; sets $status and
# $sent (the bytes the writer got into the pipe before clsort ended: a pipe holds at most 1 MiB, so
# anything less than the whole means clsort stopped without reading).
fed() {
    local out
    out=$($PYTHON - "$CLSORT" "$@" <<'PY'
import subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stderr=open('err.txt', 'w'), bufsize=0)
block, sent = bytes(1 << 16), 0
try:
    for _ in range(1024):
        sent += p.stdin.write(block)
    p.stdin.close()
except BrokenPipeError:
    pass
print(sent, p.wait())
PY
)
    sent=${out% *}
    status=${out#* }
}

# before_read NAME WANT ARGS...: clsort ARGS, fed by the writer above, exits WANT without reading
before_read() {
    local name=$1 want=$2
    shift 2
    fed "$@"
    expect_status "$name" "$want"
    if [ "$sent" -lt $((1 << 20)) ]; then
        ok "$name: ends before reading ($sent bytes in the pipe)"
    else
        not_ok "$name: read its input first ($sent bytes went into the pipe)"
    fi
}

# --- every output is opened and checked before the input is read -----------------------------------
mkdir adir
before_read "-o in a missing directory" 3 -o nodir/x.bin
expect_message "-o in a missing directory" "nodir"
before_read "-o a directory" 3 -o adir
expect_message "-o a directory" "is a directory"
before_read "--values-out in a missing directory" 3 -o k.out --values vals.bin --values-out nodir/v.bin
before_read "--stats-json in a missing directory" 3 -o k.out --stats-json nodir/s.json
before_read "--stats-json a directory" 3 -o k.out --stats-json adir
if [ "$(id -u)" -ne 0 ]; then
    mkdir ro && chmod a-w ro
    before_read "-o in a directory that cannot be written" 3 -o ro/x.bin
    rmdir ro
else
    ok "skip: root writes into any directory"
fi
expect_only . "outputs refused before reading" adir keys.bin vals.bin err.txt

# --- no output names an input, whatever the spelling ----------------------------------------------
# refused NAME ARGS...: clsort ARGS exits 1 with a message naming both files, leaving the inputs as
# they were (the copies precious.bin and pvals.bin, compared with keys.bin and vals.bin).
refused() {
    local name=$1
    shift
    cp keys.bin precious.bin && cp vals.bin pvals.bin
    run_clsort "$@"
    expect_status "$name" 1
    expect_message "$name" "names the input"
    same_file "$name: the key input is untouched" precious.bin keys.bin
    same_file "$name: the values input is untouched" pvals.bin vals.bin
    rm -f out.bin vout.bin
}
ln -s precious.bin link.bin
ln -s pvals.bin vlink.bin
refused "--stats-json naming the input" -i precious.bin -o out.bin --stats-json precious.bin
expect_message "--stats-json naming the input: both named" \
    "--stats-json precious.bin names the input -i precious.bin"
refused "--stats-json naming the input through a link" -i precious.bin -o out.bin \
    --stats-json link.bin
refused "--stats-json naming the input as ./" -i precious.bin -o out.bin --stats-json ./precious.bin
refused "--values-out naming the key input" -i precious.bin --values pvals.bin -o out.bin \
    --values-out precious.bin
refused "--values-out naming the key input through a link" -i precious.bin --values pvals.bin \
    -o out.bin --values-out link.bin
refused "--stats-json naming the values input" -i precious.bin --values pvals.bin -o out.bin \
    --values-out vout.bin --stats-json pvals.bin
refused "-o naming the values input" -i precious.bin --values pvals.bin -o pvals.bin \
    --values-out vout.bin
refused "-o naming the values input through a link" -i precious.bin --values pvals.bin \
    -o vlink.bin --values-out vout.bin
refused "keys and values outputs swapped" -i precious.bin --values pvals.bin -o pvals.bin \
    --values-out precious.bin
expect_message "-o naming the values input: both named" \
    "-o pvals.bin names the input --values pvals.bin"
ln precious.bin hard.bin
refused "--stats-json naming the input through a hard link" -i precious.bin -o out.bin \
    --stats-json hard.bin
rm hard.bin
refused "--stats-json naming the input given on stdin" -o out.bin --stats-json precious.bin \
    < precious.bin
expect_message "the input given on stdin: named so" "names the input (stdin)"
# the offsets of --segments are an input too: no output may name them, by any name
$PYTHON -c "import struct; open('segs.off', 'wb').write(struct.pack('<3Q', 0, 500, 1000))"
cp segs.off segs.orig
ln -s segs.off segs.link
ln segs.off segs.hard
# seg_refused NAME ARGS...: clsort --segments segs.off ARGS exits 1 naming both, segs.off untouched
seg_refused() {
    local name=$1
    shift
    run_clsort --segments segs.off -i keys.bin "$@"
    expect_status "$name" 1
    expect_message "$name" "names the input --segments segs.off"
    same_file "$name: the offsets are untouched" segs.off segs.orig
    rm -f out.bin
}
seg_refused "-o naming the offsets" -o segs.off
seg_refused "--index-out naming the offsets" -o out.bin --index-out segs.off
seg_refused "--stats-json naming the offsets" -o out.bin --stats-json segs.off
seg_refused "-o naming the offsets through a link" -o segs.link
seg_refused "-o naming the offsets through a hard link" -o segs.hard
seg_refused "--values-out naming the offsets" -o out.bin --values vals.bin --values-out ./segs.off
"$CLSORT" --segments segs.off -i keys.bin -o /dev/fd/5 5>> segs.off 2>err.txt
status=$?
expect_status "-o /dev/fd/5 open on the offsets" 1
same_file "-o /dev/fd/5 open on the offsets: untouched" segs.off segs.orig
"$CLSORT" --segments segs.off -i keys.bin -o - >> segs.off 2>err.txt
status=$?
expect_status "stdout appending to the offsets" 1
same_file "stdout appending to the offsets: untouched" segs.off segs.orig
cp keys.bin inplace.bin
run_clsort --segments segs.link -i inplace.bin -o inplace.bin
expect_status "--segments, in place over the keys" 0
rm -f segs.link segs.hard segs.orig inplace.bin

# two outputs that are the same file by other names: stdout as -, /dev/stdout or /proc/self/fd/1
# (into a file or a pipe); a character device such as /dev/null may take both
for spelling in /dev/stdout /proc/self/fd/1 /dev/fd/1; do
    "$CLSORT" -i keys.bin -o - --index-out "$spelling" > both.bin 2>err.txt
    status=$?
    expect_status "-o - and --index-out $spelling into a file" 1
    expect_message "-o - and --index-out $spelling: said" "name the same file"
    check "-o - and --index-out $spelling: nothing written" test ! -s both.bin
    "$CLSORT" -i keys.bin -o "$spelling" --index-out - 2>err.txt | cat > both.bin
    status=${PIPESTATUS[0]}
    expect_status "-o $spelling and --index-out - into a pipe" 1
    check "-o $spelling and --index-out - into a pipe: nothing written" test ! -s both.bin
done
"$CLSORT" -i keys.bin -o - --stats-json /dev/stdout > both.bin 2>err.txt
status=$?
expect_status "-o - and --stats-json /dev/stdout" 1
expect_message "-o - and --stats-json /dev/stdout: said" "names the same file as an output"
run_clsort -i keys.bin -o /dev/null --index-out /dev/null
expect_status "-o /dev/null and --index-out /dev/null" 0
rm -f both.bin

# in place means a new file replacing the input: not a descriptor open on it, which would write
# into the input (sort, and merge, whose -o may otherwise name an input)
cp keys.bin precious.bin
"$CLSORT" -i precious.bin -o /dev/stdout >> precious.bin 2>err.txt
status=$?
expect_status "-o /dev/stdout appending to the key input" 1
expect_message "-o /dev/stdout appending to the key input: said" "names the input -i precious.bin"
same_file "-o /dev/stdout appending to the key input: untouched" precious.bin keys.bin
"$CLSORT" -i keys.bin -o sorted.tmp 2>err.txt || not_ok "sort for merge"
cp sorted.tmp merged.bin
"$CLSORT" merge merged.bin sorted.tmp -o /dev/stdout >> merged.bin 2>err.txt
status=$?
expect_status "merge -o /dev/stdout appending to an input" 1
expect_message "merge -o /dev/stdout appending to an input: said" "names the input merged.bin"
same_file "merge -o /dev/stdout appending to an input: untouched" merged.bin sorted.tmp
run_clsort merge merged.bin sorted.tmp -o merged.bin
expect_status "merge -o naming an input (replaced once merged)" 0
rm -f precious.bin sorted.tmp merged.bin

# sorting in place stays allowed: -o over the keys, --values-out over the values
cp keys.bin inplace.bin
run_clsort -i inplace.bin -o ./inplace.bin
expect_status "-o naming the key input (in place)" 0
check "in place: sorted" $CHECK keys keys.bin inplace.bin
cp keys.bin inplace.bin && cp vals.bin inplace-v.bin
run_clsort -i inplace.bin --values inplace-v.bin -o inplace.bin --values-out ./inplace-v.bin
expect_status "-o and --values-out over their own inputs (in place)" 0
check "keys and values in place: pairs kept" $CHECK separate keys.bin vals.bin inplace.bin \
    inplace-v.bin
rm -f inplace.bin inplace-v.bin precious.bin pvals.bin link.bin vlink.bin

# --- the odd-even sort's limit (65,536 keys per array or segment) ---------------------------------
# unread NAME ARGS...: clsort ARGS reads nothing: armed to stop itself at its first byte read, it
# must end on its own.
unread() {
    local name=$1
    shift
    CLSORT_TEST_STOP_AFTER_READ=1 "$CLSORT" "$@" 2>err.txt &
    local pid=$! state=
    for _ in $(seq 600); do
        state=$(ps -o stat= -p $pid 2>/dev/null | cut -c1)
        [ -z "$state" ] || [ "$state" = T ] || [ "$state" = Z ] && break
        sleep 0.05
    done
    [ "$state" = T ] && kill -CONT $pid
    wait $pid
    status=$?
    if [ "$state" = T ]; then
        not_ok "$name: read its input first"
    else
        ok "$name: nothing read"
    fi
}
case " $(algorithms) " in *" oddeven "*)
    "$CLSORT" gen -n 70000 --seed 3 -o k70.bin || exit 2
    unread "--algo oddeven on 70000 keys in a file" --algo oddeven -i k70.bin -o o70.bin
    expect_status "--algo oddeven on 70000 keys in a file" 1
    expect_message "--algo oddeven on 70000 keys in a file" "size limit"
    expect_message "--algo oddeven on 70000 keys in a file: the limit" "at most 65536 keys"
    check "--algo oddeven refused: nothing written" test ! -e o70.bin
    unread "--algo oddeven, segments over the limit" --algo oddeven --segment 70000 -i k70.bin \
        -o o70.bin
    expect_status "--algo oddeven, segments over the limit" 1
    expect_message "--algo oddeven, segments over the limit" "a segment has 70000"
    cat k70.bin | "$CLSORT" --algo oddeven -o o70.bin 2>err.txt
    status=$?
    expect_status "--algo oddeven on 70000 keys from a pipe (after reading)" 1
    expect_message "--algo oddeven from a pipe: the library's message" "oddeven sorts at most 65536"
    check "--algo oddeven from a pipe: nothing written" test ! -e o70.bin
    run_clsort --algo oddeven --segment 1000 -i k70.bin -o o70.bin
    expect_status "--algo oddeven, segments under the limit" 0
    rm -f k70.bin o70.bin
    ;;
esac

# A FIFO input (keys, values, offsets) is not waited for before the outputs are checked: a bad output
# ends clsort at once, whether or not anyone ever writes the FIFO.
rm -f in.fifo && mkfifo in.fifo
# fifo_first NAME WANT ARGS...: clsort ARGS ends by itself within 20 s with WANT
fifo_first() {
    local name=$1 want=$2
    shift 2
    timeout 20 "$CLSORT" "$@" 2>err.txt
    status=$?
    expect_status "$name" "$want"
}
fifo_first "keys from a FIFO, -o in a missing directory" 3 -i in.fifo -o nodir/x.bin
expect_message "keys from a FIFO, -o in a missing directory: said" "nodir"
fifo_first "values from a FIFO, --values-out in a missing directory" 3 -i keys.bin --values in.fifo \
    -o k.out --values-out nodir/v.bin
fifo_first "keys from a FIFO, -o a directory" 3 -i in.fifo -o adir
fifo_first "offsets from a FIFO" 1 --segments in.fifo -i keys.bin -o nodir/x.bin
expect_message "offsets from a FIFO: refused as it is" "in.fifo: not a regular file"
fifo_first "-c, offsets from a FIFO" 1 -c --segments in.fifo keys.bin
fifo_first "merge, an input from a FIFO, -o in a missing directory" 3 merge in.fifo keys.bin \
    -o nodir/x.bin
# a FIFO's writer that writes everything and closes before clsort reads: all of it is read; one that
# opens and closes without writing: an empty input
sort_py() { $CHECK keys keys.bin "$1"; }
( cat keys.bin > in.fifo ) &
sleep 0.2
fifo_first "a FIFO written in full before the read" 0 -i in.fifo -o from-fifo.bin
wait
check "a FIFO written in full before the read: sorted" sort_py from-fifo.bin
( : > in.fifo ) &
fifo_first "a FIFO opened and closed by its writer" 0 -i in.fifo -o from-fifo.bin
wait
check "a FIFO opened and closed by its writer: empty output" test ! -s from-fifo.bin
rm -f in.fifo from-fifo.bin k.out

# A FIFO output is checked early too, but opened only once the data is ready: a script that fills the
# input FIFO before it reads the output FIFO still works.
mkfifo in.fifo out.fifo
"$CLSORT" -i in.fifo -o out.fifo 2>err.txt &
pid=$!
cat keys.bin > in.fifo
cat out.fifo > from-fifo.bin
wait $pid
status=$?
expect_status "FIFO in, FIFO out, written and read in turn" 0
check "FIFO in, FIFO out: sorted" $CHECK keys keys.bin from-fifo.bin

finish
