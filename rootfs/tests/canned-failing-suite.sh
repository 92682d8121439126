#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Negative control: a guest suite that fails one of its two tests.  The
# host boots it beside the real suites and expects the verdict to be FAIL.
echo "KTAP version 1"
echo "1..2"
echo "ok 1 canned_pass"
if [ "$(cat /proc/sys/kernel/ostype)" = "NotLinux" ]; then
	echo "ok 2 canned_fail"
else
	echo "not ok 2 canned_fail"
fi
exit 1
