#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge one KUnit run: its KTAP output goes to the kernel's own kunit.py
# parser, the number of tests that ran is compared with what the suites
# declare (scripts/verdict/kunit-count.sh; kunit.py calls a run of zero tests a
# success), and the console log is searched for kernel reports.
#
#   scripts/verdict/kunit-verdict.sh KTAP_LOG CONSOLE_LOG LABEL
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

ktap=$(realpath "$1")
console=$2
label=$3
src=$(tw_kernel_source 6.12)
status=0

tw_log "kunit.py parse ($label):"
# kunit.py changes directory: give it an absolute path.
parsed=$(python3 "$src/tools/testing/kunit/kunit.py" parse "$ktap" 2>&1) || status=1
echo "$parsed"

declared=$("$TW_ROOT/scripts/verdict/kunit-count.sh")
ran=$(echo "$parsed" | sed -n 's/.*Testing complete\. Ran \([0-9]*\) tests.*/\1/p' | tail -n 1)
if [ -z "$ran" ] || [ "$ran" -lt "$declared" ]; then
	tw_log "ran ${ran:-no} tests; the suite declares $declared"
	status=1
fi
if echo "$parsed" | grep -qE '(failed|crashed|errors|skipped): [1-9]'; then
	tw_log "some tests failed, crashed or were skipped"
	status=1
fi
"$TW_ROOT/scripts/verdict/check-console.sh" "$console" || status=1

if [ $status -eq 0 ]; then
	tw_log "KUnit ($label): $ran of $declared declared tests passed"
else
	tw_log "KUnit ($label) FAILED; console: $console"
fi
exit $status
