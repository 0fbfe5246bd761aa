#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test the test harness: the verdict on a KUnit run must fail on a failed
# test, on a run of zero tests, on fewer tests than declared, and on a
# console holding a KASAN, lockdep or WARNING report; and pass a clean run.
# The e2e verdict likewise, on made-up guest consoles.  And the console
# markers agree with their table, scripts/guest/markers.txt.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declared=$("$TW_ROOT/scripts/verdict/kunit-count.sh")
failures=0
checks=0

# ktap N [not-ok-index]: a one-suite KTAP log of N cases.
ktap() {
	local n=$1 bad=${2:-0} i
	printf 'KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: selftest\n    1..%d\n' "$n"
	for ((i = 1; i <= n; i++)); do
		if [ "$i" -eq "$bad" ]; then
			printf '    not ok %d case_%d\n' "$i" "$i"
		else
			printf '    ok %d case_%d\n' "$i" "$i"
		fi
	done
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ] && echo 'ok 1 selftest' || echo 'not ok 1 selftest'
}

printf 'Linux version 6.12\nrandom: crng init done\nreboot: Power down\n' >"$tmp/clean.log"
{
	cat "$tmp/clean.log"
	echo '=================================================================='
	echo 'BUG: KASAN: slab-use-after-free in tw_advance+0x1c/0x90 [timingwheel]'
	echo 'Read of size 8 at addr 000000006a1b2c30 by task insmod/27'
} >"$tmp/kasan.log"
{
	cat "$tmp/clean.log"
	echo 'WARNING: possible circular locking dependency detected'
} >"$tmp/lockdep.log"
{
	cat "$tmp/clean.log"
	echo 'WARNING: CPU: 0 PID: 1 at kernel/time/hrtimer.c:1234 hrtimer_start+0x1/0x2'
} >"$tmp/warning.log"

# verdict WANT NAME COMMAND...: run a verdict script, compare with WANT.
verdict() {
	local want=$1 name=$2 got
	shift 2
	checks=$((checks + 1))
	"$@" >"$tmp/out" 2>&1
	[ $? -eq 0 ] && got=pass || got=fail
	if [ "$got" = "$want" ]; then
		tw_log "harness self-test: $name -> $got, as it must"
	else
		tw_log "harness self-test: $name -> $got, but must $want"
		cat "$tmp/out" >&2
		failures=$((failures + 1))
	fi
}

# expect VERDICT NAME KTAP CONSOLE: the KUnit verdict.
expect() {
	verdict "$1" "$2" "$TW_ROOT/scripts/verdict/kunit-verdict.sh" "$3" "$4" "selftest $2"
}

# expect_e2e VERDICT NAME CONSOLE: the e2e verdict.
expect_e2e() {
	verdict "$1" "e2e $2" "$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$3" e2e "selftest $2"
}

ktap "$declared" >"$tmp/all.ktap"
ktap 0 >"$tmp/zero.ktap"
ktap $((declared - 1)) >"$tmp/short.ktap"
ktap "$declared" 3 >"$tmp/failed.ktap"
printf 'KTAP version 1\n1..0\n' >"$tmp/boot.ktap"

expect pass "clean run of $declared tests" "$tmp/all.ktap" "$tmp/clean.log"
expect fail "KASAN report on the console" "$tmp/all.ktap" "$tmp/kasan.log"
expect fail "lockdep report on the console" "$tmp/all.ktap" "$tmp/lockdep.log"
expect fail "WARNING on the console" "$tmp/all.ktap" "$tmp/warning.log"
expect fail "a failed test" "$tmp/failed.ktap" "$tmp/clean.log"
expect fail "zero tests" "$tmp/zero.ktap" "$tmp/clean.log"
expect fail "the boot-time empty KTAP block" "$tmp/boot.ktap" "$tmp/clean.log"
expect fail "fewer tests than declared" "$tmp/short.ktap" "$tmp/clean.log"
expect fail "no KTAP at all" /dev/null "$tmp/clean.log"

# The e2e verdict, on made-up guest consoles.
guest() {
	local plan=$1 oks=$2 i name
	echo 'KTAP version 1'
	echo '1..0'
	echo 'TW-INSMOD-OK'
	printf 'TAP version 13\n[    2.26] clocksource: Switched to clocksource tsc\n1..%d\n' "$plan"
	# The last test is the one the verdict names (trace events).
	for ((i = 1; i <= plan; i++)); do
		name=case_$i
		[ "$i" -lt "$plan" ] || name=trace_events
		if [ "$i" -le "$oks" ]; then
			echo "ok $i tw.$name"
		else
			echo "not ok $i tw.$name"
		fi
	done
	[ "$oks" -eq "$plan" ] && echo 'TW-RESULT rc=0' || echo 'TW-RESULT rc=1'
	echo 'libtest: ok 1 lib.open'
	echo 'libtest: TW-LIBTEST-SUMMARY passed=1 failed=0'
	echo 'TW-LIBTEST rc=0'
	echo 'TW-RMMOD-OK'
}

guest 24 24 >"$tmp/g-ok.log"
guest 24 23 >"$tmp/g-fail.log"
guest 0 0 >"$tmp/g-zero.log"
{ guest 24 24; echo 'BUG: KASAN: use-after-free in tw_read+0x10/0x20'; } >"$tmp/g-kasan.log"
{ guest 24 24; echo 'TW-RMMOD-WHILE-OPEN-SUCCEEDED'; } >"$tmp/g-rmmod.log"
guest 24 24 | grep -v '^TW-RMMOD-OK' >"$tmp/g-normmod.log"
guest 24 24 | sed '/^ok 24/d' >"$tmp/g-short.log"
{ guest 24 24; echo 'compat32: not ok 3 tw.case_c'; echo 'TW-COMPAT32 rc=1'; } >"$tmp/g-c32.log"
guest 24 24 | sed 's/^ok 5 tw.case_5$/ok 5 tw.case_5 # SKIP no such feature/' >"$tmp/g-skip.log"
expect_e2e pass "all 24 passed" "$tmp/g-ok.log"
expect_e2e fail "a test skipped on a Debian kernel" "$tmp/g-skip.log"
verdict pass "e2e a skip where allowed (UML)" env TW_E2E_SKIPS=allowed \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-skip.log" e2e "selftest skip"
expect_e2e fail "the 32-bit run failed" "$tmp/g-c32.log"
guest 24 24 | sed -e 's/^libtest: ok 1/libtest: not ok 1/' -e 's/passed=1 failed=0/passed=0 failed=1/' \
	-e 's/^TW-LIBTEST rc=0/TW-LIBTEST rc=1/' >"$tmp/g-libfail.log"
guest 24 24 | grep -v '^libtest: \|^TW-LIBTEST' >"$tmp/g-libmissing.log"
guest 24 24 | sed 's/^TW-LIBTEST rc=0/TW-LIBTEST rc=124/' >"$tmp/g-libtimeout.log"
expect_e2e fail "a libtimingwheel test failed" "$tmp/g-libfail.log"
expect_e2e fail "the libtimingwheel tests did not run" "$tmp/g-libmissing.log"
expect_e2e fail "the libtimingwheel tests timed out" "$tmp/g-libtimeout.log"
# A mutant of the module alone runs without them (TW_REQUIRE_LIBTEST=0):
# their absence passes then, a failure of theirs still fails.
verdict pass "e2e the libtimingwheel tests left out where allowed" env TW_REQUIRE_LIBTEST=0 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-libmissing.log" e2e "selftest nolib"
verdict fail "e2e a libtimingwheel test failed where they may be left out" env TW_REQUIRE_LIBTEST=0 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-libfail.log" e2e "selftest nolib"
{ guest 24 24; echo 'TW-PKGCLIENT rc=0'; } >"$tmp/g-pkg.log"
{ guest 24 24; echo 'TW-PKGCLIENT rc=1'; } >"$tmp/g-pkgfail.log"
verdict pass "e2e the packaged client passed where required" env TW_REQUIRE_PKGCLIENT=1 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-pkg.log" e2e "selftest pkgclient"
expect_e2e fail "the packaged client failed" "$tmp/g-pkgfail.log"
verdict fail "e2e the packaged client did not run where required" env TW_REQUIRE_PKGCLIENT=1 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-ok.log" e2e "selftest pkgmissing"
# The bindings' tests (TW-PYTHON, TW-RUST): passed, failed, none run, missing.
bound() {
	guest 24 24
	printf 'python: Ran %d tests in 0.4s\npython: OK\nTW-PYTHON rc=%d\n' "$1" "$2"
	printf 'rust: test result: ok. 8 passed; 0 failed\nTW-RUST rc=0\n'
}
bound 17 0 >"$tmp/g-bind.log"
bound 17 1 | sed 's/^python: OK/python: FAILED (failures=1)/' >"$tmp/g-bindfail.log"
bound 0 0 >"$tmp/g-bindnone.log"
bound 17 0 | grep -v '^TW-RUST' >"$tmp/g-bindnorust.log"
verdict pass "e2e the bindings passed where required" env TW_REQUIRE_BINDINGS=1 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-bind.log" e2e "selftest bindings"
expect_e2e fail "a binding's test failed" "$tmp/g-bindfail.log"
expect_e2e fail "a binding ran no test" "$tmp/g-bindnone.log"
verdict fail "e2e a binding did not run where required" env TW_REQUIRE_BINDINGS=1 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-bindnorust.log" e2e "selftest bindings"
guest 24 24 | sed 's/tw\.trace_events$/tw.case_24/' >"$tmp/g-notrace.log"
expect_e2e fail "the trace events were not checked" "$tmp/g-notrace.log"
expect_e2e fail "one test failed" "$tmp/g-fail.log"
expect_e2e fail "a plan of zero" "$tmp/g-zero.log"
expect_e2e fail "KASAN report" "$tmp/g-kasan.log"
{ guest 24 24; echo 'BUG: soft lockup - CPU#1 stuck for 48s! [tw_e2e:77]'; } >"$tmp/g-lockup.log"
{ guest 24 24; echo 'rcu: INFO: rcu_preempt self-detected stall on CPU'; } >"$tmp/g-stall.log"
fuzzed() {
	local f
	guest 24 24
	for f in ioctl model stress ring; do
		echo "TW-FUZZ-RC 64 $f rc=$2"
		echo "fuzz64: TW-FUZZ $f seed=7 steps=1000 failures=$1"
	done
}
fuzzed 0 0 >"$tmp/g-fuzz.log"
fuzzed 3 1 >"$tmp/g-fuzzfail.log"
fuzzed 0 0 | grep -v 'TW-FUZZ model' >"$tmp/g-fuzzmissing.log"
verdict pass "e2e fuzzers clean" env TW_FUZZ_BITS=64 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-fuzz.log" e2e "selftest fuzz"
verdict fail "e2e fuzzer failures" env TW_FUZZ_BITS=64 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-fuzzfail.log" e2e "selftest fuzz"
verdict fail "e2e fuzzer that did not report" env TW_FUZZ_BITS=64 \
	"$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$tmp/g-fuzzmissing.log" e2e "selftest fuzz"
expect_e2e fail "soft lockup report" "$tmp/g-lockup.log"
expect_e2e fail "RCU stall report" "$tmp/g-stall.log"
expect_e2e fail "unloaded while open" "$tmp/g-rmmod.log"
expect_e2e fail "rmmod failed" "$tmp/g-normmod.log"
expect_e2e fail "a test missing from the output" "$tmp/g-short.log"

# The console markers (scripts/guest/markers.txt): every TW-* name that
# guest-init.sh or kunit-uml.sh's init echoes, that a program prints (a
# string literal starting "TW-"), or that guest-init.sh makes of
# timingwheel_kbench.ko's "KBENCH" lines, and every one named anywhere else
# (the verdicts, the runners, this file, the documentation), has an entry
# in the table; and every entry is printed by one of them.
markers_check() {
	local re='TW-[A-Z0-9]+(-[A-Z0-9]+)*' table=$TW_ROOT/scripts/guest/markers.txt
	local listed printed named m bad=0
	listed=$(grep -oE "^$re" "$table" | sort -u)
	printed=$({
		grep -hE '^[^#]*\<echo\>' "$TW_ROOT/scripts/guest/guest-init.sh" \
			"$TW_ROOT/scripts/guest/kunit-uml.sh" | grep -oE "$re"
		grep -rhoE --include='*.c' "\"$re" "$TW_ROOT"/tools "$TW_ROOT"/lib "$TW_ROOT"/*.c |
			tr -d '"'
		grep -ohE '"KBENCH(-[A-Z]+)* ' "$TW_ROOT/tw_kbench.c" | sed 's/^"/TW-/; s/ $//'
	} | sort -u)
	named=$(grep -rIohE --exclude=markers.txt "$re" "$TW_ROOT"/scripts "$TW_ROOT"/tools \
		"$TW_ROOT"/lib "$TW_ROOT"/Documentation "$TW_ROOT"/README.md "$TW_ROOT"/*.[ch] |
		sort -u)
	for m in $(comm -23 <(printf '%s\n' "$printed" "$named" | sort -u) <(echo "$listed")); do
		tw_log "harness self-test: marker $m is printed or read but not in $table"
		grep -rIlE --exclude=markers.txt "$m\>" "$TW_ROOT"/scripts "$TW_ROOT"/tools "$TW_ROOT"/lib \
			"$TW_ROOT"/*.[ch] | sed 's/^/[tw]   in /' >&2
		bad=1
	done
	for m in $(comm -13 <(echo "$printed") <(echo "$listed")); do
		tw_log "harness self-test: marker $m is in $table but nothing prints it"
		bad=1
	done
	[ $bad -eq 0 ] || return 1
	tw_log "harness self-test: the $(wc -l <<<"$listed") console markers and their table agree"
}
markers_check || failures=$((failures + 1))

# Every expectation written below must have been checked.
planned=$(grep -cE '^(expect(_e2e)?|verdict) (pass|fail) ' "$0")
if [ "$checks" -ne "$planned" ]; then
	tw_log "harness self-test: $checks of $planned verdicts were checked"
	failures=$((failures + 1))
fi
[ $failures -eq 0 ] || { tw_log "harness self-test: $failures verdicts wrong"; exit 1; }
tw_log "harness self-test: all verdicts right"
