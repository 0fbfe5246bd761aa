#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Coverage-guided fuzzing of the wheel and the id index in userspace:
# libFuzzer with ASan and UBSan, each target against its reference model
# (tools/testing/fuzz/).  Bounded: TW_FUZZ_SECONDS per target (default
# 30; make soak runs longer), seeded (TW_FUZZ_SEED replays a run; the seed
# is printed either way).  Starts from the corpus kept in the repository;
# what it finds stays in the cache.  Fails on any crash, leak, sanitizer
# report or hang (10 s per input).
#
#   scripts/fuzz-core.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tw_need clang libclang-rt-14-dev
secs=${TW_FUZZ_SECONDS:-30}
seed=${TW_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
make -s -C "$TW_ROOT/tools" fuzzers >&2 || tw_die "fuzzers do not build"
status=0
# Two differential checks first, in about a second each, each failure
# named for itself: Ratas' benchmark workload at a tiny size on the wheel
# and on the heap (and on Ratas with RATAS_DIR) must fire the same timers
# at the same ticks (bench_ratas -q exits 1); tw_ratas.hh must keep Ratas'
# contract (tw_ratas_check, which prints what it found broken).
if make -s -C "$TW_ROOT/tools" bench-ratas-check >/dev/null; then
	tw_log "bench_ratas: the wheel and the heap agree on Ratas' workload"
else
	tw_log "bench_ratas: checksums differ between the wheel and the heap"
	status=1
fi
if make -s -C "$TW_ROOT/tools" ratas-contract-check >/dev/null; then
	tw_log "tw_ratas_check: tw_ratas.hh keeps Ratas' contract"
else
	tw_log "tw_ratas_check: tw_ratas.hh breaks Ratas' contract (its message above)"
	status=1
fi
for t in core ids; do
	work=$TW_CACHE/run/fuzz-$t
	mkdir -p "$work/corpus"
	rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*
	tw_log "fuzz_$t: seed $seed, $secs s"
	(cd "$work" && "$TW_ROOT/tools/build/fuzz_$t" -seed="$seed" \
		-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
		-print_final_stats=1 "$work/corpus" "$TW_ROOT/tools/testing/fuzz/corpus/$t") \
		>"$work.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	if [ $rc -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
		grep -E 'ERROR|SUMMARY|#[0-9]+ .* in ' "$work.log" | head -20 >&2
		tw_log "fuzz_$t FAILED (seed $seed; log $work.log; the input is in $work)"
		status=1
	else
		tw_log "fuzz_$t: ${runs:-?} inputs, no failure (seed $seed)"
	fi
done
exit $status
