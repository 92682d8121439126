#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-qemu.sh [OPTIONS]: boot the pi-futex kernel with the test initramfs
# under QEMU and turn the serial log into a verdict.
#
#   --kernel FILE    bzImage (required)
#   --initrd FILE    initramfs (required)
#   --smp N          vCPUs (default 2)
#   --mem SIZE       guest memory (default 512M)
#   --append ARGS    extra kernel command line
#   --timeout SECS   wall-clock limit for the whole run (default 1800),
#                    multiplied by $TIMEOUT_FACTOR (default 1) on slow hosts
#   --accel A        auto (default: KVM when a probe shows it works, else
#                    TCG), kvm (fail without it) or tcg
#   --log FILE       serial log (default build/logs/run-<date>.log); the
#                    verdict goes beside it as .json
#   --shell          interactive BusyBox shell instead of the suites
#   --no-test-mode   do not add panic_on_warn=1
#
# Prints the QEMU command first.  Exit status, as tools/verdict.py decides
# it: 0 pass; 1 test failure (a suite failed, a crash signature after the
# suites began, a hang in a suite); 2 infrastructure failure (bad options,
# QEMU did not start, the guest never reached its suites, or stopped
# before the first one).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# infra MESSAGE: an infrastructure failure, exit 2.
infra() {
	die_with 2 "$@"
}

kernel='' initrd='' smp=2 mem=512M append='' timeout=1800 accel=auto
log='' shell=0 testmode=1
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--accel) accel=$2; shift ;;
	--log) log=$2; shift ;;
	--shell) shell=1 ;;
	--no-test-mode) testmode=0 ;;
	-h|--help) sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) infra "unknown option $1 (see --help)" ;;
	esac
	shift
done
if [ -z "$kernel" ] || [ ! -r "$kernel" ]; then
	infra "kernel image '${kernel}' not found (make kernel)"
fi
if [ -z "$initrd" ] || [ ! -r "$initrd" ]; then
	infra "initramfs '${initrd}' not found (make initramfs)"
fi
case $smp in ''|*[!0-9]*|0) infra "--smp wants a positive number, not '$smp'" ;; esac
case $timeout in ''|*[!0-9]*|0) infra "--timeout wants a positive number of seconds, not '$timeout'" ;; esac
factor=${TIMEOUT_FACTOR:-1}
case $factor in ''|*[!0-9]*|0) infra "TIMEOUT_FACTOR wants a positive integer, not '$factor'" ;; esac
timeout=$((timeout * factor))
command -v qemu-system-x86_64 >/dev/null || infra "qemu-system-x86_64 not installed (make deps)"

# kvm_works: QEMU can use KVM here.  A /dev/kvm node is not enough (a
# nested guest may have one without VMX/SVM, or no access to it), so start
# a machine-less QEMU with KVM and quit it.
kvm_works() {
	echo quit | timeout 30 qemu-system-x86_64 -machine none,accel=kvm \
		-nodefaults -display none -monitor stdio >/dev/null 2>&1
}

case $accel in
auto) if kvm_works; then accel=kvm; else accel=tcg; fi ;;
kvm) kvm_works || infra "--accel kvm: QEMU cannot use KVM on this machine" ;;
tcg) ;;
*) infra "--accel wants auto, kvm or tcg, not '$accel'" ;;
esac

# A fine-grained clocksource in every boot.  Without ACPI the kernel
# finds no HPET or ACPI PM timer, and the config has no paravirtual
# clock, which leaves the TSC.  Under TCG the kernel may find the vCPUs'
# TSCs unsynchronized or fail to calibrate the TSC against the PIT
# ("Fast TSC calibration failed"), and falls back to refined-jiffies:
# 4 ms steps at HZ=250, too coarse for every timing bound of the suites.
# tsc=reliable keeps the TSC (no watchdog against a jiffies clock); under
# TCG the guest's TSC is the host's (QEMU reads the host's TSC), so
# tsc_early_khz, the host's rate, spares the calibration.  Under KVM the
# calibration works and is left to the kernel.  The sanity suite checks
# the clocksource.
clock="tsc=reliable"
if [ "$accel" = tcg ]; then
	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	clock="$clock${khz:+ tsc_early_khz=$khz}"
fi
# SeaBIOS' MP table (no ACPI in this config) lists one CPU per socket,
# hence sockets=N below.  pifutex.smp lets the guest check it saw them all.
cmdline="console=ttyS0 panic=-1 oops=panic $clock pifutex.smp=$smp${append:+ $append}"
[ $testmode -eq 1 ] && [ $shell -eq 0 ] && cmdline="$cmdline panic_on_warn=1"
[ $shell -eq 1 ] && cmdline="$cmdline pifutex.shell=1"
if [ -z "$log" ]; then
	mkdir -p "$PIFUTEX_ROOT/build/logs"
	log=$PIFUTEX_ROOT/build/logs/run-$(date +%Y%m%d-%H%M%S).log
fi
mkdir -p "$(dirname "$log")"

qemu=(qemu-system-x86_64 -nodefaults -nographic -serial stdio -no-reboot
	-machine "pc,accel=$accel" -cpu max -smp "$smp,sockets=$smp,cores=1,threads=1"
	-m "$mem" -kernel "$kernel" -initrd "$initrd" -append "$cmdline")
printf '+ %s\n' "$(printf '%q ' "${qemu[@]}")"

if [ $shell -eq 1 ]; then
	exec "${qemu[@]}"
fi

start=$(date +%s)
set +e
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
secs=$(($(date +%s) - start))
echo "run-qemu: QEMU ran ${secs}s ($accel); serial log in $log"
args=(--json "${log%.log}.json" --accel "$accel")
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	args+=(--timed-out "$timeout")
elif [ "$rc" -ne 0 ]; then
	args+=(--qemu-rc "$rc")
fi
set +e
"$PIFUTEX_ROOT/tools/verdict.py" "${args[@]}" "$log"
rc=$?
set -e
case $rc in
0) ;;
1) die "verdict FAIL: test failure (log: $log)" ;;
*) infra "verdict INFRA: infrastructure failure (log: $log)" ;;
esac
