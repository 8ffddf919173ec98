#!/usr/bin/env python3
"""NCCL's own tuner, as one run printed it, to JSON (cnnperf-nccl-tuner/1).

    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,ENV mpirun -np 2 \\
        cnnperf-calibrate --only nccl --raw RAW.json > LOG 2>&1
    tools/nccl_tuning_json.py --log LOG --raw RAW.json -o nccl-tuner.json

Keeps rank 0's table of estimates (latency us / algbw GB/s per collective,
algorithm and protocol), the channel count, and the algorithm, protocol and
channels NCCL picked for every all-reduce size the sweep ran; provenance is
the calibrate run's own (RAW.json). comm/nccl.c's tuner and tests/test_comm.c
read the result. The sweep's timings are not kept: printing a line per call
slows the small sizes, so the raw file is not a measurement to validate on.
"""
import argparse
import json
import os
import re
import sys


def parse(log_lines):
    algos, table, picks, channels = [], {}, {}, None
    for line in log_lines:
        m = re.search(r"NCCL INFO\s+(.*)$", line)
        if not m or not re.match(r"^\S+:\d+:\d+ \[0\]", line):
            continue  # rank 0 prints the table
        body = m.group(1)
        cells = [c.strip() for c in body.split("|")]
        if cells[0] == "Algorithm":
            algos = [c for c in cells[1:] if c]
        elif cells[0] == "AllReduce" and algos:
            protos = ["LL", "LL128", "Simple"]
            vals = [c for c in cells[1:] if c]
            for i, v in enumerate(vals[: 3 * len(algos)]):
                lat, bw = (float(x) for x in v.split("/"))
                table[(algos[i // 3], protos[i % 3])] = (lat, bw)
        m2 = re.match(r"(\d+) coll channels", body)
        if m2:
            channels = int(m2.group(1))
        m3 = re.match(r"AllReduce: (\d+) Bytes -> Algo (\S+) proto (\S+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}", body)
        if m3:
            b = int(m3.group(1))
            pick = {"bytes": b, "algorithm": m3.group(2).lower(), "protocol": m3.group(3).lower(),
                    "channels": int(m3.group(5)) - int(m3.group(4)) + 1}
            if picks.setdefault(b, pick) != pick:
                sys.exit(f"nccl_tuning_json: {b} bytes picked two ways: {picks[b]} and {pick}")
    return table, picks, channels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log", required=True)
    ap.add_argument("--raw", required=True, help="the cnnperf-calibrate --raw file of the same run")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    with open(a.log, errors="replace") as f:
        table, picks, channels = parse(f)
    if not table or not picks:
        sys.exit(f"nccl_tuning_json: {a.log}: no TUNING table or no per-call picks (NCCL_DEBUG_SUBSYS=TUNING?)")
    with open(a.raw) as f:
        raw = json.load(f)
    prov = dict(raw["provenance"])
    prov["command"] = ("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,ENV mpirun -np 2 " +
                       prov.get("command", "cnnperf-calibrate --only nccl"))
    prov["made_by"] = "tools/nccl_tuning_json.py from rank 0's NCCL INFO lines of that run"
    out = {
        "format": "cnnperf-nccl-tuner/1",
        "what": "NCCL's own all-reduce estimates (time = latency + bytes / algbw) and the algorithm and protocol "
                "it ran per size; not timings",
        "provenance": prov,
        "coll_channels": channels,
        "allreduce_estimates": [{"algorithm": al.lower(), "protocol": pr.lower(), "latency_us": lat, "algbw_gbs": bw}
                                for (al, pr), (lat, bw) in table.items() if bw > 0],
        "allreduce_picks": [picks[b] for b in sorted(picks)],
    }
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
