#!/usr/bin/env bash
# Install Intel's CPU OpenCL runtime (PyPI's intel-opencl-rt) under a build directory, so that the
# test suites can run on a second OpenCL implementation beside PoCL. Nothing outside BUILD is touched.
#
# Usage: tools/intel-ocl.sh [BUILD]          (BUILD defaults to build)
# Then:  . BUILD/intel-ocl/env.sh             (OCL_ICD_VENDORS and LD_LIBRARY_PATH for this runtime only)
#        meson test -C BUILD --setup intel    (the setup in tests/meson.build sets the same)
#
# What the wheel does not do by itself, and this script does:
# - pip --target drops the wheel's libraries: a virtual environment keeps them (BUILD/intel-ocl/venv);
# - it needs intel-cmplr-lib-rt (libimf, libsvml, libirc...), which it does not declare;
# - its own .icd file names a path that does not exist, and Debian's ocl-icd (2.3.1) ignores
#   OCL_ICD_FILENAMES: a vendors folder of our own holds one .icd naming libintelocl.so;
# - the wheel ships a libOpenCL.so of its own: the library path gets links to every other library of
#   the wheel, so that programs keep the system's ICD loader.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p "$build"
root=$(cd "$build" && pwd)/intel-ocl
venv=$root/venv
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
if [ ! -e "$venv/lib/libintelocl.so" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check intel-opencl-rt intel-cmplr-lib-rt
fi
lib=$venv/lib
if [ ! -e "$lib/libintelocl.so" ]; then
  echo "tools/intel-ocl.sh: $lib/libintelocl.so not found after installing intel-opencl-rt" >&2
  exit 1
fi

rm -rf "$root/vendors" "$root/lib"
mkdir -p "$root/vendors" "$root/lib"
printf '%s\n' "$lib/libintelocl.so" > "$root/vendors/intel-cpu.icd"
for f in "$lib"/*.so "$lib"/*.so.*; do
  [ -e "$f" ] || continue
  case $(basename "$f") in libOpenCL.so*) continue ;; esac
  ln -s "$f" "$root/lib/$(basename "$f")"
done

cat > "$root/env.sh" <<EOF
# Source this file to run OpenCL programs on Intel's CPU runtime alone (written by tools/intel-ocl.sh).
export OCL_ICD_VENDORS='$root/vendors'
export LD_LIBRARY_PATH='$root/lib'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
EOF

# It must answer as a platform of its own.
if command -v clinfo >/dev/null 2>&1; then
  # shellcheck disable=SC1091
  if ! (. "$root/env.sh" && clinfo -l 2>/dev/null | grep -q 'Intel(R) OpenCL'); then
    echo "tools/intel-ocl.sh: the ICD loader does not list Intel(R) OpenCL with $root/vendors" >&2
    exit 1
  fi
fi
echo "tools/intel-ocl.sh: Intel(R) OpenCL ready; . $root/env.sh"
