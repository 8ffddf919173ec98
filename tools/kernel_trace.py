#!/usr/bin/env python3
"""kernel_trace: which kernels cuDNN runs for a layer pass, with their launch
configuration and GPU time, read from the CUDA profiler (torch.profiler,
CUPTI underneath).

The model decomposes every pass into the kernels it assumes cuDNN runs
(layers/*.c); this script shows what cuDNN really runs, so a decomposition
can be checked against the library rather than fitted to iteration times.
Two kinds of trace:

  --op batchnorm: batch normalisation in training mode (cuDNN through
  torch.cudnn_batch_norm and its backward, NCHW, the calls cnnperf-measure
  makes), over a grid of channel counts and per-channel sizes;
  --op network: one whole PyTorch training iteration of shipped networks as
  tools/torch_bench.py runs it (NCHW, cudnn.benchmark), every kernel in launch
  order: which algorithms PyTorch's cuDNN path picks, layer by layer, where
  eager mode (--mode eager) must predict them.

  python3 tools/kernel_trace.py --op batchnorm --precision fp32,fp16 -o bn-kernels.json
  python3 tools/kernel_trace.py --op network --network vgg11,resnet18 --batch 32 --precision fp32 -o nets.json
  python3 tools/kernel_trace.py --op network --network resnet18 --precision fp16 --channels-last -o cl.json

Output: JSON, one record per (shape, precision, pass) with the kernels in
launch order: name, grid, block, registers per thread, shared memory, and
the median GPU time over --iters repetitions. Needs torch (the GPU machine);
nothing of cnnperf's build, tests or predictions depends on it.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

# (N, C, H, W): ResNet-50's batch-norm shapes at batch 64 and 256, ResNet-18's
# and DenseNet-like small channel counts, so that channels and per-channel
# size vary apart.
SHAPES = [
    (64, 64, 112, 112), (64, 64, 56, 56), (64, 256, 56, 56), (64, 128, 56, 56),
    (64, 128, 28, 28), (64, 512, 28, 28), (64, 256, 14, 14), (64, 1024, 14, 14),
    (64, 512, 7, 7), (64, 2048, 7, 7), (64, 32, 56, 56), (64, 96, 56, 56),
    (256, 64, 56, 56), (256, 256, 56, 56), (256, 128, 28, 28), (256, 512, 28, 28),
    (256, 256, 14, 14), (256, 1024, 14, 14), (256, 512, 7, 7), (256, 2048, 7, 7),
    (32, 64, 56, 56), (32, 256, 56, 56), (32, 1024, 14, 14), (8, 64, 56, 56),
]


def git_commit(repo):
    env = os.environ.get("CNNPERF_GIT_COMMIT")
    if env:
        return env
    try:
        return subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
    except Exception:
        return "unknown"


def trace_batchnorm(torch, shape, prec, iters):
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[prec]
    dev = torch.device("cuda")
    x = torch.randn(shape, device=dev, dtype=dtype, requires_grad=True)
    c = shape[1]
    w = torch.ones(c, device=dev, requires_grad=True)
    b = torch.zeros(c, device=dev, requires_grad=True)
    rm = torch.zeros(c, device=dev)
    rv = torch.ones(c, device=dev)
    dy = torch.randn(shape, device=dev, dtype=dtype)

    def step():
        y = torch.cudnn_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)[0]
        torch.cuda.synchronize()
        torch.autograd.backward(y, dy)
        torch.cuda.synchronize()
        x.grad = w.grad = b.grad = None

    for _ in range(3):
        step()
    return profiled(torch, step, iters)


def profiled(torch, step, iters):
    """The kernels of `iters` calls of step(), grouped by position in a call:
    name, the ATen operator that launched it, launch configuration and median
    GPU time."""
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(iters):
            step()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    p.export_chrome_trace(path)
    events = json.load(open(path)).get("traceEvents", [])
    os.unlink(path)
    kern = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    # a kernel's "External id" is that of the innermost operator that launched it
    ops = {e.get("args", {}).get("External id"): e["name"] for e in events if e.get("cat") == "cpu_op"}
    # Each call launches the same sequence; group by position.
    per = len(kern) // iters if iters else 0
    out = []
    for i in range(per):
        reps = [kern[j * per + i] for j in range(iters)]
        a = reps[0].get("args", {})
        out.append({
            "name": reps[0]["name"][:160],
            "op": ops.get(a.get("External id")),
            "grid": a.get("grid"), "block": a.get("block"),
            "registers_per_thread": a.get("registers per thread"),
            "shared_memory": a.get("shared memory"),
            "median_us": statistics.median(float(r["dur"]) for r in reps),
        })
    return out


def trace_network(torch, name, batch, prec, iters, channels_last=False):
    """One training iteration of a torchvision network as torch_bench.py runs it
    (channels_last: model and input in torch.channels_last, --channels-last)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_bench
    dev = torch.device("cuda")
    amp = torch_bench.set_precision(torch, prec)
    c, h, w, classes = torch_bench.network_shape(name)
    torch.manual_seed(1)
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    model = torch_bench.build_model(torch, name, classes).to(dev, memory_format=fmt).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(batch, c, h, w, device=dev).contiguous(memory_format=fmt)
    y = torch.arange(batch, device=dev) % classes

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()

    for _ in range(5):  # cudnn.benchmark settles its choices here
        step()
    return profiled(torch, step, iters)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--op", default="batchnorm", choices=["batchnorm", "network"])
    ap.add_argument("--network", default="vgg11,resnet18", help="--op network: comma-separated names")
    ap.add_argument("--batch", type=int, default=32, help="--op network")
    ap.add_argument("--precision", default="fp32,fp16")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--channels-last", action="store_true", help="--op network: NHWC model and input")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    import torch
    torch.backends.cudnn.enabled = True
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    records = []
    for prec in a.precision.split(","):
        if a.op == "network":
            for name in a.network.split(","):
                ks = trace_network(torch, name, a.batch, prec, a.iters, a.channels_last)
                records.append({"op": a.op, "network": name, "batch": a.batch, "precision": prec,
                                "memory_format": "channels_last" if a.channels_last else "nchw", "kernels": ks})
                print(f"{name} b{a.batch} {prec}: {len(ks)} kernels, {sum(k['median_us'] for k in ks) / 1e3:.2f} ms",
                      flush=True)
            continue
        for shape in SHAPES:
            ks = trace_batchnorm(torch, shape, prec, a.iters)
            records.append({"op": a.op, "shape_nchw": list(shape), "precision": prec, "kernels": ks})
            print(f"{prec} {shape}: " + "; ".join(
                f"{k['name'].split('(')[0][-60:]} grid={k['grid']} block={k['block']} {k['median_us']:.1f}us" for k in ks),
                flush=True)
    prov = {
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "host": platform.node(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": git_commit(repo),
    }
    try:
        prov["driver"] = subprocess.check_output(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], text=True).split("\n")[0].strip()
    except Exception:
        pass
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"schema": "cnnperf-kernel-trace/1", "provenance": prov, "records": records}, f, indent=1)
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
