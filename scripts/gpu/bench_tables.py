#!/usr/bin/env python3
"""Prints the tables of docs/benchmarks.md from the results of `scripts/gpu/run.sh bench`.

run.sh leaves, in its results folder and in $OUT/results.tgz: summary.txt (the device line of
nvidia-smi, the commit built, the decode pipelines' times) and, per benchmark, bench_X.md (what
the benchmark wrote with --out) and bench_X.cmd (its command line). This script turns them into
one Markdown section per benchmark, each headed by the device, the commit and the command, so the
figures of docs/benchmarks.md come from the benchmarks' own output:

    scripts/gpu/bench_tables.py results.tgz > tables.md       # or a results folder
    scripts/gpu/bench_tables.py results.tgz --only bench_cedd,bench_bgsub

A benchmark's Markdown tables are copied as they are; a "# csv" block becomes a table; any other
text is kept as a preformatted block. The decode pipelines (run.sh pipelines) become one table
with their three times and frames per second (--frames: the clip's frames, default 300).
"""
import argparse
import csv
import io
import os
import re
import sys
import tarfile


def read_results(path):
    """{file name: text} of the results folder or archive (top level only)."""
    files = {}
    if os.path.isdir(path):
        for name in os.listdir(path):
            full = os.path.join(path, name)
            if os.path.isfile(full):
                with open(full, encoding="utf-8", errors="replace") as f:
                    files[name] = f.read()
    else:
        with tarfile.open(path) as tar:
            for m in tar.getmembers():
                if m.isfile():
                    name = os.path.basename(m.name)
                    files[name] = tar.extractfile(m).read().decode("utf-8", "replace")
    return files


def device_and_commit(summary):
    """The device line (nvidia-smi's csv row after its header) and the commit run.sh logged."""
    device, commit = "unknown device", "unknown commit"
    lines = summary.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("name,") and i + 1 < len(lines):
            fields = [f.strip() for f in lines[i + 1].split(",")]
            device = fields[0] + (" (driver %s)" % fields[1] if len(fields) > 1 else "")
        m = re.match(r"commit: ([0-9a-f]{7,40})", line)
        if m:
            commit = m.group(1)[:7]
    return device, commit


def csv_table(rows):
    """A Markdown table of csv rows (the first is the header)."""
    if not rows:
        return []
    out = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return out


def convert(text):
    """A benchmark's --out file as Markdown: tables kept, csv blocks converted, text preformatted."""
    out, plain, lines, i = [], [], text.splitlines(), 0

    def flush_plain():
        while plain and not plain[-1].strip():
            plain.pop()
        while plain and not plain[0].strip():
            plain.pop(0)
        if plain:
            out.extend(["```"] + plain + ["```", ""])
        plain.clear()

    while i < len(lines):
        line = lines[i]
        if line.strip().lower() == "# csv":
            flush_plain()
            block = []
            i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("#"):
                block.append(lines[i])
                i += 1
            out.extend(csv_table(list(csv.reader(io.StringIO("\n".join(block))))))
            out.append("")
            continue
        if line.lstrip().startswith("|"):
            flush_plain()
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                out.append(lines[i].strip())
                i += 1
            out.append("")
            continue
        if line.startswith("#") and not out and not plain:
            out.append(line.lstrip("# ").strip())  # the benchmark's title line
            out.append("")
        else:
            plain.append(line)
        i += 1
    flush_plain()
    while out and not out[-1]:
        out.pop()
    return out


def pipelines(summary, frames):
    """The decode pipelines' lines of summary.txt as a table."""
    rows = []
    for line in summary.splitlines():
        m = re.match(r"pipeline nvh264dec ! (.*):((?: [0-9:.]+)*)\s*$", line)
        if not m:
            continue
        times = []
        for t in m.group(2).split():
            secs = 0.0
            for part in t.split(":"):
                secs = secs * 60 + float(part)
            times.append(secs)
        fps = "%.0f" % (frames / min(times)) if times and min(times) > 0 else "-"
        rows.append("| `%s` | %s | %s |" % (m.group(1), ", ".join("%.3f" % t for t in times), fps))
    if not rows:
        return []
    return ["| after `nvh264dec` | runs (s) | fps (best run) |", "| --- | --- | --- |"] + rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", help="results.tgz of scripts/gpu/run.sh, or its results folder")
    ap.add_argument("--only", default="", help="comma-separated benchmark names")
    ap.add_argument("--frames", type=int, default=300, help="frames of the pipelines' clip")
    args = ap.parse_args()

    files = read_results(args.results)
    summary = files.get("summary.txt", "")
    device, commit = device_and_commit(summary)
    only = set(filter(None, args.only.split(",")))
    benches = sorted(n[:-3] for n in files if n.startswith("bench_") and n.endswith(".md"))
    printed = 0
    for name in benches:
        if only and name not in only:
            continue
        cmd = files.get(name + ".cmd", name).strip() or name
        print("### %s\n" % name)
        print("%s, commit %s: `%s`\n" % (device, commit, cmd))
        print("\n".join(convert(files[name + ".md"])))
        print()
        printed += 1
    table = pipelines(summary, args.frames) if not only or "pipelines" in only else []
    if table:
        print("### Decode pipelines\n")
        print("%s, commit %s: `scripts/gpu/run.sh pipelines` (%d frames, three runs)\n"
              % (device, commit, args.frames))
        print("\n".join(table))
        print()
        printed += 1
    if printed == 0:
        print("bench_tables: no benchmark results in %s" % args.results, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
