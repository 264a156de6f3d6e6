#!/usr/bin/env bash
# Injected device allocation failures (CLSORT_FAULT_ALLOC=N fails the N-th one): each gives exit 2 and
# a message naming the allocation, leaves no output or temporary file, and leaves the input as it was,
# also when sorting in place.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" gen -n 20000 --seed 3 -o keys.bin 2>err.txt || not_ok "gen"
"$CLSORT" gen -n 20000 --seed 4 --kv -o pairs.bin 2>err.txt || not_ok "gen --kv"
cp keys.bin keys.orig
cp pairs.bin pairs.orig
mkdir out

for n in 1 2 3; do
    # bitonic sorts in place on the device: the keys are its only allocation
    for algo in radix4 radix8 bitonic; do
        [ "$algo" = bitonic ] && [ "$n" -gt 1 ] && continue
        CLSORT_FAULT_ALLOC=$n run_clsort --algo "$algo" -i keys.bin -o out/sorted.bin
        expect_status "$algo, allocation $n fails" 2
        expect_message "$algo, allocation $n fails" "CL_MEM_OBJECT_ALLOCATION_FAILURE"
        expect_message "$algo, allocation $n fails" "allocating"
        expect_only out "$algo, allocation $n fails"
        same_file "$algo, allocation $n fails: input intact" keys.bin keys.orig
    done
    CLSORT_FAULT_ALLOC=$n run_clsort -i keys.bin -o keys.bin
    expect_status "in place, allocation $n fails" 2
    same_file "in place, allocation $n fails: input intact" keys.bin keys.orig
    CLSORT_FAULT_ALLOC=$n run_clsort --kv -i pairs.bin -o pairs.bin
    expect_status "records in place, allocation $n fails" 2
    same_file "records in place, allocation $n fails: input intact" pairs.bin pairs.orig
done
expect_only . "nothing left beside the inputs" err.txt keys.bin keys.orig out pairs.bin pairs.orig

# Past the last allocation the sort goes through.
CLSORT_FAULT_ALLOC=1000 run_clsort -i keys.bin -o out/sorted.bin --verify
expect_status "no allocation fails" 0
finish
