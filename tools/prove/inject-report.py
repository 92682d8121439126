#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the boots of make inject: which suites caught which bug.

usage: inject-report.py [--json FILE] [--markdown FILE] [--svg FILE]
                        [--expect SUITE:TEST] CORPUS OUTDIR [NAME...]

CORPUS is tests/inject, OUTDIR the directory of tools/prove/inject.sh, which
holds NAME.json (tools/judge/verdict.py --json) and NAME.log per entry; without
NAME, every entry with a verdict there.  A suite caught a bug when it
failed on the kernel that carries the bug: a failed subtest, a missed
plan, a kill at its time limit, or a kernel crash while it ran (the last
"# suite NAME" line before the crash signature).  A crash in a KUnit
suite at boot is put on that suite (kunit:NAME), one before any suite on
"boot".  rt-random,
futex-stress and bad-input are randomized: a bug they alone caught is
"caught by chance".  futex-selftests (the kernel's own futex selftests)
is a column of its own, so that the table says how many bugs our suites
catch and how many the in-tree selftests catch.  An entry with a
"Race-only:" header (the reason no deterministic test can reach it) that
no suite of ours caught is "race-only", not "missed".

Prints the table bug x suite and the totals; exits 0 (the numbers are
the result, not a verdict), 2 on bad input.  With --expect (make check's
injected negative control), exits 1 unless test TEST of suite SUITE
failed on the kernel of every bug reported.
"""
import argparse
import json
import os
import re
import sys

RANDOM = {'rt-random', 'futex-stress', 'bad-input'}
INTREE = 'futex-selftests'
SUITE_RE = re.compile(r'# suite (\S+): ')
KUNIT_RE = re.compile(r'^    # Subtest: (\S+)')
STAMP_RE = re.compile(r'^\[\s*\d+\.\d+\] ')


def header(path):
    """The header fields of a corpus entry, continuation lines joined."""
    fields, key = {}, None
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line == '---':
                break
            if line.startswith('  ') and key:
                fields[key] += ' ' + line.strip()
                continue
            key, _, value = line.partition(': ')
            fields[key] = value
    return fields


def crash_suites(log_lines, crash_lines):
    """The suite that ran at each crash line ('boot' before any)."""
    out = set()
    for no in crash_lines:
        current = 'boot'
        for line in log_lines[:no - 1]:
            line = STAMP_RE.sub('', line)
            m = SUITE_RE.search(line)
            if m:
                current = m.group(1)
            m = KUNIT_RE.match(line)
            if m:
                current = 'kunit:' + m.group(1)
        out.add(current)
    return out


def judge(verdict, log_lines):
    """{suite: [what failed]} of one boot."""
    caught = {}
    for s in verdict.get('suites', []):
        if s.get('result') != 'fail':
            continue
        failed = [t for t, r in (s.get('tests') or {}).items() if r == 'fail']
        caught[s['suite']] = failed or ['(suite)']
    crash_lines = []
    for p in verdict.get('problems', []):
        m = re.match(r'log:(\d+): kernel crash signature: (.*)', p)
        if m:
            crash_lines.append(int(m.group(1)))
    for suite in crash_suites(log_lines, crash_lines):
        caught.setdefault(suite, []).append('(crash)')
    for p in verdict.get('problems', []):
        if 'guest did not finish' in p and not crash_lines:
            last = crash_suites(log_lines, [len(log_lines) + 1])
            for suite in last:
                caught.setdefault(suite, []).append('(hang)')
    return caught


def report(corpus, outdir, names):
    rows = []
    for name in names:
        entry = os.path.join(corpus, name + '.patch')
        if not os.path.exists(entry):
            raise SystemExit(f'inject-report: no entry {entry}')
        fields = header(entry)
        jpath = os.path.join(outdir, name + '.json')
        if not os.path.exists(jpath):
            rows.append({'name': name, 'fields': fields, 'booted': False,
                         'caught': {}})
            continue
        with open(jpath, encoding='utf-8') as f:
            verdict = json.load(f)
        lpath = os.path.join(outdir, name + '.log')
        lines = []
        if os.path.exists(lpath):
            with open(lpath, encoding='utf-8', errors='replace') as f:
                lines = f.read().splitlines()
        rows.append({'name': name, 'fields': fields, 'booted': True,
                     'verdict': verdict.get('verdict'),
                     'caught': judge(verdict, lines)})
    return rows


def classify(row):
    """'ours' (a deterministic suite of ours), 'chance' (only a
    randomized one), 'intree-only', 'race-only' (missed, with the
    entry's reason), 'missed', 'not booted', and whether the in-tree
    futex selftests caught it."""
    if not row['booted']:
        return 'not booted', False
    suites = set(row['caught'])
    intree = INTREE in suites
    ours = suites - {INTREE}
    if ours - RANDOM:
        return 'ours', intree
    if ours:
        return 'chance', intree
    if intree:
        return 'intree-only', intree
    return ('race-only' if row['fields'].get('Race-only') else 'missed'), intree


def render(rows):
    out = []
    width = max([len(r['name']) for r in rows] + [4])
    out.append(f'{"bug":<{width}}  {"ours":<7} {"in-tree":<7}  caught by')
    for r in rows:
        kind, intree = classify(r)
        ours = {'ours': 'yes', 'chance': 'chance', 'intree-only': 'no',
                'race-only': 'race', 'missed': 'no', 'not booted': '-'}[kind]
        by = '; '.join(f'{s}: {", ".join(t[:3])}{" ..." if len(t) > 3 else ""}'
                       for s, t in sorted(r['caught'].items()))
        out.append(f'{r["name"]:<{width}}  {ours:<7} '
                   f'{"yes" if intree else ("-" if kind == "not booted" else "no"):<7}  '
                   f'{by or "-"}')
    booted = [r for r in rows if r['booted']]
    n = len(booted)
    ours = sum(1 for r in booted if classify(r)[0] == 'ours')
    chance = sum(1 for r in booted if classify(r)[0] == 'chance')
    race = sum(1 for r in booted if classify(r)[0] == 'race-only')
    intree = sum(1 for r in booted if classify(r)[1])
    out.append(f'inject: our suites catch {ours} of {n} deterministically '
               f'({chance} more only by a randomized suite; {race} race-only, '
               f'reason in the entry); the in-tree futex selftests catch '
               f'{intree} of {n}')
    return '\n'.join(out)


def markdown(rows):
    out = ['| bug | upstream | year | class | ours | in-tree | caught by |',
           '|---|---|---|---|---|---|---|']
    for r in rows:
        kind, intree = classify(r)
        f = r['fields']
        up = f.get('Upstream', '').split(' (')[0]
        by = ', '.join(sorted(r['caught'])) or '-'
        out.append(f'| {r["name"]} | {up} | {f.get("Year", "")} | '
                   f'{f.get("Class", "")} | {kind} | '
                   f'{"yes" if intree else "no"} | {by} |')
    return '\n'.join(out) + '\n'


def svg(rows):
    """A bar chart: of the bugs booted, how many each side caught."""
    booted = [r for r in rows if r['booted']]
    bars = [('bugs booted', len(booted), '#888'),
            ('our suites, deterministic',
             sum(1 for r in booted if classify(r)[0] == 'ours'), '#2a6'),
            ('our suites, randomized only',
             sum(1 for r in booted if classify(r)[0] == 'chance'), '#ca3'),
            ('race-only, not caught',
             sum(1 for r in booted if classify(r)[0] == 'race-only'), '#c66'),
            ('in-tree futex selftests',
             sum(1 for r in booted if classify(r)[1]), '#36c')]
    most = max(1, bars[0][1])
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="560" '
           f'height="{40 * len(bars) + 30}" font-family="sans-serif" '
           'font-size="13">',
           '<text x="10" y="18">Re-introduced PI bugs caught '
           '(make inject)</text>']
    for i, (label, n, colour) in enumerate(bars):
        y = 30 + 40 * i
        width = int(300 * n / most)
        out.append(f'<text x="10" y="{y + 20}">{label}</text>')
        out.append(f'<rect x="220" y="{y + 6}" width="{width}" height="20" '
                   f'fill="{colour}"/>')
        out.append(f'<text x="{226 + width}" y="{y + 21}">{n}</text>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def main(argv):
    p = argparse.ArgumentParser(
        usage=__doc__.strip().split('\n\n')[1].split(': ', 1)[1])
    p.add_argument('--json')
    p.add_argument('--markdown')
    p.add_argument('--svg')
    p.add_argument('--expect', metavar='SUITE:TEST')
    p.add_argument('corpus')
    p.add_argument('outdir')
    p.add_argument('names', nargs='*')
    opts = p.parse_args(argv[1:])
    if not os.path.isdir(opts.corpus):
        p.error(f'{opts.corpus} is not a directory')
    names = opts.names or sorted(
        f[:-5] for f in os.listdir(opts.outdir) if f.endswith('.json')
        and os.path.exists(os.path.join(opts.corpus, f[:-5] + '.patch')))
    if not names:
        p.error(f'no verdict of a corpus entry in {opts.outdir}')
    rows = report(opts.corpus, opts.outdir, names)
    print(render(rows))
    if opts.expect:
        suite, _, test = opts.expect.partition(':')
        missed = [r['name'] for r in rows
                  if test not in r['caught'].get(suite, [])]
        for name in missed:
            print(f'inject: {opts.expect} did not fail with {name}')
        if missed:
            return 1
        print(f'inject: {opts.expect} failed with {", ".join(names)}, '
              f'as it must')
    if opts.json:
        with open(opts.json, 'w', encoding='utf-8') as f:
            json.dump([{'name': r['name'], 'upstream': r['fields'].get('Upstream'),
                        'year': r['fields'].get('Year'),
                        'class': r['fields'].get('Class'),
                        'result': classify(r)[0], 'in_tree': classify(r)[1],
                        'caught': r['caught']} for r in rows], f, indent=1)
    if opts.markdown:
        with open(opts.markdown, 'w', encoding='utf-8') as f:
            f.write(markdown(rows))
    if opts.svg:
        with open(opts.svg, 'w', encoding='utf-8') as f:
            f.write(svg(rows))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
