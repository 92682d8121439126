#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stage.sh NAME CMD...: run one pipeline stage and print one progress line
# with its duration (or the failure).
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
