#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lay out one cell of the test matrix as a LAVA job.

usage: lava-job.py --out DIR --kernel FILE --initrd FILE --smp N
                   --pin PIN --flavour FLAVOUR [--runlist main|stress]
                   [--images-url URL] [--commit ID] [--kvm]
                   [--tsc-khz KHZ] [--append ARGS]

Copies the kernel and the initramfs into DIR (as bzImage and
initramfs.cpio.gz) and writes DIR/job.yaml: a job for `device_type:
qemu` that deploys both to tmpfs, boots them on the machine and with
the kernel command line of tools/guest/machine.py (as tools/run-qemu.sh
does) and turns every KTAP result line into a LAVA
test case: the KUnit suites the kernel runs before /init (test suite
"kunit") and the suites /init runs between its "pi-futex: guest begin"
and "pi-futex: guest end" markers (test suite "pi-futex").

The job sets only standard context keys (arch, no_kvm, memory,
extra_options), so the lab's own device dictionary applies.  The images
are fetched from URL/CELL/ (default: file:// URLs of DIR's parent).
The test timeout is machine.py's, from its table of measured boot
times.  Without --kvm, the guest's TSC runs at the worker's rate, passed
as tsc_early_khz (--tsc-khz, default this machine's rate).
"""
import argparse
import hashlib
import os
import shutil
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'guest'))
import machine  # noqa: E402  (tools/guest/machine.py)

# LAVA's job timeout: the test action's and this much for the rest.
JOB_EXTRA_MINUTES = 10

# The boot action ends at the kernel's "Kernel command line:" line.  LAVA
# waits for the kernel's banner itself before it looks for prompts, so
# "Linux version" cannot be the prompt.  The KUnit suites run after the
# command line is printed and before /init, hence two monitors in turn.
BOOT_PROMPT = 'Kernel command line:'
KUNIT_BEGIN = 'KTAP version 1'
KUNIT_END = 'Run /init as init process'
BEGIN = 'pi-futex: guest begin'
END = 'pi-futex: guest end'
# A KTAP result line: "ok N name", "not ok N name", optionally "# SKIP
# why" or another directive after the name.  The result group is read
# through a lookahead at the start of the match, so that it is "SKIP"
# for a skipped test and "ok" / "not ok" otherwise.  The name ends at
# " #" or at the end of the line; the trailing [\r\n] keeps LAVA from
# matching a line that has not fully arrived yet.
RESULT = (r'(?<!\S)(?=(?:(?:not ok|ok) \d+ (?:- )?[^#\r\n]*?# )?'
          r'(?P<result>SKIP|not ok|ok))'
          r'(?:not ok|ok) \d+ (?:- )?(?P<test_case_id>[^#\r\n]*[^ #\r\n])'
          r'[^\r\n]*[\r\n]')
FIXUP = {'ok': 'pass', 'not ok': 'fail', 'SKIP': 'skip'}


def cell_name(pin, flavour, runlist, smp):
    stress = '-stress' if runlist == 'stress' else ''
    return f'{pin}-{flavour}{stress}-smp{smp}'


def test_minutes(flavour, runlist, smp):
    """The test action's timeout: machine.py's timeout of the boot.  There
    is no base flavour: it has no KUnit, and the kunit monitor would wait
    for a "KTAP version 1" that never comes."""
    if flavour == 'base':
        raise KeyError('the base flavour has no KUnit: no LAVA job')
    return machine.timeout_minutes(flavour, runlist, smp)


def monitor(name, start, end):
    return {'name': name, 'start': start, 'end': end, 'pattern': RESULT,
            'fixupdict': dict(FIXUP)}


def job(name, kernel_url, initrd_url, smp, minutes, kvm, metadata,
        append='', tsc_khz=None):
    cmdline = machine.cmdline(smp, append, None if kvm else tsc_khz)
    kernel_arg = f'-kernel {{kernel}} -append "{cmdline}"'
    return {
        'device_type': 'qemu',
        'job_name': f'pi-futex {name}',
        'metadata': metadata,
        'timeouts': {'job': {'minutes': minutes + JOB_EXTRA_MINUTES},
                     'connection': {'minutes': 2}},
        'priority': 'medium',
        'visibility': 'public',
        'context': machine.lava_context(smp, machine.DEFAULT_MEM, kvm),
        'actions': [
            {'deploy': {
                'to': 'tmpfs',
                'timeout': {'minutes': 5},
                'images': {
                    'kernel': {'image_arg': kernel_arg, 'url': kernel_url},
                    'ramdisk': {'image_arg': '-initrd {ramdisk}',
                                'url': initrd_url}}}},
            # The monitors wait for each line with QEMU's pexpect timeout,
            # which is the boot action's timeout: a suite that prints
            # nothing for longer would end the monitor and drop the rest
            # of the results.  Hence the boot action gets the test
            # action's timeout.
            {'boot': {'method': 'qemu', 'media': 'tmpfs',
                      'timeout': {'minutes': minutes},
                      'prompts': [BOOT_PROMPT]}},
            {'test': {'timeout': {'minutes': minutes},
                      'monitors': [monitor('kunit', KUNIT_BEGIN, KUNIT_END),
                                   monitor('pi-futex', BEGIN, END)]}},
        ],
    }


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--out', required=True, help='the cell directory')
    p.add_argument('--kernel', required=True, help='bzImage')
    p.add_argument('--initrd', required=True, help='initramfs')
    p.add_argument('--smp', type=int, required=True)
    p.add_argument('--pin', required=True)
    p.add_argument('--flavour', required=True)
    p.add_argument('--runlist', choices=('main', 'stress'), default='main')
    p.add_argument('--images-url', default='',
                   help='where the lab finds the cell directories')
    p.add_argument('--commit', default='unknown',
                   help="the series' commit")
    p.add_argument('--kvm', action='store_true',
                   help='let the lab use KVM (no_kvm: false)')
    p.add_argument('--tsc-khz', type=int,
                   help="the workers' TSC rate, for tsc_early_khz= (TCG); "
                   "default: this machine's")
    p.add_argument('--append', default='',
                   help='more kernel command line (make lava-check)')
    args = p.parse_args(argv[1:])
    if args.smp < 1:
        p.error(f'--smp wants a positive number, not {args.smp}')
    if args.tsc_khz is not None and (args.kvm or args.tsc_khz < 1):
        p.error('--tsc-khz wants a positive rate, and no --kvm')
    if args.tsc_khz is None and not args.kvm:
        args.tsc_khz = machine.host_tsc_khz()
    for f in (args.kernel, args.initrd):
        if not os.path.isfile(f):
            p.error(f'{f}: no such file (build it first)')
    try:
        minutes = test_minutes(args.flavour, args.runlist, args.smp)
    except KeyError as e:
        p.error(e.args[0])
    name = cell_name(args.pin, args.flavour, args.runlist, args.smp)
    if os.path.basename(os.path.normpath(args.out)) != name:
        p.error(f'--out must end in the cell name {name}')
    os.makedirs(args.out, exist_ok=True)
    files = {'kernel': 'bzImage', 'ramdisk': 'initramfs.cpio.gz'}
    shutil.copyfile(args.kernel, os.path.join(args.out, files['kernel']))
    shutil.copyfile(args.initrd, os.path.join(args.out, files['ramdisk']))
    base = (args.images_url.rstrip('/') or
            'file://' + os.path.dirname(os.path.abspath(args.out)))
    url = {k: f'{base}/{name}/{v}' for k, v in files.items()}
    metadata = {
        'pi-futex.cell': name,
        'pi-futex.pin': args.pin,
        'pi-futex.flavour': args.flavour,
        'pi-futex.vcpus': str(args.smp),
        'pi-futex.runlist': args.runlist,
        'pi-futex.series-commit': args.commit,
        'pi-futex.kernel-sha256':
            sha256(os.path.join(args.out, files['kernel'])),
        'pi-futex.initramfs-sha256':
            sha256(os.path.join(args.out, files['ramdisk'])),
        'pi-futex.test-minutes': str(minutes),
    }
    if args.append:
        metadata['pi-futex.append'] = args.append
    if args.tsc_khz:
        metadata['pi-futex.tsc-khz'] = str(args.tsc_khz)
    data = job(name, url['kernel'], url['ramdisk'], args.smp, minutes,
               args.kvm, metadata, args.append, args.tsc_khz)
    path = os.path.join(args.out, 'job.yaml')
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        yaml.safe_dump(data, f, sort_keys=False, width=1000)
    os.replace(path + '.tmp', path)
    print(f'lava-job: {path} ({minutes} min test timeout)')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
