#!/usr/bin/env python3
"""calibration_metrics: the two numbers a model change is judged by on the
calibration set before the evaluation set is read (docs/ACCURACY.md, the
rules of sessions 27-35): over the runs `cnnperf validate` marks "calibration",

  passes    conv and fc layer passes measured at 5 us or more, mean |error|
            (the layer-pass target's filter, on the calibration set)
  one GPU   iterations of one GPU, mean |error|, with the one-GPU target's
            filter (fp32/fp16, batch 32-256) and without it

Runs whose note says "not scored" are left out of the iteration figures, as
validate leaves them out of its targets.

  mapfile -t m < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)  # quoted: cnnperf expands '**'
  build/cnnperf validate --measured "${m[@]}" --format json -o v.json
  python3 tools/calibration_metrics.py v.json              # the calibration set only
  python3 tools/calibration_metrics.py v.json --evaluation  # and the evaluation set (after the choice)
"""
import argparse
import json
import sys


PASSES = ("forward", "backward_data", "backward_weight")


def mean(v):
    return sum(v) / len(v) if v else 0.0


def layer_passes(run, kinds=("conv", "fc"), min_us=5.0):
    """(layer, pass, its measured/predicted record) of each of a run's layer
    passes of those kinds measured at min_us or more: the layer-pass target's
    filter (conv and fc, 5 us) by default."""
    for layer in run.get("layers") or []:
        if layer.get("kind") not in kinds:
            continue
        for p in PASSES:
            x = layer.get(p) or {}
            if x.get("measured_ms", 0) * 1e3 >= min_us:
                yield layer, p, x


def metrics(runs, which):
    passes, one, one_target = [], [], []
    for r in runs:
        if r.get("set") != which:
            continue
        it = r.get("iteration")
        if it and it.get("measured_ms", 0) > 0 and r.get("gpus") == 1 and "not scored" not in (r.get("note") or ""):
            e = abs(it["error_pct"])
            one.append(e)
            if r.get("precision") in ("fp32", "fp16") and 32 <= r.get("batch", 0) <= 256:
                one_target.append(e)
        passes += [abs(x["error_pct"]) for _, _, x in layer_passes(r)]
    return passes, one, one_target


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validate_json", help="cnnperf validate --format json output")
    ap.add_argument("--evaluation", action="store_true", help="also print the evaluation set's figures")
    args = ap.parse_args()
    with open(args.validate_json) as fh:
        runs = json.load(fh).get("runs", [])
    for which in ("calibration", "evaluation") if args.evaluation else ("calibration",):
        passes, one, one_target = metrics(runs, which)
        print(f"{which:11}  passes {mean(passes):.3f}% over {len(passes)}  one GPU {mean(one):.3f}% over {len(one)}"
              f"  (target's filter {mean(one_target):.3f}% over {len(one_target)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
