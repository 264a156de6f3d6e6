#!/usr/bin/env bash
# sort -u: the first record (the earliest input record) of each run of equal keys, as check.py's
# stable sort and filter write it, bit for bit, values included: every key type (floats with ±0.0,
# NaNs with payloads, infinities), both orders, --bits, records and values apart, in memory, in
# runs merged in memory (CLSORT_CHUNK_KEYS) and in runs spilled to files (-S), from files and from
# stdin; empty input, one record; --stats counts; refused combinations.
. "$(dirname "$0")/lib.sh" "$@"

N=3000
# key type, value size, layout, options of order
cases=(
    "u32 0 keys" "i32 4 kv --desc" "f32 8 kv" "f32 0 keys --desc" "u64 8 kv --desc"
    "i64 0 keys" "f64 4 kv" "f64 0 keys --desc" "u64 0 keys --bits 8:40" "i32 8 kv --bits 4:20 --desc"
    "f32 4 values" "i64 8 values --desc"
)
: > gen.txt
i=0
for c in "${cases[@]}"; do
    read -r t vs layout opts <<< "$c"
    if [ "$layout" = values ]; then
        echo "records in$i.bin $N $i --type $t" >> gen.txt
        echo "records in$i.val $N $((i + 50)) --type $([ "$vs" = 4 ] && echo u32 || echo u64)" >> gen.txt
    else
        echo "records in$i.bin $N $i --type $t --value-size $vs" >> gen.txt
    fi
    i=$((i + 1))
done
run_batch gen.txt

: > refs.txt
i=0
for c in "${cases[@]}"; do
    read -r t vs layout opts <<< "$c"
    # shellcheck disable=SC2206
    args=(--type "$t" $opts)
    ref=(--type "$t" $opts --unique)
    case $layout in
        kv) args+=(--value-size "$vs"); ref+=(--value-size "$vs") ;;
        values) args+=(--value-size "$vs" --values in$i.val); ref+=(--value-size "$vs") ;;
    esac
    for how in file chunks; do
        out=(-o out$i.$how.bin)
        refv=()
        if [ "$layout" = values ]; then
            out+=(--values-out out$i.$how.val)
            refv=(--values in$i.val out$i.$how.val)
        fi
        if [ $how = file ]; then
            check "$c: -u" "$CLSORT" -u "${args[@]}" -i in$i.bin "${out[@]}"
        else # runs of 500 records merged, the input from stdin
            check "$c: -u, runs, stdin" env CLSORT_CHUNK_KEYS=500 "$CLSORT" -u "${args[@]}" \
                "${out[@]}" < in$i.bin
        fi
        echo "tsort in$i.bin out$i.$how.bin ${ref[*]} ${refv[*]}" >> refs.txt
    done
    i=$((i + 1))
done
run_batch refs.txt
# the filter is not a no-op: the inputs have repeated keys
check "-u dropped records" test "$(stat -c %s out0.file.bin)" -lt "$(stat -c %s in0.bin)"

# runs spilled to temporary files (-S: what clsort holds, plus 8 MiB), from a file and from stdin,
# records of u32 keys with 5000 distinct values; descending too
mkdir runs
"$CLSORT" gen -n 1200k --kv --dist few:5000 --seed 5 -o big.kv || exit 2
# (both orders: each builds programs of its own)
least=$(least_of --kv -u -i big.kv -o big.u)
least_r=$(least_of --kv -u -r -i big.kv -o big.ur)
[ "${least_r:-0}" -le "${least:-0}" ] || least=$least_r
S=$((least + 8))Mi
check "-u -S $S" env CLSORT_CHUNK_KEYS=100000 "$CLSORT" --kv -u -i big.kv -o big.u -S "$S" \
    -T runs --stats-json big.json
check "-u -S $S: runs spilled" $PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1]))
sys.exit(0 if r["runs_spilled"] > 1 and r["n"] == 1200000 and r["n_out"] == 5000 else 1)' big.json
check "-u -S $S -r, stdin" sh -c 'CLSORT_CHUNK_KEYS=100000 "$0" --kv -u -r -o big.ur -S "$1" \
    -T runs < big.kv' "$CLSORT" "$S"
expect_only runs "-u -S: runs removed"
printf 'firsts big.kv big.u\nfirsts big.kv big.ur desc\n' > big.txt
run_batch big.txt

# empty input, one record; --stats says what went in and out
: > empty.bin
check "-u, empty input" "$CLSORT" -u -i empty.bin -o empty.out
check "-u, empty output" test -f empty.out -a ! -s empty.out
head -c 8 big.kv > one.kv
check "-u, one record" "$CLSORT" -u --kv -i one.kv -o one.out
same_file "-u, one record: the record" one.kv one.out
run_clsort -u --kv -i big.kv -o /dev/null --stats
expect_status "-u --stats" 0
expect_message "-u --stats" "unique      5000 records written, 1195000 with a key seen before dropped"

# refused: an unstable algorithm where equal keys differ, --segment; nothing written
mkdir out
run_clsort -u --kv --algo bitonic -i big.kv -o out/x
expect_status "-u --algo bitonic with values" 1
expect_message "-u --algo bitonic with values" "bitonic is not stable"
run_clsort -u --segment 100 -i in0.bin -o out/x
expect_status "-u --segment" 1
expect_message "-u --segment" "options -u and --segment are incompatible"
expect_only out "refused -u"

finish
