#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of the harness (no kernel needed): each test module in
# its own unittest process, as many at a time as there are CPUs, their
# output printed module by module in name order.  Fails when one fails.
cd "$(dirname "$0")/../.." || exit 1
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2016
printf "%s\n" tests/host/test_*.py | xargs -n 1 -P "$(nproc)" sh -c '
	m=$(basename "$2" .py)
	python3 -m unittest discover -v -s tests/host -p "$m.py" >"$1/$m.log" 2>&1
	echo $? >"$1/$m.rc"' sh "$out"
fail=0 n=0
for f in tests/host/test_*.py; do
	m=$(basename "$f" .py)
	cat "$out/$m.log" 2>/dev/null
	rc=$(cat "$out/$m.rc" 2>/dev/null || echo 1)
	n=$((n + 1))
	if [ "$rc" -ne 0 ]; then
		echo "host tests: $m failed (exit $rc)" >&2
		fail=1
	fi
done
if [ $fail -eq 0 ]; then
	echo "host tests: $n modules passed"
fi
exit $fail
