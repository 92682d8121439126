#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tree's existing futex selftests (built static from the patched tree),
# one KTAP line per run; each binary's own output is kept as diagnostics.
# futex_pi, the series' own test, runs as a suite of its own.
# Not run: futex_wait, futex_requeue and futex_waitv sleep a fixed 10 ms
# and then expect their waiter threads to be blocked; a TCG guest does not
# guarantee that (a CI run saw futex_requeue's "many" case wake 0), and
# none of them uses PI.
#
# futex_requeue_pi: the 6.12 binary takes -b (broadcast), -l (locked) and
# -o (owner) and runs one case per call; since the kselftest-harness
# conversion (7.x) it rejects them and one plain run covers every variant.
# Its -h text tells which one the tree built.  futex_lock_pi_exiting (a
# PI lock racing with its owner's exit) runs where the tree has it.
# shellcheck source=/dev/null
. /usr/share/pi-futex/tests/ktap_helpers.sh
dir=/usr/share/pi-futex/selftests
set -- \
	"futex_wait_timeout" \
	"futex_wait_wouldblock" \
	"futex_wait_uninitialized_heap" \
	"futex_wait_private_mapped_file" \
	"futex_requeue_pi"
if "$dir/futex_requeue_pi" -h 2>&1 | grep -q 'Broadcast wakeup'; then
	set -- "$@" \
		"futex_requeue_pi -b -l -t 5000" \
		"futex_requeue_pi -o -t 500000"
fi
set -- "$@" \
	"futex_requeue_pi_signal_restart" \
	"futex_requeue_pi_mismatched_ops"
[ -x "$dir/futex_lock_pi_exiting" ] && set -- "$@" "futex_lock_pi_exiting"
ktap_print_header
ktap_set_plan $#
for t in "$@"; do
	name=$(echo "$t" | tr ' ' '_')
	# shellcheck disable=SC2086 # split the arguments
	out=$(cd "$dir" && timeout -s KILL 120 ./$t 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	if [ $rc -eq 0 ]; then
		ktap_test_pass "$name"
	else
		ktap_print_msg "$name: exit $rc"
		ktap_test_fail "$name"
	fi
done
ktap_finished
