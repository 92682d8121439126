# SPDX-License-Identifier: GPL-2.0
"""scripts/rt-tester/rt-tester.py (from the patched tree) on the host.

The runner is exercised against a fake sysfs directory made of plain
files, so parsing, field tests, waits, timeouts and error reports are
checked without a kernel.  The .tst suite is syntax-checked too.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def find_tester_dir():
    src = os.environ.get('PIFUTEX_SRC')
    cands = [src] if src else sorted(glob.glob(os.path.join(ROOT, 'build',
                                                            'linux-*')))
    for c in cands:
        d = os.path.join(c, 'scripts', 'rt-tester')
        if os.path.isfile(os.path.join(d, 'rt-tester.py')):
            return d
    if src:
        # Named by make check-host: it must be there.
        raise RuntimeError(f'{src}/scripts/rt-tester/rt-tester.py not found')
    # A fresh clone has no patched tree yet: skip, and say how to get one.
    raise unittest.SkipTest('scripts/rt-tester not found: no patched tree '
                            '(run "make patch" first, or set PIFUTEX_SRC)')


TESTER = find_tester_dir()
RUNNER = os.path.join(TESTER, 'rt-tester.py')

IDLE = ('O: 0, E: 0, S: 0x00000001, P: -21, N: -21, B: 0, K: 0, '
        'M: 00000000, T: 00000000deadbeef, R: 0\n')


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.sysfs = os.path.join(self.tmp, 'rttest')
        for i in range(8):
            d = os.path.join(self.sysfs, f'rttest{i}')
            os.makedirs(d)
            open(os.path.join(d, 'command'), 'w').close()
            self.set_status(i, IDLE)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def set_status(self, thread, line):
        path = os.path.join(self.sysfs, f'rttest{thread}', 'status')
        with open(path + '.new', 'w') as f:
            f.write(line)
        os.replace(path + '.new', path)

    def script(self, text):
        path = os.path.join(self.tmp, 'x.tst')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def run_tester(self, text, *opts):
        p = subprocess.run([sys.executable, RUNNER, '-d', self.sysfs, '-t',
                            '0.5'] + list(opts) + [self.script(text)],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def test_suite_syntax(self):
        files = sorted(glob.glob(os.path.join(TESTER, '*.tst')))
        self.assertGreaterEqual(len(files), 20)
        for f in files:
            p = subprocess.run([sys.executable, RUNNER, '-c', f],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_command_is_written_in_decimal(self):
        rc, out = self.run_tester('C: lock: 1: 0\nC: schedfifo: 2: 80\n'
                                  'C: 42: 3: -7\nC: scheddl: 4: 10000\n')
        self.assertEqual(rc, 0, out)
        self.assertIn('Pass', out)
        for t, want in ((1, '3:0\n'), (2, '2:80\n'), (3, '42:-7\n'),
                        (4, '16:10000\n')):
            path = os.path.join(self.sysfs, f'rttest{t}', 'command')
            with open(path) as f:
                self.assertEqual(f.read(), want)

    def test_field_tests(self):
        self.set_status(0, IDLE.replace('P: -21', 'P: 80')
                        .replace('M: 00000000', 'M: 00000042')
                        .replace('O: 0,', 'O: 3,').replace('E: 0', 'E: 9'))
        rc, out = self.run_tester(
            '# comment\n\nT: prioeq: 0: 80\nT: priogt: 0: 79\n'
            'T: priolt: 0: 81\nT: nprioeq: 0: -21\nT: locked: 0: 1\n'
            'T: blocked: 0: 0\nT: unlocked: 0: 7\nT: opcodeeq: 0: lock\n'
            'T: eventgt: 0: 8\n', '-s')
        self.assertEqual(rc, 0, out)
        self.assertIn('# comment', out)

    def test_failing_test_names_file_and_line(self):
        rc, out = self.run_tester('T: prioeq: 0: -21\n\nT: prioeq: 0: 80\n')
        self.assertEqual(rc, 1)
        self.assertIn('x.tst:3: FAILED: T: prioeq: 0: 80', out)
        self.assertIn('status of thread 0: O: 0', out)
        self.assertNotIn('Pass', out)

    def test_mutex_digit_order(self):
        # M: mutex 7 leftmost; "00000040" means mutex 1 is held.
        self.set_status(5, IDLE.replace('M: 00000000', 'M: 00000040'))
        self.assertEqual(self.run_tester('T: locked: 5: 1\n')[0], 0)
        rc, out = self.run_tester('T: locked: 5: 6\n')
        self.assertEqual(rc, 1, out)

    def test_wait_succeeds_when_state_arrives(self):
        def later():
            time.sleep(0.2)
            self.set_status(4, IDLE.replace('M: 00000000', 'M: 00000002'))
        t = threading.Thread(target=later)
        t.start()
        rc, out = self.run_tester('W: blocked: 4: 0\n', '-t', '5')
        t.join()
        self.assertEqual(rc, 0, out)

    def test_wait_times_out_with_line(self):
        rc, out = self.run_tester('C: nop: 0: 0\nW: locked: 2: 3\n')
        self.assertEqual(rc, 1)
        self.assertIn('x.tst:2: FAILED: timed out after 0.5s waiting for: '
                      'W: locked: 2: 3', out)

    def test_expected_rejection_that_is_accepted_fails(self):
        rc, out = self.run_tester('E: unlock: 0: 0\n')
        self.assertEqual(rc, 1)
        self.assertIn('expected EINVAL, command was accepted', out)

    def test_syntax_errors(self):
        for text, msg in (
                ('X: lock: 0: 0\n', 'unknown line type'),
                ('C: lock: 8: 0\n', 'thread id 8 out of range'),
                ('C: lock: 0\n', 'expected 4 colon-separated fields'),
                ('T: prioish: 0: 1\n', 'unknown test opcode'),
                ('T: locked: 0: 8\n', 'mutex id 8 out of range'),
                ('C: lock: 0: zero\n', 'is not a decimal number'),
                ('C: frobnicate: 0: 1\n', 'is not a decimal number'),
                ('E: nop: 0: 0: ENOTANERRNO\n', 'unknown errno name'),
                ('# only a comment\n', 'no test lines')):
            rc, out = self.run_tester(text, '-c')
            self.assertEqual(rc, 2, text)
            self.assertIn(msg, out, text)
            self.assertIn('x.tst:', out)

    def test_missing_sysfs_is_reported(self):
        p = subprocess.run([sys.executable, RUNNER, '-d',
                            os.path.join(self.tmp, 'nope'),
                            self.script('T: prioeq: 0: 1\n')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('CONFIG_RT_MUTEX_TESTER', p.stderr)


class CheckAllTest(unittest.TestCase):
    """check-all.sh reports KTAP; run against the fake sysfs via -d."""

    def test_check_all_ktap(self):
        tmp = tempfile.mkdtemp()
        try:
            # check-all.sh calls the runner next to it with the default
            # sysfs path; give it a copy whose default points at a fake.
            shutil.copy(os.path.join(TESTER, 'check-all.sh'), tmp)
            with open(RUNNER) as f:
                code = f.read()
            fake = os.path.join(tmp, 'sysfs')
            code = code.replace("SYSFS = '/sys/devices/system/rttest'",
                                f"SYSFS = '{fake}'")
            with open(os.path.join(tmp, 'rt-tester.py'), 'w') as f:
                f.write(code)
            for i in range(8):
                d = os.path.join(fake, f'rttest{i}')
                os.makedirs(d)
                open(os.path.join(d, 'command'), 'w').close()
                with open(os.path.join(d, 'status'), 'w') as f:
                    f.write(IDLE)
            with open(os.path.join(tmp, 'a-good.tst'), 'w') as f:
                f.write('T: prioeq: 0: -21\n')
            with open(os.path.join(tmp, 'b-bad.tst'), 'w') as f:
                f.write('T: prioeq: 0: 50\n')
            p = subprocess.run(['sh', os.path.join(tmp, 'check-all.sh'),
                                tmp], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stdout)
            lines = p.stdout.splitlines()
            self.assertEqual(lines[:2], ['KTAP version 1', '1..2'])
            self.assertIn('ok 1 a-good', lines)
            self.assertIn('not ok 2 b-bad', lines)
            self.assertIn('# Totals: pass:1 fail:1 skip:0', lines)
            self.assertTrue(any('b-bad.tst:1: FAILED' in ln for ln in lines))
        finally:
            shutil.rmtree(tmp)


if __name__ == '__main__':
    unittest.main()


class RtRandomTstTest(unittest.TestCase):
    """rt-random.py's .tst reproducers name every kind of step."""

    def test_to_tst_names_every_step(self):
        import importlib.util
        path = os.path.join(ROOT, 'rootfs', 'tests', 'rt-random.py')
        spec = importlib.util.spec_from_file_location('rt_random', path)
        rr = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(rr)
        steps = [('lockdl', 0, 1), ('locktimeout', 1, 1), ('prio', 0, 0),
                 ('prio', 1, 42), ('wprio', 2, 7), ('unlock', 0, 1),
                 ('prio', 3, 1000), ('wprio', 4, 100000)]
        waitlines = [['W: blocked:       0: 1']] + [[] for _ in steps[1:]]
        tst = rr.to_tst([5, 0, 9, 0, 0, 10000, 0, 0], steps, waitlines,
                        'T: prioeq:        0: 5', 'test').splitlines()
        self.assertIn('C: scheddl:       5: 10000', tst)
        self.assertIn('C: scheddl:       3: 1000', tst)
        self.assertIn('# sched_setattr(rttest4, SCHED_DEADLINE 100000 us) '
                      '(no tester opcode)', tst)
        self.assertIn('C: settimeout:    7: 20', tst)
        self.assertIn('C: lockintdl:     0: 1', tst)
        self.assertIn('C: locktimeout:   1: 1', tst)
        self.assertIn('C: schedother:    0: 0', tst)
        self.assertIn('C: schedfifo:     1: 42', tst)
        self.assertIn('# sched_setattr(rttest2, SCHED_FIFO 7) '
                      '(no tester opcode)', tst)
        self.assertEqual(tst[-1], 'T: prioeq:        0: 5')
        self.assertEqual(tst.index('C: lockintdl:     0: 1') + 1,
                         tst.index('W: blocked:       0: 1'))

    def test_policies(self):
        import importlib.util
        import random
        path = os.path.join(ROOT, 'rootfs', 'tests', 'rt-random.py')
        spec = importlib.util.spec_from_file_location('rt_random', path)
        rr = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(rr)
        self.assertEqual([rr.uprio(p) for p in (0, 1, 99, 1000, 100000)],
                         [-21, 1, 99, 100, 100])
        rng = random.Random(1)
        picks = [rr.pick_policy(rng) for _ in range(2000)]
        dl = [p for p in picks if p >= 1000]
        self.assertTrue(set(dl) <= set(rr.DL_PERIODS))
        self.assertTrue(200 < len(dl) < 400, len(dl))
        self.assertTrue(all(0 <= p <= 99 for p in picks if p < 1000))
        # A SCHED_FIFO 10 task boosted to deadline (P 100): known bugs 4
        # (to a non-deadline policy) and 5 (made deadline while waiting).
        boosted = {'P': 100}
        self.assertEqual(rr.known_bug('prio', boosted, 10, 30), 4)
        self.assertEqual(rr.known_bug('wprio', boosted, 10, 0), 4)
        self.assertEqual(rr.known_bug('wprio', boosted, 10, 10000), 5)
        self.assertEqual(rr.known_bug('prio', boosted, 10, 10000), 0)
        self.assertEqual(rr.known_bug('prio', boosted, 100, 30), 0)
        self.assertEqual(rr.known_bug('wprio', {'P': 50}, 10, 10000), 0)
        # 6: a deadline waiter given another policy while it sleeps.
        self.assertEqual(rr.known_bug('wprio', {'P': 100}, 100, 0), 6)
        self.assertEqual(rr.known_bug('prio', {'P': 100}, 100, 0), 0)
        self.assertEqual(rr.known_bug('wprio', {'P': 100}, 100, 1000), 0)
        # ... and one back to deadline after leaving it while boosted.
        self.assertEqual(rr.known_bug('prio', {'P': 100}, -21, 1000, True), 6)
        self.assertEqual(rr.known_bug('prio', {'P': 100}, -21, 1000), 0)
