#!/usr/bin/env bash
# Install what is missing (Debian/Ubuntu), configure ./build once, and compile.
# Usage: tools/build.sh [--lean] [extra meson setup options]
#   --lean: the library and the tool alone (no tests, benchmarks or clsort-mpi), and only what they
#   need installed: the compiler, meson, ninja, the OpenCL headers and loader, PoCL for the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

lean=0
if [ "${1-}" = --lean ]; then
  lean=1
  shift
  set -- -Dtests=false -Dbench=false -Dmpi=disabled -Dcub_bench=disabled "$@"
fi
pkgs=(build-essential pkg-config meson ninja-build ocl-icd-opencl-dev opencl-headers pocl-opencl-icd)
[ $lean = 1 ] || pkgs+=(libcmocka-dev clinfo oclgrind openmpi-bin libopenmpi-dev)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "tools/build.sh: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  meson setup build "$@"
elif [ $# -gt 0 ]; then
  meson setup --reconfigure build "$@"
fi
ninja -C build
