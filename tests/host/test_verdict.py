# SPDX-License-Identifier: GPL-2.0
"""tools/judge/verdict.py on canned serial logs."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import import_path, tool

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = tool('verdict.py')
import_path('verdict.py')
import verdict  # noqa: E402


def run(name):
    log = os.path.join(HERE, 'logs', name)
    p = subprocess.run([sys.executable, VERDICT, log], capture_output=True,
                       text=True)
    return p.returncode, p.stdout


def load(name):
    with open(os.path.join(HERE, 'logs', name), encoding='utf-8') as f:
        return verdict.verdict(f.readlines())


class VerdictTest(unittest.TestCase):
    def test_pass_log_passes_with_counts(self):
        rc, out = run('pass.log')
        self.assertEqual(rc, 0, out)
        suites, problems, guest_rc = load('pass.log')
        self.assertEqual(problems, [])
        self.assertEqual(guest_rc, 0)
        self.assertEqual([(s['suite'], s['pass'], s['fail'], s['skip'])
                          for s in suites],
                         [('sanity', 2, 0, 1), ('other', 1, 0, 0)])
        self.assertIn('verdict: PASS', out)
        self.assertIn('guest: 6.12.118-pi-futex on 2 vCPU(s)\n'
                      'guest: 3 passed, 0 failed, 1 skipped\n', out)
        # A suite's "# counts:" line reaches the verdict, under its name.
        self.assertEqual(suites[1].get('counts'),
                         '200 scenarios x 50 steps, 0 violation(s)')
        self.assertNotIn('counts', suites[0])
        self.assertRegex(out, r'\nother +200 scenarios x 50 steps')

    def test_failing_subtest_fails(self):
        rc, out = run('fail.log')
        self.assertEqual(rc, 1)
        suites, _, _ = load('fail.log')
        self.assertEqual((suites[0]['pass'], suites[0]['fail']), (1, 1))
        self.assertRegex(out, r'sanity\s+1\s+1\s+0\s+FAIL')

    def test_subtests_by_name(self):
        # make prove-fixes reads which subtest failed, by name.
        suites, _, _ = load('fail.log')
        self.assertEqual(suites[0]['tests'],
                         {'first': 'pass', 'second': 'fail'})
        suites, _, _ = load('pass.log')
        self.assertEqual(suites[0]['tests'].get('python3_starts'), 'skip')

    def test_warning_is_a_crash_with_its_line(self):
        rc, out = run('warning.log')
        self.assertEqual(rc, 1)
        self.assertIn('log:7: kernel crash signature: WARNING: CPU: 1', out)

    def test_lockdep_splat_is_a_crash(self):
        rc, out = run('lockdep.log')
        self.assertEqual(rc, 1)
        self.assertIn('possible circular locking dependency', out)

    def test_panic_without_suites_is_infra(self):
        rc, out = run('panic.log')
        self.assertEqual(rc, 2)
        self.assertIn('verdict: INFRA', out)
        self.assertIn('Kernel panic', out)
        self.assertIn('guest never started', out)

    def test_hang_without_end_marker_fails(self):
        rc, out = run('hang.log')
        self.assertEqual(rc, 1)
        self.assertIn('guest did not finish', out)
        # The suite that was running when the log ended is named, failed.
        self.assertRegex(out, r'\nstuck +0 +1 +0 +FAIL')
        self.assertIn('log:8: suite stuck was running when the log ended '
                      '(no result, no crash signature: a hang)', out)
        suites, _, _ = load('hang.log')
        self.assertEqual([s['suite'] for s in suites], ['sanity', 'stuck'])

    def test_hang_named_with_the_host_timeout(self):
        with open(os.path.join(HERE, 'logs', 'hang.log'),
                  encoding='utf-8') as f:
            v = verdict.parse(f.readlines())
        outcome, reasons = verdict.decide(v, timed_out='900')
        self.assertEqual(outcome, 'fail')
        self.assertIn('log:8: suite stuck was running when the log ended '
                      '(no result, no crash signature: a hang; QEMU '
                      'killed after 900s)', reasons)

    def test_crash_inside_a_suite_names_the_suite(self):
        rc, out = run('crash-in-suite.log')
        self.assertEqual(rc, 1)
        self.assertRegex(out, r'\nfutex-pi-errors +1 +1 +0 +FAIL')
        self.assertIn('log:10: suite futex-pi-errors was running when the '
                      'log ended (kernel crash signature at log:14)', out)

    def test_suite_killed_at_its_limit_is_named(self):
        rc, out = run('killed.log')
        self.assertEqual(rc, 1)
        self.assertRegex(out, r'\nhang-grandchild +0 +1 +0 +FAIL')
        self.assertRegex(out, r'\nsanity +1 +0 +0 +PASS')
        self.assertIn('log:6: suite hang-grandchild killed at its limit of '
                      '10s', out)

    def test_interleaved_kernel_lines_are_tolerated(self):
        rc, out = run('interleaved.log')
        self.assertEqual(rc, 0, out)
        suites, _, _ = load('interleaved.log')
        self.assertEqual(suites[0]['pass'], 2)

    def test_plan_mismatch_fails(self):
        rc, out = run('plan-mismatch.log')
        self.assertEqual(rc, 1)
        self.assertIn('planned 3 tests but reported 2', out)

    def test_kunit_before_guest_is_parsed(self):
        rc, out = run('kunit.log')
        self.assertEqual(rc, 1)
        suites, _, _ = load('kunit.log')
        self.assertEqual(suites[0]['suite'], 'kunit:plist')
        self.assertEqual((suites[0]['pass'], suites[0]['fail']), (1, 1))
        self.assertEqual(suites[1]['suite'], 'sanity')

    def test_missing_log_is_a_usage_error(self):
        p = subprocess.run([sys.executable, VERDICT, '/nonexistent/log'],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('verdict: error:', p.stderr)

    def test_attempt_is_recorded_and_a_bad_one_rejected(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        first = os.path.join(tmp, 'x.kvm-attempt.json')
        p = subprocess.run([sys.executable, VERDICT, '--json', first,
                            '--accel', 'kvm', '--stalled', '60',
                            os.path.join(HERE, 'logs', 'panic.log')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn('QEMU stopped: no kernel output after 60s', p.stdout)
        final = os.path.join(tmp, 'x.json')
        p = subprocess.run([sys.executable, VERDICT, '--json', final,
                            '--accel', 'tcg', '--attempt', first,
                            os.path.join(HERE, 'logs', 'pass.log')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('after a failed kvm boot (INFRA: guest never started',
                      p.stdout)
        self.assertIn('log x.kvm-attempt.log)', p.stdout)
        with open(final) as f:
            v = json.load(f)
        self.assertEqual((v['accel'], v['begun']), ('tcg', True))
        self.assertEqual([(a['accel'], a['verdict']) for a in v['attempts']],
                         [('kvm', 'infra')])
        p = subprocess.run([sys.executable, VERDICT, '--attempt',
                            os.path.join(tmp, 'none.json'),
                            os.path.join(HERE, 'logs', 'pass.log')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('verdict: error: --attempt ', p.stderr)

    def test_summary_names_each_kernel_and_sums(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        paths = []
        for name in ('pass.log', 'fail.log'):
            j = os.path.join(tmp, name.replace('.log', '.json'))
            subprocess.run([sys.executable, VERDICT, '--json', j,
                            os.path.join(HERE, 'logs', name)],
                           capture_output=True)
            paths.append(j)
        p = subprocess.run([sys.executable, VERDICT, '--summary', *paths],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stdout)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], 'pass: 6.12.118-pi-futex on 2 vCPU(s): '
                         '3 passed, 0 failed, 1 skipped, PASS')
        self.assertTrue(lines[1].endswith('FAIL'), lines[1])
        fail = load('fail.log')[0]
        self.assertEqual(lines[2], 'boots: %d passed, %d failed, %d skipped'
                         % (3 + sum(s['pass'] for s in fail),
                            sum(s['fail'] for s in fail),
                            1 + sum(s['skip'] for s in fail)))
        p = subprocess.run([sys.executable, VERDICT, '--summary', paths[0]],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)


if __name__ == '__main__':
    unittest.main()
