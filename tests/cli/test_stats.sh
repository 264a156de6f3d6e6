#!/usr/bin/env bash
# What --stats and --stats-json say about the whole process: its wall time against what is measured
# around it, and the phases that add up to it (start, the device's open where it came before the
# read, read, sort, write, commit, other); the device opened while the input is read, with the same
# output as a sort that reads after the open; a device that fails to open while the input is read.
. "$(dirname "$0")/lib.sh" "$@"

N=300000
# the start of the input read while the device opens, whatever the host's cores
export CLSORT_READ_AHEAD=1
"$CLSORT" gen -n $N --seed 7 -o keys.bin || exit 2
"$CLSORT" gen -n $N --seed 8 --kv -o kv.bin || exit 2

# timed NAME ARGS...: clsort ARGS with its stderr in err.txt, timed around the process (in ms, to
# measured.txt); sets $status
timed() {
    shift
    $PYTHON - "$CLSORT" "$@" > measured.txt <<'PY'
import subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stderr=open('err.txt', 'w')).returncode
print((time.perf_counter() - t) * 1000, rc)
PY
    status=$(cut -d' ' -f2 measured.txt)
}

# stats_adds_up NAME JSON: the phases sum to wall_ms within the JSON's rounding, none negative;
# wall_ms is no more than measured around the process, and not far less (the program's loading and
# its exit are outside it)
stats_adds_up() {
    check "$1: the phases add up to the wall time, which is the process's" $PYTHON - "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
measured = float(open('measured.txt').read().split()[0])
before = 0 if r['open_overlapped'] else r['open_wait_ms']
parts = [r['start_ms'], before, r['read_ms'], r['sort_ms'], r['write_ms'], r['commit_ms'],
         r['other_ms']]
assert all(p >= 0 for p in parts), parts
assert abs(sum(parts) - r['wall_ms']) <= 0.01, (sum(parts), r)
e2e = r['read_ms'] + r['sort_ms'] + r['write_ms'] + r['commit_ms']
assert abs(e2e - r['total_ms']) <= 0.01, (e2e, r['total_ms'])
assert 0 < r['wall_ms'] <= measured, (r['wall_ms'], measured)
assert measured - r['wall_ms'] < max(1000, measured / 2), (r['wall_ms'], measured)
assert r['open_ms'] > 0 and r['open_wait_ms'] >= 0, r
assert r['peak_resident_bytes'] >= r['resident_bytes'] > 0, r
PY
}

# --- keys: the device opened while the input is read -------------------------------------------------
timed keys -i keys.bin -o out.bin --stats-json s.json
expect_status "keys" 0
check "keys: sorted" $CHECK keys keys.bin out.bin
stats_adds_up "keys" s.json
check "keys: the device opened while the input was read" \
    $PYTHON -c "import json,sys; sys.exit(not json.load(open('s.json'))['open_overlapped'])"
# on the CPU device a file of known size is sorted where it was read: no staging, and the report's
# lines say so rather than naming transfers
"$CLSORT" -i keys.bin -o out2.bin --stats 2> err.txt
cp err.txt stats.txt
check "keys: sorted where read" cmp out.bin out2.bin
if grep -q "algorithm   host-radix" stats.txt; then
    check "keys on the CPU device: the report says it was sorted where it was read" \
        grep -q "upload .*(none: the input was read whole into host memory" stats.txt
fi
rm -f out2.bin stats.txt

# the same from a pipe, with -S small enough that what was read during the open spans several of
# the library's blocks; and --kv, --index-out (positions counted past what was read ahead)
"$CLSORT" -o pipe.bin -S 4Mi < keys.bin 2>err.txt
check "keys from a pipe, -S 4Mi: sorted" $CHECK keys keys.bin pipe.bin
"$CLSORT" -i kv.bin --kv -o kvout.bin -S 4Mi 2>err.txt
check "--kv -S 4Mi: sorted, stable" $CHECK kv kv.bin kvout.bin
"$CLSORT" -i keys.bin -o ik.bin --index-out idx.bin -S 4Mi 2>err.txt
check "--index-out -S 4Mi: the input's positions, stable" $PYTHON - keys.bin ik.bin idx.bin <<'PY'
import array, sys
k, o, i = (array.array(t, open(f, 'rb').read()) for t, f in zip('IIQ', sys.argv[1:]))
want = sorted(range(len(k)), key=lambda x: k[x])
assert list(i) == want and list(o) == [k[x] for x in want]
PY

# --top in blocks: the first blocks come out of what was read ahead
"$CLSORT" -i keys.bin -o top.bin --top 1000 -S 4Mi 2>err.txt
check "--top 1000 -S 4Mi: the first 1000 of the sort" $PYTHON - keys.bin top.bin <<'PY'
import array, sys
k, t = (array.array('I', open(f, 'rb').read()) for f in sys.argv[1:])
assert list(t) == sorted(k)[:1000]
PY
# CLSORT_READ_AHEAD=0: the device opened before the read, the same output
CLSORT_READ_AHEAD=0 "$CLSORT" -i keys.bin -o out0.bin --stats-json s0.json 2>err.txt
same_file "CLSORT_READ_AHEAD=0: the same output" out.bin out0.bin
check "CLSORT_READ_AHEAD=0: the device opened before the read" \
    $PYTHON -c "import json,sys; sys.exit(json.load(open('s0.json'))['open_overlapped'])"

# records by a key field: read while the device opens only where CLSORT_READ_AHEAD=1 asks (as
# here), else the device opened before the read; the same output either way
timed records -i kv.bin --record-size 8 --key-offset 0 --type u32 -o rec.bin --stats-json r.json
expect_status "records" 0
stats_adds_up "records" r.json
check "records, CLSORT_READ_AHEAD=1: read while the device opened" \
    $PYTHON -c "import json,sys; sys.exit(not json.load(open('r.json'))['open_overlapped'])"
(unset CLSORT_READ_AHEAD && exec "$CLSORT" -i kv.bin --record-size 8 --key-offset 0 --type u32 \
    -o rec0.bin --stats-json r0.json) 2>err.txt
stats_adds_up "records, by default" r0.json
check "records, by default: the device opened before the read" \
    $PYTHON -c "import json,sys; sys.exit(json.load(open('r0.json'))['open_overlapped'])"
same_file "records: the same output either way" rec.bin rec0.bin

# --- --stats as text: the same lines add up ----------------------------------------------------------
run_clsort -i keys.bin -o out.bin --stats
expect_status "--stats" 0
cp err.txt stats.txt
check "--stats: wall, start, device open, read, sort, write, commit and other add up" \
    $PYTHON - stats.txt <<'PY'
import re, sys
t = open(sys.argv[1]).read()
ms = dict(re.findall(r'^  (wall|start|read|sort|write|commit|other) +([0-9.]+) ms', t, re.M))
ms = {k: float(v) for k, v in ms.items()}
assert set(ms) == {'wall', 'start', 'read', 'sort', 'write', 'commit', 'other'}, ms
m = re.search(r'^  device open +([0-9.]+) ms   \((before the read|while the input was read)', t, re.M)
assert m, t
before = float(m.group(1)) if m.group(2) == 'before the read' else 0
parts = sum(v for k, v in ms.items() if k != 'wall') + before
assert abs(parts - ms['wall']) <= 0.01, (parts, ms)
assert re.search(r'^  memory +[0-9.]+ MiB resident at most .*budget for the data', t, re.M), t
PY

# --- a device that fails to open while the input is read ---------------------------------------------
run_clsort -i keys.bin -o nodev.bin -d nosuchdevice
expect_status "-d nosuchdevice, a file" 2
expect_message "-d nosuchdevice, a file" "cannot open an OpenCL device"
check "-d nosuchdevice, a file: no output" test ! -e nodev.bin
# from a pipe, with -S 8Mi: what was read while the device opened is at most an eighth of -S (1 MiB),
# and the pipe holds at most 1 MiB more; the writer offers 64 MiB
out=$($PYTHON - "$CLSORT" -o nodev.bin -d nosuchdevice -S 8Mi <<'PY'
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
expect_status "-d nosuchdevice, a pipe" 2
expect_message "-d nosuchdevice, a pipe" "cannot open an OpenCL device"
check "-d nosuchdevice, a pipe: no output" test ! -e nodev.bin
if [ "$sent" -le $(((1 << 20) + (1 << 20) + (1 << 16))) ]; then
    ok "-d nosuchdevice, a pipe: no more read than while the device opened ($sent bytes)"
else
    not_ok "-d nosuchdevice, a pipe: $sent bytes went into the pipe"
fi
check "-d nosuchdevice: no temporary file left" sh -c '! ls -A | grep -q nodev'

finish
