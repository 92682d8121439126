#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh --src DIR --release FILE --out FILE [OPTIONS]
#
# Build the guest's initramfs with the kernel's own gen_init_cpio from
# rootfs/initramfs.spec plus generated lines; no root, no loop mounts.
#
#   --src DIR        patched kernel tree (for usr/gen_init_cpio.c)
#   --release FILE   include/config/kernel.release of the built kernel
#   --bindir DIR     static guest test binaries (copied to
#                    /usr/share/pi-futex/bin)
#   --runlist FILE   suites /init runs (default rootfs/runlist); repeatable,
#                    the files are run one after the other
#   --extra-tst DIR  user .tst files, copied to /usr/share/pi-futex/tst-extra
#   --selftests DIR  static kselftest binaries (to /usr/share/pi-futex/selftests)
#   --host-bin PROG  a host program for /usr/bin, with its shared libraries
#                    (repeatable; e.g. rt-tests' pi_stress)
#   --out FILE       the gzip-compressed cpio to write
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src='' release='' bindir='' out='' extra=''
hostbins=() selftests=''
runlists=()
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2 ;;
	--release) release=$2 ;;
	--bindir) bindir=$2 ;;
	--runlist) runlists+=("$2") ;;
	--extra-tst) extra=$2 ;;
	--out) out=$2 ;;
	--selftests) selftests=$2 ;;
	--host-bin) hostbins+=("$2") ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
if [ -z "$src" ] || [ -z "$release" ] || [ -z "$out" ]; then
	die "usage: mkinitramfs.sh --src DIR --release FILE --out FILE [--bindir DIR] [--runlist FILE]... [--extra-tst DIR]"
fi
[ -r "$release" ] || die "kernel release file $release not found (kernel not built?)"
[ ${#runlists[@]} -gt 0 ] || runlists=("$PIFUTEX_ROOT/rootfs/runlist")
for f in "${runlists[@]}"; do
	[ -r "$f" ] || die "runlist $f not found"
done

busybox=${BUSYBOX:-/bin/busybox}
file "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	[ "$(ldd "$busybox" 2>&1 | grep -c 'not a dynamic')" -gt 0 ] ||
	die "$busybox is not a static BusyBox (install busybox-static)"
python=${GUEST_PYTHON:-/usr/bin/python3.11}
[ -x "$python" ] || die "$python not found (install python3.11 from Debian)"

work=$(mktemp -d "${TMPDIR:-/tmp}/pi-futex-initramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$work/gen_init_cpio
gcc -O2 -o "$gen" "$src/usr/gen_init_cpio.c" ||
	die "cannot build $src/usr/gen_init_cpio.c"

# The runlist the guest sees: the given one, plus the user's .tst files.
cat "${runlists[@]}" >"$work/runlist"
runlist=$work/runlist

spec=$work/spec
sed -e "s|@ROOT@|$PIFUTEX_ROOT|g" -e "s|@BUSYBOX@|$busybox|g" \
    -e "s|@SRC@|$src|g" -e "s|@RELEASE@|$release|g" -e "s|@RUNLIST@|$runlist|g" \
    "$PIFUTEX_ROOT/rootfs/initramfs.spec" >"$spec"

# python3 with the stdlib modules the guest-side tools import, and the
# host programs, each with its shared libraries.
modules=()
while read -r m; do
	case $m in ''|'#'*) ;; *) modules+=("$m") ;; esac
done <"$PIFUTEX_ROOT/rootfs/python-modules"
hostargs=()
for b in ${hostbins[@]+"${hostbins[@]}"}; do
	hostargs+=(--host-bin "$b")
done
"$PIFUTEX_ROOT/tools/guest/initramfs-files.py" ${hostargs[@]+"${hostargs[@]}"} \
	"$python" "${modules[@]}" >"$work/dynamic" ||
	die "cannot collect python3 and the host programs for the guest"
# Only what the static spec does not have yet.
cp "$spec" "$work/static"
grep -v -x -F -f "$work/static" "$work/dynamic" >>"$spec" || true

# Guest suites and helpers (scripts) and test binaries.
for f in "$PIFUTEX_ROOT"/rootfs/tests/*.sh "$PIFUTEX_ROOT"/rootfs/tests/*.py; do
	[ -f "$f" ] || continue
	echo "file /usr/share/pi-futex/tests/$(basename "$f") $f 0755 0 0" >>"$spec"
done
if [ -n "$bindir" ] && [ -d "$bindir" ]; then
	for f in "$bindir"/*; do
		[ -f "$f" ] || continue
		echo "file /usr/share/pi-futex/bin/$(basename "$f") $(cd "$(dirname "$f")" && pwd)/$(basename "$f") 0755 0 0" >>"$spec"
	done
fi

# Kselftests built from the patched tree.
if [ -n "$selftests" ]; then
	[ -d "$selftests" ] || die "selftests directory $selftests not found"
	echo "dir /usr/share/pi-futex/selftests 0755 0 0" >>"$spec"
	for f in "$selftests"/*; do
		if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
		echo "file /usr/share/pi-futex/selftests/$(basename "$f") $(cd "$(dirname "$f")" && pwd)/$(basename "$f") 0755 0 0" >>"$spec"
	done
fi

# The rt-mutex tester's runner and scenarios, from the patched tree.
if [ -d "$src/scripts/rt-tester" ]; then
	echo "dir /usr/share/pi-futex/rt-tester 0755 0 0" >>"$spec"
	for f in "$src"/scripts/rt-tester/*; do
		[ -f "$f" ] || continue
		mode=0644
		[ -x "$f" ] && mode=0755
		echo "file /usr/share/pi-futex/rt-tester/$(basename "$f") $f $mode 0 0" >>"$spec"
	done
fi

# The user's own .tst files (make run RTTEST_EXTRA=DIR).
if [ -n "$extra" ]; then
	[ -d "$extra" ] || die "RTTEST_EXTRA=$extra is not a directory"
	extra=$(cd "$extra" && pwd)
	n=0
	echo "dir /usr/share/pi-futex/tst-extra 0755 0 0" >>"$spec"
	for f in "$extra"/*.tst; do
		[ -f "$f" ] || continue
		echo "file /usr/share/pi-futex/tst-extra/$(basename "$f") $f 0644 0 0" >>"$spec"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || die "RTTEST_EXTRA=$extra holds no .tst file"
	note "added $n .tst file(s) from $extra"
fi

cp "$spec" "$out.spec"
"$gen" "$spec" >"$work/cpio" || die "gen_init_cpio failed (spec kept in $out.spec)"
gzip -9n <"$work/cpio" >"$work/cpio.gz"
mv "$work/cpio.gz" "$out"
