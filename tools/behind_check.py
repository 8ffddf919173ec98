#!/usr/bin/env python3
"""behind_check: a run's layer passes timed inside its training iterations
against the same configuration's passes timed with `cnnperf-measure --layers
behind` (each iteration enqueued while a kernel spins, so no pass waits for
the host's next call), both beside the model: how much of a pass's measured
time was the host's (docs/ACCURACY.md, session 63).

Pairs are files of one folder named X.json and X-behind.json (or
X-graphapi.json and X-graphapi-behind.json), as run_device.sh's `behind` and
`graphapi-behind` configurations write them (MODE=behind64). For each pair,
the host's share of the iteration (host_enqueue_ms / iteration_ms), then per
pass kind the mean |error| of the model against each timing, the median
ratio in-iteration / behind, the median signed error against the behind
timing (negative: the model is short) and the behind run's overruns, over
conv and fc passes of 5 us or more (behind).

  python3 tools/behind_check.py validation/behind64-h200

Needs the cnnperf program (--cnnperf, default build/cnnperf), which predicts
each pair through `cnnperf validate`; reads, writes nothing.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

from measured_files import load

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSES = ("forward", "backward_data", "backward_weight")


def validated(cnnperf, path):
    """cnnperf validate's run record of one measurement file."""
    out = subprocess.run([cnnperf, "validate", "--measured", path, "--format", "json"], capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit(f"behind_check: {path}: cnnperf validate failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["runs"][0]


def overruns(path):
    """provenance.layers_behind_overruns of a behind file: iterations whose host enqueueing outlasted the spin (a
    network of more launches than CUDA's queue holds blocks the host behind it), so their passes may hold waits."""
    return load(path).get("provenance", {}).get("layers_behind_overruns", "?")


def pairs(folder):
    # measure-* only: the call's predict-* files carry the same names and no measurement
    for behind in sorted(glob.glob(os.path.join(folder, "measure-*-behind.json*"))):
        plain = behind.replace("-behind.json", ".json")
        if os.path.exists(plain):
            yield plain, behind


def mape(v):
    return sum(abs(x) for x in v) / len(v) if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    a = ap.parse_args()
    found = False
    print(f"{'run':44} {'host':>5} {'pass':16} {'n':>4} {'in-iter':>8} {'behind':>8} {'in/behind':>9} {'signed':>8} {'overruns':>8}")
    for plain, behind in pairs(a.folder):
        found = True
        p, b = validated(a.cnnperf, plain), validated(a.cnnperf, behind)
        host = (p.get("host_enqueue_ms") or 0) / p["iteration"]["measured_ms"]
        layers = {l["name"]: l for l in p["layers"]}
        for kind in PASSES:
            err_p, err_b, ratio = [], [], []
            for lb in b["layers"]:
                lp = layers.get(lb["name"])
                if lp is None or lb["kind"] not in ("conv", "fc") or lb[kind]["measured_ms"] < 0.005:
                    continue
                err_p.append(lp[kind]["error_pct"])
                err_b.append(lb[kind]["error_pct"])
                ratio.append(lp[kind]["measured_ms"] / lb[kind]["measured_ms"])
            if ratio:
                print(f"{os.path.basename(plain)[:44]:44} {host:5.2f} {kind:16} {len(ratio):4d} "
                      f"{mape(err_p):7.1f}% {mape(err_b):7.1f}% {statistics.median(ratio):9.3f} "
                      f"{statistics.median(err_b):+7.1f}% {overruns(behind):>8}")
    if not found:
        sys.exit(f"behind_check: no X.json and X-behind.json pair in {a.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
