#!/usr/bin/env python3
"""compact_json: rewrite JSON files compactly with every number to 9
significant digits, which keeps every float32 a measurement came from
(CUDA events, cuDNN's timings) exactly and any double to 1e-9 of itself, far
below the timers' resolution; keys, order and everything else unchanged.
The tree copied to the GPU machines has a 64 MiB limit and the measurements
are most of it.

  python3 tools/compact_json.py FILE...      # rewrites each in place (through a temporary file)
  python3 tools/compact_json.py --drop-placeholders FILE...
      # also removes from a measurement's layers (cnnperf-result/1, source
      # "measurement") the fields a prediction has and a measurement cannot:
      # bytes, arithmetic_intensity and roofline_ms of 0 and bound "-", as
      # cnnperf-measure wrote them before session 27
"""
import json
import os
import sys


def rounded(x):
    if isinstance(x, float):
        return float("%.9g" % x)
    if isinstance(x, list):
        return [rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    return x


PLACEHOLDERS = {"bytes": 0, "arithmetic_intensity": 0, "bound": "-", "roofline_ms": 0}


def drop_placeholders(data):
    if not (isinstance(data, dict) and data.get("schema") == "cnnperf-result/1" and
            data.get("source") == "measurement"):
        return data
    for layer in data.get("layers", []):
        for key, value in PLACEHOLDERS.items():
            if key in layer and layer[key] == value:
                del layer[key]
    return data


def compacted(text, drop=False):
    """text (JSON) compact, numbers to 9 significant digits; text itself where that is no shorter.
    ValueError where text is not JSON."""
    data = json.loads(text)
    if drop:
        data = drop_placeholders(data)
    new = json.dumps(rounded(data), separators=(",", ":"), ensure_ascii=False)
    return new if len(new) < len(text) else text


def main(args):
    drop = "--drop-placeholders" in args
    paths = [a for a in args if a != "--drop-placeholders"]
    saved = 0
    for path in paths:
        with open(path) as fh:
            text = fh.read()
        try:
            new = compacted(text, drop)
        except ValueError as e:
            print(f"compact_json: {path}: not JSON ({e}), left as it is", file=sys.stderr)
            continue
        if new is text:
            continue
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(new)
        os.replace(tmp, path)
        saved += len(text) - len(new)
    print(f"compact_json: {len(paths)} files, {saved / 1e6:.1f} MB saved", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
