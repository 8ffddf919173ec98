#!/usr/bin/env python3
"""rank_pass_fit: how much longer a layer pass runs in a job of several ranks than on one GPU.

Rule 57 (docs/ACCURACY.md, session 71). For every cnnperf-measure job of several GPUs under validation/
(measure-multi-*.json) on a calibration-set network (validation/calibration-set.json), not flagged host-bound,
each layer's forward (and update) pass is set beside the same layer in the one-GPU runs of the same device,
network, batch, precision and convolution API, also not host-bound; a job's difference is the median over its
layers and those runs. Prints the median over the jobs, per exchange and device and over all forward passes.
Rule 57 added the last (0.84 us) to every pass of a job of several GPUs; it made the calibration set's several-GPU
MAPE worse (5.683% -> 5.751%) and was not kept, so the model holds no such constant. The effect is measured, and
this is how to read it again as jobs come in.

  python3 tools/rank_pass_fit.py              # the calibration set (what the rule is fitted on)
  python3 tools/rank_pass_fit.py --evaluation # the evaluation networks, to read, never to fit
"""
import argparse
import collections
import glob
import json
import os
import statistics

import measured_files

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')


def load(path):
    try:
        return measured_files.load(path)
    except (OSError, ValueError):
        return None


def conv_api(d, path):
    return d.get('provenance', {}).get('conv_api') or ('graph' if 'graph' in os.path.basename(path) else 'legacy')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--evaluation', action='store_true', help='the evaluation networks instead (read only)')
    a = ap.parse_args()
    with open(os.path.join(ROOT, 'validation', 'calibration-set.json')) as f:
        calibration = set(json.load(f)['networks'])
    wanted = lambda net: (net in calibration) != a.evaluation
    val = os.path.join(ROOT, 'validation')
    one = collections.defaultdict(list)
    for path in glob.glob(os.path.join(val, 'h100', '**', '*.json*'), recursive=True) + \
            glob.glob(os.path.join(val, 'h200', '**', '*.json*'), recursive=True):
        if '/torch' in path or os.path.basename(path).startswith('predict'):
            continue
        d = load(path)
        if not isinstance(d, dict) or d.get('gpus', 1) != 1 or 'layers' not in d or 'iteration_ms' not in d:
            continue
        if d.get('host_bound') or not wanted(d.get('network')):
            continue
        one[(d['device'], d['network'], d['batch'], d['precision'], conv_api(d, path))].append(d)
    jobs = collections.defaultdict(list)
    for path in glob.glob(os.path.join(val, 'h*x*', '**', 'measure-multi-*.json*'), recursive=True):
        d = load(path)
        if not d or d.get('host_bound') or 'layers' not in d or not wanted(d.get('network')):
            continue
        key = (d['device'], d['network'], d['batch'], d['precision'], conv_api(d, path))
        for p in ('forward_ms', 'update_ms'):
            diffs = [(L[p] - O[p]) * 1e3 for o in one.get(key, []) for O in o['layers'] for L in d['layers']
                     if L['name'] == O['name'] and L.get(p, 0) > 0 and O.get(p, 0) > 0]
            if diffs:
                jobs[(d.get('comm'), d['device'], p[:-3])].append(statistics.median(diffs))
    for key in sorted(jobs, key=str):
        v = jobs[key]
        print('%-5s %-5s %-8s %3d jobs: median %+.3f us a pass' % (key + (len(v), statistics.median(v))))
    forward = [x for k, v in jobs.items() if k[2] == 'forward' for x in v]
    if forward:
        print('all forward passes: %d jobs, median %+.3f us a pass' % (len(forward), statistics.median(forward)))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
