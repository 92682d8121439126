# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the pi-futex shell tools.  Source, do not execute.

# die_with STATUS MESSAGE: one line on stderr naming the tool, then exit
# STATUS; die MESSAGE exits 1.
die_with() {
	local status=$1
	shift
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit "$status"
}

die() {
	die_with 1 "$@"
}

note() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# help_option "$@": when the first argument is -h or --help, print the
# tool's usage, its header comment (the comment block after the #! and
# SPDX lines, without the leading "# "), on stdout and exit 0; else do
# nothing.  Tools call it right after sourcing this file, before
# anything with side effects.
help_option() {
	case ${1:-} in
	-h | --help) ;;
	*) return 0 ;;
	esac
	awk 'NR == 1 && /^#!/ { next }
		/^# SPDX-License-Identifier:/ { next }
		!/^#/ { exit }
		{ sub(/^# ?/, "") }
		!started && $0 == "" { next }
		{ started = 1; print }' "$0"
	exit 0
}

# Root of the repository (tools/..).
PIFUTEX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Where every output goes (the Makefile's BUILD).
PIFUTEX_BUILD=${PIFUTEX_BUILD:-$PIFUTEX_ROOT/build}

# pin_file: the pin of $KERNEL, else $PIN_FILE when set, else the one
# pins/default names.
pin_file() {
	local k=${KERNEL:-} f known=
	if [ -z "$k" ] && [ -n "${PIN_FILE:-}" ]; then
		printf '%s\n' "$PIN_FILE"
		return
	fi
	[ -n "$k" ] || k=$(readlink "$PIFUTEX_ROOT/pins/default")
	if [ ! -f "$PIFUTEX_ROOT/pins/$k" ]; then
		for f in "$PIFUTEX_ROOT"/pins/*; do
			[ "${f##*/}" = default ] || known="$known ${f##*/}"
		done
		die "unknown KERNEL=$k; pins:$known"
	fi
	printf '%s\n' "$PIFUTEX_ROOT/pins/$k"
}

# load_pin: read the PIN_* fields of the pin file (pins/7.3 explains
# them), check them, and set SERIES_FILE (unless already set).
load_pin() {
	local pin k
	pin=$(pin_file) || exit 1
	[ -r "$pin" ] || die "pin file $pin not found"
	for k in LINE ARCHIVE SUITE PACKAGE VERSION SHA256 TREE_MB SERIES; do
		eval "PIN_$k=\$(sed -n 's/^PIN_$k=//p' \"\$pin\")"
		[ -n "$(eval "printf %s \"\$PIN_$k\"")" ] || die "$pin: PIN_$k missing"
	done
	case $PIN_SHA256 in
	*[!0-9a-f]*) die "$pin: PIN_SHA256 is not a sha256 hex digest" ;;
	esac
	[ ${#PIN_SHA256} -eq 64 ] || die "$pin: PIN_SHA256 is not 64 hex digits"
	# shellcheck disable=SC2153 # PIN_LINE is set by the eval above
	case $PIN_VERSION in
	"$PIN_LINE".*) ;;
	*) die "$pin: PIN_VERSION $PIN_VERSION is not in the $PIN_LINE line" ;;
	esac
	case $PIN_TREE_MB in
	*[!0-9]*) die "$pin: PIN_TREE_MB is not a number of MB" ;;
	esac
	PIN_FILE=$pin
	: "${SERIES_FILE:=$PIFUTEX_ROOT/$PIN_SERIES}"
}

# pin_apt COMMAND ARGS...: apt-get or apt-cache on a private configuration
# that lists only the pin's suite, kept in the cache; the machine's own
# apt sources, lists and caches are neither read nor written.  The archive
# URI is the one the machine's apt uses for PIN_ARCHIVE, or $PIN_APT_URI.
pin_apt() {
	local cmd=$1 dir uri
	shift
	dir=$(cache_dir)/apt/$PIN_SUITE
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	if [ ! -s "$dir/sources.list" ]; then
		# shellcheck disable=SC2016 # $(REPO_URI) is apt's field, not a shell expansion
		uri=${PIN_APT_URI:-$(apt-get indextargets --format '$(REPO_URI)' \
			2>/dev/null | grep "/$PIN_ARCHIVE/\$" | sort -u | head -n1)}
		[ -n "$uri" ] ||
			die "no apt source of the machine serves the Debian archive '$PIN_ARCHIVE'; set PIN_APT_URI to its URL"
		printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
			"${uri%/}" "$PIN_SUITE" >"$dir/sources.list.tmp"
		mv "$dir/sources.list.tmp" "$dir/sources.list"
	fi
	"$cmd" -o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" "$@"
}

# pin_tarball VERSION DIR: download PIN_PACKAGE=VERSION with pin_apt into
# DIR and extract the tarball it carries to DIR/tarball.  Updates the
# private package lists once when the version is not found.  Dies with
# one line when the version is not served.
pin_tarball() {
	local version=$1 dir=$2 deb
	if ! (cd "$dir" && pin_apt apt-get download "$PIN_PACKAGE=$version") \
		>"$dir/apt.log" 2>&1; then
		pin_apt apt-get update >"$dir/update.log" 2>&1 ||
			note "apt-get update of $PIN_SUITE failed; using the lists at hand"
		if ! (cd "$dir" && pin_apt apt-get download "$PIN_PACKAGE=$version") \
			>"$dir/apt.log" 2>&1; then
			sed 's/^/  apt: /' "$dir/apt.log" >&2
			die "$PIN_PACKAGE=$version is not served by $PIN_SUITE; run 'make repin KERNEL=$PIN_LINE' to move the pin to the newest served $PIN_LINE version"
		fi
	fi
	deb=$(find "$dir" -maxdepth 1 -name '*.deb' | head -n1)
	[ -n "$deb" ] || die "apt-get download produced no .deb for $PIN_PACKAGE=$version"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$PIN_PACKAGE.tar.xz" >"$dir/tarball" 2>/dev/null ||
		die "$deb holds no usr/src/$PIN_PACKAGE.tar.xz"
	rm -f "$deb"
}

# sha_of FILE: its sha256, hex.
sha_of() {
	sha256sum "$1" | cut -d' ' -f1
}

cache_dir() {
	printf '%s/pi-futex\n' "${XDG_CACHE_HOME:-$HOME/.cache}"
}

# pin_cached_tarball: where the pin's verified tarball is cached (the
# version made file-system friendly: '~' and ':' become '_').
pin_cached_tarball() {
	printf '%s/%s-%s.tar.xz\n' "$(cache_dir)" "$PIN_PACKAGE" \
		"$(printf '%s' "$PIN_VERSION" | tr '~:' '__')"
}

# series_patches: the patches the pin's series file names, in order.
series_patches() {
	[ -n "${SERIES_FILE:-}" ] || load_pin
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$SERIES_FILE" |
		awk '{ print $1 }'
}

# series_mails: "NAME PATCH" for every patch of the pin's series that is
# mailed, NAME being the series of the "# mail: NAME" line above it
# ("# mail: -" ends the mailed part).  Fails when a mailed patch
# comes before the first such line.
series_mails() {
	[ -n "${SERIES_FILE:-}" ] || load_pin
	awk -v file="$SERIES_FILE" '
		/^# mail: / { group = $3; next }
		/^[[:space:]]*(#|$)/ { next }
		group == "" { printf "%s: %s comes before any \"# mail:\" line\n", file, $1 > "/dev/stderr"; bad = 1; exit }
		group != "-" { print group, $1 }
		END { exit bad }' "$SERIES_FILE"
}

# The identity the patch files carry; dco_identity prints the one the
# exported mails get instead: $PIFUTEX_DCO ("Name <address>"), else git's
# user.name and user.email, else the project identity.
PIFUTEX_PROJECT_ID="Pi Futex Developers <pi-futex@example.org>"
dco_identity() {
	local name email
	if [ -n "${PIFUTEX_DCO:-}" ]; then
		case $PIFUTEX_DCO in
		*' <'*@*'>') printf '%s\n' "$PIFUTEX_DCO"; return ;;
		*) die "DCO='$PIFUTEX_DCO' is not \"Name <address>\"" ;;
		esac
	fi
	name=$(git config user.name 2>/dev/null || true)
	email=$(git config user.email 2>/dev/null || true)
	if [ -n "$name" ] && [ -n "$email" ]; then
		printf '%s <%s>\n' "$name" "$email"
	else
		printf '%s\n' "$PIFUTEX_PROJECT_ID"
	fi
}

# series_index PATCH: the 1-based position of PATCH in the pin's series.
series_index() {
	series_patches | grep -nxF "$1" | cut -d: -f1
}

# patch_files FILE...: every path the patch files change or create.
patch_files() {
	sed -n -e 's|^--- a/\([^[:space:]]*\).*|\1|p' \
		-e 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$@" | sort -u
}

# series_files: every path a patch of the series changes or creates.
series_files() {
	local p
	for p in $(series_patches); do
		patch_files "${PATCHES_DIR:-$PIFUTEX_ROOT/patches}/$p"
	done | sort -u
}

# pc_files TREE: the files the applied quilt patches of TREE saved in
# .pc/, that is every file they changed or created.
pc_files() {
	(cd "$1/.pc" && find . -mindepth 2 -type f ! -name .timestamp \
		-printf '%P\n' | cut -d/ -f2- | sort -u)
}

# The series without one fix, in the patched tree (make prove-fixes, make
# bench BENCH_WITHOUT=): the fix's commit in the work tree of `make
# export-check` ($1 of revert_fix) is reverted by git, three-way, so that
# later patches touching the same lines stay, and the files the revert
# changes are copied into the tree.  Where that revert conflicts,
# tests/prove-without/NNNN.patch, applied to the whole series, is the
# series without fix NNNN.  restore_fix puts the series' versions
# back (touched, so that kbuild rebuilds them).  Callers set a trap on
# restore_fix.
REVERTED=()
REVERT_WORK=
REVERT_SRC=

# revert_fix WORK SRC PATCH: SRC without PATCH; sets REVERTED.
revert_fix() {
	local work=$1 src=$2 fix=$3 i n sha scratch f manual
	i=$(series_index "$fix")
	[ -n "$i" ] || die "$fix is not in $SERIES_FILE"
	scratch=$PIFUTEX_BUILD/revert-$PIN_LINE
	rm -rf "$scratch"
	git clone -q --shared --sparse "$work" "$scratch" 2>/dev/null ||
		die "git clone of $work failed"
	# shellcheck disable=SC2046 # the directories the fix touches
	git -C "$scratch" sparse-checkout add $(patch_files "$PIFUTEX_ROOT/patches/$fix" |
		xargs -r -n1 dirname | sort -u) ||
		die "git sparse-checkout in $scratch failed"
	manual=$PIFUTEX_ROOT/tests/prove-without/${fix%%-*}.patch
	if [ -f "$manual" ]; then
		# A fix whose revert conflicts with a later patch: the series
		# without it, written by hand against the whole series.
		git -C "$scratch" apply "$manual" ||
			die "$manual does not apply on the series"
		git -C "$scratch" -c user.name=revert -c user.email=revert@localhost \
			commit -q -a -m "without $fix" ||
			die "$manual changes nothing"
	else
		# The series' i-th patch is HEAD~(n-i) of the work tree.
		n=$(series_patches | wc -l)
		sha=$(git -C "$work" rev-parse "HEAD~$((n - i))")
		git -C "$scratch" -c user.name=revert -c user.email=revert@localhost \
			revert --no-edit "$sha" >/dev/null ||
			die "git revert of $fix does not apply on the series" \
				"(write tests/prove-without/${fix%%-*}.patch)"
	fi
	mapfile -t REVERTED < <(git -C "$scratch" diff --name-only HEAD~1 HEAD)
	for f in "${REVERTED[@]}"; do
		cmp -s "$work/$f" "$src/$f" ||
			die "$src/$f is not the series' version (make patch)"
	done
	REVERT_WORK=$work REVERT_SRC=$src
	for f in "${REVERTED[@]}"; do
		cp "$scratch/$f" "$src/$f"
	done
	rm -rf "$scratch"
}

# restore_fix: undo revert_fix.
restore_fix() {
	local f
	for f in "${REVERTED[@]}"; do
		git -C "$REVERT_WORK" show "HEAD:$f" >"$REVERT_SRC/$f" &&
			touch "$REVERT_SRC/$f"
	done
	REVERTED=()
}

# export_work: the git work tree in which `make export` or `export-check`
# applied the pin's series, a commit per patch.
export_work() {
	printf '%s\n' "$PIFUTEX_BUILD/export-work-$PIN_LINE"
}

# check_export_work WORK: WORK holds the current series (its HEAD is the
# last patch's commit).
check_export_work() {
	local last
	[ -d "$1/.git" ] || die "$1 missing (make export-check)"
	last=$(series_patches | tail -n 1)
	[ "$(git -C "$1" log -1 --format=%s)" = "$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$PIFUTEX_ROOT/patches/$last")" ] ||
		die "$1 does not hold the current series (make export-check)"
}

# The make variables of every kernel build of the harness: gcc, through
# ccache when present, and LOCALVERSION set but empty, so that
# setlocalversion adds no "+" for a git tree that is not at a tag (make
# run TREE=DIR): the release stays VERSION-pi-futex.
# AWK=gawk: kbuild generates arch/x86's cpufeaturemasks.h with awk, and
# mawk and gawk walk its arrays in different orders; the header every
# object includes would change (a build from scratch) the day LAVA's
# packages pull gawk in and /usr/bin/awk turns from mawk into gawk.
kernel_make_vars() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	printf '%s\n' ARCH=x86_64 "CC=$cc" AWK=gawk LOCALVERSION=
}

# kernel_make SRC OBJ TARGET...: kbuild of SRC out of tree in OBJ, on
# every CPU, with kernel_make_vars.
kernel_make() {
	local src=$1 obj=$2 vars
	shift 2
	mapfile -t vars < <(kernel_make_vars)
	make -C "$src" O="$obj" "${vars[@]}" -j"$(nproc)" "$@"
}
