#!/usr/bin/env python3
"""readme_numbers: the breakdowns README.md's accuracy table and prose quote, from one `cnnperf validate
--format json` output, so that each session's figures come from a kept tool (docs/ACCURACY.md's tables are
validate's own; these split the same evaluation runs the way the README does).

  mapfile -t m < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)
  build/cnnperf validate --measured "${m[@]}" --format json -o v.json
  python3 tools/readme_numbers.py v.json

One GPU: the target's filter (evaluation set, fp32/fp16, batch 32-256, runs whose note says "not scored" left
out), by harness (cnnperf-measure's graph and legacy API, PyTorch NCHW and channels-last), by whether validate
flags the host as pacing the run, the drawn runs (validate's `drawn`: calibration-set.json's drawn_folders), and
LeNet-5 apart from the other networks (its sub-millisecond iteration is the host's). Several
GPUs: every evaluation run of two or more, by exchange (NCCL inside a node, emulated two-node NCCL, parameter
server, PyTorch DDP by layout). NCCL all-reduce: the 1 MiB-1 GiB sizes by rank count. Each line: runs, mean
absolute error in percent."""
import argparse
import json
import sys

from calibration_metrics import in_one_gpu_target

MIB, GIB = 1 << 20, 1 << 30


def mape(runs):
    if not runs:
        return "     0 runs"
    return f"{len(runs):6d} runs {sum(abs(r['iteration']['error_pct']) for r in runs) / len(runs):7.3f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("validate_json")
    args = ap.parse_args()
    with open(args.validate_json) as fh:
        d = json.load(fh)

    def in_drawn(r):
        return r["drawn"]

    def graph(r):
        return "graph API" in (r.get("note") or "")

    def cl(r):
        return "channels-last" in r["label"]

    ev = [r for r in d["runs"] if r["set"] == "evaluation"]
    one = [r for r in ev if in_one_gpu_target(r)]
    harness = [r for r in one if r["source"] == "measurement"]
    torch = [r for r in one if r["source"] == "pytorch"]
    lines = [
        ("one GPU, target's filter", one),
        ("  cnnperf-measure, graph API", [r for r in harness if graph(r)]),
        ("    not bound by the host", [r for r in harness if graph(r) and not r.get("host_bound")]),
        ("  cnnperf-measure, legacy API", [r for r in harness if not graph(r)]),
        ("  PyTorch, NCHW", [r for r in torch if not cl(r)]),
        ("  PyTorch, channels-last", [r for r in torch if cl(r)]),
        ("  host-paced", [r for r in one if r.get("host_bound")]),
        ("  not host-paced", [r for r in one if not r.get("host_bound")]),
        ("  drawn before their calls", [r for r in one if in_drawn(r)]),
        # LeNet-5's iteration is a millisecond or less of host calls; the split shows how much of the
        # target's gap is that one network's
        ("  LeNet-5", [r for r in one if r["network"] == "lenet5"]),
        ("  every network but LeNet-5", [r for r in one if r["network"] != "lenet5"]),
    ]
    multi = [r for r in ev if r["gpus"] > 1]
    measured = [r for r in multi if r["source"] == "measurement"]
    ddp = [r for r in multi if r["source"] == "pytorch"]
    lines += [
        ("several GPUs", multi),
        ("  NCCL inside a node", [r for r in measured if r["comm"] == "nccl" and not r.get("nccl_network_emulation")]),
        ("  NCCL, two nodes emulated", [r for r in measured if r.get("nccl_network_emulation")]),
        ("  parameter server", [r for r in measured if r["comm"] == "ps"]),
        ("  PyTorch DDP, NCHW", [r for r in ddp if not cl(r)]),
        ("  PyTorch DDP, channels-last", [r for r in ddp if cl(r)]),
        ("  drawn before their calls", [r for r in multi if in_drawn(r)]),
    ]
    width = max(len(name) for name, _ in lines)
    for name, runs in lines:
        print(f"{name:{width}}  {mape(runs)}")
    sizes = {}
    for x in d.get("nccl_allreduce", []):
        if x.get("set") == "evaluation" and MIB <= x["bytes"] <= GIB:
            sizes.setdefault(x["ranks"], []).append(abs(x["error_pct"]))
    every = [e for v in sizes.values() for e in v]
    if every:
        print(f"{'NCCL all-reduce, 1 MiB-1 GiB':{width}}  {len(every):6d} sizes {sum(every) / len(every):6.3f}%")
        for ranks, e in sorted(sizes.items()):
            print(f"{'  ' + str(ranks) + ' GPUs':{width}}  {len(e):6d} sizes {sum(e) / len(e):6.3f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
