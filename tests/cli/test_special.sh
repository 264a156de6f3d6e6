#!/usr/bin/env bash
# Outputs that are not regular files are written directly, never replaced: private device nodes made with
# mknod (never the real /dev ones), a FIFO; a full device is an I/O error. The progress line appears on a
# terminal only, for work that runs over a second, and is cleared at the end.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" gen -n 20000 --seed 1 -o keys.bin || exit 2
"$CLSORT" gen -n 20000 --seed 1 --kv -o pairs.bin || exit 2

mkdir nodes
if mknod nodes/null c 1 3 2>/dev/null && mknod nodes/full c 1 7 2>/dev/null; then
    # is_node NAME PATH: PATH is still a character device, with no temporary file next to it
    is_node() {
        check "$1: still a character device" test -c "$2"
        expect_only nodes "$1" null full
    }
    run_clsort -i keys.bin -o nodes/null
    expect_status "sort to a null node" 0
    is_node "sort to a null node" nodes/null
    run_clsort gen -n 1000 -o nodes/null
    expect_status "gen to a null node" 0
    is_node "gen to a null node" nodes/null
    run_clsort --kv -i pairs.bin -o nodes/null --stats-json nodes/null
    expect_status "records and report to a null node" 0
    is_node "records and report to a null node" nodes/null
    run_clsort -i keys.bin -o nodes/full
    expect_status "sort to a full node" 3
    expect_message "sort to a full node" "nodes/full: write error: No space left on device"
    is_node "sort to a full node" nodes/full
    run_clsort gen -n 1000 -o nodes/full
    expect_status "gen to a full node" 3
    expect_message "gen to a full node" "nodes/full: write error"
    is_node "gen to a full node" nodes/full
    run_clsort gen -n 1000 -o k.bin --values-out nodes/full
    expect_status "gen values to a full node" 3
    check "gen values to a full node: no keys file" test ! -e k.bin
    is_node "gen values to a full node" nodes/full
    run_clsort bench -n 1000 --algo radix4 --keys --repeat 1 --json nodes/full --plot nodes/null
    expect_status "bench JSON to a full node" 3
    is_node "bench JSON to a full node" nodes/full
    # a link to a node: the node is written, the link stays
    ln -s null nodes/link
    run_clsort -i keys.bin -o nodes/link
    expect_status "sort through a link to a null node" 0
    check "the link stays a link" test -L nodes/link
    rm nodes/link
    is_node "sort through a link to a null node" nodes/null
else
    echo "skip device-node tests: mknod failed (not root?)"
fi

# a FIFO as the output of gen: written directly
mkfifo fifo
cat fifo > fromfifo.bin &
run_clsort gen -n 1000 --seed 3 -o fifo
wait
expect_status "gen to a FIFO" 0
check "gen to a FIFO: still a FIFO" test -p fifo
"$CLSORT" gen -n 1000 --seed 3 -o direct.bin
same_file "gen to a FIFO: the data" fromfifo.bin direct.bin
rm -f fifo

# the progress line: stderr a terminal (script(1)), a job over a second (stdin stays open 1.5 s)
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
    script -qec "sh -c '(cat keys.bin; sleep 1.5) | \"$CLSORT\" -o sorted.bin'" /dev/null > tty.txt 2>&1
    status=$?
    expect_status "progress on a terminal" 0
    check "progress on a terminal: sorted" $CHECK keys keys.bin sorted.bin
    check "progress on a terminal: a read phase" grep -q "clsort: read" tty.txt
    check "progress on a terminal: the line is cleared at the end" $PYTHON -c "
import sys; t = open('tty.txt', 'rb').read(); sys.exit(not t.endswith(b'\r\x1b[K'))"
    script -qec "sh -c '(cat keys.bin; sleep 1.5) | \"$CLSORT\" -q -o sorted.bin'" /dev/null > tty.txt 2>&1
    check "progress: none with -q" test ! -s tty.txt
    script -qec "sh -c '(cat keys.bin; sleep 1.5) | \"$CLSORT\" --no-progress -o sorted.bin'" /dev/null > tty.txt 2>&1
    check "progress: none with --no-progress" test ! -s tty.txt
    # (That short jobs show none is not checked: on a loaded machine opening the device alone can
    # pass the one-second mark, and the check would fail for reasons of its own.)
else
    echo "skip progress tests: no script(1)"
fi
# stderr not a terminal: no progress, however long it takes
(cat keys.bin; sleep 1.5) | "$CLSORT" -o sorted2.bin 2>err.txt
status=$?
expect_status "progress: stderr a file" 0
check "progress: nothing on stderr when it is a file" test ! -s err.txt

finish
