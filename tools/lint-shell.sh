#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint-shell.sh [DIR]
#
# Run shellcheck on every shell script of the repository (or of DIR):
# the files named *.sh and those whose first line starts a shell
# (#!/bin/sh, #!/bin/bash), skipping build/ and .git/.  Sourced files are
# followed from the script's own directory.  Fails on any finding; a
# finding that is right to keep has a `# shellcheck disable=SCnnnn`
# with its reason on the line above, never a blanket exclusion.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_option "$@"

dir=${1:-$PIFUTEX_ROOT}
command -v shellcheck >/dev/null || die "shellcheck not installed (make deps)"
scripts=()
while IFS= read -r -d '' f; do
	case $f in
	*.sh) scripts+=("$f") ;;
	*) head -n 1 "$f" | grep -Eq '^#! */bin/(ba)?sh' && scripts+=("$f") ;;
	esac
done < <(find "$dir" \( -path "$dir/build" -o -path "$dir/.git" \) -prune -o \
	-type f ! -name '*.patch' -print0 | sort -z)
[ ${#scripts[@]} -gt 0 ] || die "no shell script found under $dir"
(cd "$dir" && shellcheck -x -P SCRIPTDIR -f gcc "${scripts[@]#"$dir"/}") ||
	die "shellcheck found problems in the scripts above"
echo "lint-shell: ${#scripts[@]} shell scripts shellcheck clean"
