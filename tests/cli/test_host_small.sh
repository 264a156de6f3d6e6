#!/usr/bin/env bash
# auto on a device that is not the host's cores (Oclgrind's simulator: the third argument is
# tests/oclgrind.sh) sorts a small file by host-radix on the host, read whole and sorted where it
# was read (the library's direct path), with no programs loaded, as --stats says; one record past
# the threshold (CLSORT_HOST_SMALL_BYTES here), a named algorithm, or pairs joined in one file
# (--kv: the stream's pipeline) run the simulator's kernels. Every output against check.py.
. "$(dirname "$0")/lib.sh" "$@"
OCLGRIND=$3
sim() { "$OCLGRIND" -- "$CLSORT" "$@"; }

"$CLSORT" gen -n 1024 --seed 11 --dist few:50 -o k.bin || exit 2
"$CLSORT" gen -n 256 --type u64 --value-size 8 --seed 12 --values-out v.bin -o k64.bin || exit 2
"$CLSORT" gen -n 300 --seed 13 --kv -o kv.bin || exit 2

export CLSORT_HOST_SMALL_BYTES=4096
check "1024 u32 keys (4096 bytes): host-radix, no programs" sh -c "'$OCLGRIND' -- '$CLSORT' \
    -i k.bin -o k.out --stats 2>&1 | grep -q 'host-radix' && '$OCLGRIND' -- '$CLSORT' -i k.bin \
    -o k.out --stats 2>&1 | grep -q 'programs    0 built, 0 from cache'"
check "1024 u32 keys: sorted" $CHECK keys k.bin k.out
check "u64 keys, separate 8-byte values: host-radix" sh -c "'$OCLGRIND' -- '$CLSORT' --type u64 \
    -i k64.bin -o k64.out --values v.bin --values-out v.out --value-size 8 --stats 2>&1 | grep -q host-radix"
check "u64 keys, separate values: stable" $CHECK tsort k64.bin k64.out --type u64 --value-size 8 \
    --values v.bin v.out
check "radix8 named: the device's kernels" sh -c "'$OCLGRIND' -- '$CLSORT' --algo radix8 \
    -i k.bin -o k.named --stats 2>&1 | grep -q 'host-radix'; test \$? = 1"
check "radix8 named: the same bytes" cmp k.named k.out
check "--kv (one file): the device's kernels" sh -c "'$OCLGRIND' -- '$CLSORT' --kv -i kv.bin \
    -o kv.out --stats 2>&1 | grep -q 'host-radix'; test \$? = 1"
check "--kv: stable" $CHECK kv kv.bin kv.out

export CLSORT_HOST_SMALL_BYTES=4092
check "one record past the threshold: the device's kernels" sh -c "'$OCLGRIND' -- '$CLSORT' \
    -i k.bin -o k.dev --stats 2>&1 | grep -q 'host-radix'; test \$? = 1"
check "past the threshold: the same bytes" cmp k.dev k.out
finish
