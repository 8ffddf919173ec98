#!/usr/bin/env python3
"""ps_server_pass: the parameter server's own pass, measured in a job against
the model's. For each cnnperf-measure PS job (`comm: "ps"`), the busiest
server's sum and SGD per iteration (`ranks[].aggregate_ms`) beside the
model's, summed over the job's buckets (`cnnperf predict --format json`,
`bucket_schedule[].aggregate_ms`, of it `round_ms`, rule 13), predicted as
`cnnperf validate` predicts the job: the folder's PS exchange
(`psexchange.json`, `psexchange-k2.json` for two servers, else
`host-mpi-raw.json`) and servers' pass (`psbench.json`; a folder without
one, such as psteam52's with its psbench-t<T>.json, is predicted without
it), the job's convolution API and overlap. Prints one line a job and the medians of
measured / model by workers and precision.

  python3 tools/ps_server_pass.py 'validation/**/measure-multi-*ps*.json*' [--set calibration] [--only TEXT]

By default the calibration set's jobs only (validation/calibration-set.json),
the runs a model change may be fitted or judged on; --set evaluation reads
the others, for a report after a rule is decided, never to choose one.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

from measured_files import expand, load

HERE = os.path.dirname(os.path.abspath(__file__))


def folder_files(folder, servers):
    """The folder's PS exchange and servers' pass files, as validate takes them."""
    args = []
    exchange = os.path.join(folder, "psexchange-k2.json" if servers == 2 else "psexchange.json")
    host = exchange if os.path.exists(exchange) else os.path.join(folder, "host-mpi-raw.json")
    if os.path.exists(host):
        args += ["--host-mpi", host]
    bench = os.path.join(folder, "psbench.json")
    if os.path.exists(bench):
        args += ["--ps-bench", bench]
    return args


def model_pass(cnnperf, d, folder):
    """The model's servers' pass per iteration and its round part, in ms."""
    prov = d.get("provenance", {})
    overlap = d.get("overlap", True)
    overlap = overlap if isinstance(overlap, str) else ("on" if overlap else "off")
    cmd = [cnnperf, "predict", "--network", d["network"], "--batch", str(d["batch"]), "--precision",
           d["precision"], "--device", d["device"], "--gpus", str(d["gpus"]), "--comm", "ps", "--ps-servers",
           str(d.get("ps_servers", 1)), "--conv-api", prov.get("conv_api", "legacy"), "--overlap", overlap,
           "--format", "json"] + folder_files(folder, d.get("ps_servers", 1))
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or "cnnperf predict failed")
    buckets = json.loads(out.stdout)["bucket_schedule"]
    return sum(b["aggregate_ms"] for b in buckets), sum(b["round_ms"] for b in buckets), len(buckets)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patterns", nargs="+", help="cnnperf-measure result files or glob patterns ('**' allowed)")
    ap.add_argument("--set", choices=("calibration", "evaluation"), default="calibration")
    ap.add_argument("--only", action="append", default=[], metavar="TEXT", help="keep paths containing TEXT")
    ap.add_argument("--cnnperf", default=os.path.join(HERE, "..", "build", "cnnperf"))
    args = ap.parse_args()
    with open(os.path.join(HERE, "..", "validation", "calibration-set.json")) as fh:
        calib = set(json.load(fh)["networks"])
    files = expand(args.patterns, recursive=True)
    ratios = defaultdict(list)
    print(f"{'job':62} {'W':>2} {'K':>2} {'buckets':>7} {'model':>8} {'round':>7} {'job':>8} {'job/model':>9}")
    for f in files:
        if args.only and not any(t in f for t in args.only):
            continue
        try:
            d = load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(d, dict) or d.get("schema") != "cnnperf-result/1" or d.get("comm") != "ps":
            continue
        if (d.get("network") in calib) != (args.set == "calibration"):
            continue
        servers = [r.get("aggregate_ms", 0) for r in d.get("ranks", []) if r.get("role") == "server"]
        if not servers:
            continue
        try:
            model, rounds, n = model_pass(args.cnnperf, d, os.path.dirname(f))
        except (RuntimeError, KeyError, ValueError) as e:
            print(f"ps_server_pass: {f}: {e}", file=sys.stderr)
            continue
        job = max(servers)
        ratio = job / model if model > 0 else float("nan")
        ratios[(d["gpus"], d["precision"])].append(ratio)
        print(f"{f[-62:]:62} {d['gpus']:>2} {d.get('ps_servers', 1):>2} {n:>7} {model:8.2f} {rounds:7.2f} "
              f"{job:8.2f} {ratio:9.2f}")
    for (w, prec), r in sorted(ratios.items()):
        print(f"{w} workers, {prec}: {len(r)} jobs, job / model median {statistics.median(r):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
