# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the timingwheel scripts: the artifact cache, package
# installation and kernel source lookup.  Source it; do not run it.

TW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Slow artifacts (kernel trees, UML builds, kernel images) live outside the
# repository so that a fresh clone reuses them.
TW_CACHE=${TW_CACHE:-/var/cache/timingwheel}
TW_JOBS=${TW_JOBS:-$(nproc)}

tw_log() { printf '[tw] %s\n' "$*" >&2; }
tw_die() { printf '[tw] error: %s\n' "$*" >&2; exit 1; }

# tw_need PKG...: install the Debian packages that are missing, quietly.
tw_need() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || tw_die "need root to install: ${missing[*]}"
	tw_log "installing: ${missing[*]}"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >"$TW_CACHE/apt.log" 2>&1; then
		apt-get update -q >>"$TW_CACHE/apt.log" 2>&1
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}" >>"$TW_CACHE/apt.log" 2>&1 ||
			{ tail -n 20 "$TW_CACHE/apt.log" >&2; tw_die "apt-get install failed"; }
	fi
}

# The packages every kernel build here needs.
tw_need_kbuild() {
	tw_need build-essential bc bison flex libelf-dev libssl-dev python3 \
		xz-utils kmod cpio rsync
}

# tw_kernel_source VER: unpack Debian's linux-source-VER once and print the tree.
tw_kernel_source() {
	local ver=$1 tarball tree
	tw_need "linux-source-$ver"
	tarball=/usr/src/linux-source-$ver.tar.xz
	[ -f "$tarball" ] || tw_die "$tarball missing"
	tree=$TW_CACHE/src/linux-source-$ver-$(dpkg-query -W -f='${Version}' "linux-source-$ver")
	if [ ! -f "$tree/.tw-unpacked" ]; then
		tw_log "unpacking $tarball"
		rm -rf "$tree" && mkdir -p "$tree"
		tar -xJf "$tarball" -C "$tree" --strip-components=1
		touch "$tree/.tw-unpacked"
	fi
	echo "$tree"
}

# The 32-bit builds (libtimingwheel's lib32, tw_e2e32, tw_fuzz32) need
# gcc's -m32 and the i386 libc, which a fresh Debian machine lacks.
tw_need_m32() {
	tw_need gcc-multilib
}

# tw_runs_m32: false if this host's kernel cannot run the 32-bit programs
# it builds (a kernel without IA32 emulation, or with it off: exec fails
# with ENOEXEC).  A probe that does not even build answers true, so that
# the build's own failure shows where the test runs.
tw_runs_m32() {
	local dir rc=0
	dir=$(mktemp -d) || return 0
	printf 'int main(void) { return 0; }\n' >"$dir/probe.c"
	if gcc -m32 -o "$dir/probe" "$dir/probe.c" 2>/dev/null; then
		"$dir/probe" 2>/dev/null || rc=1
	fi
	rm -rf "$dir"
	return $rc
}

# tw_device_progs [TARGET]: build the static test programs (TARGET of
# tools/Makefile: device-progs, or uml-progs for a UML guest's); tw_e2e
# takes the kernel's kselftest_harness.h from the 6.12 source tree.
tw_device_progs() {
	local src
	tw_need_m32
	src=$(tw_kernel_source 6.12)
	make -s -C "$TW_ROOT/tools" "${1:-device-progs}" \
		KSFT_DIR="$src/tools/testing/selftests" >&2 || tw_die "test programs do not build"
}

# tw_patch_source TREE PATCH...: apply exactly these patches to an unpacked
# tree, taking back a different set applied before.  What is applied is
# kept in TREE/.tw-applied.patch.
tw_patch_source() {
	local tree=$1 applied
	shift
	applied=$tree/.tw-applied.patch
	if [ -f "$applied" ] && cat "$@" | cmp -s - "$applied"; then
		return 0
	fi
	if [ -f "$applied" ]; then
		patch -s -R -p1 -d "$tree" <"$applied" || tw_die "cannot take back $applied"
		rm -f "$applied"
	fi
	cat "$@" | patch -s -p1 -d "$tree" || tw_die "patches do not apply to $tree: $*"
	cat "$@" >"$applied"
}

# tw_sync_module DIR: bring the module sources in DIR up to the tree's,
# keeping kbuild's objects of the last build there (kbuild's objects never
# land in the repository: 6.12 has no MO=).  A source is copied
# only if its content differs, and then with the time of the copy: make
# rebuilds what changed and what includes it, a file put back after a
# planted bug included, and nothing else.  A source gone from the tree
# goes from DIR too (kbuild's generated *.mod.c stay).
tw_sync_module() {
	mkdir -p "$1"
	rsync -r --checksum --delete --exclude='*.mod.c' --include=/Kbuild \
		--include=/VERSION --include='/*.c' --include='/*.h' \
		--include='/include/***' --exclude='*' "$TW_ROOT/" "$1/"
}

# tw_module_stamp KDIR [MAKE ARGS...]: what a build's objects depend on
# beyond the sources, which file times cannot tell: the kernel tree, its
# configuration and symbols, and the make arguments.
tw_module_stamp() {
	local kdir=$1
	shift
	echo "$(readlink -f "$kdir") $(cat "$kdir/.config" "$kdir/Module.symvers" 2>/dev/null |
		md5sum | cut -d' ' -f1) $*"
}

# tw_keep_module KDIR DIR [MAKE ARGS...]: DIR's sources brought up to the
# tree's (tw_sync_module), its objects kept only if DIR.stamp says that its
# last build was clean, of the same stamp (tw_module_stamp); else it starts
# empty.  The stamp goes until tw_module_clean() writes it again, so that
# a build cut off half way, its objects compiled with warnings kept, is
# never taken for a clean one.
tw_keep_module() {
	local kdir=$1 dir=$2
	shift 2
	[ "$(cat "$dir.stamp" 2>/dev/null)" = "$(tw_module_stamp "$kdir" "$@")" ] ||
		rm -rf "$dir"
	rm -f "$dir.stamp"
	tw_sync_module "$dir"
}

# tw_module_clean KDIR DIR [MAKE ARGS...]: DIR's build was clean: its
# objects may be kept for the next (tw_keep_module).
tw_module_clean() {
	local kdir=$1 dir=$2
	shift 2
	tw_module_stamp "$kdir" "$@" >"$dir.stamp"
}

# tw_build_module KDIR DIR [MAKE ARGS...]: build the module at W=1 against
# KDIR in DIR, kept from one build to the next (tw_sync_module); the build
# log is DIR.log.  DIR starts empty when it was last built against another
# kernel tree, configuration or make arguments (DIR.stamp), which file
# times cannot tell.  A failed build or any warning ends the script and
# empties DIR: objects kept from it would hide the warning from the next.
# DIR is locked (DIR.lock) until the script ends.
tw_build_module() {
	local kdir=$1 dir=$2 lock
	shift 2
	exec {lock}>"$dir.lock"
	flock "$lock"
	tw_keep_module "$kdir" "$dir" "$@"
	if ! make -j"$(nproc)" -C "$kdir" "$@" M="$dir" W=1 modules >"$dir.log" 2>&1 ||
		grep -iE 'warning:|error:' "$dir.log" >&2; then
		cat "$dir.log" >&2
		rm -rf "$dir"
		tw_die "module build against $kdir failed or warned"
	fi
	tw_module_clean "$kdir" "$dir" "$@"
}

# tw_uml_boot KDIR INIT LOG [ARG...]: boot a UML kernel on a read-only
# hostfs root (the host's own /) with the script INIT as init and ARGs on
# its command line; the console goes to LOG.
tw_uml_boot() {
	local kdir=$1 init=$2 log=$3
	shift 3
	timeout "${TW_UML_TIMEOUT:-900}" "$kdir/linux" mem=2G rootfstype=hostfs \
		rootflags=/ ro init="$init" printk.time=0 panic=-1 "$@" </dev/null >"$log" 2>&1 || true
}

# The Debian kernels the module is built for and tested on, and the
# headers package of each (scripts/guest/debian-kernel.sh).
TW_KERNELS=(6.1 6.12 6.12-rt)
declare -A TW_KERNEL_HEADERS=(
	[6.1]='^linux-headers-6\.1\.0-[0-9]+-amd64$'
	[6.12]='^linux-headers-6\.12\.[0-9]+\+deb12-amd64$'
	[6.12-rt]='^linux-headers-6\.12\.[0-9]+\+deb12-rt-amd64$'
)

mkdir -p "$TW_CACHE/run"
