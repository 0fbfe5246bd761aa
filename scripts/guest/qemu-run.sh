#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one of Debian's real kernels in QEMU (TCG: no KVM here) with a
# busybox initramfs holding timingwheel.ko, built against the matching
# headers, and the static test programs; run one mode inside and judge it.
#
#   scripts/guest/qemu-run.sh 6.1|6.12|6.12-rt e2e|demo|bench|threads|textpoke
#
# With TW_FUZZ_SECONDS, the e2e mode also runs the fuzzers that long, as a
# 64- and a 32-bit process (TW_FUZZ_SEED replays a seed).  TW_E2E_ONLY=T1,T2
# runs only those tests of tw_e2e.
#
# Fails if the module does not build cleanly (W=1) or load, if the mode's
# program fails, if the module cannot be unloaded afterwards, or if the
# console shows BUG, WARNING, Oops, Call Trace or a lockdep report.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

kernel=${1:?usage: qemu-run.sh KERNEL MODE}
mode=${2:?usage: qemu-run.sh KERNEL MODE}
tw_need qemu-system-x86 busybox-static cpio gzip
# Its failure ends this script (set -e), its reason already printed.
kinfo=$("$TW_ROOT/scripts/guest/debian-kernel.sh" "$kernel")
read -r ver kdir vmlinuz <<<"$kinfo"
work=$TW_CACHE/run/qemu-$kernel-$mode${TW_RUN_TAG:+-$TW_RUN_TAG}
rm -rf "$work" && mkdir -p "$work"

# The module's objects outlive the run: the next builds what changed.
mod=$TW_CACHE/run/module-$kernel${TW_RUN_TAG:+-$TW_RUN_TAG}
tw_log "building timingwheel.ko against $ver"
tw_build_module "$kdir" "$mod"
tw_device_progs

root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$TW_ROOT/scripts/guest/guest-init.sh" "$root/init"
cp "$TW_ROOT/scripts/guest/guest-demo.sh" "$root/demo.sh"
cp "$mod/timingwheel.ko" "$root/"
cp "$TW_ROOT"/tools/build/{twctl,tw_e2e,tw_e2e32,tw_fuzz,tw_fuzz32,tw_libtest,bench_device} "$root/bin/"
# The client built against the installed packages (scripts/package/packages.sh).
pkgclient=$TW_ROOT/tools/build/tw_pkgclient
[ ! -x "$pkgclient" ] || cp "$pkgclient" "$root/bin/"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.gz"

# Two vCPUs, run by one host thread in turn (thread=single), never by two
# at once (MTTCG, QEMU's default): under MTTCG a vCPU can execute a stale
# translation of kernel text that another vCPU has just live-patched, the
# int3 of text_poke_bp(), after the patch is complete, and the guest dies
# of "Oops: int3" (6.12-rt: three boots of three within 10 s of toggling
# trace events).  Documentation/timingwheel/testing.rst has the evidence;
# TW_QEMU_ACCEL=tcg,thread=multi with the textpoke mode reproduces it.
# The threads benchmark needs its two threads to run at once, and toggles
# nothing: MTTCG there.
accel=tcg,thread=single
[ "$mode" != threads ] || accel=tcg,thread=multi
tw_log "booting $ver in QEMU ($mode)"
qemu_timeout=${TW_QEMU_TIMEOUT:-900}
rc=0
timeout "$qemu_timeout" qemu-system-x86_64 -nographic -no-reboot \
	-accel "${TW_QEMU_ACCEL:-$accel}" -cpu max -smp 2 -m "${TW_QEMU_MEM:-2048}" \
	-kernel "$vmlinuz" -initrd "$work/initramfs.gz" \
	-append "console=ttyS0 panic=-1 rdinit=/init tw.mode=$mode tw.fuzz=${TW_FUZZ_SECONDS:-0} tw.seed=${TW_FUZZ_SEED:-0}${TW_E2E_ONLY:+ tw.only=$TW_E2E_ONLY}" \
	</dev/null >"$work/console.log" 2>&1 || rc=$?
# The verdict judges the console; a guest cut off says so by name, not
# only by the markers it never printed.
[ $rc -ne 124 ] || tw_log "$ver ($mode): the guest ran past ${qemu_timeout}s and was killed (TW_QEMU_TIMEOUT)"

# For the demonstration and the benchmark, what the guest printed is the point
# (TW-GUEST to TW-DONE: scripts/guest/markers.txt).
if [ "$mode" != e2e ]; then
	tr -d '\r' <"$work/console.log" | sed -n '/^TW-GUEST/,/^TW-DONE/p' | grep -vE '^\[ *[0-9]+\.[0-9]+\] '
fi

TW_FUZZ_BITS=${TW_FUZZ_SECONDS:+64 32} \
	exec "$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$work/console.log" "$mode" "$ver"
