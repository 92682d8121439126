#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# model-prove.sh SRC OUTDIR [RUNS [WIDE]]
#
# Check that make model's checks (the programs named after the fix, the
# wider scopes of WIDE, OPTIONS:SEEDS each as make model's MODEL_WIDE
# (default "-p:20000 -P:20000 -C:20000 -Cp:20000 -CP:20000"), random
# programs of seeds 1..RUNS (default 150000), then every schedule of
# each other program of tools/testing/rtmutex/programs with at most one
# preemption) find each of the series' rt_mutex fixes taken out of the
# patched tree SRC: each
# must fail, within 60 seconds.  Then the 0003 question: the concurrent
# case of 0003's changelog, every schedule with at most one preemption,
# on 0003 v1 (tests/model/0003-v1.patch) and on today's 0003.
#
# The model builds from a copy of the files it compiles (kernel/locking,
# include/linux/rtmutex.h, tools/include, tools/lib/rbtree.c,
# include/linux/sched/rt.h, which 0005 changes, and kernel/sched/core.c
# and sched.h, which 0024 changes) under OUTDIR; SRC is not
# touched.  A fix is taken out as make prove-fixes
# does: tests/prove-without/NNNN.patch where the revert conflicts, else
# the fix's patch reversed.  Exit 0 when every fix is found and the 0003
# question comes out as recorded (v1 fails, today's passes), else 1.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

[ $# -ge 2 ] || die "usage: model-prove.sh SRC OUTDIR [RUNS [WIDE]]"
src=$(cd "$1" && pwd) || die "$1: no such tree"
out=$2
runs=${3:-150000}
wide=${4:--p:20000 -P:20000 -C:20000 -Cp:20000 -CP:20000}
model=$src/tools/testing/rtmutex
[ -f "$model/rtmutex_model.c" ] || die "$model: no rtmutex model (series not applied?)"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

FIXES=(0001 0003 0023 0005 0024 0025 0007)

# mini_tree DIR: the files the model compiles, copied from SRC.
mini_tree() {
	rm -rf "$1"
	mkdir -p "$1/kernel" "$1/include/linux" "$1/tools/lib" &&
	cp -r "$src/kernel/locking" "$1/kernel/" &&
	mkdir -p "$1/include/linux/sched" &&
	cp "$src/include/linux/rtmutex.h" "$1/include/linux/" &&
	cp "$src/include/linux/sched/rt.h" "$1/include/linux/sched/" &&
	mkdir -p "$1/kernel/sched" &&
	cp "$src/kernel/sched/core.c" "$src/kernel/sched/sched.h" "$1/kernel/sched/" &&
	cp -r "$src/tools/include" "$1/tools/" &&
	cp "$src/tools/lib/rbtree.c" "$1/tools/lib/"
}

# without FIX DIR: take FIX out of the mini tree DIR.
without() {
	local manual=$PIFUTEX_ROOT/tests/prove-without/$1.patch patch
	if [ -f "$manual" ]; then
		patch -s -p1 -d "$2" <"$manual"
	else
		patch=$(ls "$PIFUTEX_ROOT"/patches/"$1"-*.patch) || return 1
		patch -s -R -p1 -d "$2" <"$patch"
	fi
}

build() {	# TREE OUTPUT-PREFIX
	make -s -C "$model" TREE="$1" OUTPUT="$2" >"$2build.log" 2>&1
}

fail=0
printf '%-6s %-8s %8s  %s\n' fix result seconds "counterexample (or the run)"
for fix in "${FIXES[@]}"; do
	tree=$out/tree-$fix
	{ mini_tree "$tree" && without "$fix" "$tree"; } ||
		die "cannot take $fix out of a copy of $src"
	build "$tree" "$out/$fix-" || die "model build without $fix failed: $out/$fix-build.log"
	start=$(date +%s%N)
	m=$out/$fix-rtmutex_model
	(
		# The fix's own programs (named after it) first.
		for p in "$model"/programs/"$fix"-*.txt; do
			[ ! -f "$p" ] || "$m" -f "$p" -e 1 -t 60 || exit
		done
		for w in $wide; do
			"$m" "${w%%:*}" -n "${w##*:}" -x ||
				{ rc=$?; echo "scope: ${w%%:*}"; exit $rc; }
		done
		"$m" -n "$runs" -x || exit
		for p in "$model"/programs/*.txt; do
			case $(basename "$p") in "$fix"-*) continue ;; esac
			"$m" -f "$p" -e 1 -t 60 || exit
		done
	) >"$out/$fix.log" 2>&1
	rc=$?
	took=$((($(date +%s%N) - start) / 1000000))
	secs=$((took / 1000)).$((took % 1000 / 100))
	if [ $rc -eq 1 ] && [ "$took" -le 60000 ]; then
		scope=$(sed -n 's/^scope: \(.*\)/\1, /p' "$out/$fix.log")
		printf '%-6s %-8s %8s  %s\n' "$fix" found "$secs" \
			"$scope$(grep -m1 '^model: counterexample' "$out/$fix.log" |
			   sed 's/^model: counterexample (\([^)]*\)): /\1: /')"
	else
		printf '%-6s %-8s %8s  %s\n' "$fix" MISSED "$secs" "$(tail -1 "$out/$fix.log")"
		fail=1
	fi
done

# The 0003 question.
program=$model/programs/0003-concurrent-walks.txt
tree=$out/tree-0003-v1
{ mini_tree "$tree" && without 0003 "$tree" &&
	patch -s -p1 -d "$tree" <"$PIFUTEX_ROOT/tests/model/0003-v1.patch"; } ||
	die "cannot build 0003 v1 in a copy of $src"
build "$tree" "$out/0003-v1-" || die "model build of 0003 v1 failed"
build "$src" "$out/series-" || die "model build of the series failed"
for v in 0003-v1 series; do
	"$out/$v-rtmutex_model" -f "$program" -e 1 -t 600 >"$out/$v-0003.log" 2>&1
	rc=$?
	echo "0003 question, $v: $(head -1 "$out/$v-0003.log") (exit $rc)"
	case $v:$rc in
	0003-v1:1 | series:0) ;;
	*) fail=1 ;;
	esac
done
exit $fail
