#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh SRC FRAGMENT...
#
# Build the kernel after each patch of the series in turn, incrementally,
# so that every patch builds on its own.  The config fragments are merged
# again after each patch (options added by later patches are simply not
# there yet).  Fails naming the first patch after which bzImage does not
# build.
#
# SRC is the quilt-patched tree of the pin of $KERNEL.  The tree the
# builds use (bisect/ beside SRC) is link-tree.sh's copy of it: hard
# links but for the files quilt writes, so it costs tens of MB, not a
# second 1.8 GB extraction.  The build goes to bisect/obj-<line>;
# nothing writes to the tree but quilt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 1 ] || die "usage: bisect-check.sh SRC FRAGMENT..."
load_pin
main=$1
shift
top=$(dirname "$main")/bisect
src=$top/$(basename "$main")
obj=$top/obj-$PIN_LINE
[ -f "$main/.pi-futex-applied" ] || die "$main is not patched (make patch)"

"$PIFUTEX_ROOT/tools/link-tree.sh" "$main" "$src"

cd "$src"
for l in patches:"$PIFUTEX_ROOT/patches" series:"$SERIES_FILE"; do
	ln -sfn "${l#*:}" "${l%%:*}"
done
export QUILT_PATCHES=patches QUILT_SERIES=series QUILT_PC=.pc
# Back to the pinned tree; restored files get a fresh mtime.
files=$(pc_files .)
quilt pop -a -f -q >/dev/null || die "quilt pop -a failed in $src"
for f in $files; do [ -e "$f" ] && touch "$f"; done
rm -f .pi-futex-applied

patches=$(series_patches)
total=$(printf '%s\n' "$patches" | wc -l)
i=0
for p in $patches; do
	i=$((i + 1))
	start=$(date +%s)
	quilt push -q --fuzz=0 "$p" >/dev/null 2>&1 || die "patch $p does not apply"
	KCONFIG_NO_VERIFY=1 "$PIFUTEX_ROOT/tools/make-config.sh" "$src" "$obj" "$@" \
		>/dev/null 2>&1 || die "config failed after $p"
	if ! "$PIFUTEX_ROOT/tools/build-kernel.sh" "$src" "$obj" 2>"$top/error.log"; then
		sed 's/^/  | /' "$top/error.log" >&2
		die "the kernel does not build after patch $i/$total: $p"
	fi
	echo "bisect-check: $i/$total builds after $p ($(($(date +%s) - start))s)"
done
