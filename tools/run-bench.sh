#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-bench.sh SRC OBJ BZIMAGE GUESTBIN [SCALE]
#
# `make bench`: run bench/pi-bench.c on the host and in the booted kernel
# (same binary, static), then tools/bench-report.py writes build/bench/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=$1 obj=$2 bzimage=$3 guestbin=$4 scale=${5:-1}
out=$PIFUTEX_ROOT/build/bench
mkdir -p "$out" "$guestbin"
gcc -static -O2 -Wall -Werror -o "$guestbin/pi-bench" \
	"$PIFUTEX_ROOT/bench/pi-bench.c" -lpthread || die "cannot build pi-bench"
{
	echo "# host: $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
	"$guestbin/pi-bench" "$scale"
} | tee "$out/host.txt" | grep -v '^BENCH'
# Under TCG the kernel finds the vCPUs' TSCs unsynchronized and falls
# back to refined-jiffies (4 ms steps); tsc=reliable keeps the TSC
# clocksource so the guest's CLOCK_MONOTONIC has ns resolution.
printf 'pi-bench 900 /usr/share/pi-futex/tests/guest-bench.sh\n' >"$out/runlist"
"$PIFUTEX_ROOT/tools/mkinitramfs.sh" --src "$src" \
	--release "$obj/include/config/kernel.release" --bindir "$guestbin" \
	--runlist "$out/runlist" --add "$PIFUTEX_ROOT/bench/guest-bench.sh" \
	--out "$out/initramfs.cpio.gz"
"$PIFUTEX_ROOT/tools/run-qemu.sh" --kernel "$bzimage" --initrd "$out/initramfs.cpio.gz" \
	--smp 2 --timeout 900 --append "PI_BENCH_SCALE=$scale tsc=reliable" --log "$out/guest.log" |
	grep -v -e 'BENCH' || true
[ -s "$out/guest.log" ] || die "no guest log"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$PIFUTEX_ROOT/tools/bench-report.py" "$out" "$out/host.txt" "$out/guest.log"
