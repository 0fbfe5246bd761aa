#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suite in user-mode Linux: build (or reuse) the UML kernel,
# build the test module against it with the project's Kbuild, boot UML on a
# read-only hostfs root, load the module, and hand only its KTAP output to
# the kernel's own kunit.py parser.
#
#   scripts/guest/kunit-uml.sh [normal|debug]
#
# Fails if a test fails, if fewer tests ran than the suite declares, or if
# the console shows a BUG, WARNING, KASAN, lockdep or similar report.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

flavour=${1:-normal}
kdir=$("$TW_ROOT/scripts/guest/uml-kernel.sh" "$flavour")
tw_kernel_source 6.12 >/dev/null
work=$TW_CACHE/run/kunit-$flavour${TW_RUN_TAG:+-$TW_RUN_TAG}
stage=$work/module
mkdir -p "$work"

tw_log "building the KUnit module against UML ($flavour)"
# The suite alone: it includes what it tests, and loads no timingwheel.ko.
tw_build_module "$kdir" "$stage" ARCH=um TW_KUNIT_ONLY=1

# Its markers, TW-KTAP-BEGIN and -END, are in scripts/guest/markers.txt.
cat >"$work/init.sh" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo TW-KTAP-BEGIN >/dev/kmsg
insmod $stage/timingwheel_kunit.ko ${TW_SEED:+seed=$TW_SEED} ${TW_IDS_SEED:+ids_seed=$TW_IDS_SEED}
echo TW-KTAP-END >/dev/kmsg
rmmod timingwheel_kunit
poweroff -f
INIT
chmod +x "$work/init.sh"

tw_log "booting UML ($flavour)"
tw_uml_boot "$kdir" "$work/init.sh" "$work/console.log"

sed -n '/TW-KTAP-BEGIN/,/TW-KTAP-END/p' "$work/console.log" |
	sed -n '/^KTAP version/,$p' | grep -v TW-KTAP-END >"$work/ktap.log" || true
# The seeds the randomised cases drew, each replayed by TW_SEED= (a layout
# of tw_test_model, or tw_test_div) or TW_IDS_SEED= (the index's model case).
seeds=$(grep -ohE '\b(ids_)?seed [0-9]+' "$work/ktap.log" | sort -u | tr '\n' ' ')
tw_log "seeds drawn: ${seeds:-none}"

"$TW_ROOT/scripts/verdict/kunit-verdict.sh" "$work/ktap.log" "$work/console.log" "UML $flavour"
