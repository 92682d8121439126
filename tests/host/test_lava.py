# SPDX-License-Identifier: GPL-2.0
"""Host tests of the LAVA jobs (tools/lava/lava-job.py) and of the verdict
read back from a LAVA log (tools/lava/lava-verdict.py)."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml
from helpers import load_tool, tool

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, 'logs')


def run(*args):
    return subprocess.run([sys.executable] + list(args), capture_output=True,
                          text=True)


LAVA_JOB = load_tool('lava-job')


class LavaJobTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.kernel = os.path.join(self.tmp, 'bzImage.in')
        self.initrd = os.path.join(self.tmp, 'initrd.in')
        with open(self.kernel, 'wb') as f:
            f.write(b'kernel bytes')
        with open(self.initrd, 'wb') as f:
            f.write(b'initramfs bytes')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def make(self, cell, *extra, smp='2', flavour='debug'):
        return run(tool('lava-job.py'),
                   '--out', os.path.join(self.tmp, 'lava', cell),
                   '--kernel', self.kernel, '--initrd', self.initrd,
                   '--smp', smp, '--pin', '7.3', '--flavour', flavour,
                   '--commit', 'c0ffee', *extra)

    def job(self, cell):
        with open(os.path.join(self.tmp, 'lava', cell, 'job.yaml')) as f:
            return yaml.safe_load(f)

    def test_cell_layout_and_metadata(self):
        p = self.make('7.3-debug-smp2')
        self.assertEqual(p.returncode, 0, p.stderr)
        cell = os.path.join(self.tmp, 'lava', '7.3-debug-smp2')
        self.assertEqual(sorted(os.listdir(cell)),
                         ['bzImage', 'initramfs.cpio.gz', 'job.yaml'])
        job = self.job('7.3-debug-smp2')
        meta = job['metadata']
        self.assertEqual(meta['pi-futex.kernel-sha256'],
                         hashlib.sha256(b'kernel bytes').hexdigest())
        self.assertEqual(meta['pi-futex.initramfs-sha256'],
                         hashlib.sha256(b'initramfs bytes').hexdigest())
        self.assertEqual((meta['pi-futex.pin'], meta['pi-futex.flavour'],
                          meta['pi-futex.vcpus'],
                          meta['pi-futex.series-commit']),
                         ('7.3', 'debug', '2', 'c0ffee'))
        self.assertEqual(job['device_type'], 'qemu')
        # Standard context keys only: the lab's device dictionary applies.
        self.assertEqual(sorted(job['context']),
                         ['arch', 'extra_options', 'memory', 'no_kvm'])
        self.assertTrue(job['context']['no_kvm'])
        self.assertIn('-cpu max', job['context']['extra_options'])
        self.assertIn('-smp 2,sockets=2,cores=1,threads=1',
                      job['context']['extra_options'])
        images = job['actions'][0]['deploy']['images']
        self.assertEqual(images['kernel']['url'],
                         f'file://{self.tmp}/lava/7.3-debug-smp2/bzImage')
        self.assertIn('pifutex.smp=2', images['kernel']['image_arg'])
        self.assertIn('panic_on_warn=1', images['kernel']['image_arg'])
        monitors = job['actions'][2]['test']['monitors']
        self.assertEqual([m['name'] for m in monitors], ['kunit', 'pi-futex'])

    def test_images_url_and_kvm(self):
        p = self.make('7.3-debug-smp4', '--images-url',
                      'https://lab.example/pi-futex/', '--kvm', smp='4')
        self.assertEqual(p.returncode, 0, p.stderr)
        job = self.job('7.3-debug-smp4')
        self.assertEqual(job['actions'][0]['deploy']['images']['ramdisk']
                         ['url'], 'https://lab.example/pi-futex/'
                         '7.3-debug-smp4/initramfs.cpio.gz')
        self.assertFalse(job['context']['no_kvm'])
        self.assertNotIn('-cpu max', job['context']['extra_options'])
        self.assertNotIn('tsc_early_khz', job['actions'][0]['deploy']
                         ['images']['kernel']['image_arg'])
        p = self.make('7.3-debug-smp4', '--kvm', '--tsc-khz', '2000000',
                      smp='4')
        self.assertEqual(p.returncode, 2)
        self.assertIn('--tsc-khz wants a positive rate, and no --kvm',
                      p.stderr)

    def test_tsc_rate(self):
        p = self.make('7.3-debug-smp2', '--tsc-khz', '2096007')
        self.assertEqual(p.returncode, 0, p.stderr)
        job = self.job('7.3-debug-smp2')
        self.assertIn('tsc=reliable tsc_early_khz=2096007 pifutex.smp=2',
                      job['actions'][0]['deploy']['images']['kernel']
                      ['image_arg'])
        self.assertEqual(job['metadata']['pi-futex.tsc-khz'], '2096007')

    def test_timeouts_follow_the_measured_times(self):
        self.assertEqual(self.make('7.3-kasan-smp4', smp='4',
                                   flavour='kasan').returncode, 0)
        job = self.job('7.3-kasan-smp4')
        want = 2 * 18 + LAVA_JOB.machine.MARGIN_MINUTES
        self.assertEqual(job['actions'][2]['test']['timeout'],
                         {'minutes': want})
        self.assertEqual(job['timeouts']['job'], {'minutes': want + LAVA_JOB.JOB_EXTRA_MINUTES})
        # The monitors' wait for a line is the boot action's timeout.
        self.assertEqual(job['actions'][1]['boot']['timeout'],
                         {'minutes': want})
        p = self.make('7.3-debug-stress-smp2', '--runlist', 'stress')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.job('7.3-debug-stress-smp2')['actions'][2]
                         ['test']['timeout'],
                         {'minutes': 2 * 67 + LAVA_JOB.machine.MARGIN_MINUTES})

    def test_bad_input(self):
        p = self.make('wrong-name')
        self.assertEqual(p.returncode, 2)
        self.assertIn('--out must end in the cell name 7.3-debug-smp2',
                      p.stderr)
        p = self.make('7.3-base-smp2', flavour='base')
        self.assertEqual(p.returncode, 2)
        self.assertIn('the base flavour has no KUnit: no LAVA job', p.stderr)
        os.unlink(self.kernel)
        p = self.make('7.3-debug-smp2')
        self.assertEqual(p.returncode, 2)
        self.assertIn('bzImage.in: no such file', p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'lava')))

    def test_result_pattern(self):
        # pexpect compiles the pattern with re.DOTALL.
        pat = re.compile(LAVA_JOB.RESULT, re.DOTALL)
        lines = {
            'ok 1 sanity\r\n': ('ok', 'sanity'),
            'not ok 4 canned-failure\r\n': ('not ok', 'canned-failure'),
            '    ok 4 rtm_test_spinlock_pi # SKIP needs PREEMPT_RT\r\n':
                ('SKIP', 'rtm_test_spinlock_pi'),
            '[    5.1] ok 2 plist\r\n': ('ok', 'plist'),
            'not ok 3 x # TODO later\r\n': ('not ok', 'x'),
            'ok 5 - a name with spaces\r\n': ('ok', 'a name with spaces'),
        }
        for line, (result, name) in lines.items():
            m = pat.search(line)
            self.assertIsNotNone(m, line)
            self.assertEqual((m['result'], m['test_case_id']),
                             (result, name), line)
            self.assertIn(m['result'], LAVA_JOB.FIXUP)
        for line in ('lookup 1 x\r\n', 'ok 1 not-yet-ended',
                     '# Subtest: plist\r\n', '1..4\r\n'):
            self.assertIsNone(pat.search(line), line)


LAVA_VERDICT = load_tool('lava-verdict')


def entry(lvl, msg):
    return json.dumps({'dt': '2026-12-04T00:00:00', 'lvl': lvl,
                       'msg': msg}) + '\n'


class Case(str):
    """A LAVA test case entry, and what the serial line behind it was."""


def case(suite, name, result):
    c = Case(entry('results', {'definition': suite,
                               'case': LAVA_VERDICT.case_id(name),
                               'result': result, 'level': '3.1',
                               'extra': {'test_case_id': name}}))
    c.suite, c.name, c.result = suite, name, result
    return c


def job_result(ok=True):
    if ok:
        return entry('results', {'definition': 'lava', 'case': 'job',
                                 'result': 'pass'})
    return entry('results', {'definition': 'lava', 'case': 'job',
                             'result': 'fail', 'error_type': 'Infrastructure',
                             'error_msg': 'Connection closed'})


class LavaVerdictTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def verdict(self, text, *opts):
        path = os.path.join(self.tmp, 'lava.log')
        with open(path, 'w') as f:
            f.write(text)
        return run(tool('lava-verdict.py'), *opts, path)

    def guest(self, *cases, end='pi-futex: guest end rc=0', ok=True):
        text = entry('target', '[    5.0] Run /init as init process')
        text += entry('target', 'pi-futex: guest begin (7.3.4, 2 cpu)')
        # The guest's KTAP on the serial line (what verdict.py judges),
        # each result followed by the case LAVA's monitor made of it.
        ktap = [c for c in cases
                if isinstance(c, Case) and c.suite == 'pi-futex']
        text += entry('target', 'KTAP version 1')
        text += entry('target', f'1..{len(ktap)}')
        for c in cases:
            if c in ktap:
                n = ktap.index(c) + 1
                text += entry('target', {
                    'pass': f'ok {n} {c.name}', 'fail': f'not ok {n} {c.name}',
                    'skip': f'ok {n} {c.name} # SKIP'}[c.result])
            text += c
        if end:
            text += entry('feedback', end)
        return text + job_result(ok)

    def test_pass(self):
        p = self.verdict(self.guest(case('pi-futex', 'sanity', 'pass'),
                                    case('pi-futex', 'x', 'skip')))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('pi-futex: 1 pass, 0 fail, 1 skip', p.stdout)
        self.assertIn('lava-verdict: PASS', p.stdout)

    def test_failing_case_is_named(self):
        p = self.verdict(self.guest(case('pi-futex', 'sanity', 'pass'),
                                    case('pi-futex', 'canned-failure',
                                         'fail'),
                                    end='pi-futex: guest end rc=1'))
        self.assertEqual(p.returncode, 1)
        self.assertIn('pi-futex: canned-failure: fail', p.stdout)

    def test_serial_line_judged_like_run_qemu(self):
        # The serial KTAP says "not ok" where LAVA's monitor recorded no
        # failure: verdict.py's rules, which judge the serial lines, fail
        # the job all the same.
        text = self.guest(case('pi-futex', 'sanity', 'pass'))
        text = text.replace('"ok 1 sanity"', '"not ok 1 sanity"')
        p = self.verdict(text)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('lava-verdict: FAIL', p.stdout)

    def test_no_case_from_the_monitors_fails(self):
        # The serial log has the suite's result, LAVA recorded no case:
        # its monitors missed them, which is not a pass.
        text = ''.join(ln for ln in self.guest(case('pi-futex', 'sanity',
                                                     'pass')).splitlines(True)
                       if '"definition": "pi-futex"' not in ln)
        p = self.verdict(text)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('no test case came back from the guest', p.stdout)

    def test_nonzero_rc_without_failing_case_fails(self):
        p = self.verdict(self.guest(case('pi-futex', 'sanity', 'pass'),
                                    end='pi-futex: guest end rc=3'))
        self.assertEqual(p.returncode, 1)
        self.assertIn('guest /init reported rc=3', p.stdout)

    def test_crash_during_the_suites_is_a_test_failure(self):
        p = self.verdict(self.guest(
            case('pi-futex', 'sanity', 'pass'),
            entry('target', '[   9.1] Kernel panic - not syncing: oops'),
            end=None, ok=False))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('kernel crash signature: Kernel panic', p.stdout)
        self.assertIn('LAVA job incomplete: Infrastructure: Connection '
                      'closed', p.stdout)

    def test_no_begin_is_infra(self):
        p = self.verdict(entry('target', 'Linux version 7.3.4') +
                         job_result(ok=False))
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn('INFRA', p.stdout)

    def test_begin_without_any_result_is_infra(self):
        p = self.verdict(self.guest(end=None, ok=False))
        self.assertEqual(p.returncode, 2, p.stdout)

    def test_lavacli_raw_logs(self):
        # `lavacli jobs logs --raw ID` prints each entry as "- {...}" in
        # YAML's flow style, every scalar double-quoted.
        text = self.guest(case('pi-futex', 'sanity', 'pass'),
                          case('pi-futex', 'canned-failure', 'fail'))
        raw = ''.join('- ' + yaml.dump(json.loads(line),
                                       default_flow_style=True,
                                       default_style='"', width=10**6)
                      for line in text.splitlines())
        p = self.verdict(raw)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn('pi-futex: canned-failure: fail', p.stdout)

    def test_bad_log(self):
        p = self.verdict('this is not a LAVA log\n')
        self.assertEqual(p.returncode, 2)
        self.assertIn('not a LAVA log entry', p.stderr)
        p = self.verdict('')
        self.assertEqual(p.returncode, 2)

    def test_real_logs_agree_with_run_qemu(self):
        # lava-run's own logs of the negative control's cell and of a
        # kernel whose init exits, with run-qemu.sh's verdicts of the
        # same images (make lava-check).
        for name, rc in (('lava-negative', 1), ('lava-panic', 2)):
            log = os.path.join(LOGS, name + '.log')
            ref = os.path.join(LOGS, name + '.run-qemu.json')
            p = run(tool('lava-verdict.py'), log)
            self.assertEqual(p.returncode, rc, p.stdout)
            p = run(tool('lava-verdict.py'), '--compare',
                    ref, log)
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertIn('agrees with run-qemu.sh', p.stdout)

    def test_compare_finds_differences(self):
        log = os.path.join(LOGS, 'lava-negative.log')
        with open(os.path.join(LOGS, 'lava-negative.run-qemu.json')) as f:
            ref = json.load(f)
        # run-qemu.sh saw one more subtest, and a different result.
        ref['suites'][-1]['tests']['extra_case'] = 'pass'
        for s in ref['suites']:
            if s['suite'] == 'kunit:rtmutex':
                s['tests']['rtm_test_spinlock_pi'] = 'pass'
        path = os.path.join(self.tmp, 'ref.json')
        with open(path, 'w') as f:
            json.dump(ref, f)
        p = run(tool('lava-verdict.py'), '--compare', path,
                log)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('extra_case: run-qemu.sh pass, LAVA none', p.stdout)
        self.assertIn('rtm_test_spinlock_pi: run-qemu.sh pass, LAVA '
                      "['skip']", p.stdout)
        ref['verdict'] = 'pass'
        with open(path, 'w') as f:
            json.dump(ref, f)
        p = run(tool('lava-verdict.py'), '--compare', path,
                log)
        self.assertIn('outcome: LAVA fail, run-qemu.sh pass', p.stdout)


if __name__ == '__main__':
    unittest.main()
