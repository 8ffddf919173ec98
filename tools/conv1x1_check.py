#!/usr/bin/env python3
"""conv1x1_check: the model's 16-bit 1x1 convolutions against their layer
microbenchmarks through the graph API (calibration data, never the evaluation
set), the numbers rule 21 (docs/ACCURACY.md, session 47) is judged on.

--set wgrad16 (the fit: validation/layerbench-h100/wgrad16/, MODE=wgrad60) or
wgrad16b (the held-out set, MODE=wgrad60b): single 1x1 layers, each pass timed
alone by cnnperf-measure (data.tar.xz), against `cnnperf predict` (harness
mode, graph API). One line per pass with the engine cuDNN's search chose, then
the mean absolute percentage error of each pass.

  python3 tools/conv1x1_check.py --set wgrad16b
  python3 tools/conv1x1_check.py --set wgrad16 --cnnperf build-asan/cnnperf

--set tf32wide61 (session 61, validation/layerbench-h200/tf32wide61/, MODE=tf32wide61 and tf32wide61b): the same
eleven layers in TF32 on an H200 through both APIs (cnnperf-measure --layers isolated), against `cnnperf predict
--device h200 --precision tf32` with each API: which gradients past rule 42's bound cuDNN's search sends to its
transposing engines (graph API 67/71/76/68; the legacy API ran algorithm 1 throughout).

Needs the cnnperf program (--cnnperf, default build/cnnperf); reads the
committed data only, writes nothing.
"""
import argparse
import os
import re

import grouped_check as gc

PASS_CALLS = {"forward_ms": "fwd", "backward_data_ms": "bwd_data", "backward_weight_ms": "bwd_filter"}


def engine(note, call):
    """The engine the graph API's search chose for one call ("fwd", ...) in a cnnperf-measure conv note."""
    m = re.search(call + r" (?:engine|algo) (\d+)", note)
    return m.group(1) if m else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cnnperf", default=os.path.join(gc.REPO, "build", "cnnperf"))
    ap.add_argument("--set", default="wgrad16", choices=["wgrad16", "wgrad16b", "tf32wide61"])
    a = ap.parse_args()
    if a.set == "tf32wide61":
        folder = os.path.join(os.path.dirname(gc.BENCH), "layerbench-h200", a.set)
        runs = [("tf32", api, ["--device", "h200", "--conv-api", api]) for api in ("graph", "legacy")]
    else:
        folder = os.path.join(gc.BENCH, a.set)
        runs = [("fp16", "graph", ["--conv-api", "graph"])]
    gc.NETS = os.path.join(folder, "nets")
    for precision, api, extra in runs:
        errors = {p: [] for p in gc.PASSES}
        print(f"{precision}, {api} API")
        print(f"{'layer, batch, pass':42} {'engine':>6} {'measured':>8} {'model':>8} {'error':>8}   (ms)")
        for net, batch, conv, note in gc.harness_runs(os.path.join(folder, "data.tar.xz"), f"-{precision}-{api}.json"):
            model = gc.predicted_conv(a.cnnperf, net, batch, precision, extra)
            for p in gc.PASSES:
                error = (model[p] / conv[p] - 1) * 100
                errors[p].append(abs(error))
                print(f"{net.split('_', 1)[1] + f' b{batch} ' + p[:-3]:42} {engine(note, PASS_CALLS[p]):>6} "
                      f"{conv[p]:8.3f} {model[p]:8.3f} {error:+7.1f}%")
        for p, e in errors.items():
            print(f"{p[:-3]}: {sum(e) / len(e):.1f}% mean |error| over {len(e)} passes")


if __name__ == "__main__":
    main()
