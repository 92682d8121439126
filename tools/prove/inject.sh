#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# inject.sh SRC OBJ OUTDIR FLAVOUR "BUG..." RUN-QEMU-OPTIONS...
#
# Re-introduce upstream's PI bugs, one at a time, and see which suites
# catch them.  Each entry of tests/inject/ (NAME.patch) is a small patch
# against the fully patched mainline tree SRC that undoes one upstream
# fix, or a "Revert:" line naming one of this series' fixes.  For each
# entry whose "Flavour:" is FLAVOUR (or each entry BUG names, whatever
# its flavour): apply it to SRC, rebuild OBJ incrementally, boot the
# whole suite with RUN-QEMU-OPTIONS (the per-boot limit among them),
# and take it out again, also when this script is interrupted.  The
# boot's log and verdict go to OUTDIR/NAME.{log,json}, and
# tools/prove/inject-report.py judges them all.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src=${1:?usage: inject.sh SRC OBJ OUTDIR FLAVOUR "BUG..." RUN-QEMU-OPTIONS...}
obj=${2:?}
out=${3:?}
flavour=${4:?}
bugs=${5?}
shift 5
load_pin
corpus=$PIFUTEX_ROOT/tests/inject
mkdir -p "$out"

header() { # FIELD ENTRY: the value of a header field, "" if absent
	sed -n "/^---\$/q; s/^$1: //p" "$2"
}

entries=()
if [ -n "$bugs" ]; then
	for b in $bugs; do
		[ -f "$corpus/$b.patch" ] || die "no such entry: $corpus/$b.patch"
		entries+=("$corpus/$b.patch")
	done
else
	for e in "$corpus"/*.patch; do
		[ "$(header Flavour "$e")" = "$flavour" ] && entries+=("$e")
	done
fi
[ ${#entries[@]} -gt 0 ] || die "no entry of $corpus for FLAVOUR=$flavour"

# The entry applied now, for the trap: its patch file or its fix.
applied=''
take_out() {
	if [ -n "$applied" ] && [ -f "$applied" ]; then
		patch -s -p1 -R -d "$src" <"$applied" ||
			die "could not take $applied out of $src (make patch restores the series)"
	fi
	applied=''
	restore_fix
}
trap 'take_out' EXIT
trap 'exit 130' INT TERM

body() { # ENTRY: the patch after the header's "---" line
	sed '1,/^---$/d' "$1"
}

for e in "${entries[@]}"; do
	name=$(basename "$e" .patch)
	fix=$(header Revert "$e")
	if [ -n "$fix" ]; then
		check_export_work "$(export_work)"
		revert_fix "$(export_work)" "$src" "$fix"
		note "$name: without $fix"
	else
		body "$e" >"$out/$name.diff"
		patch -s -p1 --dry-run -d "$src" <"$out/$name.diff" >/dev/null ||
			die "$name does not apply to $src (regenerate it against the series)"
		patch -s -p1 -d "$src" <"$out/$name.diff"
		applied=$out/$name.diff
		note "$name: $(header Upstream "$e")"
	fi
	if ! "$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" >"$out/$name.build" 2>&1; then
		tail -n 20 "$out/$name.build" >&2
		die "the kernel with $name does not build"
	fi
	"$PIFUTEX_ROOT/tools/run-qemu.sh" "$@" --log "$out/$name.log" \
		>"$out/$name.out" 2>&1 || true
	[ -s "$out/$name.json" ] || die "boot with $name left no verdict (see $out/$name.out)"
	tail -n 1 "$out/$name.out" | sed "s/^/  $name: /"
	take_out
done
# The kernel in OBJ has the series again.
"$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" >"$out/series.build" 2>&1 ||
	die "the series does not build again (see $out/series.build)"
