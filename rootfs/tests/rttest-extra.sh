#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the user's own .tst files (make run RTTEST_EXTRA=DIR), copied to
# /usr/share/pi-futex/tst-extra, with the in-guest rt-tester runner.
exec /usr/share/pi-futex/rt-tester/check-all.sh /usr/share/pi-futex/tst-extra
