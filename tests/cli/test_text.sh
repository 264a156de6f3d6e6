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
