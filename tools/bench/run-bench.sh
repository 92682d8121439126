#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh host BIN SCALE
# run-bench.sh guest SRC OBJ BIN SCALE LOG RUN-QEMU-OPTIONS...
#
# The two halves of `make bench`.  host: build bench/pi-bench.c (static)
# into BIN and run it on the host, output in build/bench/host.txt.  guest:
# boot the kernel built in OBJ (RUN-QEMU-OPTIONS name its bzImage; the
# bench's own --smp, --timeout and --append come after them and win) with
# the same binary and rt-tests' cyclictest and pi_stress
# (rootfs/tests/guest-bench.sh), serial log in LOG, its initramfs beside
# it.  tools/bench/bench-report.py then puts every side in one table and one
# set of plots.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"
out=$PIFUTEX_BUILD/bench
mkdir -p "$out"
mode=${1:?usage: run-bench.sh host|guest ...}
shift
case $mode in
host)
	bin=${1:?} scale=${2:-1}
	mkdir -p "$bin"
	gcc -static -O2 -Wall -Werror -o "$bin/pi-bench" \
		"$PIFUTEX_ROOT/bench/pi-bench.c" -lpthread || die "cannot build pi-bench"
	{
		echo "# host: $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
		"$bin/pi-bench" "$scale"
	} | tee "$out/host.txt" | grep -v '^BENCH'
	;;
guest)
	src=${1:?} obj=${2:?} bin=${3:?} scale=${4:?} log=${5:?}
	shift 5
	[ -x "$bin/pi-bench" ] || die "$bin/pi-bench missing (run-bench.sh host first)"
	image=${log%.log}.cpio.gz
	# run-qemu.sh gives every boot the TSC clocksource; bench-report.py
	# checks that the guest timed with it.
	"$PIFUTEX_ROOT/tools/guest/mkinitramfs.sh" --src "$src" \
		--release "$obj/include/config/kernel.release" --bindir "$bin" \
		--runlist "$PIFUTEX_ROOT/rootfs/runlist-bench" \
		--host-bin pi_stress --host-bin cyclictest --out "$image"
	rm -f "$log"
	# The guest's verdict is the bench's: a failed suite, a WARN or a
	# guest that did not finish fails it (bench-report.py judges the log
	# again with the same tools/judge/verdict.py).
	rc=0
	"$PIFUTEX_ROOT/tools/run-qemu.sh" "$@" \
		--initrd "$image" --smp 2 --timeout 900 \
		--append "PI_BENCH_SCALE=$scale" \
		--log "$log" | grep -v -e 'BENCH' || rc=${PIPESTATUS[0]}
	[ -s "$log" ] || die "no guest log in $log"
	[ "$rc" -eq 0 ] || die_with "$rc" "the bench guest's verdict is not PASS (log: $log)"
	;;
*)
	die "unknown mode $mode (host or guest)"
	;;
esac
