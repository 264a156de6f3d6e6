#!/usr/bin/env python3
"""Where one kernel's warps wait, ours beside CUB's, from Nsight Compute's CSV pages.

    ncu_stalls.py TITLE OURS CUB

OURS and CUB are path prefixes: PREFIX-raw.csv (`ncu -i R --page raw --csv`) and PREFIX-sass.csv
(`ncu -i R --page source --print-source sass --csv`). Prints markdown: the sampled stall reasons
(share of all samples, each side), the kinds of instruction the samples sit on (opcode without
predicate or modifiers), and each side's instructions holding the most samples. bench/ncu-h100.sh
with STALLS=1 runs it.
"""
import csv
import re
import sys
from collections import defaultdict


def raw_metrics(path):
    """Metric name -> value of the report's first kernel (row 0 names, row 1 units, row 2 values)."""
    rows = list(csv.reader(open(path, newline="")))
    rows = [r for r in rows if r and not r[0].startswith("==")]
    if len(rows) < 3:
        return {}
    names, values = rows[0], rows[2]
    out = {}
    for n, v in zip(names, values):
        try:
            out[n] = float(v.replace(",", ""))
        except ValueError:
            out[n] = v
    return out


def stall_reasons(m):
    """Reason -> sampled warps (smsp__pcsamp_warps_issue_stalled_REASON), selected included."""
    out = {}
    for n, v in m.items():
        r = re.fullmatch(r"smsp__pcsamp_warps_issue_stalled_([a-z_]+)", n)
        if r and isinstance(v, float) and not r.group(1).endswith("_not_issued"):
            out[r.group(1)] = v
    return out


def sass_rows(path):
    """(address, instruction, samples, not-issued samples, executed) for each SASS line."""
    lines = [l for l in open(path, newline="") if not l.startswith("==")]
    rows = list(csv.reader(lines))
    # The page opens with the kernel's name on a row of its own.
    while rows and not ("Address" in rows[0] and "Source" in rows[0]):
        rows = rows[1:]
    if not rows:
        return [], []
    head = rows[0]

    def col(*keys):
        for i, h in enumerate(head):
            if all(k.lower() in h.lower() for k in keys):
                return i
        return None

    ia, isrc = col("address"), col("source")
    iall = col("warp stall sampling", "all")
    inot = col("warp stall sampling", "not")
    iex = col("instructions executed")
    if isrc is None or iall is None:
        return [], head
    out = []
    for r in rows[1:]:
        if len(r) <= max(isrc, iall):
            continue
        try:
            s = float(r[iall].replace(",", "") or 0)
        except ValueError:
            continue
        num = lambda i: float(r[i].replace(",", "") or 0) if i is not None and r[i] else 0.0
        out.append((r[ia] if ia is not None else "", r[isrc].strip(), s, num(inot), num(iex)))
    return out, head


def opcode(ins):
    ins = re.sub(r"^@!?U?P\w+\s+", "", ins)
    return ins.split()[0].split(".")[0] if ins else "?"


def main():
    title, ours, cub = sys.argv[1:4]
    sides = {"clsort": ours, "CUB": cub}
    print(f"\n### {title}: where the warps wait\n")
    reasons, totals, metrics = {}, {}, {}
    for side, p in sides.items():
        m = raw_metrics(p + "-raw.csv")
        metrics[side] = m
        r = stall_reasons(m)
        reasons[side] = r
        totals[side] = sum(r.values()) or 1.0
    keys = ["gpu__time_duration.sum", "smsp__inst_executed.sum",
            "smsp__average_warp_latency_per_inst_issued.ratio",
            "smsp__warps_active.avg.per_cycle_active", "smsp__issue_active.avg.pct_of_peak_sustained_active",
            "launch__registers_per_thread", "launch__occupancy_limit_registers",
            "launch__occupancy_limit_shared_mem", "sm__warps_active.avg.pct_of_peak_sustained_active"]
    print("| metric | clsort | CUB |\n|---|---|---|")
    for k in keys:
        print(f"| {k} | {metrics['clsort'].get(k, '')} | {metrics['CUB'].get(k, '')} |")
    print("\nSampled stall reasons, % of each side's samples (warp-cycles per issued instruction"
          " beside it, the samples' share times the side's average):\n")
    print("| reason | clsort % | clsort cycles/inst | CUB % | CUB cycles/inst |\n|---|---|---|---|---|")
    lat = {s: metrics[s].get("smsp__average_warp_latency_per_inst_issued.ratio", 0.0) for s in sides}
    lat = {s: v if isinstance(v, float) else 0.0 for s, v in lat.items()}
    allr = sorted(set(reasons["clsort"]) | set(reasons["CUB"]),
                  key=lambda k: -(reasons["clsort"].get(k, 0) + reasons["CUB"].get(k, 0)))
    for k in allr:
        a = reasons["clsort"].get(k, 0) / totals["clsort"]
        b = reasons["CUB"].get(k, 0) / totals["CUB"]
        if a < 0.005 and b < 0.005:
            continue
        print(f"| {k} | {100 * a:.1f} | {a * lat['clsort']:.2f} | {100 * b:.1f} | {b * lat['CUB']:.2f} |")
    ws = {s: {re.sub(r"^smsp__average_warps_issue_stalled_|_per_issue_active\.ratio$", "", k): v
              for k, v in metrics[s].items()
              if re.fullmatch(r"smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio", k)
              and isinstance(v, float) and "not_issued" not in k} for s in sides}
    print("\nWarp state (counters, not samples): warps stalled per issued instruction, by reason:\n")
    print("| reason | clsort | CUB |\n|---|---|---|")
    for k in sorted(set(ws["clsort"]) | set(ws["CUB"]),
                    key=lambda k: -(ws["clsort"].get(k, 0) + ws["CUB"].get(k, 0))):
        a, b = ws["clsort"].get(k, 0), ws["CUB"].get(k, 0)
        if a >= 0.01 or b >= 0.01:
            print(f"| {k} | {a:.2f} | {b:.2f} |")
    for side, p in sides.items():
        rows, head = sass_rows(p + "-sass.csv")
        if not rows:
            print(f"\n{side}: no SASS rows; columns were: {head[:40]}")
            continue
        tot = sum(r[2] for r in rows) or 1.0
        by = defaultdict(lambda: [0.0, 0.0, 0.0])
        for _, ins, s, ni, ex in rows:
            o = by[opcode(ins)]
            o[0] += s
            o[1] += ni
            o[2] += ex
        print(f"\n{side}: {len(rows)} SASS instructions, {tot:.0f} samples. By opcode (samples %, "
              "not-issued %, warp instructions executed):\n")
        print("| opcode | samples % | not issued % | executed |\n|---|---|---|---|")
        for o, (s, ni, ex) in sorted(by.items(), key=lambda kv: -kv[1][0])[:18]:
            print(f"| {o} | {100 * s / tot:.1f} | {100 * ni / tot:.1f} | {ex:.0f} |")
        print(f"\n{side}: the 30 instructions with most samples:\n")
        print("| address | instruction | samples % | not issued % | executed |\n|---|---|---|---|---|")
        for a, ins, s, ni, ex in sorted(rows, key=lambda r: -r[2])[:30]:
            print(f"| {a} | `{ins[:70]}` | {100 * s / tot:.1f} | {100 * ni / tot:.1f} | {ex:.0f} |")


if __name__ == "__main__":
    main()
