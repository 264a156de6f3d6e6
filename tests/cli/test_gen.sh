#!/usr/bin/env bash
# clsort gen: sizes, determinism, the distributions' shapes, key/value layouts, and the data/ samples.
. "$(dirname "$0")/lib.sh" "$@"

N=100000

# sizes
for n in 0 1 1000 64Ki 1k; do
    case $n in 64Ki) want=65536 ;; 1k) want=1000 ;; *) want=$n ;; esac
    run_clsort gen -n $n -o g.bin
    expect_status "gen -n $n" 0
    check "gen -n $n: $want keys" $CHECK count g.bin $want 4
    run_clsort gen -n $n --kv -o g.bin
    check "gen -n $n --kv: $want records" $CHECK count g.bin $want 8
done

# determinism: same seed, same bytes; another seed, other bytes
"$CLSORT" gen -n $N --seed 42 -o a.bin
"$CLSORT" gen -n $N --seed 42 -o b.bin
"$CLSORT" gen -n $N --seed 43 -o c.bin
same_file "same seed, same keys" a.bin b.bin
check "another seed, other keys" test -n "$(cmp a.bin c.bin 2>&1)"
for dist in sorted reverse few:7 entropy:3 constant; do
    "$CLSORT" gen -n $N --seed 42 --dist $dist -o d1.bin
    "$CLSORT" gen -n $N --seed 42 --dist $dist -o d2.bin
    same_file "same seed, same keys ($dist)" d1.bin d2.bin
done
# the stream does not depend on n: a shorter run is a prefix
"$CLSORT" gen -n 70001 --seed 42 -o prefix.bin
check "uniform keys: shorter run is a prefix" cmp -n 280004 prefix.bin a.bin
# to stdout
"$CLSORT" gen -n $N --seed 42 | cmp -s - a.bin
check "gen to stdout" test "${PIPESTATUS[*]}" = "0 0"
# the seed in hex
"$CLSORT" gen -n $N --seed 0x2a -o hex.bin
same_file "hex seed" hex.bin a.bin

# a known answer: the generator must not change, or data/ and published results could not be remade.
# The keys are the upper 32 bits of xoshiro256** outputs, its state filled by splitmix64 from the seed.
KNOWN_FIRST_KEYS="3019026285 2235258262 2465765206"
sum=$("$CLSORT" gen -n 1000 --seed 1 | od -An -tu4 -v | tr -s ' ' '\n' | grep -v '^$' | head -3 | tr '\n' ' ')
echo "first keys of seed 1: $sum"
check "known answer (seed 1)" test "$sum" = "$(printf '%s ' $KNOWN_FIRST_KEYS)"

# distributions
check "uniform" $CHECK dist a.bin uniform
for dist in sorted reverse constant; do
    "$CLSORT" gen -n $N --seed 5 --dist $dist -o $dist.bin
    check "$dist" $CHECK dist $dist.bin $dist
done
"$CLSORT" gen -n 1000 --dist constant:7 -o c7.bin
check "constant:7" $PYTHON -c "
import array, sys; a = array.array('I'); a.frombytes(open('c7.bin','rb').read()); sys.exit(set(a) != {7})"
"$CLSORT" gen -n $N --seed 5 --dist few:10 -o few.bin
check "few:10" $CHECK dist few.bin few 10
"$CLSORT" gen -n $N --seed 5 --dist few:1 -o few1.bin
check "few:1" $CHECK dist few1.bin few 1
for q in 1 2 3 4 8; do
    "$CLSORT" gen -n $N --seed 9 --dist entropy:$q -o e$q.bin
    check "entropy:$q: set bits close to 2^-$q" $CHECK bits e$q.bin $q
done

# zipf: the most frequent keys' shares follow k^-S; deterministic, a shorter run is a prefix
for s in 1.2 0.8 2; do
    "$CLSORT" gen -n 200000 --seed 4 --dist zipf:$s -o z.bin
    check "zipf:$s: ranks follow k^-$s" $CHECK zipf z.bin $s
done
"$CLSORT" gen -n 50000 --seed 4 --dist zipf:1.5 -o z1.bin
"$CLSORT" gen -n 50000 --seed 4 --dist zipf:1.5 -o z2.bin
same_file "zipf: same seed, same keys" z1.bin z2.bin
"$CLSORT" gen -n 30000 --seed 4 --dist zipf:1.5 -o z3.bin
check "zipf: shorter run is a prefix" cmp -n 120000 z3.bin z1.bin

# key types: sizes, order as the type, finite floats, bit fractions of entropy
for t in u32 i32 f32 u64 i64 f64; do
    for d in uniform sorted reverse entropy:2; do
        "$CLSORT" gen -n 4000 --seed 8 --type $t --dist $d -o t.bin 2>err.txt
        check "--type $t --dist $d" $CHECK typed t.bin $t $d
    done
    "$CLSORT" gen -n 4000 --seed 8 --type $t --dist few:9 -o t.bin
    check "--type $t --dist few:9: 9 distinct keys" $PYTHON -c "
import sys; d = open('t.bin','rb').read(); k = len(d) // 4000
sys.exit(len({d[i:i + k] for i in range(0, len(d), k)}) != 9)"
    "$CLSORT" gen -n 20000 --seed 8 --type $t --dist zipf:1 -o t1.bin
    "$CLSORT" gen -n 20000 --seed 8 --type $t --dist zipf:1 -o t2.bin
    same_file "--type $t --dist zipf:1: deterministic" t1.bin t2.bin
done
"$CLSORT" gen -n 1000 --type i32 --dist constant:-5 -o c.bin
check "i32 constant:-5" $PYTHON -c "
import array, sys; a = array.array('i'); a.frombytes(open('c.bin','rb').read()); sys.exit(set(a) != {-5})"
"$CLSORT" gen -n 1000 --type f64 --dist constant:-2.5 -o c.bin
check "f64 constant:-2.5" $PYTHON -c "
import array, sys; a = array.array('d'); a.frombytes(open('c.bin','rb').read()); sys.exit(set(a) != {-2.5})"
"$CLSORT" gen -n 1000 --type u64 --dist constant:0xffffffffffffffff -o c.bin
check "u64 constant:2^64-1" $PYTHON -c "
import array, sys; a = array.array('Q'); a.frombytes(open('c.bin','rb').read()); sys.exit(set(a) != {2**64-1})"
# i32 uniform keys are the u32 keys with the sign bit flipped: one stream for every 32-bit type
"$CLSORT" gen -n 1000 --seed 42 --type i32 -o i.bin
check "i32 uniform: the u32 stream, as signed" $PYTHON -c "
import array, sys
i = array.array('I'); i.frombytes(open('i.bin','rb').read())
u = array.array('I'); u.frombytes(open('a.bin','rb').read()[:4000])
sys.exit(list(i) != [x ^ 0x80000000 for x in u])"

# value sizes: records of key + value (packed), or a separate values file
for t in u32 f32 u64; do
    for vs in 4 8; do
        "$CLSORT" gen -n 2000 --seed 3 --type $t --value-size $vs --dist sorted -o r.bin
        check "--type $t --value-size $vs: records, values are indices" $CHECK typed r.bin $t sorted $vs
    done
done
"$CLSORT" gen -n 5000 --seed 3 --type u64 --value-size 8 --values-out v8.bin -o k8.bin
check "--values-out with --value-size 8: 8-byte values" $PYTHON -c "
import array, sys; a = array.array('Q'); a.frombytes(open('v8.bin','rb').read()); sys.exit(list(a) != list(range(5000)))"
check "--values-out with --value-size 8: keys alone" $CHECK count k8.bin 5000 8
"$CLSORT" gen -n 5000 --seed 3 --value-size 0 -o k0.bin
check "--value-size 0: keys only" $CHECK count k0.bin 5000 4
# --value-size 4 is --kv
"$CLSORT" gen -n 5000 --seed 3 --kv -o kv1.bin
"$CLSORT" gen -n 5000 --seed 3 --value-size 4 -o kv2.bin
same_file "--value-size 4 is --kv" kv1.bin kv2.bin
# and clsort sorts what gen writes with --value-size 4, given the same option
run_clsort --value-size 4 -i kv2.bin -o kv2.sorted
expect_status "sort --value-size 4" 0
check "sort --value-size 4: records sorted" $CHECK kv kv2.bin kv2.sorted
run_clsort --type u32 -i a.bin -o a.sorted
expect_status "sort --type u32" 0

# key/value layouts: the same keys, values are the records' indices
"$CLSORT" gen -n $N --seed 42 --kv -o kv.bin
check "--kv: values are indices" $CHECK kv-index kv.bin $N
check "--kv: keys as without --kv" $PYTHON -c "
import array, sys
r = array.array('I'); r.frombytes(open('kv.bin','rb').read())
k = array.array('I'); k.frombytes(open('a.bin','rb').read())
sys.exit(r[0::2] != k)"
"$CLSORT" gen -n $N --seed 42 --values-out v.bin -o k.bin
same_file "--values-out: keys as without it" k.bin a.bin
check "--values-out: values are indices" $CHECK index-values v.bin $N

# -v reports the rate
run_clsort gen -n $N -o /dev/null -v
expect_message "gen -v" "generated $N keys (u32; uniform"

# the samples in data/ are what data/README.md says
if [ -n "${DATA_DIR:-}" ] && [ -f "$DATA_DIR/keys.bin" ]; then
    "$CLSORT" gen -n 262144 --dist uniform --seed 2024 -o keys.bin
    same_file "data/keys.bin is reproducible" keys.bin "$DATA_DIR/keys.bin"
    "$CLSORT" gen -n 131072 --dist few:1000 --seed 2024 --kv -o pairs.bin
    same_file "data/pairs.bin is reproducible" pairs.bin "$DATA_DIR/pairs.bin"
fi

finish
