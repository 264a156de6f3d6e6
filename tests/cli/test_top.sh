#!/usr/bin/env bash
# sort --top K: the first K records of the stable sort, as check.py's stable sort writes them, bit
# for bit, values included: every key type (floats with ±0.0, NaNs with payloads, infinities), both
# orders, --bits, records and values apart; K = 1, K = n, K between; from files and from stdin; an
# input larger than a block under -S (the top of each block behind the top so far); K > n and an
# empty input (all there is, sorted, as head(1) gives it); --index-out (each record's input
# position, as a stable argsort's first K); K = 0, a non-number and refused combinations: exit 1, a
# message naming --top, no output.
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
# larger than a block under the -S below: u32 keys with 4-byte values (their input index)
echo "records big.bin 1500000 99 --type u32 --value-size 4" >> gen.txt
run_batch gen.txt
# the input positions, as --index-out writes them (u64), for the references
"$CLSORT" gen -n 600k --value-size 8 --values-out pos.bin -o /dev/null || exit 2

: > refs.txt
i=0
for c in "${cases[@]}"; do
    read -r t vs layout opts <<< "$c"
    # shellcheck disable=SC2206
    args=(--type "$t" $opts)
    ref=(--type "$t" $opts)
    case $layout in
        kv) args+=(--value-size "$vs"); ref+=(--value-size "$vs") ;;
        values) args+=(--value-size "$vs" --values in$i.val); ref+=(--value-size "$vs") ;;
    esac
    for k in 1 $((i * 97 + 5)) $N; do
        out=(-o out$i.$k.bin)
        refv=()
        if [ "$layout" = values ]; then
            out+=(--values-out out$i.$k.val)
            refv=(--values in$i.val out$i.$k.val)
        fi
        if [ "$k" = 1 ]; then # from stdin
            check "$c: --top $k, stdin" "$CLSORT" --top "$k" "${args[@]}" "${out[@]}" < in$i.bin
        else
            check "$c: --top $k" "$CLSORT" --top "$k" "${args[@]}" -i in$i.bin "${out[@]}"
        fi
        echo "tsort in$i.bin out$i.$k.bin --top $k ${ref[*]} ${refv[*]}" >> refs.txt
    done
    i=$((i + 1))
done

# blocks: -S (the data's memory) leaves room for a few hundred thousand records at a time
S=6M
for k in 1 1000 400000; do
    check "blocks: --top $k -S $S" "$CLSORT" --top $k --value-size 4 --kv -S "$S" -i big.bin \
        -o big.$k.bin
    echo "tsort big.bin big.$k.bin --top $k --type u32 --value-size 4" >> refs.txt
done
check "blocks: --top 1000 -S $S --desc, stdin" "$CLSORT" --top 1000 --desc --value-size 4 --kv \
    -S "$S" -o big.desc.bin < big.bin
echo "tsort big.bin big.desc.bin --top 1000 --type u32 --value-size 4 --desc" >> refs.txt

# K over the input's records: all of them, sorted (a file's and a pipe's); an empty input: nothing
for k in 3001 1000000000000; do
    check "K > n: --top $k" "$CLSORT" --top $k --type i32 --desc --value-size 4 -i in1.bin \
        -o over.$k.bin
    echo "tsort in1.bin over.$k.bin --top $k --type i32 --desc --value-size 4" >> refs.txt
    check "K > n: --top $k, stdin" sh -c '"$0" "$@" < in4.bin' "$CLSORT" --top $k --type u64 \
        --desc --value-size 8 -o over.$k.pipe
    echo "tsort in4.bin over.$k.pipe --top $k --type u64 --desc --value-size 8" >> refs.txt
done
: > empty.bin
check "empty input: --top 5" "$CLSORT" --top 5 -i empty.bin -o empty.out
check "empty input: --top 5, empty output" test -f empty.out -a ! -s empty.out
check "empty stdin: --top 5" sh -c '"$0" --top 5 < empty.bin > empty.pipe' "$CLSORT"
check "empty stdin: --top 5, empty output" test -f empty.pipe -a ! -s empty.pipe

# --index-out: the input positions of the K records, the first K of the stable argsort; from a file
# and from stdin, K in one block, over several blocks (-S), and over the input
for i in 0 3 5 7; do
    read -r t _ _ opts <<< "${cases[$i]}"
    for k in 1 250 3000 5000; do
        # shellcheck disable=SC2086
        check "--top $k --index-out: ${cases[$i]}" "$CLSORT" --top $k --type $t $opts -i in$i.bin \
            -o idx$i.$k.bin --index-out idx$i.$k.pos
        echo "tsort in$i.bin idx$i.$k.bin --top $k --type $t $opts --value-size 8 --values pos.bin idx$i.$k.pos" >> refs.txt
    done
done
"$CLSORT" gen -n 600k --dist few:300 --seed 3 -o few.bin || exit 2
for k in 10 100000; do
    check "--top $k --index-out -S 4M, stdin" sh -c '"$0" "$@" < few.bin' "$CLSORT" --top $k \
        --desc -o few.$k.bin --index-out few.$k.pos -S 4M --stats-json few.$k.json
    check "--top $k --index-out -S 4M: blocks" grep -Eq '"runs": *([2-9]|[1-9][0-9])' few.$k.json
    echo "tsort few.bin few.$k.bin --top $k --desc --value-size 8 --values pos.bin few.$k.pos" >> refs.txt
done
# the algorithm does not change the result (the select is stable, and so is the whole sort taken
# for a K the blocks cannot hold): not refused, not limited to oddeven's size, with --index-out too
"$CLSORT" gen -n 70000 --dist few:50 --seed 4 -o many.bin || exit 2
for algo in oddeven bitonic; do
    for k in 5 70000; do
        check "--top $k --algo $algo --index-out" "$CLSORT" --top $k --algo $algo -i many.bin \
            -o many.$algo.$k --index-out many.$algo.$k.pos
        echo "tsort many.bin many.$algo.$k --top $k --value-size 8 --values pos.bin many.$algo.$k.pos" >> refs.txt
    done
done
run_batch refs.txt

# refusals: exit 1, --top named, no output
mkdir -p none
for bad in "0|expected a number of records of at least 1" "abc|option '--top': 'abc' is not a count"; do
    k=${bad%%|*}
    run_clsort --top "$k" -i in0.bin -o none/out.bin
    expect_status "--top $k" 1
    expect_message "--top $k" "${bad#*|}"
done
for opt in -u -c --verify "--segment 10"; do
    # shellcheck disable=SC2086
    run_clsort --top 5 $opt -i in0.bin -o none/out.bin
    expect_status "--top with $opt" 1
    expect_message "--top with $opt" "options --top and ${opt%% *} are incompatible"
done
expect_only none "refusals"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
