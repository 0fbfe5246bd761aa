#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print how many KUnit tests the suites declare (tw_kunit.c, tw_ids_kunit.c,
# tw_budget_kunit.c, tw_time_kunit.c):
# each plain case counts one, and each case parameterised over the wheel's
# layout table counts once per layout.
set -euo pipefail
dir=$(dirname "$0")/../..
files=("$dir/tw_kunit.c" "$dir/tw_ids_kunit.c" "$dir/tw_budget_kunit.c" "$dir/tw_time_kunit.c")
plain=$(cat "${files[@]}" | grep -cE '^\s*KUNIT_CASE(_SLOW)?\(')
layouts=$(sed -n '/^static const struct tw_layout tw_layouts\[\]/,/^};/p' "$dir/tw_kunit.c" | grep -c '^\s*{ "')
params=$(cat "${files[@]}" | grep -cE '^\s*KUNIT_CASE_PARAM\(')
echo $((plain + params * layouts))
