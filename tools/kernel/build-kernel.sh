#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh SRC OBJ
#
# Build bzImage of the kernel tree SRC out of tree in OBJ (which holds
# the .config), with lib.sh's kernel_make (ccache when present).  The full build log goes to
# OBJ/build.log; on failure its error lines are shown.  Up to date, it
# costs a second, not a pass of kbuild over the tree: when the compiler
# and make variables are those of the last build (OBJ/.pi-futex-built), and bzImage is
# newer than OBJ/.config and than every file of SRC (but .git, .pc and
# Documentation), there is nothing to build.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"
src=${1:?usage: build-kernel.sh SRC OBJ}
obj=${2:?usage: build-kernel.sh SRC OBJ}
bzimage=$obj/arch/x86/boot/bzImage
stamp=$obj/.pi-futex-built
compiler="$(kernel_make_vars | tr '\n' ' ')$(gcc --version | head -n 1)"
if [ -f "$bzimage" ] && [ "$bzimage" -nt "$obj/.config" ] &&
	[ "$(cat "$stamp" 2>/dev/null)" = "$compiler" ] &&
	[ -z "$(find "$src" \( -path "$src/.git" -o -path "$src/.pc" \
		-o -path "$src/Documentation" \) -prune -o \
		-newer "$bzimage" -type f -print -quit)" ]; then
	echo "up to date: $(cat "$obj/include/config/kernel.release") in $obj" >&2
	exit 0
fi
rm -f "$stamp"
# The time the build started: a source edited while it runs is newer.
start=$(mktemp "$obj/.pi-futex-start.XXXXXX")
trap 'rm -f "$start"' EXIT
if ! kernel_make "$src" "$(cd "$obj" && pwd)" bzImage >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -n 20 >&2 || true
	die "kernel build failed (full log: $obj/build.log)"
fi
# kbuild leaves bzImage alone when nothing it depends on changed: its
# mtime now says "checked up to date at the start of this build".
if [ -f "$bzimage" ]; then
	touch -r "$start" "$bzimage"
	echo "$compiler" >"$stamp"
fi
echo "built $(cat "$obj/include/config/kernel.release") in $obj" >&2
