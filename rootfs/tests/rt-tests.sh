#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's rt-tests as external clients of PI futexes.
#  - pi_stress: groups of low/medium/high threads on PI mutexes; it exits
#    non-zero when an inversion is not resolved.
#  - pip_stress: processes sharing a PI mutex; on a few TCG vCPUs it often
#    reports "No inversion incurred", so it only has to finish cleanly and
#    is no proof of PI on its own.
# shellcheck source=/dev/null
. /usr/share/pi-futex/tests/ktap_helpers.sh
ktap_print_header
ktap_set_plan 2
out=$(timeout -s KILL 120 pi_stress --duration 5 --groups 1 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 8 | sed 's/^/# /'
inv=$(printf '%s\n' "$out" | sed -n 's/.*Total inversion performed: *\([0-9]*\).*/\1/p' | tail -n1)
echo "# pi_stress: exit $rc, inversions ${inv:-?}"
if [ $rc -eq 0 ] && [ "${inv:-0}" -gt 0 ]; then
	ktap_test_pass pi_stress_5s_1group
else
	ktap_test_fail pi_stress_5s_1group
fi
out=$(timeout -s KILL 120 pip_stress 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 4 | sed 's/^/# /'
if [ $rc -eq 0 ]; then
	ktap_test_pass pip_stress_finishes
else
	ktap_print_msg "pip_stress: exit $rc"
	ktap_test_fail pip_stress_finishes
fi
ktap_finished
