#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-qemu.sh [OPTIONS]: boot the pi-futex kernel with the test initramfs
# under QEMU (TCG) and turn the serial log into a verdict.
#
#   --kernel FILE    bzImage (required)
#   --initrd FILE    initramfs (required)
#   --smp N          vCPUs (default 2)
#   --mem SIZE       guest memory (default 512M)
#   --append ARGS    extra kernel command line
#   --timeout SECS   wall-clock limit for the whole run (default 300),
#                    multiplied by $TIMEOUT_FACTOR (default 1) on slow hosts
#   --log FILE       serial log (default build/logs/run-<date>.log)
#   --shell          interactive BusyBox shell instead of the suites
#   --no-test-mode   do not add panic_on_warn=1
#
# Prints the QEMU command first.  Exits non-zero when QEMU cannot start,
# the guest does not finish in time, the log shows a crash signature, or a
# suite fails (see tools/verdict.py).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel= initrd= smp=2 mem=512M append= timeout=300 log= shell=0 testmode=1
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--log) log=$2; shift ;;
	--shell) shell=1 ;;
	--no-test-mode) testmode=0 ;;
	-h|--help) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
[ -n "$kernel" ] && [ -r "$kernel" ] || die "kernel image '${kernel}' not found (make kernel)"
[ -n "$initrd" ] && [ -r "$initrd" ] || die "initramfs '${initrd}' not found (make initramfs)"
case $smp in ''|*[!0-9]*|0) die "--smp wants a positive number, not '$smp'" ;; esac
case $timeout in ''|*[!0-9]*|0) die "--timeout wants a positive number of seconds, not '$timeout'" ;; esac
factor=${TIMEOUT_FACTOR:-1}
case $factor in ''|*[!0-9]*|0) die "TIMEOUT_FACTOR wants a positive integer, not '$factor'" ;; esac
timeout=$((timeout * factor))
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed (make deps)"

# SeaBIOS' MP table (no ACPI in this config) lists one CPU per socket,
# hence sockets=N above.  pifutex.smp lets the guest check it saw them all.
cmdline="console=ttyS0 panic=-1 oops=panic pifutex.smp=$smp${append:+ $append}"
[ $testmode -eq 1 ] && [ $shell -eq 0 ] && cmdline="$cmdline panic_on_warn=1"
[ $shell -eq 1 ] && cmdline="$cmdline pifutex.shell=1"
if [ -z "$log" ]; then
	mkdir -p "$PIFUTEX_ROOT/build/logs"
	log=$PIFUTEX_ROOT/build/logs/run-$(date +%Y%m%d-%H%M%S).log
fi
mkdir -p "$(dirname "$log")"

accel=tcg
qemu=(qemu-system-x86_64 -nodefaults -nographic -serial stdio -no-reboot
	-machine pc,accel=$accel -cpu max -smp "$smp,sockets=$smp,cores=1,threads=1" -m "$mem"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline")
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
ln -sfn "$(basename "$log")" "$(dirname "$log")/latest.log"
echo "run-qemu: QEMU ran ${secs}s; serial log in $log"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	"$PIFUTEX_ROOT/tools/verdict.py" "$log" || true
	die "guest did not finish within ${timeout}s (log: $log)"
fi
[ "$rc" -eq 0 ] || note "qemu exited with status $rc"
"$PIFUTEX_ROOT/tools/verdict.py" --json "${log%.log}.json" "$log" ||
	die "verdict FAIL (log: $log)"
[ "$rc" -eq 0 ] || die "qemu exited with status $rc (log: $log)"
