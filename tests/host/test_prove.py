# SPDX-License-Identifier: GPL-2.0
"""tools/prove/prove-report.py: what make prove-fixes expects of each fix."""
import os
import subprocess
import tempfile
import unittest

from helpers import ROOT, import_path


class ProveReportTest(unittest.TestCase):
    """tools/prove/prove-report.py on made-up verdicts."""

    EXPECT = ('# comment\n'
              '0001-fix-a.patch fails boost:t_a\n'
              '0001-fix-a.patch may random\n'
              '0003-fix-b.patch fails boost:t_b\n')

    @staticmethod
    def verdict(boost, random='pass', other='pass'):
        return {'suites': [
            {'suite': 'boost', 'result': 'fail' if 'fail' in boost.values()
             else 'pass', 'tests': boost},
            {'suite': 'random', 'result': random,
             'tests': {'scenarios_0_to_24': random}},
            {'suite': 'other', 'result': other}],
            'problems': []}

    def run_report(self, full, without):
        import_path('verdict.py')
        import_path('prove-report.py')
        import importlib
        report = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write(self.EXPECT)
        try:
            expect = report.load_expect(f.name)
        finally:
            os.unlink(f.name)
        return report.judge(expect, full, without)

    def test_flavour_rows_and_fix_prefix(self):
        report = os.path.join(ROOT, 'tools', 'prove', 'prove-report.py')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write(self.EXPECT + '0007-fix-rt.patch fails boost:t_c rt\n'
                    '0007-fix-rt.patch may random rt kasan\n')
        self.addCleanup(os.unlink, f.name)

        def listed(*opts):
            p = subprocess.run([report, '--list', *opts, f.name],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stdout.split()
        self.assertEqual(listed('--flavour', 'debug'),
                         ['0001-fix-a.patch', '0003-fix-b.patch'])
        self.assertEqual(listed('--flavour', 'rt'),
                         ['0001-fix-a.patch', '0003-fix-b.patch',
                          '0007-fix-rt.patch'])
        self.assertEqual(listed('--flavour', 'rt', '--fix', '0007'),
                         ['0007-fix-rt.patch'])
        self.assertEqual(listed('--flavour', 'debug', '--fix', '0007'), [])
        # Judged on rt, the rt-only fix needs its own boot.
        import_path('verdict.py')
        import_path('prove-report.py')
        import importlib
        mod = importlib.import_module('prove-report')
        full = self.verdict({'t_a': 'pass', 't_b': 'pass', 't_c': 'pass'})
        _, problems = mod.judge(mod.load_expect(f.name, 'rt', '0007'),
                                full, {})
        self.assertEqual(problems, ['0007-fix-rt.patch: no boot without it'])
        rows, problems = mod.judge(
            mod.load_expect(f.name, 'rt', '0007'), full,
            {'0007-fix-rt.patch': self.verdict(
                {'t_a': 'pass', 't_b': 'pass', 't_c': 'fail'},
                random='fail')})
        self.assertEqual(problems, [])
        self.assertIn(('0007-fix-rt.patch', 'boost:t_c', 'fail', 'pass',
                       True), rows)

    def test_pin_rows_and_expected_warning(self):
        import_path('verdict.py')
        import_path('prove-report.py')
        import importlib
        mod = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write(self.EXPECT + '0016-fix-dl.patch fails boost:t_c 7.3\n'
                    '0016-fix-dl.patch warns add_running_bw 7.3\n')
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(mod.load_expect(f.name, 'debug', None, '6.12')[0],
                         ['0001-fix-a.patch', '0003-fix-b.patch'])
        expect = mod.load_expect(f.name, 'debug', '0016', '7.3')
        self.assertEqual(expect[0], ['0016-fix-dl.patch'])
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'prove-report.py'),
                            '--list', '--warns', '--pin', '7.3', f.name],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ['0016-fix-dl.patch'])
        full = self.verdict({'t_a': 'pass', 't_b': 'pass', 't_c': 'pass'})
        without = self.verdict({'t_a': 'pass', 't_b': 'pass', 't_c': 'fail'})
        warn = ('log:40: kernel crash signature: WARNING: '
                'kernel/sched/deadline.c:221 at add_running_bw+0x4c/0x60')
        # The WARNING it names is required, and taken.
        _, problems = mod.judge(expect, full, {'0016-fix-dl.patch': without})
        self.assertEqual(problems, ['without 0016-fix-dl.patch: no WARNING '
                                    'naming add_running_bw'])
        without['problems'] = [warn]
        rows, problems = mod.judge(expect, full,
                                   {'0016-fix-dl.patch': without})
        self.assertEqual(problems, [])
        self.assertIn(('0016-fix-dl.patch', 'WARNING add_running_bw',
                       'warned', '-', True), rows)
        # Any other crash signature is not.
        other = 'log:41: kernel crash signature: BUG: add_running_bw'
        without['problems'] = [warn, other]
        _, problems = mod.judge(expect, full, {'0016-fix-dl.patch': without})
        self.assertEqual(problems, [f'without 0016-fix-dl.patch: {other}'])

    def test_may_warn_takes_a_warning_without_requiring_it(self):
        import_path('verdict.py')
        import_path('prove-report.py')
        import importlib
        mod = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write('0007-fix-rt.patch fails boost:t_c rt\n'
                    '0007-fix-rt.patch may-warn rt_mutex_lock_nested rt\n')
        self.addCleanup(os.unlink, f.name)
        expect = mod.load_expect(f.name, 'rt')
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'prove-report.py'),
                            '--list', '--warns', '--flavour', 'rt', f.name],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ['0007-fix-rt.patch'])
        full = self.verdict({'t_c': 'pass'})
        without = self.verdict({'t_c': 'fail'})
        _, problems = mod.judge(expect, full, {'0007-fix-rt.patch': without})
        self.assertEqual(problems, [])
        warn = ('log:9: kernel crash signature: WARNING: kernel/locking/'
                'rtmutex_api.c:77 at rt_mutex_lock_nested+0x81/0x88')
        other = 'log:9: kernel crash signature: WARNING: at foo+0x1/0x2'
        without['problems'] = [warn, other]
        _, problems = mod.judge(expect, full, {'0007-fix-rt.patch': without})
        self.assertEqual(problems, [f'without 0007-fix-rt.patch: {other}'])

    def test_crash_row_needs_the_crash_in_its_function(self):
        import_path('verdict.py')
        import_path('prove-report.py')
        import importlib
        mod = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write('0007-fix-rt.patch fails boost:t_c rt\n'
                    '0007-fix-rt.patch crashes rtmutex.ww_case '
                    '__waiter_less rt\n')
        self.addCleanup(os.unlink, f.name)
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'prove-report.py'),
                            '--list', '--crashes', '--flavour', 'rt',
                            f.name], capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ['0007-fix-rt.patch',
                                            'rtmutex.ww_case',
                                            '__waiter_less'])
        expect = mod.load_expect(f.name, 'rt')
        full = self.verdict({'t_c': 'pass'})
        without = {'0007-fix-rt.patch': self.verdict({'t_c': 'fail'})}
        oops = {'suites': [], 'problems': [
            'log:2: kernel crash signature: Oops: general protection '
            'fault, probably for non-canonical address 0x1111111111111111']}
        log = ('KTAP version 1\nOops: general protection fault\n'
               'RIP: 0010:__waiter_less+0x1c/0x40\n')
        key = ('0007-fix-rt.patch', 'rtmutex.ww_case')
        rows, problems = mod.judge(expect, full, without, {key: (oops, log)})
        self.assertEqual(problems, [])
        self.assertIn(('0007-fix-rt.patch',
                       'KUnit rtmutex.ww_case: crash in __waiter_less',
                       'crashed', '-', True), rows)
        # No crash, a crash elsewhere, or no such boot: each is wrong.
        for crash in ({key: ({'suites': [], 'problems': []}, log)},
                      {key: (oops, log.replace('__waiter_less', 'foo'))},
                      {}):
            _, problems = mod.judge(expect, full, without, crash)
            self.assertEqual(problems, [
                'without 0007-fix-rt.patch: no crash in __waiter_less with '
                'kunit.filter_glob=rtmutex.ww_case'])

    def test_each_fix_proven(self):
        full = self.verdict({'t_a': 'pass', 't_b': 'pass'})
        without = {
            '0001-fix-a.patch': self.verdict({'t_a': 'fail', 't_b': 'pass'},
                                             random='fail'),
            '0003-fix-b.patch': self.verdict({'t_a': 'pass', 't_b': 'fail'}),
        }
        # A suite that may fail stops at its first failure, short of
        # its plan.
        without['0001-fix-a.patch']['problems'] = [
            'log:9: suite random planned 8 tests but reported 2']
        rows, problems = self.run_report(full, without)
        self.assertEqual(problems, [])
        without['0003-fix-b.patch']['problems'] = [
            'log:9: suite random planned 8 tests but reported 2']
        _, problems = self.run_report(full, without)
        self.assertEqual(problems, ['without 0003-fix-b.patch: log:9: suite '
                                    'random planned 8 tests but reported 2'])
        self.assertIn(('0001-fix-a.patch', 'boost:t_a', 'fail', 'pass',
                       True), rows)

    def test_test_that_passes_without_its_fix_is_wrong(self):
        full = self.verdict({'t_a': 'pass', 't_b': 'pass'})
        without = {
            '0001-fix-a.patch': self.verdict({'t_a': 'pass', 't_b': 'pass'}),
            '0003-fix-b.patch': self.verdict({'t_a': 'pass', 't_b': 'fail'}),
        }
        _, problems = self.run_report(full, without)
        self.assertEqual(len(problems), 1)
        self.assertIn('boost:t_a: pass without 0001-fix-a.patch', problems[0])

    def test_other_failure_and_missing_boot_are_wrong(self):
        full = self.verdict({'t_a': 'pass', 't_b': 'pass'})
        without = {
            # "random" may fail only without 0001, "other" never.
            '0003-fix-b.patch': self.verdict({'t_a': 'pass', 't_b': 'fail'},
                                             random='fail', other='fail'),
        }
        _, problems = self.run_report(full, without)
        text = '\n'.join(problems)
        self.assertIn('0001-fix-a.patch: no boot without it', text)
        self.assertIn('without 0003-fix-b.patch: random:scenarios_0_to_24 '
                      'failed but is not named for it', text)
        self.assertIn('without 0003-fix-b.patch: other:other failed', text)

    def test_fix_test_failing_with_the_series_is_wrong(self):
        full = self.verdict({'t_a': 'fail', 't_b': 'pass'})
        without = {
            '0001-fix-a.patch': self.verdict({'t_a': 'fail', 't_b': 'pass'}),
            '0003-fix-b.patch': self.verdict({'t_a': 'fail', 't_b': 'fail'}),
        }
        _, problems = self.run_report(full, without)
        self.assertIn('full series: boost:t_a failed', problems)


if __name__ == '__main__':
    unittest.main()
