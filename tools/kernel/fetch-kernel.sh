#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh SRC
#
# Download the pinned Debian linux-source .deb (the pin of $KERNEL, see
# pins/) through a private apt configuration, verify the sha256 of the
# tarball inside it against the pin, cache the tarball in
# $XDG_CACHE_HOME/pi-futex (default ~/.cache/pi-futex) and extract it to
# SRC (the Makefile names it: build/linux-<version>).  Every file is
# written under a temporary name and renamed on success, so an
# interrupted run leaves nothing half-written.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src=${1:?usage: fetch-kernel.sh SRC}
build=$(dirname "$src")
load_pin
cache=$(cache_dir)
tarball=$(pin_cached_tarball)
mkdir -p "$cache" "$build"

download() {
	local tmp sum
	tmp=$(mktemp -d "$cache/.download.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	pin_tarball "$PIN_VERSION" "$tmp"
	sum=$(sha_of "$tmp/tarball")
	[ "$sum" = "$PIN_SHA256" ] ||
		die "checksum mismatch for $PIN_PACKAGE $PIN_VERSION: tarball sha256 $sum, ${PIN_FILE#"$PIFUTEX_ROOT"/} says $PIN_SHA256 (nothing cached)"
	mv "$tmp/tarball" "$tarball"
	rm -rf "$tmp"
	trap - EXIT
}

if [ -f "$tarball" ]; then
	sum=$(sha_of "$tarball")
	if [ "$sum" != "$PIN_SHA256" ]; then
		note "cached $tarball has sha256 $sum, not the pinned one; fetching again"
		rm -f "$tarball"
	fi
fi
[ -f "$tarball" ] || download

stamp=$src/.pi-futex-source
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PIN_SHA256" ]; then
	exit 0
fi
[ ! -e "$src" ] || die "$src exists but is not an extraction of the pinned tarball; run 'make distclean'"
# Say once that the disk is too small rather than a tar error per file.
# (PIFUTEX_TREE_MB is for the host tests.)
need_mb=${PIFUTEX_TREE_MB:-$PIN_TREE_MB}
free_mb() { df -Pm "$build" | awk 'NR == 2 { print $4 }'; }
[ "$(free_mb)" -ge "$need_mb" ] ||
	die "$build has $(free_mb) MB free; the kernel tree needs $need_mb MB (docs/times.md, \"Disk\")"
tmp=$(mktemp -d "$build/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xf "$tarball" 2>&1 | head -n 5 >&2 ||
	die "cannot extract $tarball into $build ($(free_mb) MB free)"
top=$(ls "$tmp")
if [ "$(printf '%s\n' "$top" | wc -l)" -ne 1 ] || [ ! -f "$tmp/$top/Makefile" ]; then
	die "$tarball does not hold a single kernel tree"
fi
echo "$PIN_SHA256" >"$tmp/$top/.pi-futex-source"
mv "$tmp/$top" "$src"
