#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# negative-boot.sh LOG RUN-QEMU-OPTIONS...
#
# Negative control for the whole pipeline: boot the real kernel with the
# real sanity suite plus a canned failing suite (the image the Makefile
# built from rootfs/runlist-negative, named in the options), and
# require run-qemu.sh to exit 1, a test failure, with that suite marked
# FAIL and sanity still passing.  If this ever passes, the verdict is not
# reading the guest.  The serial log is LOG.log.
#
# hang-grandchild never ends and leaves a grandchild holding its output:
# /init must kill its process group at its 10 s limit, the verdict must
# name it as killed, and the suite after it must still run.
#
# The same boot breaks an invariant on purpose: rt-random.py with
# --break-model (the model ignores transitive boosts) must report a
# violation for seed 100 and shrink its reproducer to fewer steps than
# the failing run took, ending in the priority check that failed.
set -uo pipefail
base=${1:?usage: negative-boot.sh LOG RUN-QEMU-OPTIONS...}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
log=$base.log
out=$base.out
mkdir -p "$(dirname "$base")"
"$root/tools/run-qemu.sh" --timeout 900 "$@" --log "$log" >"$out" 2>&1
rc=$?
fail=0
[ $rc -eq 1 ] || { echo "negative: run-qemu.sh exited $rc, not 1 (test failure)" >&2; fail=1; }
grep -Eq '^canned-failure +1 +1 +0 +FAIL' "$out" ||
	{ echo "negative: canned-failure is not 1 pass / 1 fail / FAIL" >&2; fail=1; }
grep -Eq '^sanity +[1-9][0-9]* +0 +0 +PASS' "$out" ||
	{ echo "negative: sanity did not pass in the same boot" >&2; fail=1; }
grep -Eq '^hang-grandchild +1 +[1-9][0-9]* +0 +FAIL' "$out" ||
	{ echo "negative: hang-grandchild is not 1 pass / failed / FAIL" >&2; fail=1; }
grep -q 'suite hang-grandchild killed at its limit of 10s' "$out" ||
	{ echo "negative: the verdict does not name hang-grandchild as killed at its limit" >&2; fail=1; }
grep -Eq '^rt-random-broken +0 +1 +0 +FAIL' "$out" ||
	{ echo "negative: rt-random --break-model did not fail" >&2; fail=1; }
read -r from to < <(sed -n 's/.*# shrunk from \([0-9]*\) to \([0-9]*\) steps.*/\1 \2/p' "$log" | head -n 1)
if [ -z "${to:-}" ] || [ "$to" -ge "$from" ]; then
	echo "negative: the broken-model violation was not shrunk (${from:-?} -> ${to:-?})" >&2
	fail=1
fi
grep -q '#   T: prioeq: ' "$log" ||
	{ echo "negative: the reproducer lacks the failing prioeq check" >&2; fail=1; }
if [ $fail -ne 0 ]; then
	sed 's/^/  | /' "$out" >&2
	exit 1
fi
echo "negative control: verdict FAIL as expected (canned-failure 1 pass, 1 fail; sanity passed)"
echo "negative control: hang-grandchild killed at its 10 s limit and named; the suites after it ran"
echo "negative control: rt-random --break-model caught seed 100, reproducer shrunk from $from to $to steps"
