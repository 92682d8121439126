#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every option requested by config fragments survived.

usage: kconfig-verify.py [--unknown-in TREE] DOTCONFIG FRAGMENT...

Like kunit.py, refuse a .config that dropped a requested option: after
merge_config.sh and olddefconfig, Kconfig silently drops options whose
dependencies are not met.  Prints one line per lost option, naming the
fragment and line that asked for it, and exits 1 if there is any; exits
2 on bad usage or a file that cannot be read or is not Kconfig.
With --unknown-in TREE (a developer's own tree, make run TREE=DIR), an
option that no Kconfig file of TREE defines is reported as unknown to
that tree, one line each, and is not a failure; every option the tree
knows must still survive.
"""
import argparse
import os
import re
import sys

SET_RE = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
UNSET_RE = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')


def parse(path, keep_lines=False):
    """Return {option: (value, line_no)}; value 'n' for 'is not set'."""
    opts = {}
    with open(path, encoding='utf-8') as f:
        for no, raw in enumerate(f, 1):
            line = raw.strip()
            m = SET_RE.match(line)
            if m:
                opts[m.group(1)] = (m.group(2), no)
                continue
            m = UNSET_RE.match(line)
            if m:
                opts[m.group(1)] = ('n', no)
                continue
            if line and not line.startswith('#'):
                raise ValueError(f'{path}:{no}: not a Kconfig line: {line}')
    return opts


def lost_options(dotconfig, fragments):
    """Each option as the last fragment that names it asks for it (a
    later fragment overrides an earlier one, as in merge_config.sh)."""
    final = parse(dotconfig)
    wanted = {}
    for frag in fragments:
        for opt, (want, no) in parse(frag).items():
            wanted[opt] = (frag, no, want)
    lost = []
    for opt, (frag, no, want) in wanted.items():
        have = final.get(opt, ('n', 0))[0]
        if have != want:
            lost.append((frag, no, opt, want, have))
    return lost


CONFIG_RE = re.compile(r'^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$')


def defined_symbols(tree):
    """Every symbol a Kconfig file of @tree defines."""
    syms = set()
    for d, dirs, files in os.walk(tree):
        dirs[:] = [x for x in dirs if x not in ('.git', '.pc')]
        for f in files:
            if not f.startswith('Kconfig'):
                continue
            with open(os.path.join(d, f), encoding='utf-8',
                      errors='replace') as fh:
                for line in fh:
                    m = CONFIG_RE.match(line)
                    if m:
                        syms.add('CONFIG_' + m.group(1))
    return syms


def parse_args(argv):
    head, usage, rest = __doc__.strip().split('\n\n', 2)
    p = argparse.ArgumentParser(
        usage=usage.split(': ', 1)[1], description=f'{head}\n\n{rest}',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--unknown-in', metavar='TREE',
                   help="report the options TREE's Kconfig does not define")
    p.add_argument('dotconfig', metavar='DOTCONFIG',
                   help='the .config after olddefconfig')
    p.add_argument('fragments', metavar='FRAGMENT', nargs='+',
                   help='a config fragment, in merge order')
    return p.parse_args(argv[1:])


def main(argv):
    opts = parse_args(argv)
    try:
        lost = lost_options(opts.dotconfig, opts.fragments)
    except (OSError, ValueError) as e:
        print(f'kconfig-verify: error: {e}', file=sys.stderr)
        return 2
    if opts.unknown_in:
        known = defined_symbols(opts.unknown_in)
        for frag, no, opt, want, have in lost:
            if opt not in known:
                print(f'kconfig-verify: {frag}:{no}: {opt}={want} requested, '
                      f'unknown to {opts.unknown_in} (no Kconfig defines it)',
                      file=sys.stderr)
        lost = [x for x in lost if x[2] in known]
    for frag, no, opt, want, have in lost:
        shown = 'is not set' if have == 'n' else f'={have}'
        print(f'kconfig-verify: {frag}:{no}: {opt}={want} requested, '
              f'but the final .config has {opt} {shown}', file=sys.stderr)
    if lost:
        print(f'kconfig-verify: error: {len(lost)} requested option(s) '
              'did not survive olddefconfig', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
