# SPDX-License-Identifier: GPL-2.0
"""The Makefile's help table: `make help` is generated from it, covers
every target, and README's "Targets and variables" is its output."""
import os
import re
import subprocess
import unittest

from helpers import ROOT


def make_help():
    env = {'PATH': os.environ['PATH'], 'HOME': os.environ.get('HOME', '/')}
    p = subprocess.run(['make', '-s', '--no-print-directory', '-C', ROOT,
                        'help'], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    return p.stdout


def readme_block():
    """The indented block under README's "Targets and variables"."""
    with open(os.path.join(ROOT, 'README'), encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'^Targets and variables\n-+\n\n(.*?)\n\n(?=\S)', text,
                  re.M | re.S)
    assert m, 'README has no "Targets and variables" section'
    return ''.join(ln[4:] + '\n' for ln in m.group(1).split('\n'))


class MakeHelpTest(unittest.TestCase):
    def test_readme_is_make_help(self):
        self.assertEqual(readme_block(), make_help())

    def test_every_target_in_the_table(self):
        with open(os.path.join(ROOT, 'Makefile'), encoding='utf-8') as f:
            text = f.read()
        phony = set(re.search(r'^\.PHONY:((?:.*\\\n)*.*)$', text,
                              re.M).group(1).replace('\\\n', ' ').split())
        rules = set(re.findall(r'^([a-z][a-z0-9-]*):', text, re.M))
        listed = set(re.findall(r'^  make (\S+)', make_help(), re.M))
        self.assertEqual(listed - rules, set(), 'help names no such target')
        self.assertEqual(phony - listed, set(), 'targets missing from help')
        self.assertEqual(rules - listed, set(), 'rules missing from help')

    def test_every_variable_has_its_value(self):
        out = make_help()
        self.assertIn('  KERNEL=7.3 ', out)
        self.assertRegex(out, r'\n  SMP=\d+ ')
        self.assertNotIn('BUILT', out)


if __name__ == '__main__':
    unittest.main()
