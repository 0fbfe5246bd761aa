#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages on this machine: `make deb`, install them with apt
# (dkms builds the module for every installed kernel's headers), check what
# they installed, build a client against the installed library with
# pkg-config (dynamically, and statically into
# tools/build/tw_pkgclient for the guests), purge them all and
# check that nothing is left.  Prints each check as it goes; the host is left
# without any of the packages, whatever happens.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

# ---------------------------------------------------------------------------
# The library's packages are required: a tree without lib/Makefile fails.
TW_PKG_REQUIRE_LIB=1
# ---------------------------------------------------------------------------

tw_need file lintian
PKGS_ALL=(timingwheel-dkms timingwheel-tools libtimingwheel1 libtimingwheel-dev)
ver=$(cat "$TW_ROOT/VERSION")
# This run's files, apart from `make deb`'s ($TW_CACHE/run/deb*) and from
# another tag's: make check and make deb may run side by side.
run=$TW_CACHE/run/packages${TW_RUN_TAG:+-$TW_RUN_TAG}
mkdir -p "$run"
out=$run/deb-out
apt_log=$run/apt.log
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
failures=0 start=$SECONDS

ok() { tw_log "ok:   $*"; }
bad() {
	tw_log "FAIL: $*"
	failures=$((failures + 1))
}
# client_runs KIND PROGRAM: the client ran (exit 2: no device on this host).
client_runs() {
	local r
	timeout 10 "$2" >/dev/null 2>&1
	r=$?
	if [ $r -eq 0 ] || [ $r -eq 2 ]; then
		ok "tw_pkgclient ($1) runs: exit $r"
	else
		bad "tw_pkgclient ($1) exits $r"
	fi
}
# check DESCRIPTION COMMAND...: run COMMAND quietly, report it.
check() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi
}
# none_of DESCRIPTION PATH...: none of the paths (globs expanded) exists.
none_of() {
	local what=$1 p left=()
	shift
	for p in "$@"; do
		[ -e "$p" ] || [ -L "$p" ] && left+=("$p")
	done
	if [ ${#left[@]} -eq 0 ]; then ok "$what"; else bad "$what: ${left[*]}"; fi
}
installed_pkgs() {
	local p
	for p in "${PKGS_ALL[@]}"; do
		dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null |
			grep -qv '^not-installed$' && echo "$p"
	done
}
purge() {
	local pkgs
	mapfile -t pkgs < <(installed_pkgs)
	[ ${#pkgs[@]} -eq 0 ] && return 0
	tw_log "purging ${pkgs[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}" >>"$apt_log" 2>&1 ||
		dpkg --purge --force-all "${pkgs[@]}" >>"$apt_log" 2>&1
}
trap purge EXIT

# One run at a time on this machine, from its first purge to its last:
# another's purge would remove this run's packages under it.
exec 8>/tmp/tw-packages.lock
flock 8
: >"$apt_log"
# A run that died before its purge left its packages: start from nothing.
purge

with_lib=yes
if [ ! -f "$TW_ROOT/lib/Makefile" ]; then
	[ "$TW_PKG_REQUIRE_LIB" = 1 ] &&
		tw_die "lib/Makefile missing, and the library's packages are required (TW_PKG_REQUIRE_LIB)"
	with_lib=
	tw_log "*******************************************************************"
	tw_log "* SKIPPING the library's packages (libtimingwheel1, -dev) and the *"
	tw_log "* client built on them: no lib/ yet.  Set TW_PKG_REQUIRE_LIB=1 in *"
	tw_log "* scripts/package/packages.sh once lib/ is merged.                *"
	tw_log "*******************************************************************"
fi

# --- build
dkms_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TW_ROOT/dkms.conf")
deb_ver=$(cd "$TW_ROOT" && dpkg-parsechangelog -S Version)
if [ "$dkms_ver" = "$ver" ] && [ "${deb_ver%-*}" = "$ver" ]; then
	ok "one version: VERSION, dkms.conf and debian/changelog say $ver ($deb_ver)"
else
	bad "versions differ: VERSION $ver, dkms.conf $dkms_ver, debian/changelog $deb_ver"
fi
t=$SECONDS
rm -rf "$out"
TW_DEB_WORK=$run/deb bash "$TW_ROOT/scripts/package/deb.sh" "$out" || tw_die "make deb failed"
pkgs=(timingwheel-dkms timingwheel-tools ${with_lib:+libtimingwheel1 libtimingwheel-dev})
debs=()
for p in "${pkgs[@]}"; do
	f=$(ls "$out/${p}_${deb_ver}_"*.deb 2>/dev/null) || tw_die "make deb made no $p"
	debs+=("$f")
done
ok "make deb: ${#debs[@]} packages in $((SECONDS - t)) s"
# lintian, as a Debian developer would run it before an upload: every tag
# down to pedantic fails the stage; an override (debian/*.lintian-overrides)
# says why in a comment.
if lintian --pedantic -I --fail-on error,warning,info,pedantic "$out"/*.changes \
	>"$run/lintian.log" 2>&1; then
	ok "lintian --pedantic: no tag on ${#debs[@]} packages"
else
	grep -E '^[EWIPX]: ' "$run/lintian.log" >&2
	bad "lintian --pedantic: tags above (log: $run/lintian.log)"
fi

# --- install: dkms builds the module, one build at a time machine-wide.
mapfile -t kernels < <(for b in /lib/modules/*/build; do
	[ -f "$b/Makefile" ] && basename "$(dirname "$b")"; done)
[ ${#kernels[@]} -gt 0 ] || tw_die "no kernel headers installed: nothing for dkms to build against"
tw_log "installing ${pkgs[*]} (dkms: ${kernels[*]}; waiting for /tmp/tw-guest.lock)"
t=$SECONDS
exec 9>/tmp/tw-guest.lock
flock 9
waited=$((SECONDS - t)) t=$SECONDS
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${debs[@]}" >>"$apt_log" 2>&1; then
	flock -u 9
	tail -n 30 "$apt_log" >&2
	tw_die "apt-get install failed (log: $apt_log)"
fi
# dkms's postinst builds for the running kernel and the newest one, or for
# all when the running kernel is not installed (a container's host): build
# for every kernel whose headers are here.
for k in "${kernels[@]}"; do
	dkms status -m timingwheel -v "$ver" -k "$k" | grep -q ': installed' ||
		dkms install -m timingwheel -v "$ver" -k "$k" >>"$apt_log" 2>&1
done
flock -u 9
ok "apt-get install and dkms builds for ${#kernels[@]} kernels in $((SECONDS - t)) s (after $waited s waiting for the lock)"

# --- what was installed
for k in "${kernels[@]}"; do
	check "dkms status: timingwheel/$ver installed for $k" \
		bash -c "dkms status -m timingwheel -v '$ver' -k '$k' | grep -q ': installed'"
	ko=$(find /lib/modules/"$k"/updates/dkms -name 'timingwheel.ko*' 2>/dev/null | head -n 1)
	if [ -n "$ko" ] && modinfo -F version "$ko" | grep -qx "$ver" &&
		modinfo -F vermagic "$ko" | grep -q "^$k "; then
		ok "modinfo $ko: version $ver, vermagic $k"
	else
		bad "modinfo of /lib/modules/$k/updates/dkms/timingwheel.ko*: version $ver for $k"
	fi
done
src=/usr/src/timingwheel-$ver
check "$src: dkms.conf, Kbuild, Makefile, VERSION, the module's C files, the uapi header" \
	test -f "$src/dkms.conf" -a -f "$src/Kbuild" -a -f "$src/Makefile" -a -f "$src/VERSION" \
	-a -f "$src/tw_core.c" -a -f "$src/tw_chardev.c" -a -f "$src/include/uapi/linux/timingwheel.h"
extra=$(cd "$src" && find . \( -name '*.o' -o -name '*.ko*' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name Module.symvers -o -name modules.order -o -name tools -o -name scripts \
	-o -name lib -o -name 'tw_*kunit.c' -o -name tw_kbench.c -o -name debian \) -print)
if [ -z "$extra" ]; then
	ok "$src: no build outputs, tools, tests or scripts"
else
	bad "$src holds more than the module's source: $extra"
fi
check "dkms.conf in $src is the tree's" cmp "$src/dkms.conf" "$TW_ROOT/dkms.conf"
check "dkms reported no deprecated feature of dkms.conf" bash -c "! grep -qi deprecated '$apt_log'"
scratch=$run/pkg-clean
rm -rf "$scratch" && cp -R "$src" "$scratch" && touch "$scratch/tw_core.o" "$scratch/.tw_core.o.cmd"
check "make clean in a copy of $src, without a kernel tree" \
	bash -c "make -C '$scratch' clean KDIR=/nonexistent && [ ! -e '$scratch/tw_core.o' ] &&
		[ ! -e '$scratch/.tw_core.o.cmd' ] && [ -f '$scratch/tw_core.c' ]"
rm -rf "$scratch"
check "/usr/lib/modules-load.d/timingwheel.conf loads timingwheel" \
	grep -qx timingwheel /usr/lib/modules-load.d/timingwheel.conf
check "/usr/lib/udev/rules.d/60-timingwheel.rules: KERNEL==\"timingwheel\", MODE=\"0666\"" \
	grep -q '^KERNEL=="timingwheel".*MODE="0666"' /usr/lib/udev/rules.d/60-timingwheel.rules
check "twctl installed and runs (usage)" bash -c '/usr/bin/twctl 2>&1 | grep -q "^Usage: twctl"'
check "dpkg -S: twctl is timingwheel-tools'" bash -c 'dpkg -S /usr/bin/twctl | grep -q ^timingwheel-tools:'
check "twctl --version: $ver" bash -c "/usr/bin/twctl --version | grep -q '^twctl $ver '"
check "twctl(1) installed, and man finds it" bash -c 'test -f /usr/share/man/man1/twctl.1.gz &&
	man -w twctl | grep -q /usr/share/man/man1/twctl.1.gz'
check "the documents installed: NEWS, packaging.rst" test -f /usr/share/doc/timingwheel-dkms/NEWS.gz \
	-a -f /usr/share/doc/timingwheel-dkms/packaging.rst

if [ -n "$with_lib" ]; then
	libdir=/usr/lib/$multiarch
	check "libtimingwheel1: $libdir/libtimingwheel.so.1 (soname)" \
		bash -c "objdump -p $libdir/libtimingwheel.so.1 | grep -q 'SONAME *libtimingwheel.so.1\$'"
	check "libtimingwheel-dev: headers, .so, .a, .pc" test -f /usr/include/libtimingwheel.h \
		-a -f /usr/include/linux/timingwheel.h -a -L "$libdir/libtimingwheel.so" \
		-a -f "$libdir/libtimingwheel.a" -a -f "$libdir/pkgconfig/libtimingwheel.pc"
	check "libtimingwheel-dev: section 3 and 4 manual pages" bash -c \
		'dpkg -L libtimingwheel-dev | grep -q "/man3/.*\.3\.gz$" &&
		 dpkg -L libtimingwheel-dev | grep -q "/man4/.*\.4\.gz$"'
	check "libtimingwheel-dev: uapi.rst and the examples" test -f /usr/share/doc/libtimingwheel-dev/uapi.rst \
		-a -f /usr/share/doc/libtimingwheel-dev/examples/idle_server.c
	# Every installed file a manual page names is there.
	cited=$(for m in /usr/share/man/man1/twctl.1.gz /usr/share/man/man[34]/timingwheel*.gz \
		/usr/share/man/man3/libtimingwheel.3.gz; do zcat "$m"; done |
		sed 's/\\-/-/g' | grep -oE '/usr/share/doc/[A-Za-z0-9_./-]*[A-Za-z0-9_]' | sort -u)
	missing=
	for f in $cited; do [ -e "$f" ] || missing="$missing $f"; done
	if [ -n "$cited" ] && [ -z "$missing" ]; then
		ok "the manual pages cite $(wc -w <<<"$cited") installed documents, all there"
	else
		bad "the manual pages cite documents not installed:${missing:- none cited}"
	fi
	# The installed examples build as a user would: a copy, make, pkg-config.
	ex=$run/examples
	rm -rf "$ex" && cp -R /usr/share/doc/libtimingwheel-dev/examples "$ex"
	check "the installed examples build with their Makefile and pkg-config, warning-free" \
		make -C "$ex" CFLAGS="-O2 -Wall -Wextra -Werror"
	check "pkg-config --modversion libtimingwheel: $ver" \
		bash -c "[ \"\$(pkg-config --modversion libtimingwheel)\" = '$ver' ]"
	# The client, on nothing but the installed packages: it runs to an
	# expiry (0) where the device is, or says there is none (2).
	client=$TW_ROOT/tools/examples/pkg_client.c
	dyn=$run/tw_pkgclient-dynamic
	static=$TW_ROOT/tools/build/tw_pkgclient
	mkdir -p "${static%/*}"
	# shellcheck disable=SC2046
	if gcc -Wall -Wextra -Werror -O2 $(pkg-config --cflags libtimingwheel) -o "$dyn" \
		"$client" $(pkg-config --libs libtimingwheel) 2>"$dyn.log"; then
		# ld.so may name it through /lib, the same directory on merged /usr.
		so=$(ldd "$dyn" | sed -n 's/^\s*libtimingwheel\.so\.1 => \(\S*\) .*/\1/p')
		if [ -n "$so" ] && [ "$(readlink -f "$so")" = "$(readlink -f "$libdir/libtimingwheel.so.1")" ]; then
			ok "tw_pkgclient with pkg-config --cflags --libs: linked to $so"
		else
			bad "tw_pkgclient is not linked to the installed libtimingwheel.so.1: $(ldd "$dyn" | tr '\n' ' ')"
		fi
		client_runs shared "$dyn"
	else
		cat "$dyn.log" >&2
		bad "tw_pkgclient does not build with pkg-config --cflags --libs libtimingwheel"
	fi
	# shellcheck disable=SC2046
	if gcc -Wall -Wextra -Werror -O2 -static $(pkg-config --static --cflags libtimingwheel) \
		-o "$static" "$client" $(pkg-config --static --libs libtimingwheel) 2>"$dyn.log" &&
		file "$static" | grep -q 'statically linked'; then
		ok "tw_pkgclient with pkg-config --static and -static: $static"
		client_runs static "$static"
	else
		cat "$dyn.log" >&2
		bad "tw_pkgclient does not build statically with pkg-config --static"
	fi
fi

# --- purge, and nothing left
t=$SECONDS
purge
trap - EXIT
ok "apt-get purge in $((SECONDS - t)) s"
remaining=$(installed_pkgs)
if [ -z "$remaining" ]; then
	ok "no timingwheel package is installed or half-removed"
else
	bad "still known to dpkg after purge: $remaining"
fi
check "dpkg -S: no file of the system belongs to a timingwheel package" \
	bash -c '! dpkg -S "*timingwheel*"'
none_of "nothing left of the module's source, dkms's tree or the modules" \
	/usr/src/timingwheel-* /var/lib/dkms/timingwheel /lib/modules/*/updates/dkms/timingwheel.ko*
none_of "nothing left of the autoload, udev, library or twctl files" \
	/usr/lib/modules-load.d/timingwheel.conf /usr/lib/udev/rules.d/60-timingwheel.rules \
	/usr/bin/twctl /usr/include/libtimingwheel.h /usr/include/linux/timingwheel.h \
	/usr/lib/"$multiarch"/libtimingwheel.* /usr/lib/"$multiarch"/pkgconfig/libtimingwheel.pc

tw_log "packages: $failures failed checks, $((SECONDS - start)) s in all"
[ $failures -eq 0 ]
