# SPDX-License-Identifier: GPL-2.0
"""Where the host tests find the repository and its tools."""
import glob
import os
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


def import_path(name):
    """Put the directory of tool NAME first on sys.path (to import it)."""
    d = os.path.dirname(tool(name))
    if d not in sys.path:
        sys.path.insert(0, d)
