#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb [DEB_OUT=DIR]`: the Debian packages of debian/ (timingwheel-dkms,
# libtimingwheel1, libtimingwheel-dev, timingwheel-tools), built with
# dpkg-buildpackage -b in a copy of the tree, so that neither the build nor
# its outputs touch the checkout, and moved to DIR (default: the parent of
# the tree, where dpkg-buildpackage itself would put them).
# Installs the build dependencies with apt when they are missing.
# The work directory is TW_DEB_WORK, by default one of its own per
# TW_RUN_TAG: scripts/package/packages.sh (make check) gives another, so
# that `make deb` and make check can run side by side.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

out=${1:-$TW_ROOT/..}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tw_need build-essential debhelper dh-dkms dkms dpkg-dev pkgconf

ver=$(cat "$TW_ROOT/VERSION")
work=${TW_DEB_WORK:-$TW_CACHE/run/deb${TW_RUN_TAG:+-$TW_RUN_TAG}}
tree=$work/timingwheel-$ver
rm -rf "$work" && mkdir -p "$tree"
# The tree as git sees it, committed or not, without what it ignores
# (build outputs); a tree without git is copied whole but for its outputs.
if git -C "$TW_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$TW_ROOT" && git ls-files -co --exclude-standard) |
		rsync -a --files-from=- --ignore-missing-args "$TW_ROOT/" "$tree/"
else
	rsync -a --exclude .git --exclude build "$TW_ROOT/" "$tree/"
	make -s -C "$tree" clean >/dev/null
fi

profiles=()
if [ ! -f "$tree/lib/Makefile" ]; then
	tw_log "*****************************************************************"
	tw_log "* no lib/Makefile: building WITHOUT libtimingwheel1 and          *"
	tw_log "* libtimingwheel-dev (build profile pkg.timingwheel.nolib)       *"
	tw_log "*****************************************************************"
	profiles=(-Ppkg.timingwheel.nolib)
fi

tw_log "dpkg-buildpackage -b ${profiles[*]} in $tree (log: $work.log)"
if ! (cd "$tree" && dpkg-buildpackage -b -us -uc "${profiles[@]}") >"$work.log" 2>&1; then
	tail -n 40 "$work.log" >&2
	tw_die "dpkg-buildpackage failed (log: $work.log)"
fi

shopt -s nullglob
built=("$work"/*.deb "$work"/*.ddeb "$work"/*.buildinfo "$work"/*.changes)
[ ${#built[@]} -gt 0 ] || tw_die "dpkg-buildpackage left no package in $work"
mv -f "${built[@]}" "$out/"
for f in "${built[@]}"; do
	case $f in *.deb) tw_log "built $out/${f##*/}" ;; esac
done
