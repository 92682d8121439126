# SPDX-License-Identifier: GPL-2.0
"""tools/beside.sh, which make check uses to run the host-side checks
beside a boot: wait gives the command's output and exit status, and a
command that died without one is a failure, not a hang or a pass."""
import os
import shutil
import subprocess
import tempfile
import unittest

from helpers import tool

BESIDE = tool('beside.sh')


class BesideTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def beside(self, *args, env=None):
        return subprocess.run([BESIDE, self.tmp, *args], capture_output=True,
                              text=True, timeout=60, env=env)

    def test_wait_gives_output_and_status(self):
        p = self.beside('start', 'x', 'sh', '-c',
                        'echo out; echo err >&2; exit 3')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('[beside] x started', p.stderr)
        p = self.beside('wait', 'x')
        self.assertEqual(p.returncode, 3)
        self.assertEqual(p.stdout, 'out\nerr\n')
        self.assertIn('[beside] x: exit 3', p.stderr)

    def test_passing_command(self):
        self.beside('start', 'ok', 'true')
        p = self.beside('wait', 'ok')
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_command_killed_without_a_status_fails(self):
        # The subshell that would record the status dies with it.
        self.beside('start', 'k', 'sh', '-c', 'kill -KILL $PPID; sleep 30')
        p = self.beside('wait', 'k')
        self.assertEqual(p.returncode, 1)
        self.assertIn('ended without an exit status', p.stderr)

    def test_runs_at_lower_priority(self):
        self.beside('start', 'n', 'nice')
        p = self.beside('wait', 'n')
        # 10 more than ours (make check may run this beside a boot too),
        # up to the limit of 19.
        self.assertEqual(int(p.stdout), min(os.nice(0) + 10, 19))

    def test_no_jobserver_but_the_variables(self):
        env = dict(os.environ,
                   MAKEFLAGS=' --jobserver-auth=fifo:/nonexistent -- A=1\\ 2')
        self.beside('start', 'm', 'sh', '-c', 'echo "$MAKEFLAGS"', env=env)
        p = self.beside('wait', 'm')
        self.assertEqual(p.stdout, '-- A=1\\ 2\n')

    def test_never_started_and_bad_name(self):
        p = self.beside('wait', 'none')
        self.assertEqual(p.returncode, 2)
        self.assertIn('never started', p.stderr)
        p = self.beside('start', '../x', 'true')
        self.assertEqual(p.returncode, 2)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, '..', 'x.log')))


if __name__ == '__main__':
    unittest.main()
