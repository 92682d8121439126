#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh SRC OBJ FRAGMENT...
#
# Build the kernel after each patch of the series in turn, incrementally,
# so that every patch builds on its own (a patch that changes only
# selftests, the tester's scripts or MAINTAINERS needs no build of its
# own).  The config fragments are merged
# again after each patch (options added by later patches are simply not
# there yet).  Fails naming the first patch after which bzImage does not
# build.
#
# SRC is the quilt-patched tree of the pin of $KERNEL and OBJ its build
# of the whole series.  quilt pops the series in SRC and pushes it back
# one patch at a time; the builds go to a copy of OBJ (bisect/ beside
# SRC), so the first one recompiles only what the series touches, not the
# whole kernel.  SRC gets the whole series back also when a build fails
# or the script is interrupted; the files the series touches then have
# a fresh mtime, so OBJ's next build recompiles just those.  Nothing else
# may use SRC meanwhile.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
[ $# -gt 2 ] || die "usage: bisect-check.sh SRC OBJ FRAGMENT..."
load_pin
src=$1
main_obj=$2
shift 2
top=$(dirname "$src")/bisect
obj=$top/obj-$PIN_LINE
[ -f "$src/.pi-futex-applied" ] || die "$src is not patched (make patch)"
[ -f "$main_obj/.config" ] || die "$main_obj holds no build (make kernel)"
mkdir -p "$top"
rm -rf "$obj"
cp -a "$main_obj" "$obj"
# A tree that once held the hard-linked copy of older versions.
rm -rf "${top:?}/$(basename "$src")"

cd "$src"
export QUILT_PATCHES=patches QUILT_SERIES=series QUILT_PC=.pc
[ "$(readlink series)" = "$SERIES_FILE" ] ||
	die "$src/series is not $SERIES_FILE (make patch)"

# Whatever happens, SRC ends with the whole series applied, the state
# apply-series.sh recorded in .pi-futex-applied (quilt push writes each
# file anew, so OBJ sees it changed).
restore() {
	[ -n "$(quilt unapplied 2>/dev/null)" ] || return 0
	quilt push -a -q --fuzz=0 >/dev/null 2>&1 ||
		echo "bisect-check.sh: could not push the series back in $src (make patch)" >&2
}
trap restore EXIT

# Back to the pinned tree; restored files get a fresh mtime.
files=$(pc_files .)
quilt pop -a -f -q >/dev/null || die "quilt pop -a failed in $src"
for f in $files; do [ -e "$f" ] && touch "$f"; done

patches=$(series_patches)
total=$(printf '%s\n' "$patches" | wc -l)
i=0
for p in $patches; do
	i=$((i + 1))
	start=$(date +%s)
	quilt push -q --fuzz=0 "$p" >/dev/null 2>&1 || die "patch $p does not apply"
	# Selftests, the tester's scripts and MAINTAINERS are no input of
	# bzImage: the build after such a patch would be the one before it.
	if ! patch_files "patches/$p" |
		grep -qv -e '^tools/testing/' -e '^scripts/rt-tester/' -e '^MAINTAINERS$'; then
		echo "bisect-check: $i/$total $p changes no kernel source, no build"
		continue
	fi
	KCONFIG_NO_VERIFY=1 "$PIFUTEX_ROOT/tools/kernel/make-config.sh" "$src" "$obj" "$@" \
		>/dev/null 2>&1 || die "config failed after $p"
	if ! "$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" 2>"$top/error.log"; then
		sed 's/^/  | /' "$top/error.log" >&2
		die "the kernel does not build after patch $i/$total: $p"
	fi
	echo "bisect-check: $i/$total builds after $p ($(($(date +%s) - start))s)"
done
