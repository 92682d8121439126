#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest serial log into a verdict.

usage: verdict.py [--json FILE] [--accel A] [--name TEXT] [--timed-out SECS]
                  [--stalled SECS] [--qemu-rc N] [--attempt JSON] LOG
       verdict.py --summary JSON...

Reads the whole serial log that tools/run-qemu.sh saved (parse), decides
an outcome (decide) and prints it (render):
  * crash signatures (BUG:, WARNING:, Kernel panic, Oops, lockdep
    splats, ...), each with its log line;
  * the KTAP the guest's /init printed between the "pi-futex: guest
    begin" and "pi-futex: guest end rc=N" markers, and any KTAP the
    kernel printed before it (KUnit at boot);
  * a table (suite, pass, fail, skip, result), the "# counts:" line each
    suite printed (how much a randomized or stress suite ran), the
    guest's kernel, vCPU count and accelerator.
Outcome and exit status: 0 pass (the guest finished, every plan was met,
no test failed, no crash signature); 1 test failure; 2 infrastructure
failure (the guest never printed its begin marker, or stopped before its
first suite with no crash signature after the marker), or bad usage.
--timed-out, --stalled (no kernel output after SECS) and --qemu-rc tell
it how QEMU ended (run-qemu.sh passes them); --attempt names the .json
verdict of an earlier boot of the same run that broke under another
accelerator, recorded in this verdict as "attempts"; --summary sums the .json verdicts of several boots and exits
with the worst outcome.
With --json, the verdict file also has each suite's subtests by name
("tests": {"name": "pass"|"fail"|"skip"}), which make prove-fixes reads.

Kernel lines may interleave with the suites' output; lines that are not
KTAP are ignored, and a "[    1.234567] " printk timestamp is stripped.
"""
import argparse
import json
import os
import re
import sys

BEGIN = 'pi-futex: guest begin'
END_RE = re.compile(r'pi-futex: guest end rc=(-?\d+)')
STAMP_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT_RE = re.compile(
    r'^(?P<indent>\s*)(?P<ok>ok|not ok)\s+(?P<num>\d+)(?:\s+-)?'
    r'(?:\s+(?P<name>[^#]*?))?\s*(?:#\s*(?P<directive>.*))?$')
PLAN_RE = re.compile(r'^(?P<indent>\s*)1\.\.(?P<n>\d+)\s*$')
COUNTS_RE = re.compile(r'^ {4}# counts: (?P<text>.*\S)\s*$')
# /init's line before each suite, and after one it killed at its limit.
SUITE_RE = re.compile(r'^# suite (?P<name>\S+): .*\(limit (?P<limit>\d+)s\)\s*$')
KILLED_RE = re.compile(r'^# suite (?P<name>\S+) killed after (?P<limit>\d+)s')
CPUS_RE = re.compile(r'pi-futex: guest begin \((?P<release>\S+), (?P<n>\d+) cpu\)')

# Crash signatures, as syzkaller titles them; checked on every line.
CRASH_PATTERNS = [
    re.compile(p) for p in (
        r'\bBUG: ',
        r'\bWARNING: ',
        r'Kernel panic',
        r'\bOops\b',
        r'general protection fault',
        r'Unable to handle kernel',
        r'possible circular locking dependency',
        r'possible recursive locking',
        r'inconsistent lock state',
        r'INFO: task .* blocked for more than',
        r'INFO: rcu_\w+ (self-)?detected stall',
        r'UBSAN: ',
        r'KASAN: ',
    )
]


def clean(line):
    line = line.rstrip('\r\n').replace('\r', '')
    return STAMP_RE.sub('', line)


def crashes(lines):
    found = []
    for no, line in enumerate(lines, 1):
        text = clean(line)
        for pat in CRASH_PATTERNS:
            if pat.search(text):
                found.append((no, text.strip()))
                break
    return found


def is_skip(directive):
    return bool(directive) and directive.strip().upper().startswith('SKIP')


def parse_block(lines, first_no, prefix):
    """Parse a KTAP stream whose top level is indent 0.

    Returns (suites, problems).  Each suite is a dict with its name, its
    own result and the counts of its direct subtests (indent 4).  A
    top-level result with no subtests counts itself.
    """
    suites = []
    problems = []
    plan = None
    pending = {'pass': 0, 'fail': 0, 'skip': 0, 'plans': [], 'seen': 0}
    for offset, raw in enumerate(lines):
        no = first_no + offset
        line = clean(raw)
        m = COUNTS_RE.match(line)
        if m:
            pending['counts'] = m.group('text')
            continue
        m = PLAN_RE.match(line)
        if m:
            depth = len(m.group('indent').expandtabs(4))
            if depth == 0 and plan is None:
                plan = (int(m.group('n')), no)
            elif depth == 4:
                pending['plans'].append((int(m.group('n')), no))
            continue
        m = RESULT_RE.match(line)
        if not m:
            continue
        depth = len(m.group('indent').expandtabs(4))
        ok = m.group('ok') == 'ok'
        skip = is_skip(m.group('directive'))
        name = (m.group('name') or '').strip() or f'test {m.group("num")}'
        if depth == 4:
            key = 'skip' if skip else ('pass' if ok else 'fail')
            pending[key] += 1
            pending['seen'] += 1
            pending.setdefault('tests', {})[name] = key
        elif depth == 0:
            suite = {'suite': prefix + name, 'line': no,
                     'pass': pending['pass'], 'fail': pending['fail'],
                     'skip': pending['skip']}
            if 'counts' in pending:
                suite['counts'] = pending['counts']
            if 'tests' in pending:
                suite['tests'] = pending['tests']
            if pending['seen'] == 0:
                key = 'skip' if skip else ('pass' if ok else 'fail')
                suite[key] = 1
            elif not ok and not skip and suite['fail'] == 0:
                # The suite failed without a failing subtest (it crashed,
                # timed out or missed its plan): count that as a failure.
                suite['fail'] = 1
            if pending['plans']:
                want, pline = pending['plans'][-1]
                if want != pending['seen']:
                    problems.append(f'log:{pline}: suite {name} planned '
                                    f'{want} tests but reported '
                                    f'{pending["seen"]}')
                    suite['fail'] = max(suite['fail'], 1)
            suite['result'] = ('fail' if suite['fail'] else
                               'skip' if skip or (suite['pass'] == 0 and
                                                  suite['skip']) else 'pass')
            suites.append(suite)
            pending = {'pass': 0, 'fail': 0, 'skip': 0, 'plans': [],
                       'seen': 0}
    if plan is not None and plan[0] != len(suites):
        problems.append(f'log:{plan[1]}: plan 1..{plan[0]} but '
                        f'{len(suites)} result(s) reported')
    return suites, problems


def guest_info(lines):
    """The kernel release and vCPU count the guest's begin marker names,
    or (None, None)."""
    for raw in lines:
        m = CPUS_RE.search(clean(raw))
        if m:
            return m.group('release'), int(m.group('n'))
    return None, None


def verdict(lines):
    """Parse a serial log: returns (suites, problems, guest_rc)."""
    v = parse(lines)
    return v['suites'], v['problems'], v['guest_rc']


def parse(lines):
    """Everything the log says: the suites (KUnit at boot, then the
    guest's), the problems found, the guest's markers and rc."""
    problems = []
    begin = end = None
    guest_rc = None
    for i, raw in enumerate(lines):
        text = clean(raw)
        if begin is None and BEGIN in text:
            begin = i
        m = END_RE.search(text)
        if m and begin is not None:
            end = i
            guest_rc = int(m.group(1))
    suites = []
    kernel_part = lines[:begin] if begin is not None else lines
    ksuites, kproblems = parse_block(kernel_part, 1, 'kunit:')
    suites += ksuites
    problems += kproblems
    gsuites = []
    if begin is None:
        problems.append('guest never started its suites '
                        f'(no "{BEGIN}" line)')
    elif end is None:
        # Partial results; the plans cannot be met, so their problems
        # are left out.
        gsuites, _ = parse_block(lines[begin + 1:], begin + 2, '')
        problems.append('guest did not finish its suites (no "pi-futex: '
                        'guest end" line: hang, crash or timeout)')
    else:
        gsuites, gproblems = parse_block(lines[begin + 1:end], begin + 2, '')
        problems += gproblems
        if not gsuites:
            problems.append('guest ran no suite')
    crash = crashes(lines)
    running = None
    if begin is not None:
        problems += killed(lines, begin)
        if end is None:
            running = unfinished(lines, begin, gsuites)
            if running:
                gsuites.append(running)
    suites += gsuites
    for no, text in crash:
        problems.append(f'log:{no}: kernel crash signature: {text}')
    release, cpus = guest_info(lines)
    return {'suites': suites, 'problems': problems, 'guest_rc': guest_rc,
            'begin': begin, 'end': end, 'guest_suites': len(gsuites),
            'crash_lines': [no for no, _ in crash], 'running': running,
            'kernel': release, 'cpus': cpus}


def killed(lines, begin):
    """A problem for each suite /init killed at its time limit."""
    out = []
    for no, raw in enumerate(lines[begin + 1:], begin + 2):
        m = KILLED_RE.match(clean(raw))
        if m:
            out.append(f'log:{no}: suite {m.group("name")} killed at its '
                       f'limit of {m.group("limit")}s')
    return out


def unfinished(lines, begin, done):
    """The suite /init had started when a log without its end marker
    stops, as a failed suite, with the subtests it reported so far and
    the log line it started on; None if every started suite has its
    result.  A suite's result line is "ok N NAME" at indent 0."""
    start = None
    for no, raw in enumerate(lines[begin + 1:], begin + 2):
        m = SUITE_RE.match(clean(raw))
        if m:
            start = (m.group('name'), no)
    if start is None:
        return None
    name, no = start
    if any(s['suite'] == name and s['line'] > no for s in done):
        return None
    counts = {'pass': 0, 'fail': 0, 'skip': 0}
    for raw in lines[no:]:
        m = RESULT_RE.match(clean(raw))
        if m and len(m.group('indent').expandtabs(4)) == 4:
            key = ('skip' if is_skip(m.group('directive')) else
                   'pass' if m.group('ok') == 'ok' else 'fail')
            counts[key] += 1
    counts['fail'] += 1
    return {'suite': name, 'line': no, **counts, 'result': 'fail',
            'running': True}


# Outcomes and their exit codes, as tuxrun classes results.
EXIT = {'pass': 0, 'fail': 1, 'infra': 2}


def decide(v, timed_out=None, qemu_rc=None, stalled=None, extra=()):
    """The outcome of parsed log @v: 'pass', 'fail' (a test failed) or
    'infra' (the run broke before it could test: QEMU did not start, the
    guest never printed its begin marker, or it stopped before its first
    suite without a crash signature to blame), and the reasons.  @extra:
    what the runner of the boot saw go wrong (a LAVA job that did not
    complete), each a reason like a QEMU exit status."""
    reasons = list(v['problems'])
    run = v.get('running')
    if run:
        after = [n for n in v['crash_lines'] if n > run['line']]
        if after:
            why = f'kernel crash signature at log:{after[0]}'
        else:
            why = 'no result, no crash signature: a hang'
            if timed_out:
                why += f'; QEMU killed after {timed_out}s'
            elif stalled:
                why += f'; no kernel output after {stalled}s'
        reasons.insert(0, f'log:{run["line"]}: suite {run["suite"]} was '
                       f'running when the log ended ({why})')
    reasons += extra
    if timed_out:
        reasons.append(f'QEMU killed after {timed_out}s (timeout)')
    if stalled:
        reasons.append(f'QEMU stopped: no kernel output after {stalled}s')
    if qemu_rc:
        reasons.append(f'QEMU exited with status {qemu_rc}')
    tot_fail = sum(s['fail'] for s in v['suites'])
    if v['guest_rc'] not in (None, 0) and tot_fail == 0:
        reasons.append(f'guest /init reported rc={v["guest_rc"]}')
    if v['begin'] is None:
        return 'infra', reasons
    crash_after = [n for n in v['crash_lines'] if n > v['begin']]
    if v['end'] is None and v['guest_suites'] == 0 and not crash_after:
        return 'infra', reasons
    if reasons or tot_fail or not v['suites']:
        return 'fail', reasons
    return 'pass', reasons


def table(suites):
    width = max([len('suite')] + [len(s['suite']) for s in suites])
    out = [f'{"suite":<{width}}  {"pass":>5} {"fail":>5} {"skip":>5}  result',
           '-' * (width + 27)]
    for s in suites:
        out.append(f'{s["suite"]:<{width}}  {s["pass"]:>5} {s["fail"]:>5} '
                   f'{s["skip"]:>5}  {s["result"].upper()}')
    tot = {k: sum(s[k] for s in suites) for k in ('pass', 'fail', 'skip')}
    out.append('-' * (width + 27))
    out.append(f'{"total":<{width}}  {tot["pass"]:>5} {tot["fail"]:>5} '
               f'{tot["skip"]:>5}')
    counted = [s for s in suites if 'counts' in s]
    if counted:
        out.append('counts (as each suite reported them):')
    for s in counted:
        out.append(f'{s["suite"]:<{width}}  {s["counts"]}')
    return '\n'.join(out), tot


def summary(paths):
    """One line per boot verdict (.json), then the sum over all of them."""
    tot = {'pass': 0, 'fail': 0, 'skip': 0}
    worst = 0
    for path in paths:
        try:
            with open(path, encoding='utf-8') as f:
                v = json.load(f)
        except (OSError, ValueError) as e:
            print(f'verdict: error: {path}: {e}', file=sys.stderr)
            return 2
        n = {k: sum(s[k] for s in v['suites']) for k in tot}
        for k in tot:
            tot[k] += n[k]
        worst = max(worst, EXIT.get(v['verdict'], 2))
        name = os.path.basename(path).rsplit('.', 1)[0]
        print(f'{name}: {v.get("name") or v.get("kernel") or "?"} on '
              f'{v.get("cpus") or "?"} '
              f'vCPU(s): {n["pass"]} passed, {n["fail"]} failed, '
              f'{n["skip"]} skipped, {v["verdict"].upper()}')
    print(f'boots: {tot["pass"]} passed, {tot["fail"]} failed, '
          f'{tot["skip"]} skipped')
    return worst


def main(argv):
    doc = __doc__.strip().splitlines()
    p = argparse.ArgumentParser(
        usage='\n'.join(ln[len('usage: '):] if ln.startswith('usage: ')
                        else ln for ln in doc[2:5]),
        description='\n'.join(doc[6:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--json', metavar='FILE', help='write the verdict here')
    p.add_argument('--accel', help='the accelerator the boot ran under')
    p.add_argument('--name', help="the kernel under test, e.g. git describe "
                   "of a developer's tree")
    p.add_argument('--timed-out', metavar='SECS')
    p.add_argument('--stalled', metavar='SECS')
    p.add_argument('--qemu-rc', metavar='N')
    p.add_argument('--attempt', metavar='JSON')
    p.add_argument('--summary', action='store_true',
                   help='sum the .json verdicts given instead of a log')
    p.add_argument('files', nargs='+', metavar='LOG|JSON')
    args = p.parse_args(argv[1:])
    if args.summary:
        return summary(args.files)
    if len(args.files) != 1:
        p.error('one serial log, or --summary JSON...')
    opts = {'--json': args.json, '--accel': args.accel,
            '--timed-out': args.timed_out, '--stalled': args.stalled,
            '--qemu-rc': args.qemu_rc, '--attempt': args.attempt}
    args, name = args.files, args.name
    try:
        with open(args[0], encoding='utf-8', errors='replace') as f:
            lines = f.readlines()
    except OSError as e:
        print(f'verdict: error: {e}', file=sys.stderr)
        return 2
    attempts = []
    if opts['--attempt']:
        try:
            attempts = [attempt(opts['--attempt'])]
        except (OSError, ValueError, KeyError) as e:
            print(f'verdict: error: --attempt {opts["--attempt"]}: {e}',
                  file=sys.stderr)
            return 2
    v = parse(lines)
    outcome, reasons = decide(v, opts['--timed-out'], opts['--qemu-rc'],
                              opts['--stalled'])
    if name:
        print(f'kernel: {name}')
    print(render(args[0], v, outcome, reasons, opts['--accel'], attempts))
    if opts['--json']:
        with open(opts['--json'], 'w', encoding='utf-8') as f:
            json.dump({'suites': v['suites'], 'problems': reasons,
                       'cpus': v['cpus'], 'kernel': v['kernel'],
                       'accel': opts['--accel'], 'verdict': outcome,
                       'name': name,
                       'begun': v['begin'] is not None,
                       'attempts': attempts},
                      f, indent=1)
    return EXIT[outcome]


def attempt(path):
    """What the .json verdict at @path says of a failed boot: its
    accelerator, outcome and reasons, and its serial log (beside it)."""
    with open(path, encoding='utf-8') as f:
        v = json.load(f)
    return {'accel': v['accel'], 'verdict': v['verdict'],
            'problems': v['problems'],
            'log': os.path.basename(path).rsplit('.', 1)[0] + '.log'}


# What each outcome is called on the verdict line.
TITLE = {'pass': 'PASS', 'fail': 'FAIL (test failure)',
         'infra': 'INFRA (infrastructure failure)'}


def render(log, v, outcome, reasons, accel=None, attempts=()):
    text, tot = table(v['suites'])
    out = [text]
    for a in attempts:
        why = '; '.join(a['problems']) or 'no reason given'
        out.append(f'verdict: {log}: after a failed {a["accel"]} boot '
                   f'({a["verdict"].upper()}: {why}; log {a["log"]})')
    out += [f'verdict: {log}: {r}' for r in reasons]
    out.append(f'verdict: {TITLE[outcome]} (log {log}'
               + (f', {accel})' if accel else ')'))
    if v['kernel']:
        out.append(f'guest: {v["kernel"]} on {v["cpus"]} vCPU(s)'
                   + (f', {accel}' if accel else ''))
    out.append(f'guest: {tot["pass"]} passed, {tot["fail"]} failed, '
               f'{tot["skip"]} skipped')
    return '\n'.join(out)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
