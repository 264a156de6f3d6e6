#!/usr/bin/env bash
# Install into a scratch directory (DESTDIR), check what is installed, build the example program of
# lib/README.md with `pkg-config --cflags --libs clsort` against the installed tree and run it.
# Arguments: MESON BUILD_DIR SOURCE_DIR SCRATCH_DIR CC
set -u
MESON=$1 BUILD=$2 SOURCE=$3 SCRATCH=$4 CC=${5:-cc}
PYTHON=${PYTHON:-python3}
failures=0 checks=0
ok() { checks=$((checks + 1)); echo "ok   $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $*"; }
check() {
    local name=$1
    shift
    if "$@" > out.txt 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/     | /' out.txt; fi
}

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cd "$SCRATCH" || exit 2
DEST=$SCRATCH/dest

# lib/README.md holds example.c as it is
check "lib/README.md shows tests/example/example.c verbatim" $PYTHON - "$SOURCE/lib/README.md" \
    "$SOURCE/tests/example/example.c" <<'PY'
import sys
readme, example = open(sys.argv[1]).read().split('\n'), open(sys.argv[2]).read()
# the first ```c block after the line that names the file
start = next(i for i, l in enumerate(readme) if 'tests/example/example.c' in l)
begin = next(i for i in range(start, len(readme)) if readme[i].strip() == '```c') + 1
end = next(i for i in range(begin, len(readme)) if readme[i].strip() == '```')
block = '\n'.join(readme[begin:end]) + '\n'
if block != example:
    sys.exit('the block in lib/README.md differs from example.c')
PY

check "meson install --destdir" "$MESON" install -C "$BUILD" --no-rebuild --destdir "$DEST"
pc=$(find "$DEST" -name clsort.pc | head -1)
bin=$(find "$DEST" -path '*/bin/clsort' | head -1)
check "installed: clsort.pc" test -n "$pc"
check "installed: the clsort executable" test -n "$bin" -a -x "$bin"
check "installed: clsort.h" test -n "$(find "$DEST" -path '*/include/clsort.h')"
check "not installed: the library's internal and test-hook headers" \
    test -z "$(find "$DEST" -name 'testhooks.h' -o -name 'internal.h')"
check "installed: the shared library" test -n "$(find "$DEST" -name 'libclsort.so*')"
check "installed: clsort(1)" test -n "$(find "$DEST" -path '*/man1/clsort.1*')"
check "installed: libclsort(3)" test -n "$(find "$DEST" -path '*/man3/libclsort.3*')"
[ -n "$pc" ] || { echo "$checks checks, $failures failed"; exit 1; }
libdir=$(dirname "$(find "$DEST" -name 'libclsort.so' | head -1)")

# the example, built as lib/README.md says, against the installed tree
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$DEST
flags=$(pkg-config --cflags --libs clsort)
echo "pkg-config --cflags --libs clsort: $flags"
check "pkg-config points into the installed tree" grep -q -- "-I$DEST" <<< "$flags"
# shellcheck disable=SC2086
check "example builds with pkg-config --cflags --libs clsort" \
    "$CC" -Wall -Wextra -Werror "$SOURCE/tests/example/example.c" $flags -o example
if [ -x example ]; then
    LD_LIBRARY_PATH=$libdir ./example > run.txt 2>&1
    status=$?
    cat run.txt
    check "example runs" test $status -eq 0
    check "example: sorted" grep -q ": ok$" run.txt
    check "example uses the installed library" sh -c "LD_LIBRARY_PATH='$libdir' ldd ./example | grep -q '$libdir/libclsort'"
fi

# the installed tool and manual pages
check "installed clsort runs" env LD_LIBRARY_PATH="$libdir" "$bin" --version
for page in $(find "$DEST" -path '*/man[13]/*'); do
    MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" > /dev/null 2> warnings.txt
    check "installed $(basename "$page") renders without warnings" test ! -s warnings.txt
done

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
