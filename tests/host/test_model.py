# SPDX-License-Identifier: GPL-2.0
"""The rtmutex model (tools/testing/rtmutex of the patched tree): it builds
from the tree, passes on the series, finds a fix taken out with a
reproducible trace, walks every schedule of a program within its bound,
and refuses bad input."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def tree():
    src = os.environ.get('PIFUTEX_SRC')
    if not src or not os.path.isfile(
            os.path.join(src, 'tools/testing/rtmutex/rtmutex_model.c')):
        return None
    return src


@unittest.skipUnless(tree(), 'no patched tree with the model '
                     '(make check-host sets PIFUTEX_SRC)')
class ModelTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.src = tree()
        cls.dir = tempfile.mkdtemp()
        cls.model = cls.build(cls.src, 'series-')

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    @classmethod
    def build(cls, kernel, prefix):
        out = os.path.join(cls.dir, prefix)
        subprocess.run(['make', '-s', '-C',
                        os.path.join(cls.src, 'tools/testing/rtmutex'),
                        'TREE=' + kernel, 'OUTPUT=' + out],
                       check=True, capture_output=True)
        return out + 'rtmutex_model'

    def run_model(self, *args, model=None):
        return subprocess.run([model or self.model, *args],
                              capture_output=True, text=True, timeout=300)

    def mini_tree(self, name):
        """The files the model compiles, copied from the tree."""
        t = os.path.join(self.dir, name)
        for d in ('kernel/locking', 'tools/include'):
            shutil.copytree(os.path.join(self.src, d), os.path.join(t, d))
        for f in ('include/linux/rtmutex.h', 'include/linux/sched/rt.h',
                  'kernel/sched/core.c', 'kernel/sched/sched.h',
                  'tools/lib/rbtree.c'):
            os.makedirs(os.path.dirname(os.path.join(t, f)), exist_ok=True)
            shutil.copy(os.path.join(self.src, f), os.path.join(t, f))
        return t

    def model_without(self, fix):
        """The model built from a copy of the tree without FIX, taken out
        as make model-prove does: tests/prove-without/FIX.patch where the
        revert conflicts, else the fix's patch reversed."""
        t = self.mini_tree('no' + fix)
        manual = os.path.join(ROOT, 'tests', 'prove-without', fix + '.patch')
        if os.path.isfile(manual):
            path, args = manual, []
        else:
            patch = [f for f in os.listdir(os.path.join(ROOT, 'patches'))
                     if f.startswith(fix + '-') and f.endswith('.patch')][0]
            path, args = os.path.join(ROOT, 'patches', patch), ['-R']
        with open(path, 'rb') as f:
            subprocess.run(['patch', '-s', *args, '-p1', '-d', t], input=f.read(),
                           check=True, capture_output=True)
        return self.build(t, 'no%s-' % fix)

    def program(self, text):
        fd, path = tempfile.mkstemp(dir=self.dir, suffix='.txt')
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        return path

    def test_series_passes(self):
        p = self.run_model('-n', '3000')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r'model: 3000 scenarios, \d+ steps .* '
                         r'no counterexample')

    def test_fix_taken_out_is_found_and_reproducible(self):
        # 0005 taken out: a new owner that lowers its own priority (-p)
        # drops below the waiter it holds up.
        model = self.model_without('0005')
        first = self.run_model('-p', '-n', '20000', model=model)
        self.assertEqual(first.returncode, 1, first.stdout)
        self.assertIn('model: counterexample', first.stdout)
        self.assertRegex(first.stdout, r": T\d: prio \d+, must be \d+ ")
        self.assertIn('model: step trace:', first.stdout)
        self.assertRegex(first.stdout, r'\n  T\d lock L\d\.wait_lock\n')
        again = self.run_model('-p', '-n', '20000', model=model)
        self.assertEqual(first.stdout, again.stdout)

    def test_sequential_counterexample_as_tst(self):
        # 0003 taken out: its changelog's first case is sequential, and the
        # .tst must say where each thread's priority must end.
        model = self.model_without('0003')
        prog = os.path.join(self.src, 'tools/testing/rtmutex/programs/'
                            '0003-chain-timeout.txt')
        tst = os.path.join(self.dir, 'no0003.tst')
        p = self.run_model('-f', prog, '-e', '1', '-o', tst, model=model)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('model: .tst for the rt-mutex tester in ' + tst, p.stdout)
        with open(tst, encoding='utf-8') as f:
            text = f.read()
        self.assertIn('C: lockintdl:     4: 0\nW: blocked:       4: 0\n'
                      'C: signal:        4: 0\nW: opcodeeq:      4: -4\n', text)
        self.assertIn('T: prioeq:        0: 56\n', text)
        check = subprocess.run(
            ['python3', os.path.join(self.src, 'scripts/rt-tester/rt-tester.py'),
             '-c', tst], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_bounded_walk_of_a_program(self):
        prog = self.program('# two tasks, one lock\n'
                            'T0 prio 90: lock(L0) unlock(L0)\n'
                            'T1 prio 70: lock_pi(L0) unlock(L0)\n')
        zero = self.run_model('-f', prog, '-e', '0')
        one = self.run_model('-f', prog, '-e', '1')
        for p in (zero, one):
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn('all explored, no counterexample', p.stdout)
        count = [int(re.search(r': (\d+) schedules with at most', p.stdout)[1])
                 for p in (zero, one)]
        self.assertGreater(count[1], count[0])

    def test_program_asks_for_its_bound(self):
        # 0024 taken out: its program needs two preemptions, which its
        # "preemptions 2" line asks for even where -e says one.
        model = self.model_without('0024')
        prog = os.path.join(self.src, 'tools/testing/rtmutex/programs/'
                            '0024-boost-from-queued-priority.txt')
        p = self.run_model('-f', prog, '-e', '1', '-t', '60', model=model)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stdout, r'model: counterexample \(.*, schedule \d+, '
                         r'preemption bound 2\): T2: prio 90, must be 70 ')
        two = self.program('preemptions 2\n'
                           'T0 prio 90: lock(L0) unlock(L0)\n'
                           'T1 prio 70: lock_pi(L0) unlock(L0)\n')
        p = self.run_model('-f', two, '-e', '1')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('schedules with at most 2 preemptions', p.stdout)
        bad = self.program('preemptions -1\nT0 prio 90: lock(L0)\n')
        p = self.run_model('-f', bad, '-e', '1')
        self.assertEqual(p.returncode, 2)
        self.assertIn(bad + ':1: ', p.stderr)

    def test_racing_walks_are_no_counterexample(self):
        # Two runs the checks once failed although the kernel was right:
        # a requeue refused for a cycle that a plain rt_mutex_lock() also
        # found (its WARN came after the requeuer had taken the proxy
        # waiter back), and a lock stolen while a deadline boost of the
        # thief lasted, judged after the boost had gone.
        for args in (('-C', '-p', '-s', '45254'), ('-p', '-s', '31933')):
            p = self.run_model(*args, '-n', '1')
            self.assertEqual(p.returncode, 0, p.stdout)

    def test_trylock_refused_on_free_lock_is_found(self):
        # rt_mutex_slowtrylock() with its owner test inverted fails on
        # every free lock.
        t = self.mini_tree('trylock')
        path = os.path.join(t, 'kernel/locking/rtmutex.c')
        with open(path) as f:
            text = f.read()
        old = ('\tif (rt_mutex_owner(lock))\n\t\treturn 0;\n\n'
               '\t/*\n\t * The mutex has currently no owner.')
        self.assertEqual(text.count(old), 1)
        with open(path, 'w') as f:
            f.write(text.replace(old, old.replace('if (', 'if (!', 1)))
        model = self.build(t, 'trylock-')
        p = self.run_model('-n', '3000', model=model)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stdout, r'T\d: trylock\(L\d\) failed on a lock '
                         r'free without waiters')

    def test_bad_input(self):
        bad = self.program('T0 prio 90: lock(L0) frobnicate(L1)\n')
        p = self.run_model('-f', bad)
        self.assertEqual(p.returncode, 2)
        self.assertIn(bad + ':1: not a task line', p.stderr)
        self.assertEqual(p.stdout, '')
        for args in (['-T', '9'], ['-e', '1'], ['stray'], ['-t', '0'],
                     ['-f', os.path.join(self.dir, 'missing.txt')]):
            p = self.run_model(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr.startswith('model: '), args)


if __name__ == '__main__':
    unittest.main()
