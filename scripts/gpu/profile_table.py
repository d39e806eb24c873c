#!/usr/bin/env python3
"""Per-kernel table of an `ncu --csv --page raw` file written by scripts/gpu/profile.sh.

Usage: profile_table.py FILE.csv
Kernels are grouped by name (template arguments and parameters dropped); each row gives the
launches, the summed time and instructions and their shares, and the launch-weighted means of
achieved occupancy, registers per thread, the blocks-per-SM limits and DRAM bytes.
"""
import csv
import re
import sys
from collections import defaultdict


def short(name):
    name = name.replace("(anonymous namespace)", "")
    name = re.sub(r"\(.*$", "", name)  # parameters
    depth, out = 0, []
    for ch in name:  # template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).split("::")[-1].split()[-1]


def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    start = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    head, units, data = rows[start], rows[start + 1], rows[start + 2:]
    col = {h: i for i, h in enumerate(head)}
    scale = 1.0
    unit = units[col["gpu__time_duration.sum"]]
    scale = {"ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}.get(unit, 1e-3)
    g = defaultdict(lambda: defaultdict(float))
    for r in data:
        if len(r) < len(head):
            continue
        k = short(r[col["Kernel Name"]])
        s = g[k]
        s["n"] += 1
        s["us"] += num(r[col["gpu__time_duration.sum"]]) * scale
        s["inst"] += num(r[col["sm__inst_executed.sum"]])
        for m, key in (("sm__warps_active.avg.pct_of_peak_sustained_active", "occ"),
                       ("launch__registers_per_thread", "regs"),
                       ("launch__occupancy_limit_registers", "lim_regs"),
                       ("launch__occupancy_limit_shared_mem", "lim_smem"),
                       ("launch__occupancy_limit_warps", "lim_warps"),
                       ("launch__grid_size", "grid"),
                       ("launch__block_size", "block")):
            s[key] += num(r[col[m]])
        s["dram"] += num(r[col["dram__bytes_read.sum"]]) + num(r[col["dram__bytes_write.sum"]])
    tot_us = sum(s["us"] for s in g.values()) or 1.0
    tot_inst = sum(s["inst"] for s in g.values()) or 1.0
    print(f"{len(data)} launches, {tot_us:.1f} us, {tot_inst / 1e6:.1f} M warp instructions")
    print("| kernel | launches | us | time % | M inst | inst % | occupancy % | regs | "
          "blocks/SM by regs, smem, warps | grid | block | MB DRAM |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    for k, s in sorted(g.items(), key=lambda kv: -kv[1]["us"]):
        n = s["n"]
        print(f"| {k} | {n:.0f} | {s['us']:.1f} | {100 * s['us'] / tot_us:.1f} | "
              f"{s['inst'] / 1e6:.2f} | {100 * s['inst'] / tot_inst:.1f} | {s['occ'] / n:.1f} | "
              f"{s['regs'] / n:.0f} | {s['lim_regs'] / n:.1f}, {s['lim_smem'] / n:.1f}, "
              f"{s['lim_warps'] / n:.1f} | {s['grid'] / n:.0f} | {s['block'] / n:.0f} | "
              f"{s['dram'] / 1e6:.1f} |")


if __name__ == "__main__":
    main()
