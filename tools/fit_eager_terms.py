#!/usr/bin/env python3
"""fit_eager_terms: eager mode's factors for the kernels PyTorch runs itself
(rule 33, docs/ACCURACY.md session 55), fitted on the calibration set's
PyTorch kernel traces (tools/kernel_trace.py --op network).

The harness's calibration terms were fitted on cnnperf-measure's cuDNN calls.
PyTorch runs ReLU/ReLU6 (clamp_min_, threshold_backward, hardtanh) and max
and average pooling (max_pool2d_with_indices, avg_pool2d, adaptive_avg_pool2d
and their backwards) as its own kernels, which run at other speeds. For each
traced step this sums, per class and pass, the traced kernels' time and the
analytic model's time for the same layers' passes (cnnperf predict
--calibration none: the queue model's kernels, no fitted term), and writes
their ratio, per memory layout, precision group, class and pass, summed over
the traces, as the calibration file's "eager_terms":

  python3 tools/fit_eager_terms.py --device h200 --calibration calibration/h200-graph.json \\
      validation/h200/torch/torchcal55/traces/*.json.xz

Rule 36 (session 57) keeps ReLU's NCHW factors only (--classes elementwise --layouts nchw): NCHW pooling is
tools/fit_eager_pool.py's, and channels-last runs keep the harness's terms.

Only traces of calibration-set networks (validation/calibration-set.json) are
read; a trace of any other network is an error, since fitting on it would
break docs/CALIBRATION.md's rule. --dry-run prints the table and writes
nothing.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_compare  # noqa: E402  (kernel classes and trace reading, shared)
from profile_section import write_json  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# model layer kind -> calibration class of eager_terms
KIND_CLASS = {"relu": "elementwise", "relu6": "elementwise", "maxpool": "maxpool", "avgpool": "pool",
              "adaptive_avgpool": "pool", "global_avgpool": "pool"}
GROUP = {"fp32": "fp32", "tf32": "tf32", "fp16": "half", "bf16": "half"}


def traced_class(kernel):
    """(class, pass) of a traced kernel PyTorch runs itself, or None."""
    cls, p = trace_compare.kernel_class(kernel)
    if cls == "relu":
        return "elementwise", "backward_data" if p == "bwd" else "forward"
    if cls == "pool":
        name = kernel["name"].lower()
        return ("maxpool" if "max_pool" in name else "pool"), "backward_data" if p == "bwd" else "forward"
    return None


def model_times(cnnperf, device, rec):
    layout = "channels_last" if (rec.get("memory_format") or "nchw") == "channels_last" else "nchw"
    pred, _ = trace_compare.predict(cnnperf, device, rec, calibration="none")
    t = collections.Counter()
    for layer in pred["layers"]:
        c = KIND_CLASS.get(layer["kind"])
        if c:
            t[(c, "forward")] += layer["forward_ms"] * 1e3
            t[(c, "backward_data")] += (layer["backward_data_ms"] + layer["backward_weight_ms"]) * 1e3
    return layout, t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+", help="cnnperf-kernel-trace/1 files (.json or .json.xz)")
    ap.add_argument("--device", required=True)
    ap.add_argument("--calibration", required=True, help="the device's graph calibration file to add them to")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--classes", default="elementwise,maxpool,pool",
                    help="the classes to fit, comma-separated (rule 36: elementwise)")
    ap.add_argument("--layouts", default="nchw,channels_last",
                    help="the layouts to fit, comma-separated (rule 36: nchw)")
    a = ap.parse_args()
    classes, layouts = set(a.classes.split(",")), set(a.layouts.split(","))
    calib_nets = set(json.load(open(os.path.join(REPO, "validation", "calibration-set.json")))["networks"])
    sums = collections.defaultdict(lambda: [0.0, 0.0, 0])  # (layout, group, class, pass) -> traced, model, steps
    used = []
    for path in a.traces:
        d = trace_compare.open_json(path)
        if d.get("schema") not in (None, "cnnperf-kernel-trace/1"):
            sys.exit(f"fit_eager_terms: {path}: schema {d.get('schema')!r}, not cnnperf-kernel-trace/1")
        for rec in d["records"]:
            if rec.get("op") != "network":
                continue
            if rec["network"] not in calib_nets:
                sys.exit(f"fit_eager_terms: {path}: {rec['network']} is not a calibration-set network")
            traced = collections.Counter()
            for k in rec["kernels"]:
                cp = traced_class(k)
                if cp:
                    traced[cp] += k["median_us"]
            layout, model = model_times(a.cnnperf, a.device, rec)
            if layout not in layouts:
                continue
            for key in set(traced) | set(model):
                if key[0] in classes and traced[key] >= 1 and model[key] >= 1:  # both sides ran it
                    s = sums[(layout, GROUP[rec["precision"]]) + key]
                    s[0] += traced[key]
                    s[1] += model[key]
                    s[2] += 1
            used.append(os.path.relpath(os.path.abspath(path), REPO))
    terms = {}
    print(f"{'layout':14s} {'group':5s} {'class':12s} {'pass':14s} {'traced us':>10s} {'model us':>10s} "
          f"{'scale':>7s} {'steps':>5s}")
    for (layout, group, cls, p), (tr, mo, n) in sorted(sums.items()):
        scale = round(tr / mo, 4)
        print(f"{layout:14s} {group:5s} {cls:12s} {p:14s} {tr:10.1f} {mo:10.1f} {scale:7.3f} {n:5d}")
        terms.setdefault(layout, {}).setdefault(group, {}).setdefault(cls, {})[p] = {"scale": scale, "points": n}
    if a.dry_run:
        return
    cal = json.load(open(a.calibration))
    cal["eager_terms"] = terms
    cal["eager_source"] = (f"fitted by tools/fit_eager_terms.py on {len(set(used))} PyTorch kernel traces of the "
                           f"calibration set: traced time of PyTorch's own kernels ({', '.join(sorted(classes))}; "
                           f"{', '.join(sorted(layouts))}) over the analytic model's, per layout, precision group, "
                           f"class and pass")
    cal["eager_training_set"] = sorted(set(used))
    write_json(a.calibration, cal)
    print(f"fit_eager_terms: wrote eager_terms into {a.calibration}")


if __name__ == "__main__":
    main()
