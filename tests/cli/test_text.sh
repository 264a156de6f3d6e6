#!/usr/bin/env bash
# clsort text against GNU sort (LC_ALL=C sort) byte for byte: every supported option alone and in
# pairs, key fields (-k with modifiers, -t), signs, blanks, decimals, exponents, inf and NaN for -g,
# units for -h, empty fields, CRLF, -z, lines of 64 KiB, 0/1/2 lines, no final newline; several
# files, --files0-from, -m, -c and -C statuses and messages, bad options (exit 2) and refused ones
# (-M -R -V, a locale other than C); runs under a tiny -S; the device's sort; random and malformed
# -k specs accepted and refused as GNU sort does (text_matrix.py). And `clsort sort` hints at
# `clsort text` on text input without changing what it does.
. "$(dirname "$0")/lib.sh" "$@"

if ! LC_ALL=C sort --version 2>/dev/null | grep -q GNU; then
    echo "GNU sort not found: skipped"
    exit 77
fi

$PYTHON "$TESTS/text_matrix.py" "$CLSORT" single pairs keys edge errors check merge files runs \
    device fuzz hint > matrix.out 2>&1 || not_ok "text_matrix.py ran"
while IFS= read -r line; do
    case $line in
        "ok "*) ok "${line#ok }" ;;
        "FAIL "*) not_ok "${line#FAIL }" ;;
        *) echo "$line" ;;
    esac
done < matrix.out
[ "$checks" -gt 600 ] || not_ok "text_matrix.py ran all its cases (only $checks)"

# 3 MiB of integers (more than the 1 MiB from which the device sorts): the device opened on a
# thread while the library reads (CLSORT_READ_AHEAD=1), opened before (0), and a device that does
# not open on the thread (the host's threads sort); the same bytes as GNU sort each time; --stats
# says where the time went, its steps adding up to the wall time
$PYTHON -c 'import random; r = random.Random(4); print("\n".join(str(r.randint(-10**6, 10**6)) for _ in range(400000)))' > ints.txt
LC_ALL=C sort -n ints.txt > ints.want
for ahead in 0 1; do
    rm -f ints.got
    check "text -n, 3 MiB, CLSORT_READ_AHEAD=$ahead" env CLSORT_READ_AHEAD=$ahead "$CLSORT" text -n ints.txt -o ints.got
    check "text -n, 3 MiB, CLSORT_READ_AHEAD=$ahead: as GNU sort" cmp -s ints.got ints.want
done
rm -f ints.got
check "text -n, a device that does not open beside the read: the host sorts" env CLSORT_READ_AHEAD=1 CLSORT_DEVICE=no-such-device "$CLSORT" text -n ints.txt -o ints.got
check "text -n, the host's sort: as GNU sort" cmp -s ints.got ints.want
# a run file that cannot be made, before and after the library took the device opened beside the
# read (a file whose size says so at once; a pipe, whose first block sorts first): exit 2, the
# directory named
for how in file pipe; do
    if [ $how = file ]; then
        CLSORT_READ_AHEAD=1 run_clsort text -n -S 2M -T "$SCRATCH/no-such-dir" ints.txt > /dev/null
    else
        CLSORT_READ_AHEAD=1 run_clsort text -n -S 2M -T "$SCRATCH/no-such-dir" < <(cat ints.txt) > /dev/null
    fi
    expect_status "text -n -S 2M -T a missing directory ($how)" 2
    expect_message "text -n -S 2M -T a missing directory ($how)" "cannot create a temporary file in $SCRATCH/no-such-dir"
done
"$CLSORT" text --stats -u -n ints.txt -o ints.got 2> stats.txt
check "text --stats -u -n: as GNU sort" cmp -s ints.got <(LC_ALL=C sort -u -n ints.txt)
check "text --stats: the steps add up to the wall time" $PYTHON -c '
import re, sys
line = open("stats.txt").read()
m = re.search(r"in ([0-9.]+) s .*: read ([0-9.]+), open ([0-9.]+), split ([0-9.]+), keys ([0-9.]+), sort ([0-9.]+), ties ([0-9.]+), gather ([0-9.]+), write ([0-9.]+), runs ([0-9.]+), commit ([0-9.]+), other (-?[0-9.]+) s", line)
wall, *parts = map(float, m.groups())
sys.exit(not (abs(sum(parts) - wall) < 0.01 and parts[-1] >= -0.005 and "400000 lines" in line))'

# --parallel N bounds the host's threads: --parallel=1 and =3 give GNU sort's bytes (one block, a
# merge of runs under a tiny -S, -u, a key with -t); with strace at hand, --parallel=1 starts no
# thread at all and --parallel=2 does (under 1 MiB of input no device opens: the host's steps are
# the only threads; 60000 lines: the keys' step takes 2 slices of 4096 lines or more)
$PYTHON -c 'import random; r = random.Random(6); print("\n".join("w%d %d,%d" % (r.randint(0, 99), r.randint(-10**4, 10**4), r.randint(0, 999)) for _ in range(60000)))' > par.txt
check "par.txt is under 1 MiB" test "$(wc -c < par.txt)" -lt 1048576
for p in 1 3; do
    for opts in "-n -k2" "-n -k2 -S 1M" "-u -t, -k2,2n" ""; do
        rm -f par.got
        # shellcheck disable=SC2086
        check "text --parallel=$p ${opts:-(bytes)}" "$CLSORT" text --parallel=$p $opts par.txt -o par.got
        # shellcheck disable=SC2086
        check "text --parallel=$p ${opts:-(bytes)}: as GNU sort" cmp -s par.got <(LC_ALL=C sort $opts par.txt)
    done
done
if command -v strace > /dev/null && strace -f -qq -o /dev/null true 2> /dev/null; then
    for p in 1 2; do
        rm -f par.got
        # LeakSanitizer cannot run under ptrace: off there (a sanitized build)
        check "text -n -k2 --parallel=$p under strace" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            strace -f -qq -e trace=clone,clone3 -o "par.strace.$p" \
            "$CLSORT" text -n -k2 --parallel=$p par.txt -o par.got
        check "text -n -k2 --parallel=$p under strace: as GNU sort" cmp -s par.got <(LC_ALL=C sort -n -k2 par.txt)
    done
    check "text --parallel=1 starts no thread" test "$(grep -c CLONE_THREAD par.strace.1)" -eq 0
    check "text --parallel=2 starts threads (the check sees them)" test "$(grep -c CLONE_THREAD par.strace.2)" -gt 0
else
    echo "strace cannot trace here: --parallel's thread count not checked"
fi

# the help fits 80 columns, and clsort(1) names every long option it lists
wide=$("$CLSORT" help text | awk 'length > 80')
check "clsort help text: lines of 80 columns at most" test -z "$wide"
check "clsort text --help is the same text" cmp -s <("$CLSORT" help text) <("$CLSORT" text --help)
if command -v man > /dev/null; then
    MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$TESTS/../../man/clsort.1" 2> /dev/null |
        sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g' > clsort.1.txt
    if grep -q '^NAME' clsort.1.txt; then
        for opt in $("$CLSORT" help text | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u); do
            check "clsort(1) documents text $opt" grep -qF -- "$opt" clsort.1.txt
        done
    fi
fi

finish
