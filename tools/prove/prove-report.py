#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the boots of make prove-fixes.

usage: prove-report.py [--flavour F] [--pin LINE] [--fix PREFIX] EXPECT
                       FULL.json PATCH=WITHOUT.json... [PATCH@GLOB=CRASH.json...]
       prove-report.py --list [--warns|--crashes] [--flavour F] [--pin LINE]
                       [--fix PREFIX] EXPECT

EXPECT is tests/prove-fixes.  A row that ends in flavour names holds only
on kernels of those flavours, one that names pin lines (7.3, 6.12) only
on those pins; --flavour and --pin keep the rows that hold on F and LINE.
--fix keeps the fixes whose file name starts with PREFIX.  --list prints
the fixes left, one per line, in EXPECT's order (with --warns: only those
with a "warns" or "may-warn" row; with --crashes: "PATCH GLOB TEXT" for
each "crashes" row).

FULL.json is the verdict of the kernel with the whole series, each
WITHOUT.json the verdict of a kernel with only PATCH missing
(tools/judge/verdict.py --json, which names every subtest).

Prints one row per test named in EXPECT: whether it failed without its
fix and passed with the series.  Exits 0 only if every such test did
both, every other test passed on every kernel (a suite EXPECT marks
"may" for a fix is not judged on that fix's kernel), and no boot showed
a crash signature or a missing result.  A "PATCH warns TEXT" row says
the kernel without PATCH WARNs with TEXT on the WARNING line: that
WARNING is then required there, and no other crash signature is taken.
"PATCH may-warn TEXT" takes such a WARNING without requiring it (a
randomized suite may or may not reach it).  Both kinds of row make
prove-fixes boot that kernel without panic_on_warn (--list --warns).

"PATCH crashes GLOB TEXT" says that the kernel without PATCH crashes in
the KUnit tests GLOB (a kunit.filter_glob value), with TEXT in its log
after a crash signature (a function of the oops, say).  prove-fixes boots
that kernel once with kunit.filter_glob=GLOB, whose verdict comes here as
PATCH@GLOB=CRASH.json (its log beside it as CRASH.log), and once more
with kunit.enable=0 for the rest of its rows.
"""
import argparse
import json
import re
import sys


def load_expect(path, flavour=None, fix=None, pin=None):
    fails, may, warns, maywarn, crashes, order = {}, {}, {}, {}, {}, []
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) < 3 or parts[1] not in (
                    'fails', 'may', 'warns', 'may-warn', 'crashes') or (
                    parts[1] == 'crashes' and len(parts) < 4):
                raise SystemExit(f'{path}:{no}: expected "PATCH fails '
                                 f'SUITE:TEST [FLAVOUR...]", "PATCH may '
                                 f'SUITE [FLAVOUR...]", "PATCH warns|'
                                 f'may-warn TEXT [FLAVOUR...]" or "PATCH '
                                 f'crashes GLOB TEXT [FLAVOUR...]"')
            patch, kind, what = parts[:3]
            rest = parts[4:] if kind == 'crashes' else parts[3:]
            pins = [t for t in rest if re.fullmatch(r'\d+\.\d+', t)]
            flavours = [t for t in rest if t not in pins]
            if kind == 'fails' and ':' not in what:
                raise SystemExit(f'{path}:{no}: {what} is not SUITE:TEST')
            if flavour and flavours and flavour not in flavours:
                continue
            if pin and pins and pin not in pins:
                continue
            if fix and not patch.startswith(fix):
                continue
            if patch not in order:
                order.append(patch)
            if kind == 'fails':
                fails.setdefault(patch, []).append(tuple(what.split(':', 1)))
            elif kind == 'warns':
                warns.setdefault(patch, set()).add(what)
            elif kind == 'may-warn':
                maywarn.setdefault(patch, set()).add(what)
            elif kind == 'crashes':
                crashes.setdefault(patch, []).append((what, parts[3]))
            else:
                may.setdefault(patch, set()).add(what)
    return order, fails, may, warns, maywarn, crashes


def results(verdict):
    """{(suite, test): 'pass'|'fail'|'skip'}; a suite without subtests
    is one test named after itself."""
    out = {}
    for s in verdict['suites']:
        tests = s.get('tests')
        if tests:
            for name, res in tests.items():
                out[(s['suite'], name)] = res
        else:
            out[(s['suite'], s['suite'])] = s['result']
        if s['result'] == 'fail' and not any(
                r == 'fail' for r in (tests or {}).values()):
            out[(s['suite'], '(suite)')] = 'fail'
    return out


def crashed(verdict, log, text):
    """Whether a crash signature is among the verdict's problems and
    TEXT is in the log after the first one."""
    sig = [p for p in verdict.get('problems', [])
           if 'kernel crash signature' in p]
    if not sig:
        return False
    m = re.match(r'log:(\d+):', sig[0])
    start = int(m.group(1)) - 1 if m else 0
    return any(text in line for line in log.splitlines()[start:])


def judge(expect, full, without, crash=None):
    """Returns (rows, problems).  without: {patch: verdict}; crash:
    {(patch, glob): (verdict, log text)} of the "crashes" boots."""
    order, fails, may, warns, maywarn, crashes = expect
    crash = crash or {}
    problems = []
    rows = []
    full_res = results(full)
    for p in full.get('problems', []):
        problems.append(f'full series: {p}')
    for key, res in sorted(full_res.items()):
        if res == 'fail':
            problems.append(f'full series: {key[0]}:{key[1]} failed')
    for patch in order:
        if patch not in without:
            problems.append(f'{patch}: no boot without it')
            continue
        for glob, text in crashes.get(patch, []):
            got = crash.get((patch, glob))
            ok = got is not None and crashed(got[0], got[1], text)
            rows.append((patch, f'KUnit {glob}: crash in {text}',
                         'missing' if got is None else
                         'crashed' if ok else 'no crash', '-', ok))
            if not ok:
                problems.append(f'without {patch}: no crash in {text} with '
                                f'kunit.filter_glob={glob}')
        res = results(without[patch])
        seen = set()
        for p in without[patch].get('problems', []):
            # A suite that may fail may also stop short of its plan.
            if any(f'suite {s} planned' in p for s in may.get(patch, ())):
                continue
            hit = [w for w in warns.get(patch, ())
                   if 'crash signature: WARNING:' in p and w in p]
            if hit:
                seen.update(hit)
                continue
            if any('crash signature: WARNING:' in p and w in p
                   for w in maywarn.get(patch, ())):
                continue
            problems.append(f'without {patch}: {p}')
        for w in sorted(warns.get(patch, set()) - seen):
            rows.append((patch, f'WARNING {w}', 'missing', '-', False))
            problems.append(f'without {patch}: no WARNING naming {w}')
        for w in sorted(seen):
            rows.append((patch, f'WARNING {w}', 'warned', '-', True))
        named = set(fails.get(patch, []))
        for suite, test in fails.get(patch, []):
            w = res.get((suite, test), 'missing')
            f = full_res.get((suite, test), 'missing')
            ok = w == 'fail' and f == 'pass'
            rows.append((patch, f'{suite}:{test}', w, f, ok))
            if not ok:
                problems.append(f'{suite}:{test}: {w} without {patch}, '
                                f'{f} with the series (want fail, pass)')
        for (suite, test), r in sorted(res.items()):
            if r != 'fail' or (suite, test) in named:
                continue
            if suite in may.get(patch, set()):
                rows.append((patch, f'{suite} (may fail)', 'fail',
                             full_res.get((suite, test), 'missing'), True))
                continue
            problems.append(f'without {patch}: {suite}:{test} failed '
                            f'but is not named for it')
    return rows, problems


def main(argv):
    p = argparse.ArgumentParser(
        usage=__doc__.strip().split('\n\n')[1].split(': ', 1)[1])
    p.add_argument('--flavour')
    p.add_argument('--pin')
    p.add_argument('--fix')
    p.add_argument('--list', action='store_true')
    p.add_argument('--warns', action='store_true')
    p.add_argument('--crashes', action='store_true')
    p.add_argument('expect', metavar='EXPECT')
    p.add_argument('verdicts', nargs='*', metavar='VERDICT')
    opts = p.parse_args(argv[1:])
    if not opts.list and not opts.verdicts:
        p.error('FULL.json is missing')
    expect = load_expect(opts.expect, opts.flavour, opts.fix, opts.pin)
    if opts.list and opts.crashes:
        print('\n'.join(f'{f} {g} {t}' for f in expect[0]
                        for g, t in expect[5].get(f, [])))
        return 0
    if opts.list:
        print('\n'.join(f for f in expect[0] if not opts.warns
                        or f in expect[3] or f in expect[4]))
        return 0
    with open(opts.verdicts[0], encoding='utf-8') as f:
        full = json.load(f)
    without, crash = {}, {}
    for arg in opts.verdicts[1:]:
        patch, _, path = arg.partition('=')
        with open(path, encoding='utf-8') as f:
            verdict = json.load(f)
        if '@' in patch:
            patch, _, glob = patch.partition('@')
            log = re.sub(r'\.json$', '', path) + '.log'
            with open(log, encoding='utf-8', errors='replace') as f:
                crash[(patch, glob)] = (verdict, f.read())
        else:
            without[patch] = verdict
    rows, problems = judge(expect, full, without, crash)
    seen = set()
    width = max([len(r[1]) for r in rows] + [10])
    print(f'{"fix / test":<{width + 2}}  {"without":>8} {"with":>6}')
    for patch, test, w, f, ok in rows:
        if patch not in seen:
            seen.add(patch)
            print(patch)
        print(f'  {test:<{width}}  {w:>8} {f:>6}'
              f'{"" if ok else "  <- wrong"}')
    for p in problems:
        print(f'prove-fixes: {p}')
    print(f'prove-fixes: {"PASS" if not problems else "FAIL"} '
          f'({len(without)} fix(es), {len(rows)} row(s))')
    return 0 if not problems else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
