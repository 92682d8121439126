# SPDX-License-Identifier: GPL-2.0
"""Host tests of the bug-injection corpus (tests/inject/) and of
tools/prove/inject-report.py on made-up boots."""
import glob
import importlib
import json
import os
import re
import subprocess
import tempfile
import unittest
from helpers import ROOT, import_path

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(ROOT, 'tests', 'inject')
import_path('verdict.py')
import_path('inject-report.py')
report = importlib.import_module('inject-report')

FIELDS = ('Name', 'Upstream', 'Checked', 'Year', 'Class', 'Flavour', 'Bug',
          'Expect')


class CorpusTest(unittest.TestCase):
    """Every entry says what it undoes and how, in the same form."""

    def entries(self):
        paths = sorted(glob.glob(os.path.join(CORPUS, '*.patch')))
        self.assertGreaterEqual(len(paths), 20)
        return paths

    def test_headers(self):
        with open(os.path.join(ROOT, 'series'), encoding='utf-8') as f:
            series = f.read().split()
        upstream = 0
        for path in self.entries():
            name = os.path.basename(path)[:-len('.patch')]
            with self.subTest(entry=name):
                f = report.header(path)
                for key in FIELDS:
                    self.assertTrue(f.get(key), f'{key}: missing')
                self.assertEqual(f['Name'], name)
                self.assertIn(f['Flavour'], ('debug', 'rt'))
                self.assertRegex(f['Year'], r'^(19|20)\d\d$')
                self.assertRegex(f['Checked'], r'^(yes|no: .+)$')
                if 'Race-only' in f:
                    self.assertGreater(len(f['Race-only']), 40,
                                       'Race-only: needs its reason')
                m = re.match(r'([0-9a-f]{12}) \("(.+)"\)$', f['Upstream'])
                if m:
                    upstream += 1
                else:
                    self.assertTrue(f['Upstream'].startswith('none: '),
                                    f['Upstream'])
                with open(path, encoding='utf-8') as fh:
                    body = fh.read().split('\n---\n', 1)[1]
                if f.get('Revert'):
                    self.assertIn(f['Revert'], series)
                    self.assertEqual(body.strip(), '')
                else:
                    files = re.findall(r'^\+\+\+ b/(\S+)', body, re.M)
                    self.assertTrue(files, 'no diff')
                    for changed in files:
                        self.assertRegex(changed, r'^kernel/')
        self.assertGreaterEqual(upstream, 20)

    def test_entries_apply_to_the_series(self):
        src = os.environ.get('PIFUTEX_SRC')
        if not src or not os.path.isdir(os.path.join(src, 'kernel')):
            self.skipTest('no patched tree (make check-host sets PIFUTEX_SRC)')
        mainline = os.readlink(os.path.join(ROOT, 'pins', 'default'))
        if f'linux-{mainline}.' not in src:
            self.skipTest('PIFUTEX_SRC is not the mainline pin')
        for path in self.entries():
            if report.header(path).get('Revert'):
                continue
            with open(path, encoding='utf-8') as f:
                body = f.read().split('\n---\n', 1)[1]
            p = subprocess.run(['patch', '-s', '-p1', '--dry-run', '-d', src],
                               input=body, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0,
                             f'{os.path.basename(path)}: {p.stdout}{p.stderr}')


def suite(name, result, tests=None):
    s = {'suite': name, 'result': result, 'pass': 0, 'fail': 0, 'skip': 0}
    if tests:
        s['tests'] = tests
    return s


class ReportTest(unittest.TestCase):
    """What inject-report.py counts as caught, and by whom."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.corpus = os.path.join(self.dir, 'corpus')
        self.out = os.path.join(self.dir, 'out')
        os.makedirs(self.corpus)
        os.makedirs(self.out)

    def tearDown(self):
        subprocess.run(['rm', '-rf', self.dir], check=True)

    def boot(self, name, suites, problems=(), log='', more=''):
        with open(os.path.join(self.corpus, name + '.patch'), 'w',
                  encoding='utf-8') as f:
            f.write(f'Name: {name}\nUpstream: 0123456789ab ("x: y")\n'
                    'Year: 2014\nClass: test\nFlavour: debug\n'
                    f'Bug: b\nExpect: e\n{more}---\n')
        with open(os.path.join(self.out, name + '.json'), 'w',
                  encoding='utf-8') as f:
            json.dump({'suites': suites, 'problems': list(problems),
                       'verdict': 'fail'}, f)
        with open(os.path.join(self.out, name + '.log'), 'w',
                  encoding='utf-8') as f:
            f.write(log)

    def rows(self, *names):
        return {r['name']: report.classify(r)
                for r in report.report(self.corpus, self.out, names)}

    def test_classes(self):
        self.boot('det', [suite('futex-pi', 'fail', {'eperm': 'fail'}),
                          suite('futex-selftests', 'pass')])
        self.boot('chance', [suite('rt-random', 'fail'),
                             suite('futex-selftests', 'fail')])
        self.boot('intree', [suite('futex-pi', 'pass'),
                             suite('futex-selftests', 'fail')])
        self.boot('missed', [suite('futex-pi', 'pass')])
        self.boot('race', [suite('futex-pi', 'pass')],
                  more='Race-only: the window\n  is narrow\n')
        self.boot('race-caught', [suite('futex-pi', 'fail')],
                  more='Race-only: r\n')
        self.assertEqual(self.rows('det', 'chance', 'intree', 'missed', 'race',
                                   'race-caught'), {
            'det': ('ours', False), 'chance': ('chance', True),
            'intree': ('intree-only', True), 'missed': ('missed', False),
            'race': ('race-only', False), 'race-caught': ('ours', False)})

    def test_crash_and_hang_name_the_suite_that_ran(self):
        log = ('[    1.0] KTAP version 1\n'
               '[    1.1]     # Subtest: rtmutex\n'
               'pi-futex: guest begin\n'
               '# suite futex-pi: /x (limit 60s)\n'
               'ok 1 futex-pi\n'
               '# suite bad-input: /y (limit 60s)\n'
               '[    9.0] Oops: general protection fault\n')
        self.boot('crash', [suite('futex-pi', 'pass')],
                  ['log:7: kernel crash signature: Oops: general protection '
                   'fault'], log)
        self.boot('hang', [suite('futex-pi', 'pass')],
                  ['guest did not finish its suites (no "pi-futex: guest end" '
                   'line: hang, crash or timeout)'],
                  log.replace('[    9.0] Oops: general protection fault\n',
                              ''))
        self.boot('kunit', [], ['log:3: kernel crash signature: Oops: x'],
                  log.split('pi-futex')[0] + '[    2.0] Oops: x\n')
        rows = {r['name']: r['caught']
                for r in report.report(self.corpus, self.out,
                                       ['crash', 'hang', 'kunit'])}
        self.assertEqual(rows, {'crash': {'bad-input': ['(crash)']},
                                'hang': {'bad-input': ['(hang)']},
                                'kunit': {'kunit:rtmutex': ['(crash)']}})

    def test_cli_totals(self):
        self.boot('det', [suite('futex-pi', 'fail', {'eperm': 'fail'})])
        self.boot('missed', [suite('futex-pi', 'pass')])
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'inject-report.py'),
                            self.corpus, self.out], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('our suites catch 1 of 2 deterministically', p.stdout)
        self.assertIn('in-tree futex selftests catch 0 of 2', p.stdout)
        plot = os.path.join(self.dir, 'r.svg')
        subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'inject-report.py'),
                        '--svg', plot, self.corpus, self.out], check=True,
                       capture_output=True)
        with open(plot, encoding='utf-8') as f:
            bars = re.findall(r'>([^<]+)</text>\n<rect[^>]*/>\n<text[^>]*>(\d+)<',
                              f.read())
        self.assertEqual(dict(bars), {'bugs booted': '2',
                                      'our suites, deterministic': '1',
                                      'our suites, randomized only': '0',
                                      'race-only, not caught': '0',
                                      'in-tree futex selftests': '0'})
        # The negative control: the named test must have failed.
        tool = os.path.join(ROOT, 'tools', 'prove', 'inject-report.py')
        ok = subprocess.run([tool, '--expect', 'futex-pi:eperm', self.corpus,
                             self.out, 'det'], capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stdout)
        for expect, name in (('futex-pi:eperm', 'missed'),
                             ('futex-pi:other', 'det')):
            bad = subprocess.run([tool, '--expect', expect, self.corpus,
                                  self.out, name], capture_output=True,
                                 text=True)
            self.assertEqual(bad.returncode, 1, bad.stdout)
            self.assertIn(f'{expect} did not fail with {name}', bad.stdout)


if __name__ == '__main__':
    unittest.main()
