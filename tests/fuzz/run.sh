#!/bin/sh
# Short fuzz run: replay the committed corpus, then mutate it; new inputs go to a scratch folder so the
# source tree is never written. Usage: run.sh FUZZER CORPUS RUNS
set -eu
out=$(mktemp -d "${TMPDIR:-/tmp}/clsort-fuzz.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir "$out/new"
# The tool's own error messages are expected by the thousand: keep them in a log, show its end.
if ! "$1" -runs="$3" -max_len=512 "$out/new" "$2" >"$out/log" 2>&1; then
  tail -60 "$out/log"
  exit 1
fi
grep -E '^#[0-9]+ +DONE|^Done' "$out/log" | tail -2
