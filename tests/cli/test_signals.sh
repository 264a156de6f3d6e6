#!/usr/bin/env bash
# Signals: SIGINT, SIGTERM and SIGHUP remove the temporary output files and end clsort with 128 + N;
# a closed pipe (SIGPIPE) ends it quietly.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" gen -n 20000 --seed 1 -o keys.bin || exit 2
"$CLSORT" gen -n 20000 --seed 2 -o vals.bin || exit 2
mkdir out

# interrupt NAME SIGNAL WANT ARGS...: start clsort writing its keys to out/k.bin (a temporary file) and
# its values to a FIFO nobody reads, so it waits with the temporary output open; send SIGNAL; expect
# exit status WANT and no file but the FIFO in out/. Python starts clsort: a background job of a
# non-interactive shell would have SIGINT ignored.
interrupt() {
    local name=$1 sig=$2 want=$3
    shift 3
    rm -f out/fifo
    mkfifo out/fifo
    PYTHONPATH=$TESTS $PYTHON - "$sig" "$CLSORT" "$@" > py.txt 2>&1 <<'PY'
import glob, os, signal, subprocess, sys, time
from tempout import temp_output_open
sig = getattr(signal, sys.argv[1])
def default_signals():
    # whatever the test runner ignores, clsort must see these signals
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.DEVNULL, preexec_fn=default_signals)
deadline = time.time() + 60
while not temp_output_open(p.pid, 'out/.k.bin.*') and time.time() < deadline and p.poll() is None:
    time.sleep(0.02)
print('temporary output open:', temp_output_open(p.pid, 'out/.k.bin.*'))
p.send_signal(sig)
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = 'hung'
print('exit', rc)
PY
    cat py.txt
    check "$name: temporary output open before the signal" grep -qx "temporary output open: True" py.txt
    check "$name: exit $want" grep -qx "exit $want" py.txt
    expect_only out "$name" fifo
}

interrupt "gen, SIGTERM" SIGTERM 143 gen -n 1000 -o out/k.bin --values-out out/fifo
interrupt "gen, SIGINT" SIGINT 130 gen -n 1000 -o out/k.bin --values-out out/fifo
interrupt "gen, SIGHUP" SIGHUP 129 gen -n 1000 -o out/k.bin --values-out out/fifo
interrupt "sort, SIGTERM" SIGTERM 143 -i keys.bin -o out/k.bin --values vals.bin --values-out out/fifo
interrupt "sort, SIGINT" SIGINT 130 -i keys.bin -o out/k.bin --values vals.bin --values-out out/fifo
# --segments in batches: the first batch written (its values block on the FIFO), the rest unread
$PYTHON -c "import struct; open('segs.off', 'wb').write(b''.join(struct.pack('<Q', i * 1000) for i in range(21)))"
CLSORT_TEST_SEGMENT_BATCH=3000 interrupt "sort --segments, SIGTERM" SIGTERM 143 --segments segs.off \
    -i keys.bin -o out/k.bin --values vals.bin --values-out out/fifo

# a reader that goes away: clsort ends quietly with SIGPIPE's status (where the environment ignores
# SIGPIPE, clsort keeps it ignored and reports the write error instead)
"$CLSORT" gen -n 20M 2>err.txt | head -c 100 > /dev/null
status=${PIPESTATUS[0]}
if [ "$status" -eq 3 ] && grep -q "Broken pipe" err.txt; then
    ok "closed pipe: SIGPIPE ignored here, write error reported (exit 3)"
else
    expect_status "closed pipe" 141
    check "closed pipe: no message" test ! -s err.txt
fi

finish
