#!/usr/bin/env bash
# clsort merge: the merge of sorted inputs is check.py's stable sort of their concatenation (on
# equal keys the earlier file's records first), bit for bit, values included: every key type (floats
# with ±0.0, NaNs with payloads, infinities), both orders, --bits, -u, empty and one-record inputs,
# stdin as an input, inputs longer than a read block, the output one of the inputs. An input out of
# order, a size that is not whole records, a missing file: exit 1 naming the file, no output left.
. "$(dirname "$0")/lib.sh" "$@"

# key type, value size, options of order
cases=(
    "u32 0" "i32 4 --desc" "f32 8" "f32 0 --desc" "u64 8 --desc" "i64 0" "f64 4" "f64 8 --desc"
    "u64 0 --bits 8:40" "i32 8 --bits 4:20 --desc"
)
: > gen.txt
i=0
for c in "${cases[@]}"; do
    read -r t vs opts <<< "$c"
    for part in 1 2 3; do
        n=$((part == 3 ? 1 : 700 * part)) # 700, 1400 and one record
        echo "records in$i.$part $n $((i * 3 + part)) --type $t --value-size $vs $opts --sorted" >> gen.txt
    done
    i=$((i + 1))
done
run_batch gen.txt
: > empty.bin

# merge_stdin FILE ARGS...: clsort merge ARGS with FILE on stdin
merge_stdin() {
    "$CLSORT" merge "${@:2}" < "$1"
}

: > refs.txt
i=0
for c in "${cases[@]}"; do
    read -r t vs opts <<< "$c"
    # shellcheck disable=SC2206
    args=(--type "$t" $opts)
    [ "$vs" = 0 ] || args+=(--value-size "$vs")
    ref="--type $t --value-size $vs $opts"
    check "$c: merge" "$CLSORT" merge "${args[@]}" in$i.1 empty.bin in$i.2 in$i.3 -o m$i.bin
    echo "tsort in$i.1,in$i.2,in$i.3 m$i.bin $ref" >> refs.txt
    check "$c: merge -u, stdin" merge_stdin in$i.2 -u "${args[@]}" in$i.3 - in$i.1 -o u$i.bin
    echo "tsort in$i.3,in$i.2,in$i.1 u$i.bin $ref --unique" >> refs.txt
    i=$((i + 1))
done
run_batch refs.txt

# inputs longer than a read block (4 MiB): 1.5M and 1M u32 records of few keys, sorted
"$CLSORT" gen -n 1500k --kv --dist few:3000 --seed 8 | "$CLSORT" --kv -o big1.kv || exit 2
"$CLSORT" gen -n 1000k --kv --dist few:2000 --seed 9 | "$CLSORT" --kv -o big2.kv || exit 2
check "long inputs" "$CLSORT" merge --kv big1.kv big2.kv -o big.m
check "long inputs, -u, stdin" merge_stdin big2.kv --kv -u big1.kv - -o big.u
printf 'kvmerge big.m big1.kv big2.kv\nkvmerge big.u big1.kv big2.kv --unique\n' > big.txt
run_batch big.txt

# the output is one of the inputs: replaced only when complete, the other input untouched
cp in0.1 a.bin
cp in0.2 b.bin
check "output over an input" "$CLSORT" merge a.bin b.bin -o a.bin
echo "tsort in0.1,in0.2 a.bin" > over.txt
run_batch over.txt
same_file "output over an input: the other input" in0.2 b.bin

# bad inputs: exit 1, the file named, no output (nor temporary file), inputs as they were
mkdir -p bad/out
cp in0.1 in0.2 bad/
cp in0.1 bad/out/old.bin
# a record out of order just past the first read block of the second input (record 524288)
$PYTHON -c "
import array
a = array.array('I'); a.frombytes(open('big2.kv', 'rb').read())
a[2 * 524288] = 0
open('bad/late.kv', 'wb').write(a.tobytes())
" || exit 2
head -c 10 in0.1 > bad/odd.bin
$PYTHON -c "open('bad/unsorted.bin', 'wb').write(open('in0.2', 'rb').read()[::-1])" || exit 2
echo "disorder bad/unsorted.bin" > bad.txt
run_batch bad.txt
first=$(sed -n 's/^disorder bad\/unsorted.bin //p' batch.out)
INPUTS="in0.1 in0.2 late.kv odd.bin unsorted.bin out"
# bad_merge NAME MESSAGE ARGS...
bad_merge() {
    local name=$1 text=$2
    shift 2
    cp -p bad/out/old.bin old.copy
    run_clsort merge "$@"
    expect_status "$name" 1
    expect_message "$name" "$text"
    expect_only bad/out "$name" old.bin
    expect_only bad "$name: inputs" $INPUTS
    same_file "$name: the old output untouched" old.copy bad/out/old.bin
}
bad_merge "unsorted input" "bad/unsorted.bin: record $first (byte $((first * 4))) is out of" \
    bad/in0.1 bad/unsorted.bin -o bad/out/new.bin
bad_merge "unsorted input over an existing output" "bad/unsorted.bin: record $first " \
    bad/in0.1 bad/unsorted.bin -o bad/out/old.bin
bad_merge "unsorted past the first block" "bad/late.kv: record 524288 (byte 4194304) is out" \
    --kv big1.kv bad/late.kv -o bad/out/new.bin
bad_merge "unsorted on stdin" "(stdin): record $first " bad/in0.2 - -o bad/out/new.bin \
    < bad/unsorted.bin
bad_merge "size not whole keys" "bad/odd.bin: 10 bytes is not a multiple of the 4-byte key size" \
    bad/in0.1 bad/odd.bin -o bad/out/new.bin
bad_merge "missing input" "bad/missing.bin: cannot open" bad/in0.1 bad/missing.bin \
    -o bad/out/new.bin
bad_merge "stdin twice" "'-' (stdin) is given more than once" - - -o bad/out/new.bin < /dev/null
bad_merge "no input" "merge needs the sorted files" -o bad/out/new.bin
bad_merge "the input in the order of other options" "is out of descending order" --desc \
    bad/in0.1 -o bad/out/new.bin
same_file "the input that was sorted, untouched" in0.1 bad/in0.1
"$CLSORT" help merge > help.txt
check "help merge: lines of at most 80 characters" test -s help.txt -a -z "$(awk 'length > 80' help.txt)"

finish
