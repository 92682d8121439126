#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print gen_init_cpio lines that put a minimal python3 in the initramfs.

usage: python-spec.py INTERPRETER MODULE...

Runs INTERPRETER (Debian's /usr/bin/python3.11, not a pyenv shim), imports
the named modules in it and collects the file of every module that ended
up loaded (pure-Python .py files and lib-dynload extensions), plus the
shared libraries of the interpreter and of those extensions (from ldd).
Paths stay as on the host, so the interpreter finds its prefix in the
guest the same way.
"""
import os
import subprocess
import sys

PROBE = r'''
import sys, importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
for mod in list(sys.modules.values()):
    f = getattr(mod, '__file__', None)
    if f:
        print(f)
'''


def ldd(path):
    libs = []
    out = subprocess.run(['ldd', path], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        parts = line.split()
        for p in parts:
            if p.startswith('/'):
                libs.append(p)
                break
    return libs


def main(argv):
    if len(argv) < 2:
        print('usage: python-spec.py INTERPRETER MODULE...', file=sys.stderr)
        return 2
    interp = os.path.realpath(argv[1])
    env = dict(os.environ, PYTHONHASHSEED='0', PYTHONDONTWRITEBYTECODE='1')
    env.pop('PYTHONPATH', None)
    env.pop('PYTHONHOME', None)
    probe = subprocess.run([interp, '-S', '-c', PROBE] + argv[2:], env=env,
                           capture_output=True, text=True)
    if probe.returncode:
        print(f'python-spec: error: {interp} cannot import the modules: '
              f'{probe.stderr.strip().splitlines()[-1:]}', file=sys.stderr)
        return 1
    files = {interp}
    for f in probe.stdout.split():
        if f.startswith('/'):
            files.add(os.path.realpath(f) if f.endswith('.so') else f)
    for f in list(files):
        if f.endswith('.so') or f == interp:
            files.update(ldd(f))
    dirs = set()
    for f in files:
        d = os.path.dirname(f)
        while d not in ('/', ''):
            dirs.add(d)
            d = os.path.dirname(d)
    for d in sorted(dirs):
        print(f'dir {d} 0755 0 0')
    for f in sorted(files):
        mode = '0755' if os.access(f, os.X_OK) else '0644'
        print(f'file {f} {os.path.realpath(f)} {mode} 0 0')
    name = os.path.basename(interp)
    print(f'slink /usr/bin/python3 {name} 0777 0 0')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
