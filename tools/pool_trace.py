#!/usr/bin/env python3
"""pool_trace: PyTorch's own pooling kernels, layer by layer, from kernel traces of whole networks.

For each traced network (tools/kernel_trace.py --op network, NCHW), matches the max_pool2d and avg_pool2d kernels
(forward in layer order, backward in reverse) to the network's maxpool and avgpool layers and prints each layer's
traced time beside the analytic model's (`cnnperf predict --calibration none`, the layer pass with no calibration
term), with their ratios (docs/ACCURACY.md, session 57: PyTorch's pooling kernels take the same time in FP16 and
FP32, and their ratio to the model changes with the window's shape, not only with the class). Global and adaptive
average pooling are left out: PyTorch runs them as other kernels (aten::mean, aten::_adaptive_avg_pool2d).
Read calibration networks' traces only (docs/CALIBRATION.md).

  python3 tools/pool_trace.py validation/h200/torch/torchcal55/traces/kernels-torch-b128-fp16-h200.json.xz --device h200
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_eager_pool import matched_pools, read_records  # noqa: E402  (the kernels' matching to layers, shared)
from trace_compare import predict  # noqa: E402  (a traced step predicted in eager mode, shared)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+", help="cnnperf-kernel-trace/1 files (.json or .json.xz)")
    ap.add_argument("--device", default="h100")
    ap.add_argument("--cnnperf", default=os.path.join(REPO, "build", "cnnperf"))
    args = ap.parse_args()
    print(f"{'network':13} {'prec':4} {'kind':7} {'layer':20} {'output':12} {'fwd us':>7} {'model':>7} {'ratio':>5} "
          f"{'bwd us':>7} {'model':>7} {'ratio':>5}")
    for path in args.traces:
        for r in read_records(path):
            if (r.get("memory_format") or "nchw") != "nchw":
                continue
            layers = predict(args.cnnperf, args.device, r, calibration="none")[0]["layers"]
            try:
                pools = list(matched_pools(r, layers))
            except ValueError as e:
                print(f"{path}: {e}; not matched", file=sys.stderr)
                continue
            for kind, l, f, b in pools:
                mf, mb = 1e3 * l["forward_ms"], 1e3 * l["backward_data_ms"]
                print(f"{r['network']:13} {r['precision']:4} {kind:7} {l['name'][:20]:20} {l['output']:12} "
                      f"{f:7.1f} {mf:7.1f} {f / mf:5.2f} {b:7.1f} {mb:7.1f} {b / mb:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
