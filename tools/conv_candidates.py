#!/usr/bin/env python3
"""conv_candidates: what each convolution pass's search timed, from the
`provenance.conv_candidates` of cnnperf-measure runs (measure/README.md; from
session 52), one line per layer shape and pass: every candidate (graph-API
engine, or legacy algorithm with "t" for tensor-op math) with its GPU time a
call, the winner first, and how far the runner-up (the best of another engine
or algorithm) was behind it.

A model that chooses among cuDNN's algorithms can be checked against these
times, the losers' included, rather than against the winner alone; and a
winner whose runner-up is within a few percent is a choice the search makes
on its noise (session 45's early cut, the gate's timing), which no model
should be expected to call.

With --model, each line also gives the algorithm `cnnperf predict` runs the
pass with (its JSON's per-layer "algorithms") beside the family of cuDNN's
winner, and a summary counts how often the two agree, by API, precision and
pass. The families: Winograd, FFT, and the rest (implicit GEMM, cuDNN's
weight-gradient and data-gradient engines, direct), from the graph API's
engine ids and the legacy API's algorithm numbers as docs/ACCURACY.md names
them.

  python3 tools/conv_candidates.py validation/h100/cand52/*.json*
  python3 tools/conv_candidates.py validation/h100/cand52*/*.json* --pass bwd_filter --close 5
  python3 tools/conv_candidates.py validation/h100/cand52*/*.json* --model
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

from measured_files import expand, load

PASSES = ("fwd", "bwd_data", "bwd_filter")
PREDICT_KEYS = {"fwd": "forward", "bwd_data": "backward_data", "bwd_filter": "backward_weight"}
# cuDNN's Winograd and FFT: graph-API engines (winograd_nonfused 17; FFT 3 forward, 50 data gradient by position,
# 18 weight gradient) and the legacy API's algorithm numbers per pass (cudnn_cnn.h's enums)
GRAPH_FAMILY = {17: "winograd", 3: "fft", 18: "fft", 50: "fft"}
LEGACY_FAMILY = {"fwd": {4: "fft", 5: "fft", 6: "winograd", 7: "winograd"},
                 "bwd_data": {2: "fft", 3: "fft", 4: "winograd", 5: "winograd"},
                 "bwd_filter": {2: "fft", 6: "fft", 4: "winograd", 5: "winograd"}}


def family(api, p, ident):
    """Winograd, FFT or gemm (the rest) of cuDNN's candidate `ident` ("17", "1t") for pass p."""
    i = int(ident.rstrip("t"))
    table = GRAPH_FAMILY if api == "graph" else LEGACY_FAMILY[p]
    return table.get(i, "gemm")


def model_family(algorithm):
    return algorithm if algorithm in ("winograd", "fft") else "gemm"


def predicted_algorithms(cnnperf, d, api, cache):
    """{layer: {pass key: algorithm}} of `cnnperf predict` for run d's configuration."""
    key = (d.get("network"), d.get("batch"), d.get("precision"), d.get("device"), api)
    if key not in cache:
        out = subprocess.run([cnnperf, "predict", "--network", str(key[0]), "--batch", str(key[1]), "--precision",
                              str(key[2]), "--device", str(key[3]), "--conv-api", api, "--format", "json"],
                             capture_output=True, text=True)
        layers = json.loads(out.stdout)["layers"] if out.returncode == 0 else []
        cache[key] = {l["name"]: l.get("algorithms", {}) for l in layers}
    return cache[key]


def candidates(text):
    """{pass: [(id, us, one_call)]} of one layer's record ("held" entries dropped)."""
    out = {}
    for part in text.split(";"):
        words = part.split()
        if not words or words[0] not in PASSES:
            continue
        got = []
        for w in words[1:]:
            m = re.fullmatch(r"([0-9]+t?):([0-9.]+)(~?)", w)
            if m:
                got.append((m.group(1), float(m.group(2)), m.group(3) == "~"))
        out[words[0]] = got
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="cnnperf-measure result files (.json or .json.gz; globs allowed)")
    ap.add_argument("--pass", dest="passes", nargs="+", choices=PASSES, help="only these passes")
    ap.add_argument("--close", type=float, default=0,
                    help="only passes whose runner-up is within this many percent of the winner")
    ap.add_argument("--model", action="store_true", help="beside each, the algorithm cnnperf predict runs it with")
    ap.add_argument("--cnnperf", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                      "cnnperf"))
    args = ap.parse_args()
    rows, seen, cache = [], set(), {}
    for f in expand(args.files):
        try:
            d = load(f)
        except ValueError:
            continue
        prov = d.get("provenance", {}) if isinstance(d, dict) else {}
        tried = prov.get("conv_candidates")
        if not tried:
            continue
        api = prov.get("conv_api", "legacy")
        shapes = {l["name"]: l.get("output", "?") for l in d.get("layers", [])}
        model = predicted_algorithms(args.cnnperf, d, api, cache) if args.model else {}
        for layer, text in tried.items():
            for p, got in candidates(text).items():
                if args.passes and p not in args.passes or not got:
                    continue
                key = (d.get("network"), d.get("batch"), d.get("precision"), api, p, shapes.get(layer, "?"), tuple(got))
                if key in seen:  # equal shapes share one search
                    continue
                seen.add(key)
                ranked = sorted(got, key=lambda c: c[1])
                # the runner-up is another engine or algorithm: a graph-API engine is timed once per knob setting
                rival = [c for c in ranked if c[0] != ranked[0][0]]
                gap = 100 * (rival[0][1] / ranked[0][1] - 1) if rival and ranked[0][1] > 0 else float("inf")
                if args.close and not gap <= args.close:
                    continue
                rows.append((d.get("network"), d.get("batch"), d.get("precision"), api, layer, shapes.get(layer, "?"),
                             p, ranked, gap, model.get(layer, {}).get(PREDICT_KEYS[p])))
    if not rows:
        print("conv_candidates: no conv_candidates in these files (cnnperf-measure records them from session 52)",
              file=sys.stderr)
        return 1
    agree = collections.defaultdict(lambda: [0, 0])
    for net, b, prec, api, layer, out, p, ranked, gap, algo in rows:
        cands = " ".join(f"{i}:{us:.0f}{'~' if one else ''}" for i, us, one in ranked)
        runner = f"runner-up +{gap:.0f}%" if gap != float("inf") else "alone"
        line = f"{net} b{b} {prec} {api:6} {layer:28} {out:14} {p:10} {runner:17} {cands}"
        if args.model:
            won = family(api, p, ranked[0][0])
            got = model_family(algo) if algo else "-"
            line += f"  | cuDNN {won}, model {algo or '-'}"
            if algo:
                a = agree[(api, prec, p)]
                a[0] += got == won
                a[1] += 1
        print(line)
    if args.model:
        print("\nthe model's algorithm family against cuDNN's winner (Winograd, FFT, the rest):")
        for (api, prec, p), (same, n) in sorted(agree.items()):
            print(f"  {api:6} {prec:5} {p:10} {same:4} of {n:4} agree ({100 * same / n:.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
