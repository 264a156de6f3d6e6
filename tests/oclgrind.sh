#!/usr/bin/env bash
# Run a test program under the Oclgrind simulator with data-race and API checks; fail on any
# diagnostic it prints (each names the kernel on a "Kernel:" line), or on the program failing.
# Usage: oclgrind.sh OCLGRIND PROGRAM [ARGS...]
set -u
oclgrind=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$oclgrind" --data-races --check-api --max-errors 20 "$@" 2>"$log"
rc=$?
cat "$log" >&2
if grep -q -E '^[[:space:]]+Kernel: |OpenCL runtime error|Oclgrind: [0-9]+ errors' "$log"; then
  echo "oclgrind reported problems (above)" >&2
  exit 1
fi
exit $rc
