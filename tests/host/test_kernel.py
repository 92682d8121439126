# SPDX-License-Identifier: GPL-2.0
"""The kernel tools (tools/kernel/): kconfig-verify, fetch, repin,
apply-series, bisect-check, tar-to-git."""
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

from helpers import ROOT, sh, tool, write


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

    def test_option_unknown_to_a_tree_is_reported(self):
        # A developer's tree without the series: its Kconfig defines B,
        # not C.  C is reported, not a failure; B dropped still fails.
        tree = os.path.join(self.tmp, 'tree')
        write(os.path.join(tree, 'lib', 'Kconfig.debug'),
              'config A\n\tbool\nmenuconfig B\n\tbool "b"\n')
        write(os.path.join(self.tmp, '.config'), 'CONFIG_A=y\n')
        write(os.path.join(self.tmp, 'frag.config'), 'CONFIG_A=y\nCONFIG_C=y\n')
        p = sh([sys.executable, tool('kconfig-verify.py'), '--unknown-in',
                tree, os.path.join(self.tmp, '.config'),
                os.path.join(self.tmp, 'frag.config')])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f'frag.config:2: CONFIG_C=y requested, unknown to '
                      f'{tree} (no Kconfig defines it)', p.stderr)
        write(os.path.join(self.tmp, 'frag.config'), 'CONFIG_B=y\nCONFIG_C=y\n')
        p = sh([sys.executable, tool('kconfig-verify.py'), '--unknown-in',
                tree, os.path.join(self.tmp, '.config'),
                os.path.join(self.tmp, 'frag.config')])
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn('1 requested option(s) did not survive', p.stderr)

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


class BuildKernelTest(unittest.TestCase):
    """build-kernel.sh: a build with nothing to do costs no kbuild pass."""

    MAKEFILE = ('bzImage:\n'
                '\t@mkdir -p $(O)/arch/x86/boot $(O)/include/config\n'
                '\t@cat a.c >$(O)/arch/x86/boot/bzImage\n'
                '\t@echo 1.0 >$(O)/include/config/kernel.release\n'
                '\t@echo built >>$(O)/builds\n')

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.src = os.path.join(self.tmp, 'src')
        self.obj = os.path.join(self.tmp, 'obj')
        write(os.path.join(self.src, 'Makefile'), self.MAKEFILE)
        write(os.path.join(self.src, 'a.c'), 'int a;\n')
        write(os.path.join(self.obj, '.config'), 'CONFIG_A=y\n')
        os.utime(os.path.join(self.obj, '.config'), (1e9, 1e9))

    def build(self):
        p = sh([tool('build-kernel.sh'), self.src, self.obj])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.obj, 'builds')) as f:
            return p.stderr, len(f.read().split())

    def test_nothing_to_do_and_then_something(self):
        self.assertEqual(self.build()[1], 1)
        err, n = self.build()
        self.assertEqual(n, 1)
        self.assertIn('up to date: 1.0 in', err)
        # A source changed (any file of the tree), or a new .config:
        # kbuild runs.
        write(os.path.join(self.src, 'a.c'), 'int a = 1;\n')
        self.assertEqual(self.build()[1], 2)
        write(os.path.join(self.obj, '.config'), 'CONFIG_A=n\n')
        self.assertEqual(self.build()[1], 3)
        # Another compiler than the last build's: kbuild runs.
        with open(os.path.join(self.obj, '.pi-futex-built'), 'w') as f:
            f.write('CC=gcc (an older gcc)\n')
        self.assertEqual(self.build()[1], 4)
        self.assertEqual(self.build()[1], 4)


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


if __name__ == '__main__':
    unittest.main()
