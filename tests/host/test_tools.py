# SPDX-License-Identifier: GPL-2.0
"""Host tests of the pipeline scripts, with fakes instead of apt and QEMU."""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from paths import ROOT, import_path, tool

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    os.chmod(path, mode)


def sh(args, env=None, cwd=None):
    return subprocess.run(args, capture_output=True, text=True, env=env,
                          cwd=cwd)


class KconfigVerifyTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def verify(self, dotconfig, fragment):
        write(os.path.join(self.tmp, '.config'), dotconfig)
        write(os.path.join(self.tmp, 'frag.config'), fragment)
        return sh([sys.executable, tool('kconfig-verify.py'),
                   os.path.join(self.tmp, '.config'),
                   os.path.join(self.tmp, 'frag.config')])

    def test_all_survived(self):
        p = self.verify('CONFIG_A=y\nCONFIG_B="x"\n# CONFIG_C is not set\n',
                        '#. why\nCONFIG_A=y\nCONFIG_B="x"\n'
                        '# CONFIG_C is not set\n# CONFIG_D is not set\n')
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_dropped_option_is_named(self):
        p = self.verify('CONFIG_A=y\n# CONFIG_B is not set\n',
                        'CONFIG_A=y\n#. reason\nCONFIG_B=y\nCONFIG_C=y\n')
        self.assertEqual(p.returncode, 1)
        self.assertIn('frag.config:3: CONFIG_B=y requested, but the final '
                      '.config has CONFIG_B is not set', p.stderr)
        self.assertIn('CONFIG_C=y requested', p.stderr)
        self.assertIn('2 requested option(s) did not survive', p.stderr)

    def test_changed_value_is_named(self):
        p = self.verify('CONFIG_A=m\n', 'CONFIG_A=y\n')
        self.assertEqual(p.returncode, 1)
        self.assertIn('has CONFIG_A =m', p.stderr.replace('A=m', 'A =m'))

    def test_later_fragment_overrides(self):
        # As in merge_config.sh: rt.config undoes base.config's PREEMPT.
        write(os.path.join(self.tmp, '.config'),
              '# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_RT=y\n')
        write(os.path.join(self.tmp, 'base.config'), 'CONFIG_PREEMPT=y\n')
        write(os.path.join(self.tmp, 'rt.config'),
              'CONFIG_PREEMPT_RT=y\n# CONFIG_PREEMPT is not set\n')
        args = [sys.executable, tool('kconfig-verify.py'),
                os.path.join(self.tmp, '.config')]
        p = sh(args + [os.path.join(self.tmp, 'base.config'),
                       os.path.join(self.tmp, 'rt.config')])
        self.assertEqual(p.returncode, 0, p.stderr)
        # The other order asks for PREEMPT last: lost.
        p = sh(args + [os.path.join(self.tmp, 'rt.config'),
                       os.path.join(self.tmp, 'base.config')])
        self.assertEqual(p.returncode, 1)
        self.assertIn('base.config:1: CONFIG_PREEMPT=y requested', p.stderr)

    def test_garbage_fragment_is_an_error(self):
        p = self.verify('CONFIG_A=y\n', 'CONFIG_A=y\nthis is not kconfig\n')
        self.assertEqual(p.returncode, 2)
        self.assertIn('frag.config:2: not a Kconfig line', p.stderr)

    def test_real_fragments_parse(self):
        for frag in os.listdir(os.path.join(ROOT, 'kernel-config')):
            if frag.endswith('.config'):
                path = os.path.join(ROOT, 'kernel-config', frag)
                p = sh([sys.executable,
                        tool('kconfig-verify.py'), path, path])
                self.assertEqual(p.returncode, 0, p.stderr)

    def test_every_option_has_a_reason(self):
        for frag in os.listdir(os.path.join(ROOT, 'kernel-config')):
            if not frag.endswith('.config'):
                continue
            with open(os.path.join(ROOT, 'kernel-config', frag)) as f:
                lines = f.read().splitlines()
            for i, line in enumerate(lines):
                if line.startswith('CONFIG_'):
                    self.assertTrue(lines[i - 1].startswith('#. '),
                                    f'{frag}:{i + 1}: {line} has no reason')


class FetchTest(unittest.TestCase):
    """fetch-kernel.sh against a fake apt-get serving a crafted .deb."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, 'bin')
        self.cache = os.path.join(self.tmp, 'cache')
        self.build = os.path.join(self.tmp, 'build')
        # A tiny "kernel tree" tarball.
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w:xz') as tar:
            data = b'# fake kernel Makefile\n'
            info = tarfile.TarInfo('linux-source-6.12/Makefile')
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        self.tar = buf.getvalue()
        self.sha = hashlib.sha256(self.tar).hexdigest()
        debroot = os.path.join(self.tmp, 'debroot')
        os.makedirs(os.path.join(debroot, 'usr/src'))
        os.makedirs(os.path.join(debroot, 'DEBIAN'))
        with open(os.path.join(debroot, 'usr/src/linux-source-6.12.tar.xz'),
                  'wb') as f:
            f.write(self.tar)
        write(os.path.join(debroot, 'DEBIAN/control'),
              'Package: linux-source-6.12\nVersion: 6.12.1-1~test\n'
              'Architecture: all\nMaintainer: t <t@t>\nDescription: t\n')
        self.deb = os.path.join(self.tmp, 'fake.deb')
        subprocess.run(['dpkg-deb', '-b', '--root-owner-group', debroot,
                        self.deb], check=True, capture_output=True)
        # apt-get: "download" copies the .deb unless FAKE_APT_FAIL is set;
        # every call is logged with its -o options.
        write(os.path.join(self.bin, 'apt-get'), f'''#!/bin/sh
echo "$@" >>{self.tmp}/apt-calls
while [ "$1" = -o ]; do shift 2; done
case $1 in
download)
	[ -n "$FAKE_APT_FAIL" ] && {{ echo "E: Version not found" >&2; exit 100; }}
	cp {self.deb} ./linux-source-6.12_6.12.1-1~test_all.deb ;;
update) exit 0 ;;
indextargets) echo http://mirror.invalid/debian-security/ ;;
esac
''', 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fetch(self, sha, **extra):
        pin = os.path.join(self.tmp, 'pin')
        write(pin, 'PIN_LINE=6.12\nPIN_ARCHIVE=debian-security\n'
              'PIN_SUITE=bookworm-security\n'
              'PIN_PACKAGE=linux-source-6.12\nPIN_VERSION=6.12.1-1~test\n'
              f'PIN_SHA256={sha}\nPIN_TREE_MB=1\nPIN_SERIES=series-6.12\n')
        env = dict(os.environ, PATH=self.bin + ':' + os.environ['PATH'],
                   XDG_CACHE_HOME=self.cache, PIN_FILE=pin, **extra)
        env.pop('KERNEL', None)
        return sh([tool('fetch-kernel.sh'),
                   os.path.join(self.build, 'linux-6.12.1-1_test')], env=env)

    def cache_files(self):
        d = os.path.join(self.cache, 'pi-futex')
        return sorted(f for f in os.listdir(d)
                      if os.path.isfile(os.path.join(d, f))) \
            if os.path.isdir(d) else []

    def test_private_apt_configuration(self):
        # Only the pin's suite, from the machine's URI for its archive,
        # in lists and caches of the project's own.
        p = self.fetch(self.sha)
        self.assertEqual(p.returncode, 0, p.stderr)
        apt = os.path.join(self.cache, 'pi-futex', 'apt', 'bookworm-security')
        with open(os.path.join(apt, 'sources.list')) as f:
            self.assertEqual(f.read().split()[-3:], [
                'http://mirror.invalid/debian-security', 'bookworm-security',
                'main'])
        with open(os.path.join(self.tmp, 'apt-calls')) as f:
            download = [c for c in f.read().splitlines() if 'download' in c]
        self.assertEqual(len(download), 1)
        for opt in (f'Dir::Etc::SourceList={apt}/sources.list',
                    'Dir::Etc::SourceParts=/dev/null',
                    f'Dir::State::Lists={apt}/lists',
                    f'Dir::Cache={apt}/cache'):
            self.assertIn('-o ' + opt, download[0])

    def test_repin_moves_within_the_line(self):
        # The suite serves two 6.12 versions and a newer line; repin takes
        # the newest 6.12, caches its verified tarball and rewrites only
        # PIN_VERSION and PIN_SHA256.
        write(os.path.join(self.bin, 'apt-cache'), '''#!/bin/sh
while [ "$1" = -o ]; do shift 2; done
[ "$1" = madison ] || exit 1
echo "$2 | 6.12.1-1~test | http://mirror.invalid suite/main amd64 Packages"
echo "$2 | 6.12.10-1~test | http://mirror.invalid suite/main amd64 Packages"
echo "$2 | 7.0.1-1 | http://mirror.invalid suite/main amd64 Packages"
''', 0o755)
        self.fetch('0' * 64)
        pin = os.path.join(self.tmp, 'pin')
        env = dict(os.environ, PATH=self.bin + ':' + os.environ['PATH'],
                   XDG_CACHE_HOME=self.cache, PIN_FILE=pin)
        env.pop('KERNEL', None)
        p = sh([tool('repin.sh')], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('pin moved: 6.12.1-1~test -> 6.12.10-1~test', p.stderr)
        with open(pin) as f:
            text = f.read()
        self.assertIn('PIN_VERSION=6.12.10-1~test\n', text)
        self.assertIn(f'PIN_SHA256={self.sha}\n', text)
        self.assertIn('PIN_SUITE=bookworm-security\n', text)
        self.assertEqual(self.cache_files(),
                         ['linux-source-6.12-6.12.10-1_test.tar.xz'])

    def test_unknown_kernel_is_named(self):
        env = dict(os.environ, KERNEL='5.99', XDG_CACHE_HOME=self.cache)
        p = sh([tool('fetch-kernel.sh'),
                os.path.join(self.build, 'linux-5.99')], env=env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('unknown KERNEL=5.99; pins: 6.12 7.3', p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)

    def test_good_checksum_caches_and_extracts(self):
        p = self.fetch(self.sha)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.cache_files(),
                         ['linux-source-6.12-6.12.1-1_test.tar.xz'])
        self.assertTrue(os.path.isfile(os.path.join(
            self.build, 'linux-6.12.1-1_test', 'Makefile')))
        # Second run: served from the cache, no download.
        os.unlink(os.path.join(self.tmp, 'apt-calls'))
        p = self.fetch(self.sha)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'apt-calls')))

    def test_wrong_checksum_fails_and_caches_nothing(self):
        p = self.fetch('0' * 64)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('checksum mismatch', p.stderr)
        self.assertIn(self.sha, p.stderr)
        self.assertEqual(self.cache_files(), [])
        self.assertFalse(os.path.exists(
            os.path.join(self.build, 'linux-6.12.1-1_test')))

    def test_unserved_version_says_how_to_repin(self):
        p = self.fetch(self.sha, FAKE_APT_FAIL='1')
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("run 'make repin KERNEL=6.12'", p.stderr)
        self.assertEqual(self.cache_files(), [])
        with open(os.path.join(self.tmp, 'apt-calls')) as f:
            self.assertIn('update', f.read())

    def test_corrupt_cache_is_fetched_again(self):
        self.assertEqual(self.fetch(self.sha).returncode, 0)
        cached = os.path.join(self.cache, 'pi-futex',
                              'linux-source-6.12-6.12.1-1_test.tar.xz')
        with open(cached, 'wb') as f:
            f.write(b'truncated')
        p = self.fetch(self.sha)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(cached, 'rb') as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), self.sha)

    def test_too_little_disk_is_said_before_extracting(self):
        p = self.fetch(self.sha, PIFUTEX_TREE_MB=str(1 << 40))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('MB free; the kernel tree needs 1099511627776 MB',
                      p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        # The verified download stays cached; nothing half-extracted.
        self.assertEqual(self.cache_files(),
                         ['linux-source-6.12-6.12.1-1_test.tar.xz'])
        self.assertEqual(os.listdir(self.build), [])

    def test_malformed_pin_is_rejected(self):
        p = self.fetch('not-a-digest')
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('PIN_SHA256 is not a sha256 hex digest', p.stderr)


class SeriesFixture:
    """A two-file tree, a three-patch series and apply-series.sh."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.src = os.path.join(self.tmp, 'linux')
        self.pdir = os.path.join(self.tmp, 'patches')
        write(os.path.join(self.src, 'Makefile'), 'all:\n')
        write(os.path.join(self.src, 'a.c'), 'int a;\n')
        write(os.path.join(self.src, 'b.c'), 'int b;\n')
        self.patch('1-a.patch', 'a.c', 'int a;\n', 'int a = 1;\n')
        self.patch('2-b.patch', 'b.c', 'int b;\n', 'int b = 2;\n')
        self.patch('3-new.patch', 'new.c', None, 'int c;\n')
        self.series(['1-a.patch', '2-b.patch', '3-new.patch'])

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def patch(self, name, path, old, new):
        if old is None:
            body = (f'--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n'
                    f'+{new}')
        else:
            body = (f'--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}'
                    f'+{new}')
        write(os.path.join(self.pdir, name), body)

    def series(self, names):
        write(os.path.join(self.tmp, 'series'),
              '# comment\n' + ''.join(n + '\n' for n in names))

    def apply(self):
        env = dict(os.environ, PATCHES_DIR=self.pdir,
                   SERIES_FILE=os.path.join(self.tmp, 'series'))
        return sh([tool('apply-series.sh'), self.src], env=env)

    def read(self, path):
        with open(os.path.join(self.src, path)) as f:
            return f.read()


class SeriesTest(SeriesFixture, unittest.TestCase):
    """apply-series.sh on a two-file tree with a three-patch series."""

    def test_apply_then_noop(self):
        p = self.apply()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read('a.c'), 'int a = 1;\n')
        self.assertEqual(self.read('new.c'), 'int c;\n')
        mtime = os.stat(os.path.join(self.src, 'a.c')).st_mtime_ns
        p = self.apply()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('0 pushed now', p.stderr)
        self.assertEqual(os.stat(os.path.join(self.src, 'a.c')).st_mtime_ns,
                         mtime)

    def test_changed_patch_repushes_only_from_there(self):
        self.assertEqual(self.apply().returncode, 0)
        mtime_a = os.stat(os.path.join(self.src, 'a.c')).st_mtime_ns
        self.patch('2-b.patch', 'b.c', 'int b;\n', 'int b = 22;\n')
        p = self.apply()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('popped 2 stale patch(es)', p.stderr)
        self.assertIn('2 pushed now', p.stderr)
        self.assertEqual(self.read('b.c'), 'int b = 22;\n')
        self.assertEqual(os.stat(os.path.join(self.src, 'a.c')).st_mtime_ns,
                         mtime_a)

    def test_dropped_patch_is_reverted(self):
        self.assertEqual(self.apply().returncode, 0)
        self.series(['1-a.patch', '3-new.patch'])
        p = self.apply()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read('b.c'), 'int b;\n')
        self.assertEqual(self.read('new.c'), 'int c;\n')

    def test_patch_that_does_not_apply_is_named(self):
        self.patch('2-b.patch', 'b.c', 'int nothing;\n', 'int b = 2;\n')
        p = self.apply()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('patch 2-b.patch does not apply', p.stderr)
        # The good patch below it stays applied; fixing the bad one and
        # re-running finishes the job.
        self.assertEqual(self.read('a.c'), 'int a = 1;\n')
        self.patch('2-b.patch', 'b.c', 'int b;\n', 'int b = 2;\n')
        p = self.apply()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read('b.c'), 'int b = 2;\n')

    def test_missing_patch_file_is_named(self):
        self.series(['1-a.patch', 'nope.patch'])
        p = self.apply()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('series names nope.patch but patches/nope.patch does '
                      'not exist', p.stderr)


class BisectCheckTest(SeriesFixture, unittest.TestCase):
    """bisect-check.sh on a fake kernel whose build fails while b.c says
    "broken"."""

    MAKEFILE = (
        'tinyconfig olddefconfig:\n'
        '\t@touch $(O)/.config\n'
        'bzImage:\n'
        '\t@! grep -q broken b.c\n'
        '\t@mkdir -p $(O)/include/config\n'
        '\t@cat a.c b.c >$(O)/image\n'
        '\t@echo built >>$(O)/builds\n'
        '\t@echo 1.0 >$(O)/include/config/kernel.release\n'
        '.PHONY: sub/\nsub/:\n'
        '\t@! grep -q broken sub/c.c\n'
        '\t@echo sub >>$(O)/builds\n')

    def setUp(self):
        super().setUp()
        write(os.path.join(self.src, 'Makefile'), self.MAKEFILE)
        merge = os.path.join(self.src, 'scripts', 'kconfig', 'merge_config.sh')
        write(merge, '#!/bin/sh\nexit 0\n')
        os.chmod(merge, 0o755)
        self.obj = os.path.join(self.tmp, 'obj-main')
        write(os.path.join(self.obj, '.config'), '# the main build\n')
        write(os.path.join(self.obj, 'image'), 'main\n')
        self.frag = os.path.join(self.tmp, 'x.config')
        write(self.frag, 'CONFIG_X=y\n')

    def bisect(self):
        env = dict(os.environ, PATCHES_DIR=self.pdir, KERNEL='7.3',
                   SERIES_FILE=os.path.join(self.tmp, 'series'))
        return sh([tool('bisect-check.sh'), self.src,
                   self.obj, self.frag], env=env)

    def applied(self):
        return self.read('.pc/applied-patches').split()

    def test_every_prefix_built_in_a_copy_of_the_build(self):
        self.assertEqual(self.apply().returncode, 0)
        p = self.bisect()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('bisect-check: 3/3 3-new.patch: bzImage', p.stdout)
        self.assertEqual(self.applied(),
                         ['1-a.patch', '2-b.patch', '3-new.patch'])
        self.assertEqual(self.read('b.c'), 'int b = 2;\n')
        with open(os.path.join(self.obj, 'image')) as f:
            self.assertEqual(f.read(), 'main\n')
        with open(os.path.join(self.tmp, 'bisect', 'obj-7.3',
                               'image')) as f:
            self.assertEqual(f.read(), 'int a = 1;\nint b = 2;\n')

    def test_patch_of_selftests_only_is_not_built(self):
        self.patch('4-test.patch', 'tools/testing/selftests/t.c', None,
                   'broken\n')
        self.series(['1-a.patch', '2-b.patch', '3-new.patch',
                     '4-test.patch'])
        self.assertEqual(self.apply().returncode, 0)
        p = self.bisect()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('4/4 4-test.patch changes no kernel source, no build',
                      p.stdout)
        with open(os.path.join(self.tmp, 'bisect', 'obj-7.3',
                               'builds')) as f:
            self.assertEqual(len(f.read().split()), 3)

    def test_failing_prefix_named_and_series_put_back(self):
        # 2-b breaks the build, 3-new's predecessor would not notice.
        self.patch('2-b.patch', 'b.c', 'int b;\n', 'int b = broken;\n')
        self.assertEqual(self.apply().returncode, 0)
        p = self.bisect()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('does not build after patch 2/3: 2-b.patch', p.stderr)
        self.assertEqual(self.applied(),
                         ['1-a.patch', '2-b.patch', '3-new.patch'])
        self.assertEqual(self.read('new.c'), 'int c;\n')

    def test_patch_in_a_directory_compiles_that_directory(self):
        # A source in a directory: that directory, not bzImage; broken,
        # the failure names the patch.
        for broken, want in ((False, 0), (True, 1)):
            self.patch('4-sub.patch', 'sub/c.c', None,
                       'broken\n' if broken else 'int c;\n')
            self.series(['1-a.patch', '2-b.patch', '3-new.patch',
                         '4-sub.patch'])
            self.assertEqual(self.apply().returncode, 0)
            p = self.bisect()
            self.assertEqual(p.returncode, want, p.stdout + p.stderr)
            if broken:
                self.assertIn('sub/ do not compile after patch 4/4: '
                              '4-sub.patch', p.stderr)
            else:
                self.assertIn('4/4 4-sub.patch: sub/ ', p.stdout)
                with open(os.path.join(self.tmp, 'bisect', 'obj-7.3',
                                       'builds')) as f:
                    self.assertEqual(f.read().split(),
                                     ['built', 'built', 'built', 'sub'])

    def test_unbuilt_tree_is_refused(self):
        self.assertEqual(self.apply().returncode, 0)
        shutil.rmtree(self.obj)
        p = self.bisect()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('holds no build (make kernel)', p.stderr)
        self.assertEqual(self.applied(),
                         ['1-a.patch', '2-b.patch', '3-new.patch'])


class TarToGitTest(unittest.TestCase):
    """tar-to-git.py: a tarball becomes one reproducible commit."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def tarball(self, members):
        path = os.path.join(self.tmp, 'src.tar.xz')
        with tarfile.open(path, 'w:xz') as tar:
            for name, kind, data, mode in members:
                info = tarfile.TarInfo(name)
                info.mode = mode
                if kind == 'dir':
                    info.type = tarfile.DIRTYPE
                    tar.addfile(info)
                elif kind == 'sym':
                    info.type = tarfile.SYMTYPE
                    info.linkname = data
                    tar.addfile(info)
                else:
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
        return path

    def tree(self):
        return [('linux-x/', 'dir', None, 0o755),
                ('linux-x/Makefile', 'file', b'all:\n', 0o644),
                ('linux-x/scripts/run.sh', 'file', b'#!/bin/sh\n', 0o755),
                ('linux-x/link', 'sym', 'scripts/run.sh', 0o777)]

    def run_import(self, tarball, name='repo'):
        repo = os.path.join(self.tmp, name)
        subprocess.run(['git', 'init', '-q', '--bare', repo], check=True)
        return repo, sh([tool('tar-to-git.py'), tarball, repo,
                         'Debian x', 'nobody@localhost', '946684800',
                         'Linux x'])

    def test_modes_links_and_contents(self):
        repo, p = self.run_import(self.tarball(self.tree()))
        self.assertEqual(p.returncode, 0, p.stderr)
        commit = p.stdout.strip()
        ls = sh(['git', '--git-dir', repo, 'ls-tree', '-r', commit]).stdout
        entries = {line.split('\t')[1]: line.split()[0]
                   for line in ls.splitlines()}
        self.assertEqual(entries, {'Makefile': '100644', 'link': '120000',
                                   'scripts/run.sh': '100755'})
        show = sh(['git', '--git-dir', repo, 'show', commit + ':link'])
        self.assertEqual(show.stdout, 'scripts/run.sh')
        log = sh(['git', '--git-dir', repo, 'log', '-1',
                  '--format=%an <%ae> %at %s', commit])
        self.assertEqual(log.stdout.strip(),
                         'Debian x <nobody@localhost> 946684800 Linux x')
        # The same tarball gives the same commit, and a git add of the
        # extracted files gives the same tree.
        _, p2 = self.run_import(self.tarball(self.tree()), 'repo2')
        self.assertEqual(p2.stdout.strip(), commit)
        work = os.path.join(self.tmp, 'work')
        with tarfile.open(os.path.join(self.tmp, 'src.tar.xz')) as tar:
            tar.extractall(work)
        add = os.path.join(work, 'linux-x')
        subprocess.run(['git', 'init', '-q'], cwd=add, check=True)
        subprocess.run(['git', 'add', '-A', '.'], cwd=add, check=True)
        tree = sh(['git', 'write-tree'], cwd=add).stdout.strip()
        self.assertEqual(
            sh(['git', '--git-dir', repo, 'rev-parse', commit + '^{tree}'])
            .stdout.strip(), tree)

    def test_two_top_directories_are_refused(self):
        members = self.tree() + [('other/x', 'file', b'x', 0o644)]
        _, p = self.run_import(self.tarball(members))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('does not hold a single top-level directory', p.stderr)

    def test_corrupt_tarball_is_named(self):
        bad = os.path.join(self.tmp, 'bad.tar.xz')
        with open(bad, 'wb') as f:
            f.write(b'\xfd7zXZ\x00 truncated')
        repo, p = self.run_import(bad)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('cannot read ' + bad, p.stderr)
        self.assertNotEqual(sh(['git', '--git-dir', repo, 'rev-parse',
                                '--verify', '-q', 'HEAD']).returncode, 0)


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


class ProveReportTest(unittest.TestCase):
    """tools/prove/prove-report.py on made-up verdicts."""

    EXPECT = ('# comment\n'
              '0001-fix-a.patch fails boost:t_a\n'
              '0001-fix-a.patch may random\n'
              '0003-fix-b.patch fails boost:t_b\n')

    @staticmethod
    def verdict(boost, random='pass', other='pass'):
        return {'suites': [
            {'suite': 'boost', 'result': 'fail' if 'fail' in boost.values()
             else 'pass', 'tests': boost},
            {'suite': 'random', 'result': random,
             'tests': {'scenarios_0_to_24': random}},
            {'suite': 'other', 'result': other}],
            'problems': []}

    def run_report(self, full, without):
        import_path('verdict.py')
        import importlib
        report = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write(self.EXPECT)
        try:
            expect = report.load_expect(f.name)
        finally:
            os.unlink(f.name)
        return report.judge(expect, full, without)

    def test_flavour_rows_and_fix_prefix(self):
        report = os.path.join(ROOT, 'tools', 'prove', 'prove-report.py')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write(self.EXPECT + '0007-fix-rt.patch fails boost:t_c rt\n'
                    '0007-fix-rt.patch may random rt kasan\n')
        self.addCleanup(os.unlink, f.name)

        def listed(*opts):
            p = subprocess.run([report, '--list', *opts, f.name],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stdout.split()
        self.assertEqual(listed('--flavour', 'debug'),
                         ['0001-fix-a.patch', '0003-fix-b.patch'])
        self.assertEqual(listed('--flavour', 'rt'),
                         ['0001-fix-a.patch', '0003-fix-b.patch',
                          '0007-fix-rt.patch'])
        self.assertEqual(listed('--flavour', 'rt', '--fix', '0007'),
                         ['0007-fix-rt.patch'])
        self.assertEqual(listed('--flavour', 'debug', '--fix', '0007'), [])
        # Judged on rt, the rt-only fix needs its own boot.
        import_path('verdict.py')
        import importlib
        mod = importlib.import_module('prove-report')
        full = self.verdict({'t_a': 'pass', 't_b': 'pass', 't_c': 'pass'})
        _, problems = mod.judge(mod.load_expect(f.name, 'rt', '0007'),
                                full, {})
        self.assertEqual(problems, ['0007-fix-rt.patch: no boot without it'])
        rows, problems = mod.judge(
            mod.load_expect(f.name, 'rt', '0007'), full,
            {'0007-fix-rt.patch': self.verdict(
                {'t_a': 'pass', 't_b': 'pass', 't_c': 'fail'},
                random='fail')})
        self.assertEqual(problems, [])
        self.assertIn(('0007-fix-rt.patch', 'boost:t_c', 'fail', 'pass',
                       True), rows)

    def test_pin_rows_and_expected_warning(self):
        import_path('verdict.py')
        import importlib
        mod = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write(self.EXPECT + '0016-fix-dl.patch fails boost:t_c 7.3\n'
                    '0016-fix-dl.patch warns add_running_bw 7.3\n')
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(mod.load_expect(f.name, 'debug', None, '6.12')[0],
                         ['0001-fix-a.patch', '0003-fix-b.patch'])
        expect = mod.load_expect(f.name, 'debug', '0016', '7.3')
        self.assertEqual(expect[0], ['0016-fix-dl.patch'])
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'prove-report.py'),
                            '--list', '--warns', '--pin', '7.3', f.name],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ['0016-fix-dl.patch'])
        full = self.verdict({'t_a': 'pass', 't_b': 'pass', 't_c': 'pass'})
        without = self.verdict({'t_a': 'pass', 't_b': 'pass', 't_c': 'fail'})
        warn = ('log:40: kernel crash signature: WARNING: '
                'kernel/sched/deadline.c:221 at add_running_bw+0x4c/0x60')
        # The WARNING it names is required, and taken.
        _, problems = mod.judge(expect, full, {'0016-fix-dl.patch': without})
        self.assertEqual(problems, ['without 0016-fix-dl.patch: no WARNING '
                                    'naming add_running_bw'])
        without['problems'] = [warn]
        rows, problems = mod.judge(expect, full,
                                   {'0016-fix-dl.patch': without})
        self.assertEqual(problems, [])
        self.assertIn(('0016-fix-dl.patch', 'WARNING add_running_bw',
                       'warned', '-', True), rows)
        # Any other crash signature is not.
        other = 'log:41: kernel crash signature: BUG: add_running_bw'
        without['problems'] = [warn, other]
        _, problems = mod.judge(expect, full, {'0016-fix-dl.patch': without})
        self.assertEqual(problems, [f'without 0016-fix-dl.patch: {other}'])

    def test_may_warn_takes_a_warning_without_requiring_it(self):
        import_path('verdict.py')
        import importlib
        mod = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write('0007-fix-rt.patch fails boost:t_c rt\n'
                    '0007-fix-rt.patch may-warn rt_mutex_lock_nested rt\n')
        self.addCleanup(os.unlink, f.name)
        expect = mod.load_expect(f.name, 'rt')
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'prove-report.py'),
                            '--list', '--warns', '--flavour', 'rt', f.name],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ['0007-fix-rt.patch'])
        full = self.verdict({'t_c': 'pass'})
        without = self.verdict({'t_c': 'fail'})
        _, problems = mod.judge(expect, full, {'0007-fix-rt.patch': without})
        self.assertEqual(problems, [])
        warn = ('log:9: kernel crash signature: WARNING: kernel/locking/'
                'rtmutex_api.c:77 at rt_mutex_lock_nested+0x81/0x88')
        other = 'log:9: kernel crash signature: WARNING: at foo+0x1/0x2'
        without['problems'] = [warn, other]
        _, problems = mod.judge(expect, full, {'0007-fix-rt.patch': without})
        self.assertEqual(problems, [f'without 0007-fix-rt.patch: {other}'])

    def test_crash_row_needs_the_crash_in_its_function(self):
        import_path('verdict.py')
        import importlib
        mod = importlib.import_module('prove-report')
        with tempfile.NamedTemporaryFile('w', suffix='.txt',
                                         delete=False) as f:
            f.write('0007-fix-rt.patch fails boost:t_c rt\n'
                    '0007-fix-rt.patch crashes rtmutex.ww_case '
                    '__waiter_less rt\n')
        self.addCleanup(os.unlink, f.name)
        p = subprocess.run([os.path.join(ROOT, 'tools', 'prove', 'prove-report.py'),
                            '--list', '--crashes', '--flavour', 'rt',
                            f.name], capture_output=True, text=True)
        self.assertEqual(p.stdout.split(), ['0007-fix-rt.patch',
                                            'rtmutex.ww_case',
                                            '__waiter_less'])
        expect = mod.load_expect(f.name, 'rt')
        full = self.verdict({'t_c': 'pass'})
        without = {'0007-fix-rt.patch': self.verdict({'t_c': 'fail'})}
        oops = {'suites': [], 'problems': [
            'log:2: kernel crash signature: Oops: general protection '
            'fault, probably for non-canonical address 0x1111111111111111']}
        log = ('KTAP version 1\nOops: general protection fault\n'
               'RIP: 0010:__waiter_less+0x1c/0x40\n')
        key = ('0007-fix-rt.patch', 'rtmutex.ww_case')
        rows, problems = mod.judge(expect, full, without, {key: (oops, log)})
        self.assertEqual(problems, [])
        self.assertIn(('0007-fix-rt.patch',
                       'KUnit rtmutex.ww_case: crash in __waiter_less',
                       'crashed', '-', True), rows)
        # No crash, a crash elsewhere, or no such boot: each is wrong.
        for crash in ({key: ({'suites': [], 'problems': []}, log)},
                      {key: (oops, log.replace('__waiter_less', 'foo'))},
                      {}):
            _, problems = mod.judge(expect, full, without, crash)
            self.assertEqual(problems, [
                'without 0007-fix-rt.patch: no crash in __waiter_less with '
                'kunit.filter_glob=rtmutex.ww_case'])

    def test_each_fix_proven(self):
        full = self.verdict({'t_a': 'pass', 't_b': 'pass'})
        without = {
            '0001-fix-a.patch': self.verdict({'t_a': 'fail', 't_b': 'pass'},
                                             random='fail'),
            '0003-fix-b.patch': self.verdict({'t_a': 'pass', 't_b': 'fail'}),
        }
        # A suite that may fail stops at its first failure, short of
        # its plan.
        without['0001-fix-a.patch']['problems'] = [
            'log:9: suite random planned 8 tests but reported 2']
        rows, problems = self.run_report(full, without)
        self.assertEqual(problems, [])
        without['0003-fix-b.patch']['problems'] = [
            'log:9: suite random planned 8 tests but reported 2']
        _, problems = self.run_report(full, without)
        self.assertEqual(problems, ['without 0003-fix-b.patch: log:9: suite '
                                    'random planned 8 tests but reported 2'])
        self.assertIn(('0001-fix-a.patch', 'boost:t_a', 'fail', 'pass',
                       True), rows)

    def test_test_that_passes_without_its_fix_is_wrong(self):
        full = self.verdict({'t_a': 'pass', 't_b': 'pass'})
        without = {
            '0001-fix-a.patch': self.verdict({'t_a': 'pass', 't_b': 'pass'}),
            '0003-fix-b.patch': self.verdict({'t_a': 'pass', 't_b': 'fail'}),
        }
        _, problems = self.run_report(full, without)
        self.assertEqual(len(problems), 1)
        self.assertIn('boost:t_a: pass without 0001-fix-a.patch', problems[0])

    def test_other_failure_and_missing_boot_are_wrong(self):
        full = self.verdict({'t_a': 'pass', 't_b': 'pass'})
        without = {
            # "random" may fail only without 0001, "other" never.
            '0003-fix-b.patch': self.verdict({'t_a': 'pass', 't_b': 'fail'},
                                             random='fail', other='fail'),
        }
        _, problems = self.run_report(full, without)
        text = '\n'.join(problems)
        self.assertIn('0001-fix-a.patch: no boot without it', text)
        self.assertIn('without 0003-fix-b.patch: random:scenarios_0_to_24 '
                      'failed but is not named for it', text)
        self.assertIn('without 0003-fix-b.patch: other:other failed', text)

    def test_fix_test_failing_with_the_series_is_wrong(self):
        full = self.verdict({'t_a': 'fail', 't_b': 'pass'})
        without = {
            '0001-fix-a.patch': self.verdict({'t_a': 'fail', 't_b': 'pass'}),
            '0003-fix-b.patch': self.verdict({'t_a': 'fail', 't_b': 'fail'}),
        }
        _, problems = self.run_report(full, without)
        self.assertIn('full series: boost:t_a failed', problems)


class MailIdentityTest(unittest.TestCase):
    """tools/lib.sh: dco_identity and series_mails."""

    def sh(self, script, **env):
        home = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, home)
        gitconfig = os.path.join(home, 'gitconfig')
        open(gitconfig, 'w').close()
        e = dict(os.environ, HOME=home, GIT_CONFIG_GLOBAL=gitconfig,
                 GIT_CONFIG_NOSYSTEM='1')
        e.pop('PIFUTEX_DCO', None)
        e.update(env)
        lib = os.path.join(ROOT, 'tools', 'lib.sh')
        return subprocess.run(['bash', '-c', f'. {lib}; {script}'],
                              env=e, capture_output=True, text=True,
                              cwd=home)

    def test_dco_from_variable_git_or_project(self):
        p = self.sh('dco_identity', PIFUTEX_DCO='Ada L <ada@example.com>')
        self.assertEqual(p.stdout, 'Ada L <ada@example.com>\n')
        p = self.sh('dco_identity', PIFUTEX_DCO='just a name')
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('is not "Name <address>"', p.stderr)
        p = self.sh('git config --global user.name "Bo B"; '
                    'git config --global user.email bo@example.com; '
                    'dco_identity')
        self.assertEqual(p.stdout, 'Bo B <bo@example.com>\n')
        p = self.sh('dco_identity')
        self.assertEqual(p.stdout,
                         'Pi Futex Developers <pi-futex@example.org>\n')

    def test_export_refuses_the_placeholder_identity(self):
        src = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, src)
        write(os.path.join(src, 'Makefile'),
              'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\n')
        export = tool('export-series.sh')
        for dco in ('', 'Pi Futex Developers <pi-futex@example.org>'):
            p = self.sh(f'{export} export', PIFUTEX_SRC=src, PIFUTEX_DCO=dco)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn('export-series.sh: error: the mails would carry '
                          "the patch files' placeholder identity, Pi Futex "
                          "Developers <pi-futex@example.org>; set DCO='Name "
                          "<address>' (make export DCO=...) or git's "
                          'user.name and user.email', p.stderr)

    def test_series_mails_groups_and_rejects_unmarked(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        good = os.path.join(d, 'good')
        with open(good, 'w') as f:
            f.write('# head\n# mail: fixes\na.patch\nb.patch\n'
                    '# mail: tester\nc.patch\n# mail: -\nz.patch\n')
        p = self.sh('series_mails', SERIES_FILE=good)
        self.assertEqual(p.stdout, 'fixes a.patch\nfixes b.patch\n'
                                   'tester c.patch\n')
        bad = os.path.join(d, 'bad')
        with open(bad, 'w') as f:
            f.write('a.patch\n# mail: fixes\nb.patch\n')
        p = self.sh('series_mails', SERIES_FILE=bad)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('a.patch comes before any "# mail:" line', p.stderr)
