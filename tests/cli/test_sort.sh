#!/usr/bin/env bash
# clsort sort with u32 keys: files, pipes, in place, special outputs, options and reports.
. "$(dirname "$0")/lib.sh" "$@"

N=100000
"$CLSORT" gen -n $N --seed 11 -o keys.bin || exit 2
cp keys.bin keys.orig

# file to file
run_clsort -i keys.bin -o sorted.bin
expect_status "file to file" 0
check "file to file: sorted" $CHECK keys keys.bin sorted.bin
same_file "file to file: input untouched" keys.bin keys.orig

# every algorithm the library knows by name
ALGOS=$(algorithms)
echo "algorithms: $ALGOS"
check "algorithms listed" test -n "$ALGOS"
for algo in $ALGOS; do
    if [ "$algo" = oddeven ]; then
        continue # quadratic: below
    fi
    run_clsort -i keys.bin -o sorted-$algo.bin --algo $algo
    expect_status "--algo $algo" 0
    same_file "--algo $algo: sorted" sorted-$algo.bin sorted.bin
done
# a quadratic algorithm sorts up to its limit, and refuses more (unless -f) with nothing written
case " $ALGOS " in *" oddeven "*)
    head -c 80000 keys.bin > small.bin
    run_clsort -i small.bin -o small-oddeven.bin --algo oddeven
    expect_status "--algo oddeven (20000 keys)" 0
    check "--algo oddeven: sorted" $CHECK keys small.bin small-oddeven.bin
    run_clsort -i keys.bin -o over-oddeven.bin --algo oddeven
    expect_status "--algo oddeven over its limit" 1
    expect_message "--algo oddeven over its limit" "size limit"
    check "--algo oddeven over its limit: nothing written" test ! -e over-oddeven.bin
    ;;
esac

# explicit stdin and stdout
cat keys.bin | "$CLSORT" -i - -o - > piped.bin 2>err.txt
status=$?
expect_status "-i - -o -" 0
same_file "-i - -o -: sorted" piped.bin sorted.bin

# implicit: no -i and no -o, stdin a pipe
cat keys.bin | "$CLSORT" > implicit.bin 2>err.txt
status=$?
expect_status "implicit stdin to stdout" 0
same_file "implicit stdin to stdout: sorted" implicit.bin sorted.bin

# stdin redirected from a regular file, and the sort command named
"$CLSORT" sort < keys.bin > redirected.bin 2>err.txt
status=$?
expect_status "sort < file > file" 0
same_file "sort < file > file: sorted" redirected.bin sorted.bin

# the input as an operand
run_clsort keys.bin -o operand.bin
expect_status "input operand" 0
same_file "input operand: sorted" operand.bin sorted.bin

# a pipeline from gen
"$CLSORT" gen -n $N --seed 11 | "$CLSORT" | cmp -s - sorted.bin
check "gen | clsort" test "${PIPESTATUS[*]}" = "0 0 0"

# in place: -o names the input
cp keys.bin inplace.bin
chmod 640 inplace.bin
run_clsort -i inplace.bin -o inplace.bin
expect_status "in place" 0
same_file "in place: sorted" inplace.bin sorted.bin
check "in place: permissions kept" test "$(stat -c %a inplace.bin)" = 640

# a new file gets 0666 less the umask
(umask 027 && "$CLSORT" -i keys.bin -o umask.bin)
check "new output: mode from the umask" test "$(stat -c %a umask.bin)" = 640

# through a symbolic link: the file it points to is replaced, the link stays
cp keys.bin target.bin
ln -s target.bin link.bin
run_clsort -i keys.bin -o link.bin
expect_status "output through a symlink" 0
check "output through a symlink: still a link" test -L link.bin
same_file "output through a symlink: target sorted" target.bin sorted.bin
rm -f link.bin target.bin

# special outputs are written directly, never replaced
run_clsort -i keys.bin -o /dev/null
expect_status "-o /dev/null" 0
check "/dev/null is still a character device" test -c /dev/null
mkfifo fifo
cat fifo > fromfifo.bin &
reader=$!
run_clsort -i keys.bin -o fifo
expect_status "-o FIFO" 0
wait $reader
check "-o FIFO: still a FIFO" test -p fifo
same_file "-o FIFO: sorted" fromfifo.bin sorted.bin
# and a FIFO as the input
cat keys.bin > fifo &
run_clsort -i fifo -o fromfifo2.bin
expect_status "-i FIFO" 0
wait
same_file "-i FIFO: sorted" fromfifo2.bin sorted.bin
rm -f fifo fromfifo.bin fromfifo2.bin

# descending
run_clsort -i keys.bin -o desc.bin -r
expect_status "-r" 0
check "-r: descending" $CHECK keys keys.bin desc.bin desc

# --verify
run_clsort -i keys.bin -o verified.bin --verify -v
expect_status "--verify" 0
expect_message "--verify -v" "verified"

# empty input gives an empty output
: > empty.bin
run_clsort -i empty.bin -o empty.out
expect_status "empty input" 0
check "empty input: empty output" test -f empty.out -a ! -s empty.out
: | "$CLSORT" > empty2.out 2>err.txt
status=$?
expect_status "empty stdin" 0
check "empty stdin: empty output" test ! -s empty2.out

# keys with duplicates and extreme values
printf '\377\377\377\377\000\000\000\000\005\000\000\000\377\377\377\377\000\000\000\000' > edge.bin
run_clsort -i edge.bin -o edge.out
expect_status "edge values" 0
check "edge values: sorted" $CHECK keys edge.bin edge.out

# a distribution with many equal keys
"$CLSORT" gen -n 50000 --dist few:3 --seed 2 -o few.bin
run_clsort -i few.bin -o few.out
expect_status "few:3" 0
check "few:3: sorted" $CHECK keys few.bin few.out

# --stats and -v report to stderr; the default is quiet
run_clsort -i keys.bin -o s.bin
check "quiet by default" test ! -s err.txt
run_clsort -i keys.bin -o s.bin --stats
expect_status "--stats" 0
for word in "sorted $N" algorithm device "end to end" GKey/s "budget for the data"; do
    expect_message "--stats: $word" "$word"
done
# the report's lines are true: end to end is the sum of the four lines above it; host-radix runs on
# the host's threads (no kernels, no pinned memory); the memory used beside the budget (the default
# budget, half of physical memory, is not what a small sort uses)
stats_sum() {
    $PYTHON - "$1" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
ms = {k: float(v) for k, v in re.findall(r'^  (read|sort|write|commit|end to end) +([0-9.]+) ms', t, re.M)}
assert set(ms) == {'read', 'sort', 'write', 'commit', 'end to end'}, ms
parts = ms['read'] + ms['sort'] + ms['write'] + ms['commit']
assert abs(parts - ms['end to end']) <= 0.005, (parts, ms)
used, before, budget = map(float, re.search(
    r'^  memory +([0-9.]+) MiB resident at most \(the whole process, ([0-9.]+) MiB of it before the '
    r'data\); budget for the data ([0-9.]+) MiB', t, re.M).groups())
assert 0 < before <= used, (before, used)
assert budget > 0, budget
PY
}
for algo in host-radix radix8 bitonic; do
    "$CLSORT" -i keys.bin -o s.bin --stats --algo $algo 2>stats.txt
    check "--stats --algo $algo: the lines add up, memory used and budget" stats_sum stats.txt
    cp stats.txt err.txt
    if [ $algo = host-radix ]; then
        expect_message "--stats --algo $algo: host threads" "host sort"
        expect_message "--stats --algo $algo: host threads" "(on the host's threads, not in device kernels)"
        check "--stats --algo $algo: no kernels, no pinned memory" sh -c '! grep -Eq "kernels  |pinned" stats.txt'
    else
        expect_message "--stats --algo $algo: kernels" "  kernels  "
    fi
done
# what each line says ran is what ran: host-radix launches no kernels (none compiled at a first
# launch, JSON warm_up false); every comma is followed by a space ("device time,pinned" was not);
# --top by selects transfers within the sort, where the download line says it falls
"$CLSORT" -i keys.bin -o s.bin --stats --algo host-radix --stats-json host.json 2>stats.txt
cp stats.txt err.txt
check "--stats host-radix: no kernel launch in prepare" sh -c '! grep -q "^  prepare .*kernels:" stats.txt'
check "--stats host-radix: prepare says the sort has no kernels" grep -q "^  prepare .*no kernels for the sort" stats.txt
check "--stats-json host-radix: warm_up false" $PYTHON -c \
    "import json,sys; sys.exit(json.load(open('host.json'))['warm_up'] is not False)"
for algo in host-radix radix8 bitonic; do
    "$CLSORT" -i keys.bin -o s.bin --stats --algo $algo 2>stats.txt
    cp stats.txt err.txt
    check "--stats --algo $algo: a space after every comma" sh -c '! grep -q ",[^ ]" stats.txt'
done
"$CLSORT" -i keys.bin -o s.bin --stats --top 10 2>stats.txt
cp stats.txt err.txt
check "--stats --top 10: the download said to be within the sort" \
    grep -q "^  download .*read back after each select, within sort" stats.txt
check "--stats --top 10: the upload said to be within the sort" grep -q "^  upload .*within sort" stats.txt
check "--stats --top 10: nothing said prepared before the read" grep -q "^  prepare .*nothing before the read" stats.txt
rm -f host.json
"$CLSORT" -i keys.bin -o s.bin --stats -S 64M 2>stats.txt
check "--stats -S 64M: the lines add up" stats_sum stats.txt
check "--stats -S 64M: budget 64.0 MiB (-S)" grep -q "budget for the data 64.0 MiB (-S)" stats.txt
run_clsort -i keys.bin -o s.bin -v
expect_message "-v: summary line" "GKey/s"
run_clsort -i keys.bin -o s.bin --stats-json stats.json
expect_status "--stats-json" 0
check "--stats-json: keys" $CHECK json stats.json n algorithm device kernel_ms total_ms gkeys_per_s \
    upload_ms download_ms read_ms write_ms programs_built programs_cached value_size
"$CLSORT" -i keys.bin -o s.bin --stats-json - > stdout.json 2>err.txt
check "--stats-json -: JSON on stdout" $CHECK json stdout.json n total_ms
check "--stats-json: n" $PYTHON -c "import json,sys; o=json.load(open('stats.json')); sys.exit(o['n'] != $N or o['value_size'] != 0 or o['total_ms'] <= 0)"
# file names of any bytes give valid JSON: a control character escaped, a byte that is not UTF-8
# (0xff) as U+FFFD, a C1 control (U+0085) escaped
odd=$(printf 'odd\377\001\302\205\303\251.bin')
cp keys.bin "$odd"
run_clsort -i "$odd" -o s.bin --stats-json odd.json
expect_status "--stats-json, a file name that is not UTF-8" 0
check "--stats-json, a file name that is not UTF-8: valid JSON" $PYTHON -c "
import json, sys
o = json.load(open('odd.json', encoding='utf-8'))
sys.exit(o['input'] != 'odd\ufffd\x01\x85\xe9.bin')"
check "--stats-json: control characters escaped, 0xff replaced" \
    grep -qF '"odd\ufffd\u0001\u0085' odd.json
rm -f "$odd"

# -f lets binary data go to a terminal; without it clsort refuses
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
    script -qec "'$CLSORT' -i '$SCRATCH/keys.bin'" /dev/null > tty.txt 2>&1
    status=$?
    expect_status "refuse to write to a terminal" 1
    check "refuse to write to a terminal: message" grep -q "refusing to write binary data to a terminal" tty.txt
    script -qec "'$CLSORT' -i '$SCRATCH/edge.bin' -f" /dev/null > tty.txt 2>&1
    status=$?
    expect_status "-f writes to a terminal" 0
else
    echo "skip terminal tests: no script(1)"
fi
run_clsort -f -i keys.bin -o forced.bin
expect_status "-f accepted" 0

# more keys than one device sort takes (forced small): sorted in chunks, merged on the host
CLSORT_CHUNK_KEYS=5000 run_clsort -i keys.bin -o chunked.bin --verify
expect_status "in chunks" 0
same_file "in chunks: same bytes as in one go" chunked.bin sorted.bin
"$CLSORT" gen -n 20000 --dist few:50 --kv -o kvc.bin 2>err.txt
CLSORT_CHUNK_KEYS=3000 run_clsort --kv -i kvc.bin -o kvc-chunked.bin --verify
expect_status "records in chunks" 0
run_clsort --kv -i kvc.bin -o kvc-whole.bin
same_file "records in chunks: stable, same bytes as in one go" kvc-chunked.bin kvc-whole.bin

# --help and --version
run_clsort --help > /dev/null
expect_status "--help" 0
"$CLSORT" --help | grep -q "Exit status" 2>err.txt
check "--help lists exit statuses" test $? -eq 0
version=$("$CLSORT" --version)
check "--version" test -n "$version"
echo "$version"

finish
