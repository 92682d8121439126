# SPDX-License-Identifier: GPL-2.0
"""What the host tests share: where the repository and its tools are,
and small helpers."""
import glob
import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def tool(name):
    """The path of tools/NAME or tools/GROUP/NAME; exactly one must exist."""
    found = glob.glob(os.path.join(ROOT, 'tools', name)) + \
        glob.glob(os.path.join(ROOT, 'tools', '*', name))
    if len(found) != 1:
        raise LookupError('tool %s: %d matches' % (name, len(found)))
    return found[0]


def load_tool(name):
    """Python tool NAME.py (tools/.../NAME.py) as a module, by its path:
    its name has dashes, so it cannot be imported by name."""
    spec = importlib.util.spec_from_file_location(
        name.replace('-', '_'), tool(name + '.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def import_path(name):
    """Put the directory of tool NAME first on sys.path (to import it)."""
    d = os.path.dirname(tool(name))
    if d not in sys.path:
        sys.path.insert(0, d)


HERE = os.path.join(ROOT, 'tests', 'host')


def write(path, text, mode=0o644):
    """Write @text to @path (making its directory) with @mode."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    os.chmod(path, mode)


def sh(args, env=None, cwd=None):
    return subprocess.run(args, capture_output=True, text=True, env=env,
                          cwd=cwd)
