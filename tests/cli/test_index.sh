#!/usr/bin/env bash
# --index-out: each output key's input position (u64), as check.py's stable sort of the keys with
# their positions as values writes it, bit for bit: every key type (floats with ±0.0, NaNs with
# payloads, infinities), both orders, --bits, -u (the position of the record kept), in memory, in
# runs merged in memory (CLSORT_CHUNK_KEYS), in runs spilled to files (-S), from stdin; empty input;
# refused combinations (an algorithm that is not stable among them) leave nothing.
. "$(dirname "$0")/lib.sh" "$@"

N=3000
cases=("u32" "i32 --desc" "f32" "f64 --desc" "u64 --bits 8:40" "i64 -u" "f32 -u --desc")
"$CLSORT" gen -n $N --value-size 8 --values-out pos.bin -o /dev/null || exit 2
: > gen.txt
i=0
for c in "${cases[@]}"; do
    read -r t _ <<< "$c"
    echo "records in$i.bin $N $i --type $t" >> gen.txt
    i=$((i + 1))
done
run_batch gen.txt

: > refs.txt
i=0
for c in "${cases[@]}"; do
    read -r t opts <<< "$c"
    # shellcheck disable=SC2206
    args=(--type "$t" $opts)
    ref=(--type "$t" ${opts//-u/--unique} --value-size 8)
    for how in file chunks; do
        if [ $how = file ]; then
            check "$c: --index-out" "$CLSORT" "${args[@]}" -i in$i.bin -o out$i.$how.bin \
                --index-out pos$i.$how.bin
        else # runs of 500 keys merged, the keys from stdin
            check "$c: --index-out, runs, stdin" env CLSORT_CHUNK_KEYS=500 "$CLSORT" "${args[@]}" \
                -o out$i.$how.bin --index-out pos$i.$how.bin < in$i.bin
        fi
        echo "tsort in$i.bin out$i.$how.bin ${ref[*]} --values pos.bin pos$i.$how.bin" >> refs.txt
    done
    i=$((i + 1))
done
run_batch refs.txt

# runs spilled to temporary files (-S: the least it takes, plus 8 MiB), with --verify
mkdir runs
"$CLSORT" gen -n 1000 -o tiny.bin || exit 2
"$CLSORT" -i tiny.bin -o tiny.out -S 1Mi 2>err.txt
least=$(least_mi err.txt)
S=$((least + 8))Mi
"$CLSORT" gen -n 1200k --dist few:5000 --seed 5 -o big.bin || exit 2
"$CLSORT" gen -n 1200k --value-size 8 --values-out bigpos.bin -o /dev/null || exit 2
check "--index-out -S $S" env CLSORT_CHUNK_KEYS=100000 "$CLSORT" -i big.bin -o big.out \
    --index-out big.pos -S "$S" -T runs --verify --stats-json big.json
check "--index-out -S $S: runs spilled" $PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1]))
sys.exit(0 if r["runs_spilled"] > 1 else 1)' big.json
expect_only runs "--index-out -S: runs removed"
echo "tsort big.bin big.out --value-size 8 --values bigpos.bin big.pos" > big.txt
run_batch big.txt

# empty input: empty outputs
: > empty.bin
check "--index-out, empty input" "$CLSORT" -i empty.bin -o empty.out --index-out empty.pos
check "--index-out, empty input: empty positions" test -f empty.pos -a ! -s empty.pos

# refused, nothing written: with values, both outputs on stdout, with -c, over the input
mkdir out
cp in0.bin in0.copy
run_clsort --kv -i in0.bin -o out/x --index-out out/y
expect_status "--index-out --kv" 1
expect_message "--index-out --kv" "the keys come alone"
run_clsort -i in0.bin --index-out - > /dev/null
expect_status "--index-out - with the keys on stdout" 1
expect_message "--index-out - with the keys on stdout" "cannot both go to stdout"
run_clsort -c -i in0.bin --index-out out/y
expect_status "-c --index-out" 1
expect_message "-c --index-out" "options -c and --index-out are incompatible"
run_clsort -i in0.bin -o out/x --index-out in0.bin
expect_status "--index-out over the input" 1
expect_message "--index-out over the input" "--index-out"
# the algorithms that are not stable: the positions of equal keys would come in any order (here
# decreasing ones came out, exit 0); refused like -u, the stable algorithms named
"$CLSORT" gen -n 5000 --dist few:5 --seed 2 -o few.bin || exit 2
for algo in bitonic oddeven; do
    for extra in "" "-u" "--desc --bits 0:8"; do
        # shellcheck disable=SC2086
        run_clsort --algo $algo $extra -i few.bin -o out/x --index-out out/y
        expect_status "--index-out --algo $algo $extra" 1
        expect_message "--index-out --algo $algo $extra" "--index-out writes each key's input position"
        expect_message "--index-out --algo $algo $extra" "$algo is not stable: use a stable algorithm (auto,"
    done
done
for algo in radix4 radix8 radix8-rts host-radix; do
    check "--index-out --algo $algo: few keys" "$CLSORT" --algo $algo -i few.bin -o few.$algo \
        --index-out few.$algo.pos
    echo "tsort few.bin few.$algo --value-size 8 --values pos.bin few.$algo.pos" >> few.txt
done
# the algorithms a refusal names instead must each sort the same options: with --index-out only
# stable ones, and only those that sort segments where --segment is given (radix4 and bitonic once
# named alternatives that the other option then refused)
named_algorithms() {
    sed -n -e 's/.*: use \([a-z0-9, -]*\)\( (stable ones.*\)\{0,1\}$/\1/p' \
        -e 's/.*use a stable algorithm (\([a-z0-9, -]*\)).*/\1/p' err.txt | sed 's/ or / /' | tr -d ','
}
for algo in radix4 bitonic oddeven onesweep radix-hybrid; do
    run_clsort --algo $algo --segment 100 -i few.bin -o out/x --index-out out/y
    expect_status "--index-out --segment 100 --algo $algo" 1
    names=$(named_algorithms)
    if [ -n "$names" ]; then ok "--index-out --segment 100 --algo $algo: algorithms named"
    else not_ok "--index-out --segment 100 --algo $algo: no algorithms named"; fi
    cp err.txt refusal.txt
    for alt in $names; do
        run_clsort --algo "$alt" --segment 100 -i few.bin -o few.seg --index-out few.seg.pos
        expect_status "--index-out --segment 100 --algo $algo: the named $alt sorts it" 0
    done
    case " $names " in
    *" bitonic "* | *" oddeven "* | *" radix4 "* | *" onesweep "*)
        cp refusal.txt err.txt
        not_ok "--index-out --segment 100 --algo $algo: names an algorithm that is refused: $names" ;;
    esac
done
rm -f few.seg few.seg.pos refusal.txt
expect_only out "refused --index-out"
same_file "the input intact" in0.copy in0.bin
"$CLSORT" gen -n 5000 --value-size 8 --values-out pos.bin -o /dev/null -f || exit 2
run_batch few.txt

finish
