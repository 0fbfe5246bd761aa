#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge one guest run from its console log (scripts/guest/guest-init.sh's
# markers, listed in scripts/guest/markers.txt):
# the module loaded, the mode's program succeeded, rmmod was refused while a
# file was open and worked after, every planned e2e test and every
# libtimingwheel test passed, and the kernel reported nothing.
#
#   scripts/verdict/e2e-verdict.sh CONSOLE MODE LABEL
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

mode=$2 label=$3
# Serial and UML consoles end lines with CR LF.
log=${1%.log}.txt
tr -d '\r' <"$1" >"$log"
status=0
grep -q '^TW-INSMOD-OK' "$log" || { tw_log "$label: insmod failed"; status=1; }
grep -q '^TW-RESULT rc=0' "$log" || { tw_log "$label: $mode failed"; status=1; }
grep -q '^TW-RMMOD-OK' "$log" || { tw_log "$label: rmmod failed"; status=1; }
if grep -q '^TW-RMMOD-WHILE-OPEN-SUCCEEDED' "$log"; then
	tw_log "$label: the module unloaded while a file was open"
	status=1
fi
if [ "$mode" = e2e ]; then
	# The first plan after tw_e2e's own header, not a KTAP "1..0" of the boot;
	# its results are kselftest_harness lines, "ok N tw.name".
	plan=$(sed -n '/^TAP version 13$/,$p' "$log" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p' | head -n 1)
	oks=$(grep -cE '^ok [0-9]+ [a-z0-9_.]+$' "$log" || true)
	# A test skips only when the kernel lacks a feature it needs; Debian's
	# kernels have them all, a UML kernel may not (TW_E2E_SKIPS=allowed).
	skips=$(grep -cE '^ok [0-9]+ [a-z0-9_.]+ # SKIP ' "$log" || true)
	if [ "$skips" -gt 0 ]; then
		grep -E '^ok [0-9]+ [a-z0-9_.]+ # SKIP ' "$log" | sed 's/^/[tw] skipped: /' >&2
		if [ "${TW_E2E_SKIPS:-}" = allowed ]; then
			oks=$((oks + skips))
		else
			tw_log "e2e: tests skipped on $label, where every feature must be there"
		fi
	fi
	# The trace events must have been checked where every feature is
	# there: tracing is on in Debian's kernels, so a run without the test,
	# or one where it skipped, fails (unless a TW_E2E_ONLY subset left it out).
	if [ "${TW_E2E_SKIPS:-}" != allowed ] &&
		{ [ -z "${TW_E2E_ONLY:-}" ] || [[ ,$TW_E2E_ONLY, == *,trace_events,* ]]; } &&
		! grep -qE '^ok [0-9]+ tw\.trace_events$' "$log"; then
		tw_log "e2e: the trace events were not checked on $label"
		status=1
	fi
	if [ -z "$plan" ] || [ "$plan" -eq 0 ] || [ "$oks" -ne "$plan" ]; then
		tw_log "e2e: ${oks} of ${plan:-no} planned tests passed ($label)"
		grep -E '^not ok|^# [^ ]+:[0-9]+:' "$log" >&2 || true
		status=1
	else
		tw_log "e2e on $label: $oks of $plan tests passed"
	fi
	# libtimingwheel's tests: they must have run, and passed, unless the
	# host left them out (TW_REQUIRE_LIBTEST=0) and the guest ran none.
	libsum=$(grep -m1 '^libtest: TW-LIBTEST-SUMMARY ' "$log" || true)
	if [ "${TW_REQUIRE_LIBTEST:-1}" = 0 ] && ! grep -q '^TW-LIBTEST ' "$log"; then
		tw_log "libtimingwheel tests on $label: left out"
	elif grep -q '^TW-LIBTEST rc=0$' "$log" && [[ $libsum == *" failed=0" ]]; then
		tw_log "libtimingwheel tests on $label: ${libsum#*SUMMARY }"
	else
		tw_log "libtimingwheel tests on $label: FAILED: ${libsum:-no result}"
		grep -E '^libtest: (not ok|# )' "$log" >&2 || true
		status=1
	fi
	# The examples the host gave the guest (TW_EXAMPLES): each must pass.
	for ex in ${TW_EXAMPLES:-}; do
		if grep -q "^TW-EXAMPLE $ex rc=0$" "$log"; then
			tw_log "example $ex on $label: passed"
		else
			tw_log "example $ex on $label: FAILED or did not run"
			grep "^example: " "$log" >&2 || true
			status=1
		fi
	done
	# The client built with pkg-config against the installed packages: it
	# must pass where it ran, and must have run where make check asks.
	if grep -q '^TW-PKGCLIENT rc=0$' "$log"; then
		tw_log "the packaged-library client on $label: passed"
	elif grep -q '^TW-PKGCLIENT' "$log" || [ "${TW_REQUIRE_PKGCLIENT:-}" = 1 ]; then
		tw_log "the packaged-library client on $label: FAILED or did not run"
		status=1
	fi
	# The bindings' tests (bindings/): they must pass, having run tests,
	# where they ran, and must have run where the runner staged them
	# (TW_REQUIRE_BINDINGS=1).
	for b in 'TW-PYTHON:python:Ran [1-9][0-9]* tests?' 'TW-RUST:rust:test result: ok\. [1-9]'; do
		IFS=: read -r m p ran <<<"$b"
		if grep -q "^$m rc=0$" "$log" && grep -qE "^$p: $ran" "$log"; then
			tw_log "the $p binding's tests on $label: passed ($(grep -E "^$p: $ran" "$log" |
				sed "s/^$p: //; s/;.*//; s/ in .*//" | paste -sd ' '))"
		elif grep -q "^$m " "$log" || [ "${TW_REQUIRE_BINDINGS:-}" = 1 ]; then
			tw_log "the $p binding's tests on $label: FAILED or did not run"
			grep -E "^$p: (FAIL|ERROR|.* \.\.\. (FAIL|ERROR)|test .* FAILED|thread .* panicked)" "$log" >&2 || true
			status=1
		fi
	done
	# QEMU guests also run the suite as a 32-bit process (compat_ioctl).
	if grep -q '^TW-COMPAT32' "$log"; then
		if grep -q '^TW-COMPAT32 rc=0' "$log"; then
			tw_log "e2e on $label, 32-bit process: passed"
		else
			tw_log "e2e on $label, 32-bit process: FAILED"
			grep -E '^compat32: (not ok|# [^ ]+:[0-9]+:)' "$log" >&2 || true
			status=1
		fi
	fi
fi
# The fuzzers, when the run was asked for them (TW_FUZZ_BITS="64 32"):
# each must have run and found nothing; their counts go to the log.
for bits in ${TW_FUZZ_BITS:-}; do
	for f in ioctl model stress ring; do
		line=$(grep -m1 "^fuzz$bits: TW-FUZZ $f " "$log" || true)
		if grep -q "^TW-FUZZ-RC $bits $f rc=0$" "$log" &&
			[[ $line == *" failures=0" ]]; then
			tw_log "$label: ${bits}-bit ${line#*TW-FUZZ }"
		else
			tw_log "$label: ${bits}-bit fuzzer $f FAILED: ${line:-no result}"
			grep -E "^fuzz$bits: (# FAIL|# tw_fuzz $f)" "$log" >&2 || true
			status=1
		fi
	done
done
"$TW_ROOT/scripts/verdict/check-console.sh" "$log" || status=1
[ $status -eq 0 ] || tw_log "console: $log"
exit $status
