#!/usr/bin/env python3
"""fit_calibration: fit calibration/<device>.json from measured training runs.

The analytic model times the kernels each layer pass is decomposed into;
cuDNN runs other kernels (FFT, Winograd, transposes around tensor-core
kernels, several kernels per batch norm). For every precision group (fp32,
tf32, half = fp16/bf16), layer class (`cnnperf layers` shows it) and pass,
this fits

    t_measured = scale * t_model + offset

over the layers of the *calibration-set* networks only
(validation/calibration-set.json): weighted least squares with weights
t_measured^-1/2, between absolute error (which big layers dominate) and
relative error (which small layers dominate). With fewer than 4 points, a
negative offset or a scale under 0.2, the offset is dropped and the scale
alone fitted. Where one library call computes both gradients and is
measured as backward-data (cuDNN's batch-norm backward), the model's
backward-data and backward-weight are fitted together on their sum, one
scale for both. Runs of other networks are never read, except layer
microbenchmarks named by --microbench (networks of our choosing, one layer
under study, the class it studies named by --microbench-class): they fill a
class where the calibration networks' layers leave a gap (conv_first: small
images).

  python3 tools/fit_calibration.py --device h100 --measured 'validation/h100/*.json' -o calibration/h100.json
  python3 tools/fit_calibration.py --device h200 --measured 'validation/h200/*.json' -o calibration/h200.json
  python3 tools/fit_calibration.py --device h100 --conv-api graph --measured 'validation/h100/graph-api/*.json' \
      -o calibration/h100-graph.json

--conv-api picks the runs by the convolution API their provenance names
(cnnperf-measure --conv-api; legacy when absent) and predicts them with
that API's algorithms (cnnperf predict --conv-api): the graph API's file is
what predictions with PyTorch's algorithms use (harness --conv-api graph,
and eager mode).

Needs the cnnperf program (--cnnperf, default build/cnnperf); the predictions
it fits against are made with --calibration none. The project does not need
Python to build, test or predict: this is a maintenance tool, and its output
is committed.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

from measured_files import expand, load

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MERGED = "backward (data+weight, one call)"
PASSES = (("forward", "forward_ms"), ("backward_data", "backward_data_ms"),
          ("backward_weight", "backward_weight_ms"), ("update", "update_ms"))


def group(precision):
    return {"fp32": "fp32", "tf32": "tf32", "fp16": "half", "bf16": "half"}[precision]


def run_json(cnnperf, args):
    out = subprocess.run([cnnperf] + args + ["--format", "json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def fit(points, max_offset_ms=None, power=0.5, extra=None):
    """points: (model_ms, measured_ms); extra: a factor on each point's weight
    (None: 1). Returns (scale, offset_ms)."""
    extra = extra or [1.0] * len(points)
    s0 = s1 = s2 = s3 = s4 = 0.0
    for (x, y), e in zip(points, extra):
        w = e * y ** -power
        s0 += w
        s1 += w * x
        s2 += w * x * x
        s3 += w * y
        s4 += w * x * y
    det = s0 * s2 - s1 * s1
    if len(points) >= 4 and det > 0:
        a = (s0 * s4 - s1 * s3) / det
        b = (s2 * s3 - s1 * s4) / det
        if a >= 0.2 and b >= 0:
            if max_offset_ms is None or b <= max_offset_ms:
                return a, b
            # the offset held at its bound, the scale fitted alone
            sxy = sum(e * y ** -power * x * (y - max_offset_ms) for (x, y), e in zip(points, extra))
            if sxy > 0:
                return sxy / s2, max_offset_ms
    return (s4 / s2 if s2 > 0 else 1.0), 0.0


def huber_fit(points, max_offset_ms, power, k=1.345, rounds=20):
    """fit() by iteratively reweighted least squares with Huber weights on the
    log of measured / fitted: points within k robust standard deviations
    (1.4826 x the median absolute deviation) keep their weight, farther ones
    lose it in proportion. Returns (scale, offset_ms)."""
    import math
    w = [1.0] * len(points)
    a, b = fit(points, max_offset_ms, power)
    for _ in range(rounds):
        r = [math.log(y / max(a * x + b, 1e-12)) for x, y in points]
        med = sorted(r)[len(r) // 2]
        mad = sorted(abs(v - med) for v in r)[len(r) // 2] * 1.4826 or 1e-9
        w = [1.0 if abs(v - med) <= k * mad else k * mad / abs(v - med) for v in r]
        a2, b2 = fit(points, max_offset_ms, power, w)
        if abs(a2 - a) < 1e-6 * abs(a) and abs(b2 - b) < 1e-9:
            break
        a, b = a2, b2
    return a, b


def robust_fit(points, max_offset_ms, power, trim):
    """fit() on the points, then again without those the fit misses by more
    than a factor `trim` either way (layers cuDNN runs with an algorithm the
    class does not describe, or that waited on the host), until none is
    dropped. Returns (scale, offset_ms, points dropped)."""
    kept = list(points)
    a, b = fit(kept, max_offset_ms, power)
    if not trim:
        return a, b, 0
    for _ in range(10):
        inside = [(x, y) for x, y in kept if 1.0 / trim <= y / (a * x + b) <= trim]
        if len(inside) == len(kept) or len(inside) < 4:
            break
        kept = inside
        a, b = fit(kept, max_offset_ms, power)
    return a, b, len(points) - len(kept)


def layer_classes(cnnperf, net, cache):
    """{layer name: calibration class} of a network, asked of cnnperf once per network."""
    if net not in cache:
        layers = run_json(cnnperf, ["layers", "--network", net, "--batch", "1"])["layers"]
        cache[net] = {l["name"]: l["calibration_class"] for l in layers}
    return cache[net]


def host_terms(args, train, terms, classes):
    """Adds host_us to terms from the host-profiled calibration-set runs; returns the runs used and the GPU."""
    files = expand(args.host_profiles)
    samples, used, gpu = {}, [], "?"
    for f in files:
        m = load(f)
        if m.get("source") != "measurement" or m.get("gpus", 1) != 1 or m.get("network") not in train:
            continue
        if m.get("provenance", {}).get("host_profile_behind_us", 0):
            continue  # profiled behind a busy GPU: a diagnostic
        if m.get("provenance", {}).get("conv_api", "legacy") != args.conv_api:
            continue
        if not all("host_us" in l for l in m["layers"]):
            continue
        cls = layer_classes(args.cnnperf, m["network"], classes)
        for l in m["layers"]:
            for key, _ in PASSES:
                v = l["host_us"].get(key, 0)
                if v <= 0:
                    continue
                if args.host_pool == "conv":
                    if cls[l["name"]].startswith("conv") and key != "update":
                        samples.setdefault(("*", "conv", "*"), []).append(v)
                else:
                    samples.setdefault((group(m["precision"]), cls[l["name"]], key), []).append(v)
        used.append(os.path.relpath(f, REPO))
        gpu = m["provenance"].get("gpu_name", gpu)
    for (g, c, key), v in sorted(samples.items()):
        v.sort()
        x = args.host_quantile * (len(v) - 1)  # linear interpolation between order statistics
        med = v[int(x)] + (x - int(x)) * (v[min(int(x) + 1, len(v) - 1)] - v[int(x)])
        targets = [(g, c, key)]
        if g == "*":  # --host-pool conv: every convolution class and pass of every group
            targets = [(tg, tc, tk) for tg in terms for tc in terms[tg] if tc.startswith("conv")
                       for tk, _ in PASSES if tk != "update"]
        for tg, tc, tk in targets:
            t = terms.setdefault(tg, {}).setdefault(tc, {}).setdefault(tk, {"scale": 1.0, "offset_us": 0.0,
                                                                            "points": 0})
            t["host_us"] = round(med, 2)
            t["host_points"] = len(v)
        print(f"fit_calibration: {g:5} {c:13} {key:16} host {med:7.1f} us  ({len(v)} layer passes, "
              f"{len(targets)} term{'s' if len(targets) != 1 else ''})", file=sys.stderr)
    return used, gpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", required=True, help="device id the runs were measured on (h100)")
    ap.add_argument("--measured", required=True, action="append", help="glob of cnnperf-measure JSON files")
    ap.add_argument("--calibration-set", default=os.path.join(REPO, "validation", "calibration-set.json"))
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--conv-api", choices=("legacy", "graph"), default="legacy",
                    help="fit on the runs whose convolutions went through this cuDNN API, predicted with its "
                         "algorithms (default legacy)")
    ap.add_argument("--pool", action="store_true",
                    help="predict each run on its own device (the file's device id), so that runs of GPUs of one "
                         "architecture (H100 and H200) are fitted together")
    ap.add_argument("--also", action="append", default=[],
                    help="also write calibration/<ID>.json (<ID>-graph.json with --conv-api graph) with the same terms for a device of the same "
                         "architecture (say so in its source)")
    ap.add_argument("--max-offset-us", type=float, default=None,
                    help="bound the per-call offset (a pass's fixed cost: a few extra launches), fitting the "
                         "scale alone where the free fit exceeds it")
    ap.add_argument("--exclude", action="append", default=[],
                    help="glob of runs to leave out (e.g. runs of a harness the model no longer describes; say why "
                         "where the fit is documented)")
    ap.add_argument("--huber", action="store_true",
                    help="iteratively reweighted fit with Huber weights on the log residuals (outliers weigh less)")
    ap.add_argument("--trim", type=float, default=0,
                    help="refit without the layer passes the fit misses by more than this factor either way, until "
                         "none is dropped (0: keep every point)")
    ap.add_argument("--max-host-share", type=float, default=None,
                    help="leave out a training run whose host took this share of its iteration or more to enqueue "
                         "it (host_enqueue_ms / iteration_ms): where the GPU catches up with the host, a pass's "
                         "events also time the wait for the next call (docs/ACCURACY.md, session 64, rule 50)")
    ap.add_argument("--host-profiles", action="append", default=[],
                    help="glob of cnnperf-measure runs with host profiles (layers[].host_us; cnnperf-measure "
                         "--host-profile): each term also gets host_us, the median host time of issuing that "
                         "pass over the calibration-set runs' layer passes of its class, so that predictions "
                         "put the host's issue ahead of the GPU")
    ap.add_argument("--host-quantile", type=float, default=0.5,
                    help="which quantile of a class's host times its host_us is (default 0.5, the median)")
    ap.add_argument("--host-pool", choices=["class", "conv"], default="class",
                    help="class (default): a host_us per precision group, class and pass; conv: one quantile "
                         "over every convolution pass of every precision (cuDNN's legacy calls cost about the "
                         "same whatever the class), given to each convolution term and no other")
    ap.add_argument("--microbench", action="append", default=[],
                    help="glob of layer microbenchmark runs (run_device.sh MODE=layerbench) to fit with the "
                         "calibration set: networks of our choosing, each read from nets/<network>.json beside "
                         "the run; say which in the calibration's documentation")
    ap.add_argument("--microbench-class", action="append", default=[],
                    help="the layer class a microbenchmark studies (e.g. conv_first): only its layers are fitted "
                         "(the common head of global pooling, fc and loss is not)")
    ap.add_argument("--weight-power", type=float, default=0.5,
                    help="weights t_measured^-p of the least squares: 0 absolute error (big layers rule), 2 "
                         "relative error (every layer alike); default 0.5, between")
    args = ap.parse_args()
    if args.max_host_share is not None and not 0 < args.max_host_share <= 1:
        sys.exit(f"fit_calibration: --max-host-share: a share of the iteration, above 0 and at most 1, got "
                 f"{args.max_host_share:g}")
    cap = None if args.max_offset_us is None else args.max_offset_us * 1e-3

    train = set(json.load(open(args.calibration_set))["networks"])
    excluded = set(expand(args.exclude))
    files = sorted(set(expand(args.measured)) - excluded)
    micro = sorted(set(expand(args.microbench)) - excluded)
    if micro and not args.microbench_class:
        sys.exit("fit_calibration: --microbench needs --microbench-class (the class the microbenchmarks study)")
    points, used, used_micro, classes = {}, [], [], {}
    for f in files + micro:
        try:
            m = load(f)
        except (OSError, ValueError):
            continue
        if m.get("source") != "measurement" or m.get("gpus", 1) != 1:
            continue
        if f in micro:  # a microbenchmark's network file lies beside it
            m["network"] = os.path.join(os.path.dirname(f), "nets", m.get("network", "?") + ".json")
            if not os.path.exists(m["network"]):
                sys.exit(f"fit_calibration: {f}: no network file {m['network']}")
        elif m.get("network") not in train:
            continue
        if m.get("provenance", {}).get("conv_api", "legacy") != args.conv_api:
            continue
        if (args.max_host_share is not None and f not in micro and m.get("host_enqueue_ms") is not None
                and m["host_enqueue_ms"] >= args.max_host_share * m["iteration_ms"]):
            print(f"fit_calibration: {os.path.relpath(f, REPO)}: left out, the host took "
                  f"{m['host_enqueue_ms'] / m['iteration_ms']:.2f} of its iteration", file=sys.stderr)
            continue
        net, batch, prec = m["network"], m["batch"], m["precision"]
        cls_of = layer_classes(args.cnnperf, net, classes)
        # each run on the GPU it was measured on (runs of several GPUs of one
        # architecture may be pooled), unless --device names a profile file
        dev = m.get("device") if args.pool else args.device
        p = run_json(args.cnnperf, ["predict", "--network", net, "--device", dev, "--batch", str(batch),
                                    "--precision", prec, "--calibration", "none", "--conv-api", args.conv_api])
        pred = {l["name"]: l for l in p["layers"]}
        for l in m["layers"]:
            q = pred.get(l["name"])
            if not q:
                sys.exit(f"fit_calibration: {f}: layer {l['name']} is not in the prediction of {net}")
            cls = cls_of[l["name"]]
            if f in micro and cls not in args.microbench_class:
                continue
            xd, xw = q.get("backward_data_ms", 0), q.get("backward_weight_ms", 0)
            yd, yw = l.get("backward_data_ms", 0), l.get("backward_weight_ms", 0)
            merged = xd > 0 and xw > 0 and yd > 0 and yw == 0
            for key, field in PASSES:
                x, y = q.get(field, 0), l.get(field, 0)
                if merged and key == "backward_data":
                    # one library call computes both gradients (cuDNN's batch-norm
                    # backward) and is measured as backward-data: fit the model's
                    # two passes on their sum, one scale for both
                    key, x = MERGED, xd + xw
                if x > 0 and y > 0:
                    points.setdefault((group(prec), cls, key), []).append((x, y))
        used.append(os.path.relpath(f, REPO))
        if f in micro:
            used_micro.append(used[-1])

    if not used:
        sys.exit("fit_calibration: no single-GPU cnnperf-measure run of a calibration-set network matched")
    terms = {}
    for (g, cls, key), pts in sorted(points.items()):
        if args.huber:
            (a, b), dropped = huber_fit(pts, cap, args.weight_power), 0
        else:
            a, b, dropped = robust_fit(pts, cap, args.weight_power, args.trim)
        t = terms.setdefault(g, {}).setdefault(cls, {})
        if key == MERGED:
            # the offset (the call's fixed cost) once, on backward-data
            t["backward_data"] = {"scale": round(a, 4), "offset_us": round(b * 1e3, 2), "points": len(pts)}
            t["backward_weight"] = {"scale": round(a, 4), "offset_us": 0.0, "points": len(pts)}
        else:
            t[key] = {"scale": round(a, 4), "offset_us": round(b * 1e3, 2), "points": len(pts)}
        print(f"fit_calibration: {g:5} {cls:13} {key:16} scale {a:6.3f} offset {b * 1e3:7.1f} us  "
              f"({len(pts)} layer passes)", file=sys.stderr)

    host_used, host_gpu = host_terms(args, train, terms, classes)

    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    # the model that was fitted: HEAD, or HEAD with uncommitted changes to what
    # predictions are made of, as the measurements' provenance says it
    model_paths = ["model", "layers", "comm", "networks", "devices", "clusters", "src", "util"]
    dirty = subprocess.run(["git", "-C", REPO, "diff", "--quiet", "HEAD", "--"] + model_paths).returncode
    if commit and dirty:
        commit += "+working-tree"
    nets = sorted({load(os.path.join(REPO, f))["network"] for f in used if f not in used_micro})
    libs = sorted({load(os.path.join(REPO, f))["provenance"].get("cudnn", "?") for f in used})
    gpu = load(os.path.join(REPO, used[0]))["provenance"].get("gpu_name", "?")
    suffix = "" if args.conv_api == "legacy" else "-" + args.conv_api  # calibration/h200-graph.json
    for dev, path in [(args.device, args.output)] + [(d, os.path.join(os.path.dirname(args.output), d + suffix + ".json"))
                                                      for d in args.also]:
        source = (f"fitted by tools/fit_calibration.py on {len(used) - len(used_micro)} cnnperf-measure runs of the "
                  f"calibration set ({', '.join(nets)}) on {gpu}, cuDNN {', '.join(libs)}")
        if used_micro:
            dirs = sorted({os.path.dirname(f) for f in used_micro})
            source += f", and {len(used_micro)} layer microbenchmarks ({', '.join(dirs)})"
        if dev != args.device:
            source += f"; applied to {dev} as the same SM architecture, not fitted on it"
        doc = {
            "format": "cnnperf-calibration-factors/1",
            "device": dev,
            "source": source,
            "library": "cuDNN " + ", ".join(libs) + (
                ", legacy convolution API, NCHW (cnnperf-measure)" if args.conv_api == "legacy" else
                ", graph API, engines chosen as PyTorch's cudnn.benchmark chooses, NCHW "
                "(cnnperf-measure --conv-api graph)"),
            "training_set": used,
            "method": "per precision group, layer class and pass: t = scale * t_model + offset, weighted least "
                      "squares (weights t^-1/2) over the layer passes of the training runs; scale alone when "
                      "the fit gives a negative offset, a scale under 0.2 or fewer than 4 points; where one library "
                      "call computes both gradients (batch norm) and is measured as backward-data, the model's two "
                      "backward passes are fitted on their sum with one scale, the offset on backward-data" + (
                          f"; training runs whose host took {args.max_host_share:g} of the iteration or more to "
                          "enqueue it left out (--max-host-share)" if args.max_host_share is not None else ""),
            "fitted": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "git_commit": commit,
            "terms": terms,
        }
        if host_used:
            doc["host_source"] = (f"host profiles (cnnperf-measure --host-profile) of {len(host_used)} runs of the "
                                  f"calibration set on {host_gpu}'s host")
            doc["host_training_set"] = host_used
            doc["host_method"] = (("host_us: one quantile (%g) over the training runs' convolution passes, every "
                                   "class and precision, of the host's time to issue the pass (its library calls, "
                                   "launches and event record) with the GPU idle; on every convolution term, no "
                                   "other" % args.host_quantile) if args.host_pool == "conv" else
                                  ("host_us: per precision group, layer class and pass, the quantile (%g) over "
                                   "the training runs' layer passes of the host's time to issue the pass (its "
                                   "library calls, launches and event record) with the GPU idle"
                                   % args.host_quantile))
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
        print(f"fit_calibration: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
