#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh BUILD_DIR
#
# Download the pinned linux-source-6.12 .deb with apt-get, verify the
# sha256 of the tarball inside it against kernel.pin, cache the tarball in
# $XDG_CACHE_HOME/pi-futex (default ~/.cache/pi-futex) and extract it to
# BUILD_DIR/linux-<version>.  Every file is written under a temporary name
# and renamed on success, so an interrupted run leaves nothing half-written.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build=${1:-$PIFUTEX_ROOT/build}
load_pin
cache=$(cache_dir)
tarball=$cache/$PIN_PACKAGE-$PIN_DIRNAME.tar.xz
src=$build/linux-$PIN_DIRNAME
mkdir -p "$cache" "$build"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

download() {
	local tmp deb sum
	tmp=$(mktemp -d "$cache/.download.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	if ! (cd "$tmp" && apt-get download "$PIN_PACKAGE=$PIN_VERSION") \
		>"$tmp/apt.log" 2>&1; then
		# A fresh machine may have no package lists yet.
		note "apt-get download failed; running apt-get update once"
		apt-get update >"$tmp/update.log" 2>&1 || true
		if ! (cd "$tmp" && apt-get download "$PIN_PACKAGE=$PIN_VERSION") \
			>"$tmp/apt.log" 2>&1; then
			sed 's/^/  apt: /' "$tmp/apt.log" >&2
			die "$PIN_PACKAGE=$PIN_VERSION is not served by apt; run 'make repin' to move the pin to the newest served 6.12 version"
		fi
	fi
	deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || die "apt-get download produced no .deb for $PIN_PACKAGE=$PIN_VERSION"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$PIN_PACKAGE.tar.xz" >"$tmp/tarball" 2>/dev/null ||
		die "$deb holds no usr/src/$PIN_PACKAGE.tar.xz"
	sum=$(sha_of "$tmp/tarball")
	[ "$sum" = "$PIN_SHA256" ] ||
		die "checksum mismatch for $PIN_PACKAGE $PIN_VERSION: tarball sha256 $sum, kernel.pin says $PIN_SHA256 (nothing cached)"
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
# The tree takes 1.7 GB: say so once rather than a tar error per file.
# (PIFUTEX_TREE_MB is for the host tests.)
need_mb=${PIFUTEX_TREE_MB:-1900}
free_mb() { df -Pm "$build" | awk 'NR == 2 { print $4 }'; }
[ "$(free_mb)" -ge "$need_mb" ] ||
	die "$build has $(free_mb) MB free; the kernel tree needs $need_mb MB (README, \"Disk\")"
tmp=$(mktemp -d "$build/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xf "$tarball" 2>&1 | head -n 5 >&2 ||
	die "cannot extract $tarball into $build ($(free_mb) MB free)"
top=$(ls "$tmp")
[ "$(printf '%s\n' "$top" | wc -l)" -eq 1 ] && [ -f "$tmp/$top/Makefile" ] ||
	die "$tarball does not hold a single kernel tree"
echo "$PIN_SHA256" >"$tmp/$top/.pi-futex-source"
mv "$tmp/$top" "$src"
