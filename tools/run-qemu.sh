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
#   --flavour F      the kernel's flavour (debug, rt, kasan, base): the
#                    default timeout is then the measured time of the whole
#                    suite on this many vCPUs (tools/guest/machine.py)
#   --timeout SECS   wall-clock limit for the whole run (default: as
#                    --flavour says, else 1800), multiplied by
#                    $TIMEOUT_FACTOR (default 1) on slow hosts
#   --accel A        auto (default): KVM when a guest vCPU ran under it
#                    (tools/guest/kvm-probe.sh), else TCG; a KVM boot that
#                    breaks before the suites begin runs again under TCG,
#                    once.  kvm: KVM or exit 2.  tcg: TCG.
#   --log FILE       serial log (default build/logs/run-<date>.log); the
#                    verdict goes beside it as .json
#   --shell          interactive BusyBox shell instead of the suites
#   --no-test-mode   no panic_on_warn=1 (make prove-fixes, for a fix whose
#                    absence WARNs)
#   --name TEXT      the kernel under test, for the verdict (make run
#                    TREE=DIR: git describe of the tree)
#
# The machine, CPU model, kernel command line and timeouts are those of
# tools/guest/machine.py, which the LAVA jobs use too.  Prints the
# accelerator chosen and why, then the QEMU command.  Exit status, as
# tools/judge/verdict.py decides it: 0 pass; 1 test failure (a suite
# failed, a crash signature after the suites began, a hang in a suite);
# 2 infrastructure failure (bad options, QEMU did not start, the guest
# never reached its suites, or stopped before the first one).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# infra MESSAGE: an infrastructure failure, exit 2.
infra() {
	die_with 2 "$@"
}

machine=$PIFUTEX_ROOT/tools/guest/machine.py
# Empty: machine.py's default.
kernel='' initrd='' smp='' mem='' append='' timeout='' accel=auto
log='' shell=0 flavour='' name='' testmode=1
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--flavour) flavour=$2; shift ;;
	--name) name=$2; shift ;;
	--accel) accel=$2; shift ;;
	--log) log=$2; shift ;;
	--shell) shell=1 ;;
	--no-test-mode) testmode=0 ;;
	-h|--help) sed -n '4,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
case $smp in *[!0-9]*|0) infra "--smp wants a positive number, not '$smp'" ;; esac
if [ -z "$timeout" ]; then
	timeout=$(python3 "$machine" timeout ${flavour:+--flavour "$flavour"} \
		${smp:+--smp "$smp"}) || infra "tools/guest/machine.py gave no timeout"
fi
case $timeout in ''|*[!0-9]*|0) infra "--timeout wants a positive number of seconds, not '$timeout'" ;; esac
factor=${TIMEOUT_FACTOR:-1}
case $factor in ''|*[!0-9]*|0) infra "TIMEOUT_FACTOR wants a positive integer, not '$factor'" ;; esac
timeout=$((timeout * factor))
command -v qemu-system-x86_64 >/dev/null || infra "qemu-system-x86_64 not installed (make deps)"

# The accelerator.  KVM only after it ran a vCPU here (tools/guest/kvm-probe.sh,
# with the CPU model of the boot): a /dev/kvm that opens may still abort
# QEMU or never run the guest.  The first line says what and why.
probe() {
	"$PIFUTEX_ROOT/tools/guest/kvm-probe.sh" --cpu host || true
}
fallback=0
case $accel in
auto)
	why=$(probe)
	case $why in
	'kvm probe passed'*) accel=kvm fallback=1 ;;
	*) accel=tcg ;;
	esac
	echo "run-qemu: ${why:-kvm probe gave no answer}; using $accel"
	;;
kvm)
	why=$(probe)
	case $why in
	'kvm probe passed'*) echo "run-qemu: $why; using kvm (--accel kvm)" ;;
	*) infra "--accel kvm: QEMU cannot run a guest with KVM here: ${why#kvm probe failed: }" ;;
	esac
	;;
tcg) echo "run-qemu: using tcg (--accel tcg)" ;;
*) infra "--accel wants auto, kvm or tcg, not '$accel'" ;;
esac

if [ -z "$log" ]; then
	mkdir -p "$PIFUTEX_BUILD/logs"
	log=$PIFUTEX_BUILD/logs/run-$(date +%Y%m%d-%H%M%S).log
fi
mkdir -p "$(dirname "$log")"

# qemu_cmd ACCEL: the QEMU command of a boot under ACCEL, in qemu[], as
# tools/guest/machine.py describes it (the TSC rate under TCG is this
# machine's).
qemu_cmd() {
	local args=(qemu --kernel "$kernel" --initrd "$initrd" --accel "$1")
	[ -n "$smp" ] && args+=(--smp "$smp")
	[ -n "$mem" ] && args+=(--mem "$mem")
	[ -n "$append" ] && args+=(--append "$append")
	[ $shell -eq 1 ] && args+=(--shell)
	[ $testmode -eq 1 ] || args+=(--no-test-mode)
	mapfile -t qemu < <(python3 "$machine" "${args[@]}")
	[ ${#qemu[@]} -gt 0 ] || infra "tools/guest/machine.py gave no QEMU command"
	echo "run-qemu: timeout ${timeout}s"
	printf '+ %s\n' "$(printf '%q ' "${qemu[@]}")"
}

if [ $shell -eq 1 ]; then
	qemu_cmd "$accel"
	exec "${qemu[@]}"
fi

# boot ACCEL LOG WATCH: run the boot under ACCEL, its serial log in LOG
# and on stdout as it comes.  Sets qrc (QEMU's exit status, 124 or 137
# when timeout killed it) and stalled.  WATCH > 0: when the kernel's
# first line ("Linux version") is not in the log after WATCH seconds,
# stop QEMU and set stalled=1 (a KVM that passed the probe but hangs
# later must not eat the whole timeout).
qpid=
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null; exit 130' INT
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null; exit 143' TERM
boot() {
	local out=$2 watch=$3 waited=0 tailpid
	qemu_cmd "$1"
	stalled=0
	: >"$out"
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$out" 2>&1 &
	qpid=$!
	tail -s 0.2 -n +1 -f --pid="$qpid" "$out" &
	tailpid=$!
	if [ "$watch" -gt 0 ]; then
		while kill -0 "$qpid" 2>/dev/null && ! grep -q 'Linux version' "$out"; do
			if [ "$waited" -ge "$watch" ]; then
				stalled=1
				kill "$qpid" 2>/dev/null || true
				break
			fi
			sleep 1
			waited=$((waited + 1))
		done
	fi
	set +e
	wait "$qpid"
	qrc=$?
	wait "$tailpid"
	set -e
	qpid=
}

# judge ACCEL LOG SECS [VERDICT-ARGS...]: tools/judge/verdict.py on LOG, its
# .json beside it; sets vrc (0 pass, 1 fail, 2 infra).
judge() {
	local acc=$1 out=$2 secs=$3 args
	shift 3
	echo "run-qemu: QEMU ran ${secs}s ($acc); serial log in $out"
	args=(--json "${out%.log}.json" --accel "$acc" "$@")
	[ -z "$name" ] || args+=(--name "$name")
	if [ "$stalled" -eq 1 ]; then
		args+=(--stalled "$watch")
	elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		args+=(--timed-out "$timeout")
	elif [ "$qrc" -ne 0 ]; then
		args+=(--qemu-rc "$qrc")
	fi
	set +e
	"$PIFUTEX_ROOT/tools/judge/verdict.py" "${args[@]}" "$out"
	vrc=$?
	set -e
}

# The kernel's first line comes within a second or two under KVM or
# TCG; a minute (at most half the timeout) is far beyond that.
watch=0
if [ $fallback -eq 1 ]; then
	watch=$((timeout / 2))
	[ $watch -le 60 ] || watch=60
fi
start=$(date +%s)
boot "$accel" "$log" "$watch"
judge "$accel" "$log" $(($(date +%s) - start))

# A boot that auto sent to KVM and that broke before the guest's begin
# marker (INFRA) runs again under TCG, once; its verdict names the
# failed attempt, whose log and .json stay beside it as LOG.kvm-attempt.*.
if [ $fallback -eq 1 ] && [ $vrc -eq 2 ] &&
	grep -q '"begun": false' "${log%.log}.json"; then
	attempt=${log%.log}.kvm-attempt
	mv "$log" "$attempt.log"
	mv "${log%.log}.json" "$attempt.json"
	echo "run-qemu: the kvm boot broke before the suites began; once more under tcg"
	accel=tcg
	watch=0
	start=$(date +%s)
	boot "$accel" "$log" 0
	judge "$accel" "$log" $(($(date +%s) - start)) --attempt "$attempt.json"
fi
case $vrc in
0) ;;
1) die "verdict FAIL: test failure (log: $log)" ;;
*) infra "verdict INFRA: infrastructure failure (log: $log)" ;;
esac
