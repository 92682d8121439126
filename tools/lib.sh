# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the pi-futex shell tools.  Source, do not execute.

# die MESSAGE: one line on stderr naming the tool, then exit 1.
die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

note() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Root of the repository (tools/..).
PIFUTEX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# load_pin [FILE]: read PIN_PACKAGE, PIN_VERSION, PIN_SHA256 and derive
# PIN_DIRNAME (a file-system friendly version: '~' and ':' become '_').
load_pin() {
	local pin=${1:-${PIN_FILE:-$PIFUTEX_ROOT/kernel.pin}}
	[ -r "$pin" ] || die "pin file $pin not found"
	PIN_PACKAGE=$(sed -n 's/^PIN_PACKAGE=//p' "$pin")
	PIN_VERSION=$(sed -n 's/^PIN_VERSION=//p' "$pin")
	PIN_SHA256=$(sed -n 's/^PIN_SHA256=//p' "$pin")
	[ -n "$PIN_PACKAGE" ] || die "$pin: PIN_PACKAGE missing"
	[ -n "$PIN_VERSION" ] || die "$pin: PIN_VERSION missing"
	case $PIN_SHA256 in
	*[!0-9a-f]*|'') die "$pin: PIN_SHA256 is not a sha256 hex digest" ;;
	esac
	[ ${#PIN_SHA256} -eq 64 ] || die "$pin: PIN_SHA256 is not 64 hex digits"
	PIN_DIRNAME=$(printf '%s' "$PIN_VERSION" | tr '~:' '__')
}

cache_dir() {
	printf '%s/pi-futex\n' "${XDG_CACHE_HOME:-$HOME/.cache}"
}

# series_patches: the patches the series file names, in order.
series_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' \
		"${SERIES_FILE:-$PIFUTEX_ROOT/series}" | awk '{ print $1 }'
}

# series_files: every path a patch of the series changes or creates.
series_files() {
	local p
	for p in $(series_patches); do
		sed -n -e 's|^--- a/\([^[:space:]]*\).*|\1|p' \
			-e 's|^+++ b/\([^[:space:]]*\).*|\1|p' \
			"${PATCHES_DIR:-$PIFUTEX_ROOT/patches}/$p"
	done | sort -u
}

# pc_files TREE: the files the applied quilt patches of TREE saved in
# .pc/, that is every file they changed or created.
pc_files() {
	(cd "$1/.pc" && find . -mindepth 2 -type f ! -name .timestamp \
		-printf '%P\n' | cut -d/ -f2- | sort -u)
}
