#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-side benchmark (tw_kbench.c) under the UML normal kernel, where
# kernel code runs natively on the host CPU: boot UML (on the real clock,
# never time-travel, which fakes it), load timingwheel.ko and
# timingwheel_kbench.ko, and print the results, one line per operation:
#
#   KBENCH <op> ns_per_op=<float> ops=<n>
#
# with op in start, stop, batch_start, batch_stop, expire, read,
# ring_start, ring_stop, ring_expire, ring_enter, and the rings' memory
# (KBENCH-MEM lines, the same at every boot: the first boot's), on stdout
# and nothing else there; the baseline measured in the same run
# (KBENCH-BASE lines) and the progress go to stderr.  Fails if the
# benchmark did not run or the kernel reported a problem.
#
#   scripts/guest/uml-kbench.sh [NR [REPS [SPREAD]]]
#
# (default 4096 timers, best of 5; SPREAD, default 1, scatters the ring
# runs' slots over NR * SPREAD, tw_kbench.c's spread).
#
# Each boot reports, per operation, the best of REPS runs; but one boot of
# UML differs from the next by up to a third (where the host places it),
# more than runs within a boot do.  So it boots TW_KBENCH_BOOTS times
# (default 3) and prints, per operation, the median of the boots' figures;
# every boot's own lines go to stderr.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

nr=${1:-4096}
reps=${2:-5}
spread=${3:-1}
for v in "$nr" "$reps" "$spread"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || tw_die "NR, REPS and SPREAD must be positive counts"
done
tw_need busybox-static
kdir=$("$TW_ROOT/scripts/guest/uml-kernel.sh" normal)
work=$TW_CACHE/run/uml-kbench${TW_RUN_TAG:+-$TW_RUN_TAG}
rm -rf "$work" && mkdir -p "$work/root"

tw_log "building timingwheel.ko and timingwheel_kbench.ko against UML (normal)"
mod=$TW_CACHE/run/module-kbench${TW_RUN_TAG:+-$TW_RUN_TAG}
tw_build_module "$kdir" "$mod" ARCH=um TW_KBENCH=1
cp "$mod/timingwheel.ko" "$mod/timingwheel_kbench.ko" "$work/root/"

boots=${TW_KBENCH_BOOTS:-3}
[[ $boots =~ ^[1-9][0-9]*$ ]] || tw_die "TW_KBENCH_BOOTS must be a positive count"

# Boot once; its KBENCH lines, prefixed with the boot, to $work/all.txt.
# The TW-* markers it reads are in scripts/guest/markers.txt.
kbench_boot() {
	local b=$1 log=$work/console-$1.txt status=0 op

	tw_log "boot $b of $boots: UML (normal), $nr timers, best of $reps, ring slots spread $spread"
	tw_uml_boot "$kdir" "$TW_ROOT/scripts/guest/guest-init.sh" "$work/console-$b.log" \
		tw.mode=kbench tw.dir="$work/root" tw.kbench="nr=$nr,reps=$reps,spread=$spread"
	tr -d '\r' <"$work/console-$b.log" >"$log"
	grep -q '^TW-INSMOD-OK' "$log" || { tw_log "insmod timingwheel.ko failed"; status=1; }
	grep -q '^TW-RESULT rc=0' "$log" || { tw_log "the benchmark failed"; status=1; }
	grep -q '^TW-RMMOD-OK' "$log" || { tw_log "rmmod failed"; status=1; }
	sed -n "s/^TW-KBENCH-BASE /KBENCH-BASE boot=$b /p" "$log" >&2
	sed -n "s/^TW-KBENCH /KBENCH boot=$b /p" "$log" | tee -a "$work/all.txt" >&2
	sed -n "s/^TW-KBENCH-MEM /KBENCH-MEM /p" "$log" >"$work/mem-$b.txt"
	for op in start stop batch_start batch_stop expire read \
		ring_start ring_stop ring_expire ring_enter; do
		grep -qE "^TW-KBENCH $op ns_per_op=[0-9.]+ ops=[0-9]+$" "$log" ||
			{ tw_log "no result for $op"; status=1; }
	done
	"$TW_ROOT/scripts/verdict/check-console.sh" "$log" || status=1
	[ $status -eq 0 ] || tw_log "console: $log"
	return $status
}

status=0
: >"$work/all.txt"
for b in $(seq 1 "$boots"); do
	kbench_boot "$b" || status=1
done
# Per operation, the median of the boots (the lower middle one of an even
# count), in the order of the first boot.
awk '{ split($4, v, "="); op = $3
       if (!(op in n)) order[++nops] = op
       k = ++n[op]; ns[op, k] = v[2]; ops[op, k] = $5 }
     END { for (i = 1; i <= nops; i++) {
             op = order[i]; k = n[op]
             for (a = 1; a <= k; a++) for (b = a + 1; b <= k; b++)
               if (ns[op, b] + 0 < ns[op, a] + 0) {
                 t = ns[op, a]; ns[op, a] = ns[op, b]; ns[op, b] = t
                 t = ops[op, a]; ops[op, a] = ops[op, b]; ops[op, b] = t
               }
             m = int((k + 1) / 2)
             printf "KBENCH %s ns_per_op=%s %s\n", op, ns[op, m], ops[op, m] } }' \
	"$work/all.txt"
cat "$work/mem-1.txt"
exit $status
