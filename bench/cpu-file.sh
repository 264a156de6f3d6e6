#!/bin/sh
# File to file on the CPU device (issue 47's target on a CPU): process wall time of
# `clsort -i IN -o OUT` against numpy.fromfile -> numpy.sort -> tofile, numpy once as it is and once
# with its AVX-512 sorting turned off (NPY_DISABLE_CPU_FEATURES; on an AMD EPYC with AVX-512 its
# AVX2 sort is the faster), alternated in one run, the input in the page cache, every output a
# new file (the old one removed first). Prints each process's wall time and, per job, the best and
# the median, and the ratio of clsort's to numpy's best. BEFORE=path of another clsort (an earlier
# tree's) is timed in the same rounds too.
#   [BEFORE=old/cli/clsort] bench/cpu-file.sh [CLSORT] [LOG2N] [ROUNDS]
#   (defaults: build/cli/clsort 26 5)
set -eu
clsort=${1:-build/cli/clsort}
log2=${2:-26}
rounds=${3:-5}
dir=${TMPDIR:-/tmp}/clsort-cpu-file.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT INT TERM
in=$dir/k$log2.bin
python3 -c "import numpy as np; np.random.default_rng($log2).integers(0, 2**32, 1 << $log2, dtype=np.uint32).tofile('$in')"
cat > "$dir/np.py" <<'PY'
import sys
import numpy as np
a = np.fromfile(sys.argv[1], dtype=np.uint32)
a.sort()
a.tofile(sys.argv[2])
PY
wall() { # job name, command...: one process's wall time in seconds, appended to $dir/$1
    name=$1; shift
    rm -f "$dir/out.bin"
    cat "$in" > /dev/null
    /usr/bin/time -f %e -o "$dir/t" "$@"
    cat "$dir/t" >> "$dir/$name"
    printf '%-12s %s s\n' "$name" "$(cat "$dir/t")"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$rounds" ]; do
    wall clsort "$clsort" -i "$in" -o "$dir/out.bin"
    cp "$dir/out.bin" "$dir/clsort.bin"
    if [ -n "${BEFORE:-}" ]; then
        wall before "$BEFORE" -i "$in" -o "$dir/out.bin"
        cmp -s "$dir/out.bin" "$dir/clsort.bin" || { echo "outputs differ" >&2; exit 1; }
    fi
    wall numpy python3 "$dir/np.py" "$in" "$dir/out.bin"
    cmp -s "$dir/out.bin" "$dir/clsort.bin" || { echo "outputs differ" >&2; exit 1; }
    NPY_DISABLE_CPU_FEATURES="AVX512_ICL AVX512_SKX X86_V4" wall numpy-avx2 python3 "$dir/np.py" "$in" "$dir/out.bin"
    i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$dir" <<'PY'
import statistics, sys
d = sys.argv[1]
best = {}
import os
for job in ('clsort', 'before', 'numpy', 'numpy-avx2'):
    if not os.path.exists(d + '/' + job):
        continue
    t = [float(x) for x in open(d + '/' + job)]
    best[job] = min(t)
    print('%-12s best %.2f s  median %.2f s  (%d runs)' % (job, min(t), statistics.median(t), len(t)))
np_best = min(best['numpy'], best['numpy-avx2'])
print('clsort best / numpy best: %.2f (target 0.67 or less)' % (best['clsort'] / np_best))
PY
