#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Randomized rt-mutex tester scenarios with a model and invariant checks.

usage: rt-random.py [--seed S] [--scenarios N] [--steps M] [--out DIR]
                    [--dl-pct P] [--trace] [--break-model]

Each scenario resets the tester, gives the 8 threads a random policy -
SCHED_FIFO 1-99, SCHED_OTHER (nice 0) or, for P percent of the picks
(--dl-pct, default DL_SHARE_PCT), SCHED_DEADLINE with a period of
DL_PERIODS (runtime 1/20) - and a lock timeout of TIMEOUT_MS, then runs
M random steps: lock and lockint (no parking), trylock, lockintdl (full
deadlock detection in the kernel), locktimeout (waited for until it
returns), unlock of a held mutex, signal to an interruptible waiter,
and a new policy for a thread: through the tester's
schedfifo/schedother/scheddl command for a thread that is not waiting
(holders included), through sched_setattr() on its kernel thread for a
waiting one (the kernel then re-walks the chain from it,
rt_mutex_adjust_pi()).  The tester shows SCHED_DEADLINE as priority
100, above every SCHED_FIFO one.  The model knows who holds and who
waits on what.  After every step the kernel state must settle, and
then:

  - each thread's held and blocked mutexes match the model, and its
    return code is the predicted one (0, -EBUSY, -EINTR, -EDEADLK,
    -ETIMEDOUT);
  - a mutex released with waiters went to a waiter of the highest
    effective priority (among SCHED_DEADLINE waiters the earliest
    absolute deadline wins, which the status does not show: any of them
    passes);
  - no thread is blocked on a free mutex, no mutex has two holders;
  - every thread's effective priority equals the maximum of its normal
    priority and the effective priorities of the threads blocked on the
    mutexes it holds (transitively, since those are checked too); in
    particular a released thread is back at exactly its normal priority;
  - with --dl-pct, once every thread is back to SCHED_OTHER (and a while
    longer than any period), the deadline bandwidth allocated in the root
    domain is what it was before the scenario (dl_allocated()).

A failing scenario is shrunk (steps removed one at a time while it still
fails) and printed as a .tst reproducer (and written to DIR).  Output is
KTAP: one line per 25 scenarios, then the counts.  A waiter's new
priority has no tester opcode: the .tst names it in a comment, so such a
reproducer is for reading, not for replaying.  --break-model makes
the model ignore transitive boosts, to show that the checker catches and
shrinks a violation.  --trace prints each scenario's policies and each
step before it runs: when a step crashes the kernel (a WARN with
panic_on_warn), the console shows the scenario up to that step.
"""
import argparse
import importlib.util
import os
import random
import sys
import time

RUNNER = '/usr/share/pi-futex/rt-tester/rt-tester.py'
SETATTR = '/usr/share/pi-futex/bin/sched-setattr'
RT_RUNTIME = '/proc/sys/kernel/sched_rt_runtime_us'
# Longer than any DL_PERIODS: a task that left SCHED_DEADLINE has given its
# bandwidth back by then (its 0-lag time is before its deadline).
DL_SETTLE_S = 0.25
NT = 8
NM = 8
EBUSY, EINTR, EDEADLK, ETIMEDOUT = 16, 4, 35, 110
# locktimeout's timeout: long enough to be seen blocking under TCG is not
# needed (the step waits for the result), short keeps scenarios fast.
TIMEOUT_MS = 20
# A thread's policy in a scenario: 0 SCHED_OTHER nice 0, 1..99 SCHED_FIFO,
# a period in us (>= 1000) SCHED_DEADLINE.
DL_PERIODS = (1000, 10000, 100000)
DL_SHARE_PCT = 15
DL_PRIO = 100
LOCK_OPS = {'lock': 'locknowait', 'lockint': 'lockintnowait',
            'trylock': 'trylock', 'lockdl': 'lockintdl',
            'locktimeout': 'locktimeout'}


def load_runner(path):
    spec = importlib.util.spec_from_file_location('rt_tester', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def pick_policy(rng, dl_pct=DL_SHARE_PCT):
    if dl_pct and rng.randrange(100) < dl_pct:
        return rng.choice(DL_PERIODS)
    return rng.choice([0, 0] + list(range(1, 100)))


def uprio(policy):
    """The P/N the tester shows for @policy."""
    if policy >= 1000:
        return DL_PRIO
    return policy if policy > 0 else -21


def policy_name(policy):
    if policy >= 1000:
        return f'SCHED_DEADLINE {policy} us'
    return f'SCHED_FIFO {policy}' if policy > 0 else 'SCHED_OTHER'


def known_bug(op, status, norm, policy, left_dl_boosted=False):
    """The docs/bugs.md number of a known kernel bug that this
    policy change would hit, or 0.  Of a task boosted to SCHED_DEADLINE by
    a PI waiter, without that policy itself: 4, a move to another
    non-deadline policy fails with EBUSY (__sched_setscheduler() runs
    sched_dl_overflow() because dl_task() is true); 5, made SCHED_DEADLINE
    while it sleeps (a waiter), its bandwidth never reaches the
    runqueue's this_bw and 7.3 WARNs when it wakes.  6: a SCHED_DEADLINE
    task given another policy while it sleeps (a waiter) keeps its
    bandwidth allocated for ever (7.3); so does one that left
    SCHED_DEADLINE while a deadline waiter boosted it
    (@left_dl_boosted) and comes back to it in the same boost.  Such
    steps are not generated, so that scenarios look for other bugs."""
    if op == 'wprio' and norm == DL_PRIO and policy < 1000:
        return 6
    if left_dl_boosted and policy >= 1000:
        return 6
    if status['P'] != DL_PRIO or norm == DL_PRIO:
        return 0
    if policy < 1000:
        return 4
    return 5 if op == 'wprio' else 0


def rt_runtime(value=None):
    """Read sched_rt_runtime_us, or write @value: 0, or the errno."""
    if value is None:
        with open(RT_RUNTIME) as f:
            return int(f.read())
    fd = os.open(RT_RUNTIME, os.O_WRONLY)
    try:
        os.write(fd, f'{value}\n'.encode())
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)
    return 0


def dl_allocated():
    """The deadline bandwidth allocated in the root domain, per CPU, in us
    per second, to 1000 us: the smallest sched_rt_runtime_us the kernel
    accepts, since sched_dl_global_validate() refuses (EBUSY) a limit
    below what is allocated.  The limit is lowered only for the search,
    while every tester thread is idle and SCHED_OTHER."""
    orig = rt_runtime()
    lo, hi = 0, orig
    try:
        while hi - lo > 1000:
            mid = (lo + hi) // 2
            err = rt_runtime(mid)
            if err == 0:
                hi = mid
            elif err == EBUSY:
                lo = mid
            else:
                raise Violation(f'{RT_RUNTIME} refused {mid}: '
                                f'{os.strerror(err)}')
    finally:
        rt_runtime(orig)
    return hi


class Violation(Exception):
    """A broken rule.  @kind tells the shrinker which failures count as
    the same one: 'state' (status, priorities, return codes) or
    'bandwidth' (the deadline bandwidth check)."""
    def __init__(self, msg, tst=None, kind='state'):
        super().__init__(msg)
        self.tst = tst
        self.kind = kind


class Sim:
    def __init__(self, rt, tester, break_model=False, dl_pct=DL_SHARE_PCT,
                 trace=False):
        self.rt = rt
        self.dl_pct = dl_pct
        self.trace = trace
        self.t = tester
        self.break_model = break_model
        self.C = rt.COMMANDS

    def pid(self, thread):
        """The PID of tester thread @thread (kernel thread rttest<N>)."""
        if not hasattr(self, 'pids'):
            self.pids = {}
            for d in os.listdir('/proc'):
                try:
                    with open(f'/proc/{d}/comm') as f:
                        name = f.read().strip()
                except (OSError, ValueError):
                    continue
                if name.startswith('rttest') and name[6:].isdigit():
                    self.pids[int(name[6:])] = int(d)
        return self.pids[thread]

    def setprio(self, thread, p):
        if p >= 1000:
            # Not in os: a helper calls sched_setattr().
            args = [SETATTR, str(self.pid(thread)), 'deadline', str(p)]
            child = os.posix_spawn(SETATTR, args, {})
            _, status = os.waitpid(child, 0)
            if os.waitstatus_to_exitcode(status):
                raise Violation(f'{" ".join(args)} failed')
        elif p > 0:
            os.sched_setscheduler(self.pid(thread), os.SCHED_FIFO,
                                  os.sched_param(p))
        else:
            os.sched_setscheduler(self.pid(thread), os.SCHED_OTHER,
                                  os.sched_param(0))

    def cmd(self, thread, name, data):
        # The command files stay open: sysfs takes each write() whole.
        if not hasattr(self, 'cmd_fds'):
            self.cmd_fds = [os.open(self.t.path(i, 'command'), os.O_WRONLY)
                            for i in range(NT)]
        try:
            os.write(self.cmd_fds[thread],
                     f'{self.C[name]}:{data}\n'.encode())
        except OSError as e:
            raise Violation(f'command {name}:{data} to thread {thread} '
                            f'rejected: {e.strerror}') from None

    def status(self, thread):
        """The status fields of @thread: a pread() at 0 of a status file
        kept open makes sysfs show it afresh."""
        if not hasattr(self, 'status_fds'):
            self.status_fds = [os.open(self.t.path(i, 'status'), os.O_RDONLY)
                               for i in range(NT)]
        line = os.pread(self.status_fds[thread], 512, 0).decode().strip()
        return dict(kv.split(': ', 1) for kv in line.split(', '))

    def snapshot(self):
        snap = []
        for i in range(NT):
            f = self.status(i)
            m = f['M']
            snap.append({'O': int(f['O']), 'E': int(f['E']),
                         'P': int(f['P']), 'N': int(f['N']),
                         'B': int(f['B']),
                         'held': {j for j in range(NM) if m[NM - 1 - j] == '4'},
                         'blocked': {j for j in range(NM)
                                     if m[NM - 1 - j] == '2'},
                         'other': {j for j in range(NM)
                                   if m[NM - 1 - j] in '13'}})
        return snap

    def settle(self, until=None, timeout=10.0):
        """Wait until every thread is idle or blocked, nothing moves and
        @until(snapshot) holds.  @until names what must have happened
        that a quiet snapshot cannot show: a woken waiter that has not
        run yet still looks blocked."""
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            s = self.snapshot()
            quiet = (until is None or until(s)) and all((x['O'] <= 0 and not x['blocked'] and not x['other'])
                        or (x['O'] > 0 and x['B'] == 1 and
                            len(x['blocked']) == 1 and not x['other'])
                        for x in s)
            key = [(x['O'], x['E'], x['P']) for x in s]
            if quiet and key == last:
                return s
            last = key if quiet else None
            time.sleep(0.005)
        raise Violation('the tester did not settle within '
                        f'{timeout:g}s'
                        f'{" (and the expected change never came)" if until else ""}')

    @staticmethod
    def choices(holds, waits):
        ops = []
        for t in range(NT):
            if waits[t] is not None:
                if waits[t][1]:
                    ops += [('signal', t, 0)] * 3
                ops += [('wprio', t, None)] * 2
                continue
            for m in range(NM):
                if m not in holds[t]:
                    ops += [(op, t, m) for op in LOCK_OPS]
            ops += [('unlock', t, m) for m in sorted(holds[t])] * 10
            ops += [('prio', t, None)] * 4
        return ops

    def run(self, prios, steps, rng=None, nsteps=0):
        """Run a scenario: generate @nsteps steps with @rng from the
        state the kernel shows, or replay @steps, skipping those that are
        not legal any more.  Returns the steps run; raises Violation at
        the first broken rule (with the steps so far in .steps).
        """
        self.rt.reset_all(self.t, 10)
        if self.dl_pct:
            time.sleep(DL_SETTLE_S)
            bw0 = dl_allocated()
        for i in range(NT):
            self.cmd(i, 'settimeout', TIMEOUT_MS)
        self.settle()
        for i, p in enumerate(prios):
            if p >= 1000:
                self.cmd(i, 'scheddl', p)
            elif p > 0:
                self.cmd(i, 'schedfifo', p)
        s = self.settle()
        norm = [uprio(p) for p in prios]
        holds = [set() for _ in range(NT)]
        waits = [None] * NT          # (mutex, interruptible)
        # Threads that left SCHED_DEADLINE while a deadline waiter boosted
        # them, for as long as one still does (known_bug()).
        left_dl = set()
        done = []
        self.waitlines = []
        todo = iter(steps) if rng is None else None
        for n in range(nsteps if rng else len(steps)):
            legal = self.choices(holds, waits)
            donor = [any(waits[w] and waits[w][0] in holds[t] and
                         s[w]['P'] == DL_PRIO for w in range(NT))
                     for t in range(NT)]
            left_dl &= {t for t in range(NT) if donor[t]}
            if rng:
                op, th, m = rng.choice(legal)
                if op in ('prio', 'wprio'):
                    m = pick_policy(rng, self.dl_pct)
                    if known_bug(op, s[th], norm[th], m) and op == 'prio':
                        m = rng.choice(DL_PERIODS)
                    if known_bug(op, s[th], norm[th], m, th in left_dl):
                        continue
            else:
                op, th, m = next(todo)
                if (op, th, None if op in ('prio', 'wprio') else m) \
                        not in legal:
                    continue
                if op in ('prio', 'wprio') and \
                        known_bug(op, s[th], norm[th], m, th in left_dl):
                    continue
            done.append((op, th, m))
            if op in ('prio', 'wprio') and donor[th] and \
                    norm[th] == DL_PRIO and m < 1000:
                left_dl.add(th)
            if self.trace:
                # On the console before the step: a step that crashes the
                # kernel is the last one shown.
                print(f'# step {n}: {op} {th} {m}', flush=True)
            self.steps = done
            wl = []
            self.waitlines.append(wl)
            before = s
            expect_ret = 0
            if op in LOCK_OPS:
                if waits[th] is not None or m in holds[th]:
                    raise Violation(f'step {n}: generator bug')
                owner = next((o for o in range(NT) if m in holds[o]), None)
                if op != 'trylock' and self.closes_cycle(th, m, holds, waits):
                    expect_ret = -EDEADLK
                self.cmd(th, LOCK_OPS[op], m)
                if op == 'locktimeout' and owner is not None:
                    # Waited for: the timeout is the way it leaves.
                    s = self.settle(lambda x: x[th]['O'] <= 0)
                else:
                    s = self.settle()
                if op == 'trylock':
                    if owner is None:
                        holds[th].add(m)
                    else:
                        expect_ret = -EBUSY
                elif expect_ret == 0:
                    if owner is None:
                        holds[th].add(m)
                    elif op == 'locktimeout':
                        expect_ret = -ETIMEDOUT
                    else:
                        waits[th] = (m, op in ('lockint', 'lockdl'))
                if m in holds[th]:
                    wl += [f'W: locked:        {th}: {m}',
                           f'W: opcodeeq:      {th}: 0']
                elif expect_ret:
                    wl.append(f'W: opcodeeq:      {th}: {expect_ret}')
                else:
                    wl.append(f'W: blocked:       {th}: {m}')
            elif op == 'unlock':
                ws = [w for w in range(NT) if waits[w] and waits[w][0] == m]
                self.cmd(th, 'unlock', m)
                # With waiters, the lock must reach one of them.
                s = self.settle(lambda x: not ws or
                                any(m in x[w]['held'] for w in ws))
                holds[th].discard(m)
                if ws:
                    new = [w for w in ws if m in s[w]['held']]
                    if len(new) != 1:
                        raise Violation(f'step {n}: unlock of mutex {m} with '
                                        f'waiters {ws}: new holders {new}')
                    top = max(before[w]['P'] for w in ws)
                    if before[new[0]]['P'] != top:
                        raise Violation(
                            f'step {n}: mutex {m} went to thread {new[0]} '
                            f'(P {before[new[0]]["P"]}), not to a top waiter '
                            f'(P {top})')
                    holds[new[0]].add(m)
                    waits[new[0]] = None
                    wl.append(f'W: locked:        {new[0]}: {m}')
                wl.append(f'W: unlocked:      {th}: {m}')
            elif op == 'prio':
                if m >= 1000:
                    self.cmd(th, 'scheddl', m)
                elif m > 0:
                    self.cmd(th, 'schedfifo', m)
                else:
                    self.cmd(th, 'schedother', 0)
                s = self.settle(lambda x: x[th]['O'] <= 0)
                norm[th] = uprio(m)
                wl.append(f'W: opcodeeq:      {th}: 0')
            elif op == 'wprio':
                self.setprio(th, m)
                norm[th] = uprio(m)
                s = self.settle(lambda x: x[th]['N'] == norm[th])
            elif op == 'signal':
                self.cmd(th, 'signal', 0)
                # The waiter must have left the lock with its result.
                s = self.settle(lambda x: x[th]['O'] <= 0)
                if waits[th] and waits[th][1]:
                    waits[th] = None
                    expect_ret = -EINTR
                    wl.append(f'W: opcodeeq:      {th}: -4')
            self.check(n, op, th, m, s, norm, holds, waits, expect_ret)
        if self.dl_pct:
            # Every thread back to SCHED_OTHER: its deadline bandwidth
            # must be free again.
            self.rt.reset_all(self.t, 10)
            time.sleep(DL_SETTLE_S)
            bw1 = dl_allocated()
            if bw1 > bw0:
                raise Violation(f'deadline bandwidth allocated: {bw0} us/s '
                                f'per CPU before the scenario, {bw1} after '
                                'every thread went back to SCHED_OTHER',
                                kind='bandwidth')
        return done

    def closes_cycle(self, th, m, holds, waits):
        seen = 0
        while seen <= NT:
            owner = next((o for o in range(NT) if m in holds[o]), None)
            if owner is None:
                return False
            if owner == th:
                return True
            if waits[owner] is None:
                return False
            m = waits[owner][0]
            seen += 1
        return False

    def check(self, n, op, th, m, s, norm, holds, waits, expect_ret):
        where = f'step {n} ({op} thread {th} mutex {m})'
        if s[th]['O'] != expect_ret and s[th]['O'] <= 0:
            raise Violation(f'{where}: thread {th} returned {s[th]["O"]}, '
                            f'model says {expect_ret}')
        for i in range(NT):
            if s[i]['held'] != holds[i]:
                raise Violation(f'{where}: thread {i} holds '
                                f'{sorted(s[i]["held"])}, model '
                                f'{sorted(holds[i])}')
            want_b = {waits[i][0]} if waits[i] else set()
            if s[i]['blocked'] != want_b:
                raise Violation(f'{where}: thread {i} blocked on '
                                f'{sorted(s[i]["blocked"])}, model '
                                f'{sorted(want_b)}')
            if s[i]['N'] != norm[i]:
                raise Violation(f'{where}: thread {i} N {s[i]["N"]}, model '
                                f'{norm[i]}')
        for j in range(NM):
            hs = [i for i in range(NT) if j in s[i]['held']]
            if len(hs) > 1:
                raise Violation(f'{where}: mutex {j} held by {hs}')
            if not hs and any(j in s[i]['blocked'] for i in range(NT)):
                raise Violation(f'{where}: a thread is blocked on free '
                                f'mutex {j}')
        for i in range(NT):
            waiters = [w for w in range(NT) for j in s[i]['held']
                       if j in s[w]['blocked']]
            if self.break_model:
                # Deliberately wrong: only direct waiters' normal prios.
                want = max([norm[i]] + [norm[w] for w in waiters])
            else:
                want = max([norm[i]] + [s[w]['P'] for w in waiters])
            if s[i]['P'] != want:
                raise Violation(f'{where}: thread {i} P {s[i]["P"]}, model '
                                f'{want} (N {norm[i]}, waiters {waiters})',
                                f'T: prioeq:        {i}: {want}')


def to_tst(prios, steps, waitlines, final, why):
    lines = [f'# Reproducer from rt-random.py: {why}',
             '# Replayed with rt-tester.py -r; the model expects every step',
             '# below to leave the status the kernel showed then.']
    for i, p in enumerate(prios):
        if p >= 1000:
            lines.append(f'C: scheddl:       {i}: {p}')
        elif p > 0:
            lines.append(f'C: schedfifo:     {i}: {p}')
    for i in range(len(prios)):
        lines.append(f'C: settimeout:    {i}: {TIMEOUT_MS}')
    for i in range(len(prios)):
        lines.append(f'W: opcodeeq:      {i}: 0')
    names = dict(LOCK_OPS, unlock='unlock', signal='signal')
    for (op, t, m), wl in zip(steps, waitlines):
        if op == 'wprio':
            lines.append(f'# sched_setattr(rttest{t}, {policy_name(m)})'
                         ' (no tester opcode)')
            lines += wl
            continue
        if op == 'prio':
            if m >= 1000:
                name = 'scheddl'
            else:
                name, m = ('schedfifo', m) if m > 0 else ('schedother', 0)
        else:
            name = names[op]
        lines.append(f'C: {name + ":":<15}{t}: {m}')
        lines += wl
    if final:
        lines.append('# The check that failed:')
        lines.append(final)
    return '\n'.join(lines) + '\n'


def shrink(sim, prios, steps, budget, kind):
    """Greedy removal of one step at a time, last first, while the replay
    still fails the same @kind of rule (a leaked bandwidth stays leaked:
    later replays may fail admission instead, which must not count);
    replays skip steps that became illegal.  The priorities stay as
    generated."""
    best = list(steps)
    tries = 0
    i = len(best) - 1
    while i >= 0 and tries < budget:
        cand = best[:i] + best[i + 1:]
        tries += 1
        try:
            sim.run(prios, cand)
        except Violation as v:
            if v.kind == kind:
                best = sim.steps
                i = min(i, len(best))
        i -= 1
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--scenarios', type=int, default=200)
    ap.add_argument('--steps', type=int, default=50)
    ap.add_argument('--out', default='/tmp')
    ap.add_argument('--runner', default=RUNNER)
    ap.add_argument('--break-model', action='store_true')
    ap.add_argument('--dl-pct', type=int, default=DL_SHARE_PCT,
                    help='percent of policy picks that are SCHED_DEADLINE')
    ap.add_argument('--trace', action='store_true',
                    help='print every scenario and step before running it')
    ap.add_argument('--shrink-budget', type=int, default=120)
    a = ap.parse_args()
    # Progress must reach the serial log as it happens, not at the end.
    sys.stdout.reconfigure(line_buffering=True)
    rt = load_runner(a.runner)
    if not 0 <= a.dl_pct <= 100:
        ap.error('--dl-pct must be 0..100')
    sim = Sim(rt, rt.Tester(rt.SYSFS), a.break_model, a.dl_pct, a.trace)
    print('KTAP version 1')
    groups = (a.scenarios + 24) // 25
    print(f'1..{groups}')
    t0 = time.monotonic()
    fails = nsteps = ran = 0
    for g in range(groups):
        bad = None
        for k in range(g * 25, min(a.scenarios, (g + 1) * 25)):
            seed = a.seed + k
            ran += 1
            rng = random.Random(seed)
            prios = [pick_policy(rng, a.dl_pct) for _ in range(NT)]
            if a.trace:
                print(f'# scenario seed {seed}: policies {prios}', flush=True)
            try:
                nsteps += len(sim.run(prios, [], rng, a.steps))
            except Violation as v:
                fails += 1
                steps = list(sim.steps)
                print(f'# seed {seed}: {v}')
                small = shrink(sim, prios, steps, a.shrink_budget, v.kind)
                final = None
                try:
                    sim.run(prios, small)
                    why = f'seed {seed} (shrunk run passed: flaky?)'
                except Violation as v2:
                    why = f'seed {seed}: {v2}'
                    final = v2.tst
                    small = list(sim.steps)
                tst = to_tst(prios, small, sim.waitlines, final, why)
                path = os.path.join(a.out, f'rt-random-{seed}.tst')
                with open(path, 'w') as f:
                    f.write(tst)
                print(f'# shrunk from {len(steps)} to {len(small)} steps; '
                      f'reproducer {path}:')
                for ln in tst.splitlines():
                    print(f'#   {ln}')
                bad = seed
                break
        name = f'scenarios_{g * 25}_to_{min(a.scenarios, (g + 1) * 25) - 1}'
        print(f'{"not ok" if bad is not None else "ok"} {g + 1} {name}')
        if bad is not None:
            break
    secs = time.monotonic() - t0
    rt.reset_all(sim.t, 10)
    print(f'# counts: {ran} scenarios x {a.steps} steps, {nsteps} steps '
          f'checked in {secs:.0f} s, {ran / secs:.2f} scenarios/s, {fails} violation(s)')
    print(f'# Totals: pass:{g + 1 - (1 if fails else 0)} fail:'
          f'{1 if fails else 0} skip:0')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
