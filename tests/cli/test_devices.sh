#!/usr/bin/env bash
# clsort devices (text and JSON), and choosing a device by id and through CLSORT_DEVICE.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" devices > devices.txt 2>err.txt
status=$?
expect_status "devices" 0
cat devices.txt
check "devices: a P:D id" grep -Eq '^  [0-9]+:[0-9]+ ' devices.txt
check "devices: a default device" grep -q '\[default\]' devices.txt
for word in type driver "compute units" "global memory" "local memory" algorithms; do
    check "devices: $word" grep -q "$word" devices.txt
done

"$CLSORT" devices --json > devices.json 2>err.txt
status=$?
expect_status "devices --json" 0
check "devices --json: fields, one default" $PYTHON -c "
import json, sys
d = json.load(open('devices.json'))['devices']
need = ['id', 'platform', 'name', 'type', 'driver_version', 'global_mem', 'local_mem', 'compute_units',
        'default', 'algorithms', 'max_keys_u32', 'max_pairs_u32']
assert d and all(all(k in x for k in need) for x in d), d
# one device sort holds at least a key per 16 bytes of the largest buffer, pairs need more room
assert all(x['max_keys_u32'] >= x['max_alloc'] // 16 and x['max_pairs_u32'] < x['max_keys_u32'] for x in d), d
assert sum(1 for x in d if x['default']) == 1
print(d[0]['id'], file=open('first-id.txt', 'w'), end='')"
id=$(cat first-id.txt 2>/dev/null || echo 0:0)

# each listed id works as --device and as CLSORT_DEVICE
"$CLSORT" gen -n 5000 --seed 3 -o keys.bin
run_clsort --device "$id" -i keys.bin -o by-option.bin --stats-json s.json
expect_status "--device $id" 0
check "--device $id: sorted" $CHECK keys keys.bin by-option.bin
CLSORT_DEVICE=$id "$CLSORT" -i keys.bin -o by-env.bin 2>err.txt
status=$?
expect_status "CLSORT_DEVICE=$id" 0
same_file "CLSORT_DEVICE=$id: sorted" by-env.bin by-option.bin
# -d overrides CLSORT_DEVICE
CLSORT_DEVICE=no-such-device-xyz "$CLSORT" -d "$id" -i keys.bin -o by-both.bin 2>err.txt
status=$?
expect_status "-d overrides CLSORT_DEVICE" 0

finish
