#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kvm-probe.sh [--accel kvm|tcg] [--cpu MODEL]: can this machine run a
# guest under KVM?  A /dev/kvm that opens, or a QEMU that starts a VM
# with accel=kvm and quits, proves nothing: on a host without VMX/SVM
# exposed (nested, containers, CI runners) KVM may create a VM whose vCPU
# then aborts in QEMU or never runs.  So run one.
#
# The guest is a 64 KiB BIOS image of our own: at the reset vector
# (F000:FFF0) a jump to a few real-mode instructions that write
# "pi-futex: vcpu ran" to COM1 and then write to an isa-debug-exit port,
# which ends QEMU.  The vCPU reached its known point when the marker is
# on QEMU's output.  QEMU gets $PROBE_SECS (10) seconds, whatever the
# machine's load: under KVM the marker comes in well under one.
#
# --cpu is the CPU model of the boot the probe vouches for (host under
# KVM: QEMU 7.2 aborts on some hosts with -cpu host or max while kvm64
# runs real mode).  --accel tcg runs the same image under TCG (a check of
# the image itself, for the host tests).
#
# Prints one line on stdout: "kvm probe passed: a vCPU ran in N.NNs" or
# "kvm probe failed: REASON" (REASON: QEMU's first error line, or the
# silence).  Exit status 0 passed, 1 failed, 2 bad usage.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

MARKER='pi-futex: vcpu ran'
PROBE_SECS=10
accel=kvm cpu=host
while [ $# -gt 0 ]; do
	case $1 in
	--accel) accel=${2:-}; shift ;;
	--cpu) cpu=${2:-}; shift ;;
	-h|--help) sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die_with 2 "unknown option $1 (see --help)" ;;
	esac
	shift
done
case $accel in kvm|tcg) ;; *) die_with 2 "--accel wants kvm or tcg, not '$accel'" ;; esac
[ -n "$cpu" ] || die_with 2 "--cpu wants a CPU model"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bios_image FILE: the probe guest.  Real-mode code at offset 0xff00
# (physical 0xffffff00):
#   mov dx, 0x3f8; { mov al, C; out dx, al } for each byte of the marker
#   and a newline; mov dx, 0xf4; mov al, 0; out dx, al (isa-debug-exit:
#   QEMU exits with status 1); hlt; jmp $-1
# and at the reset vector 0xfff0: jmp near 0xff00 (e9, rel16 0xff0d).
bios_image() {
	local code=$1.code i
	{
		printf '\xba\xf8\x03'
		for ((i = 0; i < ${#MARKER}; i++)); do
			printf '\xb0%s\xee' "${MARKER:i:1}"
		done
		printf '\xb0\n\xee'
		printf '\xba\xf4\x00\xb0\x00\xee\xf4\xeb\xfd'
	} >"$code"
	{
		head -c $((0xff00)) /dev/zero
		cat "$code"
		head -c $((0xfff0 - 0xff00 - $(stat -c %s "$code"))) /dev/zero
		printf '\xe9\x0d\xff'
		head -c 13 /dev/zero
	} >"$1"
	rm -f "$code"
	[ "$(stat -c %s "$1")" -eq 65536 ] || die_with 2 "probe image is not 64 KiB"
}

command -v qemu-system-x86_64 >/dev/null ||
	die_with 2 "qemu-system-x86_64 not installed (make deps)"
bios_image "$tmp/probe.bin"
start=$(date +%s%N)
set +e
# In a subshell whose stderr is discarded: bash's "Aborted" line about a
# QEMU killed by its assertion is not QEMU's output.
(timeout -k 2 "$PROBE_SECS" qemu-system-x86_64 -nodefaults -display none \
	-no-reboot -machine "pc,accel=$accel" -cpu "$cpu" -smp 1 -m 16M \
	-bios "$tmp/probe.bin" -serial stdio \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	</dev/null >"$tmp/out" 2>&1; echo $? >"$tmp/rc") 2>/dev/null
rc=$(cat "$tmp/rc")
set -e
ms=$((($(date +%s%N) - start) / 1000000))
if grep -qF "$MARKER" "$tmp/out"; then
	printf 'kvm probe passed: a vCPU ran in %d.%02ds\n' $((ms / 1000)) $((ms % 1000 / 10))
	exit 0
fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	why="no output from the vCPU in ${PROBE_SECS}s"
else
	# QEMU's first error line, else its first line, else its status.
	why=$(grep -m1 -i 'error\|fail\|could not\|cannot\|assert' "$tmp/out" || true)
	[ -n "$why" ] || why=$(grep -m1 . "$tmp/out" || true)
	[ -n "$why" ] || why="QEMU exited with status $rc and printed nothing"
fi
printf 'kvm probe failed: %s\n' "$why"
exit 1
