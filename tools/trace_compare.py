#!/usr/bin/env python3
"""trace_compare: PyTorch's traced kernels against eager mode's layer passes, class by class.

Reads a kernel trace of whole networks (tools/kernel_trace.py --op network: every kernel of one iteration, with
the ATen operator that launched it where the trace has it) and, for each traced network, batch, precision and
memory format, predicts the same step in eager mode (cnnperf predict --mode eager) and prints, per layer class
and pass, the traced kernels' time, the model's time for those passes and their ratio:

  python3 tools/trace_compare.py validation/h100/ncu/kernels-torch-networks-h100.json.xz
  python3 tools/trace_compare.py validation/h100/torch/chlast29/kernels-torch-cl-fp16-h100.json.xz --device h100

Kernels are told apart by operator where the trace names one, else by name (cuDNN's fprop/dgrad/wgrad, PyTorch's
clamp and threshold kernels, ...); what neither tells apart is listed as such (an NCHW trace's FFT and Winograd
kernels: "conv (pass not named)"). Where the model's classes and the trace's differ in what they hold (a VGG
convolution's bias is a separate add_ in PyTorch's channels-last trace, inside the convolution pass in the model)
the table shows it as it is; the optimizer's kernels are listed, not compared (eager mode models the step
apart from the layers). For reading the calibration set's traces; fitting anything on an evaluation network's
trace would break docs/CALIBRATION.md's rule.
"""
import argparse
import collections
import json
import lzma
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# model layer kind -> class of this table
KIND_CLASS = {"conv": "conv", "batchnorm": "batchnorm", "relu": "relu", "relu6": "relu", "maxpool": "pool",
              "avgpool": "pool", "adaptive_avgpool": "pool", "global_avgpool": "pool", "fc": "fc",
              "add": "add", "concat": "concat"}


def kernel_class(k):
    """(class, pass) of one traced kernel."""
    name, op = k["name"], k.get("op") or ""
    low = name.lower()
    if "multi_tensor_apply" in low or op.startswith("aten::_foreach"):
        return "update", "(step: eager's own model)"
    if op == "aten::cudnn_convolution" or op == "aten::convolution_backward" or not op:
        for word, p in (("fprop", "fwd"), ("dgrad", "bwd_data"), ("wgrad", "bwd_weight")):
            if word in low:
                return "conv", p
        if op == "aten::cudnn_convolution":
            return "conv", "fwd"
        if op == "aten::convolution_backward":
            return "conv", "bwd (pass not named)"
    if "batch_norm" in op or "bn_fw" in low or "bn_bw" in low or "batchnorm" in low:
        return "batchnorm", "bwd" if ("backward" in op or "bn_bw" in low or "bwtr" in low) else "fwd"
    if any(w in low or w in op for w in ("clamp", "threshold", "hardtanh", "relu")):
        return "relu", "bwd" if ("threshold" in low or "backward" in low or "backward" in op) else "fwd"
    if "pool" in low or "pool" in op:
        return "pool", "bwd" if "backward" in low or "backward" in op else "fwd"
    if op in ("aten::addmm", "aten::mm") or "nvjet" in low or "splitkreduce" in low or (
            not op and "gemm" in low and "implicit" not in low and "cgemm" not in low):
        return "fc", {"aten::addmm": "fwd", "aten::mm": "bwd"}.get(op, "(pass not named)")
    if op == "aten::cat":
        return "concat", "fwd"
    if "copy" in low or op == "aten::copy_":
        return "copy/cast", "-"
    if op in ("aten::add_", "aten::add") or "functor_add" in low:
        return "add", "all"
    if not op and any(w in low for w in ("xmma", "implicit", "winograd", "fft", "conv", "cudnn", "nchwtonhwc",
                                         "nhwctonchw", "flip", "transpose", "scalepacked")):
        return "conv", "(pass not named)"
    return "other", "all"


def open_json(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def predict(cnnperf, device, rec, calibration=None):
    """Eager mode's prediction of a traced step (its network, batch, precision and memory format) on device, and
    its time line's GPU kernels (name, us); calibration "none" gives the analytic model without fitted terms.
    Shared by tools/fit_eager_terms.py and tools/pool_trace.py."""
    fmt = rec.get("memory_format") or "nchw"
    with tempfile.NamedTemporaryFile(suffix=".json") as out, tempfile.NamedTemporaryFile(suffix=".json") as tl:
        cmd = [cnnperf, "predict", "--network", rec["network"], "--device", device, "--batch", str(rec["batch"]),
               "--precision", rec["precision"], "--mode", "eager", "--memory-format",
               "channels_last" if fmt == "channels_last" else "nchw", "--format", "json", "-o", out.name,
               "--trace", tl.name] + (["--calibration", calibration] if calibration else [])
        subprocess.run(cmd, check=True)
        events = json.load(open(tl.name))
        events = events["traceEvents"] if isinstance(events, dict) else events
        kernels = [(e["name"].split(" ")[0], e["dur"]) for e in events if e.get("ph") == "X" and e.get("cat") == "gpu"]
        return json.load(open(out.name)), kernels


def step_kernels_us(kernels):
    """Eager mode's GPU time for what a kernel trace holds: every kernel of the step but the input batch's copy
    (the traced step trains on a batch already on the GPU) and the optimizer's foreach kernels (listed, not
    compared, on the traced side too)."""
    return sum(us for name, us in kernels if name not in ("input", "labels") and not name.startswith("foreach_"))


def model_table(pred):
    t = collections.Counter()
    for layer in pred["layers"]:
        c = KIND_CLASS.get(layer["kind"], "other")
        if c in ("add", "other"):  # a trace cannot tell an add_'s pass
            t[(c, "all")] += (layer["forward_ms"] + layer["backward_data_ms"] + layer["backward_weight_ms"]) * 1e3
            continue
        t[(c, "fwd")] += layer["forward_ms"] * 1e3
        if c in ("conv", "fc"):
            t[(c, "bwd_data")] += layer["backward_data_ms"] * 1e3
            t[(c, "bwd_weight")] += layer["backward_weight_ms"] * 1e3
        else:
            t[(c, "bwd")] += (layer["backward_data_ms"] + layer["backward_weight_ms"]) * 1e3
    return t  # the optimizer step: eager mode models it apart (foreach kernels, model/eager.c), not per layer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="+", help="cnnperf-kernel-trace/1 files (.json or .json.xz)")
    ap.add_argument("--device", default="h100")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    ap.add_argument("--totals", action="store_true",
                    help="print only each step's traced kernels (the optimizer's left out) against eager mode's "
                         "kernels for them, and their mean absolute error")
    a = ap.parse_args()
    errors = []
    for path in a.trace:
        d = open_json(path)
        if d.get("schema") not in (None, "cnnperf-kernel-trace/1"):
            sys.exit(f"trace_compare: {path}: schema {d.get('schema')!r}, not cnnperf-kernel-trace/1")
        for rec in d["records"]:
            if rec.get("op") == "network":
                errors.append(compare(a, rec))
    if a.totals and errors:
        print(f"mean |eager - traced| / traced: {sum(map(abs, errors)) / len(errors):.2f}% over {len(errors)} steps, "
              f"bias {sum(errors) / len(errors):+.2f}%")


def compare(a, rec):
    """Prints one traced step against eager mode; returns eager's kernel total's error against it, in percent."""
    traced = collections.Counter()
    for k in rec["kernels"]:
        traced[kernel_class(k)] += k["median_us"]
    pred, kernels = predict(a.cnnperf, a.device, rec)
    step_traced = sum(us for (cls, _), us in traced.items() if cls != "update")
    step_model = step_kernels_us(kernels)
    err = 100 * (step_model / step_traced - 1)
    title = f"{rec['network']} b{rec['batch']} {rec['precision']} {rec.get('memory_format') or 'nchw'}"
    if a.totals:
        print(f"{title:40s} traced {step_traced:9.0f} us  eager's kernels {step_model:9.0f} us  {err:+6.1f}%")
        return err
    model = model_table(pred)
    print(f"\n{title}: traced {sum(traced.values()):.0f} us, model's layer passes {sum(model.values()):.0f} us; "
              f"the step but the optimizer: traced {step_traced:.0f} us, eager's kernels {step_model:.0f} us "
          f"({err:+.1f}%)")
    print(f"  {'class':10s} {'pass':26s} {'traced us':>10s} {'model us':>10s} {'model/traced':>12s}")
    for key in sorted(set(traced) | set(model)):
        tr, mo = traced.get(key, 0.0), model.get(key, 0.0)
        if tr < 1 and mo < 1:
            continue
        ratio = f"{mo / tr:12.2f}" if tr >= 1 else f"{'-':>12s}"
        print(f"  {key[0]:10s} {key[1]:26s} {tr:10.1f} {mo:10.1f} {ratio}")
    return err


if __name__ == "__main__":
    main()
