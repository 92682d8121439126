#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prove-fixes.sh SRC OBJ LOGDIR FLAVOUR FIX RUN-QEMU-OPTIONS...
#
# For every fix that tests/prove-fixes names for FLAVOUR (patches of the
# fixes-* mail series; only those starting with FIX unless FIX is
# empty): take it out of the fully patched tree SRC, rebuild OBJ
# incrementally, boot the whole suite with RUN-QEMU-OPTIONS (the
# Makefile's: the bzImage of OBJ, the initramfs, the vCPUs), and put it
# back.  Then boot the full series once more, and let
# tools/prove/prove-report.py judge: each fix's tests must fail without it and
# pass with the series, and nothing else may fail.
#
# "Without the fix" is the series with that one commit reverted by git
# (three-way, so later patches that touch the same lines stay): the
# commits come from the work tree of `make export-check`.  The files the revert
# changes are copied into SRC and restored from the series afterwards,
# also when this script is interrupted.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src=${1:?usage: prove-fixes.sh SRC OBJ LOGDIR FLAVOUR FIX RUN-QEMU-OPTIONS...}
obj=${2:?}
logs=${3:?}
flavour=${4:?}
only=${5?}
shift 5
load_pin
expect=$PIFUTEX_ROOT/tests/prove-fixes
work=$(export_work)
mkdir -p "$logs"

select=(--flavour "$flavour" --pin "$PIN_LINE")
[ -z "$only" ] || select+=(--fix "$only")
fixes_out=$(python3 "$PIFUTEX_ROOT/tools/prove/prove-report.py" --list "${select[@]}" "$expect") ||
	die "$expect cannot be read"
mapfile -t fixes < <(printf '%s\n' "$fixes_out" | sed '/^$/d')
[ ${#fixes[@]} -gt 0 ] || die "$expect names no fix${only:+ starting with $only} for FLAVOUR=$flavour"
fixes_group=$(series_mails | awk '$1 ~ /^fixes-/ { print $2 }')
# The fixes whose kernel without them WARNs ("warns" rows): booted without
# panic_on_warn, so that the suites after the WARN still run.
warns=$(python3 "$PIFUTEX_ROOT/tools/prove/prove-report.py" --list --warns "${select[@]}" "$expect")
# "PATCH GLOB TEXT": the kernel without PATCH crashes in the KUnit tests
# GLOB.  It is booted once with only those, and once with no KUnit test
# for its other rows.
crashes=$(python3 "$PIFUTEX_ROOT/tools/prove/prove-report.py" --list --crashes "${select[@]}" "$expect")

check_export_work "$work"
trap 'restore_fix' EXIT

qemu_opts=("$@")
boot() { # NAME [RUN-QEMU-OPTION...]: boot the kernel in OBJ, verdict in LOGDIR/NAME.json
	local name=$1
	shift
	"$PIFUTEX_ROOT/tools/run-qemu.sh" "${qemu_opts[@]}" "$@" \
		--log "$logs/$name.log" >"$logs/$name.out" 2>&1 || true
	[ -s "$logs/$name.json" ] || die "boot $name left no verdict (see $logs/$name.out)"
	tail -n 2 "$logs/$name.out" | sed "s/^/  $name: /"
}

reports=()
for fix in "${fixes[@]}"; do
	printf '%s\n' "$fixes_group" | grep -qxF "$fix" ||
		die "$fix is not a patch of the \"fixes\" mail series"
	revert_fix "$work" "$src" "$fix"
	name=prove-$PIN_LINE-$flavour-without-${fix%%-*}
	note "without $fix: ${REVERTED[*]}"
	"$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" >"$logs/$name.build" 2>&1 ||
		{ tail -n 20 "$logs/$name.build" >&2; die "the kernel without $fix does not build"; }
	opts=()
	i=0
	while read -r -u 3 f glob _; do
		[ "$f" = "$fix" ] || continue
		i=$((i + 1))
		boot "$name-crash$i" --append "kunit.filter_glob=$glob"
		reports+=("$fix@$glob=$logs/$name-crash$i.json")
		opts=(--append kunit.enable=0)
	done 3<<<"$crashes"
	if printf '%s\n' "$warns" | grep -qxF "$fix"; then
		opts+=(--no-test-mode)
	fi
	boot "$name" "${opts[@]}"
	restore_fix
	reports+=("$fix=$logs/$name.json")
done

name=prove-$PIN_LINE-$flavour-full
"$PIFUTEX_ROOT/tools/kernel/build-kernel.sh" "$src" "$obj" >"$logs/$name.build" 2>&1 ||
	{ tail -n 20 "$logs/$name.build" >&2; die "the full series does not build"; }
boot "$name"
python3 "$PIFUTEX_ROOT/tools/prove/prove-report.py" "${select[@]}" "$expect" "$logs/$name.json" "${reports[@]}"
