#!/usr/bin/env bash
# Key/value sorting: interleaved records (--kv) and separate files (--values/--values-out). Every value
# must stay with its key; with the stable algorithms, equal keys also keep their input order.
. "$(dirname "$0")/lib.sh" "$@"

N=60000

# --kv: records of (key, index); few distinct keys, so stability is visible
"$CLSORT" gen -n $N --dist few:50 --seed 3 --kv -o pairs.bin || exit 2
cp pairs.bin pairs.orig
for algo in $(algorithms); do
    if [ "$algo" = oddeven ]; then
        head -c 80000 pairs.bin > small-pairs.bin
        run_clsort --kv -i small-pairs.bin -o pairs.$algo.bin --algo $algo
        expect_status "--kv --algo $algo" 0
        check "--kv --algo $algo: records sorted" $CHECK kvset small-pairs.bin pairs.$algo.bin
        continue # quadratic: small inputs only
    fi
    run_clsort --kv -i pairs.bin -o pairs.$algo.bin --algo $algo
    expect_status "--kv --algo $algo" 0
    check "--kv --algo $algo: records sorted, values with their keys" $CHECK kvset pairs.bin pairs.$algo.bin
    run_clsort -i pairs.bin -o /dev/null --values pairs.bin --values-out /dev/null --algo $algo --verify
    expect_status "--values --algo $algo --verify" 0
done
# the algorithms the library documents as stable keep equal keys in input order
for algo in radix4 radix8 onesweep radix8-rts radix-hybrid; do
    case " $(algorithms) " in *" $algo "*) ;; *) continue ;; esac
    check "--kv --algo $algo: records sorted, stable" $CHECK kv pairs.bin pairs.$algo.bin
done
same_file "--kv: input untouched" pairs.bin pairs.orig

# --kv with uniform keys, through a pipe
"$CLSORT" gen -n $N --seed 4 --kv -o upairs.bin
cat upairs.bin | "$CLSORT" --kv -a radix4 > upairs.sorted 2>err.txt
status=$?
expect_status "--kv pipe" 0
check "--kv pipe: records sorted" $CHECK kv upairs.bin upairs.sorted

# --kv in place, and descending (equal keys still keep their order)
cp pairs.bin inplace.bin
run_clsort --kv -i inplace.bin -o inplace.bin -a radix4
expect_status "--kv in place" 0
same_file "--kv in place: sorted" inplace.bin pairs.radix4.bin
run_clsort --kv -r -i pairs.bin -o pairs.desc -a radix4
expect_status "--kv -r" 0
check "--kv -r: descending, stable" $CHECK kv pairs.bin pairs.desc desc

# separate files: keys and values
"$CLSORT" gen -n $N --dist few:40 --seed 5 --values-out vals.bin -o keys.bin || exit 2
check "gen --values-out: values are indices" $CHECK index-values vals.bin $N
cp keys.bin keys.orig
cp vals.bin vals.orig
run_clsort -i keys.bin -o keys.sorted --values vals.bin --values-out vals.sorted -a radix4
expect_status "--values" 0
check "--values: keys and values sorted, stable" $CHECK separate keys.bin vals.bin keys.sorted vals.sorted
same_file "--values: keys input untouched" keys.bin keys.orig
same_file "--values: values input untouched" vals.bin vals.orig

# separate files with random values (not indices)
"$CLSORT" gen -n $N --seed 6 -o rvals.bin
run_clsort -i keys.bin -o k2.sorted --values rvals.bin --values-out v2.sorted --verify -a radix4
expect_status "--values random" 0
check "--values random: pairs kept together" $CHECK separate keys.bin rvals.bin k2.sorted v2.sorted

# separate files in place
cp keys.bin k.bin
cp vals.bin v.bin
run_clsort -i k.bin -o k.bin --values v.bin --values-out v.bin -a radix4
expect_status "--values in place" 0
same_file "--values in place: keys" k.bin keys.sorted
same_file "--values in place: values" v.bin vals.sorted

# keys from stdin, values from a file, values to stdout
cat keys.bin | "$CLSORT" -a radix4 --values vals.bin --values-out - -o k3.sorted > v3.sorted 2>err.txt
status=$?
expect_status "--values with stdin/stdout" 0
same_file "--values with stdin/stdout: keys" k3.sorted keys.sorted
same_file "--values with stdin/stdout: values" v3.sorted vals.sorted

# the two layouts agree
"$CLSORT" gen -n $N --dist few:40 --seed 5 --kv -o same.kv
run_clsort --kv -i same.kv -o same.kv.sorted -a radix4
check "layouts agree" $PYTHON -c "
import array, sys
r = array.array('I'); r.frombytes(open('same.kv.sorted','rb').read())
k = array.array('I'); k.frombytes(open('keys.sorted','rb').read())
v = array.array('I'); v.frombytes(open('vals.sorted','rb').read())
sys.exit(not (r[0::2] == k and r[1::2] == v))"

# --stats-json reports the value size
run_clsort --kv -i pairs.bin -o /dev/null --stats-json kv.json
check "--kv --stats-json: value_size 4" $PYTHON -c "
import json, sys; o = json.load(open('kv.json')); sys.exit(not (o['value_size'] == 4 and o['n'] == $N and o['layout'] == 'kv'))"

# empty key/value inputs
: > e.bin
run_clsort --kv -i e.bin -o e.out
expect_status "--kv empty" 0
check "--kv empty: empty output" test -f e.out -a ! -s e.out
run_clsort -i e.bin -o e.k --values e.bin --values-out e.v
expect_status "--values empty" 0
check "--values empty: empty outputs" test -f e.k -a ! -s e.k -a -f e.v -a ! -s e.v

# --kv takes 4-byte values unless told: a file of 64-bit keys with 8-byte values (not a whole
# number of 12-byte records) is refused with the value size that fits it named, from a file and
# from stdin; where no value size fits, no hint
mkdir out
"$CLSORT" gen -n 100 --type u64 --value-size 8 -o p64.bin || exit 2
run_clsort --kv -t u64 -i p64.bin -o out/x
expect_status "--kv -t u64 of 16-byte records" 1
expect_message "--kv -t u64 of 16-byte records" "p64.bin: 1600 bytes is not a multiple of the 12-byte record size (u64 key + 4-byte value); it is a whole number of 16-byte records (u64 key + 8-byte value): give --value-size 8"
"$CLSORT" --kv -t u64 -o out/x < p64.bin 2>err.txt
status=$?
expect_status "--kv -t u64 of 16-byte records, stdin" 1
expect_message "--kv -t u64 of 16-byte records, stdin" "give --value-size 8"
head -c 1599 p64.bin > odd.bin
run_clsort --kv -t u64 -i odd.bin -o out/x
expect_status "--kv -t u64 of 1599 bytes" 1
if grep -q -- "--value-size" err.txt; then not_ok "1599 bytes: no value size fits, none named"
else ok "1599 bytes: no value size named"; fi
check "-t u64 --value-size 8 --kv: sorted" "$CLSORT" --kv -t u64 --value-size 8 -i p64.bin -o p64.out
check "-t u64 --value-size 8 --kv: the reference" $CHECK tsort p64.bin p64.out --type u64 --value-size 8
expect_only out "refused --kv"

finish
