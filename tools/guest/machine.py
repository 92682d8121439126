#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one description of a pi-futex boot: machine, CPU model, vCPUs,
memory, accelerator, kernel command line and timeout.

tools/run-qemu.sh gets its QEMU command from here (`machine.py qemu`),
tools/lava/lava-job.py its job's context, command line and timeouts
(import), so that both boots of a cell are the same machine; a host test
renders every cell both ways and compares them.

  machine.py qemu --kernel F --initrd F [--smp N] [--mem SIZE]
                  [--accel kvm|tcg] [--append ARGS] [--tsc-khz KHZ]
                  [--shell]
      the QEMU command, one argument per line
  machine.py timeout [--flavour F] [--runlist main|stress] [--smp N]
      the boot's timeout in seconds, from the table of measured times
      (DEFAULT_TIMEOUT for a cell the table does not have)
  machine.py tsc-khz
      this machine's TSC rate in kHz (/proc/cpuinfo), empty if unknown
"""
import argparse
import math
import re
import sys

# The machine.  SeaBIOS' MP table (the config has no ACPI) lists one CPU
# per socket, hence one socket per vCPU; pifutex.smp on the command line
# lets the guest's sanity suite check that it saw them all.
MACHINE = 'pc'
DEFAULT_SMP = 2
DEFAULT_MEM = '512M'
# The CPU model by accelerator: the host's under KVM, what KVM users
# expect (LAVA's qemu device type passes -cpu host itself when KVM is
# allowed); under TCG the widest model QEMU emulates.
CPU = {'kvm': 'host', 'tcg': 'max'}

# Kernel command line.  panic=-1 and oops=panic end the boot at the first
# crash; panic_on_warn=1 (test mode) makes a WARN one.  The clocksource:
# without ACPI the kernel finds no HPET or ACPI PM timer, and the config
# has no paravirtual clock, which leaves the TSC.  Under TCG the kernel
# may find the vCPUs' TSCs unsynchronized or fail to calibrate the TSC
# against the PIT, and falls back to refined-jiffies (4 ms steps at
# HZ=250), too coarse for every timing bound of the suites.
# tsc=reliable keeps the TSC; under TCG the guest's TSC is the host's, so
# tsc_early_khz, the host's rate, spares the calibration.  The sanity
# suite checks the clocksource.
CMDLINE = 'console=ttyS0 panic=-1 oops=panic tsc=reliable'
TEST_MODE = 'panic_on_warn=1'
SHELL_MODE = 'pifutex.shell=1'

# Minutes one boot took on the 2-core TCG machine of docs/times.md, by
# (flavour, runlist) and then vCPUs: the whole suite of rootfs/runlist
# (make check's boots; the 6.12 boots took no longer than 7.3's), the
# KASAN boots of make check-full and the stress runlist of make stress.
# The base flavour has no KUnit and is not in the table: its boots get
# DEFAULT_TIMEOUT.
MEASURED = {
    ('debug', 'main'): {1: 2.7, 2: 2.8, 4: 3.2},
    ('rt', 'main'): {1: 3.5, 2: 3.3, 4: 4.0},
    ('base', 'main'): {2: 3.0},
    ('kasan', 'main'): {1: 14.0, 2: 16.0, 4: 18.0},
    ('debug', 'stress'): {1: 67.0, 2: 67.0, 4: 67.0},
}
# A boot may take twice what was measured (a slower or busier machine),
# plus a fixed margin; TIMEOUT_FACTOR scales it further in run-qemu.sh.
MARGIN_MINUTES = 5
# A boot of a cell the table does not know (another runlist, a flavour
# of no row): run-qemu.sh's limit when it is given no --timeout.
DEFAULT_TIMEOUT = 1800


def timeout_minutes(flavour, runlist='main', smp=DEFAULT_SMP):
    """The timeout of one boot: twice the measured time plus the margin;
    KeyError when nothing was measured for the flavour and runlist."""
    times = MEASURED.get((flavour, runlist))
    if times is None:
        raise KeyError(f'no measured boot time for flavour {flavour}, '
                       f'runlist {runlist}')
    measured = times.get(smp, max(times.values()))
    return math.ceil(2 * measured) + MARGIN_MINUTES


def mem_mb(mem):
    """QEMU's -m SIZE (512M, 1G, 1.5g, or a number of MiB) in MiB."""
    m = re.fullmatch(r'(\d+(?:\.\d+)?)([MmGg]?)', str(mem))
    mb = float(m.group(1)) * (1024 if m.group(2) in 'Gg' and m.group(2)
                               else 1) if m else 0
    if mb < 1 or mb != int(mb):
        raise ValueError(f'memory size {mem!r}: want N, NM or NG (MiB, GiB)')
    return int(mb)


def smp_option(smp):
    return f'{smp},sockets={smp},cores=1,threads=1'


def cmdline(smp, append='', tsc_khz=None, shell=False, test_mode=True):
    """The kernel command line of a boot on @smp vCPUs; @tsc_khz under
    TCG only (the rate of the machine that runs the guest).  Without
    @test_mode a WARN does not panic (make prove-fixes boots a fix that
    is expected to WARN without it, and reads the warning)."""
    parts = [CMDLINE]
    if tsc_khz:
        parts.append(f'tsc_early_khz={tsc_khz}')
    parts.append(f'pifutex.smp={smp}')
    if append:
        parts.append(append)
    if shell:
        parts.append(SHELL_MODE)
    elif test_mode:
        parts.append(TEST_MODE)
    return ' '.join(parts)


def qemu_argv(kernel, initrd, smp=DEFAULT_SMP, mem=DEFAULT_MEM, accel='tcg',
              append='', tsc_khz=None, shell=False, test_mode=True):
    """The QEMU command of a boot, as run-qemu.sh runs it."""
    if accel not in CPU:
        raise ValueError(f'accelerator {accel!r}: want kvm or tcg')
    return ['qemu-system-x86_64', '-nodefaults', '-nographic',
            '-serial', 'stdio', '-no-reboot',
            '-machine', f'{MACHINE},accel={accel}', '-cpu', CPU[accel],
            '-smp', smp_option(smp), '-m', f'{mem_mb(mem)}M',
            '-kernel', kernel, '-initrd', initrd,
            '-append', cmdline(smp, append,
                               tsc_khz if accel == 'tcg' else None, shell,
                               test_mode)]


def lava_context(smp, mem=DEFAULT_MEM, kvm=False):
    """The context of a LAVA job for `device_type: qemu`: the same
    machine as qemu_argv() through the standard keys only, so that the
    lab's own device dictionary applies."""
    # One string per option and its value: LAVA's template joins them
    # with spaces.
    options = [f'-smp {smp_option(smp)}', '-no-reboot']
    if not kvm:
        options.append(f'-cpu {CPU["tcg"]}')
    return {'arch': 'amd64', 'no_kvm': not kvm, 'memory': mem_mb(mem),
            'extra_options': options}


def host_tsc_khz(cpuinfo='/proc/cpuinfo'):
    """This machine's TSC rate in kHz, from the first "cpu MHz" line, or
    None."""
    try:
        with open(cpuinfo, encoding='utf-8') as f:
            for line in f:
                if line.startswith('cpu MHz'):
                    return int(float(line.split(':', 1)[1]) * 1000)
    except (OSError, ValueError):
        pass
    return None


def positive(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f'want a positive number, not {n}')
    return n


def main(argv):
    p = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='\n'.join(__doc__.splitlines()[6:]))
    sub = p.add_subparsers(dest='cmd', required=True)
    q = sub.add_parser('qemu', help='print the QEMU command')
    q.add_argument('--kernel', required=True)
    q.add_argument('--initrd', required=True)
    q.add_argument('--smp', type=positive, default=DEFAULT_SMP)
    q.add_argument('--mem', default=DEFAULT_MEM)
    q.add_argument('--accel', choices=sorted(CPU), default='tcg')
    q.add_argument('--append', default='')
    q.add_argument('--tsc-khz', type=positive,
                   help='default: this machine\'s rate (TCG only)')
    q.add_argument('--shell', action='store_true',
                   help='interactive shell instead of the suites')
    q.add_argument('--no-test-mode', action='store_true',
                   help='no panic_on_warn=1')
    t = sub.add_parser('timeout', help='print the boot timeout in seconds')
    t.add_argument('--flavour', help='without it, the default timeout')
    t.add_argument('--runlist', choices=('main', 'stress'), default='main')
    t.add_argument('--smp', type=positive, default=DEFAULT_SMP)
    sub.add_parser('tsc-khz', help="print this machine's TSC rate")
    args = p.parse_args(argv[1:])
    if args.cmd == 'qemu':
        try:
            argv = qemu_argv(args.kernel, args.initrd, args.smp, args.mem,
                             args.accel, args.append,
                             args.tsc_khz or host_tsc_khz(), args.shell,
                             not args.no_test_mode)
        except ValueError as e:
            p.error(str(e))
        if any('\n' in a for a in argv):
            p.error('no argument may hold a newline')
        print('\n'.join(argv))
    elif args.cmd == 'timeout':
        try:
            print(60 * timeout_minutes(args.flavour, args.runlist, args.smp))
        except KeyError:     # no flavour, or none measured
            print(DEFAULT_TIMEOUT)
    else:
        print(host_tsc_khz() or '')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
