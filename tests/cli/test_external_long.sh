#!/usr/bin/env bash
# The long suite's external sort: 64M keys in 256 runs (CLSORT_CHUNK_KEYS), all in temporary files
# (a small -S), merged 4 at a time in several levels; u32 keys and u64 key/value records, from a
# file and from stdin, byte for byte against the in-memory sort.
. "$(dirname "$0")/lib.sh" "$@"

mkdir runs
"$CLSORT" gen -n 1000 -o tiny.bin || exit 2
"$CLSORT" -i tiny.bin -o tiny.out -S 1Mi 2>err.txt
least=$(least_mi err.txt)
[ -n "$least" ] || { not_ok "-S 1Mi: no least size named"; finish; }
S=$((least + 16))Mi

# levels NAME N GEN_ARGS SORT_ARGS...: GEN_ARGS (one word list) go to gen only, with the layout
levels() {
    local name=$1 n=$2 gen=$3
    shift 3
    # shellcheck disable=SC2086
    "$CLSORT" gen -n "$n" $gen "$@" -o in.bin -f || exit 2
    check "$name: in memory" "$CLSORT" -i in.bin -o ref.bin "$@"
    check "$name: levels" env CLSORT_CHUNK_KEYS=$((n / 256)) "$CLSORT" -i in.bin -o ext.bin -S "$S" \
        -T runs --batch-size 4 --verify --stats-json ext.json "$@"
    same_file "$name: output" ref.bin ext.bin
    check "$name: merge levels" $PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["merge_levels"] >= 2 and r["runs"] >= 256 else 1)' ext.json
    check "$name: levels from stdin" bash -c 'env CLSORT_CHUNK_KEYS=$1 "$0" -o pipe.bin -S "$2" -T runs --batch-size 4 "${@:3}" < in.bin' \
        "$CLSORT" $((n / 256)) "$S" "$@"
    same_file "$name: stdin output" ref.bin pipe.bin
    expect_only runs "$name"
}

levels "u32" 67108864 "" --type u32
levels "u64 kv" 16777216 "--dist few:1000" --type u64 --kv --value-size 8

finish
