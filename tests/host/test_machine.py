# SPDX-License-Identifier: GPL-2.0
"""tools/guest/machine.py: the one boot description, rendered by
run-qemu.sh and by lava-job.py; every cell both ways, compared."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, import_path, load_tool, tool
from test_guest import KVM

import_path('machine.py')
import machine  # noqa: E402


LAVA_JOB = load_tool('lava-job')
PINS = sorted(p for p in os.listdir(os.path.join(ROOT, 'pins'))
              if p != 'default')
# Every cell a LAVA job can be written for: make lava-jobs' flavours,
# make check's and check-full's vCPU counts, and the stress cell.
CELLS = [(pin, flavour, runlist, smp)
         for pin in PINS
         for flavour, runlist in (('debug', 'main'), ('rt', 'main'),
                                  ('kasan', 'main'), ('debug', 'stress'))
         for smp in (1, 2, 4)]


def option(argv, name):
    """The value after @name in QEMU's @argv."""
    return argv[argv.index(name) + 1]


class BothBootsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, 'bin')
        os.makedirs(self.bin)
        for f in ('bzImage', 'initrd'):
            with open(os.path.join(self.tmp, f), 'w') as out:
                out.write(f)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_qemu(self, accel, smp, flavour, runlist):
        """run-qemu.sh's QEMU command and timeout for a cell: a fake QEMU
        (a working KVM for the probe) records its arguments and exits."""
        fake = os.path.join(self.bin, 'qemu-system-x86_64')
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\n' + KVM['works'] +
                    f'printf "%s\\n" "$@" >{self.tmp}/argv\nexit 1\n')
        os.chmod(fake, 0o755)
        env = dict(os.environ, PATH=self.bin + ':' + os.environ['PATH'])
        env.pop('TIMEOUT_FACTOR', None)
        args = [tool('run-qemu.sh'), '--kernel',
                os.path.join(self.tmp, 'bzImage'), '--initrd',
                os.path.join(self.tmp, 'initrd'), '--accel', accel,
                '--smp', str(smp), '--log',
                os.path.join(self.tmp, 'x.log')]
        if runlist == 'main':
            args += ['--flavour', flavour]
        else:
            # make stress and the LAVA stress job: the stress runlist's
            # time (run-qemu.sh is told it by --timeout).
            args += ['--timeout', str(60 * machine.timeout_minutes(
                flavour, runlist, smp))]
        p = subprocess.run(args, env=env, capture_output=True, text=True)
        with open(os.path.join(self.tmp, 'argv')) as f:
            argv = f.read().split('\n')[:-1]
        m = re.search(r'^run-qemu: timeout (\d+)s$', p.stdout, re.M)
        self.assertTrue(m, p.stdout + p.stderr)
        return argv, int(m.group(1))

    def lava(self, pin, flavour, runlist, smp, kvm):
        minutes = LAVA_JOB.test_minutes(flavour, runlist, smp)
        name = LAVA_JOB.cell_name(pin, flavour, runlist, smp)
        tsc = None if kvm else machine.host_tsc_khz()
        return LAVA_JOB.job(name, 'file:///k', 'file:///i', smp, minutes,
                            kvm, {}, tsc_khz=tsc)

    def test_every_cell_renders_the_same_both_ways(self):
        for pin, flavour, runlist, smp in CELLS:
            for accel in ('tcg', 'kvm'):
                with self.subTest(cell=(pin, flavour, runlist, smp, accel)):
                    argv, secs = self.run_qemu(accel, smp, flavour, runlist)
                    job = self.lava(pin, flavour, runlist, smp,
                                    accel == 'kvm')
                    ctx = job['context']
                    image_arg = job['actions'][0]['deploy']['images'][
                        'kernel']['image_arg']
                    lava_cmdline = shlex.split(image_arg)[-1]
                    self.assertEqual(option(argv, '-append'), lava_cmdline)
                    self.assertIn(f'-smp {option(argv, "-smp")}',
                                  ctx['extra_options'])
                    self.assertEqual(option(argv, '-m'), f'{ctx["memory"]}M')
                    self.assertIn('-no-reboot', argv)
                    self.assertIn('-no-reboot', ctx['extra_options'])
                    self.assertEqual(ctx['no_kvm'], accel == 'tcg')
                    self.assertEqual(option(argv, '-machine'),
                                     f'pc,accel={accel}')
                    cpu = [o for o in ctx['extra_options']
                           if o.startswith('-cpu ')]
                    # Under KVM LAVA's qemu device type passes -cpu host.
                    self.assertEqual(cpu or ['-cpu host'],
                                     [f'-cpu {option(argv, "-cpu")}'])
                    self.assertEqual(
                        job['actions'][2]['test']['timeout'],
                        {'minutes': secs // 60})
                    self.assertEqual(secs % 60, 0)

    def test_table_of_measured_times(self):
        # Twice the measured time plus the margin, per flavour and vCPUs.
        self.assertEqual(machine.timeout_minutes('debug', 'main', 4),
                         7 + machine.MARGIN_MINUTES)  # 2 x 3.2, up
        self.assertEqual(machine.timeout_minutes('kasan', 'main', 3),
                         36 + machine.MARGIN_MINUTES)
        self.assertEqual(machine.timeout_minutes('base', 'main', 2),
                         6 + machine.MARGIN_MINUTES)
        with self.assertRaises(KeyError):
            machine.timeout_minutes('base', 'stress', 2)
        p = subprocess.run([sys.executable, tool('machine.py'), 'timeout'],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout, f'{machine.DEFAULT_TIMEOUT}\n')

    def test_docs_give_the_measured_times(self):
        # docs/times.md and the table the timeouts come from agree.
        with open(os.path.join(ROOT, 'docs', 'times.md')) as f:
            times = f.read()
        debug = machine.MEASURED[('debug', 'main')]
        self.assertIn(' / '.join(str(debug[n]) for n in (1, 2, 4)) + ' min',
                      times)
        self.assertRegex(times, r'2 vCPUs +7\.3 rt +%s min'
                         % machine.MEASURED[('rt', 'main')][2])
        self.assertRegex(times, r'2 vCPUs +7\.3 base +%s min'
                         % machine.MEASURED[('base', 'main')][2])

    def test_bad_input(self):
        for args in (['qemu', '--kernel', 'k', '--initrd', 'i', '--mem',
                      '12X'],
                     ['qemu', '--kernel', 'k', '--initrd', 'i', '--smp', '0'],
                     ['qemu', '--kernel', 'k', '--initrd', 'i', '--append',
                      'a\nb'],
                     ['nothing']):
            p = subprocess.run([sys.executable, tool('machine.py')] + args,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, args)
            self.assertEqual(p.stdout, '')
            self.assertIn('error:', p.stderr)


if __name__ == '__main__':
    unittest.main()
