#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KTAP suite: the rt-mutex tester's sysfs interface, at the byte level.

The .tst scenarios go through rt-tester.py, which only writes well-formed
commands; this suite writes raw bytes and checks the contract of
SPEC-rt-tester.md: file modes, the status line format, -EINVAL for
malformed commands, -EBUSY for a busy thread, nice applied to the test
thread and not to the writer, concurrent writers, an unlocker's digit
cleared before its waiter can be seen holding the lock, and a clean state
after.
"""
import errno
import os
import re
import stat
import sys
import time

SYSFS = '/sys/devices/system/rttest'
STATUS_RE = re.compile(
    r'^O: -?\d+, E: \d+, S: 0x[0-9a-f]{8}, P: -?\d+, N: -?\d+, B: [01], '
    r'K: 0, M: [0-4]{8}, T: [0-9a-f]{16}, R: (?:[0-9a-f]{16}|0)$')

results = []


def ok(cond, name, diag=''):
    results.append((bool(cond), name, diag))


def cmd_path(t):
    return f'{SYSFS}/rttest{t}/command'


def write_raw(t, data):
    """Return 0 when the write is accepted, else its errno."""
    fd = os.open(cmd_path(t), os.O_WRONLY)
    try:
        n = os.write(fd, data)
        return 0 if n == len(data) else -1
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


def status(t):
    with open(f'{SYSFS}/rttest{t}/status') as f:
        line = f.read()
    return line, dict(re.findall(r'([A-Z]): ([^,\n]*)', line))


def wait_idle(t, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        _, f = status(t)
        if int(f['O']) <= 0:
            return int(f['O'])
        time.sleep(0.01)
    return None


def tester_pid(t):
    """PID of the kernel thread behind rttest<t>, from /proc/*/comm."""
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/comm') as f:
                if f.read().strip() == f'rttest{t}':
                    return int(d)
        except OSError:
            pass
    return None


def unlock_digit_cleared_before_handoff():
    """An unlocker's M digit is 0 once its waiter is seen holding the lock.

    Thread 0 (SCHED_OTHER) holds mutex 0, thread 1 (FIFO 80) waits on it,
    and this process, the two test threads on one CPU, polls at FIFO 1
    without sleeping.  The unlock runs boosted, deboosts thread 0, and
    wakes thread 1, which preempts it, takes the lock and goes idle; then
    this process runs before thread 0 can go on.  So the status read here
    shows whatever thread 0 recorded before rt_mutex_unlock() returned.
    """
    pids = [tester_pid(0), tester_pid(1)]
    if None in pids:
        ok(False, 'unlock_digit_cleared_before_handoff',
           f'no rttest0/rttest1 thread in /proc: {pids}')
        return
    cpus = os.sched_getaffinity(0)
    cpu = min(cpus)
    for pid in pids + [0]:
        os.sched_setaffinity(pid, {cpu})
    write_raw(0, b'1:0')
    write_raw(1, b'2:80')
    wait_idle(0)
    wait_idle(1)
    write_raw(0, b'4:0')
    wait_idle(0)
    write_raw(1, b'4:0')
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if status(1)[1]['M'][7] == '2' and status(0)[1]['P'] == '80':
            break
        time.sleep(0.01)
    f0 = f1 = None
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    try:
        accepted = write_raw(0, b'8:0')
        end = time.monotonic() + 5
        while time.monotonic() < end:
            _, f1 = status(1)
            if f1['M'][7] == '4':
                _, f0 = status(0)
                break
    finally:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    ok(accepted == 0 and f0 is not None and f0['M'][7] == '0',
       'unlock_digit_cleared_before_handoff',
       f"unlock write {accepted}; thread 1 M={f1 and f1['M']}; "
       f"thread 0 then {f0 and ', '.join(f'{k}: {f0[k]}' for k in 'OPM')}")
    wait_idle(0)
    write_raw(1, b'8:0')
    wait_idle(1)
    for pid in pids + [0]:
        os.sched_setaffinity(pid, cpus)


def main():
    print('KTAP version 1')
    if not os.path.isdir(SYSFS):
        print('1..1')
        print(f'not ok 1 rttest_sysfs_present # {SYSFS} missing')
        return 1

    threads = sorted(d for d in os.listdir(SYSFS) if d.startswith('rttest'))
    ok(threads == [f'rttest{i}' for i in range(8)], 'eight_threads',
       f'found {threads}')

    modes_ok = True
    for i in range(8):
        cm = stat.S_IMODE(os.stat(cmd_path(i)).st_mode)
        sm = stat.S_IMODE(os.stat(f'{SYSFS}/rttest{i}/status').st_mode)
        if cm not in (0o200, 0o600) or sm not in (0o400, 0o600):
            modes_ok = False
            print(f'# rttest{i}: command {cm:o}, status {sm:o}')
    ok(modes_ok, 'root_only_modes')

    lines = [status(i)[0].rstrip('\n') for i in range(8)]
    bad = [ln for ln in lines if not STATUS_RE.match(ln)]
    for ln in bad:
        print(f'# bad status line: {ln}')
    ok(not bad, 'status_line_format')
    print(f'# rttest0: {lines[0]}')

    # (A zero-byte write never reaches the driver.)
    malformed = [b'\n', b'3', b'abc:1', b'3:abc', b'3:0:1', b' 3:0',
                 b'3:0 ', b'3:0\n\n', b':', b'3:', b':3', b'0x3:0',
                 b'3:99999999999', b'0:' + b'0' * 40, b'9:0', b'10:0',
                 b'12:8', b'13:-1', b'100:0', b'2:0', b'8:0']
    wrong = []
    for data in malformed:
        err = write_raw(4, data)
        if err != errno.EINVAL:
            wrong.append(f'{data!r} -> {errno.errorcode.get(err, err)}')
    for w in wrong:
        print(f'# not rejected with EINVAL: {w}')
    ok(not wrong, 'malformed_commands_rejected_einval')

    ok(write_raw(4, b'0:0') == 0 and wait_idle(4) == 0 and
       write_raw(4, b'0:0\n') == 0 and wait_idle(4) == 0,
       'wellformed_nop_accepted')

    # nice is applied by the test thread to itself.
    before = os.nice(0)
    accepted = write_raw(3, b'1:5\n') == 0 and wait_idle(3) == 0
    _, f = status(3)
    ok(accepted and int(f['N']) == -26 and int(f['P']) == -26 and
       os.nice(0) == before, 'nice_applied_to_thread_not_writer',
       f"N={f['N']} writer nice {before}->{os.nice(0)}")

    # A busy thread: thread 6 blocks on mutex 2 held by thread 5.
    write_raw(5, b'4:2')
    wait_idle(5)
    write_raw(6, b'4:2')
    time.sleep(0.2)
    _, f6 = status(6)
    busy = write_raw(6, b'0:0')
    ok(f6['M'][5] == '2' and busy == errno.EBUSY, 'busy_thread_ebusy',
       f"M={f6['M']} err={errno.errorcode.get(busy, busy)}")

    # Concurrent writers on one thread: every write is accepted or EBUSY.
    pids = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            others = 0
            for _ in range(300):
                err = write_raw(7, b'0:0\n')
                if err not in (0, errno.EBUSY):
                    others += 1
            os._exit(1 if others else 0)
        pids.append(pid)
    codes = [os.waitpid(p, 0)[1] for p in pids]
    ok(all(c == 0 for c in codes) and wait_idle(7) == 0,
       'concurrent_writers_accepted_or_ebusy', f'exit codes {codes}')

    unlock_digit_cleared_before_handoff()

    # Clean up: release thread 6, reset everyone, nothing stays locked.
    write_raw(5, b'8:2')
    wait_idle(6)
    write_raw(6, b'8:2')
    for i in range(8):
        wait_idle(i)
        write_raw(i, b'99:0')
    for i in range(8):
        wait_idle(i)
    clean = [status(i)[1] for i in range(8)]
    ok(all(c['M'] == '00000000' and int(c['O']) == 0 and
           int(c['N']) == -21 for c in clean), 'reset_leaves_clean_state',
       ' '.join(c['M'] for c in clean))

    print(f'1..{len(results)}')
    for n, (good, name, diag) in enumerate(results, 1):
        if not good and diag:
            print(f'# {name}: {diag}')
        print(f'{"ok" if good else "not ok"} {n} {name}')
    fails = sum(1 for r in results if not r[0])
    print(f'# Totals: pass:{len(results) - fails} fail:{fails} skip:0')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
