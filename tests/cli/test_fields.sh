#!/usr/bin/env bash
# Records sorted by a key field (--record-size, --key-offset, --type bytes --key-size) against
# fields.py's stable sort, bit for bit, whole records and --index-out positions: keys of bytes of 1
# to 17 bytes at offsets (ties and shared prefixes), the Sort Benchmark's 100-byte records with
# 10-byte keys, numbers at odd offsets (floats, both orders, --bits), stdin, every run's memory
# faulted in before the read (CLSORT_PREFAULT=1, as for runs of 64 MiB or more); empty input; bad
# inputs and refused combinations: exit 1, a message, nothing written, the input intact.
. "$(dirname "$0")/lib.sh" "$@"

REF=$TESTS/fields.py
# every run's memory faulted in by threads before the read, as large runs' is (io_prefault)
export CLSORT_PREFAULT=1
# name, records, record size, key offset, key (bytes:K or a type), options
cases=(
    "gensort 3001 100 0 bytes:10"
    "short 2000 5 2 bytes:1 --desc"
    "prefix 1999 40 7 bytes:17 --desc"
    "word 2500 8 0 bytes:8"
    "i32 3000 12 3 i32 --desc"
    "f64 2000 16 5 f64"
    "u64bits 2000 20 9 u64 --bits 8:40 --desc"
)
for c in "${cases[@]}"; do
    read -r name n rs off key opts <<< "$c"
    # shellcheck disable=SC2086
    record_args "$key" "$rs" "$off" $opts
    $PYTHON "$REF" gen $name.in "$n" "$rs" "${#name}" "$off" "$ks" || exit 2
    check "$c" "$CLSORT" "${args[@]}" -i $name.in -o $name.out --index-out $name.idx
    # shellcheck disable=SC2086
    check "$c: the reference" $PYTHON "$REF" check $name.in $name.out "$rs" "$off" "$key" $opts \
        --index $name.idx
done

# keys of bytes alone (no --record-size), from stdin to stdout
$PYTHON "$REF" gen alone.in 1000 12 3 || exit 2
check "bytes keys alone, stdin" sh -c '"$0" --type bytes --key-size 12 < alone.in > alone.out' \
    "$CLSORT"
check "bytes keys alone: the reference" $PYTHON "$REF" check alone.in alone.out 12 0 bytes:12

# empty input
: > empty.in
check "empty input" "$CLSORT" --record-size 100 --type bytes --key-size 10 -i empty.in -o empty.out
check "empty input: empty output" test -f empty.out -a ! -s empty.out

# refused, nothing written, the input intact
mkdir out
cp gensort.in gensort.copy
head -c 250 gensort.in > odd.in
run_clsort --record-size 100 --type bytes --key-size 10 -i odd.in -o out/x
expect_status "a size that is not whole records" 1
expect_message "a size that is not whole records" "odd.in: 250 bytes is not a multiple of the 100-byte record size"
run_clsort --record-size 100 --key-offset 95 --type bytes --key-size 10 -i gensort.in -o out/x
expect_status "a key past the record's end" 1
expect_message "a key past the record's end" "does not fit in records of 100 bytes"
run_clsort --record-size 100 --key-size 10 -i gensort.in -o out/x
expect_status "--key-size without --type bytes" 1
expect_message "--key-size without --type bytes" "--key-size gives the length of a --type bytes key"
run_clsort --record-size 100 --type bytes -i gensort.in -o out/x
expect_status "--type bytes without --key-size" 1
expect_message "--type bytes without --key-size" "--type bytes needs --key-size K"
run_clsort --key-offset 4 -i gensort.in -o out/x
expect_status "--key-offset without --record-size" 1
expect_message "--key-offset without --record-size" "--key-offset needs --record-size"
# with --type bytes too (7-byte records keyed at their end were read from it, undocumented): sort,
# merge and -c alike
key_alone=(--key-offset 3 --type bytes --key-size 4)
head -c 700 gensort.in > seven.in # a whole number of those 7-byte records
for how in sort merge check; do
    case $how in
    sort) run_clsort "${key_alone[@]}" -i seven.in -o out/x ;;
    merge) run_clsort merge "${key_alone[@]}" seven.in -o out/x ;;
    check) run_clsort -c "${key_alone[@]}" seven.in ;;
    esac
    expect_status "$how: --key-offset of a bytes key without --record-size" 1
    expect_message "$how: --key-offset of a bytes key without --record-size" \
        "--key-offset needs --record-size"
done
# --parallel (the merge's threads) applies to records too: the same output
check "records with --parallel" "$CLSORT" --record-size 100 --type bytes --key-size 10 --parallel 2 \
    -i gensort.in -o gensort.par
same_file "records with --parallel: as without" gensort.out gensort.par
printf '0\n3\n' > segs.txt
run_clsort --record-size 100 --type bytes --key-size 10 --segments segs.txt -i gensort.in -o out/x
expect_status "records with --segments" 1
expect_message "records with --segments" "--segments does not apply to records sorted by a key field"
run_clsort --record-size 100 --type bytes --key-size 10 --algo bitonic -i gensort.in -o out/x
expect_status "records with an unstable algorithm" 1
expect_message "records with an unstable algorithm" "bitonic is not stable"
run_clsort merge --type bytes --key-size 10 --kv gensort.in -o out/x
expect_status "merge --type bytes --kv" 1
expect_message "merge --type bytes --kv" "--kv does not apply to records sorted by a key field"
# sizes too large for any memory: refused at once, naming the option (they went on to "out of
# memory", exit 2); a key offset that would wrap the record size around
for bad in "--record-size 18446744073709551615 -t u64|--record-size 18446744073709551615 is too large" \
           "--record-size 1073741825|--record-size 1073741825 is too large" \
           "--type bytes --key-size 2 --key-offset 18446744073709551615|--key-offset 18446744073709551615 is too large" \
           "--record-size 100 --type bytes --key-size 4294967296|--key-size 4294967296 is too large"; do
    # shellcheck disable=SC2086
    run_clsort ${bad%%|*} -i /dev/null -o out/x
    expect_status "${bad%%|*}" 1
    expect_message "${bad%%|*}" "${bad#*|}"
    # shellcheck disable=SC2086
    run_clsort merge ${bad%%|*} empty.in -o out/x
    expect_status "merge ${bad%%|*}" 1
    expect_message "merge ${bad%%|*}" "${bad#*|}"
done
run_clsort merge --record-size 9223372036854775808 gensort.in -o out/x
expect_status "merge --record-size 2^63" 1
expect_message "merge --record-size 2^63" "--record-size 9223372036854775808 is too large: records (and their keys) of at most 1073741824 bytes"
expect_only out "refused records"
same_file "the input intact" gensort.copy gensort.in

finish
