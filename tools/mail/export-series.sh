#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export-series.sh export|export-check|apply-check|apply-fixes DIR
#
# Turn the quilt series into patch mails (export, export-check) and check
# that the mails apply (apply-check, apply-fixes).  Works on the pin of
# $KERNEL (the mainline pin is the one mailed), whose patched tree is
# $PIFUTEX_SRC.
#
# export: apply the quilt series with `git am` onto a git import of the
#   pinned tree and write one mail series per "# mail: NAME" group of the
#   series file to build/outgoing/<line>/NAME/: numbered mails
#   "[PATCH v1 N/M]" and 0000-cover-letter.patch (summary from
#   patches/cover-letter-NAME.txt, the testing done (the verdict .json in
#   $RUN_VERDICT), the diffstat, the Cc list from get_maintainer.pl and a
#   base-commit naming the pinned version; a later group lists the
#   earlier ones as prerequisite patches).  Each mail keeps the diff of
#   its patch file as written (the fixes' selftest is kept at two lines
#   of context so that it applies to every pin).  From: and
#   Signed-off-by: of the project identity become $PIFUTEX_DCO
#   ("Name <address>"), by default git's user.name and user.email; with
#   neither, export refuses to write mails.
# export-check: the same mails with the placeholder identity allowed, in
#   build/outgoing-check/<line>/, for apply-check and prove-fixes; never
#   mailed.
# apply-check: `git am` every exported series, in order, onto a clean
#   import of the pinned tree and check that the result matches the
#   quilt-patched tree.
# apply-fixes DIR: `git am` the mails in DIR (a mainline fixes-* series)
#   onto a clean import of this pin: the stable backport check.
# b4-check: each exported series as b4 makes it: `git am` onto a clean
#   import, `b4 prep -e` on the result with the series' cover text, and
#   `b4 send -o` (a dry run, offline, unsigned) into
#   build/outgoing-b4/<line>/NAME/.  b4 must make one message per mail and
#   a cover letter, each with the mail's subject, trailers and changed
#   lines.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

mode=${1:?usage: export-series.sh export|export-check|apply-check|apply-fixes DIR|b4-check}
load_pin
build=$PIFUTEX_BUILD
src=${PIFUTEX_SRC:?export-series.sh: PIFUTEX_SRC, the patched tree, is not set}
base=$build/git-base-$PIN_LINE.git
# The mails that apply-check and prove-fixes use: export-check's.
out=$build/outgoing-check/$PIN_LINE
tarball=$(pin_cached_tarball)
# git am and the cover letter need an identity even where git has none.
export GIT_COMMITTER_NAME="Pi Futex Developers" GIT_COMMITTER_EMAIL="pi-futex@example.org"
upstream=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \(.*\)/\2/p' "$src/Makefile" | paste -sd.)

# maintainers OPTION... MAIL...: get_maintainer.pl of the patched tree on
# the mails, without git; nothing when it fails.
maintainers() {
	(cd "$src" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats "$@" 2>/dev/null) || true
}

import_base() {
	if [ -f "$base/pi-futex-pin" ] && [ "$(cat "$base/pi-futex-pin")" = "$PIN_SHA256" ]; then
		return
	fi
	[ -f "$tarball" ] || die "$tarball missing (make fetch)"
	rm -rf "$base" "$base.tmp"
	git init -q --bare "$base.tmp" || die "git init of $base.tmp failed"
	# A fixed identity and date make the import commit reproducible.
	"$PIFUTEX_ROOT/tools/kernel/tar-to-git.py" "$tarball" "$base.tmp" \
		"Debian $PIN_PACKAGE" nobody@localhost 946684800 \
		"Linux $upstream (Debian $PIN_PACKAGE $PIN_VERSION)" >/dev/null ||
		die "git import of the pinned tree failed"
	echo "$PIN_SHA256" >"$base.tmp/pi-futex-pin"
	mv "$base.tmp" "$base"
}

# series_dirs: the directories the series touches (sparse-checkout cone).
series_dirs() {
	series_files | xargs -r -n1 dirname | grep -vx '\.' | sort -u
}

# fresh_clone DIR: a throw-away clone of the import that borrows its
# objects and checks out only the top-level files and the directories
# the series touches, which is all git am and the comparison need.
fresh_clone() {
	rm -rf "$1"
	git clone -q --shared --sparse "$base" "$1" ||
		die "git clone of $base failed"
	# shellcheck disable=SC2046
	(cd "$1" && git sparse-checkout add $(series_dirs)) ||
		die "git sparse-checkout in $1 failed"
}

# am_mails WORK DIR: `git am` the mails of DIR (not its cover letter) in
# WORK, in order; adds their number to $n.
am_mails() {
	local f
	[ -f "$2/0000-cover-letter.patch" ] || die "no exported series in $2 (make export)"
	for f in "$2"/0[0-9][0-9][0-9]-*.patch; do
		[ "$(basename "$f")" = 0000-cover-letter.patch ] && continue
		(cd "$1" && git am -q "$f") ||
			{ (cd "$1" && git am --abort) || true
			  die "git am of ${f#"$out"/} failed on Linux $upstream ($PIN_VERSION)"; }
		n=$((n + 1))
	done
}

case $mode in
export|export-check)
	project_id=$PIFUTEX_PROJECT_ID
	if [ "$mode" = export ]; then
		dco=$(dco_identity)
		[ "$dco" != "$project_id" ] ||
			die "the mails would carry the patch files' placeholder identity," \
				"$project_id; set DCO='Name <address>'" \
				"(make export DCO=...) or git's user.name and user.email"
		out=$build/outgoing/$PIN_LINE
	else
		dco=$project_id
	fi
	import_base
	work=$(export_work)
	fresh_clone "$work"
	n=0
	for p in $(series_patches); do
		(cd "$work" && git am -q "$PIFUTEX_ROOT/patches/$p") ||
			{ (cd "$work" && git am --abort) || true
			  die "git am of $p failed"; }
		n=$((n + 1))
	done
	basesha=$(cd "$work" && git rev-parse HEAD~$n)
	mails=$(series_mails) || die "bad \"# mail:\" lines in $SERIES_FILE"
	groups=$(printf '%s\n' "$mails" | awk '!seen[$1]++ { print $1 }')
	# The commit of the series' i-th patch (1-based) is HEAD~(n-i).
	rm -rf "$out" && mkdir -p "$out"
	# get_maintainer.pl wants a whole tree: the quilt-patched one, which
	# apply-check proves identical to what git am makes.
	for g in $groups; do
		names=$(printf '%s\n' "$mails" | awk -v g="$g" '$1 == g { print $2 }')
		first=$(series_index "$(printf '%s\n' "$names" | head -n1)")
		last=$(series_index "$(printf '%s\n' "$names" | tail -n1)")
		[ "$((last - first + 1))" -eq "$(printf '%s\n' "$names" | wc -l)" ] ||
			die "the patches of mail series $g are not contiguous in $SERIES_FILE"
		blurb=$PIFUTEX_ROOT/patches/cover-letter-$g.txt
		[ -f "$blurb" ] || die "no cover letter text $blurb for mail series $g"
		dir=$out/$g
		(cd "$work" && git format-patch -q -v1 --cover-letter --thread \
			--base="$basesha" -o "$dir" \
			"HEAD~$((n - first + 1))..HEAD~$((n - last))") ||
			die "git format-patch of mail series $g failed"
		i=0
		for f in "$dir"/v1-*.patch; do
			dst=$dir/$(basename "$f" | sed 's/^v1-//')
			mv "$f" "$dst"
			case $dst in */0000-cover-letter.patch) continue ;; esac
			i=$((i + 1))
			src_patch=$PIFUTEX_ROOT/patches/$(printf '%s\n' "$names" | sed -n "${i}p")
			# The mail's headers and changelog, the patch file's diff.
			python3 - "$dst" "$src_patch" <<'PY'
import sys
mail, patch = sys.argv[1:3]
m = open(mail).read()
p = open(patch).read()
cut = '\n---\n'
if cut not in m or cut not in p:
    sys.exit(f'{mail}: no "---" line')
open(mail, 'w').write(m[:m.index(cut)] + p[p.index(cut):])
PY
		done
		cover=$dir/0000-cover-letter.patch
		cc=$(maintainers --no-l "$dir"/0[0-9][0-9][0-9]-*.patch |
			sed -n '/@/p' | sort -u)
		lists=$(maintainers --no-m --no-r "$dir"/0[0-9][0-9][0-9]-*.patch |
			sort -u)
		case $g in
		fixes-*) cc=$(printf '%s\nstable@vger.kernel.org\n' "$cc" | sed '/^$/d' | sort -u) ;;
		esac
		# The verdict of the main boot of this pin (make run, or make
		# check's boot at SMP vCPUs), named by the Makefile.
		testing=${RUN_VERDICT:-}
		python3 - "$cover" "$blurb" \
			"$PIN_PACKAGE $PIN_VERSION" "$PIN_SHA256" "$upstream" "$testing" \
			"$cc" "$lists" <<'PY'
import json, os, sys
cover, blurb_file, pin, sha, upstream, testing, cc, lists = sys.argv[1:9]
text = open(cover).read()
blurb = open(blurb_file).read().strip()
title, _, body = blurb.partition('\n')
summary = ''
if os.path.exists(testing):
    v = json.load(open(testing))
    rows = [f"  {s['suite']:<18} {s['pass']:>4} passed {s['fail']:>3} failed "
            f"{s['skip']:>3} skipped" for s in v['suites']]
    accel = f", {v['accel'].upper()}" if v.get('accel') else ''
    summary = ('\nLast run of `make run` (tools/run-qemu.sh, '
               f"{v.get('kernel')}, {v.get('cpus')} vCPUs{accel}, verdict "
               f"{v['verdict'].upper()}):\n" + '\n'.join(rows) + '\n')
body = body.strip() + '\n' + summary + (
    f'\nBase: Linux {upstream} as shipped in Debian {pin}\n'
    f'(tarball sha256 {sha});\n'
    'the base-commit below is the git import of that tarball.\n')
text = text.replace('*** SUBJECT HERE ***', title.strip())
text = text.replace('*** BLURB HERE ***', body)
hdr_end = text.index('\n\n')
extra = ''.join(f'Cc: {c}\n' for c in cc.splitlines() if c.strip())
extra += ''.join(f'Cc: {c}\n' for c in lists.splitlines() if c.strip())
text = text[:hdr_end + 1] + extra + text[hdr_end + 1:]
open(cover, 'w').write(text)
PY
		# The user's identity on From: and Signed-off-by:.
		for f in "$dir"/*.patch; do
			DCO=$dco PROJECT=$project_id python3 - "$f" <<'PY'
import os, sys
f = sys.argv[1]
old, new = os.environ['PROJECT'], os.environ['DCO']
out = []
for ln in open(f).read().split('\n'):
    if ln.startswith(('From: ', 'Signed-off-by: ')) and old in ln:
        ln = ln.replace(old, new)
    out.append(ln)
open(f, 'w').write('\n'.join(out))
PY
		done
		note "mail series $g: $(printf '%s\n' "$names" | wc -l) patch(es) and a cover letter in $dir"
	done
	;;
apply-check)
	import_base
	groups=$(series_mails | awk '!seen[$1]++ { print $1 }') ||
		die "bad \"# mail:\" lines in $SERIES_FILE"
	work=$build/apply-check-$PIN_LINE
	fresh_clone "$work"
	n=0
	for g in $groups; do
		am_mails "$work" "$out/$g"
	done
	# The result must be the quilt-patched tree, file for file.
	[ -d "$src" ] || die "$src missing (make patch)"
	diffs=0
	for f in $(cd "$work" && git diff --name-only HEAD~"$n" HEAD); do
		if ! cmp -s "$work/$f" "$src/$f"; then
			echo "apply-check: $f differs from the quilt-patched tree" >&2
			diffs=$((diffs + 1))
		fi
	done
	[ $diffs -eq 0 ] || die "$diffs file(s) differ between git am and quilt"
	groups=$(printf '%s\n' "$groups" | paste -sd, | sed 's/,/, /g')
	echo "apply-check: $n mail(s) of $groups applied with git am onto Linux $upstream ($PIN_VERSION); result identical to the quilt tree"
	;;
apply-fixes)
	dir=${2:?usage: export-series.sh apply-fixes DIR}
	import_base
	# This pin's series carries the same fixes, so its directories are
	# the ones the mails touch.
	work=$build/apply-fixes-$PIN_LINE
	fresh_clone "$work"
	n=0
	am_mails "$work" "$dir"
	echo "apply-fixes: $n mail(s) of $dir applied with git am onto Linux $upstream ($PIN_VERSION)"
	;;
b4-check)
	command -v b4 >/dev/null || die "b4 not installed (make deps)"
	import_base
	groups=$(series_mails | awk '!seen[$1]++ { print $1 }') ||
		die "bad \"# mail:\" lines in $SERIES_FILE"
	before=
	for g in $groups; do
		work=$build/b4-work-$PIN_LINE
		dir=$build/outgoing-b4/$PIN_LINE/$g
		fresh_clone "$work"
		git -C "$work" checkout -q -b "b4/$g"
		# b4 wants a sender it could use; it never sends (-o).
		git -C "$work" config sendemail.smtpserver /bin/false
		# The series before this one (the tester sits on the fixes).
		for b in $before; do
			am_mails "$work" "$out/$b"
		done
		before="$before $g"
		n=0
		am_mails "$work" "$out/$g"
		(cd "$work" && b4 --offline-mode prep -e "HEAD~$n") >"$build/b4-$g.log" 2>&1 ||
			die "b4 prep -e of mail series $g failed (see $build/b4-$g.log)"
		(cd "$work" && PIFUTEX_COVER=$PIFUTEX_ROOT/patches/cover-letter-$g.txt \
			EDITOR=$PIFUTEX_ROOT/tools/mail/b4-cover-editor.sh \
			b4 --offline-mode prep --edit-cover) >>"$build/b4-$g.log" 2>&1 ||
			die "b4 prep --edit-cover of mail series $g failed (see $build/b4-$g.log)"
		rm -rf "$dir"
		(cd "$work" && b4 --offline-mode send -o "$dir" --no-sign \
			--to linux-kernel@vger.kernel.org) >>"$build/b4-$g.log" 2>&1 ||
			die "b4 send -o of mail series $g failed (see $build/b4-$g.log)"
		python3 "$PIFUTEX_ROOT/tools/mail/b4-compare.py" "$out/$g" "$dir" ||
			die "b4's messages of mail series $g differ from the exported mails"
	done
	;;
*)
	die "unknown mode $mode"
	;;
esac
