#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Collect pi-bench output from the host and the guest, write the results
and plots.

usage: bench-report.py OUTDIR HOST_OUTPUT NAME=GUEST_SERIAL_LOG... [--no-plot]

Parses the "BENCH <section> <kind> <metric> <value>" and "BENCHITER
inversion <kind> <i> <ms>" lines (guest lines may carry KTAP indentation,
"# " prefixes and printk noise) of the host and of each guest (one per
kernel, NAME its column), writes OUTDIR/results.json and
OUTDIR/results.csv, prints one table with a column per side, and draws
OUTDIR/inversion.png and OUTDIR/fastpath.png with matplotlib, and
OUTDIR/latency.png when guests report cyclictest's wakeup latency under
pi_stress (the "latency" section).  A side named "PIN rt" is compared
with "PIN debug", the flavour PREEMPT_RT is layered on.  Exits 1 if a
side has no results, a guest's boot is not a pass by
tools/judge/verdict.py (a failed suite, a WARN or another crash
signature, a guest that did not finish), a guest's kernel did not end up
on the TSC clocksource (its times would be in jiffies), or the inversion goal is
missed (with PI, max wait <= 1.5 x the critical section; without PI,
>= 20 x worse).
"""
import argparse
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'judge'))
import verdict  # noqa: E402  (tools/judge/verdict.py)

LINE_RE = re.compile(r'BENCH (\S+) (\S+) (\S+) (-?[0-9.]+)\s*$')
ITER_RE = re.compile(r'BENCHITER inversion (\S+) (\d+) (-?[0-9.]+)\s*$')
CLOCK_RE = re.compile(r'clocksource: Switched to clocksource (\S+)')


def clocksource(path):
    """The last clocksource a guest's kernel switched to, or None."""
    found = None
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = CLOCK_RE.search(line)
            if m:
                found = m.group(1)
    return found


def failures(path):
    """Why a guest's boot is not a pass, by tools/judge/verdict.py (the
    judge of every boot); empty when it is one."""
    with open(path, encoding='utf-8', errors='replace') as f:
        v = verdict.parse(f.readlines())
    outcome, reasons = verdict.decide(v)
    if outcome == 'pass':
        return []
    return reasons + [f'{s["suite"]}: fail' for s in v['suites']
                      if s['result'] == 'fail'] or [verdict.TITLE[outcome]]


def parse(path):
    res = {}
    iters = {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = LINE_RE.search(line)
            if m:
                sec, kind, metric, val = m.groups()
                res.setdefault(sec, {}).setdefault(kind, {})[metric] = \
                    float(val)
                continue
            m = ITER_RE.search(line)
            if m:
                iters.setdefault(m.group(1), []).append(float(m.group(3)))
    return res, iters


def get(res, sec, kind, metric):
    return res.get(sec, {}).get(kind, {}).get(metric)


def fmt(v):
    if v is None:
        return '-'
    return f'{v:.2f}' if abs(v) < 1000 else f'{v:.0f}'


def grouped_bars(ax, labels, series):
    """One group of bars per label, one bar per side in each group.
    series: {side name: [value per label]}."""
    width = 0.8 / len(series)
    for j, (name, vals) in enumerate(series.items()):
        ax.bar([i + j * width for i in range(len(labels))], vals, width,
               label=name)
    ax.set_xticks([i + width * (len(series) - 1) / 2
                   for i in range(len(labels))])
    ax.set_xticklabels(labels)
    ax.legend()


def plot(outdir, sides):
    """Draws the plots into OUTDIR; returns the names of the files, or []
    without matplotlib."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('bench-report: matplotlib missing (python3-matplotlib); '
              'no plots', file=sys.stderr)
        return []
    drawn = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=90)
        plt.close(fig)
        drawn.append(name)

    fig, axes = plt.subplots(1, len(sides), figsize=(6 * len(sides), 4),
                             squeeze=False)
    for ax, (name, (res, iters)) in zip(axes[0], sides.items()):
        for kind, style in (('glibc-inherit', 'o-'), ('glibc-none', 's-')):
            w = iters.get(kind, [])
            ax.plot(range(1, len(w) + 1), w, style, label=kind)
        ax.set_yscale('log')
        ax.set_xlabel('iteration')
        ax.set_ylabel("high's wait (ms, log)")
        ax.set_title(f'{name}: inversion on one CPU\n(CS 10 ms, medium hog '
                     '300 ms)')
        ax.grid(True, which='both', alpha=0.3)
        ax.legend()
    save(fig, 'inversion.png')

    kinds = ['futex', 'pi-futex', 'glibc-none', 'glibc-inherit']
    ratios = {}
    for name, (res, _) in sides.items():
        base = get(res, 'fastpath', 'futex', 'ns_per_op') or 1
        ratios[name] = [(get(res, 'fastpath', k, 'ns_per_op') or 0) / base
                        for k in kinds]
    fig, ax = plt.subplots(figsize=(7, 4))
    grouped_bars(ax, kinds, ratios)
    ax.set_ylabel('uncontended lock+unlock, relative to futex')
    ax.set_title('Fast path (median of 7 runs; ratio within each run)')
    ax.axhline(1.0, color='grey', lw=0.8)
    save(fig, 'fastpath.png')

    lat = {name: [get(res, 'latency', LAT_KIND, f'{m}_us') or 0
                  for m in LAT_METRICS]
           for name, (res, _) in sides.items() if 'latency' in res}
    if lat:
        fig, ax = plt.subplots(figsize=(7, 4))
        grouped_bars(ax, [m.replace('_', '.') for m in LAT_METRICS], lat)
        ax.set_yscale('log')
        ax.set_ylabel('wakeup latency (us, log)')
        ax.set_title('cyclictest, SCHED_FIFO 95, 1 ms period, '
                     'while pi_stress runs')
        ax.grid(True, axis='y', which='both', alpha=0.3)
        save(fig, 'latency.png')
    return drawn


LAT_KIND = 'cyclictest-pi_stress'
LAT_METRICS = ['p50', 'p90', 'p99', 'p99_9', 'max']


def latency_lines(sides):
    """One line per guest with latency figures; RT against its non-RT
    twin when both ran."""
    out = []
    for name, (res, _) in sides.items():
        p99 = get(res, 'latency', LAT_KIND, 'p99_us')
        mx = get(res, 'latency', LAT_KIND, 'max_us')
        if p99 is None or mx is None:
            continue
        out.append(f'{name}: cyclictest under pi_stress: p99 {p99:.0f} us, '
                   f'max {mx:.0f} us')
        if name.endswith(' rt'):
            twin = sides.get(name[:-3] + ' debug')
            if not twin:
                continue
            t99 = get(twin[0], 'latency', LAT_KIND, 'p99_us')
            tmx = get(twin[0], 'latency', LAT_KIND, 'max_us')
            if t99 and tmx:
                out.append(f'{name} / {name[:-3]} debug: p99 {p99 / t99:.2f}x,'
                           f' max {mx / tmx:.2f}x (below 1: RT is better)')
    return out


def without_lines(sides):
    """A side named "NAME -NNNN" is the kernel of side NAME without fix
    NNNN: the contended hand-off throughput of both, and its ratio."""
    out = []
    for name, (res, _) in sides.items():
        m = re.fullmatch(r'(.*) -(\d{4})', name)
        if not m or m.group(1) not in sides:
            continue
        base = sides[m.group(1)][0]
        for kind in ('pi-futex/2t', 'pi-futex/4t', 'glibc-inherit/2t',
                     'glibc-inherit/4t'):
            w = get(base, 'handoff', kind, 'ops_per_s')
            wo = get(res, 'handoff', kind, 'ops_per_s')
            if not w or not wo:
                continue
            out.append(f'{m.group(1)}: hand-off {kind} {w:.0f} ops/s with '
                       f'{m.group(2)}, {wo:.0f} without: {w / wo:.3f}')
    return out


def side(text):
    if '=' not in text:
        raise argparse.ArgumentTypeError(f'{text!r}: want NAME=LOG')
    return tuple(text.split('=', 1))


def main(argv):
    p = argparse.ArgumentParser(
        usage=__doc__.strip().splitlines()[3][len('usage: '):],
        description='\n'.join(__doc__.strip().splitlines()[5:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('outdir')
    p.add_argument('host_output')
    p.add_argument('guests', nargs='+', type=side, metavar='NAME=LOG')
    p.add_argument('--no-plot', action='store_true')
    args = p.parse_args(argv[1:])
    outdir, host_out = args.outdir, args.host_output
    os.makedirs(outdir, exist_ok=True)
    sides = {'host': parse(host_out)}
    ok = True
    for name, log in args.guests:
        sides[name] = parse(log)
        clock = clocksource(log)
        print(f'{name}: clocksource {clock}')
        for line in failures(log):
            print(f'bench-report: {name} failed: {line}')
            ok = False
        if clock != 'tsc':
            print(f'bench-report: {name} timed with {clock}, not the TSC: '
                  'its times are in clock ticks, not comparable')
            ok = False
    for name, (res, _) in sides.items():
        if not res:
            print(f'bench-report: no results from the {name}')
            ok = False
    rows = []
    for name, (res, _) in sides.items():
        for sec, kinds in res.items():
            for kind, metrics in kinds.items():
                for metric, val in metrics.items():
                    rows.append({'side': name, 'section': sec, 'kind': kind,
                                 'metric': metric, 'value': val})
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump({'results': rows,
                   'iterations': {n: it for n, (_, it) in sides.items()}},
                  f, indent=1)
    with open(os.path.join(outdir, 'results.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=['side', 'section', 'kind',
                                          'metric', 'value'])
        w.writeheader()
        w.writerows(rows)

    names = list(sides)
    print('Absolute times under QEMU TCG are not meaningful; compare ratios '
          'within one side.')
    print(f'{"figure":<44}' + ''.join(f'{n:>16}' for n in names))
    keys = sorted({(r['section'], r['kind'], r['metric']) for r in rows})
    for sec, kind, metric in keys:
        print(f'{sec + " " + kind + " " + metric:<44}' +
              ''.join(f'{fmt(get(sides[n][0], sec, kind, metric)):>16}'
                      for n in names))
    for name, (res, _) in sides.items():
        pi_max = get(res, 'inversion', 'glibc-inherit', 'max_over_cs')
        ratio = get(res, 'inversion', 'none-vs-inherit', 'max_ratio')
        if pi_max is None or ratio is None:
            continue
        good = pi_max <= 1.5 and ratio >= 20
        ok &= good
        print(f'{name}: inversion with PI max {pi_max:.2f} x CS '
              f'(goal <= 1.5), without PI {ratio:.1f}x worse (goal >= 20): '
              f'{"met" if good else "MISSED"}')
        fp = get(res, 'fastpath', 'pi-futex', 'ratio_vs_futex')
        if fp is not None:
            print(f'{name}: uncontended PI futex costs {fp:.2f}x a plain '
                  'futex mutex (both stay in user space)')
    for line in latency_lines(sides):
        print(line)
    for line in without_lines(sides):
        print(line)
    drawn = plot(outdir, sides) if not args.no_plot and ok else []
    print(f'bench-report: wrote {outdir}/results.json, results.csv'
          + ''.join(f', {d}' for d in drawn))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
