#!/usr/bin/env bash
# Records by a key field (--record-size, --key-offset, --type bytes --key-size) with -c, -u, merge
# and --verify, against fields.py bit for bit: keys of bytes (longer than 8 bytes, ties, shared
# prefixes) and numbers at odd offsets, both orders, in memory and in runs (CLSORT_TEST_RECORD_RUN),
# stdin; empty inputs; an unsorted merge input and a stream that ends inside a record: exit 1, a
# message naming the file and the record, nothing written.
. "$(dirname "$0")/lib.sh" "$@"

REF=$TESTS/fields.py
mkdir out
# name, records, record size, key offset, key (bytes:K or a type), options
cases=(
    "b10 2001 40 3 bytes:10"
    "b3 1500 7 4 bytes:3 --desc"
    "f64 1800 16 5 f64"
    "i32d 1800 9 2 i32 --desc"
)
for c in "${cases[@]}"; do
    read -r name n rs off key opts <<< "$c"
    # shellcheck disable=SC2086
    record_args "$key" "$rs" "$off" $opts
    $PYTHON "$REF" gen $name.in "$n" "$rs" "${#name}" "$off" "$ks" || exit 2
    # -u and --verify, in memory and in runs of 97 records merged 3 at a time, from stdin
    check "$c: -u --verify" "$CLSORT" "${args[@]}" -u --verify -i $name.in -o $name.u \
        --index-out $name.uidx
    # shellcheck disable=SC2086
    check "$c: -u, the reference" $PYTHON "$REF" check $name.in $name.u "$rs" "$off" "$key" $opts \
        --unique --index $name.uidx
    check "$c: -u in runs, stdin" sh -c 'n=$1; shift; CLSORT_TEST_RECORD_RUN=97 "$0" "$@" < $n.in > $n.ur' \
        "$CLSORT" $name "${args[@]}" -u --verify --batch-size 3 --index-out $name.uridx
    same_file "$c: -u in runs, as in memory" $name.u $name.ur
    same_file "$c: -u in runs, positions" $name.uidx $name.uridx
    # -c: the sorted output passes; the input fails at fields.py's first record out of order
    check "$c: sort" "$CLSORT" "${args[@]}" -i $name.in -o $name.s
    # shellcheck disable=SC2086
    want=$($PYTHON "$REF" order $name.in "$rs" "$off" "$key" $opts)
    # shellcheck disable=SC2086
    strict=$($PYTHON "$REF" order $name.s "$rs" "$off" "$key" $opts --unique)
    run_clsort -c "${args[@]}" $name.s
    expect_status "$c: -c sorted" 0
    run_clsort -c "${args[@]}" < $name.in
    expect_status "$c: -c unsorted, stdin" 1
    expect_message "$c: -c unsorted, stdin" "(stdin): record $want (byte $((want * rs)))"
    run_clsort -c -u "${args[@]}" $name.s
    expect_status "$c: -c -u, repeated keys" 1
    expect_message "$c: -c -u, repeated keys" "$name.s: record $strict (byte"
    run_clsort -c -u "${args[@]}" $name.u
    expect_status "$c: -c -u of -u's output" 0
    # merge: the input cut in three, each sorted; stable (earlier file first on ties), -u
    head -c $((700 * rs)) $name.in > $name.a
    tail -c +$((700 * rs + 1)) $name.in | head -c $((300 * rs)) > $name.b
    tail -c +$((1000 * rs + 1)) $name.in > $name.c
    for p in a b c; do "$CLSORT" "${args[@]}" -i $name.$p -o $name.$p.s || exit 2; done
    check "$c: merge" "$CLSORT" merge "${args[@]}" $name.a.s $name.b.s $name.c.s -o $name.m
    # shellcheck disable=SC2086
    check "$c: merge, the reference" $PYTHON "$REF" check $name.a $name.b $name.c $name.m "$rs" \
        "$off" "$key" $opts
    check "$c: merge -u, stdin" sh -c 'n=$1; shift; "$0" merge "$@" < $n.b.s > $n.mu' "$CLSORT" $name \
        "${args[@]}" -u $name.a.s - $name.c.s
    # shellcheck disable=SC2086
    check "$c: merge -u, the reference" $PYTHON "$REF" check $name.a $name.b $name.c $name.mu \
        "$rs" "$off" "$key" $opts --unique
    # an unsorted input: named, with its record
    run_clsort merge "${args[@]}" $name.a.s $name.b -o out/m
    expect_status "$c: merge of an unsorted input" 1
    # shellcheck disable=SC2086
    expect_message "$c: merge of an unsorted input" \
        "$name.b: record $($PYTHON "$REF" order $name.b "$rs" "$off" "$key" $opts) (byte"
done

# empty inputs
: > empty.in
rec=(--record-size 100 --type bytes --key-size 10)
check "empty: -u --verify" "$CLSORT" "${rec[@]}" -u --verify -i empty.in -o empty.out
check "empty: -u --verify: empty output" test -f empty.out -a ! -s empty.out
check "empty: -c" "$CLSORT" -c "${rec[@]}" empty.in
check "empty: merge" "$CLSORT" merge "${rec[@]}" empty.in empty.in -o empty.m
check "empty: merge: empty output" test -f empty.m -a ! -s empty.m

# sizes that are not whole records, a key past the record's end: exit 1, nothing written (-c: 2,
# an input that cannot be checked, as sort -c has it)
$PYTHON "$REF" gen g.in 30 100 1 0 10 || exit 2
"$CLSORT" "${rec[@]}" -i g.in -o g.s || exit 2
head -c 250 g.s > odd.in
run_clsort -c "${rec[@]}" odd.in
expect_status "-c of a size that is not whole records" 2
expect_message "-c of a size that is not whole records" "odd.in: 250 bytes is not a multiple of the 100-byte record size"
run_clsort -c "${rec[@]}" < odd.in
expect_status "-c of a stream ending inside a record" 2
expect_message "-c of a stream ending inside a record" "(stdin): 250 bytes is not a multiple"
run_clsort merge "${rec[@]}" g.s odd.in -o out/m
expect_status "merge of a size that is not whole records" 1
expect_message "merge of a size that is not whole records" "odd.in: 250 bytes is not a multiple"
run_clsort merge --record-size 10 --key-offset 5 --type u64 g.s -o out/m
expect_status "merge, a key past the record's end" 1
expect_message "merge, a key past the record's end" "does not fit in records of 10 bytes"
run_clsort merge --type bytes g.s -o out/m
expect_status "merge --type bytes without --key-size" 1
expect_message "merge --type bytes without --key-size" "--type bytes needs --key-size K"
expect_only out "refused records"

finish
