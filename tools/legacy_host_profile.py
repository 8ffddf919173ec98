#!/usr/bin/env python3
"""legacy_host_profile: a device profile's "legacy_host" section, what the
host spends issuing one training iteration through cuDNN's legacy API, per
convolution call: cnnperf-measure's host_enqueue_ms (the host's issue of a
whole iteration, every library call and launch) over the iteration's
convolution calls, for each calibration-set run (validation/calibration-
set.json) on that GPU's host launched from a stream; the 10th, 50th and
90th percentile over those runs. Other runs are never read.

  python3 tools/legacy_host_profile.py --gpu 'NVIDIA H100' 'validation/h100/**/*.json' --into devices/h100.json
  python3 tools/legacy_host_profile.py --gpu 'NVIDIA H200' 'validation/h200/**/*.json' --into devices/h200.json

Without --into it prints the section.
"""
import argparse
import json
import os
import sys

from measured_files import expand, load
from profile_section import replace_section

PASSES = ("forward", "backward_data", "backward_weight")  # the measured layer's <pass>_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patterns", nargs="+", help="cnnperf-measure result files or glob patterns ('**' allowed)")
    ap.add_argument("--gpu", required=True, help="keep runs whose provenance.gpu_name starts with this")
    ap.add_argument("--calibration-set", default=os.path.join(os.path.dirname(__file__), "..", "validation",
                                                              "calibration-set.json"))
    ap.add_argument("--into", metavar="PROFILE", help="write the section into this device profile")
    args = ap.parse_args()
    with open(args.calibration_set) as fh:
        calib = set(json.load(fh)["networks"])
    per_call, runs = [], []
    for f in expand(args.patterns, recursive=True):
        try:
            d = load(f)
        except ValueError:
            continue
        if not isinstance(d, dict) or d.get("schema") != "cnnperf-result/1" or d.get("gpus") != 1:
            continue
        prov = d.get("provenance", {})
        # older runs name no convolution API: the legacy one was the only one then
        if (d.get("source") != "measurement" or d.get("network") not in calib or
                prov.get("conv_api", "legacy") != "legacy" or prov.get("launch", "stream") != "stream" or
                not str(prov.get("gpu_name", "")).startswith(args.gpu) or not d.get("host_enqueue_ms")):
            continue
        calls = sum(1 for layer in d.get("layers", []) if layer.get("kind") == "conv"
                    for p in PASSES if layer.get(p + "_ms", 0) > 0)
        if calls:
            per_call.append(1e3 * d["host_enqueue_ms"] / calls)
            runs.append(f)
    if not per_call:
        print(f"legacy_host_profile: no calibration-set legacy-API run on '{args.gpu}'", file=sys.stderr)
        return 2
    per_call.sort()
    n = len(per_call)
    q = {"p10": per_call[n // 10], "median": per_call[n // 2], "p90": per_call[9 * n // 10]}
    folders = sorted({os.path.dirname(f) for f in runs})
    out = {"issue_per_conv_call_us": {k: round(v, 1) for k, v in q.items()}, "runs": n,
           "source": f"measured: host_enqueue_ms / convolution calls of {n} calibration-set legacy-API runs on "
                     f"{args.gpu}'s host ({', '.join(folders)}; tools/legacy_host_profile.py)"}
    if args.into:
        return replace_section(args.into, "legacy_host", out)
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
