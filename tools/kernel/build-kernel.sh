#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh SRC OBJ: build bzImage out of tree, with ccache when
# present.  The full build log goes to OBJ/build.log; on failure its error
# lines are shown.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
src=${1:?usage: build-kernel.sh SRC OBJ}
obj=${2:?usage: build-kernel.sh SRC OBJ}
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
if ! make -C "$src" O="$(cd "$obj" && pwd)" ARCH=x86_64 CC="$cc" \
	-j"$(nproc)" bzImage >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -n 20 >&2 || true
	die "kernel build failed (full log: $obj/build.log)"
fi
echo "built $(cat "$obj/include/config/kernel.release") in $obj" >&2
