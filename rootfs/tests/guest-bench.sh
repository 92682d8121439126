#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench`: run pi-bench and report it as one KTAP test;
# its figures travel to the host as "# BENCH ..." diagnostics.
echo "KTAP version 1"
echo "1..1"
/usr/share/pi-futex/bin/pi-bench "${PI_BENCH_SCALE:-1}" 2>&1 | sed 's/^/# /'
echo "ok 1 pi_bench_ran"
