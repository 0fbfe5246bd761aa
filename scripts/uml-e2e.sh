#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the e2e suite against timingwheel.ko inside the UML debug kernel
# (KASAN, lockdep, debugobjects, atomic-sleep and list debugging), where a
# use-after-free, a leak of a lock or a sleep in atomic context in the
# driver becomes a report on the console, which fails the run.
#
#   scripts/uml-e2e.sh [debug|normal]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-debug}
kdir=$("$TW_ROOT/scripts/uml-kernel.sh" "$flavour")
work=$TW_CACHE/run/uml-e2e-$flavour${TW_RUN_TAG:+-$TW_RUN_TAG}
rm -rf "$work" && mkdir -p "$work"

tw_log "building timingwheel.ko against UML ($flavour)"
tw_build_module "$kdir" "$work/module" ARCH=um
make -s -C "$TW_ROOT/tools/timingwheel" device-progs >&2

# The same markers as scripts/guest-init.sh, for scripts/e2e-verdict.sh.
cat >"$work/init.sh" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
insmod $work/module/timingwheel.ko && echo "TW-INSMOD-OK"
echo 5 >/proc/sys/kernel/printk
$TW_ROOT/tools/timingwheel/build/tw_e2e >/dev/tw-e2e.log 2>&1
rc=\$?
cat /dev/tw-e2e.log
echo "TW-RESULT rc=\$rc"
exec 3</dev/timingwheel
rmmod timingwheel 2>/dev/null && echo "TW-RMMOD-WHILE-OPEN-SUCCEEDED"
exec 3<&-
rmmod timingwheel && echo "TW-RMMOD-OK"
poweroff -f
INIT
chmod +x "$work/init.sh"

tw_log "booting UML ($flavour) for the e2e suite"
tw_uml_boot "$kdir" "$work/init.sh" "$work/console.log"
TW_E2E_SKIPS=allowed exec "$TW_ROOT/scripts/e2e-verdict.sh" "$work/console.log" e2e "UML 6.12 $flavour"
