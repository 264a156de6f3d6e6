#!/usr/bin/env bash
# First look at a GPU machine: what OpenCL sees, and the library tests on the NVIDIA platform.
# Usage (repository root): bash tools/gpu-probe.sh; results under $OUT when set.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{
  echo "== system"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  ls /etc/OpenCL/vendors/ 2>&1; cat /etc/OpenCL/vendors/*.icd 2>&1
  ls /usr/include/CL 2>&1 | head -3; pkg-config --modversion cmocka OpenCL 2>&1
  which meson ninja gcc nvcc clinfo oclgrind 2>&1; nvcc --version 2>&1 | tail -1
  env | grep -i -E "ocl|opencl" 2>&1; ldconfig -p | grep -i opencl
  clinfo -l 2>&1
} > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt"
source tools/gpu-env.sh
rm -rf build-gpu
meson setup build-gpu > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
ninja -C build-gpu > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
export CLSORT_CACHE_DIR=$PWD/build-gpu/cache
for dev in "${@:-nvidia}"; do
  echo "== tests on $dev"
  CLSORT_DEVICE=$dev timeout 300 ./build-gpu/tests/test_sort radix4 2>&1 | tail -12 | tee -a "$OUT/tests.txt"
done
