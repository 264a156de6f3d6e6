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
expect_message "gen -v" "generated $N keys"

# the samples in data/ are what data/README.md says
if [ -n "${DATA_DIR:-}" ] && [ -f "$DATA_DIR/keys.bin" ]; then
    "$CLSORT" gen -n 262144 --dist uniform --seed 2024 -o keys.bin
    same_file "data/keys.bin is reproducible" keys.bin "$DATA_DIR/keys.bin"
    "$CLSORT" gen -n 131072 --dist few:1000 --seed 2024 --kv -o pairs.bin
    same_file "data/pairs.bin is reproducible" pairs.bin "$DATA_DIR/pairs.bin"
fi

finish
