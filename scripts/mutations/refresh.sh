#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Rewrite planted bugs that still apply exactly but at an offset, after the
# code around them moved: each is applied without fuzz to a copy of the
# tree and its diff taken again, its header kept.  A patch that needs fuzz
# or does not apply is left alone and named: its bug must be planted again
# by hand.  scripts/mutations/mutate.sh refuses both kinds.
#
#   scripts/mutations/refresh.sh [PATCH...]   (default: all of them)
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

[ $# -gt 0 ] || set -- "$TW_ROOT"/scripts/mutations/*/*.patch
work=$TW_CACHE/run/refresh
status=0
for m in "$@"; do
	rm -rf "$work" && mkdir -p "$work/a" "$work/b"
	mapfile -t files < <(sed -n 's|^+++ b/||p' "$m")
	for f in "${files[@]}"; do
		mkdir -p "$work/a/$(dirname "$f")" "$work/b/$(dirname "$f")"
		cp "$TW_ROOT/$f" "$work/a/$f" && cp "$TW_ROOT/$f" "$work/b/$f"
	done
	if ! out=$(patch -p1 --fuzz=0 --no-backup-if-mismatch -d "$work/b" <"$m" 2>&1); then
		tw_log "does not apply: $m"
		status=1
		continue
	fi
	grep -q offset <<<"$out" || continue
	{
		sed -n '/^--- a\//q;p' "$m"
		for f in "${files[@]}"; do
			(cd "$work" && diff -u --label "a/$f" --label "b/$f" "a/$f" "b/$f")
		done
	} >"$work/new.patch"
	mv "$work/new.patch" "$m"
	tw_log "refreshed: ${m#"$TW_ROOT"/}"
done
exit $status
