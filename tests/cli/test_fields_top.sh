#!/usr/bin/env bash
# sort --top K of records by a key field (--record-size, --key-offset, --type bytes --key-size)
# against fields.py's stable sort cut to K records, bit for bit: numbers at offsets and keys of
# bytes, both orders, ties (records of equal keys differ in their other bytes: they keep their
# input order); K = n, and K = 1, a middle K, n - 1 against its first K records; from stdin; K
# across many blocks (CLSORT_TEST_RECORD_RUN) and an input of a few blocks under -S; --index-out
# (the input positions of the K); empty inputs and K > n (all there is, sorted); a K over half of
# what -S sorts at once (a whole sort's first K); K = 0, sizes that are not whole records, refused
# combinations: exit 1, a message, no output.
. "$(dirname "$0")/lib.sh" "$@"

REF=$TESTS/fields.py
N=1000
# name, record size, key offset, key (bytes:K or a type), options of order
cases=(
    "u32 12 0 u32"
    "i32 9 3 i32 --desc"
    "f32 8 2 f32"
    "u64 16 4 u64 --desc"
    "f64 20 5 f64"
    "b10 40 3 bytes:10"
    "b10d 40 3 bytes:10 --desc"
)
for c in "${cases[@]}"; do
    read -r name rs off key opts <<< "$c"
    # shellcheck disable=SC2086
    record_args "$key" "$rs" "$off" $opts
    $PYTHON "$REF" gen $name.in "$N" "$rs" "${#name}$rs" "$off" "$ks" || exit 2
    # K = n against the reference; every other K against the first K records of that
    check "$c: --top $N" "$CLSORT" "${args[@]}" --top $N -i $name.in -o $name.$N
    # shellcheck disable=SC2086
    check "$c: --top $N, the reference" $PYTHON "$REF" check $name.in $name.$N "$rs" "$off" \
        "$key" $opts --top $N
    for k in 1 333 $((N - 1)); do
        if [ "$k" = 333 ]; then # from stdin
            check "$c: --top $k, stdin" sh -c 'n=$1; k=$2; shift 2; "$0" "$@" < $n.in > $n.$k' \
                "$CLSORT" $name $k "${args[@]}" --top $k
        else
            check "$c: --top $k" "$CLSORT" "${args[@]}" --top $k -i $name.in -o $name.$k
        fi
        head -c $((k * rs)) $name.$N > $name.want
        same_file "$c: --top $k, the first $k of the reference's" $name.$k $name.want
    done
    # blocks of 97 records: K spans several, and the records kept meet ties in each new block
    check "$c: --top 250 in blocks of 97, stdin" sh -c \
        'n=$1; shift; CLSORT_TEST_RECORD_RUN=97 "$0" "$@" < $n.in > $n.blocks' "$CLSORT" $name \
        "${args[@]}" --top 250
    head -c $((250 * rs)) $name.$N > $name.want
    same_file "$c: --top 250 in blocks, the first 250 of the reference's" $name.blocks $name.want
    # --index-out: each record's input position, kept with it from block to block
    check "$c: --top 250 --index-out in blocks of 97, stdin" sh -c \
        'n=$1; shift; CLSORT_TEST_RECORD_RUN=97 "$0" "$@" < $n.in > $n.iblocks' "$CLSORT" $name \
        "${args[@]}" --top 250 --index-out $name.ipos
    # shellcheck disable=SC2086
    check "$c: --top 250 --index-out, the reference" $PYTHON "$REF" check $name.in $name.iblocks \
        "$rs" "$off" "$key" $opts --top 250 --index $name.ipos
    check "$c: --top 7 --index-out" "$CLSORT" "${args[@]}" --top 7 -i $name.in -o $name.i7 \
        --index-out $name.i7pos
    # shellcheck disable=SC2086
    check "$c: --top 7 --index-out, the reference" $PYTHON "$REF" check $name.in $name.i7 \
        "$rs" "$off" "$key" $opts --top 7 --index $name.i7pos
done

# an input of a few blocks under -S (what it sorts at once less K; -S is the data's memory)
$PYTHON "$REF" gen big.in 120000 16 5 4 8 || exit 2
big=(--record-size 16 --key-offset 4 --type u64)
S=6M
check "-S $S: --top 1000" "$CLSORT" "${big[@]}" -S "$S" --top 1000 -i big.in -o big.top \
    --stats-json big.json
check "-S $S: --top 1000, the reference" $PYTHON "$REF" check big.in big.top 16 4 u64 --top 1000
check "-S $S: --top 1000 took more than one block" grep -Eq '"runs": *([2-9]|[1-9][0-9])' big.json
check "-S $S: --top 3000 --desc, stdin" sh -c '"$0" "$@" < big.in > big.desc' "$CLSORT" \
    "${big[@]}" -S "$S" --top 3000 --desc
check "-S $S: --top 3000 --desc, the reference" $PYTHON "$REF" check big.in big.desc 16 4 u64 \
    --desc --top 3000
# a K over half of what -S sorts at once: a whole sort (runs merged), its first K written
check "-S $S: --top 100000" "$CLSORT" "${big[@]}" -S "$S" --top 100000 -i big.in -o big.most \
    --index-out big.most.pos
check "-S $S: --top 100000, the reference" $PYTHON "$REF" check big.in big.most 16 4 u64 \
    --top 100000 --index big.most.pos

# K over the input (a file's and a pipe's), and empty inputs: all there is, sorted
: > empty.in
rec=(--record-size 40 --key-offset 3 --type bytes --key-size 10)
check "--top $((N + 1)) of $N records" "$CLSORT" "${rec[@]}" --top $((N + 1)) -i b10.in -o over.out
check "--top $((N + 1)) of $N records, the reference" $PYTHON "$REF" check b10.in over.out 40 3 \
    bytes:10
check "--top 1000000000 of $N records, stdin" sh -c '"$0" "$@" < b10.in > over.pipe' "$CLSORT" \
    "${rec[@]}" --top 1000000000 --desc --index-out over.pos
check "--top 1000000000 of $N records, stdin, the reference" $PYTHON "$REF" check b10.in \
    over.pipe 40 3 bytes:10 --desc --index over.pos
check "--top 1 of an empty file" "$CLSORT" "${rec[@]}" --top 1 -i empty.in -o empty.out
check "--top 1 of an empty file: empty output" test -f empty.out -a ! -s empty.out
check "--top 1 of an empty stdin" sh -c '"$0" "$@" < empty.in > empty.pipe' "$CLSORT" \
    "${rec[@]}" --top 1
check "--top 1 of an empty stdin: empty output" test -f empty.pipe -a ! -s empty.pipe

# refusals: exit 1, a message, no output
mkdir none
head -c $((40 * 7 + 13)) b10.in > odd.in
refusals=(
    "b10.in 0|--top 0: expected a number of records of at least 1"
    "odd.in 2|odd.in: 293 bytes is not a multiple of the 40-byte record size"
)
for r in "${refusals[@]}"; do
    read -r in k <<< "${r%%|*}"
    run_clsort "${rec[@]}" --top "$k" -i "$in" -o none/out
    expect_status "--top $k of $in" 1
    expect_message "--top $k of $in" "${r#*|}"
done
run_clsort "${rec[@]}" --top 3 -o none/out < odd.in
expect_status "--top of a stream ending inside a record" 1
expect_message "--top of a stream ending inside a record" "(stdin): 293 bytes is not a multiple"
for opt in -u -c --verify "--segment 10"; do
    # shellcheck disable=SC2086
    run_clsort "${rec[@]}" --top 5 $opt -i b10.in -o none/out
    expect_status "--top with $opt" 1
    expect_message "--top with $opt" "options --top and ${opt%% *} are incompatible"
done
expect_only none "refusals"

finish
