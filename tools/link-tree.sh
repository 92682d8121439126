#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# link-tree.sh MAIN DEST
#
# Make DEST a copy of the quilt-patched tree MAIN that quilt can pop and
# push on its own, at the cost of the directories and the files quilt
# writes rather than a second tree: every file is a hard link to MAIN's,
# except .pc/ and the files the series touches (those the applied patches
# saved in .pc/, and those named in the series' patches), which are real
# copies.  So nothing quilt does in DEST writes through a link into MAIN.
# DEST is replaced; `patches` and `series` in DEST point where MAIN's do.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

main=${1:?usage: link-tree.sh MAIN DEST}
dest=${2:?usage: link-tree.sh MAIN DEST}
[ -f "$main/.pc/applied-patches" ] || die "$main is not quilt-patched"

rm -rf "$dest" "$dest.tmp"
mkdir -p "$(dirname "$dest")"
cp -al "$main" "$dest.tmp" || die "cannot link $main to $dest.tmp"
rm -rf "$dest.tmp/.pc"
cp -a "$main/.pc" "$dest.tmp/.pc" || die "cannot copy $main/.pc"
{ pc_files "$main"; series_files; } | sort -u | while read -r f; do
	[ -f "$main/$f" ] || continue
	cp -p --remove-destination "$main/$f" "$dest.tmp/$f" ||
		die "cannot copy $f into $dest.tmp"
done
mv "$dest.tmp" "$dest"
