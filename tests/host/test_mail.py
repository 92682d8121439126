# SPDX-License-Identifier: GPL-2.0
"""The mail tools (tools/mail/): check-patch-headers.py on good and
broken mails, and export-series.sh's identity."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, tool, write


CHECK = tool('check-patch-headers.py')


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


class MailIdentityTest(unittest.TestCase):
    """tools/lib.sh: dco_identity and series_mails."""

    def sh(self, script, **env):
        home = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, home)
        gitconfig = os.path.join(home, 'gitconfig')
        open(gitconfig, 'w').close()
        e = dict(os.environ, HOME=home, GIT_CONFIG_GLOBAL=gitconfig,
                 GIT_CONFIG_NOSYSTEM='1')
        e.pop('PIFUTEX_DCO', None)
        e.update(env)
        lib = os.path.join(ROOT, 'tools', 'lib.sh')
        return subprocess.run(['bash', '-c', f'. {lib}; {script}'],
                              env=e, capture_output=True, text=True,
                              cwd=home)

    def test_dco_from_variable_git_or_project(self):
        p = self.sh('dco_identity', PIFUTEX_DCO='Ada L <ada@example.com>')
        self.assertEqual(p.stdout, 'Ada L <ada@example.com>\n')
        p = self.sh('dco_identity', PIFUTEX_DCO='just a name')
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('is not "Name <address>"', p.stderr)
        p = self.sh('git config --global user.name "Bo B"; '
                    'git config --global user.email bo@example.com; '
                    'dco_identity')
        self.assertEqual(p.stdout, 'Bo B <bo@example.com>\n')
        p = self.sh('dco_identity')
        self.assertEqual(p.stdout,
                         'Pi Futex Developers <pi-futex@example.org>\n')

    def test_export_refuses_the_placeholder_identity(self):
        src = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, src)
        write(os.path.join(src, 'Makefile'),
              'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\n')
        export = tool('export-series.sh')
        for dco in ('', 'Pi Futex Developers <pi-futex@example.org>'):
            p = self.sh(f'{export} export', PIFUTEX_SRC=src, PIFUTEX_DCO=dco)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn('export-series.sh: error: the mails would carry '
                          "the patch files' placeholder identity, Pi Futex "
                          "Developers <pi-futex@example.org>; set DCO='Name "
                          "<address>' (make export DCO=...) or git's "
                          'user.name and user.email', p.stderr)

    def test_series_mails_groups_and_rejects_unmarked(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        good = os.path.join(d, 'good')
        with open(good, 'w') as f:
            f.write('# head\n# mail: fixes\na.patch\nb.patch\n'
                    '# mail: tester\nc.patch\n# mail: -\nz.patch\n')
        p = self.sh('series_mails', SERIES_FILE=good)
        self.assertEqual(p.stdout, 'fixes a.patch\nfixes b.patch\n'
                                   'tester c.patch\n')
        bad = os.path.join(d, 'bad')
        with open(bad, 'w') as f:
            f.write('a.patch\n# mail: fixes\nb.patch\n')
        p = self.sh('series_mails', SERIES_FILE=bad)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('a.patch comes before any "# mail:" line', p.stderr)


if __name__ == '__main__':
    unittest.main()


COMPARE = tool('b4-compare.py')


def mail(subject, trailers, plus, n=1):
    """A mail of @subject with @trailers and a diff adding @plus lines."""
    diff = ''.join('+line %d\n' % i for i in range(plus))
    return ('From 0123 Mon Sep 17 00:00:00 2001\n'
            'From: A Developer <a@example.org>\n'
            'Subject: [PATCH v1 %d/%d] %s\n\n'
            'Why, in a sentence.\n\n%s\n---\n a.c | 1 +\n\n'
            'diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n'
            '@@ -0,0 +1,%d @@\n%s-- \n2.39.5\n'
            % (n, n, subject, ''.join(t + '\n' for t in trailers), plus, diff))


class B4CompareTest(unittest.TestCase):
    """b4-compare.py: b4's messages against the exported mails."""

    SOB = 'Signed-off-by: A Developer <a@example.org>'

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def series(self, name, ext, patches):
        d = os.path.join(self.tmp, name)
        cover = ('From 0123 Mon Sep 17 00:00:00 2001\n'
                 'Subject: [PATCH 0/%d] locking/rtmutex: Fix things\n\n'
                 'The cover.\n' % len(patches))
        write(os.path.join(d, '0000-cover.' + ext), cover)
        for i, text in enumerate(patches, 1):
            write(os.path.join(d, '%04d-p.%s' % (i, ext)), text)
        return d

    def compare(self, mine, theirs):
        a = self.series('exported', 'patch', mine)
        b = self.series('b4', 'eml', theirs)
        p = subprocess.run([sys.executable, COMPARE, a, b],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def test_same_series_passes(self):
        m = [mail('locking/rtmutex: Fix a', ['Cc: stable@vger.kernel.org',
                                            self.SOB], 3)]
        rc, out = self.compare(m, m)
        self.assertEqual(rc, 0, out)
        self.assertIn('a cover letter and 1 patch(es)', out)

    def test_each_difference_is_named(self):
        good = mail('locking/rtmutex: Fix a', ['Fixes: 0123456789ab ("x")',
                                              self.SOB], 3)
        for theirs, what in (
                (mail('locking/rtmutex: Fix b', ['Fixes: 0123456789ab ("x")',
                                                self.SOB], 3), 'subject'),
                (mail('locking/rtmutex: Fix a', [self.SOB], 3), 'trailers'),
                (mail('locking/rtmutex: Fix a', ['Fixes: 0123456789ab ("x")',
                                                self.SOB], 2), '+/-')):
            rc, out = self.compare([good], [theirs])
            self.assertEqual(rc, 1, out)
            self.assertIn(what, out)
        rc, out = self.compare([good, good], [good])
        self.assertEqual(rc, 1, out)
        self.assertIn('b4 made 2 messages for 3 mails', out)

    def test_bad_input_is_an_error(self):
        rc, out = self.compare([], [])
        self.assertEqual(rc, 2, out)
        self.assertIn('no exported mails besides a cover letter', out)
