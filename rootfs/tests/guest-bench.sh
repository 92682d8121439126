#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench`, two KTAP tests; the figures travel to the
# host as "# BENCH <section> <kind> <metric> <value>" diagnostics.
#  1. pi-bench: inversion bound, hand-off and fast-path figures.
#  2. latency: cyclictest at SCHED_FIFO 95, one thread per CPU, while
#     pi_stress keeps inverting on PI mutexes below it; the wakeup
#     latency percentiles and the maximum, in microseconds.
scale=${PI_BENCH_SCALE:-1}
bin=/usr/share/pi-futex/bin
echo "KTAP version 1"
echo "1..2"

"$bin/pi-bench" "$scale" >/tmp/pi-bench.out 2>&1
rc=$?
sed 's/^/# /' /tmp/pi-bench.out
if [ "$rc" -eq 0 ]; then
	echo "ok 1 pi_bench"
else
	echo "not ok 1 pi_bench # exit $rc"
fi

# 30 s at scale 1, at least 5 s.
secs=$(awk -v s="$scale" 'BEGIN { d = int(30 * s); print d < 5 ? 5 : d }')
# 100 ms of 1 us buckets: TCG's latencies are milliseconds.
limit=100000
pi_stress --duration $((secs + 5)) --groups 2 --quiet >/tmp/pi_stress.out 2>&1 &
stress=$!
sleep 2
cyclictest -q -m -S -p 95 -i 1000 -D "$secs" -h "$limit" >/tmp/cyclictest.out 2>&1
crc=$?
wait "$stress"
src=$?
echo "# cyclictest: exit $crc, $secs s; pi_stress: exit $src"
# Sum the per-thread columns of cyclictest's histogram; overflows count
# as beyond the last bucket.
if ! awk -v limit="$limit" '
	/^[0-9]+[ \t]/ {
		for (i = 2; i <= NF; i++) { n[$1 + 0] += $i; total += $i }
		next
	}
	/^# Max Latencies:/ {
		for (i = 4; i <= NF; i++) if ($i + 0 > max) max = $i + 0
		next
	}
	/^# Histogram Overflows:/ {
		for (i = 4; i <= NF; i++) over += $i
		next
	}
	END {
		total += over
		if (total == 0) exit 1
		split("50 90 99 99.9", q, " ")
		split("p50 p90 p99 p99_9", name, " ")
		for (k = 1; k <= 4; k++) {
			want = total * q[k] / 100; c = 0; v = limit
			for (b = 0; b < limit; b++) {
				c += n[b]
				if (c >= want) { v = b; break }
			}
			printf "# BENCH latency cyclictest-pi_stress %s_us %d\n", name[k], v
		}
		printf "# BENCH latency cyclictest-pi_stress max_us %d\n", max
		printf "# BENCH latency cyclictest-pi_stress samples %d\n", total
		printf "# BENCH latency cyclictest-pi_stress overflows %d\n", over
	}' /tmp/cyclictest.out; then
	sed 's/^/# /' /tmp/cyclictest.out | tail -n 20
	echo "not ok 2 latency # no cyclictest histogram"
elif [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
	echo "not ok 2 latency # cyclictest exit $crc, pi_stress exit $src"
else
	echo "ok 2 latency"
fi
