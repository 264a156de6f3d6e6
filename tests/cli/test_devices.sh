#!/usr/bin/env bash
# clsort devices (text and JSON), and choosing a device by id and through CLSORT_DEVICE.
. "$(dirname "$0")/lib.sh" "$@"

"$CLSORT" devices > devices.txt 2>err.txt
status=$?
expect_status "devices" 0
cat devices.txt
check "devices: a P:D id" grep -Eq '^  [0-9]+:[0-9]+ ' devices.txt
check "devices: a default device" grep -q '\[default\]' devices.txt
check "devices: what is tested on each platform" grep -Eq '^  tested: .+' devices.txt
for word in type driver "compute units" "global memory" "local memory" algorithms; do
    check "devices: $word" grep -q "$word" devices.txt
done

"$CLSORT" devices --json > devices.json 2>err.txt
status=$?
expect_status "devices --json" 0
check "devices --json: fields, one default" $PYTHON -c "
import json, sys
d = json.load(open('devices.json'))['devices']
need = ['id', 'platform', 'tested', 'name', 'type', 'driver_version', 'global_mem', 'local_mem', 'compute_units',
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

# Two implementations at once (PoCL and Intel's CPU runtime, where tools/intel-ocl.sh installed it
# in this build): a word that names a platform picks it, though both devices are called "AMD EPYC"
# or the like; a word that names no platform falls back to device names.
build_dir=$(dirname "$(dirname "$CLSORT")")
intel_icd=$build_dir/intel-ocl/vendors/intel-cpu.icd
pocl_icd=$(ls /etc/OpenCL/vendors/*pocl*.icd 2>/dev/null | head -n 1)
if [ -f "$intel_icd" ] && [ -n "$pocl_icd" ]; then
    mkdir -p two-vendors
    cp "$intel_icd" "$pocl_icd" two-vendors/
    export OCL_ICD_VENDORS=$PWD/two-vendors
    export LD_LIBRARY_PATH=$build_dir/intel-ocl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    "$CLSORT" devices > two.txt 2>err.txt
    check "two platforms listed" grep -q 'Intel(R) OpenCL' two.txt
    check "two platforms listed (PoCL)" grep -q 'Portable Computing Language' two.txt
    for pick in intel:Intel pocl:Portable "Intel(R) Corporation:Intel" "portable computing:Portable"; do
        word=${pick%%:*} want=${pick#*:}
        run_clsort -d "$word" -i keys.bin -o picked.bin --stats-json picked.json
        expect_status "-d '$word'" 0
        check "-d '$word' picks the $want platform" $PYTHON -c "
import json, sys
d = json.load(open('picked.json'))['device']
sys.exit(0 if d.startswith('$want') else 'device: ' + d)"
        same_file "-d '$word': sorted" picked.bin by-option.bin
    done
    run_clsort -d epyc -i keys.bin -o picked.bin
    expect_status "-d epyc (a device name on both platforms)" 0
    unset OCL_ICD_VENDORS
else
    echo "skip two platforms: no Intel runtime in $build_dir/intel-ocl (tools/intel-ocl.sh) or no PoCL"
fi

finish
