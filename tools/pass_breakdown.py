#!/usr/bin/env python3
"""pass_breakdown: where the layer-pass error of one set of runs comes from,
grouped by any of the layer's calibration class, precision, pass, output
plane, window (`cnnperf layers`: "3x3/2"), stride, shape (input -> output and
window), harness or the engine (graph API) or algorithm (legacy API) cuDNN chose, from the JSON of
`cnnperf validate`; --pass keeps some passes only.

Each group prints its passes, mean |error|, mean signed error (bias) and its
share of the set's summed |error|: a bias is something a model change can
remove, a spread without bias is the choice of kernels it cannot see. By
default the calibration set (the runs a model change is judged on, see
tools/calibration_metrics.py), GPU-paced runs only (host-bound runs' passes
hold the host's gaps), conv and fc passes measured at 5 us or more (the
layer-pass target's filter).

  mapfile -t m < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)  # quoted: cnnperf expands '**'
  build/cnnperf validate --measured "${m[@]}" --format json -o v.json
  python3 tools/pass_breakdown.py v.json                              # class, precision, pass
  python3 tools/pass_breakdown.py v.json --by stride pass --harness graph   # session 39's strided gradients
  python3 tools/pass_breakdown.py v.json --by class plane pass --kind conv --class conv_1x1 --precision fp16
  python3 tools/pass_breakdown.py v.json --by pass engine --harness graph --class conv_1x1
  python3 tools/pass_breakdown.py v.json --by shape engine --pass backward_weight --class conv_3x3_wide \
      --precision fp32 --harness graph      # one layer shape's bias in every run (session 51's rule 25)

--by engine reads each run's measurement file (provenance.conv_algorithms,
graph-API runs only). Needs the cnnperf program (--cnnperf, default
build/cnnperf) for the layers' classes and shapes.
"""
import argparse
import collections
import json
import os
import re
import sys

from measured_files import load
from calibration_metrics import layer_passes  # the layer-pass target's filter, one copy
from torch_bench import network_layers  # `cnnperf layers --format json`, one copy (torch is imported only to run)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE_KEYS = {"forward": "fwd", "backward_data": "bwd_data", "backward_weight": "bwd_filter"}


def harness(run):
    label, note = run.get("label", ""), run.get("note") or ""
    if "pytorch" in label:
        return "torch-cl" if "channels-last" in label else "torch"
    return "graph" if "graph API" in note else "legacy"


class Layers:
    """The layers of each network as `cnnperf layers` gives them, by name."""

    def __init__(self, cnnperf):
        self.cnnperf, self.cache = cnnperf, {}

    def __call__(self, net):
        if net not in self.cache:
            self.cache[net] = {l["name"]: l for l in network_layers(net, self.cnnperf)["layers"]}
        return self.cache[net]


def engines(path):
    """layer -> {pass: what cuDNN ran} of a cnnperf-measure run: the graph API's engine id ("18"), the legacy API's
    algorithm ("algo1", "algo1 tensor_op" where cudnnFind chose tensor-op math); {} for PyTorch runs."""
    algos = load(os.path.join(REPO, path)).get("provenance", {}).get("conv_algorithms") or {}
    pattern = r"(fwd|bwd_data|bwd_filter) (engine |algo )(\d+)(?: \((tensor_op)?)?"
    return {name: {p: (i if kind == "engine " else f"algo{i}" + (" tensor_op" if tc else ""))
                   for p, kind, i, tc in re.findall(pattern, text)} for name, text in algos.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validate_json", help="cnnperf validate --format json output")
    ap.add_argument("--by", nargs="+", default=["class", "precision", "pass"],
                    choices=["class", "precision", "pass", "plane", "harness", "engine", "network", "kind", "window",
                             "stride", "shape"])
    ap.add_argument("--set", default="calibration", choices=["calibration", "evaluation"])
    ap.add_argument("--kind", nargs="+", default=["conv", "fc"], help="layer kinds (default conv fc)")
    ap.add_argument("--class", dest="classes", nargs="+", help="only these calibration classes")
    ap.add_argument("--precision", nargs="+", help="only these precisions (bf16 counts as fp16)")
    ap.add_argument("--harness", nargs="+", choices=["graph", "legacy", "torch", "torch-cl"])
    ap.add_argument("--with-host-bound", action="store_true", help="also the runs the host paced")
    ap.add_argument("--pass", dest="passes", nargs="+", choices=list(ENGINE_KEYS), help="only these passes")
    ap.add_argument("--min-us", type=float, default=5.0, help="passes measured at least this long (default 5)")
    ap.add_argument("--top", type=int, default=30, help="groups printed, largest share first (default 30)")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    args = ap.parse_args()
    with open(args.validate_json) as fh:
        runs = json.load(fh).get("runs", [])
    layers_of = Layers(args.cnnperf)
    groups, total = collections.defaultdict(list), 0.0
    for run in runs:
        if run.get("set") != args.set or not run.get("layers") or (run.get("host_bound") and not args.with_host_bound):
            continue
        prec = "fp16" if run.get("precision") == "bf16" else run.get("precision")
        h = harness(run)
        if (args.precision and prec not in args.precision) or (args.harness and h not in args.harness):
            continue
        shapes = layers_of(run["network"])
        chosen = engines(run["file"]) if "engine" in args.by and h in ("graph", "legacy") else {}
        for layer, p, x in layer_passes(run, args.kind, args.min_us):
            if args.passes and p not in args.passes:
                continue
            info = shapes.get(layer["name"])
            if not info:
                continue
            cls = info.get("calibration_class", "?")
            if args.classes and cls not in args.classes:
                continue
            plane = info["output"].split("x")[1] if "x" in info.get("output", "") else "-"
            window = info.get("window", "-")  # "3x3/2": the stride after the slash, 1 without one
            stride = window.split(" ")[0].split("/")[1] if "/" in window else ("1" if window != "-" else "-")
            fields = {"class": cls, "precision": prec, "pass": p, "plane": plane, "harness": h,
                      "engine": chosen.get(layer["name"], {}).get(ENGINE_KEYS[p], "-"),
                      "network": run["network"], "kind": layer["kind"], "window": window, "stride": stride,
                      "shape": f"{info.get('input', '?')}->{info.get('output', '?')} {window}"}
            e = x["error_pct"]
            groups[tuple(fields[b] for b in args.by)].append(e)
            total += abs(e)
    if not groups:
        print("pass_breakdown: no passes match", file=sys.stderr)
        return 1
    n_all = sum(len(v) for v in groups.values())
    print(f"{args.set} set: {n_all} passes, mean |error| {total / n_all:.2f}%  (by {', '.join(args.by)})")
    rows = sorted(groups.items(), key=lambda kv: -sum(abs(e) for e in kv[1]))
    for key, errs in rows[:args.top]:
        s = sum(abs(e) for e in errs)
        print(f"  {' '.join(str(k) for k in key):48} {len(errs):7} passes  mean |error| {s / len(errs):6.1f}%  "
              f"bias {sum(errs) / len(errs):+6.1f}%  share {100 * s / total:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
