# SPDX-License-Identifier: GPL-2.0
"""Host tests of tools/prove/mutate.py: the mutants of a made-up file,
their ids, the scope and triage files, resumption and the report."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from helpers import ROOT, load_tool

mutate = load_tool('mutate')

SAMPLE = '''// SPDX-License-Identifier: GPL-2.0
#include <linux/x.h>

/*
 * if (comment) return -EINVAL;
 */
static int demo(struct task_struct *p, int prio)
{
	int ret = 0;

	if (prio < 0 || prio > 99)
		return -EINVAL;
	lockdep_assert_held(&p->pi_lock);
	p->prio = prio;	/* set it */
	while (p->next && p->next->prio >= prio) {
		p = p->next;
	}
	if (!p)
		return 1;
	return false;
}
'''


class GenerateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = self.tmp.name
        os.makedirs(os.path.join(self.src, 'k'))
        with open(os.path.join(self.src, 'k', 'demo.c'), 'w') as f:
            f.write(SAMPLE)
        self.scope = [{'file': 'k/demo.c', 'phase': 'boot',
                       'runlist': 'futex', 'functions': set()}]

    def tearDown(self):
        self.tmp.cleanup()

    def test_operators_and_ids(self):
        ms = {m['id']: m for m in mutate.generate(self.src, self.scope)}
        self.assertEqual(ms['k/demo.c:11:negate-cond']['new'],
                         '\tif (!(prio < 0 || prio > 99))')
        self.assertEqual(ms['k/demo.c:11:and-or']['new'],
                         '\tif (prio < 0 && prio > 99)')
        self.assertEqual(ms['k/demo.c:11:cmp']['new'],
                         '\tif (prio <= 0 || prio > 99)')
        self.assertEqual(ms['k/demo.c:11:cmp.1']['new'],
                         '\tif (prio < 0 || prio >= 99)')
        self.assertEqual(ms['k/demo.c:11:const.1']['new'],
                         '\tif (prio < 0 || prio > 100)')
        self.assertEqual(ms['k/demo.c:12:errno']['new'], '\t\treturn -EPERM;')
        self.assertEqual(ms['k/demo.c:12:errno-zero']['new'], '\t\treturn 0;')
        self.assertEqual(ms['k/demo.c:12:drop-return']['new'], '\t\t;')
        self.assertEqual(ms['k/demo.c:16:drop-stmt']['new'], '\t\t;')
        self.assertEqual(ms['k/demo.c:19:const']['new'], '\t\treturn 0;')
        self.assertEqual(ms['k/demo.c:20:bool']['new'], '\treturn true;')
        self.assertEqual(ms['k/demo.c:15:cmp']['new'],
                         '\twhile (p->next && p->next->prio > prio) {')
        for mid in ms:
            line = int(mid.split(':')[1])
            with self.subTest(mutant=mid):
                # Not the comment, the #include, the declaration, the
                # debug assertion or the line with a trailing comment.
                self.assertNotIn(line, (2, 5, 9, 13, 14))
                self.assertEqual(ms[mid]['func'], 'demo')
        # The same tree gives the same mutants.
        again = [m['id'] for m in mutate.generate(self.src, self.scope)]
        self.assertEqual(sorted(ms), sorted(again))

    def test_functions_limit_the_scope(self):
        self.scope[0]['functions'] = {'other'}
        self.assertEqual(mutate.generate(self.src, self.scope), [])

    def test_boot_phase_restores_the_tree(self):
        path = os.path.join(self.src, 'k', 'demo.c')
        m = next(m for m in mutate.generate(self.src, self.scope)
                 if m['op'] == 'drop-stmt')
        with open(path) as f:
            lines = f.readlines()

        class Args:
            obj = '/nonexistent'
            initrd_dir = self.src
            qemu_opt = []
        outcome, why = mutate.boot_try(self.src, m, lines, Args,
                                       os.path.join(self.src, 'out'))
        self.assertEqual(outcome, 'stillborn')
        with open(path) as f:
            self.assertEqual(f.read(), SAMPLE)


class ScopeTest(unittest.TestCase):
    def test_repository_scope_names_real_files(self):
        scope = mutate.read_scope()
        files = {e['file'] for e in scope}
        for f in ('kernel/locking/rtmutex.c', 'kernel/futex/pi.c',
                  'kernel/futex/requeue.c', 'kernel/futex/core.c'):
            self.assertIn(f, files)
        for e in scope:
            self.assertTrue(os.path.exists(os.path.join(
                ROOT, 'tests', 'mutate', f'runlist-{e["runlist"]}')),
                e['runlist'])

    def test_bad_scope_line(self):
        with tempfile.NamedTemporaryFile('w', suffix='scope') as f:
            f.write('kernel/futex/pi.c somewhere futex\n')
            f.flush()
            p = subprocess.run([sys.executable, '-c',
                                'import sys; sys.path.insert(0, sys.argv[1]);'
                                'import mutate; mutate.read_scope(sys.argv[2])',
                                os.path.join(ROOT, 'tools', 'prove'), f.name],
                               capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('want FILE model|boot', p.stderr)

    def test_triage_entries_are_well_formed(self):
        for mid, t in mutate.read_triage().items():
            with self.subTest(mutant=mid):
                self.assertRegex(mid, r'^[\w/.-]+\.c:\d+:[a-z-]+(\.\d+)?$')
                self.assertGreater(len(t['why']), 30)


class ReportTest(unittest.TestCase):
    def test_score_and_survivors(self):
        with tempfile.TemporaryDirectory() as out:
            res = {}
            for i, outcome in enumerate(['killed'] * 3 + ['survived',
                                                          'stillborn']):
                res[f'k/a.c:{i + 1}:cmp'] = {
                    'file': 'k/a.c', 'line': i + 1, 'op': 'cmp', 'func': 'f',
                    'phase': 'model', 'old': 'x', 'new': 'y | z',
                    'outcome': outcome, 'why': '', 'seconds': 1}
            mutate.save_results(out, res)
            # A result of a mutant no longer in the scope is not counted.
            res2 = dict(res)
            res2['k/a.c:9:cmp'] = dict(res['k/a.c:1:cmp'])
            mutate.save_results(out, res2)
            gen, mutate.generate = mutate.generate, \
                lambda src, scope: [{'id': k, 'file': 'k/a.c'} for k in res]
            self.addCleanup(setattr, mutate, 'generate', gen)
            md = os.path.join(out, 'r.md')
            svg = os.path.join(out, 'r.svg')
            js = os.path.join(out, 'r.json')
            mutate.main(['report', '--src', out, '--out', out,
                         '--markdown', md, '--svg', svg, '--json-out', js])
            with open(md) as f:
                text = f.read()
            # 3 killed of 4 non-stillborn mutants.
            self.assertIn('| k/a.c | all | 5 | 3 | 1 | 0 | 0 | 1 | 0 | 75% |',
                          text)
            self.assertIn('| k/a.c:4:cmp | f | `y \\| z` | not triaged |',
                          text)
            with open(svg) as f:
                self.assertIn('75%', f.read())
            with open(js) as f:
                self.assertEqual(json.load(f)['rows']['k/a.c:*']['killed'], 3)


if __name__ == '__main__':
    unittest.main()
