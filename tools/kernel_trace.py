#!/usr/bin/env python3
"""kernel_trace: which kernels cuDNN runs for a layer pass, with their launch
configuration and GPU time, read from the CUDA profiler (torch.profiler,
CUPTI underneath).

The model decomposes every pass into the kernels it assumes cuDNN runs
(layers/*.c); this script shows what cuDNN really runs, so a decomposition
can be checked against the library rather than fitted to iteration times.
Only batch normalisation in training mode for now (cuDNN through
torch.cudnn_batch_norm and its backward, NCHW, the calls cnnperf-measure
makes), over a grid of channel counts and per-channel sizes.

  python3 tools/kernel_trace.py --op batchnorm --precision fp32,fp16 -o bn-kernels.json

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
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(iters):
            step()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    p.export_chrome_trace(path)
    events = json.load(open(path)).get("traceEvents", [])
    os.unlink(path)
    kern = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    # Each iteration launches the same sequence; group by position.
    per = len(kern) // iters if iters else 0
    out = []
    for i in range(per):
        reps = [kern[j * per + i] for j in range(iters)]
        a = reps[0].get("args", {})
        out.append({
            "name": reps[0]["name"][:160],
            "grid": a.get("grid"), "block": a.get("block"),
            "registers_per_thread": a.get("registers per thread"),
            "shared_memory": a.get("shared memory"),
            "median_us": statistics.median(float(r["dur"]) for r in reps),
        })
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--op", default="batchnorm", choices=["batchnorm"])
    ap.add_argument("--precision", default="fp32,fp16")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    import torch
    torch.backends.cudnn.enabled = True
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    records = []
    for prec in a.precision.split(","):
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
