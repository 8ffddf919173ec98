#!/usr/bin/env python3
"""calibration_metrics: the two numbers a model change is judged by on the
calibration set before the evaluation set is read (docs/ACCURACY.md, the
rules of sessions 27-35): over the runs `cnnperf validate` marks "calibration",

  passes    conv and fc layer passes measured at 5 us or more, mean |error|
            (the layer-pass target's filter, on the calibration set)
  one GPU   iterations of one GPU, mean |error|, with the one-GPU target's
            filter (fp32/fp16, batch 32-256) and without it
  several   iterations of two GPUs or more, mean |error|

One-GPU runs whose note says "not scored" are left out of the iteration
figures, as validate leaves them out of its targets (on several GPUs the note
is about the last layer pass, and the iteration counts). --only and --exclude keep or drop
the runs whose file path contains a string (repeatable): a rule judged on
calibration runs no fit reads, as session 42's rule 12c on
validation/h100/calfresh42/, reads `--only calfresh42`, and the runs the
fits read `--exclude calfresh42`.

  mapfile -t m < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)  # quoted: cnnperf expands '**'
  build/cnnperf validate --measured "${m[@]}" --format json -o v.json
  python3 tools/calibration_metrics.py v.json              # the calibration set only
  python3 tools/calibration_metrics.py v.json --evaluation  # and the evaluation set (after the choice)
  python3 tools/calibration_metrics.py v.json --only calfresh42
  python3 tools/calibration_metrics.py v.json --pytorch-paced   # and rule 35's figures, below
  python3 tools/calibration_metrics.py v.json --pytorch-host    # and rules 52/52b's figures, below

--pytorch-paced adds the figures an eager-mode kernel rule is judged by (rule 35, docs/ACCURACY.md, session 57):
the one-GPU PyTorch runs the GPU paced, those whose measured host issue time (validate's host_enqueue_ms) is
under 0.6 of their measured iteration (measured values only, so the set does not move with the model), their
MAPE and bias, and the same by device x precision x layout.

--pytorch-host adds the figures an eager-mode host rule is judged by (rules 52 and 52b, docs/ACCURACY.md,
sessions 67-68): the one-GPU PyTorch runs validate flags host-bound (by device, with bias), every PyTorch run (one
GPU and DDP, as validate lists them), and the DDP runs alone.
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


def kept(run, only, exclude):
    f = run.get("file", "")
    return (not only or any(s in f for s in only)) and not any(s in f for s in exclude)


def in_one_gpu_target(r):
    """Whether a run counts toward the one-GPU iteration target as validate counts it: one GPU, fp32 or fp16,
    batch 32-256, and no "not scored" in its note."""
    return (r.get("gpus", 1) == 1 and "not scored" not in (r.get("note") or "") and
            r.get("precision") in ("fp32", "fp16") and 32 <= r.get("batch", 0) <= 256)


def metrics(runs, which, only=(), exclude=()):
    passes, one, one_target, several = [], [], [], []
    for r in runs:
        if r.get("set") != which or not kept(r, only, exclude):
            continue
        it = r.get("iteration")
        if it and it.get("measured_ms", 0) > 0:
            e = abs(it["error_pct"])
            if r.get("gpus", 1) > 1:  # as validate's target: a "not scored" here is about a layer pass
                several.append(e)
            elif "not scored" not in (r.get("note") or ""):
                one.append(e)
                if in_one_gpu_target(r):
                    one_target.append(e)
        passes += [abs(x["error_pct"]) for _, _, x in layer_passes(r)]
    return passes, one, one_target, several


PACED_HOST_SHARE = 0.6  # rule 35's filter


def pytorch_paced(runs, which, only=(), exclude=()):
    """The one-GPU PyTorch runs of the set whose measured host issue time is under
    PACED_HOST_SHARE of their measured iteration (runs whose note says "not scored" left out)."""
    out = []
    for r in runs:
        it = r.get("iteration") or {}
        host, meas = r.get("host_enqueue_ms"), it.get("measured_ms", 0)
        if (r.get("set") == which and kept(r, only, exclude) and r.get("source") == "pytorch" and
                r.get("gpus", 1) == 1 and "not scored" not in (r.get("note") or "") and host is not None and
                meas > 0 and host / meas < PACED_HOST_SHARE):
            out.append(r)
    return out


def print_paced(runs, which):
    err = [r["iteration"]["error_pct"] for r in runs]
    print(f"{which:11}  PyTorch one GPU, host under {PACED_HOST_SHARE} of the iteration: "
          f"{mean([abs(e) for e in err]):.3f}% over {len(err)} (bias {mean(err):+.2f}%)")
    groups = {}
    for r in runs:
        layout = "channels-last" if "channels-last" in r.get("label", "") else "nchw"
        groups.setdefault((r.get("device"), r.get("precision"), layout), []).append(r["iteration"]["error_pct"])
    for (dev, prec, layout), e in sorted(groups.items()):
        print(f"{'':11}    {dev} {prec} {layout}: {mean([abs(x) for x in e]):.3f}% over {len(e)} (bias {mean(e):+.2f}%)")


def pytorch_host(runs, which, only=(), exclude=()):
    """The set's PyTorch runs with a measured iteration: (the one-GPU ones validate flags host-bound, all, DDP)."""
    torch = [r for r in runs if r.get("set") == which and kept(r, only, exclude) and r.get("source") == "pytorch" and
             (r.get("iteration") or {}).get("measured_ms", 0) > 0]
    return ([r for r in torch if r.get("gpus", 1) == 1 and r.get("host_bound")], torch,
            [r for r in torch if r.get("gpus", 1) > 1])


def print_host(groups, which):
    def line(rs):
        err = [r["iteration"]["error_pct"] for r in rs]
        return f"{mean([abs(e) for e in err]):.3f}% over {len(err)} (bias {mean(err):+.2f}%)"
    bound, every, ddp = groups
    print(f"{which:11}  PyTorch one GPU, host-bound: {line(bound)}")
    for dev in sorted({r.get("device") for r in bound}):
        print(f"{'':11}    {dev}: {line([r for r in bound if r.get('device') == dev])}")
    print(f"{'':11}  PyTorch, one GPU and DDP: {line(every)}")
    print(f"{'':11}  PyTorch DDP: {line(ddp)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validate_json", help="cnnperf validate --format json output")
    ap.add_argument("--evaluation", action="store_true", help="also print the evaluation set's figures")
    ap.add_argument("--only", action="append", default=[], metavar="S", help="only runs whose file contains S")
    ap.add_argument("--exclude", action="append", default=[], metavar="S", help="leave out runs whose file contains S")
    ap.add_argument("--pytorch-paced", action="store_true",
                    help="also the one-GPU PyTorch runs the GPU paced (host under 0.6 of the iteration), by group")
    ap.add_argument("--pytorch-host", action="store_true",
                    help="also the host-bound one-GPU PyTorch runs (by device), all PyTorch runs, and DDP's")
    args = ap.parse_args()
    with open(args.validate_json) as fh:
        runs = json.load(fh).get("runs", [])
    for which in ("calibration", "evaluation") if args.evaluation else ("calibration",):
        passes, one, one_target, several = metrics(runs, which, args.only, args.exclude)
        print(f"{which:11}  passes {mean(passes):.3f}% over {len(passes)}  one GPU {mean(one):.3f}% over {len(one)}"
              f"  (target's filter {mean(one_target):.3f}% over {len(one_target)})"
              f"  several GPUs {mean(several):.3f}% over {len(several)}")
        if args.pytorch_paced:
            print_paced(pytorch_paced(runs, which, args.only, args.exclude), which)
        if args.pytorch_host:
            print_host(pytorch_host(runs, which, args.only, args.exclude), which)
    return 0


if __name__ == "__main__":
    sys.exit(main())
