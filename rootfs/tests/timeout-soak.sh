#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout-soak.sh RUNS: the futex_pi_boost cases whose waiter leaves by
# timeout, RUNS times each, beside one busy SCHED_OTHER loop per CPU.
# A case passes when every run passed (a run whose set-up outlasted the
# waiter's timeout is retried inside futex_pi_boost, not here).  KTAP.
runs=${1:-20}
dir=/usr/share/pi-futex/selftests
cases="stale_key_leave_by_timeout stale_key_handoff_then_leave_by_timeout deboost_chain_leave_by_timeout"
hogs=
cpus=$(grep -c ^processor /proc/cpuinfo)
i=0
while [ "$i" -lt "$cpus" ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done
echo "KTAP version 1"
echo "1..3"
n=0 failed=0
for c in $cases; do
	n=$((n + 1))
	bad=0 retried=0 r=0
	while [ "$r" -lt "$runs" ]; do
		r=$((r + 1))
		out=$("$dir/futex_pi_boost" -t "$c" 2>&1)
		if ! printf '%s\n' "$out" | grep -q "^ok 1 global\.$c\$"; then
			bad=$((bad + 1))
			printf '%s\n' "$out" | sed 's/^/# /'
		fi
		printf '%s\n' "$out" | grep -q 'expired during the set-up' &&
			retried=$((retried + 1))
	done
	echo "# $c: $runs runs beside $cpus busy loop(s), $bad failed, $retried retried with a longer timeout"
	if [ "$bad" -eq 0 ]; then
		echo "ok $n $c"
	else
		echo "not ok $n $c"
		failed=1
	fi
done
# shellcheck disable=SC2086 # one pid per word
kill $hogs 2>/dev/null
echo "# counts: $runs runs x 3 cases beside $cpus busy loop(s)"
exit "$failed"
