#!/usr/bin/env bash
# Faults: injected device allocation failures (CLSORT_FAULT_ALLOC=N fails the N-th one), kernels that
# fail to build (bad CLSORT_BUILD_OPTIONS), damaged program-cache entries (rebuilt, never trusted),
# outputs that cannot be written (a private full-device node, a read-only directory) and SIGINT in the
# middle of a large sort. Each failure gives a clear message and its exit status, leaves no output or
# temporary file (an existing output unchanged), and leaves the input as it was (same checksum), also
# when sorting in place.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" gen -n 20000 --seed 3 -o keys.bin 2>err.txt || not_ok "gen"
"$CLSORT" gen -n 20000 --seed 4 --kv -o pairs.bin 2>err.txt || not_ok "gen --kv"
# past 512 KiB: on a CPU device read whole and sorted where it is, its scratch reserved before
"$CLSORT" gen -n 200000 --seed 5 -o mid.bin 2>err.txt || not_ok "gen 200000"
cp keys.bin keys.orig
cp pairs.bin pairs.orig
cp mid.bin mid.orig
mkdir out

for n in 1 2 3; do
    # bitonic sorts in place on the device: the keys are its only allocation
    for algo in radix4 radix8 bitonic; do
        [ "$algo" = bitonic ] && [ "$n" -gt 1 ] && continue
        CLSORT_FAULT_ALLOC=$n run_clsort --algo "$algo" -i keys.bin -o out/sorted.bin
        expect_status "$algo, allocation $n fails" 2
        expect_message "$algo, allocation $n fails" "CL_MEM_OBJECT_ALLOCATION_FAILURE"
        expect_message "$algo, allocation $n fails" "allocating"
        expect_only out "$algo, allocation $n fails"
        same_file "$algo, allocation $n fails: input intact" keys.bin keys.orig
    done
    # (the staged path: small host arrays on a CPU device take no device memory at all)
    CLSORT_HOST_INLINE_BYTES=0 CLSORT_FAULT_ALLOC=$n run_clsort -i keys.bin -o keys.bin
    expect_status "in place, allocation $n fails" 2
    same_file "in place, allocation $n fails: input intact" keys.bin keys.orig
    if [ "$n" -le 2 ]; then
        CLSORT_FAULT_ALLOC=$n run_clsort -i mid.bin -o mid.bin
        expect_status "in place, sorted where read, allocation $n fails" 2
        expect_message "in place, sorted where read, allocation $n fails" "allocating"
        same_file "in place, sorted where read, allocation $n fails: input intact" mid.bin mid.orig
    fi
    CLSORT_FAULT_ALLOC=$n run_clsort --kv -i pairs.bin -o pairs.bin
    expect_status "records in place, allocation $n fails" 2
    same_file "records in place, allocation $n fails: input intact" pairs.bin pairs.orig
done
expect_only . "nothing left beside the inputs" err.txt keys.bin keys.orig out pairs.bin pairs.orig \
    mid.bin mid.orig
rm mid.bin mid.orig


# Past the last allocation the sort goes through.
CLSORT_FAULT_ALLOC=1000 run_clsort -i keys.bin -o out/sorted.bin --verify
expect_status "no allocation fails" 0
rm -f out/sorted.bin

# sum FILE: its checksum
sum() {
    sha256sum < "$1"
}
KEYS_SUM=$(sum keys.bin)
PAIRS_SUM=$(sum pairs.bin)
# intact NAME: the inputs have the checksums they had at the start
intact() {
    if [ "$(sum keys.bin)" = "$KEYS_SUM" ] && [ "$(sum pairs.bin)" = "$PAIRS_SUM" ]; then
        ok "$1: inputs intact (checksums)"
    else
        not_ok "$1: an input changed"
    fi
}

# Kernels that fail to build (the cache off, so nothing built before is used): exit 2, the build log.
for opts in '-DWG=3' '-cl-no-such-build-option'; do
    for algo in radix8 bitonic; do
        CLSORT_NO_CACHE=1 CLSORT_BUILD_OPTIONS=$opts run_clsort --algo $algo -i keys.bin -o out/sorted.bin
        expect_status "build options $opts, $algo" 2
        expect_message "build options $opts, $algo" "kernel program build failed"
        expect_message "build options $opts, $algo" "building the $algo kernels"
        expect_message "build options $opts, $algo" "$opts"
        expect_only out "build options $opts, $algo"
    done
    # (radix8: on a CPU device auto sorts on the host and builds no kernels)
    CLSORT_NO_CACHE=1 CLSORT_BUILD_OPTIONS=$opts run_clsort --algo radix8 -i keys.bin -o keys.bin
    expect_status "build options $opts, in place" 2
    CLSORT_NO_CACHE=1 CLSORT_BUILD_OPTIONS=$opts run_clsort --algo radix8 --kv -i pairs.bin -o pairs.bin
    expect_status "build options $opts, records in place" 2
    intact "build options $opts"
done
CLSORT_NO_CACHE=1 CLSORT_BUILD_OPTIONS='-DWG=3' run_clsort --algo radix8 -i keys.bin -o out/sorted.bin
expect_message "build options -DWG=3: the compiler's own words" "WG must be a power of two"

# Damaged program-cache entries are rebuilt, never used: the sort succeeds and is right. (Damage that
# keeps the header's hash right, so only the driver can refuse the binary, included.)
SHARED_CACHE=$CLSORT_CACHE_DIR
export CLSORT_CACHE_DIR=$SCRATCH/cache-damaged
# sort_stats ARGS...: run_clsort with --stats, the report kept in stats.txt (check overwrites err.txt)
sort_stats() {
    run_clsort --stats "$@"
    cp err.txt stats.txt
}
# built WHAT: the last sort_stats built programs (WHAT: some) or none (0)
built() {
    if [ "$1" = 0 ]; then grep -qE "programs +0 built" stats.txt; else grep -qE "programs +[1-9][0-9]* built" stats.txt; fi
}
sort_stats --algo radix8 -i keys.bin -o out/sorted.bin
expect_status "cache: first run" 0
check "cache: first run builds" built some
damage() {
    $PYTHON - "$1" "$CLSORT_CACHE_DIR" <<'PY'
import os, struct, sys
how, d = sys.argv[1], sys.argv[2]
for name in os.listdir(d):
    p = os.path.join(d, name)
    if name.startswith('.') or not os.path.isfile(p):
        continue
    data = bytearray(open(p, 'rb').read())
    if how == 'garbage':
        data[40:80] = b'garbage in the middle of a cached binary'
    elif how == 'short':
        data = data[:len(data) // 2]
    elif how == 'empty':
        data = b''
    elif how == 'junk-hashed':
        # a payload of junk with a header that matches it: only the driver can tell
        size = struct.unpack_from('<Q', data, 16)[0]
        junk = bytes((i * 131 + 7) & 0xff for i in range(size))
        h = 0xcbf29ce484222325
        for b in junk:
            h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
        data = data[:16] + struct.pack('<QQ', size, h) + junk
    elif how == 'directory':
        os.remove(p)
        os.mkdir(p)
        continue
    open(p, 'wb').write(data)
PY
}
for how in garbage short empty junk-hashed directory; do
    damage $how
    sort_stats --algo radix8 -i keys.bin -o out/sorted.bin
    expect_status "cache entries damaged ($how)" 0
    check "cache entries damaged ($how): rebuilt" built some
    check "cache entries damaged ($how): sorted" $CHECK keys keys.bin out/sorted.bin
    [ $how = directory ] && break
    sort_stats --algo radix8 -i keys.bin -o out/sorted.bin
    check "cache entries damaged ($how): the rebuilt entries are used next time" built 0
done
export CLSORT_CACHE_DIR=$SHARED_CACHE
rm -f out/sorted.bin stats.txt
intact "damaged cache entries"

# Outputs that cannot be written. A private full-device node (never the real /dev/full): exit 3, and
# with the values going there, the keys file is not created either.
mkdir nodes
if mknod nodes/full c 1 7 2> /dev/null; then
    run_clsort -i keys.bin -o nodes/full
    expect_status "keys to a full node" 3
    expect_message "keys to a full node" "nodes/full: write error: No space left on device"
    run_clsort --kv -i pairs.bin -o nodes/full
    expect_status "records to a full node" 3
    expect_message "records to a full node" "nodes/full: write error: No space left on device"
    run_clsort -i keys.bin -o out/k.bin --values keys.bin --values-out nodes/full
    expect_status "values to a full node" 3
    expect_message "values to a full node" "nodes/full: write error: No space left on device"
    expect_only out "values to a full node: no keys file"
    check "full node: still a character device" test -c nodes/full
    expect_only nodes "full node" full
    intact "full node"
else
    echo "skip full-node tests: mknod failed (not root?)"
fi
rm -rf nodes

# A read-only directory, on a read-only bind mount in a private mount namespace (root ignores
# permission bits; a non-root run has its mode 555 test in test_errors.sh): a new output and an
# existing one, exit 3; the existing one is unchanged.
mkdir ro
cp keys.bin ro/existing.bin
EXISTING_SUM=$(sum ro/existing.bin)
in_ro() {
    # run "$@" with ro/ read-only; prints nothing of its own
    local how
    for how in "unshare -m" "unshare -rm"; do
        if $how true 2> /dev/null; then
            $how sh -c 'mount --bind ro ro && mount -o remount,bind,ro ro && exec "$@"' sh "$@"
            return
        fi
    done
    return 200
}
if in_ro test ! -w ro 2> /dev/null; then
    in_ro "$CLSORT" -i keys.bin -o ro/new.bin 2> err.txt
    status=$?
    expect_status "output in a read-only directory" 3
    expect_message "output in a read-only directory" \
        "ro/new.bin: cannot create a temporary file in '$SCRATCH/ro': Read-only file system"
    in_ro "$CLSORT" --kv -i pairs.bin -o ro/existing.bin 2> err.txt
    status=$?
    expect_status "existing output in a read-only directory" 3
    expect_message "existing output in a read-only directory" "ro/existing.bin: cannot write: Read-only file system"
    in_ro "$CLSORT" -i ro/existing.bin -o ro/existing.bin 2> err.txt
    status=$?
    expect_status "in place in a read-only directory" 3
    check "read-only directory: the existing output unchanged" test "$(sum ro/existing.bin)" = "$EXISTING_SUM"
    expect_only ro "read-only directory" existing.bin
    intact "read-only directory"
else
    echo "skip read-only directory tests: no private mount namespace here"
fi
rm -rf ro

# SIGINT in the middle of a large sort (its outputs already opened): exit 130, the temporary file
# removed, the input as it was, also sorting in place. Python starts clsort: a background job of a
# non-interactive shell would have SIGINT ignored, and clsort keeps ignored signals ignored.
"$CLSORT" gen -n 16M --seed 9 -o big.bin 2> err.txt || not_ok "gen 16M"
BIG_SUM=$(sum big.bin)
# interrupt NAME TEMP_GLOB ARGS...: SIGINT 0.1 s after the temporary output is open (TEMP_GLOB, or an
# unnamed file in its directory)
interrupt() {
    local name=$1 temp=$2
    shift 2
    PYTHONPATH=$TESTS $PYTHON - "$temp" "$CLSORT" "$@" > py.txt 2>&1 <<'PY'
import signal, subprocess, sys, time
from tempout import temp_output_open
temp = sys.argv[1]
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
deadline = time.time() + 120
while not temp_output_open(p.pid, temp) and p.poll() is None and time.time() < deadline:
    time.sleep(0.01)
time.sleep(0.1)
print('running when signalled' if p.poll() is None and temp_output_open(p.pid, temp) else 'not running when signalled')
p.send_signal(signal.SIGINT)
try:
    print('exit', p.wait(timeout=60))
except subprocess.TimeoutExpired:
    p.kill()
    print('exit hung')
PY
    cat py.txt
    check "$name: still sorting when signalled" grep -qx "running when signalled" py.txt
    check "$name: exit 130" grep -qx "exit 130" py.txt
}
interrupt "SIGINT mid-sort" "out/.sorted.bin.clsort-*" -i big.bin -o out/sorted.bin
expect_only out "SIGINT mid-sort"
interrupt "SIGINT mid-sort, in place" ".big.bin.clsort-*" -i big.bin -o big.bin
check "SIGINT mid-sort: the input intact (checksum)" test "$(sum big.bin)" = "$BIG_SUM"
expect_only . "SIGINT mid-sort, in place" big.bin cache-damaged err.txt keys.bin keys.orig out pairs.bin pairs.orig py.txt
finish
