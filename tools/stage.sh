#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stage.sh NAME CMD...
#
# Run CMD as one pipeline stage of the Makefile and print one progress
# line on stderr, "[stage] NAME ok" with its duration, or FAIL with CMD's
# exit status; exits with CMD's status.
case ${1:-} in
-h | --help)
	sed -n '4,8s/^# \{0,1\}//p' "$0"
	exit 0
	;;
esac
[ $# -ge 2 ] || { echo "usage: stage.sh NAME CMD... (see --help)" >&2; exit 2; }
name=$1
shift
start=$(date +%s%N)
"$@"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
secs=$((ms / 1000)).$(((ms % 1000) / 100))
if [ $rc -eq 0 ]; then
	printf '[stage] %-12s ok    %6ss\n' "$name" "$secs" >&2
else
	printf '[stage] %-12s FAIL  %6ss (exit %d)\n' "$name" "$secs" $rc >&2
fi
exit $rc
