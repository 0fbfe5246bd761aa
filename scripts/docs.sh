#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build Documentation/timingwheel with Sphinx and the kernel's kernel-doc
# extension from the 6.12 source tree, warnings as errors: a docutils error,
# or a kernel-doc:: directive naming a DOC block or identifier the source
# does not have, fails the build.  Then kernel-doc -Wall over the module's
# sources and the uapi, which must print nothing.  The HTML goes to the cache, never
# into the repository.
#
#   scripts/docs.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tw_need python3-sphinx python3-docutils perl
src=$(tw_kernel_source 6.12)
out=$TW_CACHE/run/docs${TW_RUN_TAG:+-$TW_RUN_TAG}
log=$out.log
rm -rf "$out" && mkdir -p "$out"

tw_log "kernel-doc -none -Wall (the wheel, the index, the client, the uapi)"
(cd "$TW_ROOT" && "$src/scripts/kernel-doc" -none -Wall \
	tw_core.c tw_core.h tw_ids.c tw_ids.h tw_client.c tw_client.h tw_chardev.c \
	tw_memcg.c tw_memcg.h tw_budget.c tw_budget.h \
	include/uapi/linux/timingwheel.h) >"$log.kdoc" 2>&1 || true
status=0
if [ -s "$log.kdoc" ]; then
	cat "$log.kdoc" >&2
	tw_log "kernel-doc warns"
	status=1
fi

tw_log "sphinx-build -W Documentation/timingwheel (log: $log)"
# -E: no cached environment, so that every directive runs kernel-doc again.
if ! TW_KERNEL_SRC=$src sphinx-build -q -W --keep-going -E -b html \
	-d "$out/.doctrees" "$TW_ROOT/Documentation" "$out/html" >"$log" 2>&1; then
	cat "$log" >&2
	tw_die "the documentation does not build cleanly"
fi
# kernel-doc's own complaints reach Sphinx only through its exit status:
# anything it printed is a failure too.
if grep -iE 'warning|error' "$log" >&2; then
	tw_die "kernel-doc warned during the build"
fi
[ "$status" -eq 0 ] || tw_die "kernel-doc -Wall warned (above)"
tw_log "docs: $out/html/timingwheel/index.html"
