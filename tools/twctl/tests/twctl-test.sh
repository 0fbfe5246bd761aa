#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# twctl's command line on the build host, no device needed: each bad word
# is named with exit status 2 before the device is opened, --version and
# the manual page agree with the program.  TAP on stdout; fails on any.
#
#   sh tests/twctl-test.sh TWCTL TWCTL.1
twctl=$1 page=$2
version=$(cat "$(dirname "$0")/../../../VERSION")
out=${TMPDIR:-/tmp}/twctl-test.$$
n=0 failed=0
trap 'rm -f "$out".*' EXIT

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n $1"
	sed 's/^/# /' "$out.err" "$out.out" 2>/dev/null
}

# expect NAME STATUS STDERR-TEXT ARGS...: twctl ARGS exits with STATUS and
# its standard error holds STDERR-TEXT (a fixed string), and nothing says
# the device was opened.
expect() {
	name=$1 want=$2 text=$3
	shift 3
	"$twctl" "$@" >"$out.out" 2>"$out.err" </dev/null
	rc=$?
	if [ $rc -ne "$want" ]; then
		not_ok "$name: exit $rc, want $want"
	elif ! grep -qF -- "$text" "$out.err"; then
		not_ok "$name: stderr lacks \"$text\""
	elif [ "$want" -eq 2 ] && grep -q 'open /dev/timingwheel' "$out.err"; then
		not_ok "$name: the device was opened before the error"
	else
		ok "$name"
	fi
}

expect "help nosuch says the command is unknown" 2 \
	"twctl: help: unknown command 'nosuch'" help nosuch
if [ -s "$out.out" ]; then not_ok "help nosuch wrote to stdout"; else ok "help nosuch: stdout empty"; fi
expect "read x names x as MAX" 2 "twctl: read: MAX 'x' is not a number" read x
expect "watch 4 nope names nope as TIMEOUT" 2 \
	"twctl: watch: TIMEOUT 'nope' is not a time" watch 4 nope
expect "stop 1 2 names 2 as an extra argument of stop" 2 \
	"twctl: stop: extra argument '2'" stop 1 2
expect "start 1 10 nope names nope as PERIOD" 2 \
	"twctl: start: PERIOD 'nope' is not a time" start 1 10 nope
expect "config monotonic 10 is out of range" 2 \
	"twctl: config: RESOLUTION '10' is out of range" config monotonic 10
expect "-r 1 is out of range, before the open" 2 "twctl: -r '1' is out of range" -r 1 info
expect "-r 2s is out of range, before the open" 2 "twctl: -r '2s' is out of range" -r 2s info
expect "-r 1us is a resolution" 1 "" -r 1us info
expect "-r 1s is a resolution" 1 "" -r 1s info
expect "unknown command" 2 "twctl: unknown command 'nosuch'" nosuch
expect "ring 0 is out of range" 2 "twctl: ring: COUNT '0' is not 1 to 1024" ring 0
expect "ring 1025 is out of range" 2 "twctl: ring: COUNT '1025' is not 1 to 1024" ring 1025

# What is right stays right: the demo's command lines pass the syntax
# check (exit 0 with the device, 1 without, never 2).
for line in "start 1 50 start 6 100 100 start 7 250 stop 7 info watch 10 2000 info fdinfo" \
	"config boottime 100us start --slack 20ms 1 30ms start --replace 2 60ms query 2 batch start 3 10ms start --interval 25ms 4 25ms stop 2 end watch 4 2000 sleep 20 read info" \
	"start 1 10 2 read 5 read watch 1 1s info" "ring 100 info fdinfo"; do
	# shellcheck disable=SC2086 # the words of the command line
	"$twctl" $line >"$out.out" 2>"$out.err" </dev/null
	rc=$?
	if [ $rc -ne 2 ]; then ok "accepted: $line"; else not_ok "refused: $line"; fi
done

# --version: the release.
"$twctl" --version >"$out.out" 2>"$out.err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^twctl $version " "$out.out"; then
	ok "--version prints twctl $version"
else
	not_ok "--version: exit $rc, want \"twctl $version ...\""
fi

# The manual page: lints clean, has a NAME for whatis, and documents every
# command that --help lists, and --version.
if man --warnings -l "$page" 2>"$out.err" >/dev/null && [ ! -s "$out.err" ]; then
	ok "man --warnings -l $page: clean"
else
	not_ok "man --warnings -l $page"
fi
if lexgrog "$page" >"$out.out" 2>&1; then ok "lexgrog $page"; else not_ok "lexgrog $page"; fi
cmds=$("$twctl" --help | sed -n 's/^  \([a-z]*\).*/\1/p')
[ -n "$cmds" ] || not_ok "--help lists no commands"
for c in $cmds --version; do
	if grep -qE "^\.(B|BR|BI|IR) \"?(\\\\-\\\\-)?${c#--}\b" "$page"; then
		ok "$page documents $c"
	else
		not_ok "$page does not document $c"
	fi
done

echo "1..$n"
echo "# twctl-test: $((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
