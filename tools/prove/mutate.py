#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation testing of the PI code of the pin's patched tree.

    mutate.py list   --src TREE [--files F...] [--json]
    mutate.py run    --src TREE --out DIR [--sample N] [--seed S]
                     [--ids ID...] [--files F...] [--phase model|boot]
                     [--retry OUTCOME...]
                     [--obj OBJ --initrd-dir DIR --qemu-opt OPT...]
    mutate.py report --src TREE --out DIR [--markdown F] [--svg F]
    mutate.py rekey  --src TREE [--old-src OLD] [--ids ID...] [--write]
    mutate.py rekey  --src TREE --old-src OLD --out DIR [--write]

A mutant is one small change to one line of a file of tests/mutate/scope:
a condition negated, && and || swapped, a comparison swapped, a
statement dropped, a returned errno replaced, a return dropped, a
boolean or an integer constant changed.  The mutants come from the
source text alone, so a mutant's id (FILE:LINE:OPERATOR[.K]) is stable
for a tree; --seed only orders a sample.  Lines in comments, preprocessor
lines and the debug-only statements (lockdep, WARN, BUG_ON, trace_) are
not mutated.

"run" tries each mutant not yet in DIR/results.json (so a campaign can
be interrupted and resumed) and writes the file back after each one:

  model  the files of kernel/locking under the user-space rtmutex model
         (tools/testing/rtmutex): a copy of the files it compiles, the
         mutant applied, built and run as make model runs it, with
         MODEL_RUNS random programs and every schedule of each program of
         programs/ with at most one preemption.  A counterexample, a crash
         or a hang of the model kills the mutant.  A mutant whose stripped
         binary is identical to the unmutated one is "not-in-model" (the
         line is compiled out there, or optimized to the same code).
  boot   the mutant applied to TREE itself (restored afterwards, also on
         SIGINT/SIGTERM), the kernel rebuilt incrementally in OBJ and
         booted with the runlist tests/mutate/scope names for its file;
         a failed verdict kills it.  A mutant whose object file (debug
         sections stripped) is the series' own is not booted: the
         compiler made the same code of it in this configuration, which
         is "not-in-model" still (a flavour that compiles the line, such
         as PREEMPT_RT or one without lock debugging, may tell it apart).

--retry OUTCOME... tries the mutants of those outcomes again, in the
phase that gave them (after a new test or model check).

An id names a line, so a patch that adds or removes lines above a
mutant moves it to another id.  Each entry of tests/mutate/triage
records the line it was written for ("at: FUNCTION: TEXT"); report
ignores, and lists, an entry whose id names another line today, and
"rekey" moves each entry to the mutant of the same operator on that
line (the nearest one with the same text in the same function).  With
--old-src, an entry without "at:" is taken to be an id of the tree OLD
(a tree, or a directory holding only the files that differ) and is
moved by a line diff of OLD's file and TREE's.  rekey prints what it
would change; --write rewrites the triage file.  With --out DIR, it
moves the results in DIR/results.json from the tree OLD instead, those
whose function is the same in both trees; the others are tried again.

Outcomes: killed, survived, stillborn (does not compile), not-in-model,
infra (the boot gave no verdict), and, from tests/mutate/triage,
equivalent (with the argument why).  The score of a file is
killed / (total - stillborn - equivalent), counted over the mutants tried.
"""
import argparse
import difflib
import glob
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCOPE = os.path.join(ROOT, 'tests', 'mutate', 'scope')
TRIAGE = os.path.join(ROOT, 'tests', 'mutate', 'triage')

# Statements whose removal only changes what a debug kernel checks.
DEBUG_STMT = re.compile(
    r'^\s*(lockdep_\w+|WARN\w*|BUG_ON|BUG|debug_\w+|trace_\w+|'
    r'might_sleep\w*|might_fault|mutex_acquire\w*|mutex_release|'
    r'rt_mutex_print_deadlock|printk|pr_\w+|KUNIT\w*|__acquire|__release|'
    r'DEBUG_LOCKS_WARN_ON|lockevent_\w+|__assume_ctx_lock)'
    r'\s*\(')
DECL = re.compile(
    r'^\s*(?:(?:const|static|volatile|unsigned|signed|long|short|int|char|'
    r'bool|void|u8|u16|u32|u64|s8|s16|s32|s64|\w+_t|__\w+|struct\s+\w+|'
    r'union\s+\w+|enum\s+\w+)\s*\**\s*)+\w+\s*(=|;|\[|,)|'
    r'^\s*(DEFINE|DECLARE)_\w+\(')
CMP = re.compile(r'<<=|>>=|<<|>>|->|<=|>=|==|!=|<|>')
CMP_SWAP = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=',
            '!=': '=='}
ERRNO = re.compile(r'-E([A-Z]+)\b')
ERRNO_SWAP = {'EINVAL': 'EPERM', 'EPERM': 'EINVAL', 'EDEADLK': 'EAGAIN',
              'EAGAIN': 'EINVAL', 'ESRCH': 'EPERM', 'EFAULT': 'EINVAL',
              'ENOSYS': 'EINVAL', 'EBUSY': 'EAGAIN', 'ETIMEDOUT': 'EINTR',
              'EINTR': 'ETIMEDOUT', 'ENOMEM': 'EAGAIN',
              'EOWNERDIED': 'EINVAL', 'EWOULDBLOCK': 'EINVAL',
              'ERESTARTNOINTR': 'EINTR', 'ENOENT': 'EINVAL'}
INT = re.compile(r'(?<![\w.])(\d+)(?![\w.])')
OPERATORS = ('negate-cond', 'and-or', 'cmp', 'drop-stmt', 'drop-return',
             'errno', 'errno-zero', 'bool', 'const')
OUTCOMES = ('killed', 'survived', 'equivalent', 'not-in-model',
            'stillborn', 'infra')


def die(msg, code=2):
    print(f'mutate.py: error: {msg}', file=sys.stderr)
    sys.exit(code)


def read_scope(path=SCOPE):
    """tests/mutate/scope: FILE PHASE RUNLIST [FUNCTION...] per line."""
    scope = []
    with open(path) as f:
        for no, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].split()
            if not line:
                continue
            if len(line) < 3 or line[1] not in ('model', 'boot'):
                die(f'{path}:{no}: want FILE model|boot RUNLIST [FUNCTION...]')
            scope.append({'file': line[0], 'phase': line[1],
                          'runlist': line[2], 'functions': set(line[3:])})
    return scope


def read_triage(path=TRIAGE):
    """tests/mutate/triage: ID equivalent|killed-by|gap TEXT, one per
    line (continuation lines start with white space)."""
    out = {}
    if not os.path.exists(path):
        return out
    cur = None
    with open(path) as f:
        for no, raw in enumerate(f, 1):
            if raw.startswith('#') or not raw.strip():
                cur = None
                continue
            if raw[0].isspace():
                if cur is None:
                    die(f'{path}:{no}: continuation without an entry')
                m = re.match(r'^at: (\S+): (.*)$', raw.strip())
                if m:
                    out[cur]['at'] = (m.group(1), m.group(2))
                else:
                    out[cur]['why'] += ' ' + raw.strip()
                continue
            parts = raw.split(None, 2)
            if len(parts) < 3 or parts[1] not in ('equivalent', 'killed-by',
                                                  'gap'):
                die(f'{path}:{no}: want ID equivalent|killed-by|gap TEXT')
            cur = parts[0]
            out[cur] = {'verdict': parts[1], 'why': parts[2].strip()}
    return out


def balanced(text):
    depth = 0
    for c in text:
        depth += c == '('
        depth -= c == ')'
        if depth < 0:
            return False
    return depth == 0


def code_lines(lines):
    """(index, text, function) of every line inside a function body that
    is code: not in a comment, not a preprocessor line."""
    in_comment = False
    func = None
    depth = 0
    header = []
    for i, raw in enumerate(lines):
        text = raw.rstrip('\n')
        if in_comment:
            if '*/' in text:
                in_comment = False
            continue
        s = text.strip()
        if s.startswith('/*') and '*/' not in s:
            in_comment = True
            continue
        if s.startswith('#'):
            continue
        if func is None:
            if text.startswith('{') and header:
                m = None
                for h in header[-6:]:
                    m = re.search(r'(\w+)\s*\(', h) or m
                    if m:
                        break
                func = m.group(1) if m else '?'
                depth = 1
                continue
            if text and not text[0].isspace() and text[0] not in '}#/':
                header.append(text)
                header = header[-6:]
            elif not text:
                header = []
            continue
        depth += text.count('{') - text.count('}')
        if depth <= 0:
            func = None
            header = []
            continue
        if '/*' in text or '//' in text or '*/' in text:
            continue
        yield i, text, func


def prev_code(lines, i):
    for j in range(i - 1, -1, -1):
        s = lines[j].strip()
        if s and not s.startswith('#'):
            return s
    return ''


def mutants_of_line(text, prev):
    """(operator, new text) for each mutant of one line of code."""
    out = []
    s = text.strip()
    m = re.match(r'^(\s*(?:\} else )?(?:if|while) )\((.*)\)(\s*\{)?\s*$', text)
    if m and balanced(m.group(2)) and not s.startswith('while (1)'):
        out.append(('negate-cond',
                    f'{m.group(1)}(!({m.group(2)})){m.group(3) or ""}'))
    for k, mm in enumerate(re.finditer(r'&&|\|\|', text)):
        new = '||' if mm.group() == '&&' else '&&'
        out.append(('and-or', text[:mm.start()] + new + text[mm.end():]))
    cmps = [mm for mm in CMP.finditer(text) if mm.group() in CMP_SWAP]
    for mm in cmps:
        out.append(('cmp', text[:mm.start()] + CMP_SWAP[mm.group()] +
                    text[mm.end():]))
    for mm in ERRNO.finditer(text):
        alt = ERRNO_SWAP.get('E' + mm.group(1), 'EINVAL')
        out.append(('errno', text[:mm.start()] + '-' + alt +
                    text[mm.end():]))
        if re.match(r'^\s*return -E[A-Z]+;$', text):
            out.append(('errno-zero', re.sub(r'-E[A-Z]+', '0', text)))
    for word, alt in (('true', 'false'), ('false', 'true')):
        if re.search(rf'(return|=)\s*{word};$', text):
            out.append(('bool', re.sub(rf'\b{word};$', f'{alt};', text)))
    if cmps or re.match(r'^\s*return \d+;$', text):
        for mm in INT.finditer(text):
            n = int(mm.group(1))
            alt = str(n + 1) if n > 1 else str(1 - n)
            out.append(('const', text[:mm.start()] + alt + text[mm.end():]))
    indent = text[:len(text) - len(text.lstrip())]
    cont = prev.endswith((';', '{', '}', ')', ':', 'else'))
    if (s.endswith(';') and balanced(s) and cont and
            not DEBUG_STMT.match(s) and not DECL.match(s)):
        if s.startswith('return'):
            if prev.startswith(('if ', '} else if ', 'else')) and \
                    prev.endswith((')', 'else')):
                out.append(('drop-return', indent + ';'))
        elif not re.match(r'^(break|continue|goto|else|case|default|do)\b',
                          s) and s != ';':
            out.append(('drop-stmt', indent + ';'))
    return out


def generate_lines(lines, file, scope):
    """The mutants of FILE's scope entry in the text LINES."""
    return [m for ent in scope if ent['file'] == file
            for m in mutants_of_entry(ent, lines)]


def generate(src, scope):
    """Every mutant of the files of scope, in file and line order."""
    mutants = []
    for ent in scope:
        path = os.path.join(src, ent['file'])
        if not os.path.exists(path):
            die(f'{path}: no such file in the tree')
        with open(path) as f:
            mutants += mutants_of_entry(ent, f.readlines())
    return mutants


def mutants_of_entry(ent, lines):
    """The mutants of one scope entry (a file) in the text LINES."""
    mutants = []
    for i, text, func in code_lines(lines):
        if ent['functions'] and func not in ent['functions']:
            continue
        seen = {}
        for op, new in mutants_of_line(text, prev_code(lines, i)):
            if new == text:
                continue
            k = seen.get(op, 0)
            seen[op] = k + 1
            mid = f'{ent["file"]}:{i + 1}:{op}' + (f'.{k}' if k else '')
            mutants.append({'id': mid, 'file': ent['file'],
                            'line': i + 1, 'op': op, 'func': func,
                            'phase': ent['phase'],
                            'runlist': ent['runlist'],
                            'old': text, 'new': new})
    return mutants


def apply(path, mutant, lines):
    out = list(lines)
    out[mutant['line'] - 1] = mutant['new'] + '\n'
    with open(path, 'w') as f:
        f.writelines(out)


def current(results, mutants):
    """The results that are still those of MUTANTS: same id and the same
    line before and after.  A change of the tree moves lines, and an id
    (FILE:LINE:OP) then names another mutant; its old result is not its."""
    by_id = {m['id']: m for m in mutants}
    return {k: v for k, v in results.items() if k in by_id and
            (v.get('old'), v.get('new')) == (by_id[k]['old'], by_id[k]['new'])}


def load_results(out):
    path = os.path.join(out, 'results.json')
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def save_results(out, results):
    path = os.path.join(out, 'results.json')
    with open(path + '.tmp', 'w') as f:
        json.dump(results, f, indent=1, sort_keys=True)
    os.replace(path + '.tmp', path)


# --- model phase ---------------------------------------------------------

def mini_tree(src, dest):
    """The files the rtmutex model compiles, copied from src."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.join(dest, 'kernel'))
    os.makedirs(os.path.join(dest, 'include', 'linux'))
    os.makedirs(os.path.join(dest, 'tools', 'lib'))
    shutil.copytree(os.path.join(src, 'kernel', 'locking'),
                    os.path.join(dest, 'kernel', 'locking'))
    shutil.copy(os.path.join(src, 'include', 'linux', 'rtmutex.h'),
                os.path.join(dest, 'include', 'linux'))
    shutil.copytree(os.path.join(src, 'tools', 'include'),
                    os.path.join(dest, 'tools', 'include'))
    shutil.copy(os.path.join(src, 'tools', 'lib', 'rbtree.c'),
                os.path.join(dest, 'tools', 'lib'))


def model_build(src, tree, output):
    model = os.path.join(src, 'tools', 'testing', 'rtmutex')
    p = subprocess.run(['make', '-s', '-B', '-C', model, f'TREE={tree}',
                        f'OUTPUT={output}'], capture_output=True, text=True)
    binary = output + 'rtmutex_model'
    if p.returncode or not os.path.exists(binary):
        return None
    return binary


def stripped_digest(binary):
    tmp = binary + '.stripped'
    subprocess.run(['strip', '-o', tmp, binary], check=True)
    with open(tmp, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


# The model's runs for a mutant, as make model runs it: random programs
# (plus a manager's priority changes, then the fixed windows of
# MODEL_WIDE: every task's priority changes, lock cycles, and both), and
# every schedule of each program of programs/ with at most one
# preemption.  The unmutated model must pass them (model_base()).
MODEL_RUNS = (('random programs', ['-n', '{runs}']),
              ('random programs -p', ['-p', '-n', '{runs}']))
# The fixed windows after them, OPTION:SEEDS each: make passes its
# MODEL_WIDE (without -p, run above at --model-runs).
MODEL_WIDE = ('-P:20000', '-C:20000', '-Cp:20000', '-CP:20000')


def wide_runs(wide):
    """(what, args) of each OPTION:SEEDS window."""
    runs = []
    for w in wide:
        opt, sep, seeds = w.partition(':')
        if not sep or not seeds.isdigit():
            die(f'--model-wide {w}: not OPTION:SEEDS')
        runs.append((f'random programs {opt}', [opt, '-n', seeds]))
    return runs


def model_run(src, binary, args):
    """killed/survived and what killed it, as make model runs the model."""
    programs = os.path.join(src, 'tools', 'testing', 'rtmutex', 'programs')
    runs = [(what, [binary, '-x', '-t', str(args.model_budget)] +
             [a.format(runs=args.model_runs) for a in extra])
            for what, extra in MODEL_RUNS + tuple(wide_runs(args.model_wide))]
    for p in sorted(os.listdir(programs)):
        if p.endswith('.txt'):
            runs.append((p, [binary, '-x', '-f', os.path.join(programs, p),
                             '-e', '1', '-t', str(args.program_budget)]))
    for what, cmd in runs:
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=args.model_budget * 2 + 10)
        except subprocess.TimeoutExpired:
            return 'killed', f'model: {what}: hang (no answer in ' \
                f'{args.model_budget * 2 + 10}s)'
        if p.returncode == 0:
            continue
        if p.returncode == 1:
            first = next((ln for ln in p.stdout.splitlines()
                          if ln.startswith('model: counterexample')), '')
            return 'killed', f'model: {what}: {first or "counterexample"}'
        return 'killed', f'model: {what}: exit {p.returncode} ' \
            f'({p.stderr.strip().splitlines()[-1:] or "crash"})'
    return 'survived', 'model: no counterexample'


# --- boot phase ----------------------------------------------------------

def object_of(obj, file):
    """The object file kbuild compiles FILE (kernel/x/y.c) into in OBJ:
    y.o, or the object whose .cmd file names FILE (a .c #included into
    another, as kernel/sched/syscalls.c into build_policy.c)."""
    d, base = os.path.split(file)
    direct = os.path.join(obj, d, base[:-2] + '.o')
    if os.path.exists(direct):
        return direct
    for cmd in sorted(glob.glob(os.path.join(obj, d, '.*.o.cmd'))):
        with open(cmd, errors='replace') as f:
            if re.search(r'(^|\s|/)' + re.escape(file) + r'(\s|\\|$)',
                         f.read(), re.M):
                return os.path.join(obj, d, os.path.basename(cmd)[1:-4])
    return None


def object_digest(path):
    """The digest of an object file without its debug sections: the same
    for a mutant the compiler turned into the original's code (its line
    numbers are the original's, since a mutant replaces one line)."""
    tmp = path + '.mutate-stripped'
    try:
        subprocess.run(['strip', '-g', '-o', tmp, path], check=True)
        with open(tmp, 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest()
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def base_objects(src, obj, files):
    """The digests of the series' objects of FILES, from a build of the
    unmutated tree (a no-op when OBJ holds it)."""
    p = subprocess.run([os.path.join(ROOT, 'tools', 'kernel',
                                     'build-kernel.sh'), src, obj],
                       capture_output=True, text=True)
    if p.returncode:
        die(f'the series does not build in {obj}:\n{p.stdout}{p.stderr}')
    digests = {}
    for f in files:
        o = object_of(obj, f)
        if o:
            digests[o] = object_digest(o)
    return digests


def boot_try(src, mutant, lines, args, out):
    """Apply the mutant to the tree, build, boot; the tree is restored."""
    path = os.path.join(src, mutant['file'])
    safe = re.sub(r'[^\w.-]', '_', mutant['id'])
    log = os.path.join(out, 'boot', safe)
    os.makedirs(os.path.dirname(log), exist_ok=True)
    try:
        apply(path, mutant, lines)
        with open(log + '.build', 'w') as b:
            p = subprocess.run([os.path.join(ROOT, 'tools', 'kernel',
                                             'build-kernel.sh'),
                                src, args.obj], stdout=b, stderr=b)
        if p.returncode:
            return 'stillborn', 'kernel does not build'
        obj = object_of(args.obj, mutant['file'])
        kernel = os.path.basename(os.path.normpath(args.obj))
        if obj and object_digest(obj) == args.base_objects.get(obj):
            # Equivalent in this configuration only: code that another
            # flavour compiles (PREEMPT_RT, no lock debugging) is
            # optimized away here, and is still to be tried there.
            return 'not-in-model', (f'same object code in {kernel} '
                                    f'({os.path.relpath(obj, args.obj)}): '
                                    'boot a flavour that compiles it')
        initrd = os.path.join(args.initrd_dir,
                              f'initramfs-mutate-{mutant["runlist"]}.cpio.gz')
        start = time.time()
        with open(log + '.out', 'w') as o:
            subprocess.run([os.path.join(ROOT, 'tools', 'run-qemu.sh')] +
                           args.qemu_opt + ['--initrd', initrd,
                                            '--log', log + '.log'],
                           stdout=o, stderr=o)
        took = time.time() - start
        if not os.path.exists(log + '.json'):
            return 'infra', 'boot left no verdict'
        with open(log + '.json') as f:
            v = json.load(f)
        if v.get('verdict') == 'pass':
            return 'survived', f'boot {kernel}: verdict pass in {took:.0f}s'
        if v.get('verdict') == 'infra':
            return 'infra', f'boot {kernel}: infra'
        failed = [s['suite'] for s in v.get('suites', [])
                  if s.get('result') == 'fail']
        why = ', '.join(failed) or '; '.join(v.get('problems', [])[:1])
        return 'killed', f'boot {kernel}: {why}'
    finally:
        with open(path, 'w') as f:
            f.writelines(lines)


# --- commands ------------------------------------------------------------

def select(mutants, args):
    if args.files:
        mutants = [m for m in mutants if m['file'] in args.files]
    if args.phase:
        mutants = [m for m in mutants if m['phase'] == args.phase]
    if args.ids:
        want = set(args.ids)
        unknown = want - {m['id'] for m in mutants}
        if unknown:
            die(f'no such mutant: {" ".join(sorted(unknown))}')
        mutants = [m for m in mutants if m['id'] in want]
    return mutants


def cmd_list(args):
    mutants = select(generate(args.src, read_scope()), args)
    if args.json:
        json.dump(mutants, sys.stdout, indent=1)
        print()
        return 0
    for m in mutants:
        print(f'{m["id"]}\t{m["func"]}\t{m["new"].strip()}')
    return 0


def source_lines(src, m):
    """The lines of the mutant's file, which must still hold its line."""
    with open(os.path.join(src, m['file'])) as f:
        lines = f.readlines()
    if lines[m['line'] - 1].rstrip('\n') != m['old']:
        die(f'{m["id"]}: the tree changed under the campaign')
    return lines


def model_base(args, slot):
    """The stripped digest of the unmutated model built in SLOT's tree
    (the tree's path is in the binary)."""
    tree = slot + '/tree'
    # Afresh: a copy left by an earlier campaign may be of an older tree.
    mini_tree(args.src, tree)
    b = model_build(args.src, tree, slot + '/base-')
    if not b:
        die('the unmutated model does not build')
    # A run that fails without a mutant would kill every mutant.
    outcome, why = model_run(args.src, b, args)
    if outcome != 'survived':
        die(f'the unmutated model fails its runs: {why}')
    return stripped_digest(b)


def model_try(args, m, lines, slot, base_digest):
    """One mutant under the model, in the mini tree of SLOT."""
    tree = slot + '/tree'
    if slot not in base_digest:
        base_digest[slot] = model_base(args, slot)
    tpath = os.path.join(tree, m['file'])
    apply(tpath, m, lines)
    try:
        b = model_build(args.src, tree, slot + '/mut-')
        if not b:
            return 'stillborn', 'model does not build'
        if stripped_digest(b) == base_digest[slot]:
            return 'not-in-model', 'same stripped model binary'
        return model_run(args.src, b, args)
    finally:
        with open(tpath, 'w') as f:
            f.writelines(lines)
        if os.path.exists(slot + '/mut-rtmutex_model'):
            os.unlink(slot + '/mut-rtmutex_model')


def model_pool(args, todo, work, base_digest, record):
    """The model mutants, args.jobs at a time; record() in this thread."""
    import concurrent.futures as cf
    if not todo:
        return
    slots = [f'{work}/{k}' for k in range(max(1, args.jobs))]

    def one(m, slot):
        lines = source_lines(args.src, m)
        start = time.time()
        outcome, why = model_try(args, m, lines, slot, base_digest)
        return outcome, why, time.time() - start

    with cf.ThreadPoolExecutor(len(slots)) as ex:
        pending = list(todo)
        running = {}    # future: (slot, mutant)
        try:
            while pending or running:
                while pending and len(running) < len(slots):
                    busy = {slot for slot, _ in running.values()}
                    slot = next(s for s in slots if s not in busy)
                    m = pending.pop(0)
                    running[ex.submit(one, m, slot)] = (slot, m)
                fin, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for fu in fin:
                    _, m = running.pop(fu)
                    record(m, *fu.result())
        except BaseException:
            for fu in running:
                fu.cancel()
            raise


def cmd_run(args):
    phase, args.phase = args.phase, None
    scope = generate(args.src, read_scope())
    mutants = select(scope, args)
    os.makedirs(args.out, exist_ok=True)
    results = load_results(args.out)
    valid = current(results, scope)
    # A mutant the model did not kill goes on to the boot phase.
    todo = []
    for m in mutants:
        r = valid.get(m['id'])
        if r is None and phase in (None, m['phase']):
            todo.append(m)
        elif r and r['outcome'] in args.retry and \
                phase in (None, r['phase']):
            # Tried again in the phase that gave the outcome (the boot,
            # for a kernel/locking mutant the model let through), after
            # a change of the tests or with another flavour's kernel.
            todo.append(dict(m, phase=r['phase']))
        elif r and phase != 'model' and m['phase'] == 'model' and \
                r['outcome'] in ('survived', 'not-in-model') and \
                'model' not in r:
            todo.append(dict(m, phase='boot'))
    if args.sample:
        random.Random(args.seed).shuffle(todo)
        todo = todo[:args.sample]
    todo.sort(key=lambda m: m['phase'] != 'model')
    if any(m['phase'] == 'boot' for m in todo) and \
            not (args.obj and args.initrd_dir and args.qemu_opt):
        die('boot-phase mutants need --obj, --initrd-dir and --qemu-opt')
    print(f'mutate: {len(mutants)} mutants in scope, {len(valid)} done '
          f'before on this tree, {len(todo)} to try now')

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    work = os.path.join(args.out, 'model')
    base_digest = {}
    done = [0]

    def record(m, outcome, why, took):
        before = valid.get(m['id'])
        results[m['id']] = {k: m[k] for k in
                            ('file', 'line', 'op', 'func', 'phase',
                             'old', 'new')}
        if before:
            # What the model said, kept beside the boot's answer.
            results[m['id']]['model'] = {
                k: before[k] for k in ('outcome', 'why', 'seconds')}
        results[m['id']].update(outcome=outcome, why=why,
                                seconds=round(took, 1))
        save_results(args.out, results)
        done[0] += 1
        print(f'[{done[0]}/{len(todo)}] {m["id"]}: {outcome} ({why}) '
              f'{took:.0f}s', flush=True)

    try:
        model_pool(args, [m for m in todo if m['phase'] == 'model'], work,
                   base_digest, record)
        boots = [m for m in todo if m['phase'] == 'boot']
        if boots:
            args.base_objects = base_objects(
                args.src, args.obj, sorted({m['file'] for m in boots}))
        for m in todo:
            if m['phase'] == 'model':
                continue
            lines = source_lines(args.src, m)
            start = time.time()
            outcome, why = boot_try(args.src, m, lines, args, args.out)
            record(m, outcome, why, time.time() - start)
    except KeyboardInterrupt:
        print('mutate: interrupted; results so far are kept', file=sys.stderr)
        return 130
    finally:
        if any(m['phase'] == 'boot' for m in todo):
            # OBJ holds the last mutant's kernel: build the series again.
            p = subprocess.run([os.path.join(ROOT, 'tools', 'kernel',
                                             'build-kernel.sh'),
                                args.src, args.obj], capture_output=True)
            if p.returncode:
                print('mutate: the series does not build again in '
                      f'{args.obj}', file=sys.stderr)
    return 0


def line_key(m):
    """What an "at:" line of tests/mutate/triage records of a mutant."""
    return (m['func'], m['old'].strip())


def stale_triage(triage, mutants):
    """Triage entries that name no mutant of MUTANTS, or one on another
    line than the one they were written for."""
    by_id = {m['id']: m for m in mutants}
    files = {m['file'] for m in mutants}
    return sorted(mid for mid, t in triage.items()
                  if mid.rsplit(':', 2)[0] in files and
                  (mid not in by_id or
                   ('at' in t and t['at'] != line_key(by_id[mid]))))


def read_file_lines(*candidates):
    for path in candidates:
        if os.path.exists(path):
            with open(path) as f:
                return f.readlines()
    return None


def line_map(old, new):
    """{line of OLD: line of NEW}, 1-based, for the lines that a diff of
    the two texts leaves alone."""
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return {i1 + k + 1: j1 + k + 1
            for tag, i1, i2, j1, _ in sm.get_opcodes() if tag == 'equal'
            for k in range(i2 - i1)}


def file_diff(file, src, old_src, cache):
    """(old text, new text, line_map) of FILE in OLD_SRC (or SRC, where
    OLD_SRC does not hold it) and SRC, made once per file in CACHE."""
    if file not in cache:
        old = read_file_lines(os.path.join(old_src, file),
                              os.path.join(src, file))
        new = read_file_lines(os.path.join(src, file))
        cache[file] = (old, new, line_map(old, new))
    return cache[file]


def rekey_one(mid, t, mutants, src, old_src, scope, cache):
    """The id of the mutant triage entry MID means in MUTANTS (today's
    tree), or None with why not."""
    file, line, op = mid.rsplit(':', 2)
    line = int(line)
    same = [m for m in mutants if m['file'] == file and
            m['id'].rsplit(':', 1)[1] == op]
    if 'at' in t:
        cands = [m for m in same if line_key(m) == t['at']]
        if not cands:
            return None, 'its line is gone: ' + ': '.join(t['at'])
        return min(cands, key=lambda m: abs(m['line'] - line))['id'], None
    if not old_src:
        return None, 'no "at:" line and no --old-src'
    old, _, moved = file_diff(file, src, old_src, cache)
    old_m = [m for m in generate_lines(old, file, scope) if m['id'] == mid]
    if not old_m:
        return None, f'names no mutant of {old_src}'
    if line not in moved:
        return None, f'line {line} of {old_src} was changed'
    for m in same:
        if m['line'] == moved[line] and m['old'] == old_m[0]['old'] and \
                m['new'] == old_m[0]['new']:
            return m['id'], None
    return None, 'moved to a line without that mutant'


def rekey(triage, src, scope, old_src=None, ids=None):
    """({old id: new id}, [problem], {id: mutant}) for the entries of
    TRIAGE (only IDS, if given) in the tree SRC."""
    mutants = generate(src, scope)
    by_id = {m['id']: m for m in mutants}
    moves, bad, cache = {}, [], {}
    for mid, t in triage.items():
        if ids and mid not in ids:
            continue
        new, why = rekey_one(mid, t, mutants, src, old_src, scope, cache)
        if new is None:
            bad.append(f'{mid}: {why}')
        else:
            moves[mid] = new
    taken = {}
    for old, new in moves.items():
        taken.setdefault(new, []).append(old)
    for new, olds in taken.items():
        if len(olds) > 1 or (new in triage and new not in moves):
            bad.append(f'{new}: claimed by {", ".join(sorted(olds))}')
            for old in olds:
                moves.pop(old)
    return moves, bad, by_id


def function_bodies(lines):
    """{function: its code lines} of a file's text."""
    out = {}
    for _, text, func in code_lines(lines):
        out.setdefault(func, []).append(text.strip())
    return out


def rekey_results(results, src, old_src, scope):
    """RESULTS (of the tree OLD_SRC) moved to their ids in SRC, where the
    line moved but the function it is in did not change; a mutant of a
    changed function may behave otherwise and is left to be tried
    again.  Returns (moved results, number moved, number dropped)."""
    out, moved, dropped = {}, 0, 0
    mutants = generate(src, scope)
    by_id = {m['id']: m for m in mutants}
    cache, bodies = {}, {}
    for mid, r in results.items():
        m = by_id.get(mid)
        if m and (m['old'], m['new']) == (r.get('old'), r.get('new')):
            out[mid] = r
            continue
        file = r['file']
        old, new, moved_to = file_diff(file, src, old_src, cache)
        if file not in bodies:
            bodies[file] = (function_bodies(old), function_bodies(new))
        fold, fnew = bodies[file]
        new_id = None
        if fold.get(r['func']) == fnew.get(r['func']) and \
                r['line'] in moved_to:
            op = mid.rsplit(':', 1)[1]
            new_id = f'{file}:{moved_to[r["line"]]}:{op}'
        m = by_id.get(new_id)
        if m and (m['old'], m['new']) == (r.get('old'), r.get('new')):
            out[new_id] = dict(r, line=m['line'])
            moved += 1
        else:
            dropped += 1
    return out, moved, dropped


def cmd_rekey(args):
    if args.out:
        if not args.old_src:
            die('rekey --out wants --old-src, the tree of its results')
        results, moved, dropped = rekey_results(
            load_results(args.out), args.src, args.old_src, read_scope())
        print(f'mutate: rekey: {moved} results moved, {dropped} left to '
              'be tried again (their line or function changed)')
        if args.write:
            save_results(args.out, results)
        return 0
    moves, bad, by_id = rekey(read_triage(), args.src, read_scope(),
                              args.old_src, args.ids)
    for old, new in sorted(moves.items()):
        if old != new:
            print(f'{old} -> {new}')
    for b in bad:
        print(f'mutate.py: rekey: {b}', file=sys.stderr)
    if args.write:
        rewrite_triage(moves, by_id)
    return 1 if bad else 0


def rewrite_triage(moves, by_id, path=TRIAGE):
    """Each entry of MOVES renamed, with its "at:" line written anew."""
    with open(path) as f:
        lines = f.readlines()
    out, cur = [], None

    def end_entry():
        if cur in moves:
            m = by_id[moves[cur]]
            out.append(f'  at: {m["func"]}: {m["old"].strip()}\n')

    for raw in lines:
        if raw.startswith('#') or not raw.strip() or not raw[0].isspace():
            end_entry()
            cur = None
        if raw.startswith('#') or not raw.strip():
            pass
        elif not raw[0].isspace():
            cur = raw.split(None, 1)[0]
            if cur in moves:
                raw = moves[cur] + raw[len(cur):]
        elif cur in moves and raw.strip().startswith('at: '):
            continue
        out.append(raw)
    end_entry()
    with open(path + '.tmp', 'w') as f:
        f.writelines(out)
    os.replace(path + '.tmp', path)


def tally(results, triage):
    rows = {}
    for mid, r in results.items():
        outcome = r['outcome']
        verdict = triage.get(mid, {}).get('verdict')
        if outcome in ('survived', 'not-in-model') and verdict in (
                'equivalent', 'killed-by'):
            outcome = 'equivalent' if verdict == 'equivalent' else 'killed'
        for key in ((r['file'], '*'), (r['file'], r['op']), ('*', '*')):
            row = rows.setdefault(key, dict.fromkeys(OUTCOMES, 0))
            row[outcome] += 1
    return rows


def score(row):
    den = row['killed'] + row['survived'] + row['not-in-model'] + \
        row['infra']
    return (row['killed'] / den) if den else None


def svg_bars(rows, path):
    files = sorted(k[0] for k in rows if k[1] == '*' and k[0] != '*')
    w, bar, gap = 640, 18, 8
    h = 30 + len(files) * (bar + gap) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" '
           f'height="{h}" font-family="sans-serif" font-size="12">',
           '<text x="10" y="18">mutation score per file '
           '(killed / non-equivalent tried)</text>']
    for i, f in enumerate(files):
        s = score(rows[(f, '*')]) or 0
        y = 30 + i * (bar + gap)
        out.append(f'<text x="10" y="{y + 13}">{f}</text>')
        out.append(f'<rect x="260" y="{y}" width="300" height="{bar}" '
                   'fill="#ddd"/>')
        out.append(f'<rect x="260" y="{y}" width="{300 * s:.0f}" '
                   f'height="{bar}" fill="#4a7"/>')
        out.append(f'<text x="566" y="{y + 13}">{100 * s:.0f}%</text>')
    out.append('</svg>')
    with open(path, 'w') as fh:
        fh.write('\n'.join(out) + '\n')


def cmd_report(args):
    results = load_results(args.out)
    if not results:
        die(f'{args.out}/results.json: no results (make mutate first)')
    # Only the mutants of today's scope and tree.
    scope = generate(args.src, read_scope())
    results = current(results, scope)
    per_file = {}
    for m in scope:
        n = per_file.setdefault(m['file'], [0, 0])
        n[0] += 1
        n[1] += m['id'] in results
    triage = read_triage()
    stale = stale_triage(triage, scope)
    for mid in stale:
        print(f'mutate.py: report: triage entry {mid} names another line '
              'today (mutate.py rekey), not counted', file=sys.stderr)
        del triage[mid]
    rows = tally(results, triage)
    lines = ['| file | mutants | tried |', '|---|---|---|']
    lines += [f'| {f} | {n[0]} | {n[1]} |' for f, n in per_file.items()]
    lines += ['']
    lines += ['| file | operator | tried | killed | survived | equivalent '
             '| not in model | stillborn | infra | score |',
             '|---|---|---|---|---|---|---|---|---|---|']
    for key in sorted(rows, key=lambda k: (k[0] == '*', k[0], k[1] != '*',
                                           k[1])):
        r = rows[key]
        s = score(r)
        lines.append(f'| {key[0] if key[0] != "*" else "all"} | '
                     f'{"all" if key[1] == "*" else key[1]} | '
                     f'{sum(r.values())} | {r["killed"]} | {r["survived"]} | '
                     f'{r["equivalent"]} | {r["not-in-model"]} | '
                     f'{r["stillborn"]} | {r["infra"]} | '
                     f'{"-" if s is None else f"{100 * s:.0f}%"} |')
    surv = sorted((mid for mid, r in results.items()
                   if r['outcome'] in ('survived', 'not-in-model')),
                  key=lambda m: (results[m]['file'], results[m]['line'], m))
    lines += ['', '| survivor | function | mutant | triage |',
              '|---|---|---|---|']
    for mid in surv:
        r = results[mid]
        t = triage.get(mid)
        tri = f'{t["verdict"]}: {t["why"]}' if t else \
            ('not triaged' if r['outcome'] == 'survived' else
             'not in the model; needs the boot phase')
        new = r['new'].strip().replace('|', '\\|')
        lines.append(f'| {mid} | {r["func"]} | `{new}` | {tri} |')
    text = '\n'.join(lines) + '\n'
    if args.markdown:
        with open(args.markdown, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.svg:
        svg_bars(rows, args.svg)
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump({'rows': {f'{a}:{b}': r for (a, b), r in rows.items()},
                       'results': results}, f, indent=1, sort_keys=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('list', 'run', 'report', 'rekey'):
        p = sub.add_parser(name)
        p.add_argument('--src', required=True, help='the patched tree')
        p.add_argument('--files', nargs='+', help='only these files')
        p.add_argument('--ids', nargs='+', help='only these mutant ids')
        p.add_argument('--phase', choices=('model', 'boot'))
        p.add_argument('--out', help='results directory')
    sub.choices['list'].add_argument('--json', action='store_true')
    r = sub.choices['run']
    r.add_argument('--sample', type=int, default=0,
                   help='try at most N mutants not yet tried')
    r.add_argument('--seed', type=int, default=1, help='order of a sample')
    r.add_argument('--retry', nargs='+', default=[], choices=OUTCOMES,
                   help='also try again the mutants of these outcomes '
                   '(in the phase that gave them)')
    r.add_argument('--model-runs', type=int, default=20000)
    r.add_argument('--model-wide', type=str.split,
                   default=list(MODEL_WIDE), metavar='"OPTION:SEEDS ..."',
                   help='fixed seed windows run after the random programs '
                   '(one argument: --model-wide="-P:20000 -C:20000")')
    r.add_argument('--model-budget', type=int, default=20,
                   help='seconds at most of each random run')
    r.add_argument('--program-budget', type=int, default=5,
                   help='seconds at most of each program\'s schedules')
    r.add_argument('--jobs', type=int, default=1,
                   help='model mutants tried at once')
    r.add_argument('--obj', help='boot phase: the kernel build directory')
    r.add_argument('--initrd-dir',
                   help='boot phase: where initramfs-mutate-RUNLIST.cpio.gz are')
    r.add_argument('--qemu-opt', nargs=argparse.REMAINDER, default=[],
                   help='boot phase: run-qemu.sh options (last)')
    q = sub.choices['report']
    q.add_argument('--markdown')
    q.add_argument('--svg')
    q.add_argument('--json-out')
    k = sub.choices['rekey']
    k.add_argument('--old-src', help='the tree the ids without "at:" are of')
    k.add_argument('--write', action='store_true',
                   help='rewrite tests/mutate/triage')
    args = ap.parse_args(argv)
    if not os.path.isdir(args.src):
        die(f'{args.src}: no such tree')
    if args.cmd in ('run', 'report') and not args.out:
        die(f'{args.cmd} wants --out DIR')
    return {'list': cmd_list, 'run': cmd_run, 'report': cmd_report,
            'rekey': cmd_rekey}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
