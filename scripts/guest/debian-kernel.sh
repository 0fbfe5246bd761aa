#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Resolve one of Debian's kernels, install its headers (to build against)
# and unpack its image (to boot in QEMU) into the cache; print
#   VERSION KDIR VMLINUZ
#
#   scripts/guest/debian-kernel.sh KERNEL   (one of TW_KERNELS in scripts/lib.sh)
#
# The newest version apt offers is used; nothing is pinned to a point release.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

pattern=${TW_KERNEL_HEADERS[${1:?usage: debian-kernel.sh ${TW_KERNELS[*]}}]:-}
[ -n "$pattern" ] || tw_die "unknown kernel '$1' (known: ${TW_KERNELS[*]})"

pkg=$(apt-cache pkgnames linux-headers- 2>/dev/null | grep -E "$pattern" | sort -V | tail -n 1)
if [ -z "$pkg" ]; then
	apt-get update -q >/dev/null 2>&1 || true
	pkg=$(apt-cache pkgnames linux-headers- | grep -E "$pattern" | sort -V | tail -n 1)
fi
[ -n "$pkg" ] || tw_die "no headers package for $1"
ver=${pkg#linux-headers-}

tw_need_kbuild
tw_need "$pkg"
kdir=/usr/src/linux-headers-$ver
[ -f "$kdir/Makefile" ] || tw_die "$kdir is not a kernel build tree"

img=$TW_CACHE/images/$ver
if [ ! -f "$img/vmlinuz" ]; then
	tw_log "fetching linux-image-$ver"
	rm -rf "$img.tmp" && mkdir -p "$img.tmp"
	# The signed image can lag its headers in the archive by days; the
	# unsigned one holds the same vmlinuz, which QEMU boots unsigned.
	(cd "$img.tmp" && { apt-get download -q "linux-image-$ver" ||
		apt-get download -q "linux-image-$ver-unsigned"; } >/dev/null 2>&1) ||
		tw_die "apt-get download linux-image-$ver (or -unsigned) failed"
	dpkg-deb -x "$img.tmp"/linux-image-*.deb "$img.tmp/root"
	mkdir -p "$img"
	cp "$img.tmp/root/boot/vmlinuz-$ver" "$img/vmlinuz"
	rm -rf "$img.tmp"
fi
echo "$ver $kdir $img/vmlinuz"
