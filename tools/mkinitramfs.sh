#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OPTIONS
#   --src DIR        patched kernel tree (for usr/gen_init_cpio.c)
#   --release FILE   include/config/kernel.release of the built kernel
#   --bindir DIR     static guest test binaries (copied to
#                    /usr/share/pi-futex/bin)
#   --runlist FILE   suites /init runs (default rootfs/runlist)
#   --extra-tst DIR  user .tst files, copied to /usr/share/pi-futex/tst-extra
#   --selftests DIR  static kselftest binaries (to /usr/share/pi-futex/selftests)
#   --host-bin FILE  a host program for /usr/bin, with its shared libraries
#                    (repeatable; e.g. rt-tests' pi_stress)
#   --add FILE       one more suite script for /usr/share/pi-futex/tests
#                    (repeatable; used by the host's negative control)
#   --out FILE       the gzip-compressed cpio to write
#
# Builds the initramfs with the kernel's own gen_init_cpio from
# rootfs/initramfs.spec plus generated lines; no root, no loop mounts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src= release= bindir= out= extra=
adds=() hostbins=() selftests=
runlist=$PIFUTEX_ROOT/rootfs/runlist
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2 ;;
	--release) release=$2 ;;
	--bindir) bindir=$2 ;;
	--runlist) runlist=$2 ;;
	--extra-tst) extra=$2 ;;
	--out) out=$2 ;;
	--selftests) selftests=$2 ;;
	--host-bin) hostbins+=("$2") ;;
	--add) adds+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")") ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
[ -n "$src" ] && [ -n "$release" ] && [ -n "$out" ] ||
	die "usage: mkinitramfs.sh --src DIR --release FILE --out FILE [--bindir DIR] [--runlist FILE] [--extra-tst DIR]"
[ -r "$release" ] || die "kernel release file $release not found (kernel not built?)"
[ -r "$runlist" ] || die "runlist $runlist not found"

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
cp "$runlist" "$work/runlist"
if [ -n "$extra" ]; then
	echo "rttest-extra 600 /usr/share/pi-futex/tests/rttest-extra.sh" >>"$work/runlist"
fi
runlist=$work/runlist

spec=$work/spec
sed -e "s|@ROOT@|$PIFUTEX_ROOT|g" -e "s|@BUSYBOX@|$busybox|g" \
    -e "s|@RELEASE@|$release|g" -e "s|@RUNLIST@|$runlist|g" \
    "$PIFUTEX_ROOT/rootfs/initramfs.spec" >"$spec"

# python3 with the stdlib modules the guest-side tools import.
modules=$(grep -v '^#' "$PIFUTEX_ROOT/rootfs/python-modules" | tr '\n' ' ')
# shellcheck disable=SC2086
"$PIFUTEX_ROOT/tools/python-spec.py" "$python" $modules |
	grep -v -x -e 'dir /usr 0755 0 0' -e 'dir /usr/bin 0755 0 0' >>"$spec" ||
	die "cannot collect python3 for the guest"

# Guest suites (scripts) and test binaries.
for f in "$PIFUTEX_ROOT"/tests/guest/*.sh "$PIFUTEX_ROOT"/tests/guest/*.py ${adds[@]+"${adds[@]}"}; do
	[ -f "$f" ] || continue
	[ "$(basename "$f")" = ktap.sh ] && continue
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
		[ -f "$f" ] && [ -x "$f" ] || continue
		echo "file /usr/share/pi-futex/selftests/$(basename "$f") $(cd "$(dirname "$f")" && pwd)/$(basename "$f") 0755 0 0" >>"$spec"
	done
fi

# Host programs (dynamically linked) and the libraries they need that
# are not in the image yet.
add_path_dirs() {
	local d=$1
	while [ "$d" != / ] && [ -n "$d" ]; do
		grep -qx "dir $d 0755 0 0" "$spec" || echo "dir $d 0755 0 0" >>"$spec"
		d=$(dirname "$d")
	done
}
for b in ${hostbins[@]+"${hostbins[@]}"}; do
	path=$(command -v "$b") || die "host program $b not found (make deps)"
	echo "file /usr/bin/$(basename "$path") $(readlink -f "$path") 0755 0 0" >>"$spec"
	for lib in $(ldd "$path" 2>/dev/null | grep -o '/[^ ]*'); do
		grep -q "^file $lib " "$spec" && continue
		add_path_dirs "$(dirname "$lib")"
		echo "file $lib $(readlink -f "$lib") 0755 0 0" >>"$spec"
	done
done

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
