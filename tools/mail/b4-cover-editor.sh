#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# b4-cover-editor.sh FILE: the EDITOR that export-series.sh b4-check gives
# `b4 prep --edit-cover`.  Replaces the cover letter in FILE with the text
# of $PIFUTEX_COVER (patches/cover-letter-NAME.txt) and keeps b4's
# tracking block, which b4 needs to find the series again.
set -eu
. "$(dirname "$0")/../lib.sh"
help_option "$@"
file=${1:?usage: b4-cover-editor.sh FILE}
cover=${PIFUTEX_COVER:?b4-cover-editor.sh: PIFUTEX_COVER not set}
[ -f "$cover" ] || { echo "b4-cover-editor.sh: $cover: no such file" >&2; exit 1; }
tracking=$(sed -n '/^--- b4-submit-tracking ---$/,$p' "$file")
{
	cat "$cover"
	if [ -n "$tracking" ]; then
		echo
		printf '%s\n' "$tracking"
	fi
} >"$file.new"
mv "$file.new" "$file"
