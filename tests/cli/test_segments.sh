#!/usr/bin/env bash
# --segments FILE: each segment of the offsets file sorted on its own, stable, against a reference
# written here (a stable sort per segment); keys alone, --kv records, separate --values, 64-bit and
# float keys, descending, --bits; empty and 1-record segments, a long one, no records. Bad offsets
# files and refused combinations: exit 1, a message naming the file and the first bad entry, no
# output.
. "$(dirname "$0")/lib.sh" "$@"

# ref.py OFFSETS IN OUT TYPE RECORD_SIZE DESC BEGIN END [TOP]: the reference output of IN's records
# (with TOP, the first TOP records of each sorted segment)
cat > ref.py <<'PY'
import struct, sys
offs, src, dst, typ, rs, desc, begin, end = sys.argv[1:9]
rs, desc, begin, end = int(rs), int(desc), int(begin), int(end)
top = int(sys.argv[9]) if len(sys.argv) > 9 else 0
fmt = {'u32': '<I', 'i32': '<i', 'f32': '<I', 'u64': '<Q', 'i64': '<q', 'f64': '<Q'}[typ]
ks = struct.calcsize(fmt)
data = open(src, 'rb').read()
recs = [data[i:i + rs] for i in range(0, len(data), rs)]
o = open(offs, 'rb').read()
off = [struct.unpack_from('<Q', o, i)[0] for i in range(0, len(o), 8)]
def order(r):
    k = struct.unpack_from(fmt, r)[0]
    w = ks * 8
    if typ[0] == 'i':
        k = k + (1 << (w - 1))           # the sign bit flipped
    elif typ[0] == 'f':
        k = (~k & ((1 << w) - 1)) if k >> (w - 1) else k | (1 << (w - 1))  # IEEE total order
    k = (k >> begin) & ((1 << (end - begin)) - 1)
    return -k if desc else k
out = []
for a, b in zip(off, off[1:]):
    seg = sorted(recs[a:b], key=order)    # stable
    out += seg[:top] if top else seg
open(dst, 'wb').write(b''.join(out))
PY
ref() { $PYTHON ref.py "$@"; }

# offsets FILE N LEN...: offsets of segments of the lengths in turn, the last cut at N
offsets() {
    local file=$1 n=$2
    shift 2
    $PYTHON - "$file" "$n" "$@" <<'PY'
import struct, sys
f, n, lens = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
off, i = [0], 0
while off[-1] < n:
    off.append(min(n, off[-1] + lens[i % len(lens)]))
    i += 1
open(f, 'wb').write(b''.join(struct.pack('<Q', x) for x in off))
PY
}

N=20000
"$CLSORT" gen -n $N --dist few:9 --seed 5 -o keys.bin || exit 2
"$CLSORT" gen -n $N --dist few:9 --seed 6 --kv -o pairs.bin || exit 2
"$CLSORT" gen -n $N --seed 7 -t u64 --kv --value-size 8 -o pairs64.bin || exit 2
"$CLSORT" gen -n $N --seed 8 -t f32 -o floats.bin || exit 2
offsets mix.off $N 0 1 2 3000 0 511 512 513 1 1023 1024 1025 7 9000
cp pairs.bin pairs.orig

run_clsort --segments mix.off -i keys.bin -o keys.out
expect_status "keys" 0
ref mix.off keys.bin keys.want u32 4 0 0 32
same_file "keys: each segment sorted" keys.out keys.want

run_clsort --kv --segments mix.off -i pairs.bin -o pairs.out
expect_status "--kv" 0
ref mix.off pairs.bin pairs.want u32 8 0 0 32
same_file "--kv: each segment sorted, stable" pairs.out pairs.want
same_file "--kv: input untouched" pairs.bin pairs.orig

run_clsort --kv --segments mix.off -r --bits 2:30 -i pairs.bin -o pairs-r.out
expect_status "--kv -r --bits" 0
ref mix.off pairs.bin pairs-r.want u32 8 1 2 30
same_file "--kv -r --bits 2:30: each segment sorted, stable" pairs-r.out pairs-r.want

run_clsort -t u64 --kv --value-size 8 --segments mix.off --algo radix8-rts -i pairs64.bin -o p64.out
expect_status "u64 --value-size 8" 0
ref mix.off pairs64.bin p64.want u64 16 0 0 64
same_file "u64 records with 8-byte values" p64.out p64.want

run_clsort -t f32 -r --segments mix.off -i floats.bin -o floats.out
expect_status "f32 -r" 0
ref mix.off floats.bin floats.want f32 4 1 0 32
same_file "f32 descending" floats.out floats.want

# from a pipe: the offsets checked against the records once they are read
"$CLSORT" --segments mix.off < keys.bin > keys-pipe.out 2>err.txt
status=$?
expect_status "stdin" 0
same_file "stdin: each segment sorted" keys-pipe.out keys.want
head -c 40000 keys.bin | "$CLSORT" --segments mix.off > keys-short.out 2>err.txt
status=$?
expect_status "stdin, fewer records than the offsets say" 1
expect_message "stdin, fewer records" "mix.off: entry 14 is 16619, past the number of records (10000)"
if [ -s keys-short.out ]; then not_ok "stdin, fewer records: output written"; else ok "stdin, fewer records: no output"; fi

# values in a file of their own
head -c $((N * 4)) pairs.bin > vals.bin
run_clsort --segments mix.off -i keys.bin --values vals.bin --values-out vals.out -o keys2.out
expect_status "--values" 0
$PYTHON - keys.bin vals.bin kv.bin <<'PY'
import sys
k, v = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(b''.join(k[i:i + 4] + v[i:i + 4] for i in range(0, len(k), 4)))
PY
ref mix.off kv.bin kv.want u32 8 0 0 32
$PYTHON - keys2.out vals.out kv.got <<'PY'
import sys
k, v = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(b''.join(k[i:i + 4] + v[i:i + 4] for i in range(0, len(k), 4)))
PY
same_file "--values: values with their keys, stable" kv.got kv.want

# no records, no segments; one segment of everything; only 1-record segments
: > empty.bin
offsets none.off 0
run_clsort --segments none.off -i empty.bin -o empty.out
expect_status "no records" 0
same_file "no records: empty output" empty.out empty.bin
offsets one.off $N $N
run_clsort --kv --segments one.off -i pairs.bin -o one.out
ref one.off pairs.bin one.want u32 8 0 0 32
same_file "one segment of everything" one.out one.want
offsets ones.off 3000 1
head -c 24000 pairs.bin > small.bin
run_clsort --kv --segments ones.off -i small.bin -o ones.out
same_file "1-record segments: the input as it was" ones.out small.bin

# bad offsets files: exit 1, the file and the first bad entry named, no output
mkdir bad
printf '\0\0\0\0\0\0\0\0\5' > bad/size.off
$PYTHON - <<'PY'
import struct
def w(name, offs):
    open('bad/' + name, 'wb').write(b''.join(struct.pack('<Q', x) for x in offs))
w('first.off', [3, 100, 20000])
w('decreasing.off', [0, 500, 400, 20000])
w('past.off', [0, 500, 20001, 20000])
w('last.off', [0, 500, 19999])
PY
bad() {
    run_clsort --segments "bad/$1" -i keys.bin -o bad/out.bin
    expect_status "$1" 1
    expect_message "$1" "bad/$1: $2"
    expect_only bad "$1: no output" size.off first.off decreasing.off past.off last.off
}
bad size.off "9 bytes, not a whole number of offsets"
bad first.off "entry 0 is 3, expected 0"
bad decreasing.off "entry 2 is 400, below entry 1 (500): expected at least 500"
bad past.off "entry 2 is 20001, past the number of records (20000)"
bad last.off "entry 2 (the last) is 19999, expected the number of records (20000)"
run_clsort --segments bad/missing.off -i keys.bin -o bad/out.bin
expect_status "missing offsets file" 1
expect_message "missing offsets file" "bad/missing.off"

# batches of whole segments (at most 1500 records here, as a small -S makes them), a segment longer
# than a batch sorted alone (the 3000- and 9000-record ones); with runs of 700 records too, merged
# (the stream sort of a long segment, under -T); every layout as above
B="CLSORT_TEST_SEGMENT_BATCH=1500"
batch() { # NAME WANT ARGS...: clsort ARGS (stdin from $IN) in batches, and in batches with runs
    # against WANT
    local name=$1 want=$2
    shift 2
    env $B "$CLSORT" "$@" -o batch.out 2> err.txt < "${IN:-/dev/null}"
    status=$?
    expect_status "batches: $name" 0
    same_file "batches: $name" batch.out "$want"
    mkdir -p runs
    env $B CLSORT_CHUNK_KEYS=700 "$CLSORT" "$@" -T runs -o batch.out 2> err.txt < "${IN:-/dev/null}"
    status=$?
    expect_status "batches and runs: $name" 0
    same_file "batches and runs: $name" batch.out "$want"
    expect_only runs "batches and runs: $name: nothing left in -T"
}
batch "keys" keys.want --segments mix.off -i keys.bin
batch "--kv" pairs.want --kv --segments mix.off -i pairs.bin
batch "--kv -r --bits 2:30" pairs-r.want --kv --segments mix.off -r --bits 2:30 -i pairs.bin
batch "u64 --value-size 8" p64.want -t u64 --kv --value-size 8 --segments mix.off -i pairs64.bin
IN=floats.bin batch "f32 -r, from stdin" floats.want -t f32 -r --segments mix.off -i -
env $B "$CLSORT" --segments mix.off -i keys.bin --values vals.bin --values-out vals.out \
    -o keys2.out 2> err.txt
$PYTHON - keys2.out vals.out kv.got <<'PY'
import sys
k, v = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(b''.join(k[i:i + 4] + v[i:i + 4] for i in range(0, len(k), 4)))
PY
same_file "batches: --values" kv.got kv.want
# --verify: each segment's order and the same records, in batches and runs too
env $B CLSORT_CHUNK_KEYS=700 "$CLSORT" --kv --segments mix.off -r --bits 2:30 -i pairs.bin \
    -o batch.out --verify -v 2> err.txt
status=$?
expect_status "--verify" 0
expect_message "--verify" "verified: 20000 keys in order in each segment, same records as the input"
same_file "--verify: each segment sorted" batch.out pairs-r.want
# -S: the budget the batches are cut by (all of this input fits it)
least=$(least_of --segments mix.off -i keys.bin -o batch.out)
run_clsort --segments mix.off -S "$((${least:-100} + 1))Mi" -i keys.bin -o batch.out
expect_status "-S" 0
same_file "-S: each segment sorted" batch.out keys.want

# --index-out: each output key's input position (u64), stable within its segment
run_clsort --segments mix.off -r -i keys.bin -o idx-keys.out --index-out idx.out
expect_status "--index-out" 0
env $B "$CLSORT" --segments mix.off -r -i keys.bin -o idx-keys2.out --index-out idx2.out 2> err.txt
$PYTHON - keys.bin kpos.bin <<'PY'
import struct, sys
k = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(b''.join(k[i:i + 4] + struct.pack('<Q', i // 4)
                                       for i in range(0, len(k), 4)))
PY
ref mix.off kpos.bin kpos.want u32 12 1 0 32
$PYTHON - idx-keys.out idx.out kpos.got <<'PY'
import sys
k, v = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(b''.join(k[i:i + 4] + v[2 * i:2 * i + 8] for i in range(0, len(k), 4)))
PY
same_file "--index-out: the keys and their input positions" kpos.got kpos.want
same_file "--index-out in batches: the same positions" idx2.out idx.out

# --top K: the first K records of each segment (all of a shorter one), in batches and in a long
# segment's runs too; with --index-out, their input positions
ref mix.off pairs.bin top.want u32 8 1 0 32 5
run_clsort --kv -r --top 5 --segments mix.off -i pairs.bin -o top.out
expect_status "--top 5" 0
same_file "--top 5: each segment's first 5 records" top.out top.want
env $B CLSORT_CHUNK_KEYS=700 "$CLSORT" --kv -r --top 5 --segments mix.off -T runs -i pairs.bin \
    -o top.out 2> err.txt
same_file "--top 5 in batches and runs" top.out top.want
ref mix.off pairs.bin top2k.want u32 8 0 0 32 2000
env $B "$CLSORT" --kv --top 2000 --segments mix.off -i pairs.bin -o top.out 2> err.txt
same_file "--top 2000: short segments whole, long ones cut" top.out top2k.want
ref mix.off kpos.bin kpos-top.want u32 12 1 0 32 3
run_clsort -r --top 3 --segments mix.off -i keys.bin -o idx-keys.out --index-out idx.out
expect_status "--top 3 --index-out" 0
$PYTHON - idx-keys.out idx.out kpos.got <<'PY'
import sys
k, v = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(b''.join(k[i:i + 4] + v[2 * i:2 * i + 8] for i in range(0, len(k), 4)))
PY
same_file "--top 3 --index-out: the keys kept and their input positions" kpos.got kpos-top.want

# from a pipe in batches: an input that ends early, or goes on past the last offset, is found as
# it is read; the output file is not put in place
mkdir pipe
head -c 40000 keys.bin | env $B "$CLSORT" --segments mix.off -o pipe/out.bin 2> err.txt
status=$?
expect_status "batches from stdin, fewer records than the offsets say" 1
expect_message "batches, fewer records" "mix.off: entry 14 is 16619, past the number of records (10000)"
cat keys.bin keys.bin | env $B "$CLSORT" --segments mix.off -o pipe/out.bin 2> err.txt
status=$?
expect_status "batches from stdin, more records than the offsets say" 1
expect_message "batches, more records" "mix.off: entry 20 (the last) is 20000, expected the number of records (40000)"
expect_only pipe "batches from stdin: no output"

# -c --segments: each segment in order (not the whole output), from a file or a pipe; -c -u: strictly
run_clsort -c --segments mix.off keys.want
expect_status "-c: each segment sorted" 0
run_clsort -c keys.want
expect_status "-c without --segments: the whole output is not sorted" 1
run_clsort -c -r -t f32 --segments mix.off floats.want
expect_status "-c -r -t f32" 0
run_clsort -c --segments mix.off keys.bin
expect_status "-c: the unsorted input" 1
expect_message "-c: the unsorted input" "keys.bin: record 5 (byte 20) is out of ascending order"
run_clsort -c -u --segments mix.off keys.want
expect_status "-c -u: few distinct keys repeat within segments" 1
expect_message "-c -u" "repeats the key of record"
"$CLSORT" -c --segments mix.off < keys.want 2> err.txt
status=$?
expect_status "-c from a pipe" 0
head -c 4000 keys.want | "$CLSORT" -c --segments mix.off 2> err.txt
status=$?
expect_status "-c from a pipe, fewer records than the offsets say" 1
expect_message "-c from a pipe, fewer records" "mix.off: entry 4 is 3003, past the number of records (1000)"

# refused combinations
for opt in "--segment 100" "-u"; do
    # shellcheck disable=SC2086
    run_clsort --segments mix.off $opt -i keys.bin -o bad/out.bin
    expect_status "--segments with $opt" 1
    expect_message "--segments with $opt" "incompatible"
done
# the algorithms that do not sort segments: refused before any input is read, from a file, from
# stdin on a file (whose offset would move) and from a pipe (whose bytes would be gone)
size=$(stat -c %s keys.bin)
for algo in bitonic oddeven radix4 radix-hybrid; do
    run_clsort --segments mix.off --algo $algo -i keys.bin -o bad/out.bin
    expect_status "--segments --algo $algo" 1
    expect_message "--segments --algo $algo" "$algo does not sort segments given by offsets"
    left=$( { "$CLSORT" --segments mix.off --algo $algo -o bad/out.bin 2>err.txt; wc -c; } < keys.bin)
    if [ "$left" = "$size" ]; then ok "--segments --algo $algo: stdin left unread"
    else not_ok "--segments --algo $algo: $left of $size bytes of stdin left"; fi
    left=$(cat keys.bin | { "$CLSORT" --segments mix.off --algo $algo -o bad/out.bin 2>err.txt; wc -c; })
    if [ "$left" = "$size" ]; then ok "--segments --algo $algo: a pipe left unread"
    else not_ok "--segments --algo $algo: $left of $size bytes of the pipe left"; fi
done
expect_only bad "refusals: no output" size.off first.off decreasing.off past.off last.off
finish
