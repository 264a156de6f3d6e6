#!/usr/bin/env bash
# The manual pages render without warnings and cover what they document: clsort(1) every option of
# every command, libclsort(3) every public function, status code and environment variable.
. "$(dirname "$0")/lib.sh" "$@"

MAN_DIR=$TESTS/../../man
HEADER=$TESTS/../../lib/clsort.h

if ! command -v man > /dev/null; then
    echo "skip: no man(1)"
    finish
fi
for page in clsort.1 libclsort.3 clsort-mpi.1; do
    # (groff may render hyphens and minus signs as U+2010 and U+2212: read back as '-')
    MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$MAN_DIR/$page" 2> warnings.txt |
        sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g' > "$page.txt"
    status=${PIPESTATUS[0]}
    expect_status "man $page" 0
    if [ -s warnings.txt ]; then
        not_ok "man $page: warnings"
        cat warnings.txt
    else
        ok "man $page: no warnings"
    fi
    check "man $page: rendered" test -s "$page.txt"
done
# A minimized system's man(1) prints a notice in place of the page.
if ! grep -q '^NAME' clsort.1.txt; then
    echo "skip: man(1) renders no page here:"
    head -3 clsort.1.txt
    finish
fi

# every help text fits a terminal of 80 columns
for cmd in sort merge gen devices bench text; do
    wide=$("$CLSORT" help $cmd | awk 'length > 80')
    check "clsort help $cmd: lines of 80 columns at most" test -z "$wide"
    [ -z "$wide" ] || printf '%s\n' "$wide"
done

# every long option in the help texts is in clsort(1)
for cmd in sort merge gen devices bench text; do
    for opt in $("$CLSORT" help $cmd | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
        check "clsort(1) documents $cmd $opt" grep -qF -- "$opt" clsort.1.txt
    done
done
# clsort text shares many option names with clsort sort, with other meanings: each of its options
# (`clsort text --help`, long and short) must be in its own subsection of clsort(1)
# (a subsection's title is indented 3 columns, the synopsis 7)
sed -n '/^   clsort text \[option\]/,/^   clsort help/p' clsort.1.txt > text.1.txt
check "clsort(1) has a subsection for clsort text" test -s text.1.txt
for opt in $("$CLSORT" text --help | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u) \
        $("$CLSORT" text --help | grep -oE '^  -[a-zA-Z],' | tr -d ' ,' | sort -u); do
    check "clsort(1)'s clsort text documents $opt" grep -qE -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|$)" text.1.txt
done
for word in "EXIT STATUS" CLSORT_DEVICE zipf --plot --json; do
    check "clsort(1) mentions $word" grep -qF -- "$word" clsort.1.txt
done

# clsort-mpi(1), where clsort-mpi is built: its help within 80 columns, every long option and
# every variable it reads documented (it runs here as a single rank, without mpirun)
MPI_EXE=$(dirname "$CLSORT")/mpi/clsort-mpi
if [ -x "$MPI_EXE" ]; then
    wide=$("$MPI_EXE" --help | awk 'length > 80')
    check "clsort-mpi --help: lines of 80 columns at most" test -z "$wide"
    for opt in $("$MPI_EXE" --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
        check "clsort-mpi(1) documents $opt" grep -qF -- "$opt" clsort-mpi.1.txt
    done
    for name in $(grep -ohE 'getenv\("[A-Z_]+"\)' "$TESTS"/../../cli/mpi/*.c | grep -oE '[A-Z_]{3,}' | sort -u); do
        check "clsort-mpi(1) documents $name" grep -qF -- "$name" clsort-mpi.1.txt
    done
    readers=$(grep -lE '\bgetenv *\(' "$TESTS"/../../cli/mpi/*.c | xargs -n1 basename | tr '\n' ' ')
    check "only msettings.c of clsort-mpi calls getenv (found: $readers)" test "$readers" = "msettings.c "
fi
# the tool's sources: every folder of cli/ but clsort-mpi's
cli_sources=$(find "$TESTS"/../../cli -name '*.c' -not -path '*/mpi/*' | sort)

# every environment variable the tool reads itself is in clsort(1)
for name in $(grep -ohE 'getenv\("[A-Z_]+"\)' $cli_sources | grep -oE '[A-Z_]{3,}' | sort -u); do
    check "clsort(1) documents $name" grep -qF -- "$name" clsort.1.txt
done

# the tool reads its environment in one place, at start-up (settings.c); the other files ask it
readers=$(grep -lE '\bgetenv *\(' $cli_sources | xargs -n1 basename | tr '\n' ' ')
check "only settings.c calls getenv (found: $readers)" test "$readers" = "settings.c "
readers=$(grep -rlE '\bgetenv *\(' --include='*.c' "$TESTS"/../../lib | xargs -n1 basename | tr '\n' ' ')
check "only the library's settings.c calls getenv (found: $readers)" test "$readers" = "settings.c "

# every public function, status code and environment variable of the header is in libclsort(3)
for name in $(grep -oE 'CLSORT_API [a-z_ ]+\*? *(clsort_[a-z_]+)\(' "$HEADER" | grep -oE 'clsort_[a-z_]+\($' | tr -d '(') \
        $(grep -oE '^ *CLSORT_(OK|ERROR_[A-Z_]+)' "$HEADER") \
        $(grep -oE '`CLSORT_[A-Z_]+`' "$HEADER" | tr -d '`' | sort -u); do
    check "libclsort(3) documents $name" grep -qF -- "$name" libclsort.3.txt
done

finish
