#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: show the device doing its job.  Where this machine can load
# modules (root, a kernel with module support and its headers), build and
# load timingwheel.ko here and run the demonstration with twctl; elsewhere
# boot Debian's 6.12 kernel in QEMU and run the same demonstration inside.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

can_load_here() {
	[ "$(id -u)" -eq 0 ] && [ -f /proc/modules ] &&
		[ -d "/lib/modules/$(uname -r)/build" ]
}

if can_load_here; then
	tw_log "loading timingwheel.ko into the running kernel $(uname -r)"
	make -C "$TW_ROOT" modules >/dev/null
	make -s -C "$TW_ROOT/tools" twctl
	lsmod | grep -q '^timingwheel ' || insmod "$TW_ROOT/timingwheel.ko"
	PATH=$TW_ROOT/tools/build:$PATH sh "$TW_ROOT/scripts/guest/guest-demo.sh"
	rmmod timingwheel
	exit 0
fi

tw_log "this kernel cannot load modules: running the demo in a QEMU guest"
exec "$TW_ROOT/scripts/guest/qemu-run.sh" 6.12 demo
