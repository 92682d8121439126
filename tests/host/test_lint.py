# SPDX-License-Identifier: GPL-2.0
"""tools/lint-shell.sh: shellcheck of the harness's own scripts."""
import os
import shutil
import subprocess
import tempfile
import unittest

from helpers import ROOT


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


if __name__ == '__main__':
    unittest.main()
