#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-config.sh SRC OBJ FRAGMENT...
#
# Write the kernel config OBJ/.config for the tree SRC: tinyconfig plus
# the config fragments (scripts/kconfig/merge_config.sh) plus
# olddefconfig, done in a scratch output directory (OBJ.kconfig); every
# requested option is verified to have survived
# (tools/kernel/kconfig-verify.py; KCONFIG_NO_VERIFY=1 skips that;
# KCONFIG_UNKNOWN_IN=SRC reports the options SRC does not define instead
# of failing on them: a developer's own tree).
# OBJ/.config is replaced only when the result differs, so an unchanged
# config costs no rebuild.  With nothing to do it costs nothing: when
# the fragments, the options and OBJ/.config are those of the last run
# (OBJ.kconfig/inputs), with the same compiler and tree, and no Kconfig
# file, *.config fragment or scripts/kconfig file of SRC changed since,
# it stops there.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
help_option "$@"

src=$(cd "${1:?usage: make-config.sh SRC OBJ FRAGMENT...}" && pwd)
obj=${2:?usage: make-config.sh SRC OBJ FRAGMENT...}
shift 2
[ $# -gt 0 ] || die "no config fragments given"
frags=()
for f in "$@"; do
	[ -r "$f" ] || die "config fragment $f not found"
	frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
done
mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
scratch=$obj.kconfig
mkdir -p "$scratch"
inputs() {
	printf 'verify=%s %s\n' "${KCONFIG_NO_VERIFY:-yes}" "${KCONFIG_UNKNOWN_IN:-}"
	# Kconfig probes the compiler; the tree and its version.
	gcc --version | head -n 1
	printf 'src=%s\n' "$src"
	head -n 5 "$src/Makefile"
	sha256sum "${frags[@]}"
	[ -f "$obj/.config" ] && sha256sum "$obj/.config"
	true
}
if [ -f "$scratch/inputs" ] && [ "$(inputs)" = "$(cat "$scratch/inputs")" ] &&
	[ -z "$(find "$src" \( -path "$src/.pc" -o -path "$src/.git" \) -prune -o \
		-newer "$scratch/inputs" -type f \( -name 'Kconfig*' -o -name '*.config' \
		-o -path '*/scripts/kconfig/*' \) -print -quit)" ]; then
	exit 0
fi
rm -f "$scratch/inputs"

kmake() { make -s -C "$src" O="$scratch" ARCH=x86_64 "$@"; }
kmake tinyconfig >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; die "make tinyconfig failed"; }
"$src/scripts/kconfig/merge_config.sh" -m -O "$scratch" "$scratch/.config" "${frags[@]}" \
	>"$scratch/merge.log" 2>&1 || { cat "$scratch/merge.log" >&2; die "merge_config.sh failed"; }
kmake olddefconfig >>"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; die "make olddefconfig failed"; }
# bisect-check builds patches that come before the options they add.
if [ -z "${KCONFIG_NO_VERIFY:-}" ]; then
	"$PIFUTEX_ROOT/tools/kernel/kconfig-verify.py" \
		${KCONFIG_UNKNOWN_IN:+--unknown-in "$KCONFIG_UNKNOWN_IN"} "$scratch/.config" "${frags[@]}" ||
		die "config options were dropped (see above); fix the fragments"
fi
if ! cmp -s "$scratch/.config" "$obj/.config"; then
	cp "$scratch/.config" "$obj/.config"
	note "new .config for $(basename "$obj")"
fi
inputs >"$scratch/inputs"
