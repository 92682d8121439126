#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prove-fixes.sh SRC OBJ LOGDIR FLAVOUR FIX RUN-QEMU-OPTIONS...
#
# For every fix that tests/prove-fixes names for FLAVOUR (patches of the
# "fixes" mail series; only those starting with FIX unless FIX is
# empty): take it out of the fully patched tree SRC, rebuild OBJ
# incrementally, boot the whole suite with RUN-QEMU-OPTIONS (the
# Makefile's: the bzImage of OBJ, the initramfs, the vCPUs), and put it
# back.  Then boot the full series once more, and let
# tools/prove-report.py judge: each fix's tests must fail without it and
# pass with the series, and nothing else may fail.
#
# "Without the fix" is the series with that one commit reverted by git
# (three-way, so later patches that touch the same lines stay): the
# commits come from the work tree of `make export-check`.  The files the revert
# changes are copied into SRC and restored from the series afterwards,
# also when this script is interrupted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=${1:?usage: prove-fixes.sh SRC OBJ LOGDIR FLAVOUR FIX RUN-QEMU-OPTIONS...}
obj=${2:?}
logs=${3:?}
flavour=${4:?}
only=${5?}
shift 5
load_pin
expect=$PIFUTEX_ROOT/tests/prove-fixes
work=$PIFUTEX_ROOT/build/export-work-$PIN_LINE
[ -d "$work/.git" ] || die "$work missing (make export-check)"
mkdir -p "$logs"

mapfile -t series < <(series_patches)
n=${#series[@]}
select=(--flavour "$flavour" --pin "$PIN_LINE")
[ -z "$only" ] || select+=(--fix "$only")
fixes_out=$(python3 "$PIFUTEX_ROOT/tools/prove-report.py" --list "${select[@]}" "$expect") ||
	die "$expect cannot be read"
mapfile -t fixes < <(printf '%s\n' "$fixes_out" | sed '/^$/d')
[ ${#fixes[@]} -gt 0 ] || die "$expect names no fix${only:+ starting with $only} for FLAVOUR=$flavour"
fixes_group=$(series_mails | awk '$1 == "fixes" { print $2 }')
# The fixes whose kernel without them WARNs ("warns" rows): booted without
# panic_on_warn, so that the suites after the WARN still run.
warns=$(python3 "$PIFUTEX_ROOT/tools/prove-report.py" --list --warns "${select[@]}" "$expect")

# commit_of PATCH: the export work tree's commit of that patch (the
# series' i-th patch is HEAD~(n-i)).
commit_of() {
	local i
	i=$(series_index "$1")
	[ -n "$i" ] || die "$expect names $1, which is not in $SERIES_FILE"
	git -C "$work" rev-parse "HEAD~$((n - i))"
}

# The work tree must hold this series: its HEAD is the last patch.
[ "$(git -C "$work" log -1 --format=%s)" = "$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$PIFUTEX_ROOT/patches/${series[$((n - 1))]}")" ] ||
	die "$work does not hold the current series (make export-check)"

restore=()
put_back() {
	local f
	for f in "${restore[@]}"; do
		git -C "$work" show "HEAD:$f" >"$src/$f" && touch "$src/$f"
	done
	restore=()
}
trap 'put_back' EXIT

qemu_opts=("$@")
boot() { # NAME [RUN-QEMU-OPTION...]: boot the kernel in OBJ, verdict in LOGDIR/NAME.json
	local name=$1
	shift
	"$PIFUTEX_ROOT/tools/run-qemu.sh" "${qemu_opts[@]}" "$@" \
		--log "$logs/$name.log" >"$logs/$name.out" 2>&1 || true
	set -- "$name"
	[ -s "$logs/$1.json" ] || die "boot $1 left no verdict (see $logs/$1.out)"
	tail -n 2 "$logs/$1.out" | sed "s/^/  $1: /"
}

reports=()
for fix in "${fixes[@]}"; do
	printf '%s\n' "$fixes_group" | grep -qxF "$fix" ||
		die "$fix is not a patch of the \"fixes\" mail series"
	sha=$(commit_of "$fix")
	scratch=$PIFUTEX_ROOT/build/prove-revert-$PIN_LINE
	rm -rf "$scratch"
	git clone -q --shared --sparse "$work" "$scratch" 2>/dev/null ||
		die "git clone of $work failed"
	# shellcheck disable=SC2046 # the directories the fix touches
	git -C "$scratch" sparse-checkout add $(patch_files "$PIFUTEX_ROOT/patches/$fix" |
		xargs -r -n1 dirname | sort -u) ||
		die "git sparse-checkout in $scratch failed"
	git -C "$scratch" -c user.name=prove -c user.email=prove@localhost \
		revert --no-edit "$sha" >/dev/null ||
		die "git revert of $fix does not apply on the series"
	mapfile -t files < <(git -C "$scratch" diff --name-only HEAD~1 HEAD)
	for f in "${files[@]}"; do
		cmp -s "$work/$f" "$src/$f" ||
			die "$src/$f is not the series' version (make patch)"
	done
	restore=("${files[@]}")
	for f in "${files[@]}"; do
		cp "$scratch/$f" "$src/$f"
	done
	rm -rf "$scratch"
	name=prove-$PIN_LINE-$flavour-without-${fix%%-*}
	note "without $fix: ${files[*]}"
	"$PIFUTEX_ROOT/tools/build-kernel.sh" "$src" "$obj" >"$logs/$name.build" 2>&1 ||
		{ tail -n 20 "$logs/$name.build" >&2; die "the kernel without $fix does not build"; }
	if printf '%s\n' "$warns" | grep -qxF "$fix"; then
		boot "$name" --no-test-mode
	else
		boot "$name"
	fi
	put_back
	reports+=("$fix=$logs/$name.json")
done

name=prove-$PIN_LINE-$flavour-full
"$PIFUTEX_ROOT/tools/build-kernel.sh" "$src" "$obj" >"$logs/$name.build" 2>&1 ||
	{ tail -n 20 "$logs/$name.build" >&2; die "the full series does not build"; }
boot "$name"
python3 "$PIFUTEX_ROOT/tools/prove-report.py" "${select[@]}" "$expect" "$logs/$name.json" "${reports[@]}"
