#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel-side benchmark (tw_kbench.c) under the UML normal kernel, where
# kernel code runs natively on the host CPU: boot UML (on the real clock,
# never time-travel, which fakes it), load timingwheel.ko and
# timingwheel_kbench.ko, and print the results, one line per operation:
#
#   KBENCH <op> ns_per_op=<float> ops=<n>
#
# with op in start, stop, batch_start, batch_stop, expire, read, on stdout
# and nothing else there; the baseline measured in the same run
# (KBENCH-BASE lines) and the progress go to stderr.  Fails if the
# benchmark did not run or the kernel reported a problem.
#
#   scripts/uml-kbench.sh [NR [REPS]]    (default 4096 timers, best of 5)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

nr=${1:-4096}
reps=${2:-5}
tw_need busybox-static
kdir=$("$TW_ROOT/scripts/uml-kernel.sh" normal)
work=$TW_CACHE/run/uml-kbench${TW_RUN_TAG:+-$TW_RUN_TAG}
rm -rf "$work" && mkdir -p "$work/root"

tw_log "building timingwheel.ko and timingwheel_kbench.ko against UML (normal)"
tw_build_module "$kdir" "$work/module" ARCH=um TW_KBENCH=1
cp "$work/module/timingwheel.ko" "$work/module/timingwheel_kbench.ko" "$work/root/"

tw_log "booting UML (normal) for the kernel-side benchmark: $nr timers, best of $reps"
tw_uml_boot "$kdir" "$TW_ROOT/scripts/guest-init.sh" "$work/console.log" \
	tw.mode=kbench tw.dir="$work/root" tw.kbench="nr=$nr,reps=$reps"
log=$work/console.txt
tr -d '\r' <"$work/console.log" >"$log"

status=0
grep -q '^TW-INSMOD-OK' "$log" || { tw_log "insmod timingwheel.ko failed"; status=1; }
grep -q '^TW-RESULT rc=0' "$log" || { tw_log "the benchmark failed"; status=1; }
grep -q '^TW-RMMOD-OK' "$log" || { tw_log "rmmod failed"; status=1; }
sed -n 's/^TW-KBENCH-BASE /KBENCH-BASE /p' "$log" >&2
sed -n 's/^TW-KBENCH /KBENCH /p' "$log"
for op in start stop batch_start batch_stop expire read; do
	grep -qE "^TW-KBENCH $op ns_per_op=[0-9.]+ ops=[0-9]+$" "$log" ||
		{ tw_log "no result for $op"; status=1; }
done
"$TW_ROOT/scripts/check-console.sh" "$log" || status=1
[ $status -eq 0 ] || tw_log "console: $log"
exit $status
