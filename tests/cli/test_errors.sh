#!/usr/bin/env bash
# Bad input and usage: a clear message, the documented exit status, and nothing written: no output file
# and no temporary file left in the output directory.
. "$(dirname "$0")/lib.sh" "$@"

mkdir in out
"$CLSORT" gen -n 1000 --seed 1 -o in/keys.bin || exit 2
"$CLSORT" gen -n 1000 --seed 2 -o in/vals.bin || exit 2
"$CLSORT" gen -n 999 --seed 3 -o in/short.bin || exit 2
"$CLSORT" gen -n 500 --seed 4 --kv -o in/pairs.bin || exit 2
head -c 10 in/keys.bin > in/ten.bin
head -c 12 in/keys.bin > in/twelve.bin
{ cat in/vals.bin; printf 'xy'; } > in/vals-odd.bin
INPUTS="keys.bin vals.bin short.bin pairs.bin ten.bin twelve.bin vals-odd.bin"

# bad NAME STATUS MESSAGE ARGS...: clsort fails as expected and out/ stays empty
bad() {
    local name=$1 want=$2 text=$3
    shift 3
    run_clsort "$@"
    expect_status "$name" "$want"
    expect_message "$name" "$text"
    expect_only out "$name"
    expect_only in "$name: inputs" $INPUTS
}

bad "size not a multiple of the key size" 1 "in/ten.bin: 10 bytes is not a multiple of the 4-byte key size" \
    -i in/ten.bin -o out/x.bin
bad "size not a multiple of the record size" 1 \
    "in/twelve.bin: 12 bytes is not a multiple of the 8-byte record size" --kv -i in/twelve.bin -o out/x.bin
bad "values size not a multiple" 1 "in/vals-odd.bin: 4002 bytes is not a multiple of the 4-byte value size" \
    -i in/keys.bin -o out/k --values in/vals-odd.bin --values-out out/v
bad "keys and values of different lengths" 1 "in/keys.bin holds 1000 keys" \
    -i in/keys.bin -o out/k --values in/short.bin --values-out out/v
bad "missing input" 1 "in/missing.bin: cannot open: No such file or directory" -i in/missing.bin -o out/x.bin
bad "missing values input" 1 "in/missing.bin: cannot open" \
    -i in/keys.bin -o out/k --values in/missing.bin --values-out out/v
bad "input is a directory" 1 "in: is a directory" -i in -o out/x.bin
if [ "$(id -u)" -ne 0 ]; then
    cp in/keys.bin unreadable.bin
    chmod 000 unreadable.bin
    bad "unreadable input" 1 "unreadable.bin: cannot open: Permission denied" -i unreadable.bin -o out/x.bin
    rm -f unreadable.bin
fi
bad "unknown option" 1 "unknown option '--frobnicate'" --frobnicate -i in/keys.bin -o out/x.bin
bad "unknown short option" 1 "unknown option '-Z'" -Z -i in/keys.bin -o out/x.bin
bad "misspelt option" 1 "did you mean '--values-out'" --values-ou out/v -i in/keys.bin -o out/x.bin
bad "missing option value" 1 "option '--output' needs a value" -i in/keys.bin --output
bad "unknown algorithm" 1 "unknown algorithm 'quick'" --algo quick -i in/keys.bin -o out/x.bin
bad "unknown algorithm lists known ones" 1 "radix4" --algo quick -i in/keys.bin -o out/x.bin
bad "--values without --values-out" 1 "--values needs --values-out" -i in/keys.bin -o out/k --values in/vals.bin
bad "--values-out without --values" 1 "--values-out needs --values" -i in/keys.bin -o out/k --values-out out/v
bad "--kv with --values" 1 "--kv" --kv -i in/pairs.bin -o out/k --values in/vals.bin --values-out out/v
bad "two inputs" 1 "more than one input" in/keys.bin in/vals.bin -o out/x.bin
bad "same keys and values output" 1 "name the same file" \
    -i in/keys.bin -o out/same --values in/vals.bin --values-out out/./same
bad "keys and values both from stdin" 1 "both come from stdin" -i - --values - --values-out out/v -o out/k
bad "malformed device string" 1 "malformed" --device 1:2:3 -i in/keys.bin -o out/x.bin
bad "no matching device" 2 "no-such-device-xyz" --device 'no-such-device-xyz' -i in/keys.bin -o out/x.bin
bad "no such device index" 2 "cannot open an OpenCL device" --device 7:7 -i in/keys.bin -o out/x.bin
CLSORT_DEVICE=no-such-device-xyz "$CLSORT" -i in/keys.bin -o out/x.bin 2>err.txt
status=$?
expect_status "CLSORT_DEVICE matching nothing" 2
expect_only out "CLSORT_DEVICE matching nothing"
# a setting the library refuses is the user's input (exit 1), not a missing device
CLSORT_BUILD_OPTIONS=-DVW=0 "$CLSORT" -i in/keys.bin -o out/x.bin 2>err.txt
status=$?
expect_status "CLSORT_BUILD_OPTIONS redefining a library macro" 1
expect_message "CLSORT_BUILD_OPTIONS redefining a library macro" "CLSORT_BUILD_OPTIONS='-DVW=0'"
expect_only out "CLSORT_BUILD_OPTIONS redefining a library macro"

# errors writing: the output's directory is missing, or the output is a directory
run_clsort -i in/keys.bin -o nodir/x.bin
expect_status "output directory missing" 3
expect_message "output directory missing" "nodir"
run_clsort -i in/keys.bin -o out
expect_status "output is a directory" 3
expect_message "output is a directory" "out: is a directory"
expect_only out "output is a directory"
if [ "$(id -u)" -ne 0 ]; then
    mkdir ro && chmod 555 ro
    run_clsort -i in/keys.bin -o ro/x.bin
    expect_status "output directory not writable" 3
    expect_only ro "output directory not writable"
    chmod 755 ro
fi
# a report that cannot be written: fails before the sorted output is put in place
run_clsort -i in/keys.bin -o out/x.bin --stats-json nodir/s.json
expect_status "--stats-json in a missing directory" 3
expect_only out "--stats-json in a missing directory"
run_clsort -i in/keys.bin -o out/x.bin --stats-json out/x.bin
expect_status "--stats-json over the output" 1
expect_only out "--stats-json over the output"

# (a full device is test_faults.sh's: a private node, never the system's /dev/full)

# failure keeps an existing output as it was
cp in/vals.bin out/existing.bin
run_clsort -i in/ten.bin -o out/existing.bin
expect_status "failure keeps an existing output" 1
same_file "failure keeps an existing output: unchanged" out/existing.bin in/vals.bin
expect_only out "failure keeps an existing output" existing.bin
rm out/existing.bin

# bad input from a pipe: the size is found only after reading; still nothing written
cat in/ten.bin | "$CLSORT" -o out/x.bin 2>err.txt
status=$?
expect_status "bad size from a pipe" 1
expect_message "bad size from a pipe" "(stdin): 10 bytes is not a multiple of the 4-byte key size"
expect_only out "bad size from a pipe"

# no input at all: stdin is a terminal (needs script(1) for a terminal)
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
    script -qec "'$CLSORT' -o '$SCRATCH/out/x.bin'" /dev/null < /dev/null > tty.txt 2>&1
    status=$?
    expect_status "no input and stdin a terminal" 1
    check "no input and stdin a terminal: message" grep -q "no input" tty.txt
    expect_only out "no input and stdin a terminal"
fi

# gen errors
run_clsort gen -o out/g.bin
expect_status "gen without -n" 1
expect_message "gen without -n" "-n N"
bad "gen unknown distribution" 1 "unknown distribution 'pareto'" gen -n 10 --dist pareto -o out/g.bin
bad "gen zipf without S" 1 "needs a parameter" gen -n 10 --dist zipf -o out/g.bin
bad "gen zipf:0" 1 "the exponent must be a number above 0" gen -n 10 --dist zipf:0 -o out/g.bin
bad "gen zipf:x" 1 "zipf:x" gen -n 10 --dist zipf:x -o out/g.bin
bad "gen unknown type" 1 "unknown key type 'u16'" gen -n 10 --type u16 -o out/g.bin
bad "gen bad value size" 1 "is not a value size" gen -n 10 --value-size 2 -o out/g.bin
bad "gen --value-size 0 with --kv" 1 "--value-size 0" gen -n 10 --kv --value-size 0 -o out/g.bin
bad "gen constant out of the u32 range" 1 "a u32 key" gen -n 10 --dist constant:4294967296 -o out/g.bin
bad "gen constant out of the i32 range" 1 "a i32 key" gen -n 10 --type i32 --dist constant:3000000000 -o out/g.bin
bad "gen constant not a number (f64)" 1 "finite number" gen -n 10 --type f64 --dist constant:nan -o out/g.bin
bad "gen entropy out of range" 1 "entropy:0" gen -n 10 --dist entropy:0 -o out/g.bin
bad "gen few without K" 1 "needs a parameter" gen -n 10 --dist few -o out/g.bin
bad "gen bad count" 1 "'12x' is not a count" gen -n 12x -o out/g.bin
bad "gen negative count" 1 "is not a count" gen -n -5 -o out/g.bin
bad "gen extra operand" 1 "unexpected argument 'foo'" gen -n 10 foo -o out/g.bin
bad "gen --kv with --values-out" 1 "--kv" gen -n 10 --kv --values-out out/v -o out/g.bin

# key types, value sizes, bit ranges and segments: bad values and combinations fail before any output
"$CLSORT" gen -n 100 --type u64 -o in/k64.bin || exit 2
head -c 796 in/k64.bin > in/k64-odd.bin
"$CLSORT" gen -n 100 --type f64 --value-size 8 -o in/p88.bin || exit 2
head -c 808 in/p88.bin > in/p88-odd.bin
"$CLSORT" gen -n 100 --type u64 --value-size 8 --values-out in/v8.bin -o /dev/null || exit 2
head -c 400 in/k64.bin > in/k50.bin
INPUTS="$INPUTS k64.bin k64-odd.bin p88.bin p88-odd.bin v8.bin k50.bin"
bad "sort unknown type" 1 "unknown key type 'u16'" --type u16 -i in/keys.bin -o out/x.bin
bad "sort bad value size" 1 "is not a value size" --value-size 3 -i in/pairs.bin -o out/x.bin
bad "sort --value-size 0 with --kv" 1 "--value-size 0 means keys only" --value-size 0 --kv -i in/pairs.bin -o out/x.bin
bad "u64 keys: size not a multiple of 8" 1 \
    "in/k64-odd.bin: 796 bytes is not a multiple of the 8-byte key size (u64 keys)" --type u64 -i in/k64-odd.bin -o out/x.bin
bad "f64 records with 8-byte values: size not a multiple of 16" 1 \
    "in/p88-odd.bin: 808 bytes is not a multiple of the 16-byte record size (f64 key + 8-byte value)" \
    --type f64 --value-size 8 -i in/p88-odd.bin -o out/x.bin
bad "i32 records with 8-byte values: size not a multiple of 12" 1 \
    "in/pairs.bin: 4000 bytes is not a multiple of the 12-byte record size (i32 key + 8-byte value)" \
    --type i32 --value-size 8 -i in/pairs.bin -o out/x.bin
bad "8-byte values file of the wrong length" 1 "expected 800 bytes of 8-byte values" \
    --type u64 -i in/k64.bin -o out/k --values in/k50.bin --values-out out/v --value-size 8
bad "8-byte values for u32 keys: count differs" 1 "in/keys.bin holds 1000 keys (4000 bytes of u32 keys) but in/v8.bin holds 100 values" \
    -i in/keys.bin -o out/k --values in/v8.bin --values-out out/v --value-size 8
bad "--bits past the u32 width" 1 "--bits 0:40 is not a bit range of u32 keys: expected B:E with 0 <= B < E <= 32" \
    --bits 0:40 -i in/keys.bin -o out/x.bin
bad "--bits empty range" 1 "expected B:E with 0 <= B < E <= 64" --type u64 --bits 16:16 -i in/k64.bin -o out/x.bin
bad "--bits malformed" 1 "'8-16' is not a bit range B:E" --bits 8-16 -i in/keys.bin -o out/x.bin
bad "--bits negative" 1 "is not a bit range B:E" --bits -1:8 -i in/keys.bin -o out/x.bin
bad "--segment not a count" 1 "is not a count" --segment x -i in/keys.bin -o out/x.bin
# combinations the library refuses: its detail, exit 1 (every algorithm takes every key type, value
# size and bit range; test_types.sh sorts them)
bad "radix4 with segments" 1 "radix4 does not sort segments" --algo radix4 --segment 64 -i in/keys.bin -o out/x.bin

# bench errors: nothing written
bad "bench unknown algorithm" 1 "unknown algorithm 'quick'" bench -n 1000 --algo radix4,quick --json out/b.json
bad "bench bad size" 1 "is not a count" bench -n 1000,x --json out/b.json
bad "bench bad distribution" 1 "unknown distribution" bench -n 1000 --dist uniform,pareto --json out/b.json
bad "bench --repeat 0" 1 "out of range" bench -n 1000 --repeat 0 --json out/b.json
bad "bench --json and --plot to stdout" 1 "cannot both go to stdout" bench -n 1000 --json - --plot -
bad "bench --json and --plot the same file" 1 "the same file" bench -n 1000 --json out/b --plot out/./b
bad "bench no such device" 2 "cannot open an OpenCL device" bench -n 1000 --device 7:7 --json out/b.json --plot out/b.svg
run_clsort bench -n 1000 --json nodir/b.json
expect_status "bench --json in a missing directory" 3
expect_message "bench --json in a missing directory" "nodir"

# the refused combination --help gives as an example is refused
example=$("$CLSORT" --help | tr '\n' ' ' |
          sed -n 's/.*does not sort, e\.g\. \(--[^,)]*\)[,)].*/\1/p')
check "--help gives a refused combination" test -n "$example"
run_clsort $example -i in/keys.bin -o out/example.bin   # unquoted: several words
expect_status "--help's refused combination ($example)" 1
expect_message "--help's refused combination" "cannot sort this way"
check "--help's refused combination: nothing written" test ! -e out/example.bin

# unknown command help
run_clsort help frobnicate
expect_status "help for an unknown command" 1

finish
