#!/usr/bin/env python3
"""Join bench_radix and cub_radix RESULT lines into one table with the ratio clsort / CUB per row."""
import sys


def read(path):
    rows = []
    for line in open(path):
        if line.startswith("RESULT "):
            rows.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
    return rows


def main():
    ours = read(sys.argv[1])
    cubrows = read(sys.argv[2]) if len(sys.argv) > 2 else []
    cub = {(r["dist"], r["n"], r["kind"]): float(r["gkeys"]) for r in cubrows}
    cubw = {(r["dist"], r["n"], r["kind"]): float(r.get("wgkeys", 0)) for r in cubrows}
    print(f"{'algo':<11} {'n':>11} {'log2':>4} {'dist':<9} {'kind':<5} {'clsort GK/s':>11} {'CUB GK/s':>9} {'ratio':>6}"
          f" {'wall GK/s':>9} {'CUB wall':>8} {'ratio':>6} {'wall/kern':>9}")
    for r in ours:
        k = (r["dist"], r["n"], r["kind"])
        c, cw = cub.get(k), cubw.get(k)
        g, gw = float(r["gkeys"]), float(r.get("wgkeys", 0))
        ratio = f"{g / c:6.2f}" if c else "     -"
        cs = f"{c:9.2f}" if c else "        -"
        wr = f"{gw / cw:6.2f}" if cw and gw else "     -"
        print(f"{r['impl']:<11} {r['n']:>11} {r['log2n']:>4} {r['dist']:<9} {r['kind']:<5} {g:11.2f} {cs} {ratio}"
              f" {gw:9.2f} {cw or 0:8.2f} {wr} {gw / g if g else 0:9.2f}")


main()
