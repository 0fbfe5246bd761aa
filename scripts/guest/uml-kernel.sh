#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) a UML kernel from Debian's linux-source-6.12 and print its
# build directory.  The build is cached under $TW_CACHE, keyed by the source
# version and the configuration fragments, so a changed fragment gets a fresh
# kernel and an unchanged one is reused.
#
#   scripts/guest/uml-kernel.sh [normal|debug]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

flavour=${1:-normal}
frags=("$TW_ROOT/scripts/configs/uml.config")
case $flavour in
normal) frags+=("$TW_ROOT/scripts/configs/uml-normal.config") ;;
debug) frags+=("$TW_ROOT/scripts/configs/uml-debug.config") ;;
*) tw_die "unknown UML flavour '$flavour'" ;;
esac

# Our fixes to the UML source, for the hosts it must run on.
patches=("$TW_ROOT"/scripts/patches/uml-*.patch)

tw_need_kbuild
tw_need patch
src=$(tw_kernel_source 6.12)
tw_patch_source "$src" "${patches[@]}"
key=$( (basename "$src"; cat "${frags[@]}" "${patches[@]}") | sha256sum | cut -c1-16)
out=$TW_CACHE/uml-$flavour-$key

# One build of a flavour at a time: make check starts the debug kernel's
# build in the background (scripts/check.sh), and a stage that needs it
# waits here for that build, then finds it built (or, if it failed,
# builds it again itself and says why).
exec 9>"$TW_CACHE/uml-$flavour.lock"
flock 9
if [ -f "$out/.tw-built" ]; then
	echo "$out"
	exit 0
fi

tw_log "building UML ($flavour) in $out; this takes minutes, once"
rm -rf "$out" && mkdir -p "$out"
log=$out/build.log
{
	make -C "$src" O="$out" ARCH=um SUBARCH=x86_64 defconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
	make -C "$src" O="$out" ARCH=um SUBARCH=x86_64 olddefconfig
} >"$log" 2>&1 || { tail -n 30 "$log" >&2; tw_die "UML configuration failed"; }

# A fragment line that Kconfig dropped (a typo, an unmet dependency) would
# silently give a kernel without the debugger we think we run under.
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n) ! grep -qE "^${line%=n}=[ym]" "$out/.config" ||
			tw_die "$line did not stick in the UML config" ;;
		CONFIG_*) grep -qx "$line" "$out/.config" ||
			tw_die "$line did not stick in the UML config" ;;
		esac
	done <"$f"
done

if ! make -C "$src" O="$out" ARCH=um SUBARCH=x86_64 -j"$TW_JOBS" >>"$log" 2>&1; then
	tail -n 40 "$log" >&2
	tw_die "UML build failed (log: $log)"
fi
touch "$out/.tw-built"
echo "$out"
