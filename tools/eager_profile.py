#!/usr/bin/env python3
"""eager_profile: a device profile's "eager" section from several
tools/torch_bench.py --eager-overhead measurements of one kind of machine.

One measurement is one device call: the host's per-operator costs it reads
move by up to 2x from call to call (validation/**/eager-overhead-*.json:
a convolution's backward 35-94 us on the same kind of host). A profile that
stands for the machine, where no measurement of the user's own host is
given, takes each entry's median over every call that measured it; the
source names the files. Only microbenchmark files are read, never runs.

  python3 tools/eager_profile.py --gpu 'NVIDIA H100' 'validation/**/eager-overhead-h100.json' \
      --ddp-split 'validation/h100x2/**/ddpsplit-*.json' --into devices/h100.json
  python3 tools/eager_profile.py --gpu 'NVIDIA H200' 'validation/**/eager-overhead-h200.json' --into devices/h200.json

prints the section (JSON), or with --into replaces the profile's "eager" section in place (the rest of the
file as it is), with "host_spread": the
lowest and highest call's costs relative to the median (each call's factor
the median of its entries' ratios), for the range predict --mode eager
gives.
"""
import argparse
import glob
import json
import math
import os
import statistics
import sys

from profile_section import replace_section

TABLES = ("forward_op_us", "backward_op_us", "autocast_forward_op_us", "autocast_backward_op_us")
FIXED_KEYS = ("forward", "backward", "step", "autocast_forward", "autocast_backward", "autocast_step")


def measured_on(d, gpu):
    """Whether a torch_bench.py file's provenance names a GPU whose name starts with gpu."""
    return str(d.get("provenance", {}).get("gpu_name", "")).startswith(gpu)


def beside(f, *pattern):
    """The JSON files matching pattern in f's folder (a call's other measurements), in name order."""
    out = []
    for g in sorted(glob.glob(os.path.join(os.path.dirname(f), *pattern))):
        with open(g) as fh:
            out.append(json.load(fh))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patterns", nargs="+", help="eager-overhead JSON files or glob patterns ('**' allowed)")
    ap.add_argument("--gpu", required=True, help="keep files whose provenance.gpu_name starts with this")
    ap.add_argument("--into", metavar="PROFILE", help="replace this device profile's \"eager\" section")
    ap.add_argument("--ddp-split", metavar="PATTERN", action="append", default=[],
                    help="torch_bench.py --ddp-split files (calibration-set networks): the ddp section's "
                         "rank_spread")
    args = ap.parse_args()
    # shallower first: of one call's file and its copy beside a subfolder's runs, the call's own folder
    # (with its ddp-overhead and concurrent/ files) is kept
    files = sorted({f for p in args.patterns for f in glob.glob(p, recursive=True)}, key=lambda f: (f.count("/"), f))
    kept, seen = [], set()
    for f in files:
        with open(f) as fh:
            d = json.load(fh)
        if d.get("schema") != "cnnperf-eager-overhead/1":
            print(f"eager_profile: {f}: not a cnnperf-eager-overhead/1 file", file=sys.stderr)
            return 2
        # one call's file copied beside another folder's runs (ddphost31/alone/) is still one call
        call = json.dumps(d.get("provenance"), sort_keys=True)
        if measured_on(d, args.gpu) and call not in seen:
            seen.add(call)
            kept.append((f, d))
    if not kept:
        print(f"eager_profile: no file measured on '{args.gpu}'", file=sys.stderr)
        return 2
    out = {}
    for t in TABLES:
        keys = sorted({k for _, d in kept for k in d.get(t, {})})
        out[t] = {k: round(statistics.median(d[t][k] for _, d in kept if k in d.get(t, {})), 2) for k in keys}
    # DistributedDataParallel's host costs: the torch_bench.py --ddp-overhead files beside the calls'
    ddp = []
    for f, _ in kept:
        for dd in beside(f, "ddp-overhead-*.json"):
            if dd.get("schema") == "cnnperf-ddp-overhead/1" and measured_on(dd, args.gpu):
                ddp.append(dd["ddp"])
    if ddp:
        out["ddp"] = {k: round(statistics.median(x[k] for x in ddp), 2)
                      for k in ("per_param_us", "per_bn_us", "per_step_us")}
    # An operator's host cost in each of the processes of a DDP job sharing a host against one process alone.
    # Paired where measured: torch_bench.py --host-share files beside a call's costs (rounds of every rank at
    # once and each alone, so the host's drift over the call cancels; a call's factor the median of its files'
    # ratios, the profile's the median over such calls). Else unpaired: the call's --eager-overhead run under
    # torchrun (concurrent/, every rank at once) against its own alone run minutes apart, the median over every
    # kind entry of the four tables of the ranks' mean over the alone entry (1.19 and 0.91 in two calls)
    paired = []
    for f, _ in kept:
        got = [hs["ratio"] for hs in beside(f, "host-share-*.json")
               if hs.get("schema") == "cnnperf-host-share/1" and hs.get("ratio")]
        if got:
            paired.append(statistics.median(got))
    scales = []
    for f, d in kept:
        ranks = beside(f, "concurrent", "eager-overhead-*-rank*.json")
        if not ranks:
            continue
        ratios = [statistics.mean(r[t][k] for r in ranks) / d[t][k] for t in TABLES for k in d.get(t, {})
                  if k not in ("default", "grad_accumulate") and d[t][k] > 0 and all(k in r.get(t, {}) for r in ranks)]
        if ratios:
            scales.append(statistics.median(ratios))
    if (paired or scales) and "ddp" in out:
        out["ddp"]["operator_scale"] = round(statistics.median(paired or scales), 3)
    # How far one process's host is from the typical among a job's processes doing the same work at once (its
    # slowest sets a synchronous job's pace): every pair of ranks of every variant of every --ddp-split file
    # measured on this GPU, E|a - b| / mean(a, b) over the pairs, x sqrt(pi)/2 (for two normal draws
    # E|a - b| = 2 sigma / sqrt(pi))
    pairs, split_files = [], []
    for f in sorted({f for p in args.ddp_split for f in glob.glob(p, recursive=True)}):
        with open(f) as fh:
            d = json.load(fh)
        if d.get("schema") != "cnnperf-ddp-split/1" or not measured_on(d, args.gpu):
            continue
        split_files.append(f)
        ranks = d["per_rank"]
        for v in ranks[0]["variants"]:
            hosts = [r["variants"][v]["host_ms"] for r in ranks]
            pairs += [abs(a - b) / ((a + b) / 2) for i, a in enumerate(hosts) for b in hosts[i + 1:]]
    if pairs and "ddp" in out:
        out["ddp"]["rank_spread"] = round(statistics.mean(pairs) * math.sqrt(math.pi) / 2, 4)
    opt = [d["optimizer"] for _, d in kept if "optimizer" in d]
    # Since session 41 the microbenchmark times step() and zero_grad(set_to_none=True) as training calls them;
    # before, zero_grad(set_to_none=False), which zeroes every gradient, was in the timed step. Once three calls
    # have measured it the new way, the profile takes theirs alone.
    alone = [o for o in opt if "each timed on its own" in o.get("kind", "")]
    if len(alone) >= 3:
        opt = alone
    out["optimizer"] = {"per_step_us": round(statistics.median(o["per_step_us"] for o in opt), 2),
                        "per_tensor_us": round(statistics.median(o["per_tensor_us"] for o in opt), 3)}
    # a training iteration's fixed host part (torch_bench.py's iteration_fixed, session 67 on): each phase's
    # median over the calls that measured it
    fixed = [d["iteration_fixed_us"] for _, d in kept if "iteration_fixed_us" in d]
    if fixed:
        out["iteration_fixed_us"] = {k: round(statistics.median(x[k] for x in fixed), 2) for k in FIXED_KEYS}
        out["iteration_fixed_us"]["source"] = f"median of {len(fixed)} calls"
    elif args.into:
        # no call of this GPU's has measured it: the profile's own value (the H100's, derived from the H200's by
        # rule 52b) stays rather than the section losing it
        with open(args.into) as fh:
            own = json.load(fh).get("eager", {}).get("iteration_fixed_us")
        if own:
            out["iteration_fixed_us"] = own
            print(f"eager_profile: no call measured iteration_fixed_us; {args.into}'s own kept", file=sys.stderr)
    # each call's costs against the median: its factor is the median of its entries' ratios; the
    # profile's spread is the lowest and the highest factor (cnnperf predict --mode eager's range)
    factors = []
    for _, d in kept:
        ratios = [d[t][k] / out[t][k] for t in TABLES for k in d.get(t, {}) if out[t].get(k, 0) > 0]
        factors.append(statistics.median(ratios))
    if len(kept) >= 2:
        out["host_spread"] = {"low": round(min(min(factors), 1.0), 3), "high": round(max(max(factors), 1.0), 3),
                              "calls": len(kept)}
    dates = sorted(d["provenance"].get("date_utc", "?")[:10] for _, d in kept)
    torch = sorted({d["provenance"].get("torch", "?") for _, d in kept})
    out["source"] = (f"measured: median of {len(kept)} tools/torch_bench.py --eager-overhead calls "
                     f"({dates[0]} to {dates[-1]}, torch {', '.join(torch)}, {args.gpu}; each entry over the calls "
                     f"that measured it; tools/eager_profile.py): " + ", ".join(f for f, _ in kept))
    if pairs and "ddp" in out:
        out["source"] += (f"; ddp.rank_spread from {len(pairs)} rank pairs of {len(split_files)} "
                          f"torch_bench.py --ddp-split files: " + ", ".join(split_files))
    if args.into:
        order = TABLES + ("optimizer", "iteration_fixed_us", "host_spread", "ddp", "source")
        return replace_section(args.into, "eager", out, order)
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
