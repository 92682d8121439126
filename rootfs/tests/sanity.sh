#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sanity suite: the guest runs the kernel we built, with the series applied,
# and the tools the other suites rely on work.
# KTAP through the kernel's own helpers (the patched tree's
# tools/testing/selftests/kselftest/ktap_helpers.sh, put in the image).
# shellcheck source=/dev/null
. /usr/share/pi-futex/tests/ktap_helpers.sh

# check NAME CMD...: pass when CMD exits 0, else fail with CMD as reason.
# (ktap_test_result would split the arguments of `test` again.)
check() {
	name=$1
	shift
	if "$@"; then
		ktap_test_pass "$name"
	else
		ktap_print_msg "$name: failed: $*"
		ktap_test_fail "$name"
	fi
}

ktap_print_header
ktap_set_plan 8

release=$(uname -r)
want=$(cat /etc/pi-futex/kernel.release)
echo "# uname -r: $release (built: $want)"
case $release in
*-pi-futex) ktap_test_pass uname_r_has_pi_futex_suffix ;;
*) ktap_test_fail uname_r_has_pi_futex_suffix ;;
esac
check uname_r_is_the_built_kernel test "$release" = "$want"

check proc_sys_kernel_present test -d /proc/sys/kernel -a \
	"$(cat /proc/sys/kernel/ostype 2>/dev/null)" = Linux

check sysfs_mounted test -d /sys/devices/system/cpu

out=$(python3 -c 'import os, re, sys, time, argparse, errno; print(6 * 7, sys.version_info[0])' 2>&1)
echo "# python3 said: $out"
check python3_starts test "$out" = "42 3"

# Every vCPU QEMU was given is online (run-qemu.sh passes pifutex.smp=N).
want_cpus=$(sed -n 's/.*pifutex\.smp=\([0-9]*\).*/\1/p' /proc/cmdline)
echo "# cpus online: $(nproc), QEMU gave: ${want_cpus:-?}"
check all_vcpus_online test "$(nproc)" = "${want_cpus:-0}"

# A SCHED_FIFO task shows up with its priority in /proc (field 18 of stat
# is -1 - rt_priority); the PI suites read priorities this way.
prio=$(python3 -c '
import os
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(42))
with open("/proc/self/stat") as f:
    print(f.read().rsplit(")", 1)[1].split()[15])' 2>&1)
echo "# SCHED_FIFO 42: stat priority field $prio"
check sched_fifo_prio_visible test "$prio" = -43

# A fine-grained clocksource (run-qemu.sh chooses it): not jiffies or
# refined-jiffies, whose 4 ms steps would quantise every timing bound.
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
ktap_print_msg "clocksource: ${cs:-?}"
case $cs in
'' | jiffies | refined-jiffies) ktap_test_fail clocksource_not_jiffies ;;
*) ktap_test_pass clocksource_not_jiffies ;;
esac

ktap_finished
