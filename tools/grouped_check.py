#!/usr/bin/env python3
"""grouped_check: the model's grouped convolutions against their layer
microbenchmarks (calibration data, never the evaluation set), the numbers a
rule about grouped layers is judged on (docs/ACCURACY.md, session 45's rule 17).

Two measurements of groupbench's seven grouped, not depthwise, layers
(validation/layerbench-h100/groupbench/nets/, 3 to 24 channels a group):
  harness  cnnperf-measure through the graph API, each pass timed alone
           (groupbench/data.tar.xz: --layers isolated, cuDNN 9.14), against
           `cnnperf predict` (harness mode, graph API) per pass;
  pytorch  PyTorch's kernel traces (layerbench-h100/torchgroup/, cuDNN 9.19):
           the convolution's forward kernels and its backward's (data and
           weight gradients together), NCHW, against `cnnperf predict
           --mode eager`.
One line per pass, then the mean absolute percentage error of each.

--set groupbench2 or groupbench3 reads single grouped layers at power-of-two widths (groupbench57's and
groupbench58's, 16 bits): the harness through both APIs, and every convolution kernel of PyTorch's NCHW and
channels-last traces (the layer is the network's only convolution).

--set groupblock or groupblock2 reads the bottleneck blocks instead (layerbench-h100/<set>/: groupblock46's 3 to
24 channels a group, groupblock57's 4, 8, 16 and 32): the harness's grouped layer timed alone in its block through
the graph API and through the legacy one (legacy-data.tar.xz, groupblock57b), and
in PyTorch's 16-bit traces (NCHW and channels-last) the kernels that are the grouped layer's by name (cuDNN's
grouped GEMMs, _g2_ to _g32_, and the layout transposes around them; the block's 1x1 layers have none).

  python3 tools/grouped_check.py                          # 16 bits (default)
  python3 tools/grouped_check.py --precision fp32 --cnnperf build-asan/cnnperf
  python3 tools/grouped_check.py --set groupbehind63      # the H200's, plain and behind a spin (session 63)

Needs the cnnperf program (--cnnperf, default build/cnnperf); reads the
committed data only, writes nothing.
"""
import argparse
import io
import json
import lzma
import os
import subprocess
import tarfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "validation", "layerbench-h100")
NETS = os.path.join(BENCH, "groupbench", "nets")
GROUPED = ["grouped_c192_g32_k3s1_192x40", "grouped_c384_g32_k3s1_384x20", "grouped_c768_g32_k3s1_768x10",
           "grouped_c96_g32_k3s1_96x80", "grouped_c192_g8_k3s1_192x40", "grouped_c384_g16_k3s2_384x40",
           "grouped_c576_g64_k3s1_576x14"]
PASSES = ("forward_ms", "backward_data_ms", "backward_weight_ms")


def predicted_conv(cnnperf, net, batch, precision, extra, nets=None):
    """The network's grouped convolution (the layer named conv) as `cnnperf predict` times it (ms per pass)."""
    run = subprocess.run([cnnperf, "predict", "--network", os.path.join(nets or NETS, net + ".json"), "--batch",
                          str(batch), "--precision", precision, "--format", "json"] + extra,
                         capture_output=True, text=True, check=True)
    return next(layer for layer in json.loads(run.stdout)["layers"] if layer["name"] == "conv")


def harness_runs(archive, suffix, nets=None, folder=""):
    """The harness's measurements of a set's layer under test (the layer named conv) in one tar of cnnperf-measure
    files, those whose names end with suffix (and whose network is in nets, if given; and, with folder, in that
    folder of the tar): (net, batch, layer, the algorithms cuDNN chose for it)."""
    with tarfile.open(archive) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            net = os.path.basename(member.name)[len("layerbench-"):].rsplit("-b", 1)[0]
            if (not member.name.endswith(suffix) or (nets is not None and net not in nets) or
                    (folder and os.path.dirname(member.name) != folder)):
                continue
            run = json.load(io.TextIOWrapper(tar.extractfile(member)))
            yield (net, run["batch"], next(layer for layer in run["layers"] if layer["name"] == "conv"),
                   run["provenance"]["conv_algorithms"].get("conv", ""))


GROUPED_KERNEL_MARKS = ("_g2_", "_g4_", "_g8_", "_g16_", "_g32_", "tensorTransform", "nchwToNhwc", "nhwcToNchw")


def traced_sums(folder, prefix, precision, nets=None, by_name=False):
    """PyTorch's traces in folder whose file names start with prefix, in one precision: (net, batch, forward ms,
    backward ms) of the grouped layer, every convolution kernel of the step or (by_name) those that are the grouped
    layer's by name (a block's 1x1 layers have none of GROUPED_KERNEL_MARKS)."""
    for name in sorted(os.listdir(folder)):
        if not name.startswith(prefix):
            continue
        with lzma.open(os.path.join(folder, name)) as f:
            records = json.load(f)["records"]
        for r in records:
            net = os.path.basename(r["network"])[:-len(".json")]
            if r["precision"] != precision or (nets is not None and net not in nets):
                continue

            def mine(k):
                return not by_name or any(m in k["name"] for m in GROUPED_KERNEL_MARKS)

            def ms(op):
                return sum(k["median_us"] for k in r["kernels"] if k["op"] == op and mine(k)) / 1e3
            yield net, r["batch"], ms("aten::cudnn_convolution"), ms("aten::convolution_backward")


def harness_rows(a, runs, precision, api, extra=(), nets=None):
    return [(f"{net.split('_', 1)[1]} b{batch} {p[:-3]}", conv[p], model[p]) for net, batch, conv, _ in runs
            for model in [predicted_conv(a.cnnperf, net, batch, precision, ["--conv-api", api] + list(extra), nets)]
            for p in PASSES]


def pytorch_rows(a, traces, precision, extra):
    rows = []
    for net, batch, forward, backward in traces:
        model = predicted_conv(a.cnnperf, net, batch, precision, ["--mode", "eager"] + extra)
        label = f"{net.split('_', 1)[1]} b{batch}"
        if forward > 0:
            rows.append((f"{label} forward", forward, model["forward_ms"]))
        if backward > 0:
            rows.append((f"{label} backward", backward, model["backward_data_ms"] + model["backward_weight_ms"]))
    return rows


def report(what, rows):
    errors = []
    for label, measured, predicted in rows:
        error = (predicted / measured - 1) * 100
        errors.append(abs(error))
        print(f"{what:8} {label:44} {measured:8.3f} {predicted:8.3f} {error:+7.1f}%")
    if errors:
        print(f"{what}: {sum(errors) / len(errors):.1f}% mean |error| over {len(errors)} passes\n")
    return errors


LAYOUTS = (("nchw", []), ("cl", ["--memory-format", "channels_last"]))


def main():
    global NETS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--precision", default="fp16", help="fp16 (default) or fp32")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    ap.add_argument("--set", default="groupbench",
                    choices=["groupbench", "groupblock", "groupblock2", "groupbench2", "groupbench3", "groupbehind63"])
    a = ap.parse_args()
    print(f"{'':8} {'layer, batch, pass':44} {'measured':>8} {'model':>8} {'error':>8}   (ms)")
    if a.set == "groupbehind63":
        # groupbench2's and groupbench3's layers again on the H200, each pass timed alone as before (plain) and
        # behind a 10 ms GPU spin that hides the library call's host latency (behind), both APIs
        archive = os.path.join(REPO, "validation", "layerbench-h200", "groupbehind63", "data.tar.xz")
        for bench in ("groupbench2", "groupbench3"):
            print(f"-- {bench}'s layers on the H200 (graph or legacy API, timed plainly or behind the spin)")
            for timing in ("plain", "behind"):
                for api in ("graph", "legacy"):
                    report(f"{api[:3]}-{timing[:3]}",
                           harness_rows(a, harness_runs(archive, f"-fp16-{api}.json",
                                                        folder=f"groupbehind63-{bench}-{timing}"),
                                        "fp16", api, ["--device", "h200"], os.path.join(BENCH, bench, "nets")))
        return
    folder = os.path.join(BENCH, a.set)
    NETS = os.path.join(folder, "nets")
    if a.set == "groupbench":
        report("harness", harness_rows(a, harness_runs(os.path.join(folder, "data.tar.xz"), f"-{a.precision}.json",
                                                       GROUPED), a.precision, "graph"))
        traces = traced_sums(os.path.join(BENCH, "torchgroup"), "kernels-torch-groupbench-nchw-", a.precision, GROUPED)
        report("pytorch", pytorch_rows(a, traces, a.precision, []))
    elif a.set in ("groupbench2", "groupbench3"):
        # groupbench57's and groupbench58's single grouped layers, 16 bits: the layer is the network's only
        # convolution, so every convolution kernel of a trace is its
        for api in ("graph", "legacy"):
            report("harness" if api == "graph" else "legacy",
                   harness_rows(a, harness_runs(os.path.join(folder, "data.tar.xz"), f"-fp16-{api}.json"), "fp16", api))
        for layout, extra in LAYOUTS:
            report(f"pt-{layout}", pytorch_rows(a, traced_sums(folder, f"kernels-torch-{a.set}-{layout}-", "fp16"),
                                                "fp16", extra))
    else:
        for api, archive in (("graph", "data.tar.xz"), ("legacy", "legacy-data.tar.xz")):
            report("harness" if api == "graph" else "legacy",
                   harness_rows(a, harness_runs(os.path.join(folder, archive), f"-{a.precision}.json"), a.precision,
                                api))
        if a.precision != "fp16":
            return  # FP32's grouped layers run group by group among the block's own kernels: not told apart by name
        for layout, extra in LAYOUTS:
            report(f"pt-{layout}", pytorch_rows(a, traced_sums(folder, f"kernels-torch-{a.set}-{layout}-", "fp16",
                                                               by_name=True), "fp16", extra))


if __name__ == "__main__":
    main()
