#!/usr/bin/env python3
"""ps_exchange_pool: write calibration/ps-exchange.json, the rate of a CPU
parameter server's message stream on the device machines' hosts, pooled over
the device calls that measured it.

Every multi-GPU device call of measure/run_device.sh times the whole PS
exchange with cnnperf-psexchange (psexchange.json, one server;
psexchange-k2.json, two). One call's sweep moves up to 1.5x from the next
(a KVM host whose speed changes between leases and within one). Where nothing
of a host is measured (cnnperf predict --device h100|h200 without --host-mpi),
the device machines' stream is the median over calls, for each device, number
of workers W and servers K. A call's own sweep predicted that call's jobs
better on the evaluation set and on the later calls (docs/ACCURACY.md,
session 48: rule 22), so cnnperf validate uses the pool only under
--host-mpi pooled or where a folder measured nothing.

A sweep's rate is what comm/cluster.c's ipc_from_exchange reads from it: the
bytes one server's stream moves, 2 W S / K per round for S bytes per worker,
over the rounds' time less the servers' own pass, summed over the sizes from
CP_IPC_FIT_MIN_BYTES (16 MiB) up. Only the call's standard sweeps are read
(the two file names above, no idle wait, not ps_after's second sweep of a
call in its after/ folder): the experiments of psteam52 and
psidle54 changed the server's threads or waits on purpose. The device is the
folder's (validation/h100x4/... -> h100).

  python3 tools/ps_exchange_pool.py -o calibration/ps-exchange.json

The sweeps are microbenchmarks, not the runs judged; they come from
calibration and evaluation calls alike. The project does not need Python to
build, test or predict: this is a maintenance tool, and its output is
committed (and compiled in, like calibration/<device>.json).
"""
import argparse
import collections
import glob
import json
import os
import re
import statistics

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN_BYTES = 16.0 * (1 << 20)  # comm/cluster.h CP_IPC_FIT_MIN_BYTES
NAMES = ("psexchange.json", "psexchange-k2.json")


def stream_gbs(d):
    """One server's stream rate of a cnnperf-psexchange/1 file (ipc_from_exchange)."""
    w, k = d["workers"], d["servers"]
    moved = us = 0.0
    for p in d["points"]:
        if p["bytes_per_worker"] >= MIN_BYTES:
            moved += 2.0 * w * p["bytes_per_worker"] / k
            us += p["round_us"] - p["server_pass_us"]
    return moved / us / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", help="write here (atomically); default: print")
    args = ap.parse_args()
    pools = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(REPO, "validation", "**", "psexchange*.json"), recursive=True)):
        rel = os.path.relpath(path, REPO)
        if os.path.basename(path) not in NAMES or "/after/" in path:  # ps_after's: the same call again
            continue
        d = json.load(open(path))
        if d.get("format") != "cnnperf-psexchange/1" or d.get("idle_ms", 0) > 0:
            continue
        m = re.search(r"/(h100|h200)x\d+/", "/" + rel)
        if not m:
            raise SystemExit(f"{rel}: no device in its folder's name")
        pools[(m.group(1), d["workers"], d["servers"])].append((rel, stream_gbs(d)))
    out = {
        "format": "cnnperf-ps-exchange/1",
        "source": "tools/ps_exchange_pool.py: for each device, workers W and servers K, the median over the device "
                  "calls' cnnperf-psexchange sweeps (measure/run_device.sh, one per multi-GPU call) of one server's "
                  "message stream, 2 W S / K bytes per round less the servers' pass, sizes of 16 MiB and up; Open MPI "
                  "4.1.6 shared memory on the device machines' KVM hosts",
        "pools": [],
    }
    for (dev, w, k), sweeps in sorted(pools.items()):
        rates = [r for _, r in sweeps]
        out["pools"].append({
            "device": dev, "workers": w, "servers": k,
            "bandwidth_gbs": round(statistics.median(rates), 3),
            "sweeps": len(rates), "min_gbs": round(min(rates), 3), "max_gbs": round(max(rates), 3),
            "files": [f for f, _ in sweeps],
        })
    text = json.dumps(out, indent=1) + "\n"
    if not args.output:
        print(text, end="")
        return
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.output)
    for p in out["pools"]:
        print(f'{p["device"]} W={p["workers"]} K={p["servers"]}: {p["bandwidth_gbs"]} GB/s, median of {p["sweeps"]} '
              f'sweeps ({p["min_gbs"]}-{p["max_gbs"]})')


if __name__ == "__main__":
    main()
