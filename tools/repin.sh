#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# repin.sh: move kernel.pin to the newest linux-source-6.12 version that
# apt serves, with the sha256 of its tarball.  The new tarball is verified
# and cached on the way, so the next `make kernel` does not download again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pin=${PIN_FILE:-$PIFUTEX_ROOT/kernel.pin}
load_pin "$pin"
cache=$(cache_dir)
mkdir -p "$cache"

apt-get update >/dev/null 2>&1 || note "apt-get update failed; using the lists at hand"
newest=
for v in $(apt-cache madison "$PIN_PACKAGE" 2>/dev/null | awk -F'|' '{gsub(/ /,"",$2); print $2}'); do
	case $v in 6.12.*) ;; *) continue ;; esac
	if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
		newest=$v
	fi
done
[ -n "$newest" ] || die "apt serves no 6.12 version of $PIN_PACKAGE"

tmp=$(mktemp -d "$cache/.repin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "$PIN_PACKAGE=$newest") >"$tmp/apt.log" 2>&1 ||
	die "apt-get download $PIN_PACKAGE=$newest failed"
deb=$(ls "$tmp"/*.deb | head -n1)
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$PIN_PACKAGE.tar.xz" >"$tmp/tarball" ||
	die "$deb holds no usr/src/$PIN_PACKAGE.tar.xz"
sum=$(sha256sum "$tmp/tarball" | cut -d' ' -f1)
dirname=$(printf '%s' "$newest" | tr '~:' '__')
mv "$tmp/tarball" "$cache/$PIN_PACKAGE-$dirname.tar.xz"

sed -e "s/^PIN_VERSION=.*/PIN_VERSION=$newest/" \
    -e "s/^PIN_SHA256=.*/PIN_SHA256=$sum/" "$pin" >"$tmp/pin"
mv "$tmp/pin" "$pin"
if [ "$newest" = "$PIN_VERSION" ]; then
	note "pin unchanged: $PIN_PACKAGE $newest (sha256 $sum)"
else
	note "pin moved: $PIN_VERSION -> $newest (sha256 $sum); check that the series still applies with 'make patch'"
fi
