#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# [KERNEL=LINE] repin.sh
#
# Move the pin of $KERNEL (pins/LINE; without KERNEL, the pin that
# pins/default names) to the newest version of its line (PIN_LINE.*)
# that its Debian suite serves, with the sha256 of its tarball.  The new
# tarball is verified and cached on the way, so the next `make kernel`
# does not download again.  Takes no arguments (make repin runs it).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"
[ $# -eq 0 ] || die "usage: [KERNEL=LINE] repin.sh (no arguments; see --help)"

load_pin
pin=$PIN_FILE
cache=$(cache_dir)
mkdir -p "$cache"

pin_apt apt-get update >/dev/null 2>&1 ||
	note "apt-get update of $PIN_SUITE failed; using the lists at hand"
newest=
for v in $(pin_apt apt-cache madison "$PIN_PACKAGE" 2>/dev/null |
	awk -F'|' '{ gsub(/ /, "", $2); print $2 }'); do
	case $v in "$PIN_LINE".*) ;; *) continue ;; esac
	if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
		newest=$v
	fi
done
[ -n "$newest" ] || die "$PIN_SUITE serves no $PIN_LINE version of $PIN_PACKAGE"

tmp=$(mktemp -d "$cache/.repin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pin_tarball "$newest" "$tmp"
sum=$(sha_of "$tmp/tarball")
dirname=$(printf '%s' "$newest" | tr '~:' '__')
mv "$tmp/tarball" "$cache/$PIN_PACKAGE-$dirname.tar.xz"

sed -e "s/^PIN_VERSION=.*/PIN_VERSION=$newest/" \
    -e "s/^PIN_SHA256=.*/PIN_SHA256=$sum/" "$pin" >"$tmp/pin"
mv "$tmp/pin" "$pin"
if [ "$newest" = "$PIN_VERSION" ]; then
	note "pin unchanged: $PIN_PACKAGE $newest (sha256 $sum)"
else
	note "pin moved: $PIN_VERSION -> $newest (sha256 $sum); check that $(basename "$SERIES_FILE") still applies with 'make patch KERNEL=$PIN_LINE'"
fi
