#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh host BIN SCALE
# run-bench.sh guest SRC OBJ BIN SCALE RUN-QEMU-OPTIONS...
#
# The two halves of `make bench`.  host: build bench/pi-bench.c (static)
# into BIN and run it on the host, output in build/bench/host.txt.  guest:
# boot the pin of $KERNEL (RUN-QEMU-OPTIONS name its bzImage; the bench's
# own --smp, --timeout and --append come after them and win) with the
# same binary, serial log in build/bench/guest-$KERNEL.log.  tools/bench-report.py then puts every
# side in one table and one set of plots.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$PIFUTEX_ROOT/build/bench
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
	src=${1:?} obj=${2:?} bin=${3:?} scale=${4:?}
	shift 4
	load_pin
	[ -x "$bin/pi-bench" ] || die "$bin/pi-bench missing (run-bench.sh host first)"
	log=$out/guest-$PIN_LINE.log
	# Under TCG the kernel may find the vCPUs' TSCs unsynchronized, or
	# fail to calibrate the TSC against the PIT (6.12 did in every boot
	# here: "Fast TSC calibration failed", "Unable to calibrate against
	# PIT"), and fall back to refined-jiffies (4 ms steps).  tsc=reliable
	# keeps the TSC clocksource, and tsc_early_khz (the TCG guest's TSC
	# runs at the host's rate) skips the calibration, so every kernel's
	# CLOCK_MONOTONIC has ns resolution.  bench-report.py checks it.
	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	"$PIFUTEX_ROOT/tools/mkinitramfs.sh" --src "$src" \
		--release "$obj/include/config/kernel.release" --bindir "$bin" \
		--runlist "$PIFUTEX_ROOT/rootfs/runlist-bench" \
		--out "$out/initramfs-$PIN_LINE.cpio.gz"
	rm -f "$log"
	"$PIFUTEX_ROOT/tools/run-qemu.sh" "$@" \
		--initrd "$out/initramfs-$PIN_LINE.cpio.gz" --smp 2 --timeout 900 \
		--append "PI_BENCH_SCALE=$scale tsc=reliable${khz:+ tsc_early_khz=$khz}" \
		--log "$log" |
		grep -v -e 'BENCH' || true
	[ -s "$log" ] || die "no guest log for $PIN_LINE"
	;;
*)
	die "unknown mode $mode (host or guest)"
	;;
esac
