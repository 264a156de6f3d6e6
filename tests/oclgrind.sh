#!/bin/sh
# Run a test program under oclgrind and fail if oclgrind reports anything (invalid accesses, data
# races, API errors, and uninitialised values where --uninitialized is passed): its messages go to a
# log that must stay empty.
# Usage: oclgrind.sh [OCLGRIND_OPTION...] -- TEST_PROGRAM ARGS...
set -u
opts=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts="$opts $1"; shift; done
[ $# -gt 1 ] || { echo "usage: $0 [OCLGRIND_OPTION...] -- PROGRAM ARGS..." >&2; exit 2; }
shift
command -v oclgrind >/dev/null || { echo "oclgrind not found"; exit 77; }
log=$(mktemp "${TMPDIR:-/tmp}/oclgrind.XXXXXX")
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
oclgrind --data-races --check-api --log "$log" $opts "$@"
rc=$?
if [ -s "$log" ]; then
    echo "oclgrind reported errors:"
    head -100 "$log"
    exit 1
fi
exit $rc
