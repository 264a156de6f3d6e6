#!/usr/bin/env bash
# sort -c: exit 0 for sorted input and 1 for the first record out of order, the record's index the
# one check.py finds (-C: the same statuses, nothing said; 2 for an input that cannot be checked) (every key type, float specials included, both orders, records, --bits,
# --segment; -u: equal neighbours too), from files and from stdin, across the reader's blocks; no
# output written; bad input and options refused.
. "$(dirname "$0")/lib.sh" "$@"

N=3000
# the cases: key type, value size, options of order
cases=()
for t in u32 i32 f32 u64 i64 f64; do
    for o in "" --desc; do
        cases+=("$t 0 $o" "$t 8 $o")
    done
done
cases+=("u64 0 --bits 8:40" "i32 4 --desc --bits 4:20")

# every input and its reference answers, in one Python process
: > gen.txt
i=0
for c in "${cases[@]}"; do
    read -r t vs opts <<< "$c"
    echo "records s$i.bin $N $i --type $t --value-size $vs $opts --sorted" >> gen.txt
    echo "records u$i.bin $N $i --type $t --value-size $vs $opts" >> gen.txt
    echo "disorder s$i.bin --type $t --value-size $vs $opts" >> gen.txt
    echo "disorder u$i.bin --type $t --value-size $vs $opts" >> gen.txt
    echo "disorder s$i.bin --type $t --value-size $vs $opts --strict" >> gen.txt
    i=$((i + 1))
done
run_batch gen.txt
cp batch.out ref.txt
ref() { sed -n "s/^disorder $1 //p" ref.txt; }
ref_strict() { sed -n "s/^disorder strict $1 //p" ref.txt; }

# expect_check NAME FILE WANT ARGS...: clsort -c ARGS exits 0 when WANT is 'sorted', else 1 naming
# FILE and record WANT; nothing on stdout
expect_check() {
    local name=$1 file=$2 want=$3
    shift 3
    run_clsort -c "$@" > stdout.txt
    if [ "$want" = sorted ]; then
        expect_status "$name" 0
    else
        expect_status "$name" 1
        expect_message "$name" "$file: record $want (byte "
    fi
    check "$name: nothing on stdout" test ! -s stdout.txt
}

i=0
for c in "${cases[@]}"; do
    read -r t vs opts <<< "$c"
    args=(--type "$t")
    [ "$vs" = 0 ] || args+=(--value-size "$vs")
    # shellcheck disable=SC2206
    args+=($opts)
    expect_check "$c: sorted" s$i.bin "$(ref s$i.bin)" "${args[@]}" s$i.bin
    expect_check "$c: unsorted" u$i.bin "$(ref u$i.bin)" "${args[@]}" u$i.bin
    expect_check "$c: unsorted, stdin" "(stdin)" "$(ref u$i.bin)" "${args[@]}" < u$i.bin
    expect_check "$c: -u, repeated keys" s$i.bin "$(ref_strict s$i.bin)" -u "${args[@]}" -i s$i.bin
    i=$((i + 1))
done
# a message names both keys
run_clsort -c --type f32 --value-size 8 u4.bin
expect_message "f32: the keys in the message" "is out of ascending order: key "

# --segment: three sorted runs of 3000 u32 keys, sorted in segments of 3000, not as a whole
printf 'records seg%s.bin 3000 9%s --sorted\n' 1 1 2 2 3 3 > seg.txt
run_batch seg.txt
cat seg1.bin seg2.bin seg3.bin > seg.bin
printf 'disorder seg.bin --segment 3000\ndisorder seg.bin\n' > seg.txt
run_batch seg.txt
expect_check "--segment 3000" seg.bin "$(sed -n 's/^disorder seg.bin //p' batch.out | sed -n 1p)" --segment 3000 seg.bin
expect_check "no --segment" seg.bin "$(sed -n 's/^disorder seg.bin //p' batch.out | sed -n 2p)" seg.bin

# across the reader's blocks (1 MiB): 600k u32 keys 0, 3, 6, ...; record 262144 (the first of the
# second block) set to 0, or to the key before it
$PYTHON -c "
import array, sys
a = array.array('I', range(0, 3 * 600000, 3))
a.tofile(open('big.bin', 'wb'))
a[262144] = 0
a.tofile(open('big.low.bin', 'wb'))
a[262144] = a[262143]
a.tofile(open('big.eq.bin', 'wb'))
" || exit 2
expect_check "600k keys" big.bin sorted big.bin
expect_check "600k keys, -u" big.bin sorted -u big.bin
expect_check "a smaller key first in a block" big.low.bin 262144 big.low.bin
expect_check "a smaller key first in a block, stdin" "(stdin)" 262144 < big.low.bin
expect_check "equal keys across blocks" big.eq.bin sorted big.eq.bin
expect_check "equal keys across blocks, -u" big.eq.bin 262144 -u big.eq.bin
expect_check "equal keys across blocks, -u, a pipe" "(stdin)" 262144 -u < <(cat big.eq.bin)
expect_check "empty input" /dev/null sorted /dev/null
: > empty.bin
expect_check "empty file" empty.bin sorted empty.bin
head -c 4 big.bin > one.bin
expect_check "one key, -u" one.bin sorted -u one.bin

# -C (--check=quiet, --check=silent): the same status, nothing said; --check=diagnose-first is -c
said_nothing() { # NAME: the last run_clsort wrote nothing to stderr
    if [ -s err.txt ]; then not_ok "$1: said something"; else ok "$1: nothing said"; fi
}
for q in -C --check=quiet --check=silent; do
    run_clsort $q u0.bin
    expect_status "$q: unsorted" 1
    said_nothing "$q: unsorted"
    run_clsort $q s0.bin
    expect_status "$q: sorted" 0
    said_nothing "$q: sorted"
done
run_clsort -Cu --type u32 big.eq.bin
expect_status "-C -u: equal keys" 1
said_nothing "-C -u"
expect_check "--check=diagnose-first" u0.bin "$(ref u0.bin)" --check=diagnose-first u0.bin
expect_check "--check" u0.bin "$(ref u0.bin)" --check u0.bin
run_clsort --check=loudly u0.bin
expect_status "--check=loudly" 1
expect_message "--check=loudly" "expected diagnose-first, quiet or silent"

# input that cannot be checked: exit 2 (sort(1)'s trouble), the file named, also with -C; bad options:
# exit 1, refused before reading
mkdir out
head -c 12 s1.bin > odd.bin   # u32 with 8-byte values: 12-byte records; 12 is not u64's
for c in -c -C; do
    run_clsort $c --type u64 odd.bin
    expect_status "$c: size not a whole number of keys" 2
    expect_message "$c: size not a whole number of keys" "odd.bin: 12 bytes is not a multiple of the 8-byte"
    run_clsort $c --type u64 < odd.bin
    expect_status "$c: stdin ending inside a key" 2
    expect_message "$c: stdin ending inside a key" "(stdin): 12 bytes is not a multiple"
    run_clsort $c missing.bin
    expect_status "$c: missing input" 2
    expect_message "$c: missing input" "missing.bin: cannot open"
    run_clsort $c out
    expect_status "$c: a directory" 2
    $PYTHON -c "import struct; open('bad.off', 'wb').write(struct.pack('<2Q', 0, 5))"
    # the offsets of --segments are an option's: their errors exit 1, as the sort's do
    run_clsort $c --segments bad.off s0.bin
    expect_status "$c: offsets that do not fit the input" 1
    expect_message "$c: offsets that do not fit the input" "bad.off: entry 1"
    run_clsort $c --segments missing.off s0.bin
    expect_status "$c: missing offsets" 1
done
# -c and -C at once are refused as sort(1) refuses them (the last one did win, silently): every
# spelling, either order; the same one twice is no conflict
for pair in "-c -C" "-C -c" "-cC" "--check --check=quiet" "--check=silent -c" \
        "--check=diagnose-first -C"; do
    # shellcheck disable=SC2086
    run_clsort $pair s0.bin
    expect_status "$pair" 1
    expect_message "$pair: both named" "options -c and -C are incompatible"
done
run_clsort -C --check=quiet s0.bin
expect_status "-C --check=quiet: one way, given twice" 0
check "-C --check=quiet: nothing said" test ! -s err.txt
run_clsort -C -o out/x.bin s0.bin
expect_status "-C with -o" 1
expect_message "-C with -o" "are incompatible"
for o in "-o out/x.bin" "--values-out out/v.bin" "--stats-json out/j" --verify --stats \
        "--values s0.bin"; do
    # shellcheck disable=SC2086
    run_clsort -c s0.bin $o
    expect_status "-c with ${o%% *}" 1
    expect_message "-c with ${o%% *}" "options -c and ${o%% *} are incompatible"
    expect_only out "-c with ${o%% *}"
done

finish
