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


class ObjectTest(unittest.TestCase):
    """The boot phase's equivalence by object code, on objects gcc makes
    here from a mutant that changes the code and one that does not."""
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.obj = self.tmp.name
        os.makedirs(os.path.join(self.obj, 'k'))

    def tearDown(self):
        self.tmp.cleanup()

    def cc(self, name, code):
        c = os.path.join(self.obj, name + '.c')
        with open(c, 'w') as f:
            f.write(code)
        subprocess.run(['gcc', '-O2', '-g', '-c', '-o',
                        os.path.join(self.obj, name + '.o'), c], check=True)
        return os.path.join(self.obj, name + '.o')

    def test_same_code_same_digest(self):
        base = self.cc('k/a', 'int f(int x) { if (x > 3) return 1; return 0; }\n')
        d0 = mutate.object_digest(base)
        # x > 3 and x >= 4 are one comparison to the compiler.
        same = self.cc('k/a', 'int f(int x) { if (x >= 4) return 1; return 0; }\n')
        self.assertEqual(mutate.object_digest(same), d0)
        other = self.cc('k/a', 'int f(int x) { if (x >= 3) return 1; return 0; }\n')
        self.assertNotEqual(mutate.object_digest(other), d0)
        self.assertEqual(sorted(os.listdir(os.path.join(self.obj, 'k'))),
                         ['a.c', 'a.o'])

    def test_object_of_an_included_file(self):
        self.cc('k/a', 'int a;\n')
        with open(os.path.join(self.obj, 'k', '.b.o.cmd'), 'w') as f:
            f.write('deps_k/b.o := \\\n  /src/k/b.c \\\n'
                    '  /src/k/inc.c \\\n  /src/k/inc.h \\\n')
        self.assertEqual(mutate.object_of(self.obj, 'k/a.c'),
                         os.path.join(self.obj, 'k', 'a.o'))
        self.assertEqual(mutate.object_of(self.obj, 'k/inc.c'),
                         os.path.join(self.obj, 'k', 'b.o'))
        self.assertIsNone(mutate.object_of(self.obj, 'k/c.c'))
        self.assertIsNone(mutate.object_of(self.obj, 'k/nc.c'))


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
                self.assertIn('at', t, 'no "at:" line')

    def test_triage_names_the_lines_of_the_patched_tree(self):
        # A patch that moves lines of a mutated file leaves the entries
        # below it on other lines: mutate.py rekey --write moves them.
        src = os.environ.get('PIFUTEX_SRC')
        if not src or not os.path.isdir(os.path.join(src, 'kernel/futex')):
            self.skipTest('no patched tree (make check-host sets PIFUTEX_SRC)')
        if not os.path.exists(os.path.join(src, 'localversion-pi-futex')):
            self.skipTest('PIFUTEX_SRC is not the patched tree')
        stale = mutate.stale_triage(
            mutate.read_triage(), mutate.generate(src, mutate.read_scope()))
        self.assertEqual(stale, [], 'run tools/prove/mutate.py rekey')


class RekeyTest(unittest.TestCase):
    ENTRY = ('k/demo.c:11:cmp.1 gap Accepts prio 99, which no test of '
             'the made-up file tries.\n')

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.old = os.path.join(self.tmp.name, 'old')
        self.new = os.path.join(self.tmp.name, 'new')
        self.scope = [{'file': 'k/demo.c', 'phase': 'boot',
                       'runlist': 'futex', 'functions': set()}]
        for tree, text in ((self.old, SAMPLE),
                           (self.new, SAMPLE.replace(
                               '\tint ret = 0;\n', '\tint ret = 0;\n\n'
                               '\tif (!p)\n\t\treturn -EFAULT;\n'))):
            os.makedirs(os.path.join(tree, 'k'))
            with open(os.path.join(tree, 'k', 'demo.c'), 'w') as f:
                f.write(text)
        self.triage = os.path.join(self.tmp.name, 'triage')

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, text):
        with open(self.triage, 'w') as f:
            f.write('# made up\n' + text + '\n# end\n')
        return mutate.read_triage(self.triage)

    def test_entry_follows_its_line(self):
        t = self.read(self.ENTRY + '  at: demo: if (prio < 0 || prio > 99)\n')
        self.assertEqual(t['k/demo.c:11:cmp.1']['at'],
                         ('demo', 'if (prio < 0 || prio > 99)'))
        self.assertNotIn('at:', t['k/demo.c:11:cmp.1']['why'])
        old = mutate.generate(self.old, self.scope)
        new = mutate.generate(self.new, self.scope)
        self.assertEqual(mutate.stale_triage(t, old), [])
        # Line 11 of the new file is "return -EFAULT;": no cmp there.
        self.assertEqual(mutate.stale_triage(t, new), ['k/demo.c:11:cmp.1'])
        moves, bad, by_id = mutate.rekey(t, self.new, self.scope)
        self.assertEqual((moves, bad), ({'k/demo.c:11:cmp.1':
                                         'k/demo.c:14:cmp.1'}, []))
        mutate.rewrite_triage(moves, by_id, self.triage)
        again = mutate.read_triage(self.triage)
        self.assertEqual(list(again), ['k/demo.c:14:cmp.1'])
        self.assertEqual(again['k/demo.c:14:cmp.1']['why'],
                         t['k/demo.c:11:cmp.1']['why'])
        self.assertEqual(mutate.stale_triage(again, new), [])
        with open(self.triage) as f:
            self.assertEqual(f.read().count('  at: '), 1)

    def test_old_tree_gives_the_line_of_an_entry_without_at(self):
        t = self.read(self.ENTRY)
        moves, bad, by_id = mutate.rekey(t, self.new, self.scope,
                                         old_src=self.old)
        self.assertEqual((moves, bad), ({'k/demo.c:11:cmp.1':
                                         'k/demo.c:14:cmp.1'}, []))
        mutate.rewrite_triage(moves, by_id, self.triage)
        self.assertEqual(mutate.read_triage(self.triage)[
            'k/demo.c:14:cmp.1']['at'], ('demo', 'if (prio < 0 || prio > 99)'))

    def test_results_move_with_an_unchanged_function(self):
        # The new file has two lines more in demo(): its mutants are
        # left to be tried again; other() moved but did not change.
        other = ('\nstatic int other(int x)\n{\n\tif (x > 1)\n'
                 '\t\treturn 0;\n\treturn x;\n}\n')
        for tree in (self.old, self.new):
            with open(os.path.join(tree, 'k', 'demo.c'), 'a') as f:
                f.write(other)
        old = {m['id']: m for m in mutate.generate(self.old, self.scope)}
        results = {mid: dict(m, outcome='killed', why='', seconds=1)
                   for mid, m in old.items()
                   if mid in ('k/demo.c:11:cmp.1', 'k/demo.c:25:cmp')}
        self.assertEqual(len(results), 2)
        out, moved, dropped = mutate.rekey_results(results, self.new,
                                                   self.old, self.scope)
        self.assertEqual((list(out), moved, dropped),
                         (['k/demo.c:28:cmp'], 1, 1))
        self.assertEqual(out['k/demo.c:28:cmp']['line'], 28)

    def test_changed_line_is_left_to_a_reader(self):
        with open(os.path.join(self.new, 'k', 'demo.c'), 'w') as f:
            f.write(SAMPLE.replace('prio > 99', 'prio > 98'))
        t = self.read(self.ENTRY)
        moves, bad, _ = mutate.rekey(t, self.new, self.scope,
                                     old_src=self.old)
        self.assertEqual(moves, {})
        self.assertEqual(bad, ['k/demo.c:11:cmp.1: line 11 of '
                               f'{self.old} was changed'])
        t = self.read(self.ENTRY + '  at: demo: if (prio < 0 || prio > 99)\n')
        moves, bad, _ = mutate.rekey(t, self.new, self.scope)
        self.assertEqual(moves, {})
        self.assertRegex(bad[0], 'its line is gone')


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
            # Nor one whose line is another now (the tree changed).
            res2['k/a.c:7:cmp'] = dict(res['k/a.c:1:cmp'], line=7)
            mutate.save_results(out, res2)
            scope = [{'id': k, 'file': 'k/a.c', 'old': 'x', 'new': 'y | z'}
                     for k in res]
            scope.append({'id': 'k/a.c:7:cmp', 'file': 'k/a.c',
                          'old': 'x2', 'new': 'y | z'})
            gen, mutate.generate = mutate.generate, lambda src, s: scope
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



class RetryTest(unittest.TestCase):
    def test_retry_tries_an_outcome_again_in_its_phase(self):
        ms = [{'id': f'k/a.c:{i}:cmp', 'file': 'k/a.c', 'line': i,
               'op': 'cmp', 'func': 'f', 'phase': 'model',
               'runlist': 'locking', 'old': 'x', 'new': 'y'}
              for i in (1, 2, 3)]
        tried = []

        def pool(args, todo, work, base_digest, record):
            tried.extend(m['id'] for m in todo)
        for name, fake in (('generate', lambda src, scope: ms),
                           ('model_pool', pool)):
            self.addCleanup(setattr, mutate, name, getattr(mutate, name))
            setattr(mutate, name, fake)
        with tempfile.TemporaryDirectory() as out:
            mutate.save_results(out, {
                ms[0]['id']: dict(ms[0], outcome='killed', why='', seconds=1),
                ms[1]['id']: dict(ms[1], outcome='survived', why='',
                                  seconds=1)})
            run = ['run', '--src', out, '--out', out, '--phase', 'model']
            mutate.main(run)
            self.assertEqual(tried, [ms[2]['id']])
            del tried[:]
            mutate.main(run + ['--retry', 'survived'])
            self.assertEqual(sorted(tried), [ms[1]['id'], ms[2]['id']])

    def test_retry_boots_again_what_a_boot_left(self):
        # A kernel/locking mutant the model let through and a debug
        # kernel compiled to the series' own object code: another
        # flavour's boot tries it again, and no model run.
        m = {'id': 'k/a.c:1:cmp', 'file': 'k/a.c', 'line': 1, 'op': 'cmp',
             'func': 'f', 'phase': 'model', 'runlist': 'locking',
             'old': 'x', 'new': 'y'}
        booted, modelled = [], []

        class Done:
            returncode = 0

        class FakeSubprocess:
            @staticmethod
            def run(*a, **k):
                return Done()
        fakes = (('generate', lambda src, scope: [m]),
                 ('model_pool', lambda a, todo, w, b, r:
                  modelled.extend(x['id'] for x in todo)),
                 ('base_objects', lambda src, obj, files: {}),
                 ('source_lines', lambda src, mm: ['x\n']),
                 ('boot_try', lambda src, mm, lines, args, out:
                  booted.append(mm['id']) or ('killed', 'boot obj-rt: t')),
                 ('subprocess', FakeSubprocess))
        for name, fake in fakes:
            self.addCleanup(setattr, mutate, name, getattr(mutate, name))
            setattr(mutate, name, fake)
        with tempfile.TemporaryDirectory() as out:
            mutate.save_results(out, {m['id']: dict(
                m, phase='boot', outcome='not-in-model', why='same object',
                seconds=1, model={'outcome': 'survived', 'why': '',
                                  'seconds': 1})})
            run = ['run', '--src', out, '--out', out, '--phase', 'boot',
                   '--obj', out, '--initrd-dir', out, '--qemu-opt', '-x']
            mutate.main(run)
            self.assertEqual(booted, [])
            mutate.main(run[:7] + ['--retry', 'not-in-model'] + run[7:])
            self.assertEqual((booted, modelled), ([m['id']], []))
            r = mutate.load_results(out)[m['id']]
            self.assertEqual((r['outcome'], r['phase']), ('killed', 'boot'))


if __name__ == '__main__':
    unittest.main()
