#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# beside.sh DIR start NAME CMD...
# beside.sh DIR wait NAME
#
# Run host-side checks beside a boot: a QEMU boot under TCG keeps about
# one of this machine's two cores busy (docs/times.md), so make check
# starts CMD in the background before a boot and waits for it after.
# start: CMD runs at nice 10 (the guest's vCPU threads come first), its
# output goes to DIR/NAME.log, its exit status to DIR/NAME.rc.  wait:
# until CMD ended, then its output on stdout and its exit status.  Never
# start one beside a kernel build: both want every core.
set -uo pipefail
case ${1:-} in
-h | --help)
	sed -n '4,13s/^# \{0,1\}//p' "$0"
	exit 0
	;;
esac
usage() { echo "usage: beside.sh DIR start NAME CMD... | beside.sh DIR wait NAME (see --help)" >&2; exit 2; }
[ $# -ge 3 ] || usage
dir=$1 op=$2 name=$3
shift 3
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "beside.sh: bad name '$name'" >&2; exit 2; }
mkdir -p "$dir" || exit 1
log=$dir/$name.log rc=$dir/$name.rc pidf=$dir/$name.pid
case $op in
start)
	[ $# -gt 0 ] || usage
	rm -f "$log" "$rc" "$pidf"
	# Not the caller's jobserver (this make outlives its recipe); its
	# command-line variables, yes.
	(
		flags=
		for f in ${MAKEFLAGS:-}; do
			case $f in --jobserver-*) ;; *) flags+=" $f" ;; esac
		done
		export MAKEFLAGS=${flags# }
		unset MFLAGS
		nice -n 10 "$@" </dev/null >"$log" 2>&1
		echo $? >"$rc.tmp" && mv "$rc.tmp" "$rc"
	) </dev/null >/dev/null 2>&1 &
	echo $! >"$pidf"
	echo "[beside] $name started beside the next boot (output: $log)" >&2
	;;
wait)
	[ $# -eq 0 ] || usage
	[ -f "$pidf" ] || { echo "beside.sh: $name was never started in $dir" >&2; exit 2; }
	pid=$(cat "$pidf")
	start=$(date +%s)
	while [ ! -f "$rc" ]; do
		if ! kill -0 "$pid" 2>/dev/null && [ ! -f "$rc" ]; then
			cat "$log" 2>/dev/null
			echo "beside.sh: $name (pid $pid) ended without an exit status" >&2
			exit 1
		fi
		sleep 1
	done
	cat "$log"
	status=$(cat "$rc")
	echo "[beside] $name: exit $status, waited $(($(date +%s) - start))s for it after the boot" >&2
	exit "$status"
	;;
*)
	usage
	;;
esac
