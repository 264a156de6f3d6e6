#!/bin/sh
# Run a test program under oclgrind and fail if oclgrind reports anything (invalid accesses, data
# races, API errors, and uninitialised values where --uninitialized is passed): its messages go to a
# log that must stay empty.
# Usage: oclgrind.sh [OCLGRIND_OPTION...] -- TEST_PROGRAM ARGS...
# OCLGRIND_FILL_SHIM, where set, names a library (tests/oclgrind_fill.c) preloaded into the program
# ahead of Oclgrind's own, so that buffers the host fills count as initialised.
set -u
opts=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts="$opts $1"; shift; done
[ $# -gt 1 ] || { echo "usage: $0 [OCLGRIND_OPTION...] -- PROGRAM ARGS..." >&2; exit 2; }
shift
command -v oclgrind >/dev/null || { echo "oclgrind not found"; exit 77; }
log=$(mktemp "${TMPDIR:-/tmp}/oclgrind.XXXXXX")
trap 'rm -f "$log"' EXIT
if [ -n "${OCLGRIND_FILL_SHIM:-}" ]; then
    # Oclgrind puts its library first in LD_PRELOAD; the shim must come before it.
    set -- sh -c 'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"' "$OCLGRIND_FILL_SHIM" "$@"
fi
# shellcheck disable=SC2086
oclgrind --data-races --check-api --log "$log" $opts "$@"
rc=$?
if [ -s "$log" ]; then
    echo "oclgrind reported errors:"
    head -100 "$log"
    exit 1
fi
exit $rc
