#!/usr/bin/env bash
# Key types, descending order, bit ranges, 8-byte values and segments: clsort sort against check.py's
# reference (check.py tsort), for every key type in both orders, keys alone and with 4- and 8-byte values.
# Values are the records' indices, so the stable algorithms' order among equal keys is checked too.
. "$(dirname "$0")/lib.sh" "$@"

N=5000

# every type, both orders, keys alone and records with 4- and 8-byte values (radix4 through auto)
for t in u32 i32 f32 u64 i64 f64; do
    "$CLSORT" gen -n $N --seed 11 --type $t -o $t.keys || exit 2
    for vs in 4 8; do
        # few distinct keys: equal keys are common, so stability shows
        "$CLSORT" gen -n $N --seed 12 --type $t --dist few:200 --value-size $vs -o $t.$vs.kv || exit 2
    done
    for order in asc desc; do
        flag=
        [ $order = desc ] && flag=--desc
        run_clsort --type $t $flag --verify -i $t.keys -o $t.keys.$order
        expect_status "--type $t $flag keys" 0
        check "--type $t $flag keys: sorted" $CHECK tsort $t.keys $t.keys.$order --type $t $flag
        for vs in 4 8; do
            run_clsort --type $t --value-size $vs $flag --verify -i $t.$vs.kv -o $t.$vs.$order
            expect_status "--type $t --value-size $vs $flag" 0
            check "--type $t --value-size $vs $flag: records sorted, stable" \
                $CHECK tsort $t.$vs.kv $t.$vs.$order --type $t --value-size $vs $flag
        done
    done
done

# -r is --desc; descending is stable, not the reverse of the ascending result
run_clsort --type i32 -r --kv -i i32.4.kv -o i32.4.r
same_file "-r is --desc" i32.4.r i32.4.desc
check "--desc is not a reversal: equal keys keep increasing values" $PYTHON -c "
import struct, sys
d = open('i32.4.desc', 'rb').read()
r = [struct.unpack_from('<iI', d, i) for i in range(0, len(d), 8)]
sys.exit(not all(a[1] < b[1] for a, b in zip(r, r[1:]) if a[0] == b[0]))"

# the comparison sorts take every type and value size; not stable: each value with its key
for t in i32 f32 u64 f64; do
    for flag in "" --desc; do
        for algo in bitonic oddeven; do
            run_clsort --algo $algo --type $t --kv $flag --verify -i $t.4.kv -o $t.$algo
            expect_status "--algo $algo --type $t $flag" 0
            check "--algo $algo --type $t $flag: records sorted" \
                $CHECK tsort $t.4.kv $t.$algo --type $t --value-size 4 $flag --unstable
        done
    done
    run_clsort --algo bitonic --type $t --value-size 8 --verify -i $t.8.kv -o $t.bitonic8
    expect_status "--algo bitonic --type $t --value-size 8" 0
    check "--algo bitonic --type $t --value-size 8: records sorted" \
        $CHECK tsort $t.8.kv $t.bitonic8 --type $t --value-size 8 --unstable
done

# radix-hybrid (the top digit place, then each bucket's lower places) in waves of a few hundred
# records: signed and float keys, both orders, 4- and 8-byte values, a bit range across the halves
for c in "i32 4 --desc" "f64 8" "u64 4 --desc --bits 13:47"; do
    set -- $c
    t=$1 vs=$2
    shift 2
    CLSORT_HYBRID_WAVE_KEYS=300 run_clsort --algo radix-hybrid --type $t --value-size $vs "$@" \
        -i $t.$vs.kv -o $t.$vs.hybrid
    expect_status "--algo radix-hybrid --type $t --value-size $vs $*" 0
    check "--algo radix-hybrid --type $t --value-size $vs $*: records sorted, stable" \
        $CHECK tsort $t.$vs.kv $t.$vs.hybrid --type $t --value-size $vs "$@"
done

# floats with the specials: ±0.0, ±inf, NaNs (quiet, signalling, negative, with payloads), subnormals
$PYTHON - <<'PY' || exit 2
import struct
f32 = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001,
       0x7fc00123, 0xffc00123, 0x00000001, 0x80000001, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff]
f64 = [0x0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
       0x7ff0000000000001, 0xfff0000000000001, 0x7ff8000000001234, 0xfff8000000001234, 1, (1 << 63) | 1,
       0x3ff0000000000000, 0xbff0000000000000, 0x7fefffffffffffff, 0xffefffffffffffff]
for name, words, code in (('f32', f32, '<I'), ('f64', f64, '<Q')):
    seq = [words[(i * 7 + i // 16) % len(words)] for i in range(300)]  # each word many times
    with open(name + '.special.kv', 'wb') as f:
        for i, w in enumerate(seq):
            f.write(struct.pack(code, w) + struct.pack('<I', i))
    with open(name + '.special', 'wb') as f:
        for w in seq:
            f.write(struct.pack(code, w))
PY
for t in f32 f64; do
    for flag in "" --desc; do
        run_clsort --type $t --kv $flag --verify -i $t.special.kv -o $t.special.sorted
        expect_status "--type $t specials $flag" 0
        check "--type $t specials $flag: IEEE total order, stable" \
            $CHECK tsort $t.special.kv $t.special.sorted --type $t --value-size 4 $flag
    done
done
check "f32 specials: -NaN first, +NaN last, -0.0 before +0.0" $PYTHON -c "
import struct, sys
d = open('f32.special.sorted', 'rb').read()  # descending, the last run
k = [struct.unpack_from('<I', d, i)[0] for i in range(0, len(d), 8)]
ok = k[0] == 0x7fc00123 and k[-1] == 0xffc00123 and k.index(0) < k.index(0x80000000)
sys.exit(not ok)"
run_clsort --algo bitonic --type f32 --verify -i f32.special -o f32.special.bitonic
expect_status "--algo bitonic f32 specials" 0
check "--algo bitonic f32 specials: total order" $CHECK tsort f32.special f32.special.bitonic --type f32

# bit ranges: order by the bits B..E-1 of the mapped key only, stable
"$CLSORT" gen -n $N --seed 13 --kv -o u32.bits.kv || exit 2
run_clsort --bits 8:16 --kv --verify -i u32.bits.kv -o u32.bits.sorted
expect_status "--bits 8:16" 0
check "--bits 8:16: by (k >> 8) & 0xff, stable" $CHECK tsort u32.bits.kv u32.bits.sorted --value-size 4 --bits 8:16
check "--bits 8:16: not sorted on the full key" $PYTHON -c "
import struct, sys
d = open('u32.bits.sorted', 'rb').read()
k = [struct.unpack_from('<I', d, i)[0] for i in range(0, len(d), 8)]
sys.exit(k == sorted(k))"
run_clsort --type i64 --bits 40:64 --desc --value-size 8 --verify -i i64.8.kv -o i64.bits.sorted
expect_status "--type i64 --bits 40:64 --desc" 0
check "--type i64 --bits 40:64 --desc: sorted on the top bits, stable" \
    $CHECK tsort i64.8.kv i64.bits.sorted --type i64 --value-size 8 --bits 40:64 --desc

# segments: each run of N records sorted on its own; n not a multiple of N
for flag in "" --desc; do
    run_clsort --segment 300 --algo bitonic --kv $flag --verify -i u32.4.kv -o seg.sorted
    expect_status "--segment 300 --algo bitonic $flag" 0
    check "--segment 300 --algo bitonic $flag: each segment sorted" \
        $CHECK tsort u32.4.kv seg.sorted --value-size 4 --segment 300 --unstable $flag
done
run_clsort --segment 1Ki --type f32 --verify -i f32.keys -o seg.f32
expect_status "--segment 1Ki (auto) f32" 0
check "--segment 1Ki f32: each segment sorted" $CHECK tsort f32.keys seg.f32 --type f32 --segment 1024
run_clsort --segment 0 --kv -i u32.4.kv -o seg0.sorted
expect_status "--segment 0" 0
same_file "--segment 0 is the whole array" seg0.sorted u32.4.asc

# separate values files of 8 bytes, and of 4 bytes (the default) with 64-bit keys
"$CLSORT" gen -n $N --seed 14 --type u64 --dist few:100 --value-size 8 --values-out v8.bin -o k64.bin || exit 2
run_clsort --type u64 --value-size 8 -i k64.bin -o k64.sorted --values v8.bin --values-out v8.sorted --verify
expect_status "--values with --value-size 8" 0
check "--values with --value-size 8: stable" $CHECK tsort k64.bin k64.sorted --type u64 --value-size 8 \
    --values v8.bin v8.sorted
"$CLSORT" gen -n $N --seed 15 --type f64 --values-out v4.bin -o kf64.bin || exit 2
run_clsort --type f64 --desc -i kf64.bin -o kf64.sorted --values v4.bin --values-out v4.sorted
expect_status "--values f64 keys, 4-byte values by default" 0
check "--values f64 keys, 4-byte values: stable" $CHECK tsort kf64.bin kf64.sorted --type f64 --value-size 4 \
    --desc --values v4.bin v4.sorted

# --verify checks the order the sort makes: the key type, the direction, the bit range, each segment
for t in i32 f64; do
    for flag in "" --desc; do
        run_clsort --type $t $flag --bits 4:20 --segment 1000 --verify -v -i $t.keys -o /dev/null
        expect_status "--type $t $flag --bits 4:20 --segment 1000 --verify" 0
        expect_message "--type $t $flag --bits 4:20 --segment 1000 --verify" \
            "verified: $N keys in order in each segment"
    done
done

# the reports name the key type and value size
run_clsort --type f64 --value-size 8 --desc -i f64.8.kv -o /dev/null --stats-json t.json --stats
expect_status "--stats-json f64" 0
expect_message "--stats: key type" "sorted $N f64 keys with 8-byte values, descending"
check "--stats-json: key_type f64, value_size 8, descending" $PYTHON -c "
import json, sys; o = json.load(open('t.json'))
sys.exit(not (o['key_type'] == 'f64' and o['value_size'] == 8 and o['descending'] is True and o['n'] == $N
              and o['begin_bit'] == 0 and o['end_bit'] == 64 and o['segment'] == 0))"
run_clsort --bits 8:16 --segment 0 -i u32.keys -o /dev/null --stats-json b.json
check "--stats-json: the bit range" $PYTHON -c "
import json, sys; o = json.load(open('b.json'))
sys.exit(not (o['key_type'] == 'u32' and o['begin_bit'] == 8 and o['end_bit'] == 16))"

finish
