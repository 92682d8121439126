#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export-series.sh export|apply-check
#
# Works on the pin of $KERNEL (the mainline pin is the one mailed).
# export: apply the quilt series with `git am` onto a git import of the
#   pinned tree and write build/outgoing/<line>/: numbered mails "[PATCH v1 N/M]"
#   and 0000-cover-letter.patch (summary from patches/cover-letter.txt,
#   the testing done (the verdict .json in $RUN_VERDICT), the diffstat,
#   the Cc list from get_maintainer.pl and a base-commit naming the
#   pinned version).
# apply-check: `git am` the exported mails onto a clean import of the
#   pinned tree and check that the result matches the quilt-patched tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: export-series.sh export|apply-check}
load_pin
build=$PIFUTEX_ROOT/build
src=$build/linux-$PIN_DIRNAME
base=$build/git-base-$PIN_LINE.git
out=$build/outgoing/$PIN_LINE
tarball=$(cache_dir)/$PIN_PACKAGE-$PIN_DIRNAME.tar.xz
# git am and the cover letter need an identity even where git has none.
export GIT_COMMITTER_NAME="Pi Futex Developers" GIT_COMMITTER_EMAIL="pi-futex@example.org"
upstream=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \(.*\)/\2/p' "$src/Makefile" | paste -sd.)

import_base() {
	if [ -f "$base/pi-futex-pin" ] && [ "$(cat "$base/pi-futex-pin")" = "$PIN_SHA256" ]; then
		return
	fi
	[ -f "$tarball" ] || die "$tarball missing (make fetch)"
	rm -rf "$base" "$base.tmp"
	git init -q --bare "$base.tmp" || die "git init of $base.tmp failed"
	# A fixed identity and date make the import commit reproducible.
	"$PIFUTEX_ROOT/tools/tar-to-git.py" "$tarball" "$base.tmp" \
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

case $mode in
export)
	import_base
	work=$build/export-work-$PIN_LINE
	fresh_clone "$work"
	n=0
	for p in $(series_patches); do
		(cd "$work" && git am -q "$PIFUTEX_ROOT/patches/$p") ||
			{ (cd "$work" && git am --abort) || true
			  die "git am of $p failed"; }
		n=$((n + 1))
	done
	basesha=$(cd "$work" && git rev-parse HEAD~$n)
	rm -rf "$out" && mkdir -p "$out"
	(cd "$work" && git format-patch -q -v1 --cover-letter --thread \
		--base="$basesha" -o "$out" HEAD~$n) || die "git format-patch failed"
	for f in "$out"/v1-*.patch; do
		mv "$f" "$out/$(basename "$f" | sed 's/^v1-//')"
	done
	cover=$out/0000-cover-letter.patch
	# get_maintainer.pl wants a whole tree: the quilt-patched one, which
	# apply-check proves identical to what git am makes.
	cc=$(cd "$src" && perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats --no-l "$out"/0[0-9][0-9][0-9]-*.patch 2>/dev/null |
		sed -n '/@/p' | sort -u || true)
	lists=$(cd "$src" && perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-rolestats --no-m --no-r \
		"$out"/0[0-9][0-9][0-9]-*.patch 2>/dev/null | sort -u || true)
	# The verdict of `make run` on this pin, named by the Makefile.
	testing=${RUN_VERDICT:-}
	python3 - "$cover" "$PIFUTEX_ROOT/patches/cover-letter.txt" \
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
    summary = ('\nLast run of `make run` (tools/run-qemu.sh, '
               f"{v.get('kernel')}, {v.get('cpus')} vCPUs, verdict "
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
	note "exported $n patch(es) and a cover letter to $out"
	;;
apply-check)
	import_base
	[ -f "$out/0000-cover-letter.patch" ] || die "no exported series in $out (make export)"
	work=$build/apply-check-$PIN_LINE
	fresh_clone "$work"
	for f in "$out"/0[0-9][0-9][0-9]-*.patch; do
		[ "$(basename "$f")" = 0000-cover-letter.patch ] && continue
		(cd "$work" && git am -q "$f") ||
			{ (cd "$work" && git am --abort) || true
			  die "git am of $(basename "$f") failed on a clean import"; }
	done
	n=$(cd "$work" && git rev-list --count HEAD~"$(series_patches | wc -l)"..HEAD)
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
	echo "apply-check: $n mail(s) applied with git am onto Linux $upstream ($PIN_VERSION); result identical to the quilt tree"
	;;
*)
	die "unknown mode $mode"
	;;
esac
