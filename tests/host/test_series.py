# SPDX-License-Identifier: GPL-2.0
"""The pins' series: every pin's series against the mainline series."""
import os
import subprocess
import unittest

from helpers import ROOT


def pin_field(kernel, key):
    with open(os.path.join(ROOT, 'pins', kernel)) as f:
        for line in f:
            if line.startswith(key + '='):
                return line.strip().split('=', 1)[1]
    raise KeyError(key)


def series(kernel):
    with open(os.path.join(ROOT, pin_field(kernel, 'PIN_SERIES'))) as f:
        return [ln.split()[0] for ln in f
                if ln.strip() and not ln.lstrip().startswith('#')]


def subject(path):
    with open(path) as f:
        for line in f:
            if line.startswith('Subject:'):
                return line.split(']', 1)[1].strip()
    return None


class PinSeriesTest(unittest.TestCase):
    """Every pin's series is the mainline series, patch for patch: a patch
    of its own only where its tree differs (patches/<line>/), with the
    mainline patch's name and subject, and never a copy of it."""

    def test_every_pin_carries_the_mainline_series(self):
        mainline = os.readlink(os.path.join(ROOT, 'pins', 'default'))
        main = series(mainline)
        pins = [k for k in os.listdir(os.path.join(ROOT, 'pins'))
                if k not in ('default', mainline)]
        self.assertTrue(pins)
        for k in pins:
            own = series(k)
            self.assertEqual([os.path.basename(p) for p in own], main, k)
            for p, m in zip(own, main):
                if p == m:
                    continue
                self.assertEqual(p, f'{k}/{m}')
                path = os.path.join(ROOT, 'patches', p)
                mpath = os.path.join(ROOT, 'patches', m)
                self.assertEqual(subject(path), subject(mpath), p)
                with open(path, 'rb') as a, open(mpath, 'rb') as b:
                    same = a.read() == b.read()
                self.assertFalse(same, f'{p} is a copy of {m}')

    def test_fixes_lead_and_are_shared_and_proven(self):
        # The fixes-* mail series come first in every pin's series, are
        # the mainline patch files themselves (the mails git am onto every
        # pin), and every kernel fix in them is proven: tests in
        # tests/prove-fixes (booted without it), or, where no guest test
        # can place the race, a program make model-prove finds it with.
        mainline = os.readlink(os.path.join(ROOT, 'pins', 'default'))
        lib = os.path.join(ROOT, 'tools', 'lib.sh')
        groups = {}
        for k in [k for k in os.listdir(os.path.join(ROOT, 'pins'))
                  if k != 'default']:
            out = subprocess.run(
                ['bash', '-c', f'. {lib}; series_mails'],
                env=dict(os.environ, KERNEL=k), capture_output=True,
                text=True, check=True).stdout.split('\n')
            mails = [ln.split() for ln in out if ln]
            fixes = [p for g, p in mails if g.startswith('fixes-')]
            self.assertTrue(fixes, k)
            self.assertEqual([p for _, p in mails][:len(fixes)], fixes, k)
            self.assertEqual(series(k)[:len(fixes)], fixes, k)
            groups[k] = fixes
        for k, fixes in groups.items():
            self.assertEqual(fixes, groups[mainline], k)
        with open(os.path.join(ROOT, 'tests', 'prove-fixes')) as f:
            proven = {ln.split()[0] for ln in f
                      if ln.strip() and not ln.startswith('#')}
        kernel_fixes = {p for p in groups[mainline]
                        if not p.split('-', 1)[1].startswith('selftests')}
        self.assertTrue(kernel_fixes)
        self.assertEqual(proven - kernel_fixes, set())
        with open(os.path.join(ROOT, 'tools', 'prove', 'model-prove.sh')) as f:
            line = next(ln for ln in f if ln.startswith('FIXES=('))
        by_model = {p for p in kernel_fixes
                    if p.split('-', 1)[0] in line[len('FIXES=('):-2].split()}
        self.assertEqual(kernel_fixes - proven - by_model, set())

    def test_no_unused_patch_files(self):
        used = set()
        for k in os.listdir(os.path.join(ROOT, 'pins')):
            if k != 'default':
                used.update(series(k))
        pdir = os.path.join(ROOT, 'patches')
        present = {os.path.relpath(os.path.join(d, f), pdir)
                   for d, _, fs in os.walk(pdir) for f in fs
                   if f.endswith('.patch')}
        self.assertEqual(present - used, set())


if __name__ == '__main__':
    unittest.main()
