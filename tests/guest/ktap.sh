# SPDX-License-Identifier: GPL-2.0
# Minimal KTAP emitter for guest shell suites.  Source it, call
# ktap_plan N, then ktap_ok/ktap_fail/ktap_skip per test, ktap_finish last.
KTAP_N=0
KTAP_FAILED=0

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_ok() {
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1"
}

ktap_fail() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	shift_msg=${2:+ ($2)}
	echo "# $1: FAILED$shift_msg"
	echo "not ok $KTAP_N $1"
}

ktap_skip() {
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1 # SKIP $2"
}

# ktap_check NAME CMD...: ok when CMD exits 0.
ktap_check() {
	name=$1
	shift
	if "$@"; then ktap_ok "$name"; else ktap_fail "$name" "$*"; fi
}

ktap_finish() {
	echo "# Totals: pass:$((KTAP_N - KTAP_FAILED)) fail:$KTAP_FAILED skip:0"
	[ "$KTAP_FAILED" -eq 0 ]
}
