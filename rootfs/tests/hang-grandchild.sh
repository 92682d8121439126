#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Negative control of the harness: a suite that never ends and leaves a
# grandchild holding its stdout.  /init must kill the whole process group
# at the suite's limit, report it as killed, and go on with the next
# suite; the host expects one passed test, one failure and the reason
# "killed at its limit".
echo "KTAP version 1"
echo "1..2"
echo "ok 1 hang_started"
echo "# hang-grandchild: a grandchild holds stdout, the child sleeps"
sleep 100000 &
sleep 100000
echo "not ok 2 hang_never_reached"
exit 1
