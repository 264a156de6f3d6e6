#!/usr/bin/env bash
# Records by a key field larger than memory: under a small -S, runs sorted one at a time, kept in
# memory or written to temporary files in -T, and merged (in levels with --batch-size) into the
# output, checked against fields.py bit for bit with --index-out: keys of bytes and numbers, both
# orders, ties, from a file and from stdin; --segment in runs; -T left empty. A stream that ends
# inside a record after runs went to files, and a bad -T: exit 1 or 3, a message, nothing left.
. "$(dirname "$0")/lib.sh" "$@"

REF=$TESTS/fields.py
mkdir runs out

# the least -S clsort takes (what it holds before any data), and a few MiB for the data
$PYTHON "$REF" gen tiny.in 10 100 1 0 10 || exit 2
"$CLSORT" --record-size 100 --type bytes --key-size 10 -S 1Mi -i tiny.in -o tiny.out 2>err.txt
least=$(least_mi err.txt)
if [ -z "$least" ]; then
    not_ok "-S 1Mi: no 'give at least -S NMi' in the message"
    finish
fi
ok "-S 1Mi refused, at least ${least}Mi"
S=$((least + 8))Mi

# spilled NAME JSON: the report says runs went to temporary files
spilled() {
    if $PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["runs_spilled"] > 0 and r["runs"] > 1 else 1)' "$2"; then
        ok "$1: runs spilled"
    else
        not_ok "$1: no run went to a temporary file"
    fi
}

# name, records, record size, key offset, key (bytes:K or a type), records a run at most (0: as -S
# allows), options
cases=(
    "big 5000 2000 1990 bytes:10 0"
    "bigf 5000 2000 7 f32 0 --desc"
    "many 3000 2000 100 bytes:20 100 --batch-size 4"
    "small 5003 24 8 u64 333 --desc --batch-size 2"
    "seg 2500 30 0 bytes:9 400 --segment 250"
)
for c in "${cases[@]}"; do
    read -r name n rs off key run opts <<< "$c"
    # shellcheck disable=SC2086
    record_args "$key" "$rs" "$off" $opts
    $PYTHON "$REF" gen $name.in "$n" "$rs" "${#name}" "$off" "$ks" || exit 2
    # this case's least -S: what clsort holds depends on the kernels it builds (segments build some)
    case_least=$(least_of "${args[@]}" -i $name.in -o $name.out)
    args+=(-S "$(( ${case_least:-$least} + 8 ))Mi" -T runs)
    hook=()
    [ "$run" = 0 ] || hook=(env CLSORT_TEST_RECORD_RUN="$run")
    check "$c" "${hook[@]}" "$CLSORT" "${args[@]}" --verify -i $name.in -o $name.out \
        --index-out $name.idx --stats-json $name.json
    refopts=(${opts/--batch-size [0-9]*/})
    check "$c: the reference" $PYTHON "$REF" check $name.in $name.out "$rs" "$off" "$key" \
        "${refopts[@]}" --index $name.idx
    [ "$name" = seg ] || spilled "$c" $name.json
    check "$c: stdin" sh -c 'n=$1; shift; "$@" < $n.in > $n.pipe' x $name "${hook[@]}" \
        "$CLSORT" "${args[@]}"
    same_file "$c: stdin, as from the file" $name.out $name.pipe
    expect_only runs "$c: -T"
done

# a stream that ends inside a record once runs went to files: exit 1, nothing written, -T empty
head -c $((5000 * 2000 - 7)) big.in > cut.in
run_clsort --record-size 2000 --key-offset 1990 --type bytes --key-size 10 -S "$S" -T runs \
    -o out/x < cut.in
expect_status "a stream ending inside a record" 1
expect_message "a stream ending inside a record" "(stdin): 9999993 bytes is not a multiple of the 2000-byte record size"
run_clsort --record-size 2000 --type bytes --key-size 10 -S "$S" -T missing -i big.in -o out/x
expect_status "-T a missing directory" 3
expect_message "-T a missing directory" "cannot create a temporary file in missing"
expect_only out "refused records"
expect_only runs "refused records: -T"

finish
