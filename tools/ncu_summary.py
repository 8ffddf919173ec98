#!/usr/bin/env python3
"""ncu_summary: the kernels of one profiled iteration (run_device.sh MODE=ncu),
in launch order or grouped by kernel family.

Reads the CSV that `ncu --csv --page raw --log-file F` writes (a header row,
a units row, then one row per kernel; lines ncu prefixes with == are
skipped) and prints, per kernel or per family (the name without template
arguments and parameters): count, total and mean GPU time, grid, block,
registers, instructions, DRAM and L2 bytes. The rows come in the order
cnnperf-measure enqueued them: forward layer by layer, then backward from
the last layer, then the updates, so runs of rows line up with the layer
passes `cnnperf predict --explain` decomposes.

  python3 tools/ncu_summary.py ncu-resnet50-b64-fp16.csv            # families, by total time
  python3 tools/ncu_summary.py --order ncu-resnet50-b64-fp16.csv    # every kernel in launch order

Needs only Python's standard library; nothing of cnnperf's build, tests or
predictions depends on it.
"""
import argparse
import collections
import csv
import gzip
import re
import signal
import sys

METRICS = {
    "time": "gpu__time_duration.sum",
    "grid": "launch__grid_size",
    "block": "launch__block_size",
    "regs": "launch__registers_per_thread",
    "inst": "smsp__inst_executed.sum",
    "dram_rd": "dram__bytes_read.sum",
    "dram_wr": "dram__bytes_write.sum",
    "l2": "lts__t_bytes.sum",
}
# to nanoseconds / bytes, from the units row
SCALE = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9,
         "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def family(name):
    """cudnn::bn_fw_tr_1C11_kernel_NCHW<float, ...>(...) -> bn_fw_tr_1C11_kernel_NCHW"""
    n = re.sub(r"\(.*$", "", name)
    depth, out = 0, []
    for ch in n:  # drop template arguments, nested ones too
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    n = "".join(out).strip()
    n = re.sub(r"^void\s+", "", n)
    return n.split("::")[-1] or name


def number(text, unit):
    try:
        return float(text.replace(",", "")) * SCALE.get(unit, 1.0)
    except ValueError:
        return float("nan")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open  # the committed CSVs are gzipped
    with opener(path, "rt", newline="") as f:
        lines = [l for l in f if not l.startswith("==")]
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        sys.exit(f"ncu_summary: {path}: no kernel rows (is this an `ncu --csv --page raw` log?)")
    head, units = rows[0], rows[1]
    col = {k: head.index(m) for k, m in METRICS.items() if m in head}
    if "Kernel Name" not in head or "time" not in col:
        sys.exit(f"ncu_summary: {path}: no 'Kernel Name' or {METRICS['time']} column")
    name_col = head.index("Kernel Name")
    kernels = []
    for r in rows[2:]:
        if len(r) < len(head):
            continue
        k = {"name": r[name_col]}
        for key, c in col.items():
            k[key] = number(r[c], units[c]) if key not in ("grid", "block", "regs") else r[c]
        kernels.append(k)
    return kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--order", action="store_true", help="every kernel in launch order instead of families")
    a = ap.parse_args()
    ks = read(a.csv)
    total = sum(k["time"] for k in ks)
    if a.order:
        print(f"{'#':>4} {'us':>9} {'grid':>10} {'block':>8} {'regs':>4} {'DRAM MB':>9}  kernel")
        for i, k in enumerate(ks):
            mb = (k.get("dram_rd", 0) + k.get("dram_wr", 0)) / 1e6
            print(f"{i:4d} {k['time'] / 1e3:9.1f} {k.get('grid', ''):>10} {k.get('block', ''):>8} "
                  f"{k.get('regs', ''):>4} {mb:9.1f}  {family(k['name'])}")
    else:
        g = collections.defaultdict(list)
        for k in ks:
            g[family(k["name"])].append(k)
        print(f"{'kernels':>7} {'total us':>10} {'share':>6} {'mean us':>9} {'DRAM GB/s':>10}  family")
        for fam, v in sorted(g.items(), key=lambda kv: -sum(k["time"] for k in kv[1])):
            t = sum(k["time"] for k in v)
            dram = sum(k.get("dram_rd", 0) + k.get("dram_wr", 0) for k in v)
            print(f"{len(v):7d} {t / 1e3:10.1f} {100 * t / total:5.1f}% {t / 1e3 / len(v):9.1f} "
                  f"{dram / t if t else 0:10.1f}  {fam}")
    print(f"{len(ks)} kernels, {total / 1e6:.3f} ms of GPU time")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    main()
