#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-selftests.sh SRC OUT
#
# Build the futex selftests of the patched tree (including the series'
# futex_pi, futex_pi_boost and futex_pi_deadline) as static binaries, with the tree's own
# selftest Makefile, into OUT.  Their uapi headers are the tree's
# (make headers into OUT/khdr): kbuild makes them without a .config, so
# one build serves every flavour of the pin.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"
src=${1:?usage: build-selftests.sh SRC OUT}
out=${2:?usage: build-selftests.sh SRC OUT}
mkdir -p "$out/khdr"
out=$(cd "$out" && pwd)
kernel_make "$src" "$out/khdr" -s headers >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "make headers failed"; }
make -C "$src/tools/testing/selftests/futex/functional" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $out/khdr/usr/include" LDFLAGS=-static \
	>>"$out/build.log" 2>&1 ||
	{ grep -E 'error|warning' "$out/build.log" | head -n 20 >&2
	  die "futex selftests failed to build (log: $out/build.log)"; }
for t in futex_pi futex_pi_boost futex_pi_deadline futex_wait_timeout futex_requeue_pi; do
	[ -x "$out/$t" ] || die "selftest $t was not built"
	ldd "$out/$t" >/dev/null 2>&1 && die "$t is not static"
done
note "futex selftests built in $out"
