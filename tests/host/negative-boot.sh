#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# negative-boot.sh SRC OBJ BZIMAGE GUESTBIN
#
# Negative control for the whole pipeline: boot the real kernel with the
# real sanity suite plus a canned failing suite, and require run-qemu.sh to
# exit non-zero with that suite marked FAIL and sanity still passing.  If
# this ever passes, the verdict is not reading the guest.
#
# The same boot breaks an invariant on purpose: rt-random.py with
# --break-model (the model ignores transitive boosts) must report a
# violation for seed 100 and shrink its reproducer to fewer steps than
# the failing run took, ending in the priority check that failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$1 obj=$2 bzimage=$3 guestbin=$4
work=$root/build/negative
mkdir -p "$work"
cat >"$work/runlist" <<'LIST'
sanity 60 /usr/share/pi-futex/tests/sanity.sh
canned-failure 30 /usr/share/pi-futex/tests/canned-failing-suite.sh
rt-random-broken 600 python3 /usr/share/pi-futex/tests/rt-random.py --break-model --seed 100 --scenarios 1 --steps 20 --dl-pct 0
LIST
"$root/tools/mkinitramfs.sh" --src "$src" \
	--release "$obj/include/config/kernel.release" --bindir "$guestbin" \
	--runlist "$work/runlist" --add "$here/canned-failing-suite.sh" \
	--out "$work/initramfs.cpio.gz" || exit 1
"$root/tools/run-qemu.sh" --kernel "$bzimage" --initrd "$work/initramfs.cpio.gz" \
	--timeout 900 --log "$root/build/logs/negative.log" >"$work/out" 2>&1
rc=$?
fail=0
[ $rc -ne 0 ] || { echo "negative: run-qemu.sh passed a failing suite" >&2; fail=1; }
grep -Eq '^canned-failure +1 +1 +0 +FAIL' "$work/out" ||
	{ echo "negative: canned-failure is not 1 pass / 1 fail / FAIL" >&2; fail=1; }
grep -Eq '^sanity +[1-9][0-9]* +0 +0 +PASS' "$work/out" ||
	{ echo "negative: sanity did not pass in the same boot" >&2; fail=1; }
grep -Eq '^rt-random-broken +0 +1 +0 +FAIL' "$work/out" ||
	{ echo "negative: rt-random --break-model did not fail" >&2; fail=1; }
log=$root/build/logs/negative.log
read -r from to < <(sed -n 's/.*# shrunk from \([0-9]*\) to \([0-9]*\) steps.*/\1 \2/p' "$log" | head -n 1)
if [ -z "${to:-}" ] || [ "$to" -ge "$from" ]; then
	echo "negative: the broken-model violation was not shrunk (${from:-?} -> ${to:-?})" >&2
	fail=1
fi
grep -q '#   T: prioeq: ' "$log" ||
	{ echo "negative: the reproducer lacks the failing prioeq check" >&2; fail=1; }
if [ $fail -ne 0 ]; then
	sed 's/^/  | /' "$work/out" >&2
	exit 1
fi
echo "negative control: verdict FAIL as expected (canned-failure 1 pass, 1 fail; sanity passed)"
echo "negative control: rt-random --break-model caught seed 100, reproducer shrunk from $from to $to steps"
