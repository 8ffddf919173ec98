#!/usr/bin/env python3
"""fit_eager_pool: eager mode's windowed pooling as PyTorch's own kernels (rule 36 for NCHW, docs/ACCURACY.md
session 57; rule 37 for channels-last, session 58), fitted on the calibration set's PyTorch kernel traces
(tools/kernel_trace.py --op network) of one memory layout.

PyTorch pools a tensor with kernels of its own (max_pool2d_with_indices, avg_pool2d and their backwards; NCHW
and NHWC variants),
whose time the traces show to be the same in FP16 and FP32 and a rate per element: the forward per output
element and per tap of its window, the backward per input element and per window that covers it. For each
traced step this matches the pooling kernels to the network's maxpool and avgpool layers (forward in layer
order, backward in reverse; `cnnperf layers` gives each layer's shapes and window) and fits, per kind,

    forward  t = N_out x (a + b x taps)        backward  t = N_in x (c + d x cover)

by least squares on the relative error, in picoseconds, then writes them as the device's graph calibration
file's "eager_pool" under the layout's key, "nchw" or "channels_last" (--layout; model/calibration.h), leaving
the other layout's as it is. Global and adaptive average pooling are not fitted: PyTorch runs them as other
kernels (aten::mean). Only traces of calibration-set networks are read (docs/CALIBRATION.md).

  python3 tools/fit_eager_pool.py --calibration calibration/h200-graph.json \\
      validation/h200/torch/torchcal55/traces/kernels-torch-b128-fp16-h200.json.xz ...
  python3 tools/fit_eager_pool.py --layout channels_last --kinds maxpool --calibration calibration/h200-graph.json \\
      validation/h200/torch/torchcal55/traces/kernels-torch-cl-b128-fp16-h200.json.xz ...
  --dry-run prints the fit and each layer's error and writes nothing.
"""
import argparse
import json
import lzma
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_section import write_json  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = {"maxpool": ("aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward"),
       "avgpool": ("aten::avg_pool2d", "aten::avg_pool2d_backward")}
# traces without operators (Nsight Compute's, validation/h100/ncu/, all NCHW): the kernels' own names
NAMES = {"aten::max_pool2d_with_indices": "max_pool_forward_nchw",
         "aten::max_pool2d_with_indices_backward": "max_pool_backward_nchw",
         "aten::avg_pool2d": "avg_pool2d_out_cuda_frame<",
         "aten::avg_pool2d_backward": "avg_pool2d_backward_out_cuda_frame<"}


def is_op(kernel, op):
    return kernel.get("op") == op if kernel.get("op") else NAMES[op] in kernel["name"]


def read_records(path):
    """The kernel trace's network records (a cnnperf-kernel-trace/1 file, .json or .json.xz)."""
    with (lzma.open if path.endswith(".xz") else open)(path, "rt") as fh:
        return [r for r in json.load(fh)["records"] if r.get("op") == "network"]


def matched_pools(rec, layers):
    """(kind, layer, forward us, backward us) of each windowed pooling layer of `layers` (a network's layer
    records in order, from `cnnperf layers` or `cnnperf predict`) with its traced kernels in `rec`: the forward
    kernels in layer order, the backward ones in reverse. Raises ValueError where the counts differ."""
    for kind, (fop, bop) in OPS.items():
        mine = [l for l in layers if l["kind"] == kind]
        fwd = [k["median_us"] for k in rec["kernels"] if is_op(k, fop)]
        bwd = [k["median_us"] for k in rec["kernels"] if is_op(k, bop)][::-1]
        if not mine:
            continue
        if len(fwd) != len(mine) or len(bwd) != len(mine):
            raise ValueError(f"{rec['network']}: {len(mine)} {kind} layers, {len(fwd)} forward and {len(bwd)} "
                             "backward kernels traced")
        yield from ((kind, l, f, b) for l, f, b in zip(mine, fwd, bwd))


def elems(shape):
    n = 1
    for x in shape.split("x"):
        n *= int(x)
    return n


def covering(n_in, n_out, k, s, p):
    """Windows covering an input element along one side, on average (layers/pool.c's covering)."""
    taps = 0
    for o in range(n_out):
        lo, hi = max(o * s - p, 0), min(o * s - p + k, n_in)
        taps += max(hi - lo, 0)
    return taps / n_in


def fit_line(points):
    """a, b minimising sum(((t - n (a + b x)) / t)^2) over (n, x, t)."""
    # in u = t/n: minimise sum(w (u - a - b x)^2) with w = (n/t)^2 = 1/u^2
    sw = swx = swxx = swu = swxu = 0.0
    for n, x, t in points:
        u = t / n
        w = 1 / (u * u)
        sw, swx, swxx, swu, swxu = sw + w, swx + w * x, swxx + w * x * x, swu + w * u, swxu + w * x * u
    det = sw * swxx - swx * swx
    if abs(det) < 1e-12 * sw * swxx:  # one window shape only: a rate per element, nothing per tap
        return swu / sw, 0.0
    b = (sw * swxu - swx * swu) / det
    return (swu - b * swx) / sw, b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+", help="cnnperf-kernel-trace/1 files (.json or .json.xz)")
    ap.add_argument("--calibration", required=True, help="the device's graph calibration file to write them to")
    ap.add_argument("--layout", choices=("nchw", "channels_last"), default="nchw",
                    help="the memory layout whose traces are read and whose rates are written")
    ap.add_argument("--kinds", default="maxpool,avgpool",
                    help="the pooling kinds to fit, comma-separated; the others keep the harness's terms (rule 37's "
                         "channels-last: maxpool)")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    unknown = set(a.kinds.split(",")) - set(OPS)
    if unknown:
        sys.exit(f"fit_eager_pool: --kinds: {', '.join(sorted(unknown))} is not one of {', '.join(OPS)}")
    calib_nets = set(json.load(open(os.path.join(REPO, "validation", "calibration-set.json")))["networks"])
    pts = {k: {"forward": [], "backward": []} for k in OPS}
    used = set()
    for path in a.traces:
        for rec in read_records(path):
            if (rec.get("memory_format") or "nchw") != a.layout:
                continue
            if rec["network"] not in calib_nets:
                sys.exit(f"fit_eager_pool: {path}: {rec['network']} is not a calibration-set network")
            out = subprocess.run([a.cnnperf, "layers", "--network", rec["network"], "--format", "json"],
                                 check=True, capture_output=True, text=True).stdout
            try:
                pools = list(matched_pools(rec, json.loads(out)["layers"]))
            except ValueError as e:
                sys.exit(f"fit_eager_pool: {path}: {e}")
            for kind, l, f, b in pools:
                if kind not in a.kinds.split(","):
                    continue
                h = l["hyper"]
                (kh, kw), (sh, sw), (ph, pw) = h["kernel"], h["stride"], h["pad"]
                _, hi, wi = (int(x) for x in l["input"].split("x"))
                _, ho, wo = (int(x) for x in l["output"].split("x"))
                cover = covering(hi, ho, kh, sh, ph) * covering(wi, wo, kw, sw, pw)
                nb = rec["batch"]
                tag = f"{rec['network']} b{nb} {rec['precision']} {l['name']}"
                pts[kind]["forward"].append((nb * elems(l["output"]) * 1e-6, kh * kw, f, tag))
                pts[kind]["backward"].append((nb * elems(l["input"]) * 1e-6, cover, b, tag))
            used.add(os.path.relpath(os.path.abspath(path), REPO))
    section = {}
    for kind, by in pts.items():
        if not by["forward"]:
            continue
        fa, fb = fit_line([(n, x, t) for n, x, t, _ in by["forward"]])  # us per million elements = ps each
        ba, bb = fit_line([(n, x, t) for n, x, t, _ in by["backward"]])
        section[kind] = {"forward_ps_per_output": round(fa, 3), "forward_ps_per_tap": round(fb, 3),
                         "backward_ps_per_input": round(ba, 3), "backward_ps_per_cover": round(bb, 3),
                         "layers": len(by["forward"])}
        print(f"{kind}: forward {fa:.3f} ps an output + {fb:.3f} a tap; backward {ba:.3f} ps an input + "
              f"{bb:.3f} a covering window ({len(by['forward'])} layers)")
        for p, (c0, c1) in (("forward", (fa, fb)), ("backward", (ba, bb))):
            errs = [100 * (n * (c0 + c1 * x) / t - 1) for n, x, t, _ in by[p]]
            print(f"  {p:8s} mean |error| {sum(abs(e) for e in errs) / len(errs):.1f}% over {len(errs)}; "
                  + ", ".join(f"{tag.split(' ', 3)[3]} {e:+.0f}%" for (_, _, _, tag), e in zip(by[p], errs)
                              if abs(e) > 10))
    if a.dry_run or not section:
        return 0
    with open(a.calibration) as fh:
        cal = json.load(fh)
    cal.setdefault("eager_pool", {})[a.layout] = section
    cal["eager_pool"] = {k: cal["eager_pool"][k] for k in ("nchw", "channels_last") if k in cal["eager_pool"]}
    train = cal.setdefault("eager_pool_training_set", {})
    if isinstance(train, list):  # the NCHW-only files of rule 36
        train = {"nchw": train}
    train[a.layout] = sorted(used)
    if set(train) == {"nchw"}:  # rule 36's form, so that its refit gives the shipped files back byte for byte
        cal["eager_pool_training_set"] = train["nchw"]
        cal["eager_pool_source"] = (f"fitted by tools/fit_eager_pool.py on {len(used)} PyTorch kernel traces of the "
                                    "calibration set: PyTorch's own NCHW pooling kernels' time per element, any "
                                    "precision")
    else:
        cal["eager_pool_training_set"] = {k: train[k] for k in ("nchw", "channels_last") if k in train}
        cal["eager_pool_source"] = ("fitted by tools/fit_eager_pool.py, per layout, on the calibration set's "
                                    "PyTorch kernel traces listed in eager_pool_training_set: PyTorch's own "
                                    "pooling kernels' time per element, any precision")
    write_json(a.calibration, cal)
    print(f"fit_eager_pool: wrote eager_pool into {a.calibration}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
