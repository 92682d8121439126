# SPDX-License-Identifier: GPL-2.0
"""tools/mail/check-patch-headers.py on good and broken patch mails."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, 'tools', 'mail', 'check-patch-headers.py')

GOOD = '''From 0123 Mon Sep 17 00:00:00 2001
From: A Developer <a@example.org>
Date: Thu, 3 Dec 2026 03:33:54 +0000
Subject: [PATCH] locking/rtmutex: Do a thing

Say why the thing is needed, in a body wrapped at
seventy-five columns, over more than one line.

Signed-off-by: A Developer <a@example.org>
---
 a.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/a.c b/a.c
'''


class HeaderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_check(self, patches):
        names = []
        for name, text in patches:
            with open(os.path.join(self.tmp, name), 'w') as f:
                f.write(text)
            names.append(name)
        with open(os.path.join(self.tmp, 'series'), 'w') as f:
            f.write('# banner\n' + ''.join(n + '\n' for n in names))
        p = subprocess.run([sys.executable, CHECK,
                            os.path.join(self.tmp, 'series'), self.tmp],
                           capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_good_series(self):
        rc, out = self.run_check([
            ('0001-locking-do-a-thing.patch', GOOD),
            ('9999-kbuild-add-localversion.patch',
             GOOD.replace('Do a thing', 'Add localversion'))])
        self.assertEqual(rc, 0, out)

    def test_each_defect_is_named(self):
        cases = [
            (GOOD.replace('Subject: [PATCH] locking/rtmutex: Do a thing',
                          'Subject: [PATCH] Do a thing'), 'subsys: Summary'),
            (GOOD.replace('Do a thing', 'Do ' + 'a' * 80), 'longer than 75'),
            (GOOD.replace('Signed-off-by: A Developer <a@example.org>\n', ''),
             'no Signed-off-by'),
            (GOOD.replace('Date: Thu, 3 Dec 2026 03:33:54 +0000\n', ''),
             'no Date: header'),
            (GOOD.replace(' 1 file changed, 1 insertion(+)\n', ''),
             'no diffstat'),
            (GOOD.replace('Say why the thing is needed, in a body wrapped at\n'
                          'seventy-five columns, over more than one line.\n',
                          'x\n'), 'does not say why'),
            (GOOD.replace('seventy-five columns', 'x' * 90), 'longer than 75 '
             'columns'),
        ]
        for text, msg in cases:
            rc, out = self.run_check([
                ('0001-locking-do-a-thing.patch', text),
                ('9999-kbuild-add-localversion.patch',
                 GOOD.replace('Do a thing', 'Add localversion'))])
            self.assertEqual(rc, 1, msg)
            self.assertIn(msg, out)

    def test_pin_directory_and_bad_names(self):
        # A pin's own version of a patch lives in patches/<line>/.
        os.mkdir(os.path.join(self.tmp, '6.12'))
        rc, out = self.run_check([
            ('6.12/0001-locking-do-a-thing.patch', GOOD),
            ('9999-kbuild-add-localversion.patch',
             GOOD.replace('Do a thing', 'Add localversion'))])
        self.assertEqual(rc, 0, out)
        rc, out = self.run_check([
            ('6.12/locking-do-a-thing.patch', GOOD),
            ('9999-kbuild-add-localversion.patch',
             GOOD.replace('Do a thing', 'Add localversion'))])
        self.assertEqual(rc, 1)
        self.assertIn('not named NNNN-subsys-summary.patch', out)

    def test_duplicate_subject_and_order(self):
        rc, out = self.run_check([
            ('9999-kbuild-add-localversion.patch', GOOD),
            ('0001-locking-do-a-thing.patch', GOOD)])
        self.assertEqual(rc, 1)
        self.assertIn('same subject as', out)
        self.assertIn('localversion patch is not last', out)


if __name__ == '__main__':
    unittest.main()


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
        # The "fixes" mail series comes first in every pin's series, is
        # the mainline patch files themselves (the mails git am onto every
        # pin), and every kernel fix in it has tests in tests/prove-fixes.
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
            fixes = [p for g, p in mails if g == 'fixes']
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
        self.assertEqual(proven, kernel_fixes)

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


class ShellLintTest(unittest.TestCase):
    """tools/lint-shell.sh: shellcheck on every shell script of a tree."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        os.makedirs(os.path.join(self.tmp, 'build'))
        # Under build/: never linted.
        self.write('build/junk.sh', '#!/bin/sh\necho $x\n')

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def lint(self):
        return subprocess.run([os.path.join(ROOT, 'tools', 'lint-shell.sh'),
                               self.tmp], capture_output=True, text=True)

    def test_clean_scripts_pass(self):
        self.write('tools/a.sh', '#!/bin/sh\necho "$1"\n')
        self.write('init', '#!/bin/sh\n. ./lib.sh\nhello\n')
        self.write('lib.sh', '# shellcheck shell=sh\nhello() { echo hi; }\n')
        p = self.lint()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('3 shell scripts shellcheck clean', p.stdout)

    def test_finding_fails_naming_the_line(self):
        # A script without .sh is found by its #! line.
        self.write('init', '#!/bin/sh\nrm -rf $1/tmp\n')
        p = self.lint()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('init:2:', p.stdout)
        self.assertIn('SC2086', p.stdout)
