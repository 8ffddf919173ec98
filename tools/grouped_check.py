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


def predicted_conv(cnnperf, net, batch, precision, extra):
    """The network's grouped convolution (the layer named conv) as `cnnperf predict` times it (ms per pass)."""
    run = subprocess.run([cnnperf, "predict", "--network", os.path.join(NETS, net + ".json"), "--batch", str(batch),
                          "--precision", precision, "--format", "json"] + extra,
                         capture_output=True, text=True, check=True)
    return next(layer for layer in json.loads(run.stdout)["layers"] if layer["name"] == "conv")


def harness_runs(precision):
    """groupbench's measurements of the grouped layers in `precision`: (net, batch, conv layer)."""
    with tarfile.open(os.path.join(BENCH, "groupbench", "data.tar.xz")) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            name = os.path.basename(member.name)
            net = next((n for n in GROUPED if name.startswith("layerbench-" + n + "-b")), None)
            if net is None or not name.endswith("-" + precision + ".json"):
                continue
            run = json.load(io.TextIOWrapper(tar.extractfile(member)))
            yield net, run["batch"], next(layer for layer in run["layers"] if layer["name"] == "conv")


def block_harness_runs(folder, precision, api="graph"):
    """A block set's harness measurements of its grouped layer (named conv) through one convolution API:
    (net, batch, layer)."""
    with tarfile.open(os.path.join(folder, "data.tar.xz" if api == "graph" else "legacy-data.tar.xz")) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            if not member.name.endswith("-" + precision + ".json"):
                continue
            run = json.load(io.TextIOWrapper(tar.extractfile(member)))
            net = member.name[len("layerbench-"):].rsplit("-b", 1)[0]
            yield net, run["batch"], next(layer for layer in run["layers"] if layer["name"] == "conv")


GROUPED_KERNEL_MARKS = ("_g2_", "_g4_", "_g8_", "_g16_", "_g32_", "tensorTransform", "nchwToNhwc", "nhwcToNchw")


def block_pytorch_traces(folder, tag, layout):
    """A block set's 16-bit PyTorch traces in one layout: (net, batch, forward ms, backward ms) of its grouped
    layer, its kernels picked by name."""
    for name in sorted(os.listdir(folder)):
        if not name.startswith(f"kernels-torch-{tag}-{layout}-"):
            continue
        with lzma.open(os.path.join(folder, name)) as f:
            records = json.load(f)["records"]
        for r in records:
            if r["precision"] != "fp16":
                continue

            def ms(op):
                return sum(k["median_us"] for k in r["kernels"]
                           if k["op"] == op and any(m in k["name"] for m in GROUPED_KERNEL_MARKS)) / 1e3
            yield (os.path.basename(r["network"])[:-len(".json")], r["batch"], ms("aten::cudnn_convolution"),
                   ms("aten::convolution_backward"))


def pytorch_traces(precision):
    """torchgroup's NCHW traces of the grouped layers: (net, batch, forward ms, backward ms)."""
    folder = os.path.join(BENCH, "torchgroup")
    for name in sorted(os.listdir(folder)):
        if not name.startswith("kernels-torch-groupbench-nchw-"):
            continue
        with lzma.open(os.path.join(folder, name)) as f:
            records = json.load(f)["records"]
        for r in records:
            net = os.path.basename(r["network"])[:-len(".json")]
            if net not in GROUPED or r["precision"] != precision:
                continue

            def ms(op):
                return sum(k["median_us"] for k in r["kernels"] if k["op"] == op) / 1e3
            yield net, r["batch"], ms("aten::cudnn_convolution"), ms("aten::convolution_backward")


def report(what, rows):
    errors = []
    for label, measured, predicted in rows:
        error = (predicted / measured - 1) * 100
        errors.append(abs(error))
        print(f"{what:8} {label:44} {measured:8.3f} {predicted:8.3f} {error:+7.1f}%")
    if errors:
        print(f"{what}: {sum(errors) / len(errors):.1f}% mean |error| over {len(errors)} passes\n")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--precision", default="fp16", help="fp16 (default) or fp32")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    ap.add_argument("--set", default="groupbench",
                    choices=["groupbench", "groupblock", "groupblock2", "groupbench2", "groupbench3"])
    a = ap.parse_args()
    print(f"{'':8} {'layer, batch, pass':44} {'measured':>8} {'model':>8} {'error':>8}   (ms)")
    if a.set in ("groupbench2", "groupbench3"):
        singles(a)
        return
    if a.set != "groupbench":
        blocks(a)
        return
    rows = []
    for net, batch, conv in harness_runs(a.precision):
        model = predicted_conv(a.cnnperf, net, batch, a.precision, ["--conv-api", "graph"])
        rows += [(f"{net[8:]} b{batch} {p[:-3]}", conv[p], model[p]) for p in PASSES]
    report("harness", rows)
    rows = []
    for net, batch, forward, backward in pytorch_traces(a.precision):
        model = predicted_conv(a.cnnperf, net, batch, a.precision, ["--mode", "eager"])
        if forward > 0:
            rows.append((f"{net[8:]} b{batch} forward", forward, model["forward_ms"]))
        if backward > 0:
            rows.append((f"{net[8:]} b{batch} backward", backward,
                         model["backward_data_ms"] + model["backward_weight_ms"]))
    report("pytorch", rows)


def singles(a):
    """groupbench57's and groupbench58's single grouped layers (16 bits): the harness through both APIs, and
    every convolution kernel of PyTorch's traces (the layer is the network's only convolution)."""
    global NETS
    folder = os.path.join(BENCH, a.set)
    NETS = os.path.join(folder, "nets")
    for api in ("graph", "legacy"):
        rows = []
        with tarfile.open(os.path.join(folder, "data.tar.xz")) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                if not member.name.endswith(f"-fp16-{api}.json"):
                    continue
                run = json.load(io.TextIOWrapper(tar.extractfile(member)))
                net = member.name[len("layerbench-"):].rsplit("-b", 1)[0]
                conv = next(layer for layer in run["layers"] if layer["name"] == "conv")
                model = predicted_conv(a.cnnperf, net, run["batch"], "fp16", ["--conv-api", api])
                rows += [(f"{net[8:]} b{run['batch']} {p[:-3]}", conv[p], model[p]) for p in PASSES]
        report("harness" if api == "graph" else "legacy", rows)
    for layout, extra in (("nchw", []), ("cl", ["--memory-format", "channels_last"])):
        rows = []
        for name in sorted(os.listdir(folder)):
            if not name.startswith(f"kernels-torch-{a.set}-{layout}-"):
                continue
            with lzma.open(os.path.join(folder, name)) as f:
                records = json.load(f)["records"]
            for r in records:
                if r["precision"] != "fp16":
                    continue
                net = os.path.basename(r["network"])[:-len(".json")]

                def ms(op):
                    return sum(k["median_us"] for k in r["kernels"] if k["op"] == op) / 1e3
                model = predicted_conv(a.cnnperf, net, r["batch"], "fp16", ["--mode", "eager"] + extra)
                rows.append((f"{net[8:]} b{r['batch']} forward", ms("aten::cudnn_convolution"), model["forward_ms"]))
                rows.append((f"{net[8:]} b{r['batch']} backward", ms("aten::convolution_backward"),
                             model["backward_data_ms"] + model["backward_weight_ms"]))
        report(f"pt-{layout}", rows)


def blocks(a):
    global NETS
    folder = os.path.join(BENCH, a.set)
    NETS = os.path.join(folder, "nets")
    for api in ("graph", "legacy"):
        rows = []
        for net, batch, conv in block_harness_runs(folder, a.precision, api):
            model = predicted_conv(a.cnnperf, net, batch, a.precision, ["--conv-api", api])
            rows += [(f"{net[11:]} b{batch} {p[:-3]}", conv[p], model[p]) for p in PASSES]
        report("harness" if api == "graph" else "legacy", rows)
    if a.precision != "fp16":
        return  # FP32's grouped layers run group by group among the block's own kernels: not told apart by name
    for layout, extra in (("nchw", []), ("cl", ["--memory-format", "channels_last"])):
        rows = []
        for net, batch, forward, backward in block_pytorch_traces(folder, a.set, layout):
            model = predicted_conv(a.cnnperf, net, batch, "fp16", ["--mode", "eager"] + extra)
            if forward > 0:
                rows.append((f"{net[11:]} b{batch} forward", forward, model["forward_ms"]))
            if backward > 0:
                rows.append((f"{net[11:]} b{batch} backward", backward,
                             model["backward_data_ms"] + model["backward_weight_ms"]))
        report(f"pt-{layout}", rows)


if __name__ == "__main__":
    main()
