#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh pin DIR
# tree.sh describe DIR
# tree.sh prepare [--tests-only] [--objects REPO] DIR WORK MAILDIR|PATCH...
#
# A developer's own kernel tree (make run TREE=DIR).  DIR is a git work
# tree of Linux 6.12 or newer; nothing here writes to it (git runs with
# --no-optional-locks, so not even its index is refreshed).
#
# pin: the pin whose series fits DIR: the pin of DIR's VERSION.PATCHLEVEL
#   when there is one, else the mainline pin (pins/default) for a newer
#   tree; older than 6.12 is refused.
# describe: `git describe --tags --always --dirty` of DIR, the kernel's
#   name in the verdict.
# prepare: WORK becomes a clone of DIR's HEAD (objects copied: a shared
#   or hard-linked clone would let git "freshen" the mtime of DIR's packs)
#   with DIR's uncommitted changes and untracked files committed on top,
#   then the mails of each MAILDIR in order (not their cover letters)
#   with `git am -3` (a PATCH: that patch file, e.g. the series' own
#   localversion patch, which is not mailed).  --objects REPO (the
#   export work tree) fetches its commits, and each mail is applied as
#   the commit of REPO with its subject, by format-patch, whose index
#   lines let git am fall back to a three-way merge (the mails carry the
#   quilt files' diffs, most of them without blob ids).  A mail whose
#   reverse applies is already in the tree (upstream took it, or the
#   developer has it): skipped, with a note.  A mail that does not apply stops
#   prepare with its name and the files that conflict.  --tests-only
#   applies only the mails that touch nothing but
#   tools/testing/selftests/ (the suites that need no kernel patch) and
#   the localversion file.
#   WORK/.pi-futex-tree records what was done (describe, dirty, mode,
#   applied, skipped).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

# rgit DIR ARGS...: git in DIR, read-only.  status and diff refresh the
# index they read and write it back, even with --no-optional-locks, so
# they get a private copy of DIR's index (GIT_INDEX_FILE).
index_copy=''
trap '[ -z "$index_copy" ] || rm -f "$index_copy"' EXIT
rgit() {
	local d=$1
	shift
	[ -n "$index_copy" ] || die "internal: rgit before check_tree"
	GIT_INDEX_FILE=$index_copy git --no-optional-locks -C "$d" "$@"
}

# check_tree DIR: DIR is the top of a kernel's git work tree; makes the
# private copy of its index (in this shell, not in a subshell).
check_tree() {
	local idx
	[ -d "$1" ] || die "TREE=$1: no such directory"
	[ "$(git --no-optional-locks -C "$1" rev-parse --show-toplevel 2>/dev/null)" = \
		"$(cd "$1" && pwd -P)" ] || die "TREE=$1 is not the top of a git work tree"
	if [ -z "$index_copy" ]; then
		index_copy=$(mktemp)
		idx=$(git -C "$1" rev-parse --path-format=absolute --git-path index)
		# No index (a fresh clone without checkout): git reads none.
		if [ -f "$idx" ]; then
			cp "$idx" "$index_copy" || die "cannot copy $idx"
		else
			rm -f "$index_copy"
		fi
	fi
	grep -qs '^PATCHLEVEL = ' "$1/Makefile" ||
		die "TREE=$1 is not a kernel tree (no Makefile with PATCHLEVEL)"
}

# version DIR: VERSION.PATCHLEVEL of the kernel tree DIR.
version() {
	sed -n 's/^\(VERSION\|PATCHLEVEL\) = \([0-9]*\)$/\2/p' "$1/Makefile" | head -n 2 | paste -sd.
}

cmd_pin() {
	local v pin line best=''
	check_tree "$1"
	v=$(version "$1")
	for pin in "$PIFUTEX_ROOT"/pins/*; do
		[ "${pin##*/}" = default ] && continue
		line=$(sed -n 's/^PIN_LINE=//p' "$pin")
		[ "$line" = "$v" ] && best=${pin##*/}
	done
	if [ -z "$best" ]; then
		# sort -V: is v at least the oldest line the pins run (6.12)?
		[ "$(printf '%s\n6.12\n' "$v" | sort -V | head -n 1)" = 6.12 ] ||
			die "TREE=$1 is Linux $v; the series runs on 6.12 and newer"
		best=$(readlink "$PIFUTEX_ROOT/pins/default")
	fi
	echo "$best"
}

# (describe --dirty would refresh DIR's index, a write: the dirty state
# comes from status, which --no-optional-locks keeps read-only.)
cmd_describe() {
	local d
	check_tree "$1"
	d=$(rgit "$1" describe --tags --always) || die "git describe in $1 failed"
	[ -z "$(rgit "$1" status --porcelain --untracked-files=normal)" ] || d=$d-dirty
	echo "$d"
}

# mails_of MAILDIR|PATCH: the mails of an exported series in order, but
# its cover letter; or the one patch file named.
mails_of() {
	if [ -f "$1" ]; then
		echo "$1"
	else
		find "$1" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' \
			! -name 0000-cover-letter.patch | sort
	fi
}

# git_patch WORK MAIL: MAIL as git format-patch writes the commit of
# refs/pi-futex/series with MAIL's subject (index lines and all), in a
# file of WORK/.git; MAIL itself when no commit has its subject.
git_patch() {
	local subject sha out
	subject=$(git mailinfo /dev/null /dev/null <"$2" | sed -n 's/^Subject: //p')
	sha=$(git -C "$1" log --format='%H %s' -n 1000 refs/pi-futex/series |
		awk -v s="$subject" 'substr($0, 42) == s { print $1; exit }')
	if [ -z "$sha" ]; then
		echo "$2"
		return
	fi
	out=$1/.git/pi-futex-patches/$(basename "$2")
	mkdir -p "${out%/*}"
	git -C "$1" format-patch -q -1 --stdout "$sha" >"$out"
	echo "$out"
}

cmd_prepare() {
	local tests_only=0 objects='' dir work dirty=no describe mail name inputs
	local applied=() skipped=() conflict
	while [ $# -gt 0 ]; do
		case $1 in
		--tests-only) tests_only=1 ;;
		--objects) objects=$2; shift ;;
		*) break ;;
		esac
		shift
	done
	[ $# -ge 2 ] || die "usage: tree.sh prepare [--tests-only] [--objects REPO] DIR WORK MAILDIR..."
	dir=$(cd "$1" && pwd -P)
	work=$(realpath -m "$2")
	shift 2
	check_tree "$dir"
	for d in "$@"; do
		[ -f "$d" ] || [ -f "$d/0000-cover-letter.patch" ] ||
			die "no exported mail series in $d (make export-check)"
	done
	describe=$(cmd_describe "$dir")
	# What WORK is made of: DIR's HEAD, its uncommitted work, the mails
	# and the mode.  The same as last time: nothing to do.
	inputs=$( { rgit "$dir" rev-parse HEAD
		rgit "$dir" diff --binary HEAD
		rgit "$dir" ls-files -z --others --exclude-standard |
			(cd "$dir" && xargs -0 -r sha256sum --)
		for d in "$@"; do mails_of "$d" | xargs cat; done
		echo "tests_only=$tests_only"; } | sha256sum | cut -d' ' -f1)
	if [ -f "$work/.pi-futex-tree" ] &&
		grep -qx "inputs=$inputs" "$work/.pi-futex-tree"; then
		note "$describe: $work is up to date"
		return 0
	fi
	export GIT_COMMITTER_NAME="pi-futex" GIT_COMMITTER_EMAIL="pi-futex@localhost"
	export GIT_AUTHOR_NAME="pi-futex" GIT_AUTHOR_EMAIL="pi-futex@localhost"
	rm -f "$work/.pi-futex-tree"
	if [ -d "$work/.git" ]; then
		# Reuse the clone: a checkout rewrites only the files that
		# differ, so the kernel build stays incremental.
		git -C "$work" am --abort >/dev/null 2>&1 || true
		{ git -C "$work" reset -q --hard && git -C "$work" clean -q -fdx &&
			git -C "$work" fetch -q "$dir" HEAD; } ||
			die "updating $work from $dir failed (remove $work)"
	else
		rm -rf "$work"
		mkdir -p "$(dirname "$work")"
		git clone -q --no-hardlinks --no-checkout "$dir" "$work" || die "git clone of $dir failed"
	fi
	git -C "$work" checkout -q --detach "$(rgit "$dir" rev-parse HEAD)" ||
		die "checkout of $dir's HEAD in $work failed"
	# The developer's uncommitted work is part of the kernel under test.
	if [ -n "$(rgit "$dir" status --porcelain --untracked-files=normal)" ]; then
		dirty=yes
		rgit "$dir" diff --binary HEAD | git -C "$work" apply --whitespace=nowarn --allow-empty ||
			die "the uncommitted changes of $dir do not apply to its HEAD"
		rgit "$dir" ls-files -z --others --exclude-standard |
			(cd "$dir" && xargs -0 -r cp --parents -t "$work") ||
			die "copying the untracked files of $dir failed"
		git -C "$work" add -A
		git -C "$work" commit -q --allow-empty -m "pi-futex: uncommitted changes of $dir" ||
			die "commit of the uncommitted changes failed"
	fi
	if [ -n "$objects" ]; then
		git -C "$work" fetch -q "$objects" +HEAD:refs/pi-futex/series ||
			die "fetching the series' commits from $objects failed"
	fi
	for d in "$@"; do
		for mail in $(mails_of "$d"); do
			name=$(basename "$mail")
			# (From its ---/+++ lines: a quilt-made diff has no
			# "diff --git" lines.)
			if [ $tests_only -eq 1 ] && patch_files "$mail" |
				grep -qv -e '^tools/testing/selftests/' -e '^localversion'; then
				continue
			fi
			# The mails carry the quilt files' diffs, most without the
			# blob ids a three-way merge needs: apply the same commit
			# of the export work tree, found by its subject, instead.
			[ -z "$objects" ] || mail=$(git_patch "$work" "$mail")
			if git -C "$work" apply --check -R "$mail" >/dev/null 2>&1; then
				note "$name is already in the tree: skipped"
				skipped+=("$name")
				continue
			fi
			if ! git -C "$work" am -q -3 "$mail" >"$work/.git/pi-futex-am.log" 2>&1; then
				conflict=$(git -C "$work" diff --name-only --diff-filter=U)
				[ -n "$conflict" ] ||
					conflict=$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
						-e 's/^error: \(.*\): does not exist in index$/\1/p' \
						-e 's/^error: \(.*\): already exists in index$/\1/p' \
						-e 's/^error: sha1 information is lacking or useless (\(.*\))\.$/\1/p' \
						"$work/.git/pi-futex-am.log" | sort -u)
				git -C "$work" am --abort >/dev/null 2>&1 || true
				die "$name does not apply to $describe; conflicting files:" \
					"$(printf '%s\n' "$conflict" | paste -sd' ')" \
					"(TREE_TESTS_ONLY=1 runs the suites that need no kernel patch)"
			fi
			applied+=("$name")
		done
	done
	{
		echo "inputs=$inputs"
		echo "describe=$describe"
		echo "dirty=$dirty"
		echo "mode=$([ $tests_only -eq 1 ] && echo tests-only || echo series)"
		echo "applied=${applied[*]}"
		echo "skipped=${skipped[*]}"
	} >"$work/.pi-futex-tree"
	note "$describe: ${#applied[@]} mail(s) applied, ${#skipped[@]} already in the tree" \
		"$([ $tests_only -eq 1 ] && echo '(tests only)')"
}

case ${1:-} in
pin) cmd_pin "${2:?usage: tree.sh pin DIR}" ;;
describe) cmd_describe "${2:?usage: tree.sh describe DIR}" ;;
prepare) shift; cmd_prepare "$@" ;;
*) die "usage: tree.sh pin|describe|prepare ... (see --help)" ;;
esac
