#!/usr/bin/env python3
"""keep_results: one result folder of a device call (measure/run_device.sh's results/NAME/) into validation/.

  python3 tools/keep_results.py RESULTS/NAME validation/h200/NAME --log RUN.LOG --log-name run-DATE-NAME.log.xz [--drawn]

What is kept, and how, so that every call's folder reads the same:
- every JSON, in subfolders too (ddp/, after/, repeat/), compacted by tools/compact_json.py; a cnnperf-measure
  or PyTorch result (schema cnnperf-result/1) is kept gzipped (validate reads *.json.gz; before session 74 only
  measure-*.json over 16 KB);
- predicted-in-call.json without its per-layer records (layers, worst_layers, host_range: validate recomputes
  them), xz-compressed: the call's own predictions, the record that each run was predicted before it was seen;
- the call's run log, xz-compressed, as --log-name in DEST;
- left out: predict-*.json and summary.txt (predicted-in-call.json holds the same predictions) and the
  per-job *.log files (the run log has them).
--drawn appends DEST (with its subfolders) to validation/calibration-set.json's drawn_folders where it holds a run
(only for a list drawn and committed before its call). Refuses to write over an existing DEST. Prints the working
tree's size as a device call counts it, and warns within 4 MiB of the 64 a call may carry."""
import argparse
import gzip
import json
import lzma
import os
import shutil
import subprocess
import sys

from compact_json import compacted

SLIMMED = ("layers", "worst_layers", "host_range")


def xz(data, path):
    with lzma.open(path, "wb", preset=9) as out:
        out.write(data)


def keep_file(src, dest):
    name = os.path.basename(src)
    if not name.endswith(".json"):
        shutil.copyfile(src, dest)
        return
    with open(src) as f:
        text = f.read()
    if name == "predicted-in-call.json":
        d = json.loads(text)
        for r in d.get("runs", []):
            for k in SLIMMED:
                r.pop(k, None)
        xz(compacted(json.dumps(d)).encode(), dest + ".xz")
        return
    text = compacted(text).encode()
    doc = json.loads(text)
    if isinstance(doc, dict) and doc.get("schema") == "cnnperf-result/1":
        with gzip.GzipFile(dest + ".gz", "wb", 9, mtime=0) as o:
            o.write(text)
    else:
        with open(dest, "wb") as o:
            o.write(text)


def tree_mib():
    """The working tree a device call carries, counted as the machine counts it (validation/README.md): an archive
    of the tracked and untracked-not-ignored files, each 512 bytes of header and its contents rounded up to 512."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], check=True,
                           capture_output=True).stdout.split(b"\0")
    total = 1024
    for n in names:
        if n and os.path.isfile(n):
            total += 512 + -(-os.path.getsize(n) // 512) * 512
    return total / (1 << 20)


def holds_run(folder):
    return any(f.startswith(("measure-", "torch-")) for f in os.listdir(folder))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="the call's results/NAME folder")
    ap.add_argument("dest", help="the folder under validation/ to create")
    ap.add_argument("--log", required=True, help="the call's run log (run_device.sh's run.log)")
    ap.add_argument("--log-name", required=True, help="its name in dest, e.g. run-2026-11-29-holdout107.log.xz")
    ap.add_argument("--drawn", action="store_true", help="list dest in calibration-set.json's drawn_folders")
    args = ap.parse_args()
    if not os.path.isdir(args.src):
        print(f"keep_results: {args.src}: not a folder", file=sys.stderr)
        return 2
    if os.path.exists(args.dest):
        print(f"keep_results: {args.dest}: exists; not written over", file=sys.stderr)
        return 2
    if not args.log_name.endswith(".log.xz"):
        print(f"keep_results: --log-name {args.log_name}: must end in .log.xz", file=sys.stderr)
        return 2
    try:
        with open(args.log, "rb") as f:
            log = f.read()
    except OSError as e:
        print(f"keep_results: --log {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    kept = []
    for root, dirs, files in os.walk(args.src):
        dirs.sort()
        out = os.path.join(args.dest, os.path.relpath(root, args.src))
        os.makedirs(out, exist_ok=True)
        for name in sorted(files):
            if name.startswith("predict-") or name == "summary.txt" or name.endswith(".log"):
                continue
            keep_file(os.path.join(root, name), os.path.join(out, name))
        if holds_run(root):
            kept.append(os.path.normpath(out))
    xz(log, os.path.join(args.dest, args.log_name))
    print(f"keep_results: {args.dest}: {sum(len(f) for _, _, f in os.walk(args.dest))} files; "
          f"folders with runs: {', '.join(kept) or 'none'}")
    if args.drawn and kept:
        path = "validation/calibration-set.json"
        with open(path) as f:
            text = f.read()
        listed = json.loads(text)["drawn_folders"]
        add = [d for d in [os.path.normpath(args.dest)] if d not in listed]
        end = text.rstrip().rfind("]}")
        if end < 0:
            print(f"keep_results: {path}: does not end in the drawn_folders list", file=sys.stderr)
            return 1
        text = text[:end] + "".join(f', "{k}"' for k in add) + text[end:]
        json.loads(text)
        with open(path, "w") as f:
            f.write(text)
        print(f"keep_results: drawn_folders += {', '.join(add) or 'nothing new'}")
    mib = tree_mib()
    print(f"keep_results: the working tree a device call carries: {mib:.1f} MiB of its 64, as an archive counts it"
          + (" (plus carried paths: .carry is about 0.6)" if mib <= 60 else ""))
    if mib > 60:
        print("keep_results: within 4 MiB of the 64 a device call may carry (plus .carry): compress or move "
              "something before the next call", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
