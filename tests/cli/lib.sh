# Shared setup and assertions for the clsort CLI tests. Source it with: . "$(dirname "$0")/lib.sh" "$@"
# Arguments of every test script: CLSORT (the built executable) SCRATCH (a directory it may wipe).
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 CLSORT SCRATCH_DIR" >&2
    exit 2
fi
CLSORT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SCRATCH=$2
TESTS=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
CHECK="$PYTHON $TESTS/check.py"

# The default device (PoCL on the CI machine), whatever the caller's environment says.
unset CLSORT_DEVICE
export CLSORT_CACHE_DIR=${CLSORT_CACHE_DIR:-$SCRATCH/cache}

rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cd "$SCRATCH" || exit 2

failures=0
checks=0

ok() {
    checks=$((checks + 1))
    echo "ok   $*"
}

not_ok() {
    checks=$((checks + 1))
    failures=$((failures + 1))
    echo "FAIL $*"
    if [ -s err.txt ]; then
        echo "     stderr was:"
        sed 's/^/     | /' err.txt
    fi
}

# The algorithm names clsort accepts (it lists them when given an unknown one).
algorithms() {
    "$CLSORT" --algo '?' 2>&1 | sed -n 's/.*(known: \(.*\); see.*/\1/p' | tr -d ','
}

# check NAME COMMAND...: the command succeeds
check() {
    local name=$1
    shift
    if "$@" 2>err.txt; then ok "$name"; else not_ok "$name"; fi
}

# run_clsort ARGS...: run clsort with stderr to err.txt; sets $status
run_clsort() {
    "$CLSORT" "$@" 2>err.txt
    status=$?
}

# expect_status NAME WANT: the last run_clsort exited with WANT
expect_status() {
    if [ "$status" -eq "$2" ]; then ok "$1 (exit $2)"; else not_ok "$1: exit $status, expected $2"; fi
}

# expect_message NAME TEXT: err.txt contains TEXT
expect_message() {
    if grep -qF -- "$2" err.txt; then ok "$1 (message)"; else not_ok "$1: message lacks '$2'"; fi
}

# expect_only DIR NAME FILE...: DIR holds exactly these files (no outputs, no temporary files)
expect_only() {
    local dir=$1 name=$2
    shift 2
    local want got
    want=$(printf '%s\n' "$@" | sort)
    got=$(cd "$dir" && ls -A | sort)
    if [ "$got" = "$want" ]; then
        ok "$name (nothing left behind)"
    else
        not_ok "$name: directory holds [$(echo $got)], expected [$(echo $want)]"
    fi
}

# same_file NAME A B
same_file() {
    if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1: $2 and $3 differ"; fi
}

# least_mi FILE: the N of "give at least -S NMi" in clsort's refusal of a -S too small (empty if none)
least_mi() {
    sed -n 's/.*give at least -S \([0-9]*\)Mi.*/\1/p' "$1"
}

# record_args KEY RS OFF [OPTS...]: for records of RS bytes with a key at OFF written as a type (u32,
# f64, ...) or bytes:K, sets ks (the key's bytes) and args (clsort's options for them, OPTS last).
record_args() {
    local key=$1 rs=$2 off=$3
    shift 3
    ks=${key#bytes:}
    [ "$ks" = "$key" ] && { case $key in *64) ks=8 ;; *) ks=4 ;; esac; }
    args=(--record-size "$rs" --key-offset "$off" "$@")
    if [ "${key#bytes:}" != "$key" ]; then
        args+=(--type bytes --key-size "$ks")
    else
        args+=(--type "$key")
    fi
}

# least_of ARGS...: the least -S clsort names for ARGS (with -S 1Mi added), asked twice: a driver
# that compiles kernels at the first ask (NVIDIA's JIT-compiles PTX and caches what it compiled)
# holds its compiler then and names tens of MiB more than a later run holds.
least_of() {
    "$CLSORT" "$@" -S 1Mi > /dev/null 2>&1
    "$CLSORT" "$@" -S 1Mi > /dev/null 2> least.err
    least_mi least.err
}

finish() {
    echo "$checks checks, $failures failed"
    [ "$failures" -eq 0 ]
    exit $?
}

# run_batch FILE: check.py's commands in FILE, one a line, all in one Python process (each process
# costs a tenth of a second); each line is a check that passes or fails. Output lines that are not
# results (disorder's answers) are kept in batch.out.
run_batch() {
    $CHECK batch "$1" > batch.out 2>&1 || { not_ok "check.py batch $1"; return; }
    : > err.txt
    local line
    while IFS= read -r line; do
        case $line in
            "ok "*) ok "${line#ok }" ;;
            "FAIL "*) not_ok "${line#FAIL }" ;;
        esac
    done < batch.out
}
