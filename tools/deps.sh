#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--check]: make sure the Debian packages the project needs are
# installed; install the missing ones with apt-get (running apt-get update
# first when the package lists are empty or stale).  --check only reports.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(
	gcc make libc6-dev          # kernel build, static guest binaries
	flex bison bc cpio xz-utils # kbuild host tools, tarball
	libelf-dev libssl-dev       # objtool, certificates
	quilt patch                 # the series
	ccache                      # faster rebuilds
	qemu-system-x86             # the guest
	busybox-static              # the guest shell
	python3 python3.11          # harness, .tst runner (host and guest)
	rt-tests                    # pi_stress, pip_stress, cyclictest in the guest
	git perl                    # export / checkpatch
	file
	shellcheck                  # make lint on the harness's own scripts
	python3-matplotlib          # make bench plots
)
missing=()
for p in "${pkgs[@]}"; do
	case $p in '#'*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "${1:-}" = --check ]; then
	die "missing packages: ${missing[*]} (run 'make deps')"
fi
note "installing: ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/pi-futex-apt.log 2>&1; then
	note "apt-get install failed; running apt-get update first"
	$sudo apt-get update >>/tmp/pi-futex-apt.log 2>&1 ||
		die "apt-get update failed (see /tmp/pi-futex-apt.log)"
	$sudo apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/pi-futex-apt.log 2>&1 ||
		die "apt-get install ${missing[*]} failed (see /tmp/pi-futex-apt.log)"
fi
note "installed: ${missing[*]}"
