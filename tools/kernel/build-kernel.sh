#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh SRC OBJ
#
# Build bzImage of the kernel tree SRC out of tree in OBJ (which holds
# the .config), with ccache when present.  The full build log goes to
# OBJ/build.log; on failure its error lines are shown.  Up to date, it
# costs a second, not a pass of kbuild over the tree: when bzImage is
# newer than OBJ/.config and than every source, Makefile, Kbuild, Kconfig
# and localversion file of SRC, there is nothing to build.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"
src=${1:?usage: build-kernel.sh SRC OBJ}
obj=${2:?usage: build-kernel.sh SRC OBJ}
bzimage=$obj/arch/x86/boot/bzImage
if [ -f "$bzimage" ] && [ "$bzimage" -nt "$obj/.config" ] &&
	[ -z "$(find "$src" -path "$src/.pc" -prune -o -path "$src/tools" -prune -o \
		-newer "$bzimage" -type f \( -name '*.[chS]' -o -name 'Makefile*' \
		-o -name 'Kbuild*' -o -name 'Kconfig*' -o -name 'localversion*' \
		-o -name '*.lds' \) -print -quit)" ]; then
	echo "up to date: $(cat "$obj/include/config/kernel.release") in $obj" >&2
	exit 0
fi
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
if ! make -C "$src" O="$(cd "$obj" && pwd)" ARCH=x86_64 CC="$cc" \
	-j"$(nproc)" bzImage >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -n 20 >&2 || true
	die "kernel build failed (full log: $obj/build.log)"
fi
# kbuild leaves bzImage alone when nothing it depends on changed: its
# mtime now says "checked up to date", for the test above.
[ ! -f "$bzimage" ] || touch "$bzimage"
echo "built $(cat "$obj/include/config/kernel.release") in $obj" >&2
