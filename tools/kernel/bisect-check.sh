#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh SRC OBJ FRAGMENT...
#
# After each patch of the series in turn, compile what that patch can
# break: the directories of every kernel source the series has touched
# so far (`make kernel/locking/ kernel/sched/`), or the whole bzImage when
# a patch touches a header of include/ or arch/; a private header adds
# every directory whose objects include it (from kbuild's .cmd files).
# Objects are compiled, not linked: a link error shows in the one full
# build, the series' own.
# A patch that changes only selftests, tools, the tester's scripts,
# MAINTAINERS, Kconfig help or localversion needs no build of its own;
# the config fragments are merged again after each patch (options added
# by later patches are simply not there yet), so a Kconfig error shows.
# The one full build is OBJ's, the whole series (make kernel), which the
# last prefix is.  Fails naming the first patch after which a directory
# does not compile.
#
# SRC is the quilt-patched tree of the pin of $KERNEL and OBJ its build
# of the whole series.  quilt pops the series in SRC and pushes it back
# one patch at a time; the builds go to a copy of OBJ (bisect/ beside
# SRC).  SRC gets the whole series back also when a build fails or the
# script is interrupted; the files the series touches then have a fresh
# mtime, so OBJ's next build recompiles just those.  Nothing else may
# use SRC meanwhile.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"
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
dirs=()
add_dir() {
	case " ${dirs[*]} " in *" $1 "*) ;; *) dirs+=("$1") ;; esac
}
i=0
for p in $patches; do
	i=$((i + 1))
	start=$(date +%s)
	quilt push -q --fuzz=0 "$p" >/dev/null 2>&1 || die "patch $p does not apply"
	full=0 build=0
	for f in $(patch_files "patches/$p"); do
		case $f in
		tools/* | scripts/rt-tester/* | MAINTAINERS | Documentation/* | localversion*)
			;;
		*/Kconfig* | Kconfig*)
			build=1 ;;
		include/* | arch/*/include/* | arch/*/Makefile)
			build=1 full=1 ;;
		*/*.h)
			# A private header: its directory and every directory
			# with an object that includes it (by file name, in the
			# dependency lists of kbuild's .cmd files).
			build=1
			for d in "${f%/*}/" $(grep -rlF --include='.*.o.cmd' "/${f##*/}" "$obj" |
				sed "s|^$obj/||; s|/[^/]*\$|/|" | sort -u); do
				add_dir "$d"
			done
			;;
		*/*.[cS] | */*/Makefile | */*/Kbuild)
			build=1
			add_dir "${f%/*}/"
			;;
		*)
			build=1 full=1 ;;
		esac
	done
	if [ $build -eq 0 ]; then
		echo "bisect-check: $i/$total $p changes no kernel source, no build"
		continue
	fi
	KCONFIG_NO_VERIFY=1 "$PIFUTEX_ROOT/tools/kernel/make-config.sh" "$src" "$obj" "$@" \
		>/dev/null 2>&1 || die "config failed after $p"
	if [ $full -eq 1 ]; then
		what=bzImage
		"$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" 2>"$top/error.log" ||
			{ sed 's/^/  | /' "$top/error.log" >&2
			  die "the kernel does not build after patch $i/$total: $p"; }
	elif [ ${#dirs[@]} -gt 0 ]; then
		what=${dirs[*]}
		kernel_make "$src" "$obj" "${dirs[@]}" >"$top/build.log" 2>&1 ||
			{ grep -E 'error|Error' "$top/build.log" | sed 's/^/  | /' >&2
			  die "${dirs[*]} do not compile after patch $i/$total: $p (log: $top/build.log)"; }
	else
		what=config
	fi
	echo "bisect-check: $i/$total $p: $what ($(($(date +%s) - start))s)"
done
