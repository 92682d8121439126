#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch-series.sh SRC
#
# Run scripts/checkpatch.pl --strict from the kernel tree SRC on every
# patch of `series`, in order, and print one line per patch.  Any error,
# warning or check fails, with two exceptions:
#  - FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is accepted when
#    every file the patch adds is covered by a MAINTAINERS section other
#    than THE REST (scripts/get_maintainer.pl --sections on SRC);
#  - the entries of patches/checkpatch-exceptions ("PATCH TYPE reason").
# checkpatch must run with SRC as its working directory: inside another
# git work tree it checks the patch file as if it were a diff of that tree.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src=$(cd "${1:?usage: checkpatch-series.sh SRC}" && pwd)
[ -n "${SERIES_FILE:-}" ] || load_pin
pdir=${PATCHES_DIR:-$PIFUTEX_ROOT/patches}
exceptions=$pdir/checkpatch-exceptions
[ -x "$src/scripts/checkpatch.pl" ] || die "$src/scripts/checkpatch.pl not found"

excepted() {	# PATCH TYPE
	[ -f "$exceptions" ] && grep -q "^$1 $2 " "$exceptions"
}

covered() {	# PATCHFILE: every added file has a real MAINTAINERS section
	local f sections
	while read -r f; do
		sections=$(cd "$src" && perl scripts/get_maintainer.pl --no-git \
			--no-git-fallback --sections -f "$f" 2>/dev/null |
			grep -v -e '^[A-Z]:' -e '^$' | grep -v '^THE REST$')
		[ -n "$sections" ] || return 1
	done < <(awk '/^new file mode/ { getline; getline; getline;
		sub("^\\+\\+\\+ b/", ""); print }' "$1")
	return 0
}

fail=0 n=0
for p in $(series_patches); do
	n=$((n + 1))
	out=$(cd "$src" && ./scripts/checkpatch.pl --strict --show-types \
		--no-summary --quiet "$pdir/$p" 2>&1)
	bad=0 notes=
	while read -r kind type; do
		[ -n "$kind" ] || continue
		if [ "$type" = FILE_PATH_CHANGES ] && covered "$pdir/$p"; then
			notes="$notes; $type accepted: new files are in MAINTAINERS"
		elif excepted "$p" "$type"; then
			notes="$notes; $type accepted: $(grep "^$p $type " "$exceptions" | cut -d' ' -f3-)"
		else
			bad=$((bad + 1))
		fi
	done < <(printf '%s\n' "$out" | sed -n 's/^\(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\1 \2/p')
	total=$(printf '%s\n' "$out" | grep -cE '^(ERROR|WARNING|CHECK):')
	if [ $bad -eq 0 ]; then
		echo "checkpatch: ok   $p ($total finding(s)$notes)"
	else
		echo "checkpatch: FAIL $p ($bad finding(s) not accepted)"
		printf '%s\n' "$out" | sed 's/^/  | /'
		fail=1
	fi
done
[ $n -gt 0 ] || die "series lists no patches"
[ $fail -eq 0 ] || die "checkpatch --strict found problems (see above)"
