#!/usr/bin/env python3
"""torch_networks_check: do the PyTorch modules tools/torch_bench.py builds from
cnnperf network files run the network cnnperf predicts?

For every networks/*.json (or the files given), torch_bench.py's module built
from `cnnperf layers --format json` is checked, on the CPU, against cnnperf
and torchvision:

  parameters   the module's count equals cnnperf's (`params`) and, for the
               built-in networks, torchvision's model's (torch_bench.TORCHVISION)
  shapes       one image through the layers: every layer's output shape is
               the one cnnperf infers
  logits       the module returns (batch, classes), and a backward runs

Needs torch and torchvision (a CPU build will do) and a built cnnperf
(build/cnnperf, or $CNNPERF); exits 1 on any mismatch.

  python3 tools/torch_networks_check.py                       # the built-in networks
  python3 tools/torch_networks_check.py path/to/my_net.json   # a user's network
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_bench as tb  # noqa: E402


def shape_of(y):
    return tuple(y.shape[1:]) if y.dim() == 4 else (y.shape[1], 1, 1)


def check(torch, path):
    """Mismatches of one network file, as lines of text (none: it matches)."""
    net = tb.network_layers(path)
    steps = tb.layer_plan(net, path)
    c, h, w, classes = tb.network_shape(path)
    torch.manual_seed(1)
    model = tb.build_model(torch, path, classes)
    bad = []
    n = sum(p.numel() for p in model.parameters())
    if n != net["params"]:
        bad.append(f"parameters: module {n}, cnnperf {net['params']}")
    name = tb.network_tag(path)
    if os.path.dirname(os.path.abspath(path)) == os.path.join(tb.REPO, "networks") and name in tb.NETWORKS:
        ref = sum(p.numel() for p in tb.build_model(torch, name, classes).parameters())
        if ref != n:
            bad.append(f"parameters: module {n}, torchvision {ref}")
    model.eval()
    out = {-1: torch.rand(1, c, h, w)}
    with torch.no_grad():  # the module's own steps, one by one, to see every shape
        for i, (s, m) in enumerate(zip(steps, model.layers)):
            y = out[i] = tb.run_step(torch, s, m, [out[r] for r in s["reads"]])
            if shape_of(y) != s["out"]:
                bad.append(f"layer '{s['name']}' ({s['kind']}): PyTorch {shape_of(y)}, cnnperf {s['out']}")
    model.train()
    y = model(torch.rand(2, c, h, w))
    if tuple(y.shape) != (2, classes):
        bad.append(f"logits {tuple(y.shape)}, expected {(2, classes)}")
    y.float().sum().backward()
    return bad, n


def main():
    import torch
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(tb.REPO, "networks", "*.json")))
    failed = 0
    for path in files:
        try:
            bad, n = check(torch, path)
        except RuntimeError as e:  # shapes that do not fit together stop the forward
            bad, n = [f"PyTorch stopped: {str(e).splitlines()[0]}"], 0
        failed += bool(bad)
        print(f"torch_networks_check: {tb.network_tag(path):<20} {n:>11} parameters  "
              + ("ok" if not bad else "MISMATCH"))
        for line in bad:
            print(f"  {line}")
    print(f"torch_networks_check: {len(files) - failed} of {len(files)} networks match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
