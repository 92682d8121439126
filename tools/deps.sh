#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--check] [--lava]
#
# Make sure the Debian packages the project needs are installed; install
# the missing ones with apt-get (running apt-get update first when the
# package lists are empty or stale).
#   --check   only report the missing packages, install nothing
#   --lava    add LAVA's dispatcher, which only the lava-* targets need
#             (without its recommends: those are the daemons of a lab's
#             worker)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
help_option "$@"

pkgs=(
	gcc make libc6-dev          # kernel build, static guest binaries
	flex bison bc cpio xz-utils # kbuild host tools, tarball
	gawk                        # kbuild's awk (lib.sh kernel_make_vars)
	libelf-dev libssl-dev       # objtool, certificates
	quilt patch                 # the series
	ccache                      # faster rebuilds
	qemu-system-x86             # the guest
	busybox-static              # the guest shell
	python3 python3.11          # harness, .tst runner (host and guest)
	python3-yaml                # LAVA jobs and logs (tools/lava/)
	rt-tests                    # pi_stress, pip_stress, cyclictest in the guest
	git perl                    # export / checkpatch
	b4                          # make b4-check: the mails as b4 makes them
	file
	shellcheck pyflakes3        # make lint on the harness's own scripts
	python3-matplotlib          # make bench plots
)
check=0
for arg in "$@"; do
	case $arg in
	--check) check=1 ;;
	--lava) pkgs+=(lava-dispatcher python3-jinja2) ;;
	*) die "unknown option $arg (--check, --lava)" ;;
	esac
done
missing=()
for p in "${pkgs[@]}"; do
	case $p in '#'*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ $check -eq 1 ]; then
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
