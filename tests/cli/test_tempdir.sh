#!/usr/bin/env bash
# Temporary files of the external sort that cannot be made or written: a missing -T, a read-only
# one, a full one, the file-size limit (ulimit -f) and the descriptor limit (ulimit -n), in every
# path that spills: keys, keys with values, a long segment of --segments sorted alone, and records
# by a key field. Each is an I/O error: exit 3, the directory and the system's reason named, no
# output and no temporary file left behind.
. "$(dirname "$0")/lib.sh" "$@"

mkdir runs out ro
"$CLSORT" gen -n 1000 -o tiny.bin || exit 2
least=$(least_of -i tiny.bin -o tiny.out)
if [ -z "$least" ]; then
    not_ok "-S 1Mi: no 'give at least -S NMi' in the message"
    finish
fi
S=$((least + 4))Mi
# 2M keys (8 MB): more than the data's 4 MiB under -S; runs of 200k keys
"$CLSORT" gen -n 2M --seed 5 -o keys.bin || exit 2
"$CLSORT" gen -n 2M --seed 6 -o vals.bin || exit 2
$PYTHON -c "import struct; open('segs.off', 'wb').write(struct.pack('<3Q', 0, 1000, 2000000))"
export CLSORT_CHUNK_KEYS=200000 CLSORT_TEST_RECORD_RUN=200000 CLSORT_TEST_SEGMENT_BATCH=1500
INPUTS="keys.bin vals.bin segs.off tiny.bin"
paths=(keys values segments records)
# args PATH: the options of each path (-S, -T and -o added by the callers)
args() {
    case $1 in
        keys) echo "-i keys.bin" ;;
        values) echo "-i keys.bin --values vals.bin --values-out out/v.bin" ;;
        segments) echo "--segments segs.off -i keys.bin" ;;
        records) echo "--record-size 8 --type u32 -i keys.bin" ;;
    esac
}
# nothing_left NAME DIR...: out/ and the -T directories hold nothing, the inputs are all there
nothing_left() {
    local name=$1 d
    shift
    expect_only out "$name: no output"
    for d in "$@"; do
        expect_only "$d" "$name: nothing left in $d"
    done
    for f in $INPUTS; do
        [ -f "$f" ] || not_ok "$name: input $f gone"
    done
}

# the external sort goes through: each path spills here
for p in "${paths[@]}"; do
    # shellcheck disable=SC2046
    run_clsort $(args "$p") -o out/k.bin -S "$S" -T runs --stats-json out/j.json
    expect_status "$p: spilled and sorted" 0
    if $PYTHON -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["runs"] > 1 else 1)' \
        out/j.json 2>/dev/null; then ok "$p: runs"; else not_ok "$p: no runs"; fi
    rm -f out/*
done
# (-o naming a file that already exists too: it stays as it was on every failure below)

for p in "${paths[@]}"; do
    # a -T that does not exist
    # shellcheck disable=SC2046
    run_clsort $(args "$p") -o out/k.bin -S "$S" -T runs/missing
    expect_status "$p: -T missing" 3
    expect_message "$p: -T missing" "cannot create a temporary file in runs/missing: No such file or directory"
    nothing_left "$p: -T missing" runs

    # the file-size limit: refused before anything is read where the runs' sizes are known
    (
        ulimit -f 2048
        # shellcheck disable=SC2046
        "$CLSORT" $(args "$p") -o out/k.bin -S "$S" -T runs --batch-size 2 2> err.txt
    )
    status=$?
    expect_status "$p: ulimit -f" 3
    if grep -qE "ulimit -f|File too large" err.txt && grep -q "temporary file in runs" err.txt; then
        ok "$p: ulimit -f: the limit and the directory named"
    else
        not_ok "$p: ulimit -f: the limit and the directory named"
    fi
    nothing_left "$p: ulimit -f" runs

    # the descriptor limit: from a small limit up, every run that fails for want of descriptors is an
    # I/O error (exit 3) naming what it could not open; at one of them the temporary file is that
    first=
    for n in $(seq 6 40); do
        (
            ulimit -n "$n"
            # shellcheck disable=SC2046
            "$CLSORT" $(args "$p") -o out/k.bin -S "$S" -T runs 2> err.txt
        )
        status=$?
        [ "$status" -eq 0 ] && break
        rm -f out/*
        grep -q "Too many open files" err.txt || continue # (the driver's own files, before the sort)
        if [ "$status" -ne 3 ]; then
            not_ok "$p: ulimit -n $n: exit $status, expected 3"
        fi
        grep -q "cannot create a temporary file in runs: Too many open files" err.txt && first=${first:-$n}
    done
    if [ -n "$first" ]; then
        ok "$p: ulimit -n $first: the temporary file not made, exit 3, the directory named"
    else
        not_ok "$p: no descriptor limit made the temporary file fail"
    fi
    rm -f out/*
    nothing_left "$p: ulimit -n" runs
done

# A read-only -T (root ignores the mode bits: a read-only bind mount in a private mount namespace
# then) and a full one (a small tmpfs there).
in_ns() {
    # in_ns SETUP ARGS...: run clsort ARGS after the shell commands SETUP in a private mount namespace
    local setup=$1 how
    shift
    for how in "unshare -m" "unshare -rm"; do
        if $how true 2> /dev/null; then
            $how sh -c "$setup"' && exec "$@"' sh "$CLSORT" "$@"
            return
        fi
    done
    return 200
}
for p in "${paths[@]}"; do
    if [ "$(id -u)" -ne 0 ]; then
        chmod 555 ro
        # shellcheck disable=SC2046
        run_clsort $(args "$p") -o out/k.bin -S "$S" -T ro
        chmod 755 ro
    else
        # shellcheck disable=SC2046
        in_ns "mount --bind ro ro && mount -o remount,bind,ro ro" $(args "$p") -o out/k.bin -S "$S" \
            -T ro 2> err.txt
        status=$?
    fi
    if [ "$status" -eq 200 ]; then
        echo "skip: $p: no private mount namespace for a read-only -T"
    else
        expect_status "$p: -T read-only" 3
        if grep -qE "cannot create a temporary file in ro: (Read-only file system|Permission denied)" err.txt; then
            ok "$p: -T read-only: the directory and the reason named"
        else
            not_ok "$p: -T read-only: the directory and the reason named"
        fi
        nothing_left "$p: -T read-only" ro
    fi
    # shellcheck disable=SC2046
    in_ns "mount -t tmpfs -o size=1m tmpfs ro" $(args "$p") -o out/k.bin -S "$S" -T ro 2> err.txt
    status=$?
    if [ "$status" -eq 200 ]; then
        echo "skip: $p: no private mount namespace for a full -T"
        continue
    fi
    expect_status "$p: -T full" 3
    if grep -qE "space in ro|in ro .*No space left on device" err.txt; then
        ok "$p: -T full: the directory and the reason named"
    else
        not_ok "$p: -T full: the directory and the reason named"
    fi
    nothing_left "$p: -T full" ro
done

finish
