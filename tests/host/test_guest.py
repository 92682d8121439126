# SPDX-License-Identifier: GPL-2.0
"""The guest tools: kvm-probe.sh and run-qemu.sh (accelerator, fallback,
exit classes) with fake QEMUs."""
import json
import os
import shutil
import tempfile
import unittest

from helpers import HERE, sh, tool, write


# What a fake qemu-system-x86_64 does when asked for KVM, as the QEMU 7.2
# of Debian 12 does on the hosts the name says.  run-qemu.sh's probe
# (tools/guest/kvm-probe.sh) passes -bios; a boot passes -kernel.
KVM = {
    # No /dev/kvm.
    'absent': 'case "$*" in *accel=kvm*)\n'
              '  echo "Could not access KVM kernel module: No such file or '
              'directory" >&2\n'
              '  echo "qemu-system-x86_64: failed to initialize kvm: No such '
              'file or directory" >&2; exit 1 ;; esac\n',
    # /dev/kvm opens, the vCPU cannot be set up (-cpu host or max).
    'msr': 'case "$*" in *accel=kvm*)\n'
           '  echo "qemu-system-x86_64: error: failed to set MSR 0x10a to '
           '0x69" >&2\n'
           '  echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: '
           'kvm_buf_set_msrs: Assertion \\`ret == cpu->kvm_msr_buf->nmsrs\' '
           'failed." >&2; kill -ABRT $$ ;; esac\n',
    # The vCPU never gets anywhere after the firmware.
    'hang': 'case "$*" in *accel=kvm*)\n'
            '  echo "Booting from ROM..."; exec sleep 60 ;; esac\n',
    # KVM runs the probe's vCPU; what it does with a boot is the test's.
    'works': 'case "$*" in *accel=kvm*-bios*)\n'
             '  echo "pi-futex: vcpu ran"; exit 1 ;; esac\n',
}


class KvmProbeTest(unittest.TestCase):
    """tools/guest/kvm-probe.sh's guest, run by the real QEMU under TCG."""

    def test_probe_guest_reaches_its_marker_under_tcg(self):
        if not shutil.which('qemu-system-x86_64'):
            self.skipTest('qemu-system-x86_64 not installed')
        p = sh([tool('kvm-probe.sh'), '--accel', 'tcg',
                '--cpu', 'max'])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r'^kvm probe passed: a vCPU ran in '
                         r'\d+\.\d\ds\n$')

    def test_bad_usage_exits_2(self):
        p = sh([tool('kvm-probe.sh'), '--accel', 'hvf'])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--accel wants kvm or tcg, not 'hvf'", p.stderr)


class RunQemuTest(unittest.TestCase):
    """run-qemu.sh failure detection, with a fake qemu-system-x86_64."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, 'bin')
        write(os.path.join(self.tmp, 'bzImage'), 'k')
        write(os.path.join(self.tmp, 'initrd'), 'i')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_qemu(self, script, *extra, kvm='absent'):
        """run-qemu.sh with a fake QEMU: KVM[kvm] answers what asks for
        KVM first, then @script runs."""
        write(os.path.join(self.bin, 'qemu-system-x86_64'),
              '#!/bin/sh\n' + KVM[kvm] + script, 0o755)
        env = dict(os.environ, PATH=self.bin + ':' + os.environ['PATH'])
        env.pop('TIMEOUT_FACTOR', None)
        return sh([tool('run-qemu.sh'), '--kernel',
                   os.path.join(self.tmp, 'bzImage'), '--initrd',
                   os.path.join(self.tmp, 'initrd'), '--log',
                   os.path.join(self.tmp, 'logs', 'x.log')] + list(extra),
                  env=env)

    def test_good_guest_passes_and_prints_command(self):
        p = self.run_qemu(f'cat {HERE}/logs/pass.log\n')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('+ qemu-system-x86_64 -nodefaults -nographic -serial '
                      'stdio -no-reboot', p.stdout)
        self.assertIn('panic=-1', p.stdout)
        self.assertIn('panic_on_warn=1', p.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, 'logs', 'x.log')))

    def test_hanging_guest_times_out(self):
        # Stuck after a suite: a test failure.
        p = self.run_qemu(f'cat {HERE}/logs/hang.log\nexec sleep 60\n',
                          '--timeout', '2')
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn('QEMU killed after 2s (timeout)', p.stdout)
        self.assertIn('verdict FAIL: test failure', p.stderr)

    def test_stuck_before_first_suite_is_infra(self):
        p = self.run_qemu('echo "pi-futex: guest begin"\nexec sleep 60\n',
                          '--timeout', '2')
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn('QEMU killed after 2s (timeout)', p.stdout)
        self.assertIn('verdict INFRA', p.stderr)

    def test_panic_before_suites_is_infra(self):
        p = self.run_qemu(f'cat {HERE}/logs/panic.log\n')
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn('Kernel panic', p.stdout)

    def verdict_json(self, name='x'):
        with open(os.path.join(self.tmp, 'logs', name + '.json')) as f:
            return json.load(f)

    def first_line(self, p):
        return p.stdout.splitlines()[0]

    def assert_tcg_boot(self, p):
        self.assertRegex(p.stdout, r'-machine pc\\?,accel=tcg -cpu max ')
        # Under TCG the TSC is the host's: its rate spares calibration.
        self.assertRegex(p.stdout, r'tsc=reliable\\? tsc_early_khz=[1-9]')

    def test_kvm_used_when_it_runs_a_vcpu(self):
        p = self.run_qemu(f'cat {HERE}/logs/pass.log\n', kvm='works')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(self.first_line(p), r'^run-qemu: kvm probe passed: '
                         r'a vCPU ran in \d+\.\d\ds; using kvm$')
        self.assertRegex(p.stdout, r'-machine pc\\?,accel=kvm -cpu host ')
        self.assertIn('2 vCPU(s), kvm', p.stdout)
        self.assertIn('verdict: PASS (log ', p.stdout)
        # KVM calibrates the TSC itself.
        self.assertIn('tsc=reliable', p.stdout)
        self.assertNotIn('tsc_early_khz', p.stdout)
        self.assertEqual(self.verdict_json()['accel'], 'kvm')
        self.assertEqual(self.verdict_json()['attempts'], [])
        p = self.run_qemu(f'cat {HERE}/logs/pass.log\n', '--accel', 'tcg',
                          kvm='works')
        self.assertEqual(self.first_line(p), 'run-qemu: using tcg (--accel tcg)')
        self.assert_tcg_boot(p)
        self.assertEqual(self.verdict_json()['accel'], 'tcg')

    def assert_tcg_after_probe(self, kvm, reason):
        """With KVM[kvm], auto boots under TCG and says @reason first;
        --accel kvm exits 2 with it before any boot."""
        p = self.run_qemu(f'cat {HERE}/logs/pass.log\n', kvm=kvm)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(self.first_line(p),
                         f'run-qemu: kvm probe failed: {reason}; using tcg')
        self.assert_tcg_boot(p)
        self.assertNotIn('Aborted', p.stdout + p.stderr)
        self.assertEqual(self.verdict_json()['accel'], 'tcg')
        p = self.run_qemu(f'cat {HERE}/logs/pass.log\n', '--accel', 'kvm',
                          kvm=kvm)
        self.assertEqual(p.returncode, 2)
        self.assertIn('run-qemu.sh: error: --accel kvm: QEMU cannot run a '
                      f'guest with KVM here: {reason}\n', p.stderr)
        self.assertNotIn('+ qemu-system-x86_64', p.stdout)

    def test_no_dev_kvm_means_tcg(self):
        self.assert_tcg_after_probe('absent', 'Could not access KVM kernel '
                                    'module: No such file or directory')

    def test_kvm_that_aborts_on_msr_means_tcg(self):
        # The machine-less KVM probe of old passed here; every boot died.
        self.assert_tcg_after_probe('msr', 'qemu-system-x86_64: error: '
                                    'failed to set MSR 0x10a to 0x69')

    def test_kvm_that_hangs_in_the_probe_means_tcg(self):
        self.assert_tcg_after_probe('hang', 'no output from the vCPU in 10s')

    def test_kvm_boot_that_hangs_runs_again_under_tcg(self):
        # The probe's vCPU ran, the boot's never prints the kernel's
        # first line: stopped after half the timeout, not all of it.
        p = self.run_qemu('case "$*" in *accel=kvm*) echo "Booting from '
                          'ROM..."; exec sleep 60 ;; esac\n'
                          f'cat {HERE}/logs/pass.log\n', '--timeout', '6',
                          kvm='works')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('using kvm', self.first_line(p))
        self.assertIn('QEMU stopped: no kernel output after 3s', p.stdout)
        self.assertNotIn('QEMU killed after', p.stdout)
        self.assertIn('run-qemu: the kvm boot broke before the suites began; '
                      'once more under tcg', p.stdout)
        self.assert_tcg_boot(p)
        v = self.verdict_json()
        self.assertEqual((v['accel'], v['verdict']), ('tcg', 'pass'))
        self.assertEqual([(a['accel'], a['verdict'], a['log'])
                          for a in v['attempts']],
                         [('kvm', 'infra', 'x.kvm-attempt.log')])
        self.assertIn('QEMU stopped: no kernel output after 3s',
                      v['attempts'][0]['problems'])
        with open(os.path.join(self.tmp, 'logs', 'x.kvm-attempt.log')) as f:
            self.assertEqual(f.read(), 'Booting from ROM...\n')
        self.assertEqual(self.verdict_json('x.kvm-attempt')['accel'], 'kvm')

    def test_kvm_boot_that_aborts_runs_again_under_tcg(self):
        p = self.run_qemu('case "$*" in *accel=kvm*) kill -ABRT $$ ;; esac\n'
                          f'cat {HERE}/logs/pass.log\n', kvm='works')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('once more under tcg', p.stdout)
        self.assertIn('after a failed kvm boot (INFRA: ', p.stdout)
        self.assertIn('verdict: PASS (log ', p.stdout)
        self.assertIn(', tcg)', p.stdout)
        v = self.verdict_json()
        self.assertEqual((v['accel'], v['verdict']), ('tcg', 'pass'))
        self.assertIn('QEMU exited with status 134',
                      v['attempts'][0]['problems'])

    def test_kvm_boot_is_not_retried_after_the_suites_began(self):
        # A failure of the suites under KVM is a result, not a KVM fault.
        p = self.run_qemu(f'cat {HERE}/logs/fail.log\n', kvm='works')
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertNotIn('once more under tcg', p.stdout)
        self.assertEqual(self.verdict_json()['accel'], 'kvm')
        self.assertEqual(self.verdict_json()['attempts'], [])
        # Nor is a strict --accel kvm boot that broke early.
        p = self.run_qemu('case "$*" in *accel=kvm*) kill -ABRT $$ ;; esac\n'
                          f'cat {HERE}/logs/pass.log\n', '--accel', 'kvm',
                          kvm='works')
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertNotIn('once more under tcg', p.stdout)
        self.assertIn('QEMU exited with status 134', p.stdout)

    def test_tcg_retry_that_fails_too_is_infra(self):
        p = self.run_qemu(f'cat {HERE}/logs/panic.log\n', kvm='works')
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn('once more under tcg', p.stdout)
        v = self.verdict_json()
        self.assertEqual((v['accel'], v['verdict']), ('tcg', 'infra'))
        self.assertEqual(v['attempts'][0]['accel'], 'kvm')

    def test_wrong_accel_is_rejected(self):
        p = self.run_qemu('exit 0\n', '--accel', 'hvf')
        self.assertEqual(p.returncode, 2)
        self.assertIn("--accel wants auto, kvm or tcg, not 'hvf'", p.stderr)
        self.assertNotIn('+ qemu-system-x86_64', p.stdout)

    def test_kernel_warning_fails(self):
        p = self.run_qemu(f'cat {HERE}/logs/warning.log\n')
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('WARNING: CPU: 1', p.stdout)
        self.assertIn('verdict FAIL', p.stderr)

    def test_failing_suite_fails(self):
        p = self.run_qemu(f'cat {HERE}/logs/fail.log\n')
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('verdict: FAIL', p.stdout)

    def test_bad_options_are_rejected(self):
        p = self.run_qemu('exit 0\n', '--smp', 'two')
        self.assertEqual(p.returncode, 2)
        self.assertIn("--smp wants a positive number, not 'two'", p.stderr)
        p = self.run_qemu('exit 0\n', '--bogus')
        self.assertIn('unknown option --bogus', p.stderr)

    def test_qemu_failure_is_infra(self):
        p = self.run_qemu('echo "qemu: could not load kernel" >&2; exit 1\n')
        self.assertEqual(p.returncode, 2)
        self.assertIn('QEMU exited with status 1', p.stdout)
        self.assertIn('verdict INFRA', p.stderr)


if __name__ == '__main__':
    unittest.main()
