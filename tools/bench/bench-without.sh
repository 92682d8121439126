#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-without.sh FIX SRC OBJ BIN SCALE LOG RUN-QEMU-OPTIONS...
#
# The guest half of `make bench BENCH_WITHOUT=FIX` for one kernel: take
# the fix whose file name starts with FIX out of the patched tree SRC
# (lib.sh's revert_fix, on the work tree of `make export-check`), rebuild
# OBJ incrementally, run the guest bench into LOG (run-bench.sh guest),
# and put the fix back, also when interrupted.  OBJ is left built without
# the fix; the next `make kernel` rebuilds what the fix touches.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

prefix=${1:?usage: bench-without.sh FIX SRC OBJ BIN SCALE LOG RUN-QEMU-OPTIONS...}
src=${2:?} obj=${3:?} bin=${4:?} scale=${5:?} log=${6:?}
shift 6
load_pin
fix=$(series_patches | grep -E "^${prefix}-" || true)
[ "$(printf '%s\n' "$fix" | grep -c .)" -eq 1 ] ||
	die "BENCH_WITHOUT=$prefix names no single patch of $SERIES_FILE"
work=$(export_work)
check_export_work "$work"
trap 'restore_fix' EXIT
revert_fix "$work" "$src" "$fix"
note "without $fix: ${REVERTED[*]}"
"$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" >"${log%.log}.build" 2>&1 ||
	{ tail -n 20 "${log%.log}.build" >&2; die "the kernel without $fix does not build"; }
"$PIFUTEX_ROOT/tools/bench/run-bench.sh" guest "$src" "$obj" "$bin" "$scale" "$log" "$@"
