#!/usr/bin/env bash
# The external sort: under a small -S, runs go to temporary files and are merged; the output is the
# in-memory sort's, byte for byte, for every key type, value layout, order and bit range, from a file
# and from stdin. The budget holds (peak RSS); a bad -T, a file-size limit and signals during the
# runs and during the merge leave no temporary file and no output, and the input as it was.
. "$(dirname "$0")/lib.sh" "$@"

mkdir runs runs2 out

# -S is the memory for the data, as sort(1)'s buffer (what the process holds besides, the OpenCL
# driver's included, does not count), with sort(1)'s sizes: K (the default for a bare number), M, G,
# ... are powers of 1024, b bytes, N% of physical memory; Ki, Mi, ... the same. Far too small, it
# names the least it takes (a few MiB). The tests give the data about 4 MiB more than that, less
# than every input here (on a GPU the device's buffers do not count in -S, so inputs of 8 MiB would
# fit).
"$CLSORT" gen -n 1000 -o tiny.bin || exit 2
least=$(least_of -i tiny.bin -o tiny.out)
if [ -z "$least" ]; then
    not_ok "-S 1Mi: no 'give at least -S NMi' in the message"
    finish
fi
ok "-S 1Mi refused, at least ${least}Mi"
S=$((least + 4))Mi
phys=$($PYTHON -c 'import os; print(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))')
for size in "64M|67108864" "64m|67108864" "65536|67108864" "65536K|67108864" "64Mi|67108864" \
            "67108864b|67108864" "1G|1073741824" "1g|1073741824" "1Gi|1073741824" "1T|1099511627776" \
            "1E|1152921504606846976" "10%|$((phys / 100 * 10))"; do
    check "-S ${size%%|*}" "$CLSORT" -i tiny.bin -o tiny.out -S "${size%%|*}" --stats-json s.json
    check "-S ${size%%|*}: ${size#*|} bytes for the data" $PYTHON -c '
import json, sys; r = json.load(open("s.json")); sys.exit(r["memory_bytes"] != int(sys.argv[1]))' \
        "${size#*|}"
done
for size in "1M|-S of 1048576 bytes is too small: the data need at least 4 MiB (4194304 bytes); give at least -S 4Mi" \
            "1024|-S of 1048576 bytes is too small" "4194303b|-S of 4194303 bytes is too small" \
            "4095K|-S of 4193280 bytes is too small" \
            "0|'0' is not a memory size" "0x100000|'0x100000' is not a memory size" \
            "1Z|'1Z' is not a memory size" "1KiB|'1KiB' is not a memory size" \
            "16E|'16E' is too large" "0%|'0%' is not a memory size" "101%|'101%' is not a memory size"; do
    run_clsort -i tiny.bin -o out/x -S "${size%%|*}"
    expect_status "-S ${size%%|*}" 1
    expect_message "-S ${size%%|*}" "${size#*|}"
done
expect_only out "-S refused"

# spilled NAME JSON: the --stats-json report says runs went to temporary files
spilled() {
    if $PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["runs_spilled"] > 0 and r["runs"] > 1 else 1)' "$2"; then
        ok "$1: runs spilled"
    else
        not_ok "$1: no run went to a temporary file"
    fi
}

# same_as_memory NAME GEN_ARGS -- SORT_ARGS: gen the input, sort it in memory and under -S (from the
# file and from stdin), compare outputs byte for byte
same_as_memory() {
    local name=$1
    shift
    local gen=() sort=()
    while [ "$1" != "--" ]; do gen+=("$1"); shift; done
    shift
    sort=("$@")
    rm -f in.bin in.val ref.* ext.* pipe.*
    "$CLSORT" gen "${gen[@]}" -o in.bin -f 2>err.txt || { not_ok "$name: gen"; return; }
    local vin=() vref=() vext=() vpipe=()
    if printf '%s\n' "${sort[@]}" | grep -qx -- --values; then
        "$CLSORT" gen "${gen[@]}" --seed 77 -o in.val -f 2>err.txt
        vin=(in.val)
        vref=(--values-out ref.val)
        vext=(--values-out ext.val)
        vpipe=(--values-out pipe.val)
    fi
    cp in.bin in.copy
    check "$name: in memory" "$CLSORT" -i in.bin -o ref.bin "${sort[@]}" "${vin[@]}" "${vref[@]}"
    # this case's least -S: what clsort holds depends on the kernels it builds (auto may build none)
    local S=$S
    local case_least
    case_least=$(least_of -i in.bin -o ext.bin "${sort[@]}" "${vin[@]}" "${vext[@]}")
    [ -z "$case_least" ] || S=$((case_least + 4))Mi
    check "$name: -S $S" "$CLSORT" -i in.bin -o ext.bin -S "$S" -T runs "${sort[@]}" "${vin[@]}" \
        "${vext[@]}" --verify --stats-json ext.json
    same_file "$name: -S output" ref.bin ext.bin
    [ ${#vin[@]} -eq 0 ] || same_file "$name: -S values" ref.val ext.val
    spilled "$name" ext.json
    check "$name: -S from stdin" sh -c '"$0" -o pipe.bin "$@" < in.bin' "$CLSORT" -S "$S" -T runs \
        -T runs2 --batch-size 3 --parallel 3 "${sort[@]}" "${vin[@]}" "${vpipe[@]}" \
        --stats-json pipe.json
    same_file "$name: stdin output" ref.bin pipe.bin
    [ ${#vin[@]} -eq 0 ] || same_file "$name: stdin values" ref.val pipe.val
    same_file "$name: input untouched" in.bin in.copy
    expect_only runs "$name: -T" 
    expect_only runs2 "$name: second -T"
}

same_as_memory "u32" -n 3M --type u32 -- --type u32
same_as_memory "i32 descending" -n 2M --type i32 --dist few:16 -- --type i32 -r
same_as_memory "f32 kv" -n 1M --type f32 --kv -- --type f32 --kv
same_as_memory "u64 bits" -n 1M --type u64 -- --type u64 --bits 8:40
same_as_memory "i64 kv descending" -n 700k --type i64 --kv --value-size 8 -- --type i64 --kv \
    --value-size 8 --desc
same_as_memory "f64 values" -n 700k --type f64 -- --type f64 --value-size 8 --values
same_as_memory "u32 sorted" -n 2M --type u32 --dist sorted -- --type u32 --algo radix4
export CLSORT_SPILL_THREAD=1 # as on a GPU: each run downloaded whole, written by a thread
same_as_memory "u64 kv, run files written by a thread" -n 1M --type u64 --kv -- --type u64 --kv
unset CLSORT_SPILL_THREAD
export CLSORT_DEVICE_MERGE=0 # the runs merged by the host's threads alone
same_as_memory "i64 kv descending, merged on the host" -n 700k --type i64 --kv --value-size 8 -- \
    --type i64 --kv --value-size 8 --desc
same_as_memory "f32 bits, merged on the host" -n 3M --type f32 -- --type f32 --bits 4:28
unset CLSORT_DEVICE_MERGE

# the budget holds: peak resident memory within what clsort held before the data, -S and 64 MiB;
# the report's peak is the one measured from outside
"$CLSORT" gen -n 16M --type u32 -o big.bin -f || exit 2
$PYTHON - "$CLSORT" "$S" <<'PY' > rss.txt
import json, resource, subprocess, sys
clsort, s = sys.argv[1:]
subprocess.run([clsort, "-i", "big.bin", "-o", "big.out", "-S", s, "-T", "runs", "--stats-json",
                "rss.json"], check=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
r = json.load(open("rss.json"))
print(peak, r["resident_bytes"], r["peak_resident_bytes"])
PY
read -r peak before reported < rss.txt
budget=$(( ${S%Mi} * 1048576 ))
if [ -n "$peak" ] && [ "$peak" -le $((before + budget + 64 * 1048576)) ]; then
    ok "peak RSS $((peak / 1048576)) MiB within $((before / 1048576)) MiB before the data + -S $S + 64 MiB"
else
    not_ok "peak RSS ${peak:-?} bytes over ${before:-?} before the data + -S $S + 64 MiB"
fi
check "--stats-json peak_resident_bytes: the peak ($reported, $peak)" \
    test "${reported:-0}" -le "$peak" -a "${reported:-0}" -ge "${before:-1}"

# -T that cannot take files: before anything is read, named, nothing left
for bad in missing-dir tiny.bin; do
    run_clsort -i big.bin -o out/k.bin -S "$S" -T "$bad"
    [ "$status" -ne 0 ] && ok "-T $bad refused (exit $status)" || not_ok "-T $bad accepted"
    expect_message "-T $bad" "$bad"
    expect_only out "-T $bad"
done

# the file-size limit: known sizes are refused up front; from a pipe, a merge level that crosses it
# while writing fails the same way. CLSORT_CHUNK_KEYS makes runs of 200k keys (800 KB), under the
# 2 MiB limit; two runs merged at a time make files over it.
for how in file pipe; do
    rm -f out/*
    (
        ulimit -f 4096
        if [ $how = file ]; then
            CLSORT_CHUNK_KEYS=200000 "$CLSORT" -i big.bin -o out/k.bin -S "$S" -T runs \
                --batch-size 2
        else
            CLSORT_CHUNK_KEYS=200000 "$CLSORT" -o out/k.bin -S "$S" -T runs --batch-size 2 \
                < big.bin
        fi
    ) 2>err.txt
    status=$?
    [ "$status" -ne 0 ] && ok "ulimit -f, $how: refused (exit $status)" || not_ok "ulimit -f, $how"
    expect_message "ulimit -f, $how" "ulimit -f"
    expect_only out "ulimit -f, $how"
    expect_only runs "ulimit -f, $how: -T"
done

# signals: during the runs (the input a FIFO that stops after some runs went to files) and during the
# merge (the output a FIFO read a little, then not at all)
cp big.bin big.copy
PYTHONPATH=$TESTS $PYTHON - "$CLSORT" "$S" <<'PY' > sig.txt 2>&1
import os, signal, subprocess, sys, time
from tempout import temp_output_open
clsort, s = sys.argv[1:]
def default_signals():
    for g in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(g, signal.SIG_DFL)
def wait_for(cond, secs=60):
    end = time.time() + secs
    while not cond() and time.time() < end:
        time.sleep(0.02)
    return cond()
data = open("big.bin", "rb").read()
# during the runs
for f in ("in.fifo", "out.fifo"):
    if os.path.exists(f):
        os.unlink(f)
os.mkfifo("in.fifo")
p = subprocess.Popen([clsort, "-i", "in.fifo", "-o", "out/k.bin", "-S", s, "-T", "runs"],
                     stderr=subprocess.DEVNULL, preexec_fn=default_signals)
w = open("in.fifo", "wb")
w.write(data[: len(data) // 2])
w.flush()
print("runs: run file open:", wait_for(lambda: temp_output_open(p.pid, "runs/x")))
p.send_signal(signal.SIGINT)
print("runs: exit", p.wait(timeout=30))
try:
    w.close()
except BrokenPipeError:
    pass
# during the merge
os.mkfifo("out.fifo")
p = subprocess.Popen([clsort, "-i", "big.bin", "-o", "out.fifo", "-S", s, "-T", "runs"],
                     stderr=subprocess.DEVNULL, preexec_fn=default_signals)
r = open("out.fifo", "rb")
got = r.read(4096)
print("merge: output began:", len(got) == 4096, "run file open:", temp_output_open(p.pid, "runs/x"))
time.sleep(0.3)
p.send_signal(signal.SIGTERM)
print("merge: exit", p.wait(timeout=30))
r.close()
os.unlink("in.fifo")
os.unlink("out.fifo")
PY
cat sig.txt
check "SIGINT during the runs: a run file was open" grep -qx "runs: run file open: True" sig.txt
check "SIGINT during the runs: exit 130" grep -qx "runs: exit 130" sig.txt
check "SIGTERM during the merge: merging from run files" \
    grep -qx "merge: output began: True run file open: True" sig.txt
check "SIGTERM during the merge: exit 143" grep -qx "merge: exit 143" sig.txt
expect_only out "signals"
expect_only runs "signals: -T"
same_file "signals: input untouched" big.bin big.copy

# A device allocation that fails at any point of a sort in runs (CLSORT_FAULT_ALLOC=N, N = 1, 2, ...
# until one goes through), the merge's own included: exit 2, the allocation named, no output and no
# temporary file, the input as it was.
"$CLSORT" gen -n 20000 --seed 5 -o few.bin || exit 2
cp few.bin few.copy
merge_fault=0
for n in $(seq 1 80); do
    CLSORT_CHUNK_KEYS=5000 CLSORT_FAULT_ALLOC=$n run_clsort -i few.bin -o out/few.out -T runs
    [ "$status" -eq 0 ] && break
    expect_status "runs, allocation $n fails" 2
    expect_message "runs, allocation $n fails" "allocating"
    expect_only out "runs, allocation $n fails"
    expect_only runs "runs, allocation $n fails: -T"
    grep -qF "(merge keys)" err.txt && merge_fault=1
done
check "runs: a sort goes through once the faults are past" test "$status" -eq 0
# The merge allocates buffers of its own where the device's memory is the host's (it releases the
# runs' first); elsewhere it sorts its blocks in the buffers the runs were sorted in.
if "$CLSORT" devices | grep -A1 '\[default\]' | grep -q 'type CPU'; then
    check "runs: one fault hit the merge's device buffers" test "$merge_fault" -eq 1
else
    ok "runs: the merge sorts in the runs' device buffers (not a CPU device)"
fi
same_file "runs, allocation faults: input untouched" few.bin few.copy
rm -f out/few.out

finish
