#!/usr/bin/env python3
"""draw_holdout: the configurations a drawn holdout measures, from its seed.

Since session 33 the evaluation grows by configurations drawn at random before
the call that measures them, so that no one chooses what the model is judged
on. This is the draw, so anyone can check that a list in
measure/run_device.sh is what its seed gives:

  python3 tools/draw_holdout.py 68                 # one GPU (holdout33's rule)
  python3 tools/draw_holdout.py 6868 --multi       # several GPUs (mholdout35's rule)
  python3 tools/draw_holdout.py 68 --check holdout68
  python3 tools/draw_holdout.py 6868 --multi --check mholdout68
  python3 tools/draw_holdout.py 70 --emit holdout70  # the lists to paste into run_device.sh
  python3 tools/draw_holdout.py 119 --emit holdout119 --session 71  # with the comment header above them
  python3 tools/draw_holdout.py 123 --emit holdout123 --session 72 --insert  # and into run_device.sh
  python3 tools/draw_holdout.py 106106 --multi --gpus 4 --emit mholdout106  # and MHOLDOUT106_GPUS=4
  python3 tools/draw_holdout.py 871 --precisions bf16,tf32 --harnesses graph,legacy,torch --emit pholdout87
  python3 tools/draw_holdout.py 63 --precision tf32 --harnesses legacy,graph,torch \
      --networks densenet169,googlenet,resnet50,resnet101,resnet152,resnext50_32x4d,wide_resnet50_2 --check tf32hold63

Per job, in this order, from random.Random(seed): a network of the evaluation
networks (networks/*.json less validation/calibration-set.json's) in name
order, a batch of the multiples of 8 in 32..256, fp16 or fp32, and the harness:
one GPU cnnperf-measure's graph or legacy API, PyTorch NCHW or channels-last;
several GPUs NCCL (graph API), NCCL (legacy API), one or two CPU parameter
servers (graph API), PyTorch DDP NCHW or channels-last. Ten jobs.
--precisions draws the precision from another list (the same number of draws,
so the default reproduces every list drawn before it): bf16,tf32 is how Hopper
is mostly trained (autocast to bfloat16; PyTorch's default TF32 convolutions),
outside the issue's targets (fp32 and fp16) and reported apart. --harnesses
draws the harness from a subset (pholdout87 leaves PyTorch's channels-last out:
cudnn.benchmark's search takes minutes a job there in FP32 and TF32, more than
a call holds for several).

A rule's judging draw (tf32hold62's, session 60, and on) draws from the networks the rule changes (--networks,
evaluation networks only, taken in name order) in one precision that is not drawn (--precision): per job a
network, a batch and the harness, in that order.

The run order is not the draw's: run_device.sh runs cnnperf-measure's jobs
before PyTorch's and PyTorch's channels-last FP32 and TF32 jobs last, the shortest predicted first (cudnn.benchmark
may hold one for minutes), and a configuration drawn twice is measured once (a
run's file is named by its configuration). --emit writes a mode's lists in
that order; --check compares the mode's lists with the draw as sets (older
modes ordered their jobs otherwise) and exits 1 where they differ. A
several-GPU mode's lists end with NAME_GPUS=N (--gpus, default 2), which is
how run_device.sh knows the mode and its GPU count (mode_route): the draw
itself does not depend on it. --insert (with --emit and --session) writes the
header and lists into run_device.sh above the highest-numbered drawn mode of its kind
(one GPU or several), where each session has put them by hand, and then checks
them as --check does; it refuses a mode that already has lists.
"""
import argparse
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import PRECISIONS  # noqa: E402  (what torch_bench and cnnperf-measure take; no torch imported)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ONE_GPU = ['graph', 'legacy', 'torch', 'torch-cl']
MULTI_GPU = ['nccl-graph', 'nccl-legacy', 'ps1', 'ps2', 'ddp', 'ddp-cl']


def evaluation_networks():
    shipped = {f[:-5] for f in os.listdir(os.path.join(ROOT, 'networks')) if f.endswith('.json')}
    with open(os.path.join(ROOT, 'validation', 'calibration-set.json')) as f:
        calibration = set(json.load(f)['networks'])
    return sorted(shipped - calibration)


def draw(seed, multi, jobs=10, precisions=('fp16', 'fp32'), harnesses=None, networks=None, precision=None):
    """networks: a subset of the evaluation networks to draw from; precision: one precision, not drawn"""
    nets, rng = sorted(networks or evaluation_networks()), random.Random(seed)
    harnesses = list(harnesses or (MULTI_GPU if multi else ONE_GPU))
    out = []
    for _ in range(jobs):
        net = rng.choice(nets)
        batch = rng.choice(range(32, 257, 8))
        prec = precision or rng.choice(list(precisions))
        harness = rng.choice(harnesses)
        out.append((net, batch, prec, harness))
    return out


def torch_line(net, batch, prec, cl):
    return f'--network {net} --batch {batch} --precision {prec}' + (' --channels-last' if cl else '')


def as_lists(jobs, multi):
    """run_device.sh's lists (name suffix -> lines in run order, each once) the jobs make"""
    lists = {}
    for net, batch, prec, h in jobs:
        if multi:
            if h.startswith('ddp'):
                key, line = 'DDP', torch_line(net, batch, prec, h == 'ddp-cl')
            else:
                key = 'LEGACY' if h == 'nccl-legacy' else 'GRAPH'
                line = f'{net} {batch} {prec} {"nccl" if h.startswith("nccl") else h}'
        elif h.startswith('torch'):
            key, line = 'TORCH', torch_line(net, batch, prec, h == 'torch-cl')
        else:
            key, line = 'MEASURE', f'{net} {batch} {prec}' + (' graphapi' if h == 'graph' else '')
        lines = lists.setdefault(key, [])
        if line not in lines:
            lines.append(line)
    for lines in lists.values():  # PyTorch's channels-last FP32 (and TF32) jobs last, each list's order otherwise the draw's
        lines.sort(key=lambda l: '--channels-last' in l and ('fp32' in l or 'tf32' in l))
    return lists


WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve']


def header(mode, seed, jobs, multi, gpus, session):
    """The two comment lines run_device.sh keeps above a drawn mode's lists."""
    n = WORDS[jobs] if jobs < len(WORDS) else str(jobs)
    if multi:
        return (f'# MODE={mode} ({gpus} GPUs of one host) (drawn in session {session} for a later call, whatever model it '
                f'ships then): {n}\n# {gpus}-GPU jobs by random.Random({seed}), mholdout35\'s rule (tools/draw_holdout.py '
                f'--multi --emit); predicted in the call.')
    return (f'# MODE={mode} (drawn in session {session} for a later call, whatever model it ships then): {n} one-GPU '
            f'configurations\n# by random.Random({seed}), holdout33\'s rule (tools/draw_holdout.py --emit); predicted in '
            'the call.')


def emit(mode, lists, multi, gpus):
    """A mode's lists as run_device.sh holds them, one line each, ending in a newline."""
    keys = ['GRAPH', 'LEGACY', 'DDP'] if multi else ['MEASURE', 'TORCH']
    out = ['%s_%s="\n%s"' % (mode.upper(), key, '\n'.join(lists[key])) for key in keys if key in lists]
    if multi:
        out.append('%s_GPUS=%d' % (mode.upper(), gpus))
    return ''.join(line + '\n' for line in out)


SCRIPT = os.path.join(ROOT, 'measure', 'run_device.sh')


def script_lists(mode):
    with open(SCRIPT) as f:
        text = f.read()
    lists = {}
    for m in re.finditer(r'^%s_([A-Z]+)="\n(.*?)"$' % re.escape(mode.upper()), text, re.M | re.S):
        lists[m.group(1)] = {' '.join(l.split()) for l in m.group(2).splitlines() if l.strip()}
    return lists


def insert(block, multi):
    """Puts block above the newest drawn mode of its kind in run_device.sh (written whole, then renamed)."""
    with open(SCRIPT) as f:
        lines = f.read().split('\n')
    kind = (r'^# MODE=mholdout(\d+) \(\d GPUs of one host\) \(drawn in session ' if multi
            else r'^# MODE=holdout(\d+) \(drawn in session ')
    drawn = [(int(m.group(1)), i) for i, m in enumerate(re.match(kind, line) for line in lines) if m]
    at = max(drawn)[1] if drawn else None  # the highest-numbered mode's header
    if at is None:
        return f'no drawn {"several" if multi else "one"}-GPU mode to insert above'
    lines[at:at] = block.rstrip('\n').split('\n')
    tmp = SCRIPT + '.tmp'
    with open(tmp, 'w') as f:
        f.write('\n'.join(lines))
    os.chmod(tmp, os.stat(SCRIPT).st_mode)
    os.replace(tmp, SCRIPT)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('seed', type=int)
    ap.add_argument('--multi', action='store_true', help='several GPUs (mholdout35\'s rule)')
    ap.add_argument('--check', metavar='MODE', help='compare with run_device.sh\'s lists of MODE')
    ap.add_argument('--emit', metavar='MODE', help='write MODE\'s lists for run_device.sh')
    ap.add_argument('--gpus', type=int, default=2, help='with --multi --emit: the GPUs the mode runs on (default 2)')
    ap.add_argument('--session', type=int, help='with --emit: first the comment header naming the session that drew it')
    ap.add_argument('--insert', action='store_true', help='with --emit and --session: into run_device.sh, then --check')
    ap.add_argument('--precisions', default='fp16,fp32', help='the precisions drawn from, in this order (default fp16,fp32)')
    ap.add_argument('--harnesses', help='the harnesses drawn from, in this order (default: all of the rule\'s: '
                    + ','.join(ONE_GPU) + '; --multi ' + ','.join(MULTI_GPU) + ')')
    ap.add_argument('--networks', help='a rule\'s judging draw: the evaluation networks it changes, comma-separated')
    ap.add_argument('--precision', help='a rule\'s judging draw: its one precision, not drawn')
    a = ap.parse_args()
    networks = a.networks.split(',') if a.networks else None
    if networks and any(n not in evaluation_networks() for n in networks):
        ap.error(f'--networks: expected evaluation networks ({",".join(evaluation_networks())}), got \'{a.networks}\'')
    if a.precision and a.precision not in PRECISIONS:
        ap.error(f'--precision: expected one of {", ".join(PRECISIONS)}, got \'{a.precision}\'')
    rule = MULTI_GPU if a.multi else ONE_GPU
    harnesses = a.harnesses.split(',') if a.harnesses else None
    if harnesses and any(h not in rule for h in harnesses):
        ap.error(f'--harnesses: expected a comma-separated list of {",".join(rule)}, got \'{a.harnesses}\'')
    if not 2 <= a.gpus <= 8:
        ap.error(f'--gpus: expected 2 to 8, got {a.gpus}')
    precisions = a.precisions.split(',')
    if any(p not in PRECISIONS for p in precisions):
        ap.error(f'--precisions: expected a comma-separated list of {", ".join(PRECISIONS)}, got \'{a.precisions}\'')
    if a.insert and (not a.emit or a.session is None):
        ap.error('--insert: needs --emit MODE and --session N')
    if a.insert and script_lists(a.emit):
        ap.error(f'--insert: run_device.sh already has lists for {a.emit}')
    jobs = draw(a.seed, a.multi, precisions=precisions, harnesses=harnesses, networks=networks, precision=a.precision)
    if a.emit:
        lists = as_lists(jobs, a.multi)
        text = emit(a.emit, lists, a.multi, a.gpus)
        if a.session is not None:
            text = header(a.emit, a.seed, len(jobs), a.multi, a.gpus, a.session) + '\n' + text
        distinct = sum(len(lines) for lines in lists.values())
        if distinct < len(jobs):  # a job drawn twice is listed and run once
            print(f'draw_holdout: {len(jobs)} jobs drawn, {distinct} distinct', file=sys.stderr)
        if not a.insert:
            sys.stdout.write(text)
            return 0
        why = insert(text, a.multi)
        if why:
            print(f'draw_holdout: --insert: {why}', file=sys.stderr)
            return 1
        a.check = a.emit
    if not a.check:
        for j in jobs:
            print('%s %d %s %s' % j)
        return 0
    want = {k: set(v) for k, v in as_lists(jobs, a.multi).items()}
    have = script_lists(a.check)
    if not have:
        print(f'draw_holdout: run_device.sh has no lists for {a.check}', file=sys.stderr)
        return 1
    bad = 0
    for key in sorted(set(want) | set(have)):
        for line in sorted(want.get(key, set()) - have.get(key, set())):
            print(f'{a.check}: {key} lacks drawn "{line}"')
            bad = 1
        for line in sorted(have.get(key, set()) - want.get(key, set())):
            print(f'{a.check}: {key} has undrawn "{line}"')
            bad = 1
    if not bad:
        print(f'{a.check}: as random.Random({a.seed}) draws ({len(jobs)} jobs)')
    return bad


if __name__ == '__main__':
    sys.exit(main())
