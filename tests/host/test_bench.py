# SPDX-License-Identifier: GPL-2.0
"""tools/bench/bench-report.py: one table for the host and every kernel."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from helpers import tool

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = tool('bench-report.py')


TSC = '[    1.9] clocksource: Switched to clocksource tsc\n'


def side(pi_max, ratio, fastpath):
    return (f'BENCH inversion glibc-inherit max_over_cs {pi_max}\n'
            f'BENCH inversion none-vs-inherit max_ratio {ratio}\n'
            f'BENCH fastpath pi-futex ratio_vs_futex {fastpath}\n')


def guest(text):
    """@text as the serial log of a bench guest: /init's markers around
    one suite, pi-bench, whose result line is added unless @text has one."""
    clock, _, body = text.partition(TSC)
    if body and not body.endswith('\n'):
        body += '\n'
    result = '' if 'ok 1 pi-bench' in body else 'ok 1 pi-bench\n'
    rc = 1 if 'not ok 1 pi-bench' in body else 0
    return (clock + TSC + 'pi-futex: guest begin (7.3.4, 2 cpu)\n'
            'KTAP version 1\n1..1\n' + body + result +
            f'pi-futex: guest end rc={rc}\n')


class BenchReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def report(self, *guests):
        host = self.write('host.txt', side(1.01, 40.0, 1.10))
        args = [f'{n}={self.write(n, guest(t))}' for n, t in guests]
        return subprocess.run(
            [sys.executable, REPORT, self.tmp, host, *args, '--no-plot'],
            capture_output=True, text=True)

    def test_kernels_side_by_side(self):
        # Guest lines carry the KTAP "# " prefix and printk noise.
        p = self.report(
            ('7.3', TSC + '# ' + side(1.02, 30.0, 1.20).replace('\n', '\n# ')),
            ('6.12', TSC + '[    1.0] x\n' + side(1.03, 31.0, 1.30)))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        header = [ln for ln in p.stdout.splitlines()
                  if ln.startswith('figure')][0]
        self.assertEqual(header.split(), ['figure', 'host', '7.3', '6.12'])
        row = [ln for ln in p.stdout.splitlines()
               if ln.startswith('fastpath pi-futex ratio_vs_futex')][0]
        self.assertEqual(row.split()[-3:], ['1.10', '1.20', '1.30'])
        self.assertIn('6.12: inversion with PI max 1.03 x CS', p.stdout)

    def test_kernel_without_a_fix_gives_handoff_ratios(self):
        def handoff(pi2, pi4):
            return (TSC + side(1.02, 30.0, 1.2) +
                    f'BENCH handoff pi-futex/2t ops_per_s {pi2}\n'
                    f'BENCH handoff pi-futex/4t ops_per_s {pi4}\n')
        p = self.report(('7.3 base', handoff(900, 800)),
                        ('7.3 base -0005', handoff(1000, 1000)))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('7.3 base: hand-off pi-futex/2t 900 ops/s with 0005, '
                      '1000 without: 0.900', p.stdout)
        self.assertIn('7.3 base: hand-off pi-futex/4t 800 ops/s with 0005, '
                      '1000 without: 0.800', p.stdout)

    def test_kernel_without_results_fails(self):
        p = self.report(('7.3', TSC + side(1.02, 30.0, 1.2)),
                        ('6.12', TSC + 'guest did not boot\n'))
        self.assertEqual(p.returncode, 1)
        self.assertIn('no results from the 6.12', p.stdout)

    def test_missed_inversion_goal_on_one_kernel_fails(self):
        p = self.report(('7.3', TSC + side(3.5, 30.0, 1.2)),
                        ('6.12', TSC + side(1.02, 30.0, 1.2)))
        self.assertEqual(p.returncode, 1)
        self.assertIn('7.3: inversion with PI max 3.50 x CS', p.stdout)
        self.assertIn('MISSED', p.stdout)

    def test_guest_on_jiffies_fails(self):
        # A kernel that fell back to refined-jiffies measures in 4 ms
        # steps: its column cannot be compared with the others.
        jiffies = TSC + ('[    2.0] clocksource: Switched to clocksource '
                         'refined-jiffies\n')
        p = self.report(('7.3', TSC + side(1.02, 30.0, 1.2)),
                        ('6.12', jiffies + side(1.02, 30.0, 1.2)))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('6.12: clocksource refined-jiffies', p.stdout)
        self.assertIn('7.3: clocksource tsc', p.stdout)
        self.assertIn('6.12 timed with refined-jiffies', p.stdout)

    @staticmethod
    def latency(p99, mx):
        return ''.join(
            f'# BENCH latency cyclictest-pi_stress {m}_us {v}\n'
            for m, v in (('p50', 20), ('p90', 40), ('p99', p99),
                         ('p99_9', mx - 1), ('max', mx)))

    def test_rt_beside_its_debug_twin(self):
        p = self.report(
            ('7.3 debug', TSC + side(1.02, 30.0, 1.2) +
             self.latency(4000, 20000)),
            ('7.3 rt', TSC + side(1.01, 30.0, 1.3) +
             self.latency(1000, 5000)))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        row = [ln for ln in p.stdout.splitlines()
               if ln.startswith('latency cyclictest-pi_stress max_us')][0]
        self.assertEqual(row.split()[-3:], ['-', '20000', '5000'])
        self.assertIn('7.3 rt: cyclictest under pi_stress: p99 1000 us, '
                      'max 5000 us', p.stdout)
        self.assertIn('7.3 rt / 7.3 debug: p99 0.25x, max 0.25x', p.stdout)

    def test_guest_test_failure_fails(self):
        p = self.report(('7.3 rt', TSC + side(1.01, 30.0, 1.3) +
                         '# not ok 2 latency # cyclictest exit 1, '
                         'pi_stress exit 0\nnot ok 1 pi-bench\n'))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('7.3 rt failed: pi-bench: fail', p.stdout)

    def test_guest_with_a_warning_fails(self):
        # Every suite passed, but the kernel warned: verdict.py's crash
        # signatures fail the bench as they fail any boot.
        p = self.report(('7.3', TSC + side(1.01, 30.0, 1.3) +
                         '[   20.1] WARNING: CPU: 1 PID: 90 at '
                         'kernel/locking/rtmutex.c:1234 x+0x1/0x2\n'))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('7.3 failed: log:', p.stdout)
        self.assertIn('kernel crash signature: WARNING: CPU: 1', p.stdout)

    def test_guest_without_name_is_usage(self):
        p = subprocess.run([sys.executable, REPORT, self.tmp,
                            self.write('h', ''), self.write('g', '')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('usage', p.stderr)


if __name__ == '__main__':
    unittest.main()
