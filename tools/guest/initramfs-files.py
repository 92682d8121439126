#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the gen_init_cpio lines of the dynamically linked programs the
guest needs: a minimal python3 and host programs, each with the shared
libraries it loads.

usage: initramfs-files.py [--host-bin PROG]... INTERPRETER MODULE...

Runs INTERPRETER (Debian's /usr/bin/python3.11, not a pyenv shim), imports
the named modules in it and collects the file of every module that ended
up loaded (pure-Python .py files and lib-dynload extensions).  Each
--host-bin PROG (found in PATH, e.g. rt-tests' pi_stress) goes to
/usr/bin.  The shared libraries of the interpreter, of its extensions and
of each PROG come from ldd.  Paths stay as on the host, so the
interpreter finds its prefix in the guest the same way.  Every directory
is printed once; tools/guest/mkinitramfs.sh drops lines the static spec has.
Exits 1 when a PROG is not found or INTERPRETER cannot import the modules,
2 on bad usage.
"""
import argparse
import os
import shutil
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
    """The shared libraries @path loads, as ldd resolves them."""
    libs = []
    out = subprocess.run(['ldd', path], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        for p in line.split():
            if p.startswith('/'):
                libs.append(p)
                break
    return libs


def python_files(interp, modules):
    """The interpreter and the files of @modules, or None."""
    env = dict(os.environ, PYTHONHASHSEED='0', PYTHONDONTWRITEBYTECODE='1')
    env.pop('PYTHONPATH', None)
    env.pop('PYTHONHOME', None)
    probe = subprocess.run([interp, '-S', '-c', PROBE] + modules, env=env,
                           capture_output=True, text=True)
    if probe.returncode:
        print(f'initramfs-files: error: {interp} cannot import the modules: '
              f'{probe.stderr.strip().splitlines()[-1:]}', file=sys.stderr)
        return None
    files = {interp}
    for f in probe.stdout.split():
        if f.startswith('/'):
            files.add(os.path.realpath(f) if f.endswith('.so') else f)
    return files


def parse_args(argv):
    head, usage, rest = __doc__.strip().split('\n\n', 2)
    p = argparse.ArgumentParser(
        usage=usage.split(': ', 1)[1], description=f'{head}\n\n{rest}',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--host-bin', metavar='PROG', action='append',
                   default=[], help='a host program (found in PATH) for '
                   '/usr/bin, with its shared libraries; repeatable')
    p.add_argument('interpreter', metavar='INTERPRETER',
                   help="the guest's python3 (Debian's, not a pyenv shim)")
    p.add_argument('modules', metavar='MODULE', nargs='*',
                   help='a module the guest imports')
    return p.parse_args(argv[1:])


def main(argv):
    opts = parse_args(argv)
    progs = []
    for prog in opts.host_bin:
        path = shutil.which(prog)
        if not path:
            print(f'initramfs-files: error: host program {prog} not '
                  'found (make deps)', file=sys.stderr)
            return 1
        progs.append((os.path.basename(path), os.path.realpath(path)))
    interp = os.path.realpath(opts.interpreter)
    files = python_files(interp, opts.modules)
    if files is None:
        return 1
    for f in [f for f in files if f.endswith('.so')] + [interp] + \
            [real for _, real in progs]:
        files.update(ldd(f))
    dirs = {'/usr/bin'} if progs else set()
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
    for name, real in progs:
        print(f'file /usr/bin/{name} {real} 0755 0 0')
    name = os.path.basename(interp)
    print(f'slink /usr/bin/python3 {name} 0777 0 0')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
