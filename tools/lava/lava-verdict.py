#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the log of a LAVA job (tools/lava/lava-job.py) into the project's verdict.

usage: lava-verdict.py [--json FILE] [--compare RUN-QEMU.json] LOG

LOG is what `lava-run` prints, or what `lavacli jobs logs ID` returns
from a lab: one YAML mapping per line, with a level ("lvl") and a
message ("msg").  Read from it:
  * the test cases ("lvl: results") of the test suites "kunit" and
    "pi-futex", pass, fail or skip, as the job's monitors matched them;
  * the job's own result (definition "lava", case "job") and, when it
    is incomplete, LAVA's error type and message;
  * the serial output ("lvl: target" and "feedback"): the guest's begin
    and end markers with /init's exit status, and the crash signatures
    of tools/judge/verdict.py.
The outcome follows tools/judge/verdict.py's rules: pass; fail (a test case
failed, a crash signature, the suites began and did not end, or /init
reported a failure); infra (the guest never began its suites, or
stopped before its first suite without a crash signature).  Exit status
0, 1 or 2 as for tools/judge/verdict.py.

--compare reads the .json verdict tools/run-qemu.sh wrote for the same
cell and checks that both agree: the same outcome, and every suite and
subtest of the .json came back from LAVA with the same result.  Exit
status 0 when they agree, 1 when they do not, 2 on bad input.
"""
import argparse
import collections
import json
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'judge'))
import verdict  # noqa: E402  (tools/judge/verdict.py)

SUITES = ('kunit', 'pi-futex')
Loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class BadLog(Exception):
    pass


def case_id(name):
    """A test case name as LAVA's monitor stores it."""
    return re.sub(r'\W+', '_', name.strip().lower())


def read_log(lines):
    """The test cases, the job result and the serial lines of a log."""
    cases = []
    job = None
    serial = []
    entries = 0
    for no, raw in enumerate(lines, 1):
        raw = raw.strip()
        if not raw or raw in ('---', '...'):
            continue
        if raw.startswith('- '):     # lavacli prints a YAML list
            raw = raw[2:]
        try:
            entry = yaml.load(raw, Loader=Loader)
        except yaml.YAMLError as e:
            raise BadLog(f'line {no}: not a LAVA log entry: {e}') from None
        if not isinstance(entry, dict) or 'lvl' not in entry:
            raise BadLog(f'line {no}: not a LAVA log entry')
        entries += 1
        lvl, msg = entry['lvl'], entry.get('msg')
        if lvl in ('target', 'feedback') and isinstance(msg, str):
            serial.append(msg)
        elif lvl == 'results' and isinstance(msg, dict):
            if msg.get('definition') in SUITES:
                extra = msg.get('extra') or {}
                cases.append({'suite': msg['definition'],
                              'case': str(msg.get('case')),
                              'name': extra.get('test_case_id',
                                                msg.get('case')),
                              'result': msg.get('result')})
            elif (msg.get('definition') == 'lava' and
                  msg.get('case') == 'job'):
                job = msg
    if not entries:
        raise BadLog('empty log')
    return cases, job, serial


def decide(cases, job, serial):
    """The outcome ('pass', 'fail', 'infra') and the reasons: the serial
    lines judged by tools/judge/verdict.py's parse() and decide(), as
    run-qemu.sh's boots are, with what LAVA adds (the job's own result,
    and a test case its monitors saw fail)."""
    reasons = []
    if job is None:
        reasons.append('LAVA reported no job result (log cut short?)')
    elif job.get('result') != 'pass':
        reasons.append(f'LAVA job incomplete: {job.get("error_type", "?")}:'
                       f' {job.get("error_msg", "?")}')
    for c in cases:
        if c['result'] == 'fail':
            reasons.append(f'{c["suite"]}: {c["name"]}: fail')
    v = verdict.parse(serial)
    if v['begin'] is not None and not any(c['suite'] == 'pi-futex'
                                          for c in cases):
        # The serial log says the suites ran; LAVA's monitors saw none.
        reasons.append('no test case came back from the guest (LAVA '
                       'monitors)')
    return verdict.decide(v, extra=reasons)


def counts(cases):
    n = collections.Counter(c['result'] for c in cases)
    return {k: n.get(k, 0) for k in ('pass', 'fail', 'skip')}


def compare(cases, outcome, ref):
    """Where the LAVA cases and outcome differ from run-qemu.sh's .json
    verdict @ref: a list of differences, empty when they agree."""
    diffs = []
    if ref.get('verdict') != outcome:
        diffs.append(f'outcome: LAVA {outcome}, run-qemu.sh '
                     f'{ref.get("verdict")}')
    got = collections.Counter((c['suite'], c['case'], c['result'])
                              for c in cases)
    names = collections.defaultdict(set)
    for c in cases:
        names[(c['suite'], c['case'])].add(c['result'])
    for s in ref.get('suites', []):
        name = s['suite']
        suite = 'kunit' if name.startswith('kunit:') else 'pi-futex'
        name = name.split(':', 1)[1] if suite == 'kunit' else name
        # A suite whose subtests were all skipped is "skip" in the
        # .json, but its own KTAP line says "ok".
        want = {'skip': {'skip', 'pass'}}.get(s['result'], {s['result']})
        if not names[(suite, case_id(name))] & want:
            diffs.append(f'{suite}: suite {name}: run-qemu.sh '
                         f'{s["result"]}, LAVA '
                         f'{sorted(names[(suite, case_id(name))]) or "none"}')
        for test, result in (s.get('tests') or {}).items():
            key = (suite, case_id(test), result)
            if got[key] < 1:
                diffs.append(f'{suite}: {name}: {test}: run-qemu.sh '
                             f'{result}, LAVA '
                             f'{sorted(names[key[:2]]) or "none"}')
            else:
                got[key] -= 1
    return diffs


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--json', help="write the verdict here")
    p.add_argument('--compare', metavar='RUN-QEMU.json',
                   help="run-qemu.sh's verdict of the same cell")
    p.add_argument('log')
    args = p.parse_args(argv[1:])
    try:
        with open(args.log, encoding='utf-8', errors='replace') as f:
            cases, job, serial = read_log(f)
        ref = None
        if args.compare:
            with open(args.compare, encoding='utf-8') as f:
                ref = json.load(f)
    except (OSError, ValueError, BadLog) as e:
        print(f'lava-verdict: error: {e}', file=sys.stderr)
        return 2
    outcome, reasons = decide(cases, job, serial)
    for r in reasons:
        print(f'lava-verdict: {args.log}: {r}')
    for suite in SUITES:
        n = counts([c for c in cases if c['suite'] == suite])
        print(f'lava-verdict: {suite}: {n["pass"]} pass, {n["fail"]} fail, '
              f'{n["skip"]} skip')
    print(f'lava-verdict: {verdict.TITLE[outcome]} (log {args.log})')
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as f:
            json.dump({'verdict': outcome, 'problems': reasons,
                       'cases': cases}, f, indent=1)
    if ref is None:
        return verdict.EXIT[outcome]
    diffs = compare(cases, outcome, ref)
    for d in diffs:
        print(f'lava-verdict: differs from {args.compare}: {d}')
    if diffs:
        print(f'lava-verdict: DISAGREE with run-qemu.sh ({len(diffs)} '
              f'difference(s))')
        return 1
    print(f'lava-verdict: agrees with run-qemu.sh: '
          f'{ref.get("verdict", "?").upper()}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
