#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint-python.sh [DIR]
#
# Run pyflakes (Debian's pyflakes3) on every Python file of the
# repository (or of DIR) but build/ and .git/: the tools, the host tests
# and the guest's helpers.  Fails on any finding.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_option "$@"

dir=${1:-$PIFUTEX_ROOT}
command -v pyflakes3 >/dev/null || die "pyflakes3 not installed (make deps)"
files=()
while IFS= read -r -d '' f; do
	files+=("$f")
done < <(find "$dir" \( -path "$dir/build" -o -path "$dir/.git" \) -prune -o \
	-type f -name '*.py' -print0 | sort -z)
[ ${#files[@]} -gt 0 ] || die "no Python file found under $dir"
pyflakes3 "${files[@]}" || die "pyflakes found problems in the files above"
echo "lint-python: ${#files[@]} Python files pyflakes clean"
