#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the user's own .tst files (make run RTTEST_EXTRA=DIR), copied to
# /usr/share/pi-futex/tst-extra, with the in-guest rt-tester runner.
dir=/usr/share/pi-futex/tst-extra
runner=/usr/share/pi-futex/rt-tester/check-all.sh
if [ -x "$runner" ]; then
	exec "$runner" "$dir"
fi
# The runner lands with the rt-mutex tester patches; until then report
# each file as skipped so the plumbing is visible in the verdict.
set -- "$dir"/*.tst
echo "KTAP version 1"
echo "1..$#"
i=0
for f in "$@"; do
	i=$((i + 1))
	echo "ok $i ${f##*/} # SKIP rt-tester runner not installed"
done
