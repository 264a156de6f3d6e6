#!/usr/bin/env bash
# clsort bench: the sweep and the options that narrow it, the table, JSON parsed back, the SVG chart.
. "$(dirname "$0")/lib.sh" "$@"

# a small sweep: two sizes (repeated option and a list), two distributions, keys and pairs, two algorithms
run_clsort bench --n 1000 --n 3000,5000 --dist uniform,few:5 --algo radix4 --algo radix8 --repeat 2 \
    --warmup 1 --json bench.json --plot bench.svg > table.txt
expect_status "bench sweep" 0
cat table.txt
for word in algorithm distribution "kernel GKey/s" "e2e GKey/s" "vs ref" driver; do
    check "table: $word" grep -q "$word" table.txt
done
# 2 algorithms x 3 sizes x 2 distributions x (keys, pairs)
# (an algorithm that ran as a variant shows it: "radix8 (radix8-rts)")
check "table: one line per case" test "$(grep -cE '^radix(4|8)( \([a-z0-9-]+\))? +[0-9]+ ' table.txt)" -eq 24
check "table: keys and pairs" grep -qE ' pairs +[0-9]' table.txt

check "JSON parsed back" $PYTHON - <<'PY'
import json, sys
d = json.load(open('bench.json'))
for k in ('format_version', 'tool', 'version', 'device', 'driver', 'rows'):
    assert k in d, k
assert d['format_version'] == 1 and d['tool'] == 'clsort' and d['version'], d
rows = d['rows']
assert len(rows) == 24, len(rows)
need = ['algorithm', 'n', 'dist', 'data', 'kernel_gkeys_per_s', 'e2e_gkeys_per_s', 'ratio', 'kernel_ms',
        'e2e_ms', 'reference_ms', 'value_size']
for r in rows:
    assert all(k in r for k in need), r
    assert r['kernel_ms'] > 0 and r['e2e_ms'] >= r['kernel_ms'] * 0.5 and r['reference_ms'] > 0, r
    assert abs(r['ratio'] - r['reference_ms'] / r['kernel_ms']) < 1e-6 * r['ratio'] + 1e-12, r
    assert abs(r['kernel_gkeys_per_s'] - r['n'] / (r['kernel_ms'] * 1e6)) < 1e-6 * r['kernel_gkeys_per_s'] + 1e-12
    assert (r['data'] == 'pairs') == (r['value_size'] == 4), r
assert {r['n'] for r in rows} == {1000, 3000, 5000}
assert {r['dist'] for r in rows} == {'uniform', 'few:5'}
assert {r['algorithm'] for r in rows} == {'radix4', 'radix8'}
assert {r['data'] for r in rows} == {'keys', 'pairs'}
PY

check "SVG chart" $PYTHON - <<'PY'
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse('bench.svg').getroot()
assert root.tag == ns + 'svg', root.tag
lines = root.findall('.//' + ns + 'polyline')
# 2 algorithms and the reference, for each of 2 distributions x 2 layouts
assert len(lines) == 12, len(lines)
for l in lines:
    pts = l.get('points').split()
    assert len(pts) == 3, pts
    xs = [float(p.split(',')[0]) for p in pts]
    assert xs == sorted(xs), xs
texts = ''.join(t.text or '' for t in root.iter(ns + 'text'))
for word in ('radix4', 'radix8', 'host reference', 'GKey/s', 'log2'):
    assert word in texts, word
PY

# narrowing: one algorithm, keys only, one size; defaults for the rest
run_clsort bench -n 2000 --algo radix4 --keys --repeat 1 > one.txt
expect_status "bench narrowed to one case" 0
check "narrowed: one line" test "$(grep -cE '^radix4 +2000 +uniform +keys ' one.txt)" -eq 1
check "narrowed: no pairs" test "$(grep -c ' pairs ' one.txt)" -eq 0
run_clsort bench -n 2000 --algo auto --pairs --repeat 1 --no-reference --json - > only.json
expect_status "bench --pairs --json -" 0
check "--json -: JSON alone on stdout, pairs only, no ratio" $PYTHON -c "
import json, sys
d = json.load(open('only.json'))
r = d['rows']
assert len(r) == 1 and r[0]['data'] == 'pairs' and r[0]['ratio'] is None and r[0]['algorithm'] == 'auto', r"
run_clsort bench -n 2000 --algo radix4 --keys --repeat 1 --plot - > only.svg
check "--plot -: SVG alone on stdout" $PYTHON -c "
import xml.etree.ElementTree as ET; ET.parse('only.svg')"
# --kv is --pairs
run_clsort bench -n 2000 --algo radix4 --kv --repeat 1 --dist zipf:1.1 > kv.txt
expect_status "bench --kv" 0
check "bench --kv: pairs" grep -qE '^radix4 +2000 +zipf:1.1 +pairs ' kv.txt
check "bench: quiet on stderr" test ! -s err.txt

finish
