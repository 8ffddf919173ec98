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

  python3 tools/conv_candidates.py validation/h100/cand52/*.json*
  python3 tools/conv_candidates.py validation/h100/cand52*/*.json* --pass bwd_filter --close 5
"""
import argparse
import glob
import gzip
import json
import re
import sys

PASSES = ("fwd", "bwd_data", "bwd_filter")


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
    args = ap.parse_args()
    rows, seen = [], set()
    for f in sorted({g for p in args.files for g in glob.glob(p)}):
        opener = gzip.open if f.endswith(".gz") else open
        with opener(f, "rt") as fh:
            try:
                d = json.load(fh)
            except ValueError:
                continue
        prov = d.get("provenance", {}) if isinstance(d, dict) else {}
        tried = prov.get("conv_candidates")
        if not tried:
            continue
        api = prov.get("conv_api", "legacy")
        shapes = {l["name"]: l.get("output", "?") for l in d.get("layers", [])}
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
                             p, ranked, gap))
    if not rows:
        print("conv_candidates: no conv_candidates in these files (cnnperf-measure records them from session 52)",
              file=sys.stderr)
        return 1
    for net, b, prec, api, layer, out, p, ranked, gap in rows:
        cands = " ".join(f"{i}:{us:.0f}{'~' if one else ''}" for i, us, one in ranked)
        runner = f"runner-up +{gap:.0f}%" if gap != float("inf") else "alone"
        print(f"{net} b{b} {prec} {api:6} {layer:28} {out:14} {p:10} {runner:17} {cands}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
