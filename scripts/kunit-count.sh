#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print how many KUnit tests tw_kunit.c declares: each plain case counts one,
# and each case parameterised over the layout table counts once per layout.
set -euo pipefail
f=$(dirname "$0")/../tw_kunit.c
plain=$(grep -cE '^\s*KUNIT_CASE(_SLOW)?\(' "$f")
layouts=$(sed -n '/^static const struct tw_layout tw_layouts\[\]/,/^};/p' "$f" | grep -c '^\s*{ "')
params=$(grep -cE '^\s*KUNIT_CASE_PARAM\(' "$f")
echo $((plain + params * layouts))
