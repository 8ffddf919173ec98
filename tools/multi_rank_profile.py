#!/usr/bin/env python3
"""What a layer pass costs a GPU more as one of several ranks: the `multi_rank` section of a device profile.

Reads a `cnnperf validate --format json` file and pairs every multi-GPU cnnperf-measure job of the calibration
set (NCCL or parameter server, graph API or legacy; not host-bound, not an emulated network) with the one-GPU runs
of its configuration (network, batch, precision, device, convolution API; not host-bound), pass by pass (forward,
backward-data, backward-weight, both measured). Prints, per device, the median of (pass in the job - the same pass
alone) over forward passes and over backward passes: docs/ACCURACY.md, session 46, rule 18, which charged them to
every pass of a multi-GPU harness job and was not kept (the calibration set's multi-GPU error rose); the numbers it
was judged with. Only measured times are read, and only the calibration set's: the evaluation set never enters.

  build/cnnperf validate --measured ... --format json -o v.json && python3 tools/multi_rank_profile.py v.json
"""
import collections
import json
import sys


def harness(run):
    if "pytorch" in str(run.get("source")):
        return "pytorch"
    return "graph" if "graph API" in (run.get("note") or "") else "legacy"


def config(run):
    return (run["network"], run["batch"], run["precision"], run["device"], harness(run))


def usable(run):
    return run.get("layers") and not run.get("host_bound") and harness(run) != "pytorch"


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = json.load(open(sys.argv[1]))["runs"]
    alone = collections.defaultdict(list)
    for r in runs:
        if r["gpus"] == 1 and usable(r):
            alone[config(r)].append({l["name"]: l for l in r["layers"]})
    deltas = collections.defaultdict(list)
    jobs = collections.Counter()
    for r in runs:
        if (r["set"] != "calibration" or r["gpus"] < 2 or not usable(r) or r.get("nccl_network_emulation")
                or config(r) not in alone):
            continue
        jobs[r["device"]] += 1
        for one in alone[config(r)]:
            for l in r["layers"]:
                o = one.get(l["name"])
                for p in ("forward", "backward_data", "backward_weight") if o else ():
                    m, s = l[p]["measured_ms"], o[p]["measured_ms"]
                    if m > 0 and s > 0:
                        deltas[(r["device"], p == "forward")].append((m - s) * 1e3)
    for dev in sorted(jobs):
        f, b = deltas[(dev, True)], deltas[(dev, False)]
        print(f'{dev}: "multi_rank": {{"forward_pass_us": {median(f):.3f}, "backward_pass_us": {median(b):.3f}}}'
              f"  ({len(f)} and {len(b)} pass pairs, {jobs[dev]} jobs)")


if __name__ == "__main__":
    main()
