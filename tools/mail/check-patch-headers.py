#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every patch of the series is a well-formed patch mail.

usage: check-patch-headers.py SERIES PATCHDIR

For each patch named in SERIES: From:, Date: and Subject: headers; a
subject "[PATCH] subsys: Summary" of at most 75 characters after the
"[PATCH] " tag, unique in the series; a body that says why (non-empty)
with lines of at most 75 columns; a Signed-off-by: before the "---" line;
a diffstat after it.  The localversion patch must be the last one.
Prints one line per problem and exits 1 if there is any; exits 2 on bad
usage.
"""
import argparse
import os
import re
import sys

SUBJECT_RE = re.compile(r'^Subject: \[PATCH[^\]]*\] ([a-z0-9_./-]+(?:, ?[a-z0-9_./-]+)*): (\S.*)$')
DIFFSTAT_RE = re.compile(r'^ \d+ files? changed')


def check_patch(name, text):
    problems = []
    lines = text.split('\n')
    try:
        end_hdr = lines.index('')
    except ValueError:
        return [f'{name}: no blank line after the mail headers']
    headers = lines[:end_hdr]
    # Folded Subject: lines continue with white space.
    joined = []
    for h in headers:
        if h[:1] in (' ', '\t') and joined:
            joined[-1] += h
        else:
            joined.append(h)
    subject = None
    for key in ('From:', 'Date:', 'Subject:'):
        found = [h for h in joined if h.startswith(key + ' ')]
        if not found:
            problems.append(f'{name}: no {key} header')
        elif key == 'Subject:':
            subject = found[0]
    if subject:
        m = SUBJECT_RE.match(subject)
        if not m:
            problems.append(f'{name}: subject is not "[PATCH] subsys: '
                            f'Summary": {subject}')
        else:
            summary = f'{m.group(1)}: {m.group(2)}'
            if len(summary) > 75:
                problems.append(f'{name}: subject longer than 75 '
                                f'characters ({len(summary)})')
            if not m.group(2)[0].isupper():
                problems.append(f'{name}: summary should start with a '
                                'capital letter')
            subject = summary
    try:
        sep = lines.index('---', end_hdr)
    except ValueError:
        return problems + [f'{name}: no "---" line before the diffstat']
    body = lines[end_hdr + 1:sep]
    sob = [ln for ln in body if ln.startswith('Signed-off-by: ')]
    if not sob:
        problems.append(f'{name}: no Signed-off-by: before "---"')
    prose = [ln for ln in body if ln.strip() and not re.match(
        r'^[A-Za-z-]+: ', ln)]
    if len(prose) < 2:
        problems.append(f'{name}: the body does not say why (too short)')
    for i, ln in enumerate(body):
        if len(ln) > 75 and not ln.startswith(('Link: ', 'Fixes: ')):
            problems.append(f'{name}: body line {end_hdr + 2 + i} longer '
                            f'than 75 columns')
    diff = lines.index(next((ln for ln in lines[sep:]
                             if ln.startswith('diff --git ')), ''), sep) \
        if any(ln.startswith('diff --git ') for ln in lines[sep:]) else None
    stat = lines[sep + 1:diff] if diff else lines[sep + 1:]
    if not any(DIFFSTAT_RE.match(ln) for ln in stat):
        problems.append(f'{name}: no diffstat after "---"')
    return problems, subject


def parse_args(argv):
    head, usage, rest = __doc__.strip().split('\n\n', 2)
    p = argparse.ArgumentParser(
        usage=usage.split(': ', 1)[1], description=f'{head}\n\n{rest}',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('series', metavar='SERIES',
                   help='the quilt series file')
    p.add_argument('pdir', metavar='PATCHDIR',
                   help='the directory of the patches it names')
    return p.parse_args(argv[1:])


def main(argv):
    opts = parse_args(argv)
    series, pdir = opts.series, opts.pdir
    names = []
    with open(series, encoding='utf-8') as f:
        for ln in f:
            ln = ln.strip()
            if ln and not ln.startswith('#'):
                names.append(ln.split()[0])
    problems = []
    subjects = {}
    for name in names:
        try:
            with open(f'{pdir}/{name}', encoding='utf-8') as f:
                text = f.read()
        except OSError as e:
            problems.append(f'{name}: {e}')
            continue
        res = check_patch(name, text)
        if isinstance(res, list):
            problems += res
            continue
        probs, subject = res
        problems += probs
        if subject:
            if subject in subjects:
                problems.append(f'{name}: same subject as {subjects[subject]}')
            subjects[subject] = name
        if not re.match(r'^\d{4}-[a-z0-9-]+\.patch$', os.path.basename(name)):
            problems.append(f'{name}: not named NNNN-subsys-summary.patch')
    if names and 'localversion' not in names[-1]:
        problems.append(f'the localversion patch is not last in {series}')
    for p in problems:
        print(f'patch-headers: {p}')
    print(f'patch-headers: {len(names)} patch(es), {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
