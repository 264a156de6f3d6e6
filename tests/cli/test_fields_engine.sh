#!/usr/bin/env bash
# Records by a key field through the library's engine (clsort_sort_stream_records): in runs
# (CLSORT_TEST_RECORD_RUN) merged by --parallel 2 threads in levels (--batch-size 3), and past a
# small -S in run files, from a file and from stdin (-i -), each byte for byte the in-memory sort's
# output and positions, which fields.py checks: every numeric type at a nonzero offset and keys of
# 10 and 20 bytes sharing their first 8 bytes (a merge block cut inside a tie of the first word),
# both orders; -u in runs; --top K --index-out on a whole input.
. "$(dirname "$0")/lib.sh" "$@"

REF=$TESTS/fields.py
mkdir runs

# gen OUT N RS OFF KS SEED: N records of RS random bytes, a key of KS bytes at OFF drawn from a pool
# whose keys share their first 8 bytes in groups (ties of the first word, and equal keys)
gen() {
    $PYTHON - "$@" <<'EOF'
import random, sys
out, n, rs, off, ks, seed = sys.argv[1], *map(int, sys.argv[2:])
rnd = random.Random(seed)
heads = [bytes(rnd.randrange(256) for _ in range(min(ks, 8))) for _ in range(3)]
pool = [rnd.choice(heads) + bytes(rnd.randrange(256) for _ in range(ks - min(ks, 8)))
        for _ in range(12)]
with open(out, 'wb') as f:
    for _ in range(n):
        r = bytearray(rnd.randrange(256) for _ in range(rs))
        r[off:off + ks] = rnd.choice(pool)
        f.write(r)
EOF
}

# json_at NAME JSON EXPR: EXPR (of the report r) holds
json_at() {
    if $PYTHON -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
        "$2" "$3"; then ok "$1"; else not_ok "$1: not $3"; fi
}

# name, records, record size, key offset, key (bytes:K or a type), options
cases=(
    "u32 3001 12 3 u32"
    "i32 3001 9 5 i32 --desc"
    "f32 3001 16 1 f32"
    "u64 3001 20 7 u64 --desc"
    "i64 3001 16 8 i64"
    "f64 3001 24 2 f64 --desc"
    "b10 3001 32 2 bytes:10"
    "b20 3001 40 5 bytes:20 --desc"
)
for c in "${cases[@]}"; do
    read -r name n rs off key opts <<< "$c"
    # shellcheck disable=SC2086
    record_args "$key" "$rs" "$off" $opts
    gen $name.in "$n" "$rs" "$off" "$ks" "${#name}$rs" || exit 2
    # the in-memory sort (one run), against the reference
    check "$c: in memory" "$CLSORT" "${args[@]}" -i $name.in -o $name.mem --index-out $name.mem.idx
    # shellcheck disable=SC2086
    check "$c: the reference" $PYTHON "$REF" check $name.in $name.mem "$rs" "$off" "$key" $opts \
        --index $name.mem.idx
    # runs of 97 records merged by two threads, three at a time: the same bytes and positions
    check "$c: runs" env CLSORT_TEST_RECORD_RUN=97 "$CLSORT" "${args[@]}" --parallel 2 \
        --batch-size 3 -T runs -i $name.in -o $name.runs --index-out $name.runs.idx \
        --stats-json $name.json
    same_file "$c: runs, as in memory" $name.mem $name.runs
    same_file "$c: runs, positions as in memory" $name.mem.idx $name.runs.idx
    json_at "$c: runs merged in levels" $name.json 'r["runs"] > 3 and r["merge_levels"] > 0'
    # from stdin
    check "$c: stdin" sh -c 'n=$1; shift; "$@" < $n.in > $n.pipe' x $name \
        env CLSORT_TEST_RECORD_RUN=97 "$CLSORT" "${args[@]}" --parallel 2 -T runs -i -
    same_file "$c: stdin, as in memory" $name.mem $name.pipe
    expect_only runs "$c: -T"
done

# past a small -S: runs in files, merged by two threads, from a file and from stdin
for c in "b20 20000 40 5 bytes:20" "f64 20000 24 2 f64 --desc"; do
    read -r name n rs off key opts <<< "$c"
    # shellcheck disable=SC2086
    record_args "$key" "$rs" "$off" $opts
    gen big$name.in "$n" "$rs" "$off" "$ks" 7 || exit 2
    check "$c: in memory" "$CLSORT" "${args[@]}" -i big$name.in -o big$name.mem \
        --index-out big$name.mem.idx
    check "$c: -S 4Mi" "$CLSORT" "${args[@]}" -S 4Mi --parallel 2 -T runs -i big$name.in \
        -o big$name.out --index-out big$name.idx --stats-json big$name.json --verify
    same_file "$c: -S 4Mi, as in memory" big$name.mem big$name.out
    same_file "$c: -S 4Mi, positions as in memory" big$name.mem.idx big$name.idx
    json_at "$c: runs in files" big$name.json 'r["runs"] > 1 and r["runs_spilled"] > 0'
    check "$c: -S 4Mi, stdin" sh -c 'n=$1; shift; "$@" < big$n.in > big$n.pipe' x $name \
        "$CLSORT" "${args[@]}" -S 4Mi --parallel 2 -T runs -i -
    same_file "$c: -S 4Mi, stdin, as in memory" big$name.mem big$name.pipe
    expect_only runs "$c: -T"
done

# -u in runs: the first record of each key, as in memory
record_args bytes:10 32 2
check "-u: in memory" "$CLSORT" "${args[@]}" -u -i b10.in -o u.mem
check "-u: runs" env CLSORT_TEST_RECORD_RUN=97 "$CLSORT" "${args[@]}" -u --parallel 2 \
    --batch-size 3 -i b10.in -o u.runs
same_file "-u: runs, as in memory" u.mem u.runs
check "-u: the reference" $PYTHON "$REF" check b10.in u.runs 32 2 bytes:10 --unique

# --top K --index-out on a whole input (K the input's records: a whole sort), in runs
record_args bytes:20 40 5 --desc
check "--top all --index-out" env CLSORT_TEST_RECORD_RUN=97 "$CLSORT" "${args[@]}" --top 3001 \
    --parallel 2 -i b20.in -o top.out --index-out top.idx
same_file "--top all: as the sort" b20.mem top.out
same_file "--top all: positions as the sort's" b20.mem.idx top.idx
check "--top 3001 --index-out: the reference" $PYTHON "$REF" check b20.in top.out 40 5 bytes:20 \
    --desc --top 3001 --index top.idx

finish
