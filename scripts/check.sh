#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: every test of the project, in order, with a summary.
# Installs what it needs; caches kernels under $TW_CACHE.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# Each stage prints its elapsed time; the summary lists them all and the
# total, so that a person sees where the time goes.
# A failed stage's own words on why (a planted bug that survived, a suite
# that did not run, a test that failed) are repeated under the summary, so
# that the last lines of a long run say what went wrong.
declare -a results why
check_start=$SECONDS
stage_log=$TW_CACHE/run/check-stage.log
tw_mmss() { printf '%2d:%02d' $(($1 / 60)) $(($1 % 60)); }
# record NAME VERDICT SECONDS LOG: a stage's end, its verdict and time.
record() {
	local name=$1 verdict=$2 secs=$3 log=$4
	tw_log "=== $name: $verdict in $(tw_mmss "$secs")"
	results+=("$verdict  $(tw_mmss "$secs")  $name")
	if [ "$verdict" = FAIL ]; then
		why+=("$name:")
		mapfile -t -O ${#why[@]} why < <(grep -E "$why_re" "$log" | tail -n 8)
	fi
}
run() {
	local name=$1 t0=$SECONDS verdict=PASS
	shift
	tw_log "=== $name"
	"$@" 2>&1 | tee "$stage_log" || verdict=FAIL
	record "$name" $verdict $((SECONDS - t0)) "$stage_log"
}
why_re='SURVIVED|did not run|does not apply|replay|FAILED|FAIL:|not ok|error|[Ff]ailed'

run "harness self-test" "$TW_ROOT/scripts/verdict/selftest-harness.sh"
run "lint (checkpatch, W=1, sparse)" "$TW_ROOT/scripts/lint.sh"
# From an empty cache, the debug UML kernel builds in the background, at a
# lower priority, while the packages build and the QEMU guests run: that
# takes most of its 5 minutes out of a cold run.
# The KUnit stage under it waits for it (uml-kernel.sh's lock); with the
# kernel cached this returns at once.
nice -n 10 "$TW_ROOT/scripts/guest/uml-kernel.sh" debug \
	>"$TW_CACHE/run/uml-debug-build.log" 2>&1 &
# kill_tree PID...: those processes and all they started.  At exit, the
# background jobs still running: the build, and the QEMU lanes or the UML
# e2e stage if cut off.
kill_tree() {
	local p c

	for p; do
		for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do kill_tree "$c"; done
		kill "$p" 2>/dev/null
	done
}
# shellcheck disable=SC2046 # one word per job
trap 'kill_tree $(jobs -p)' EXIT
run "Debian packages: build, install (dkms), check, purge" "$TW_ROOT/scripts/package/packages.sh"
# The fuzzers run, bounded, where a bug shows best: the core and the index
# under ASan and UBSan in userspace, the device under KASAN and lockdep and
# on PREEMPT_RT.  TW_FUZZ_SECONDS sets how long each runs (make soak: 1 h).
fuzz=${TW_FUZZ_SECONDS:-20}
# The three Debian guests run in two lanes, each guest on one host thread
# (scripts/guest/qemu-run.sh), one a CPU, as the device's planted bugs run:
# the PREEMPT_RT kernel, the longest with its fuzzers, beside the others
# one after another.  What the guests share is made first, one thing at a
# time: apt's packages, each kernel's headers and image, the test
# programs; each guest's own script then finds them made, and no two calls
# of apt or make race.  A failure here is said again by the guest that
# needs what failed.  A PREEMPT_RT kernel (*-rt) runs the fuzzers too, and
# has a lane of its own.
qemu_rt() {
	[[ $1 == *-rt ]]
}
qemu_name() {
	if qemu_rt "$1"; then
		echo "e2e and fuzzers on Debian $1 in QEMU"
	else
		echo "e2e on Debian $1 in QEMU"
	fi
}
qemu_stage() {
	if qemu_rt "$1"; then
		env TW_FUZZ_SECONDS="$fuzz" TW_REQUIRE_PKGCLIENT=1 \
			"$TW_ROOT/scripts/guest/qemu-run.sh" "$1" e2e
	else
		env TW_REQUIRE_PKGCLIENT=1 "$TW_ROOT/scripts/guest/qemu-run.sh" "$1" e2e
	fi
}
qemu_prepare() {
	local k status=0

	(tw_need qemu-system-x86 busybox-static cpio gzip) || status=1
	for k in "${TW_KERNELS[@]}"; do
		"$TW_ROOT/scripts/guest/debian-kernel.sh" "$k" >/dev/null || status=1
	done
	(tw_device_progs device-progs) || status=1
	return $status
}
# qemu_lane KERNEL...: those guests one after another; each one's output
# in $lanes/KERNEL.log, its exit status and seconds in $lanes/KERNEL.rc.
lanes=$TW_CACHE/run/check-lanes
qemu_lane() {
	local k t0 rc

	for k; do
		t0=$SECONDS
		qemu_stage "$k" >"$lanes/$k.log" 2>&1
		rc=$?
		echo "$rc $((SECONDS - t0))" >"$lanes/$k.rc"
	done
}
rm -rf "$lanes" && mkdir -p "$lanes"
lane_rt=() lane_other=()
for k in "${TW_KERNELS[@]}"; do
	if qemu_rt "$k"; then lane_rt+=("$k"); else lane_other+=("$k"); fi
done
if qemu_prepare >"$lanes/prepare.log" 2>&1; then
	for k in "${TW_KERNELS[@]}"; do tw_log "=== $(qemu_name "$k") (two lanes)"; done
	qemu_lane "${lane_rt[@]}" &
	pid_rt=$!
	qemu_lane "${lane_other[@]}" &
	wait $pid_rt $!
else
	# Their own scripts make what is missing, and say why it failed.
	tw_log "preparing the guests failed (log: $lanes/prepare.log): one lane"
	for k in "${TW_KERNELS[@]}"; do tw_log "=== $(qemu_name "$k")"; done
	qemu_lane "${TW_KERNELS[@]}"
fi
for k in "${TW_KERNELS[@]}"; do
	{ read -r rc secs <"$lanes/$k.rc"; } 2>/dev/null || { rc=1 secs=0; }
	cat "$lanes/$k.log" 2>/dev/null
	[ "$rc" = 0 ] && verdict=PASS || verdict=FAIL
	record "$(qemu_name "$k")" "$verdict" "$secs" "$lanes/$k.log"
done
# The e2e suite under UML debug is one UML process, on one CPU, for about
# four minutes: it runs beside the stages that follow it here, and is said
# and recorded after them.  None of those judges a test by time: their one
# clock, the core mutants' 30 s limit on a UML boot of about 6 s, cuts only
# a run that hangs.  Their builds share no file with its own: the KUnit
# modules and the mutants' trees are their own, the fuzzers and the Ratas
# checks are other programs of tools/.  The device's planted bugs, some of
# which are caught only by time, run after it.  Its status file is made
# anew, so that a job that dies before writing it fails the stage.
uml_e2e="e2e and fuzzers under UML debug (KASAN, lockdep)"
uml_e2e_log=$TW_CACHE/run/check-uml-e2e.log
rm -f "$uml_e2e_log.rc"
tw_log "=== $uml_e2e (beside the next four stages)"
(
	t0=$SECONDS
	env TW_FUZZ_SECONDS="$fuzz" "$TW_ROOT/scripts/guest/uml-e2e.sh" debug \
		>"$uml_e2e_log" 2>&1
	echo "$? $((SECONDS - t0))" >"$uml_e2e_log.rc"
) &
uml_e2e_pid=$!
run "KUnit under UML" "$TW_ROOT/scripts/guest/kunit-uml.sh" normal
run "KUnit under UML debug (KASAN, lockdep)" "$TW_ROOT/scripts/guest/kunit-uml.sh" debug
run "KUnit catches planted bugs (mutations)" "$TW_ROOT/scripts/mutations/mutate.sh" core
run "libFuzzer on the wheel and the index (ASan, UBSan)" \
	env TW_FUZZ_SECONDS="$fuzz" "$TW_ROOT/scripts/fuzz-core.sh"
wait $uml_e2e_pid || tw_log "the UML e2e job ended with status $?"
{ read -r rc secs <"$uml_e2e_log.rc"; } 2>/dev/null || { rc=1 secs=0; }
cat "$uml_e2e_log"
[ "$rc" = 0 ] && verdict=PASS || verdict=FAIL
record "$uml_e2e" "$verdict" "$secs" "$uml_e2e_log"
run "e2e catches planted bugs (mutations)" "$TW_ROOT/scripts/mutations/mutate.sh" device

echo
echo "== make check summary (verdict, minutes:seconds, stage)"
printf '  %s\n' "${results[@]}"
echo "  total $(tw_mmss $((SECONDS - check_start)))"
failed=$(printf '%s\n' "${results[@]}" | grep -c '^FAIL')
echo "stages: $((${#results[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ] || printf '  %s\n' "why, in the failed stages' words:" "${why[@]}"
[ "$failed" -eq 0 ]
