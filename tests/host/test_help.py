# SPDX-License-Identifier: GPL-2.0
"""Every tool answers --help: exit status 0, its usage on stdout, and no
side effect; every Python tool parses its command line with argparse."""
import os
import re
import subprocess
import tempfile
import unittest
from helpers import ROOT, tool

TOOLS = os.path.dirname(tool('lib.sh'))
# Sourced by the shell tools, not run.
SOURCED = {'lib.sh'}


def tool_files(keep):
    """The files under tools/ (but __pycache__) that keep(path) takes,
    sorted."""
    found = []
    for d, dirs, files in os.walk(TOOLS):
        dirs[:] = [x for x in dirs if x != '__pycache__']
        found += [os.path.join(d, f) for f in files
                  if keep(os.path.join(d, f))]
    return sorted(found)


def executables():
    return tool_files(lambda p: os.path.basename(p) not in SOURCED
                      and os.access(p, os.X_OK))


def git_status():
    """The repository's `git status --porcelain`, or None outside git."""
    p = subprocess.run(['git', '-C', ROOT, 'status', '--porcelain'],
                       capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


class HelpTest(unittest.TestCase):
    def test_tools_found(self):
        names = [os.path.basename(p) for p in executables()]
        for name in ('run-qemu.sh', 'stage.sh', 'repin.sh', 'verdict.py'):
            self.assertIn(name, names)

    def test_every_tool_answers_help(self):
        for path in executables():
            name = os.path.basename(path)
            with self.subTest(tool=os.path.relpath(path, ROOT)):
                self.check_help(path, name)

    def check_help(self, path, name):
        with tempfile.TemporaryDirectory() as tmp:
            cwd = os.path.join(tmp, 'cwd')
            home = os.path.join(tmp, 'home')
            os.mkdir(cwd)
            os.mkdir(home)
            env = dict(os.environ, HOME=home,
                       XDG_CACHE_HOME=os.path.join(home, '.cache'))
            before = git_status()
            try:
                p = subprocess.run([path, '--help'], cwd=cwd, env=env,
                                   stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True,
                                   timeout=20)
            except subprocess.TimeoutExpired:
                self.fail(f'{name} --help ran for more than 20 s')
            self.assertEqual(p.returncode, 0,
                             f'{name} --help exited {p.returncode}; '
                             f'stderr: {p.stderr[-500:]}')
            self.assertTrue(p.stdout.strip(), f'{name} --help printed '
                            'nothing on stdout')
            self.assertIn(name, p.stdout,
                          f'{name} --help does not name the tool')
            self.assertEqual(git_status(), before,
                             f'{name} --help changed the repository')
            self.assertEqual(os.listdir(cwd), [],
                             f'{name} --help wrote to its working directory')
            self.assertEqual(os.listdir(home), [],
                             f'{name} --help wrote to HOME or the cache')

    def test_python_tools_use_argparse(self):
        pys = tool_files(lambda p: p.endswith('.py'))
        self.assertTrue(pys)
        for path in pys:
            with self.subTest(tool=os.path.relpath(path, ROOT)):
                with open(path, encoding='utf-8') as f:
                    src = f.read()
                self.assertTrue(
                    re.search(r'^(import argparse|from argparse import)',
                              src, re.M),
                    f'{os.path.basename(path)} does not import argparse')


if __name__ == '__main__':
    unittest.main()
