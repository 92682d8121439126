#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apply-series.sh SRC
#
# Bring the quilt series of the pin (PIN_SERIES of pins/$KERNEL, or
# $SERIES_FILE; patches in `patches/`) onto the kernel tree SRC with fuzz
# 0.  The tree gets `patches` and `series` symlinks to the repository, so
# `quilt new/edit/refresh` inside it edits the repository directly.
#
# Incremental: the sha256 of every pushed patch is recorded in
# .pi-futex-applied.  On a re-run, the first patch whose name or content
# differs from what is applied is found; it and everything above it are
# popped (the files they touched get a fresh mtime, so kbuild rebuilds
# them) and pushed again.  Unchanged patches below it are left alone, so
# the kernel build stays incremental.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src=${1:?usage: apply-series.sh SRC}
[ -f "$src/Makefile" ] || die "$src is not a kernel tree"
repo_patches=${PATCHES_DIR:-$PIFUTEX_ROOT/patches}
[ -n "${SERIES_FILE:-}" ] || load_pin
repo_series=$SERIES_FILE
[ -f "$repo_series" ] || die "series file $repo_series not found"

cd "$src"
for l in patches:"$repo_patches" series:"$repo_series"; do
	name=${l%%:*} target=${l#*:}
	if [ -L "$name" ] || [ ! -e "$name" ]; then
		ln -sfn "$target" "$name"
	else
		die "$src/$name exists and is not a symlink"
	fi
done
export QUILT_PATCHES=patches QUILT_SERIES=series QUILT_PC=.pc

# Wanted: "name sha" for every patch in the series, in order.
wanted=()
for p in $(series_patches); do
	[ -f "patches/$p" ] || die "series names $p but patches/$p does not exist"
	wanted+=("$p $(sha_of "patches/$p")")
done
[ ${#wanted[@]} -gt 0 ] || die "series lists no patches"

state=.pi-futex-applied
applied=()
if [ -f .pc/applied-patches ]; then
	mapfile -t applied <.pc/applied-patches
fi
recorded=()
if [ -f "$state" ]; then
	mapfile -t recorded <"$state"
fi

# First applied position that is stale.
keep=0
while [ $keep -lt ${#applied[@]} ] && [ $keep -lt ${#wanted[@]} ] &&
	[ "${applied[$keep]} ${wanted[$keep]#* }" = "${wanted[$keep]}" ] &&
	[ "${recorded[$keep]:-}" = "${wanted[$keep]}" ]; do
	keep=$((keep + 1))
done

if [ $keep -lt ${#applied[@]} ]; then
	touched=$(mktemp)
	trap 'rm -f "$touched"' EXIT
	for ((i = ${#applied[@]} - 1; i >= keep; i--)); do
		# Files this patch touched, from its .pc backup directory.
		(cd ".pc/${applied[$i]}" 2>/dev/null &&
			find . -type f ! -name '.timestamp' -printf '%P\n') >>"$touched" || true
		quilt pop -f -q >/dev/null ||
			die "quilt pop of ${applied[$i]} failed"
	done
	# quilt restores the originals with their old mtimes; kbuild must
	# still see them as changed.
	while read -r f; do
		[ -e "$f" ] && touch "$f"
	done <"$touched"
	note "popped $((${#applied[@]} - keep)) stale patch(es)"
fi


# A name of our own: make check runs a second make beside the first
# (tools/beside.sh), and both check the series.
new=$state.new.$$
trap 'rm -f "${touched:-}" "$new"' EXIT
: >"$new"
for ((i = 0; i < keep; i++)); do
	echo "${wanted[$i]}" >>"$new"
done
for ((i = keep; i < ${#wanted[@]}; i++)); do
	p=${wanted[$i]% *}
	if ! out=$(quilt push -q --fuzz=0 "$p" 2>&1); then
		mv "$new" "$state"
		printf '%s\n' "$out" | sed 's/^/  quilt: /' >&2
		die "patch $p does not apply to $(basename "$src") (fuzz 0)"
	fi
	echo "${wanted[$i]}" >>"$new"
done
mv "$new" "$state"
note "series applied: ${#wanted[@]} patch(es), $((${#wanted[@]} - keep)) pushed now"
