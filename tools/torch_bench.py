#!/usr/bin/env python3
"""torch_bench: the PyTorch reference for cnnperf-measure and cnnperf-calibrate.

Issue 4's quality bar: a ResNet-50 or VGG-16 training iteration measured by
cnnperf-measure must be within 10% of PyTorch's on the same GPU, batch and
precision, and NCCL all-reduce bus bandwidth at 256 MiB within 10% of
torch.distributed's. This script measures the PyTorch side, the way
cnnperf-measure measures its own (measure/README.md):

  one iteration = the synthetic batch copied from pinned host memory,
  forward, softmax cross-entropy, backward, SGD (lr 0.01, momentum 0.9);
  CUDA events around each iteration, synchronised after each; W warm-up
  then N timed iterations; median, p10 and p90 (linear interpolation).

Precisions: fp32 is true FP32 (torch.backends.cuda.matmul.allow_tf32 and
torch.backends.cudnn.allow_tf32 False); tf32 sets both True; fp16 and bf16
run under torch.autocast (fp32 weights, no GradScaler unless --grad-scaler,
as cnnperf-measure has no loss scaling). cudnn.benchmark is on. NCHW by
default, --channels-last for NHWC.

  python3 tools/torch_bench.py --network resnet50,vgg16 --batch 32 --precision fp32,fp16 --out-dir DIR
  python3 tools/torch_bench.py --network resnet50 --batch 64 --precision tf32 -o resnet50.json
  python3 tools/torch_bench.py --network path/to/my_net.json --batch 64 --precision fp16 --out-dir DIR

A network may be a cnnperf-network/1 file (a user's network, a layer
microbenchmark's): cnnperf expands it (`cnnperf layers --format json`, the
program from build-gpu/ or build/, or $CNNPERF) and PyTorch runs those
layers in order as standard modules (Conv2d, BatchNorm2d, ReLU, MaxPool2d,
Linear, ...; concat and add on their inputs; the closing softmax is the
cross-entropy), so the run is what `cnnperf predict --mode eager` and
`cnnperf validate` predict for the same file; its results are named by the
file's base name and record the path as their network.
tools/torch_networks_check.py checks, on a CPU, that the modules built so
match cnnperf's parameters and layer shapes, and torchvision's models for
the built-in networks (all 20 do). Where they differ from torchvision's
code: ReLUs are not in place (most of torchvision's are), and batch norm
keeps PyTorch's default eps and momentum (GoogLeNet and Inception-v3 set
0.001); the kernels that run are the same kinds.
  torchrun --nproc-per-node 2 tools/torch_bench.py --allreduce -o allreduce.json
  torchrun --nproc-per-node 2 tools/torch_bench.py --ddp --network resnet50 --batch 64 --out-dir DIR
  torchrun --nproc-per-node 2 tools/torch_bench.py --ddp-split --network densenet121 --precision fp16 --iters 8 --out-dir DIR

--ddp: data-parallel training under torchrun, one rank per GPU, the model in
DistributedDataParallel (NCCL, its default 25 MB buckets exchanged during
backward); --batch is per GPU. Each rank times its iterations as above; the
result is rank 0's file with the slowest rank's median, p10 and p90, as
cnnperf-measure reports several ranks.

--ddp-split (under torchrun): where DistributedDataParallel's host time goes
on a real network, paired in rounds so that the host's drift cancels: every
rank at once runs the DDP model, the DDP model under no_sync() and the bare
module, then each rank the bare module alone; each rank's medians of the host
walls and the GPU time, and a CPU profile of DDP and of the bare module, one
ddpsplit-NET-bB-PREC.json per configuration (tools/eager_profile.py
--ddp-split takes the ranks' spread from them).

--allreduce: torch.distributed all-reduce (NCCL backend, float32 sum, in
place) of every size from --min-bytes to --max-bytes (x --step), timed as
nccl-tests does: per size --warmup operations, a barrier, --iters
operations back to back on the host clock until the GPU is done, divided by
--iters, averaged over the ranks; algbw = S / t, busbw = algbw x 2(n-1)/n.

Needs torch and torchvision (only on the GPU machine); nothing of cnnperf's
build, tests or predictions depends on it.
"""
import argparse
import contextlib
import datetime
import functools
import json
import os
import platform
import socket
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# torchvision constructors and the arguments that make them the networks of
# networks/*.json (their "source" fields); lenet5 is defined below.
TORCHVISION = {
    "alexnet": {}, "vgg11": {}, "vgg16": {}, "vgg19": {},
    "resnet18": {}, "resnet34": {}, "resnet50": {}, "resnet101": {}, "resnet152": {},
    "googlenet": {"aux_logits": False, "init_weights": False},
    "inception_v3": {"aux_logits": False, "init_weights": False},
    "mobilenet_v2": {}, "squeezenet1_1": {}, "densenet121": {},
    # session 27: networks no validation run had used
    "vgg13": {}, "resnext50_32x4d": {}, "wide_resnet50_2": {}, "densenet169": {}, "mnasnet1_0": {},
}
NETWORKS = sorted(TORCHVISION) + ["lenet5"]
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")


def train_step(torch, dev, model, opt, loss_fn, x_host, y_host, amp, scaler=None, ctx=None):
    """One training iteration as every timed PyTorch run here issues it: the pinned batch and labels copied in,
    zero_grad(set_to_none=True), forward and loss under autocast (amp None: off), loss.backward() (inside ctx
    with the forward, e.g. DDP's no_sync()), the optimizer's step (through scaler where given). Returns the
    host's perf_counter at its start, after the loss, after backward and after the step: the host_wall_ms
    phases."""
    t0 = time.perf_counter()
    x = x_host.to(dev, non_blocking=True)
    y = y_host.to(dev, non_blocking=True)
    opt.zero_grad(set_to_none=True)
    with ctx if ctx is not None else contextlib.nullcontext():
        with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
            loss = loss_fn(model(x), y)
        t1 = time.perf_counter()
        (scaler.scale(loss) if scaler else loss).backward()
    t2 = time.perf_counter()
    if scaler:
        scaler.step(opt)
        scaler.update()
    else:
        opt.step()
    return t0, t1, t2, time.perf_counter()


def quantile(values, q):
    """Linear interpolation between order statistics, as cnnperf-measure."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    if lo >= len(v) - 1:
        return v[-1]
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo])


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json(path, obj):
    """Atomically: a temporary file beside the target, renamed over it."""
    text = json.dumps(obj, indent=2) + "\n"
    if path in (None, "-"):
        sys.stdout.write(text)
        return
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def is_network_file(name):
    """A cnnperf-network/1 file (a layer microbenchmark, a user's network) rather than a built-in name."""
    return name.endswith(".json")


def network_tag(name):
    """The name in output files: a network file's base name without .json."""
    return os.path.basename(name)[:-len(".json")] if is_network_file(name) else name


def cnnperf_program():
    """The cnnperf program that expands a network file (the GPU machine's build-gpu/, else build/, or $CNNPERF)."""
    for path in (os.environ.get("CNNPERF"), os.path.join(REPO, "build-gpu", "cnnperf"),
                 os.path.join(REPO, "build", "cnnperf")):
        if path and os.access(path, os.X_OK):
            return path
    raise SystemExit("torch_bench: a network file needs the cnnperf program: build it (cmake --build build) "
                     "or set CNNPERF")


@functools.lru_cache(maxsize=None)
def network_layers(path, cnnperf=None):
    """A network (a file, or a built-in name) as cnnperf expands it (`cnnperf layers --format json`: every layer
    with the layers it reads, their shapes and its hyper-parameters), so that PyTorch runs what cnnperf predicts,
    block templates and repeats included, without a second reader of the format. Once per network: callers
    share the result and must not change it. cnnperf: the program (default cnnperf_program())."""
    run = subprocess.run([cnnperf or cnnperf_program(), "layers", "--network", path, "--format", "json"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"torch_bench: {path}: {run.stderr.strip() or 'cnnperf layers failed'}")
    return json.loads(run.stdout)


def dims(text):
    """'64x56x56' -> (64, 56, 56)"""
    return tuple(int(v) for v in text.split("x"))


# Layer kinds a network file may use, as PyTorch modules (softmax: the loss, which the training step applies).
FILE_KINDS = ("conv", "fc", "batchnorm", "relu", "relu6", "maxpool", "avgpool", "global_avgpool",
              "adaptive_avgpool", "lrn", "dropout", "softmax", "concat", "add", "flatten")


def layer_plan(net, origin):
    """The layers of an expanded network (network_layers) as steps for a module: per layer its kind, the
    indices of the steps it reads (-1: the input), whether its input is flat (after a flatten or fc), and
    after which step each output may be dropped. Pure Python, so it can be checked without torch."""
    index, steps, flat = {"data": -1}, [], {-1: False}
    for i, layer in enumerate(net["layers"]):
        kind, name = layer["kind"], layer["name"]
        if kind not in FILE_KINDS:
            raise SystemExit(f"torch_bench: {origin}: layer '{name}': kind '{kind}' has no PyTorch module here")
        if kind == "softmax" and i != len(net["layers"]) - 1:
            raise SystemExit(f"torch_bench: {origin}: layer '{name}': softmax (the loss) must be the last layer")
        reads = [index[r] for r in layer["inputs"]]
        is_flat = flat[reads[0]] or kind in ("flatten", "fc")
        steps.append({"name": name, "kind": kind, "reads": reads, "flat_in": flat[reads[0]],
                      "in": [dims(s) for s in layer["input_shapes"]], "out": dims(layer["output"]),
                      "hyper": layer.get("hyper", {})})
        index[name], flat[i] = i, is_flat
    last_use = {}
    for i, s in enumerate(steps):
        for r in s["reads"]:
            last_use[r] = i
    for i, s in enumerate(steps):
        s["drop_after"] = [r for r in s["reads"] if r >= 0 and last_use[r] == i]
    return steps


def module_for(nn, s):
    """The PyTorch module of one step of layer_plan (None: the step is an operation on its inputs)."""
    h, kind, cin = s["hyper"], s["kind"], s["in"][0][0]
    if kind == "conv":
        return nn.Conv2d(cin, h["out"], tuple(h["kernel"]), tuple(h["stride"]), tuple(h["pad"]),
                         tuple(h["dilation"]), h["groups"], bias=h["bias"])
    if kind == "fc":
        c, hh, ww = s["in"][0]
        return nn.Linear(c * hh * ww, h["out"], bias=h["bias"])
    if kind == "batchnorm":
        return nn.BatchNorm1d(cin) if s["flat_in"] else nn.BatchNorm2d(cin)
    if kind == "maxpool":
        return nn.MaxPool2d(tuple(h["kernel"]), tuple(h["stride"]), tuple(h["pad"]), tuple(h["dilation"]),
                            ceil_mode=h["ceil_mode"])
    if kind == "avgpool":
        return nn.AvgPool2d(tuple(h["kernel"]), tuple(h["stride"]), tuple(h["pad"]), ceil_mode=h["ceil_mode"])
    if kind in ("global_avgpool", "adaptive_avgpool"):
        return nn.AdaptiveAvgPool2d(s["out"][1:])
    return {"relu": lambda: nn.ReLU(), "relu6": lambda: nn.ReLU6(),
            "lrn": lambda: nn.LocalResponseNorm(h["size"], h["alpha"], h["beta"], h["k"]),
            "dropout": lambda: nn.Dropout(h["p"])}.get(kind, lambda: None)()


def run_step(torch, s, m, xs):
    """One step of layer_plan on its inputs xs, m its module (module_for, or nn.Identity)."""
    kind = s["kind"]
    if kind == "concat":
        return torch.cat(xs, 1)
    if kind == "add":
        y = xs[0]
        for t in xs[1:]:
            y = y + t
        return y
    if kind == "flatten":
        return torch.flatten(xs[0], 1)
    if kind == "fc":
        return m(torch.flatten(xs[0], 1))
    if kind == "softmax":
        return xs[0]  # the logits: cross-entropy is the loss
    return m(xs[0])


def build_file_model(torch, path):
    """A network file as a PyTorch module running cnnperf's layers in order; it returns the logits (the input of
    the closing softmax, which the training step's cross-entropy stands for)."""
    nn = torch.nn
    steps = layer_plan(network_layers(path), path)

    class FileNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([module_for(nn, s) or nn.Identity() for s in steps])

        def forward(self, x):
            out = {-1: x}
            y = x
            for i, (s, m) in enumerate(zip(steps, self.layers)):
                y = run_step(torch, s, m, [out[r] for r in s["reads"]])
                for r in s["drop_after"]:
                    del out[r]
                out[i] = y
            return y

    return FileNetwork()


def network_shape(name):
    """(channels, height, width, classes) from networks/NAME.json when present, or from a network file."""
    if is_network_file(name):
        net = network_layers(name)
        c, h, w = dims(net["input"])
        last = [layer for layer in net["layers"] if layer["kind"] in ("fc", "conv")][-1]
        return c, h, w, last["hyper"]["out"]
    c, h, w, classes = (1, 32, 32, 10) if name == "lenet5" else (3, 299, 299, 1000) if name == "inception_v3" \
        else (3, 224, 224, 1000)
    path = os.path.join(REPO, "networks", name + ".json")
    if os.path.exists(path):
        with open(path) as f:
            net = json.load(f)
        inp = net["input"]
        c, h, w = inp["channels"], inp["height"], inp["width"]
        last = [layer for layer in net["layers"] if layer.get("kind") in ("fc", "conv")][-1]
        classes = last["out"]
    return c, h, w, classes


def driver_version():
    try:
        with open("/proc/driver/nvidia/version") as f:
            for tok in f.readline().split():
                if tok[:1].isdigit() and "." in tok:
                    return tok
    except OSError:
        pass
    return "unknown"


def provenance(torch, extra):
    import torchvision
    p = {
        "command": " ".join(sys.argv),
        "date_utc": utc_now(),
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        # none where TORCH_BENCH_DEVICE ran it off the GPU (a check of the script on a machine without one)
        "gpu_name": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
        "gpu_compute_capability": "%d.%d" % torch.cuda.get_device_capability() if torch.cuda.is_available() else None,
        "driver_version": driver_version(),
        "git_commit": os.environ.get("CNNPERF_GIT_COMMIT", "unknown"),
    }
    p.update(extra)
    return p


def device_id(gpu_name):
    """The short id cnnperf predict uses, as measure/provenance.c derives it."""
    flat = "".join(gpu_name.lower().split())
    if "gh200" not in flat:
        for i in ("h200", "h100", "a100", "v100", "gtx1080ti", "gtx1080"):
            if i in flat:
                return i
    return gpu_name


def mixed_block(nn, i):
    """Block i of a chain of conv + BN + ReLU blocks as networks chain them, channels and filter sizes changing
    block to block (8, 16, 8, 24 channels; 3x3 and 1x1 in turn): 3 parameter tensors and 1 BN each. The eager,
    DDP and host-share microbenchmarks all time chains of these."""
    ch = [8, 16, 8, 24]
    a, b, f = ch[i % 4], ch[(i + 1) % 4], 3 if i % 2 == 0 else 1
    return nn.Sequential(nn.Conv2d(a, b, f, padding=f // 2, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True))


def build_model(torch, name, classes):
    if is_network_file(name):
        return build_file_model(torch, name)
    if name == "lenet5":  # networks/lenet5.json
        nn = torch.nn
        return nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, classes))
    import torchvision
    ctor = getattr(torchvision.models, name)
    try:
        return ctor(weights=None, num_classes=classes, **TORCHVISION[name])
    except TypeError:  # torchvision before 0.13
        return ctor(pretrained=False, num_classes=classes, **TORCHVISION[name])


def set_precision(torch, precision):
    """cuDNN and cuBLAS settings of a training run in `precision`, as every
    PyTorch run of this project makes them; returns autocast's dtype (None:
    no autocast)."""
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True
    return {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)


def host_probe(torch, x, w):
    """How fast this process's host issues work right now, with a fixed workload that does not depend on the
    network (measure/host_probe.h is cnnperf-measure's): op_us an eager operator (conv2d on 1x16x8x8 with 16
    3x3 filters, relu, add in turn, 32 rounds), cpu_ns a step of a fixed Python integer loop; medians of 7."""
    reps, rounds, steps = 7, 32, 20000
    f = torch.nn.functional
    op, cpu = [], []

    def sync():
        if x.is_cuda:
            torch.cuda.synchronize()

    for _ in range(reps):
        sync()
        t0 = time.perf_counter()
        for _ in range(rounds):
            y = torch.relu(f.conv2d(x, w, padding=1)) + x
        op.append((time.perf_counter() - t0) * 1e6 / (3 * rounds))
        del y
        v = 0x9E3779B9
        t0 = time.perf_counter()
        for _ in range(steps):
            v = (v * 1103515245 + 12345) & 0xFFFFFFFF
        cpu.append((time.perf_counter() - t0) * 1e9 / steps)
    sync()
    return {"op_us": quantile(op, 0.5), "cpu_ns": quantile(cpu, 0.5)}


def bench_network(torch, args, name, precision, ddp=None):
    """ddp: (torch.distributed, rank, world size) under torchrun --ddp, else None."""
    dev = torch.device("cuda")
    amp = set_precision(torch, precision)
    if args.benchmark_limit is not None and hasattr(torch.backends.cudnn, "benchmark_limit"):
        # 0: time every cuDNN engine configuration, as cudnnFind (cnnperf-measure) does
        torch.backends.cudnn.benchmark_limit = args.benchmark_limit
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format

    c, h, w, classes = network_shape(name)
    torch.manual_seed(1)
    model = build_model(torch, name, classes).to(dev, memory_format=fmt).train()
    if ddp:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    scaler = None
    if args.grad_scaler and amp is torch.float16:
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()
    # The synthetic batch in pinned memory, copied every iteration (t_loading).
    x_host = torch.rand(args.batch, c, h, w).contiguous(memory_format=fmt).pin_memory()
    y_host = (torch.arange(args.batch) % classes).pin_memory()

    host = []  # per iteration: the host's wall time issuing forward (with loading and the loss), backward, step

    def iteration():
        t0, t1, t2, t3 = train_step(torch, dev, model, opt, loss_fn, x_host, y_host, amp, scaler)
        host.append((1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2)))

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    mib = 1 << 20
    torch.cuda.reset_peak_memory_stats()
    warm_peak = None
    # cudaMalloc/cudaFree in the timed iterations synchronise the device: the host then waits for the GPU
    alloc_keys = ("num_device_alloc", "num_device_free", "num_alloc_retries")
    alloc_at = {}
    # the host probe's two tiny tensors, made before the warm-up so the timed iterations' memory holds them
    probe_x = torch.zeros(1, 16, 8, 8, device=dev)
    probe_w = torch.zeros(16, 16, 3, 3, device=dev)
    torch.nn.functional.conv2d(probe_x, probe_w, padding=1)  # cudnn.benchmark's trials for its shape: not in the probe
    probe = {}
    for i in range(args.warmup + args.iters):
        if i == args.warmup:  # the warm-up's peak holds cudnn.benchmark's trials; the timed ones are training's own
            probe["before"] = host_probe(torch, probe_x, probe_w)
            warm_peak = (torch.cuda.max_memory_allocated() / mib, torch.cuda.max_memory_reserved() / mib)
            torch.cuda.reset_peak_memory_stats()
            alloc_at = torch.cuda.memory_stats()
        start.record()
        iteration()
        end.record()
        end.synchronize()
        if i >= args.warmup:
            times.append(start.elapsed_time(end))
    probe["after"] = host_probe(torch, probe_x, probe_w)
    del probe_x, probe_w
    alloc_end = torch.cuda.memory_stats()
    allocator = {k: alloc_end[k] - alloc_at[k] for k in alloc_keys if k in alloc_end and k in alloc_at}
    free_b, total_b = torch.cuda.mem_get_info()
    memory = {
        "peak_allocated_mib": torch.cuda.max_memory_allocated() / mib,
        "peak_reserved_mib": torch.cuda.max_memory_reserved() / mib,
        "warmup_peak_allocated_mib": warm_peak[0] if warm_peak else None,
        "warmup_peak_reserved_mib": warm_peak[1] if warm_peak else None,
        "used_mib": (total_b - free_b) / mib,
        "timed_allocator": allocator,
        "note": "peak_*: torch.cuda.max_memory_allocated/reserved over the timed iterations (the warm-up's, "
                "cudnn.benchmark's trials included, in warmup_peak_*); used_mib: cudaMemGetInfo's total - free "
                "after them (CUDA context and PyTorch's kernels included); timed_allocator: the caching "
                "allocator's cudaMalloc and cudaFree calls and retries during the timed iterations (each "
                "cudaFree waits for the device)",
    }
    med, p10, p90 = quantile(times, 0.5), quantile(times, 0.1), quantile(times, 0.9)
    timed = host[args.warmup:]
    host_ms = {part: quantile([h[i] for h in timed], 0.5) for i, part in enumerate(("forward", "backward", "step"))}
    host_ms["iteration"] = quantile([sum(h) for h in timed], 0.5)
    ranks = None
    if ddp:
        dist, rank, world = ddp
        mine = {"rank": rank, "hostname": socket.gethostname(), "gpu": torch.cuda.current_device(),
                "gpu_name": torch.cuda.get_device_name(), "iteration_ms": med, "iteration_p10_ms": p10,
                "iteration_p90_ms": p90, "host_wall_ms": host_ms, "host_probe": probe}
        ranks = [None] * world
        dist.all_gather_object(ranks, mine)
        slowest = max(ranks, key=lambda r: r["iteration_ms"])
        med, p10, p90 = slowest["iteration_ms"], slowest["iteration_p10_ms"], slowest["iteration_p90_ms"]
    gpu = torch.cuda.get_device_name()
    result = {
        "schema": "cnnperf-result/1",
        "source": "pytorch",
        "network": name,
        "device": device_id(gpu),
        "device_name": gpu,
        "batch": args.batch,
        "precision": precision,
        "memory_format": "channels_last" if args.channels_last else "nchw",
        "gpus": ddp[2] if ddp else 1,
        "iteration_ms": med,
        "iteration_p10_ms": p10,
        "iteration_p90_ms": p90,
        "images_per_s": args.batch * (ddp[2] if ddp else 1) / (med * 1e-3),
        "iterations_ms": times,
        "host_wall_ms": host_ms,
        "host_probe": probe,
        "memory": memory,
        "provenance": provenance(torch, {
            "warmup_iterations": args.warmup,
            "timed_iterations": args.iters,
            "cudnn_benchmark": True,
            "cudnn_benchmark_limit": getattr(torch.backends.cudnn, "benchmark_limit", None),
            "allow_tf32": torch.backends.cudnn.allow_tf32,
            "autocast": str(amp).replace("torch.", "") if amp else "off",
            "grad_scaler": scaler is not None,
            "sgd_lr": 0.01, "sgd_momentum": 0.9,
            "input": [c, h, w], "classes": classes,
            # the model's learnable parameters: networks/<name>.json must give the same count
            "parameters": sum(p.numel() for p in model.parameters()),
            "timing": "CUDA events around each iteration (pinned H2D copy, forward, cross-entropy, backward, "
                      "SGD step), synchronised after each; median, p10, p90 over the timed iterations; "
                      "host_wall_ms: the host's wall time (perf_counter) of the forward with loading and "
                      "the loss, of loss.backward(), of the step, medians (where the GPU's queue fills, "
                      "the host waits and these hold GPU time)" +
                      ("; iteration times the slowest rank's, host_wall_ms rank 0's (each rank's in ranks)" if ddp else "") +
                      "; host_probe: host_probe()'s fixed workloads just before and just after the timed iterations "
                      "(its two tiny tensors held through them)",
        }),
    }
    if ddp:
        result["comm"] = "nccl"
        result["overlap"] = True
        result["ranks"] = [dict(r, role="worker") for r in ranks]
        v = torch.cuda.nccl.version()
        result["provenance"].update({
            "hostnames": ",".join(r["hostname"] for r in ranks),
            "nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v),
            "environment": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
            "exchange": {"bucket_mb": 25, "note": "torch.nn.parallel.DistributedDataParallel defaults: 25 MB "
                         "buckets (bucket_cap_mb), the first 1 MB, all-reduced by NCCL during backward; "
                         "gradients averaged"},
        })
    del model, opt, x_host, y_host
    torch.cuda.empty_cache()
    return result


def run_networks(args):
    import torch
    if not torch.cuda.is_available():
        print("torch_bench: skipped: no GPU visible to PyTorch", file=sys.stderr)
        return 77
    ddp = None
    if args.ddp:
        import torch.distributed as dist
        if "RANK" not in os.environ:
            print("torch_bench: --ddp runs under torchrun, e.g. torchrun --nproc-per-node 2 tools/torch_bench.py "
                  "--ddp --network resnet50 --out-dir DIR", file=sys.stderr)
            return 2
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
        dist.init_process_group("nccl")
        ddp = (dist, dist.get_rank(), dist.get_world_size())
    nets, precs = args.network.split(","), args.precision.split(",")
    if len(nets) * len(precs) * len(str(args.batch).split(",")) > 1 and not args.out_dir and args.output:
        print("torch_bench: several configurations: use --out-dir, not -o", file=sys.stderr)
        return 2
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
    configs = [(n, p, int(b)) for n in nets for p in precs for b in str(args.batch).split(",")]
    for name, prec, args.batch in configs:
        r = bench_network(torch, args, name, prec, ddp)
        tag = f"{network_tag(name)}-b{args.batch}-{prec}" + ("-cl" if args.channels_last else "")
        if ddp:
            tag = f"ddp{ddp[2]}-{tag}"
            if ddp[1] != 0:
                continue  # rank 0 writes
        print(f"torch_bench: {tag} on {r['device_name']}: {r['iteration_ms']:.3f} ms median "
              f"(p10 {r['iteration_p10_ms']:.3f}, p90 {r['iteration_p90_ms']:.3f}), "
              f"{r['images_per_s']:.1f} images/s", file=sys.stderr)
        write_json(os.path.join(args.out_dir, f"torch-{tag}.json") if args.out_dir else args.output, r)
    if ddp:
        ddp[0].destroy_process_group()
    return 0


def ddp_overhead(args):
    """What DistributedDataParallel adds to the host's step, per parameter tensor (its autograd hook and the
    gradient's copy into a bucket), per batch-norm layer (its buffers broadcast before each forward, coalesced)
    and per step: chains of K tiny modules with and without DDP, forward + backward, K = 64 and 16;
    per tensor = the difference of the two chains' differences / 48 (one-tensor modules), per BN the same with
    BN modules less its two tensors, per step what is left at K = 16. Rank 0 writes -o FILE."""
    ranks = torchrun_init("--ddp-overhead -o FILE")
    if ranks is None:
        return 2
    torch, dist, local = ranks
    nn, dev = torch.nn, torch.device("cuda")

    class Scale(nn.Module):  # one parameter tensor, one element-wise op each way
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(8, 1, 1))

        def forward(self, x):
            return x * self.w

    def block(i):
        return mixed_block(nn, i)

    makers = {"param": lambda i: Scale(), "bn": lambda i: nn.BatchNorm2d(8), "block": block, "block_cl": block}

    def wall(kind, k, ddp, reps=30):
        fmt = torch.channels_last if kind == "block_cl" else torch.contiguous_format
        model = nn.Sequential(*[makers[kind](i) for i in range(k)]).to(dev, memory_format=fmt).train()
        if ddp:
            model = nn.parallel.DistributedDataParallel(model, device_ids=[local])
        x = torch.rand(2, 8, 8, 8, device=dev).contiguous(memory_format=fmt).requires_grad_(True)
        for _ in range(3):
            model(x).float().sum().backward()
        torch.cuda.synchronize()
        dist.barrier(device_ids=[local])
        t0 = time.perf_counter()
        for _ in range(reps):
            model(x).float().sum().backward()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / reps * 1e6

    def per_module(kind, long=64, short=16):
        samples, fixed, plain = [], [], []
        for _ in range(5):
            dl, ds = wall(kind, long, True), wall(kind, short, True)
            pl, ps = wall(kind, long, False), wall(kind, short, False)
            samples.append(((dl - ds) - (pl - ps)) / (long - short))
            fixed.append((ds - ps) - short * samples[-1])
            plain.append((pl - ps) / (long - short))
        return quantile(samples, 0.5), quantile(fixed, 0.5), quantile(plain, 0.5)

    per_param, step, _ = per_module("param")
    per_bn_module, _, _ = per_module("bn")
    out = {"schema": "cnnperf-ddp-overhead/1",
           "ddp": {"per_param_us": round(max(per_param, 0.0), 2),
                   "per_bn_us": round(max(per_bn_module - 2 * per_param, 0.0), 2),
                   "per_step_us": round(max(step, 0.0), 2)}}
    # Real layers against the one-tensor modules: what DDP adds to a conv + BN + ReLU block of changing shapes
    # (NCHW and channels-last), beside what the per-tensor and per-BN costs above say it adds (3 tensors, 1 BN),
    # and the block's own forward + backward without DDP (under torchrun, its peer measuring the same)
    expect = 3 * out["ddp"]["per_param_us"] + out["ddp"]["per_bn_us"]
    blocks = {}
    for kind in ("block", "block_cl"):
        extra, _, alone = per_module(kind, 16, 4)
        blocks[kind] = {"ddp_us": round(extra, 2), "plain_us": round(alone, 2),
                        "ratio_to_tensor_costs": round(extra / expect, 3) if expect > 0 else None}
    out["mixed_block"] = blocks
    print(f"torch_bench: DDP over {dist.get_world_size()} GPUs: {out['ddp']}; conv+BN+ReLU blocks {blocks}",
          file=sys.stderr)
    v = torch.cuda.nccl.version()
    out["provenance"] = provenance(torch, {
        "world_size": dist.get_world_size(),
        "nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v),
        "method": "host wall time of forward + backward of chains of 64 and 16 one-tensor modules (x * w) and "
                  "of BatchNorm2d modules, batch 2, 8x8x8, with and without DistributedDataParallel (defaults: "
                  "25 MB buckets, broadcast_buffers); per tensor = ((DDP64 - DDP16) - (plain64 - plain16)) / 48, "
                  "per BN the same less two tensors, per step = (DDP16 - plain16) - 16 x per tensor; medians of 5; "
                  "mixed_block: conv + BN + ReLU blocks of changing shapes (batch 2, 8x8), chains of 16 and 4, "
                  "the same differences / 12 (ddp_us), the plain chains' / 12 (plain_us)"})
    if dist.get_rank() == 0:
        write_json(args.output, out)
    dist.destroy_process_group()
    return 0


def op_counts(args):
    """One training step of each network under torch.profiler (CPU activity only): how many times each
    ATen operator and autograd node ran, forward and backward together. Eager mode's structure (one
    operator per layer and pass, autograd's gradient sums, the optimizer's foreach kernels) is checked
    against these counts; no time is read."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    if not torch.cuda.is_available():
        print("torch_bench: skipped: no GPU visible to PyTorch", file=sys.stderr)
        return 77
    dev = torch.device("cuda")
    out = {"schema": "cnnperf-op-counts/1", "networks": {}}
    for name in args.network.split(","):
        set_precision(torch, "fp32")
        c, h, w, classes = network_shape(name)
        torch.manual_seed(1)
        model = build_model(torch, name, classes).to(dev).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.rand(2, c, h, w, device=dev)
        y = torch.arange(2, device=dev) % classes

        def step():
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

        for _ in range(2):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            step()
            torch.cuda.synchronize()
        counts = {e.key: e.count for e in prof.key_averages()}
        out["networks"][name] = {"ops": dict(sorted(counts.items()))}
        print(f"torch_bench: {name}: aten::add {counts.get('aten::add', 0)}, aten::add_ "
              f"{counts.get('aten::add_', 0)}, aten::cat {counts.get('aten::cat', 0)}, "
              f"aten::cudnn_convolution {counts.get('aten::cudnn_convolution', 0)}", file=sys.stderr)
        del model, opt
        torch.cuda.empty_cache()
    out["provenance"] = provenance(torch, {"method": "torch.profiler key_averages() counts of one SGD step "
                                                     "(batch 2, fp32) after two untimed steps"})
    write_json(args.output, out)
    return 0


def iteration_fixed(torch, nn, dev, conv, sync, reps=40, warmup=5, samples=5):
    """What a training iteration costs the host once, whatever its network: the wall of each phase of
    bench_network()'s iteration() -- the input copies, zero_grad, autocast, the model and loss (forward),
    loss.backward() (backward), opt.step() (step), with events around it and a synchronisation after it as
    there -- at K = 0 modules, by the line through a chain of K = 4 and of K = 16 conv modules (8 channels, 8x8, batch 1)
    with a Flatten + Linear(512, 10) head and CrossEntropyLoss. The per-operator chains take differences of
    two lengths, which removes this part; a model charges the head's operators from its tables and the
    rest of these walls once per iteration. Median of `samples` lines, each phase's wall the median of
    `reps` iterations."""
    cuda = dev.type == "cuda"

    def walls(k, autocast):
        torch.manual_seed(1)
        model = nn.Sequential(*[conv() for _ in range(k)], nn.Flatten(), nn.Linear(512, 10)).to(dev).train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        x_host, y_host = torch.rand(1, 8, 8, 8), torch.zeros(1, dtype=torch.long)
        if cuda:
            x_host, y_host = x_host.pin_memory(), y_host.pin_memory()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        phases = []
        for i in range(warmup + reps):
            if cuda:
                start.record()
            t0, t1, t2, t3 = train_step(torch, dev, model, opt, loss_fn, x_host, y_host,
                                        torch.float16 if autocast else None)
            if cuda:
                end.record()
                end.synchronize()
            else:
                sync()
            if i >= warmup:
                phases.append((t1 - t0, t2 - t1, t3 - t2))
        return [quantile([p[j] for p in phases], 0.5) * 1e6 for j in range(3)]

    out = {}
    for autocast, prefix in ((False, ""), (True, "autocast_")):
        lines = []
        for _ in range(samples):
            short, long = walls(4, autocast), walls(16, autocast)
            lines.append([(16 * s - 4 * l) / 12 for s, l in zip(short, long)])
        for j, phase in enumerate(("forward", "backward", "step")):
            out[prefix + phase] = round(quantile([line[j] for line in lines], 0.5), 2)
    out["head"] = ("Flatten + Linear(512, 10) and CrossEntropyLoss at batch 1 (8x8x8 input), SGD(momentum 0.9) "
                   "over the Linear's two tensors; the walls include the two input copies' calls")
    return out


def eager_overhead(args):
    """Host cost of one eager operator, per layer kind and pass, and of the
    optimizer step: what cnnperf predict --mode eager needs (model/eager.c).

    Each kind runs as a chain of K identical tiny modules (batch 1, 8
    channels, 8x8) whose kernels take a few microseconds, so the host is the
    bottleneck; the cost per operator is the difference between K = 64 and
    K = 16 chains divided by 48, which removes the fixed per-iteration costs.
    Backward is (forward + backward) minus forward. The optimizer's costs come
    the same way from torch.optim.SGD(momentum 0.9) over 160 and 16 tensors."""
    import torch
    if not torch.cuda.is_available() and "TORCH_BENCH_DEVICE" not in os.environ:
        print("torch_bench: skipped: no GPU visible to PyTorch", file=sys.stderr)
        return 77
    # Under torchrun every rank measures its own GPU at the same time, with NCCL's process group up, as a
    # DDP job's processes share their host: what an operator costs each of them (rank r writes -o's name
    # with -rank<r> before .json).
    dist = None
    if "RANK" in os.environ:
        if not args.output or args.output == "-":
            print("torch_bench: --eager-overhead under torchrun writes one file per rank: give -o FILE", file=sys.stderr)
            return 2
        torch, dist, _ = torchrun_init("--eager-overhead -o FILE")
        dist.barrier()
    nn, dev = torch.nn, torch.device(os.environ.get("TORCH_BENCH_DEVICE", "cuda"))
    torch.backends.cudnn.benchmark = True

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    class AddConst(nn.Module):  # a residual add's cost: one binary element-wise op
        def forward(self, x):
            return x + x

    class AddBuffer(nn.Module):  # the same add with a constant: its backward sums no two gradients of x
        def __init__(self):
            super().__init__()
            self.register_buffer("c", torch.zeros(1, 8, 8, 8))

        def forward(self, x):
            return x + self.c

    makers = {
        "conv": lambda: nn.Conv2d(8, 8, 3, padding=1, bias=False),
        "batchnorm": lambda: nn.BatchNorm2d(8),
        "relu": nn.ReLU,  # not in place: the chain's input is a leaf that requires grad
        "pool": lambda: nn.MaxPool2d(3, stride=1, padding=1),
        "add": AddConst,
        "fc": lambda: nn.Linear(512, 512),
        "add_buffer": AddBuffer,  # not a table key: for grad_accumulate below
    }

    def mixed(k):  # conv, BN, ReLU blocks as networks chain them: channels and filters change block to block
        return nn.Sequential(*[m for i in range(k) for m in mixed_block(nn, i)])  # flat, as measured since session 22

    def per_op(kind, backward, autocast):
        def chain(k):
            if kind == "block":
                return mixed(k).to(dev).train()
            return nn.Sequential(*[makers[kind]() for _ in range(k)]).to(dev).train()

        def wall(model, reps):
            shape = (1, 512) if kind == "fc" else (1, 8, 8, 8)
            x = torch.rand(*shape, device=dev, requires_grad=True)
            for _ in range(3):
                with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
                    y = model(x).float().sum()
                if backward:
                    y.backward()
            sync()
            t0 = time.perf_counter()
            for _ in range(reps):
                with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
                    y = model(x).float().sum()
                if backward:
                    y.backward()
            sync()
            return (time.perf_counter() - t0) / reps * 1e6

        reps, samples = 30, []
        long_chain, short_chain = chain(64), chain(16)
        for _ in range(5):
            samples.append((wall(long_chain, reps) - wall(short_chain, reps)) / 48)
        return quantile(samples, 0.5)

    out = {"schema": "cnnperf-eager-overhead/1", "forward_op_us": {}, "backward_op_us": {},
           "autocast_forward_op_us": {}, "autocast_backward_op_us": {}}
    # the host's speed as the runs' host_probe measures it, before and after the chains: what a run's own
    # probe is set against
    probe_x, probe_w = torch.zeros(1, 16, 8, 8, device=dev), torch.zeros(16, 16, 3, 3, device=dev)
    out["host_probe"] = {"before": host_probe(torch, probe_x, probe_w)}
    for kind in makers:
        if kind == "add_buffer":
            continue
        f = per_op(kind, False, False)
        fb = per_op(kind, True, False)
        out["forward_op_us"][kind] = round(f, 2)
        out["backward_op_us"][kind] = round(max(fb - f, 0.0), 2)
        fa = per_op(kind, False, True)
        fba = per_op(kind, True, True)
        out["autocast_forward_op_us"][kind] = round(fa, 2)
        out["autocast_backward_op_us"][kind] = round(max(fba - fa, 0.0), 2)
        print(f"torch_bench: eager {kind:10} forward {f:7.2f} us  backward {fb - f:7.2f} us  "
              f"(autocast fp16: {fa:7.2f} / {fba - fa:7.2f})", file=sys.stderr)
    for table in ("forward_op_us", "backward_op_us", "autocast_forward_op_us", "autocast_backward_op_us"):
        vals = sorted(out[table].values())
        out[table]["default"] = vals[len(vals) // 2]
    # a conv + BN + ReLU block in a chain of changing shapes, against the three kinds' own chains: how much
    # more an operator costs among different neighbours than among its twins
    blk = {}
    for autocast, prefix in ((False, ""), (True, "autocast_")):
        f, fb = per_op("block", False, autocast), per_op("block", True, autocast)
        blk[prefix + "forward"] = round(f, 2)
        blk[prefix + "backward"] = round(max(fb - f, 0.0), 2)
        for t in ("forward", "backward"):
            twins = sum(out[prefix + t + "_op_us"][k] for k in ("conv", "batchnorm", "relu"))
            blk[prefix + t + "_ratio"] = round(blk[prefix + t] / twins, 3) if twins > 0 else None
    out["mixed_block_us"] = blk
    print(f"torch_bench: eager conv+BN+ReLU block among changing shapes: {blk}", file=sys.stderr)
    # autograd summing two gradients of one tensor (a tensor several layers read): x + x's backward sums
    # them, x + buffer's does not; the rest of the two is the same
    for autocast, table in ((False, "backward_op_us"), (True, "autocast_backward_op_us")):
        both = per_op("add", True, autocast) - per_op("add", False, autocast)
        one = per_op("add_buffer", True, autocast) - per_op("add_buffer", False, autocast)
        out[table]["grad_accumulate"] = round(max(both - one, 0.0), 2)
        print(f"torch_bench: eager gradient sum {both - one:7.2f} us (autocast {autocast})", file=sys.stderr)

    # What training calls (iteration() above): opt.step() over gradients backward made, and
    # opt.zero_grad(set_to_none=True), which only drops them. Each is timed on its own: a step needs its
    # gradients, which zero_grad(set_to_none=True) takes away, and zero_grad(set_to_none=False) -- timed
    # with the step before session 41 -- zeroes every gradient with kernels training never launches.
    def step_us(n_tensors):
        params = [torch.zeros(64, device=dev, requires_grad=True) for _ in range(n_tensors)]
        for p in params:
            p.grad = torch.ones_like(p)
        opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
        for _ in range(5):
            opt.step()
        sync()
        t0 = time.perf_counter()
        for _ in range(50):
            opt.step()
        sync()
        step = (time.perf_counter() - t0) / 50 * 1e6
        grads = [p.grad for p in params]  # what backward leaves, for zero_grad to drop: put back each time
        t0 = time.perf_counter()
        for _ in range(50):
            for p, g in zip(params, grads):
                p.grad = g
            opt.zero_grad(set_to_none=True)
        drop = (time.perf_counter() - t0) / 50 * 1e6
        t0 = time.perf_counter()
        for _ in range(50):
            for p, g in zip(params, grads):
                p.grad = g
        return step + max(drop - (time.perf_counter() - t0) / 50 * 1e6, 0.0)

    small, large = quantile([step_us(16) for _ in range(5)], 0.5), quantile([step_us(160) for _ in range(5)], 0.5)
    per_tensor = (large - small) / 144
    # the intercept of a line through two step lengths: host noise can put it below zero, which is no fixed cost
    out["optimizer"] = {"per_step_us": round(max(small - 16 * per_tensor, 0.0), 2), "per_tensor_us": round(per_tensor, 3),
                        "kind": "torch.optim.SGD(momentum=0.9), default (foreach) implementation: step() and "
                                "zero_grad(set_to_none=True), each timed on its own"}
    print(f"torch_bench: eager optimizer step {out['optimizer']['per_step_us']:.1f} us + "
          f"{per_tensor:.3f} us per tensor", file=sys.stderr)
    out["iteration_fixed_us"] = iteration_fixed(torch, nn, dev, makers["conv"], sync)
    print(f"torch_bench: eager training iteration at K = 0: {out['iteration_fixed_us']}", file=sys.stderr)
    out["host_probe"]["after"] = host_probe(torch, probe_x, probe_w)
    out["provenance"] = provenance(torch, {
        "method": "host wall time of chains of 64 and 16 tiny modules (batch 1, 8x8x8 or 512 features), "
                  "difference / 48, median of 5 samples of 30 repetitions; backward = (forward+backward) - forward; "
                  "grad_accumulate = backward of x + x (sums two gradients of x) - backward of x + a constant; "
                  "iteration_fixed_us: a run's training iteration per phase at no layers, by the line through "
                  "chains of 4 and 16 convs with a Flatten + Linear head, median of 5 lines of 40 iterations" +
                  (f"; each of {dist.get_world_size()} torchrun ranks on its own GPU at the same time, NCCL "
                   f"process group up; this rank {dist.get_rank()}" if dist else ""),
    })
    if dist:
        out["provenance"]["world_size"] = dist.get_world_size()
        base, ext = os.path.splitext(args.output)
        write_json(f"{base}-rank{dist.get_rank()}{ext}", out)
        dist.destroy_process_group()
        return 0
    write_json(args.output, out)
    return 0


def torchrun_init(usage):
    """This rank's GPU and the NCCL process group under torchrun: (torch, torch.distributed, local rank), or
    None (said why) outside torchrun."""
    import torch
    import torch.distributed as dist
    if "RANK" not in os.environ:
        print(f"torch_bench: {usage.split()[0]} runs under torchrun, e.g. torchrun --nproc-per-node 2 "
              f"tools/torch_bench.py {usage}", file=sys.stderr)
        return None
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    return torch, dist, local


def host_share(args):
    """What sharing the host with the other ranks of a job does to an eager operator's host cost, paired so
    that the host's drift over a call cancels: rounds of (every rank at once; then each rank alone while the
    others wait in a gloo barrier, which sleeps in a socket read rather than spinning), each measurement the
    per-block host cost of conv + BN + ReLU blocks of changing shapes (chains of 16 and 4, forward +
    backward, FP32 and under autocast). ratio: each rank's median at once over its median alone, the
    median over its blocks' kinds, then the mean over the ranks. Rank 0 writes -o FILE."""
    ranks = torchrun_init("--host-share -o FILE")
    if ranks is None:
        return 2
    torch, dist, local = ranks
    nn, dev = torch.nn, torch.device("cuda")
    rank, world = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    torch.backends.cudnn.benchmark = True

    def chain(k):
        return nn.Sequential(*[m for i in range(k) for m in mixed_block(nn, i)]).to(dev).train()

    models = {16: chain(16), 4: chain(4)}
    x = torch.rand(1, 8, 8, 8, device=dev, requires_grad=True)

    def per_block(autocast, reps=30):
        t = {}
        for k, m in models.items():
            for _ in range(3):
                with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
                    y = m(x).float().sum()
                y.backward()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(reps):
                with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
                    y = m(x).float().sum()
                y.backward()
            torch.cuda.synchronize()
            t[k] = (time.perf_counter() - t0) / reps * 1e6
        return (t[16] - t[4]) / 12

    kinds = {"fp32": False, "autocast": True}
    both = {k: [] for k in kinds}
    alone = {k: [] for k in kinds}
    for _ in range(9):
        for name, ac in kinds.items():
            dist.barrier(group=gloo)
            both[name].append(per_block(ac))
            for r in range(world):
                dist.barrier(group=gloo)
                if r == rank:
                    alone[name].append(per_block(ac))
                dist.barrier(group=gloo)
    mine = {name: {"both_us": round(quantile(both[name], 0.5), 2), "alone_us": round(quantile(alone[name], 0.5), 2)}
            for name in kinds}
    for v in mine.values():
        v["ratio"] = round(v["both_us"] / v["alone_us"], 4) if v["alone_us"] > 0 else None
    ratios = [v["ratio"] for v in mine.values() if v["ratio"]]
    mine = {"rank": rank, "kinds": mine, "ratio": round(quantile(ratios, 0.5), 4) if ratios else None}
    per_rank = [None] * world
    dist.all_gather_object(per_rank, mine, group=gloo)
    got = [r["ratio"] for r in per_rank if r["ratio"]]
    out = {"schema": "cnnperf-host-share/1", "ranks": world,
           "ratio": round(sum(got) / len(got), 4) if got else None, "per_rank": per_rank}
    print(f"torch_bench: host share over {world} ranks: {out['ratio']} ({[r['ratio'] for r in per_rank]})",
          file=sys.stderr)
    v = torch.cuda.nccl.version()
    out["provenance"] = provenance(torch, {
        "world_size": world,
        "nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v),
        "method": "per block host cost of conv + BN + ReLU blocks of changing shapes (batch 1, 8x8), chains of 16 "
                  "and 4 / 12, forward + backward, 30 repetitions, FP32 and autocast FP16; rounds of: every rank "
                  "at once, then each rank alone while the others wait in a gloo barrier; ratio = median at once / "
                  "median alone per kind, median over kinds, mean over ranks"})
    if rank == 0:
        write_json(args.output, out)
    dist.destroy_process_group()
    return 0


def ddp_split(args):
    """Where DistributedDataParallel's host time goes on a real network, paired so that the host's drift
    over a call cancels: rounds in which every rank runs K iterations of each variant at once, in turns --
    "ddp" (the DDP model), "nosync" (the DDP model under no_sync(): its forward, buffers broadcast included,
    without the gradient hooks' all-reduce), "module" (the unwrapped module, no DDP at all) -- and then
    "alone" (the unwrapped module on one rank while the others wait in a gloo barrier). Each iteration as
    bench_network times one (host wall of forward, backward and step; CUDA events, synchronised after each).
    Then a CPU-only torch.profiler table of two iterations of "ddp" and of "module" (top operators by self
    CPU time). One file per configuration, rank 0's, with every rank's medians: ddpsplit-NET-bB-PREC.json."""
    ranks = torchrun_init("--ddp-split --network N --batch B --precision P --out-dir DIR")
    if ranks is None:
        return 2
    torch, dist, local = ranks
    rank, world = dist.get_rank(), dist.get_world_size()
    gloo = dist.new_group(backend="gloo")
    dev = torch.device("cuda")
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    os.makedirs(args.out_dir, exist_ok=True)
    variants = ("ddp", "nosync", "module", "alone")
    for name in args.network.split(","):
        for prec in args.precision.split(","):
            for batch in (int(b) for b in str(args.batch).split(",")):
                amp = set_precision(torch, prec)
                c, h, w, classes = network_shape(name)
                torch.manual_seed(1)
                module = build_model(torch, name, classes).to(dev, memory_format=fmt).train()
                model = torch.nn.parallel.DistributedDataParallel(module, device_ids=[local])
                opt = torch.optim.SGD(module.parameters(), lr=0.01, momentum=0.9)
                loss_fn = torch.nn.CrossEntropyLoss()
                x_host = torch.rand(batch, c, h, w).contiguous(memory_format=fmt).pin_memory()
                y_host = (torch.arange(batch) % classes).pin_memory()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

                def iteration(variant):
                    m = module if variant in ("module", "alone") else model
                    start.record()
                    ctx = model.no_sync() if variant == "nosync" else None
                    t0, t1, t2, t3 = train_step(torch, dev, m, opt, loss_fn, x_host, y_host, amp, ctx=ctx)
                    end.record()
                    end.synchronize()
                    return (1e3 * (t1 - t0), 1e3 * (t2 - t1), 1e3 * (t3 - t2), 1e3 * (t3 - t0),
                            start.elapsed_time(end))

                for v in ("ddp",) * max(args.warmup, 2) + ("nosync", "module", "module"):
                    iteration(v)
                got = {v: [] for v in variants}
                k_iters = 3
                for r in range(args.iters):
                    turn = variants[:3][r % 3:] + variants[:3][:r % 3]
                    for v in turn:
                        dist.barrier(group=gloo)
                        got[v] += [iteration(v) for _ in range(k_iters)]
                    for rr in range(world):
                        dist.barrier(group=gloo)
                        if rr == rank:
                            got["alone"] += [iteration("alone") for _ in range(k_iters)]
                        dist.barrier(group=gloo)
                parts = ("forward_ms", "backward_ms", "step_ms", "host_ms", "gpu_ms")
                mine = {"rank": rank, "gpu": torch.cuda.current_device(),
                        "variants": {v: {p: round(quantile([t[i] for t in got[v]], 0.5), 4)
                                         for i, p in enumerate(parts)} for v in variants}}
                prof = {}
                for v in ("ddp", "module"):
                    dist.barrier(group=gloo)
                    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as pr:
                        for _ in range(2):
                            iteration(v)
                    rows = sorted(pr.key_averages(), key=lambda e: -e.self_cpu_time_total)[:40]
                    prof[v] = [{"name": e.key, "count": e.count, "self_cpu_us": round(e.self_cpu_time_total / 2, 1),
                                "cpu_us": round(e.cpu_time_total / 2, 1)} for e in rows]
                mine["profile_per_iteration"] = prof
                per_rank = [None] * world
                dist.all_gather_object(per_rank, mine, group=gloo)
                tag = f"{name}-b{batch}-{prec}" + ("-cl" if args.channels_last else "")
                if rank == 0:
                    for pr_ in per_rank:
                        print(f"torch_bench: ddp-split {tag} rank {pr_['rank']}: " + "; ".join(
                            f"{v} fwd {d['forward_ms']:.1f} bwd {d['backward_ms']:.1f} step {d['step_ms']:.1f} "
                            f"host {d['host_ms']:.1f} gpu {d['gpu_ms']:.1f}" for v, d in pr_["variants"].items()),
                            file=sys.stderr)
                    v = torch.cuda.nccl.version()
                    write_json(os.path.join(args.out_dir, f"ddpsplit-{tag}.json"), {
                        "schema": "cnnperf-ddp-split/1", "network": name, "batch": batch, "precision": prec,
                        "memory_format": "channels_last" if args.channels_last else "nchw", "ranks": world,
                        "per_rank": per_rank,
                        "provenance": provenance(torch, {
                            "world_size": world,
                            "nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v),
                            "rounds": args.iters, "iterations_per_turn": k_iters,
                            "method": "medians over rounds of K iterations of each variant by every rank at once "
                                      "(ddp, nosync, module, order rotating), then K of alone per rank while the "
                                      "others wait in a gloo barrier; each iteration synchronised; host walls by "
                                      "perf_counter, gpu_ms by CUDA events; profile: torch.profiler CPU, two "
                                      "iterations per variant, both ranks at once, per iteration"})})
                del model, module, opt
                torch.cuda.empty_cache()
    dist.destroy_process_group()
    return 0


def run_allreduce(args):
    ranks = torchrun_init("--allreduce")
    if ranks is None:
        return 2
    torch, dist, local = ranks
    rank, n = dist.get_rank(), dist.get_world_size()
    sizes, s = [], args.min_bytes
    while s <= args.max_bytes:
        sizes.append(int(s))
        s *= args.step
    if 256 << 20 not in sizes and args.min_bytes <= 256 << 20 <= args.max_bytes:
        sizes = sorted(sizes + [256 << 20])
    buf = torch.rand(max(sizes) // 4, device="cuda")
    factor = 2 * (n - 1) / n
    rows = []
    for size in sizes:
        t = buf[: max(1, size // 4)]
        for _ in range(args.warmup):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        dist.barrier(device_ids=[local])
        t0 = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        us = torch.tensor([(time.perf_counter() - t0) * 1e6 / args.iters], device="cuda", dtype=torch.float64)
        dist.all_reduce(us)
        us = us.item() / n
        algbw = t.numel() * 4 / (us * 1e3)
        rows.append({"bytes": t.numel() * 4, "time_us": us, "algbw_gbs": algbw, "busbw_gbs": algbw * factor})
    if rank == 0:
        v = torch.cuda.nccl.version()
        nccl = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
        print("# torch.distributed all_reduce (NCCL %s), float32 sum, in place, %d ranks; time_us: mean over "
              "the ranks of the mean of %d operations after %d warm-up; algbw = size/time (GB/s); "
              "busbw = algbw x 2(n-1)/n" % (nccl, n, args.iters, args.warmup))
        print("# %14s %12s %10s %10s" % ("size", "time_us", "algbw", "busbw"))
        for r in rows:
            print("  %14d %12.2f %10.2f %10.2f" % (r["bytes"], r["time_us"], r["algbw_gbs"], r["busbw_gbs"]))
        at256 = [r for r in rows if r["bytes"] == 256 << 20]
        out = {
            "schema": "cnnperf-allreduce/1",
            "source": "pytorch",
            "ranks": n,
            "datatype": "float32", "op": "sum", "in_place": True,
            "iters": args.iters, "warmup": args.warmup,
            "busbw_256mib_gbs": at256[0]["busbw_gbs"] if at256 else None,
            "sweep": rows,
            "provenance": provenance(torch, {
                "nccl": nccl,
                "backend": "nccl",
                "environment": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
                "timing": "nccl-tests all_reduce_perf method: barrier, iters all_reduce back to back, host clock "
                          "until torch.cuda.synchronize, / iters; mean over the ranks",
            }),
        }
        write_json(args.output, out)
    dist.destroy_process_group()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--network", default="resnet50",
                    help="comma-separated list of: " + ", ".join(NETWORKS) + ", or cnnperf-network/1 .json files (default resnet50)")
    ap.add_argument("--batch", default="64", help="comma-separated list of batch sizes (default 64)")
    ap.add_argument("--precision", default="fp32", help="comma-separated list of fp32, tf32, fp16, bf16")
    ap.add_argument("--channels-last", action="store_true", help="NHWC model and input (default NCHW)")
    ap.add_argument("--grad-scaler", action="store_true", help="fp16: torch.cuda.amp.GradScaler (default off)")
    ap.add_argument("--benchmark-limit", type=int, default=None,
                    help="torch.backends.cudnn.benchmark_limit: how many cuDNN engine configurations benchmark "
                         "mode times (PyTorch's default 10; 0 times all, like cudnnFind)")
    ap.add_argument("--warmup", type=int, default=None, help="untimed iterations (5; all-reduce: 5 per size)")
    ap.add_argument("--iters", type=int, default=None, help="timed iterations (20; all-reduce: 20 per size)")
    ap.add_argument("-o", "--output", help="result JSON (default standard output)")
    ap.add_argument("--out-dir", help="one torch-NET-bBATCH-PREC.json per configuration")
    ap.add_argument("--allreduce", action="store_true", help="torch.distributed all-reduce sweep (torchrun)")
    ap.add_argument("--ddp", action="store_true",
                    help="data-parallel training in DistributedDataParallel, one rank per GPU (torchrun)")
    ap.add_argument("--eager-overhead", action="store_true",
                    help="host cost per eager operator and optimizer step (cnnperf predict --mode eager)")
    ap.add_argument("--ddp-overhead", action="store_true",
                    help="under torchrun: DistributedDataParallel's host cost per parameter tensor, per BN layer "
                         "and per step (cnnperf predict --mode eager on several GPUs); -o FILE")
    ap.add_argument("--host-share", action="store_true",
                    help="under torchrun: an eager operator's host cost with every rank at work against each rank "
                         "alone, paired round by round (cnnperf's DDP operator_scale); -o FILE")
    ap.add_argument("--ddp-split", action="store_true",
                    help="under torchrun: DDP's host time on real networks, paired against the bare module "
                         "(--out-dir; --iters rounds)")
    ap.add_argument("--op-counts", action="store_true",
                    help="count the ATen operators of one training step per network (torch.profiler, batch 2, "
                         "fp32): what eager mode's operator counts are checked against")
    ap.add_argument("--min-bytes", type=int, default=8)
    ap.add_argument("--max-bytes", type=int, default=1 << 30)
    ap.add_argument("--step", type=int, default=2)
    args = ap.parse_args()
    args.warmup = 5 if args.warmup is None else args.warmup
    args.iters = 20 if args.iters is None else args.iters
    if args.allreduce:
        return run_allreduce(args)
    if args.eager_overhead:
        return eager_overhead(args)
    if args.ddp_overhead:
        return ddp_overhead(args)
    if args.host_share:
        return host_share(args)
    for name in args.network.split(","):
        if name not in NETWORKS and not is_network_file(name):
            ap.error(f"--network: unknown '{name}' (known: {', '.join(NETWORKS)}, or a cnnperf-network/1 .json file)")
        if is_network_file(name) and not os.path.exists(name):
            ap.error(f"--network: {name}: no such file")
    if args.op_counts:
        return op_counts(args)
    for p in args.precision.split(","):
        if p not in PRECISIONS:
            ap.error(f"--precision: expected fp32, tf32, fp16 or bf16, got '{p}'")
    try:
        bad_batch = any(int(b) < 1 for b in str(args.batch).split(","))
    except ValueError:
        bad_batch = True
    if bad_batch or args.iters < 1 or args.warmup < 0 or args.step < 2:
        ap.error("--batch and --iters must be positive, --warmup non-negative, --step at least 2")
    if args.ddp_split:
        if not args.out_dir:
            ap.error("--ddp-split writes one file per configuration: give --out-dir")
        return ddp_split(args)
    return run_networks(args)


if __name__ == "__main__":
    sys.exit(main())
