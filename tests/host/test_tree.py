# SPDX-License-Identifier: GPL-2.0
"""tools/kernel/tree.sh: a developer's own git tree (make run TREE=DIR),
on a small git fixture: the series applied in a clone, a fix already in
the tree, a conflicting change, a dirty tree, TREE_TESTS_ONLY; the tree
itself never changes."""
import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

from helpers import ROOT, sh, tool, write

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME='A Developer',
               GIT_AUTHOR_EMAIL='a@example.org', GIT_COMMITTER_NAME='A',
               GIT_COMMITTER_EMAIL='a@example.org',
               GIT_AUTHOR_DATE='2026-12-05T00:00:00Z',
               GIT_COMMITTER_DATE='2026-12-05T00:00:00Z',
               GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_NOSYSTEM='1')

FIX_OLD = 'int prio(void)\n{\n\treturn 0;\n}\n'
FIX_NEW = 'int prio(void)\n{\n\treturn 1;\n}\n'


def git(cwd, *args):
    p = subprocess.run(['git', '-C', cwd] + list(args), env=GIT_ENV,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def snapshot(top):
    """Every file under @top (its .git too) by path, bytes and mtime."""
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(top)):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(d, f)
            h.update(os.path.relpath(path, top).encode() + b'\0')
            # Its time too: git "freshens" a pack it finds an object in.
            h.update(str(os.stat(path).st_mtime_ns).encode() + b'\0')
            with open(path, 'rb') as fh:
                h.update(fh.read())
    return h.hexdigest()


class TreeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.dir = os.path.join(self.tmp, 'linux')
        self.tree(self.dir, '7', '3')
        self.mails = self.series()

    def tree(self, path, version, patchlevel):
        write(os.path.join(path, 'Makefile'),
              f'VERSION = {version}\nPATCHLEVEL = {patchlevel}\n'
              'SUBLEVEL = 0\n')
        write(os.path.join(path, 'kernel', 'locking', 'rtmutex.c'), FIX_OLD)
        write(os.path.join(path, 'tools', 'testing', 'selftests', 'futex',
                           'Makefile'), 'all:\n')
        git(path, 'init', '-q')
        git(path, 'add', '-A')
        git(path, 'commit', '-q', '-m', 'Linux')
        git(path, 'tag', f'v{version}.{patchlevel}')

    def series(self):
        """Two mails as make export-check writes them: a fix and a
        selftest, with a cover letter."""
        work = os.path.join(self.tmp, 'export-work')
        git(self.tmp, 'clone', '-q', self.dir, work)
        write(os.path.join(work, 'kernel', 'locking', 'rtmutex.c'), FIX_NEW)
        git(work, 'commit', '-q', '-am', 'locking/rtmutex: Fix it')
        write(os.path.join(work, 'tools', 'testing', 'selftests', 'futex',
                           'futex_pi.c'), 'int main(void) { return 0; }\n')
        git(work, 'add', '-A')
        git(work, 'commit', '-q', '-m', 'selftests/futex: Test it')
        out = os.path.join(self.tmp, 'outgoing', 'fixes')
        git(work, 'format-patch', '-q', '--cover-letter', '-o', out,
            'HEAD~2..HEAD')
        # The fix as the series' quilt files make it: no "diff --git"
        # and no index line (so no three-way fallback either).
        fix = os.path.join(out, '0001-locking-rtmutex-Fix-it.patch')
        with open(fix) as f:
            lines = [ln for ln in f if not ln.startswith(('diff --git',
                                                          'index '))]
        with open(fix, 'w') as f:
            f.writelines(lines)
        self.objects = work
        return out

    def prepare(self, *opts, check_unchanged=True):
        before = snapshot(self.dir)
        self.work = os.path.join(self.tmp, 'build', 'tree', 'src')
        p = sh([tool('tree.sh'), 'prepare', *opts, '--objects', self.objects,
                self.dir, self.work, self.mails], env=GIT_ENV)
        if check_unchanged:
            self.assertEqual(snapshot(self.dir), before,
                             'the developer\'s tree changed')
        return p

    def state(self):
        with open(os.path.join(self.work, '.pi-futex-tree')) as f:
            return dict(ln.rstrip('\n').split('=', 1) for ln in f)

    def read(self, *path):
        with open(os.path.join(self.work, *path)) as f:
            return f.read()

    def test_series_applied_in_a_clone(self):
        p = self.prepare()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read('kernel', 'locking', 'rtmutex.c'), FIX_NEW)
        st = self.state()
        self.assertEqual((st['describe'], st['dirty'], st['mode']),
                         ('v7.3', 'no', 'series'))
        self.assertEqual(st['applied'].split(),
                         ['0001-locking-rtmutex-Fix-it.patch',
                          '0002-selftests-futex-Test-it.patch'])
        self.assertEqual(st['skipped'], '')

    def test_second_run_is_incremental(self):
        self.assertEqual(self.prepare().returncode, 0)
        p = self.prepare()
        self.assertIn('v7.3: ' + self.work + ' is up to date', p.stderr)
        # A new commit in the tree: the clone is updated in place, and a
        # file that did not change keeps its mtime (no rebuild).
        keep = os.path.join(self.work, 'tools', 'testing', 'selftests',
                            'futex', 'Makefile')
        mtime = os.stat(keep).st_mtime_ns
        write(os.path.join(self.dir, 'kernel', 'sched.c'), 'int s;\n')
        git(self.dir, 'add', '-A')
        git(self.dir, 'commit', '-q', '-m', 'more work')
        p = self.prepare()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read('kernel', 'sched.c'), 'int s;\n')
        self.assertEqual(self.read('kernel', 'locking', 'rtmutex.c'), FIX_NEW)
        self.assertEqual(os.stat(keep).st_mtime_ns, mtime)
        self.assertRegex(self.state()['describe'], r'^v7\.3-1-g')

    def test_fix_already_in_the_tree_is_skipped(self):
        write(os.path.join(self.dir, 'kernel', 'locking', 'rtmutex.c'),
              FIX_NEW)
        git(self.dir, 'commit', '-q', '-am', 'upstream took the fix')
        p = self.prepare()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('0001-locking-rtmutex-Fix-it.patch is already in the '
                      'tree: skipped', p.stderr)
        st = self.state()
        self.assertEqual(st['skipped'], '0001-locking-rtmutex-Fix-it.patch')
        self.assertEqual(st['applied'], '0002-selftests-futex-Test-it.patch')
        self.assertRegex(st['describe'], r'^v7\.3-1-g[0-9a-f]+$')

    def test_three_way_merge_where_the_context_changed(self):
        # The tree changed a context line of the fix (not its line): the
        # mail's own diff no longer applies, the commit's three-way merge
        # does (the mail has no index lines, the export commit has).
        write(os.path.join(self.dir, 'kernel', 'locking', 'rtmutex.c'),
              FIX_OLD.replace('int prio', 'static int prio'))
        git(self.dir, 'commit', '-q', '-am', 'make prio static')
        p = self.prepare()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read('kernel', 'locking', 'rtmutex.c'),
                         FIX_NEW.replace('int prio', 'static int prio'))
        self.assertEqual(len(self.state()['applied'].split()), 2)

    def test_conflict_names_the_mail_and_files(self):
        write(os.path.join(self.dir, 'kernel', 'locking', 'rtmutex.c'),
              'int prio(void)\n{\n\treturn 2;\n}\n')
        git(self.dir, 'commit', '-q', '-am', 'a change of my own')
        p = self.prepare()
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn('0001-locking-rtmutex-Fix-it.patch does not apply to '
                      'v7.3-1-g', p.stderr)
        self.assertIn('conflicting files: kernel/locking/rtmutex.c', p.stderr)
        self.assertIn('TREE_TESTS_ONLY=1', p.stderr)
        # TREE_TESTS_ONLY: only the mails that need no kernel patch, in
        # the clone the failed run left, with the series exported anew
        # (new commits: the fetch of them is not a fast-forward).
        work = os.path.join(self.tmp, 'export-work')
        git(work, 'commit', '-q', '--amend', '-m', 'selftests/futex: Test it',
            '--date', '2026-12-06T00:00:00Z')
        p = self.prepare('--tests-only')
        self.assertEqual(p.returncode, 0, p.stderr)
        st = self.state()
        self.assertEqual((st['mode'], st['applied']),
                         ('tests-only', '0002-selftests-futex-Test-it.patch'))
        self.assertIn('return 2', self.read('kernel', 'locking', 'rtmutex.c'))

    def test_dirty_tree_is_carried_and_named(self):
        write(os.path.join(self.dir, 'kernel', 'locking', 'rtmutex.c'),
              FIX_OLD + '/* mine */\n')
        write(os.path.join(self.dir, 'kernel', 'locking', 'new.c'), 'x\n')
        # A file touched, not changed: git status would refresh the
        # index (a write to the tree) unless told not to.
        os.utime(os.path.join(self.dir, 'Makefile'), (1e9, 1e9))
        before = snapshot(self.dir)
        self.assertEqual(sh([tool('tree.sh'), 'describe', self.dir]).stdout,
                         'v7.3-dirty\n')
        self.assertEqual(snapshot(self.dir), before)
        p = self.prepare('--tests-only')
        self.assertEqual(p.returncode, 0, p.stderr)
        st = self.state()
        self.assertEqual((st['describe'], st['dirty']), ('v7.3-dirty', 'yes'))
        self.assertIn('/* mine */', self.read('kernel', 'locking',
                                              'rtmutex.c'))
        self.assertEqual(self.read('kernel', 'locking', 'new.c'), 'x\n')
        # An edit of the untracked file alone is a new input.
        write(os.path.join(self.dir, 'kernel', 'locking', 'new.c'), 'y\n')
        self.assertEqual(self.prepare('--tests-only').returncode, 0)
        self.assertEqual(self.read('kernel', 'locking', 'new.c'), 'y\n')

    def test_pin_of_a_tree(self):
        for (version, patchlevel), want in ((('7', '3'), '7.3'),
                                            (('6', '12'), '6.12'),
                                            (('7', '5'), '7.3')):
            path = os.path.join(self.tmp, f'linux-{version}.{patchlevel}')
            self.tree(path, version, patchlevel)
            p = sh([tool('tree.sh'), 'pin', path])
            self.assertEqual((p.returncode, p.stdout), (0, want + '\n'),
                             p.stderr)
        path = os.path.join(self.tmp, 'linux-6.6')
        self.tree(path, '6', '6')
        p = sh([tool('tree.sh'), 'pin', path])
        self.assertEqual(p.returncode, 1)
        self.assertIn('the series runs on 6.12 and newer', p.stderr)

    def test_bad_input(self):
        for args in (['pin', self.tmp], ['pin', os.path.join(self.tmp, 'x')],
                     ['describe', ROOT + '/tools'], ['nothing']):
            p = sh([tool('tree.sh')] + args)
            self.assertEqual(p.returncode, 1, args)
            self.assertIn('tree.sh: error:', p.stderr)


if __name__ == '__main__':
    unittest.main()
