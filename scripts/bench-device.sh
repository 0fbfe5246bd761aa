#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-device: the device measured from three places, each figure
# labelled with where it comes from, and a projection for real hardware.
#
#   1. [UML kernel-side]  scripts/guest/uml-kbench.sh: the device's own work per
#                         operation inside the kernel, as lines
#                         "KBENCH <op> ns_per_op=<float> ops=<n>"
#   2. [host native]      bench_device -H on this machine's own kernel (no
#                         module): timerfd_settime arm and disarm, a bare
#                         ioctl() round trip, memcpy, timerfd delivery, the
#                         in-process wheel, the fair lateness pattern
#   3. [projection]       printed by bench_device -H from 1 and 2, with its
#                         formula and assumptions
#   4. [TCG guest]        scripts/guest/qemu-run.sh 6.12 bench: the end-to-end
#                         table, the device against timerfd and the
#                         in-process wheel, and 10,000,000 timers on a file
#   5. [TCG guest, threads] scripts/guest/qemu-run.sh 6.12 threads: the
#                         projection's threads row measured, 1 and 2 threads
#                         on the device's rings against a mutex wheel, on two
#                         vCPUs that run at once (MTTCG)
#
# TW_KBENCH_FILE=FILE takes the KBENCH lines from FILE instead of running
# scripts/guest/uml-kbench.sh.  Without either, the kernel-side part is reported
# missing and the rest still runs.  Fails only if a part fails to run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=$TW_CACHE/run/bench-device${TW_RUN_TAG:+-$TW_RUN_TAG}
rm -rf "$work" && mkdir -p "$work"
kbench=$work/kbench.txt
: >"$kbench"
status=0
t_start=$SECONDS

section() { printf '\n===== %s =====\n' "$*"; }

section "[UML kernel-side] scripts/guest/uml-kbench.sh"
if [ -n "${TW_KBENCH_FILE:-}" ]; then
	grep -aoE 'KBENCH(-MEM)? .*' "$TW_KBENCH_FILE" | tr -d '\r' >"$kbench" || true
	echo "kernel-side figures taken from $TW_KBENCH_FILE (TW_KBENCH_FILE), not measured in this run"
	cat "$kbench"
elif [ -f "$TW_ROOT/scripts/guest/uml-kbench.sh" ]; then
	if ! bash "$TW_ROOT/scripts/guest/uml-kbench.sh" >"$work/kbench.out" 2>"$work/kbench.log"; then
		tail -n 20 "$work/kbench.log"
		echo "kernel-side part FAILED: scripts/guest/uml-kbench.sh, log $work/kbench.log"
		status=1
	fi
	grep -aE '^KBENCH(-MEM)? ' "$work/kbench.out" | tr -d '\r' >"$kbench" || true
	cat "$kbench"
	# The baseline it measures in the same run: one hrtimer per timer.
	grep -a '^KBENCH-BASE ' "$work/kbench.log" || true
else
	echo "kernel-side part MISSING: scripts/guest/uml-kbench.sh does not exist yet;"
	echo "the projection below is left out (TW_KBENCH_FILE=FILE supplies KBENCH lines)"
fi
[ -s "$kbench" ] || echo "no KBENCH lines: no projection"

section "[host native] bench_device -H on $(uname -sr), and the [projection]"
make -s -C "$TW_ROOT/tools" bench_device >&2 ||
	tw_die "bench_device does not build"
"$TW_ROOT/tools/build/bench_device" -H -k "$kbench" || status=1

section "[TCG guest] scripts/guest/qemu-run.sh 6.12 bench (Debian 6.12 under QEMU TCG)"
bash "$TW_ROOT/scripts/guest/qemu-run.sh" 6.12 bench || status=1

section "[TCG guest, threads] scripts/guest/qemu-run.sh 6.12 threads (2 vCPUs at once, MTTCG)"
bash "$TW_ROOT/scripts/guest/qemu-run.sh" 6.12 threads || status=1

section "bench-device: $((SECONDS - t_start)) s in all"
exit $status
