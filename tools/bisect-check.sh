#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh FRAGMENT...
#
# Build the kernel after each patch of the series in turn, incrementally,
# in a tree of its own (build/bisect/), so that every patch builds on its
# own.  The config fragments are merged again after each patch (options
# added by later patches are simply not there yet).  Fails naming the
# first patch after which bzImage does not build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: bisect-check.sh FRAGMENT..."
load_pin
top=$PIFUTEX_ROOT/build/bisect
src=$top/linux-$PIN_DIRNAME
obj=$top/obj
mkdir -p "$top"
"$PIFUTEX_ROOT/tools/fetch-kernel.sh" "$top" >/dev/null
cd "$src"
for l in patches:"$PIFUTEX_ROOT/patches" series:"$PIFUTEX_ROOT/series"; do
	ln -sfn "${l#*:}" "${l%%:*}"
done
export QUILT_PATCHES=patches QUILT_SERIES=series QUILT_PC=.pc
if [ -f .pc/applied-patches ] && [ -s .pc/applied-patches ]; then
	# Back to the pinned tree; restored files get a fresh mtime.
	files=$(cd .pc && find . -mindepth 2 -type f ! -name .timestamp -printf '%P\n' |
		cut -d/ -f2- | sort -u)
	quilt pop -a -f -q >/dev/null || die "quilt pop -a failed in $src"
	for f in $files; do [ -e "$f" ] && touch "$f"; done
fi
rm -f .pi-futex-applied

patches=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' series | awk '{ print $1 }')
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
