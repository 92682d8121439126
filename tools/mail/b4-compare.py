#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare one exported mail series with the messages b4 made of it.

usage: b4-compare.py EXPORTED B4

EXPORTED holds the mails of one series of make export-check
(0000-cover-letter.patch, 0001-*.patch, ...), B4 the messages b4 send -o
wrote for the same branch (*.eml).  b4 must have made a cover letter and
one message per mail, in order; each message must carry its mail's
subject (without the [PATCH ...] prefix), its trailers (Signed-off-by:,
Fixes:, Cc: ... of the changelog) and, file by file, as many added and
removed lines.  Prints what differs; exits 0 when nothing does, 1
otherwise, 2 on bad input.
"""
import argparse
import email
import email.policy
import os
import re
import sys

TRAILER = re.compile(r'^(Signed-off-by|Fixes|Cc|Reported-by|Suggested-by|'
                     r'Reviewed-by|Acked-by|Tested-by|Link|Closes): ')
PREFIX = re.compile(r'^\[[^]]*\]\s*')


def parse(path):
    with open(path, 'rb') as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    if msg['Subject'] is None:
        raise ValueError(f'{path}: no Subject')
    subject = ' '.join(str(msg['Subject']).split())
    body = msg.get_payload(decode=True)
    if body is None:
        raise ValueError(f'{path}: no single-part body')
    text = body.decode('utf-8', 'replace')
    log, _, diff = text.partition('\n---\n')
    trailers = [ln for ln in log.splitlines() if TRAILER.match(ln)]
    # Lines added and removed, by file.  git orders a diff's files by
    # name, quilt by the order they were added to the patch, and the two
    # diffs may align a hunk differently; both are the same commit.
    changed, path = {}, None
    for ln in diff.splitlines():
        if ln.startswith('+++ '):
            path = ln[4:].split('\t')[0]
            changed.setdefault(path, [0, 0])
        elif path and ln.startswith('+'):
            changed[path][0] += 1
        elif path and ln.startswith('-') and not ln.startswith('--- ') \
                and ln != '-- ':
            changed[path][1] += 1
    return PREFIX.sub('', subject), subject, trailers, changed


def series(directory, pattern):
    names = sorted(n for n in os.listdir(directory) if re.match(pattern, n))
    return [os.path.join(directory, n) for n in names]


def parse_args(argv):
    head, usage, rest = __doc__.strip().split('\n\n', 2)
    p = argparse.ArgumentParser(
        usage=usage.split(': ', 1)[1], description=f'{head}\n\n{rest}',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('exported', metavar='EXPORTED',
                   help='the directory of the exported mails')
    p.add_argument('b4', metavar='B4',
                   help="the directory of b4's messages")
    return p.parse_args(argv[1:])


def main(argv):
    opts = parse_args(argv)
    exported, b4 = opts.exported, opts.b4
    try:
        mails = series(exported, r'^\d{4}-.*\.patch$')
        msgs = series(b4, r'^\d{4}-.*\.eml$')
        if len(mails) < 2:
            raise ValueError(f'{exported}: no exported mails besides a '
                             f'cover letter')
        mine = [parse(p) for p in mails]
        theirs = [parse(p) for p in msgs]
    except (OSError, ValueError) as e:
        print(f'b4-compare: {e}', file=sys.stderr)
        return 2
    bad = []
    if len(theirs) != len(mine):
        bad.append(f'b4 made {len(theirs)} messages for {len(mine)} mails '
                   f'(cover letter included)')
    n = len(mine) - 1
    for i, (a, b) in enumerate(zip(mine, theirs)):
        what = 'cover letter' if i == 0 else f'patch {i}/{n}'
        if a[0] != b[0]:
            bad.append(f'{what}: subject "{b[0]}", exported "{a[0]}"')
        if i == 0:
            if f'0/{n}]' not in b[1]:
                bad.append(f'{what}: b4 numbered it "{b[1]}"')
            continue
        if a[2] != b[2]:
            bad.append(f'{what}: trailers {b[2]}, exported {a[2]}')
        for path in sorted(set(a[3]) | set(b[3])):
            if a[3].get(path) != b[3].get(path):
                bad.append(f'{what}: {path}: +/- {b[3].get(path)}, '
                           f'exported {a[3].get(path)}')
    for line in bad:
        print(f'b4-compare: {line}')
    if not bad:
        print(f'b4-compare: {b4}: a cover letter and {n} patch(es), subjects, '
              f'trailers and changes as exported')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
