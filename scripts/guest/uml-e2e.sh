#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the e2e suite against timingwheel.ko inside the UML debug kernel
# (KASAN, lockdep, debugobjects, atomic-sleep and list debugging), where a
# use-after-free, a leak of a lock or a sleep in atomic context in the
# driver becomes a report on the console, which fails the run.  The guest
# runs scripts/guest/guest-init.sh, as the QEMU guests do; with TW_FUZZ_SECONDS
# the fuzzers follow the suite (TW_FUZZ_SEED replays a seed).  TW_E2E_ONLY=T1,T2
# runs only those tests of tw_e2e.  The bindings' tests (bindings/) run after
# the suite; TW_BINDINGS=0|1 leaves them out or asks for them (default: 1
# unless TW_E2E_ONLY is set).  TW_LIBTEST=0 leaves out tw_libtest,
# TW_LIBTEST_ONLY=C1,C2 runs only those of its cases, and TW_EXAMPLES= leaves
# out the examples: a planted bug is judged by the tests its header names
# (scripts/mutations/mutate.sh).
#
#   scripts/guest/uml-e2e.sh [debug|normal]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

flavour=${1:-debug}
tw_need busybox-static
kdir=$("$TW_ROOT/scripts/guest/uml-kernel.sh" "$flavour")
work=$TW_CACHE/run/uml-e2e-$flavour${TW_RUN_TAG:+-$TW_RUN_TAG}
rm -rf "$work" && mkdir -p "$work"

# The module's objects outlive the run: the next builds what changed.
mod=$TW_CACHE/run/module-uml-$flavour${TW_RUN_TAG:+-$TW_RUN_TAG}
tw_log "building timingwheel.ko against UML ($flavour)"
tw_build_module "$kdir" "$mod" ARCH=um
tw_device_progs uml-progs

# What the guest sees under tw.dir: UML runs no 32-bit programs.
root=$work/root
mkdir -p "$root/bin"
cp "$mod/timingwheel.ko" "$root/"
cp "$TW_ROOT"/tools/build/{tw_e2e,tw_fuzz} "$root/bin/"
[ "${TW_LIBTEST:-1}" = 0 ] || cp "$TW_ROOT/tools/build/tw_libtest" "$root/bin/"
# The examples that judge themselves, run after tw_libtest; each must pass.
make -s -C "$TW_ROOT/tools" examples >&2 || tw_die "the examples do not build"
export TW_EXAMPLES=${TW_EXAMPLES-idle_server id_generation mt_reader realtime_side ring_timers}
for ex in $TW_EXAMPLES; do
	cp "$TW_ROOT/tools/build/examples/$ex" "$root/bin/example_$ex"
done
# The bindings' tests (bindings/stage.sh), required then: on a full run,
# not on a TW_E2E_ONLY subset (the mutants') unless TW_BINDINGS=1.
bindings=${TW_BINDINGS:-$([ -n "${TW_E2E_ONLY:-}" ] && echo 0 || echo 1)}
[ "$bindings" = 0 ] || "$TW_ROOT/bindings/stage.sh" "$root/bindings"

tw_log "booting UML ($flavour) for the e2e suite${TW_FUZZ_SECONDS:+, fuzzing ${TW_FUZZ_SECONDS}s}"
tw_uml_boot "$kdir" "$TW_ROOT/scripts/guest/guest-init.sh" "$work/console.log" \
	tw.mode=e2e tw.dir="$root" tw.fuzz="${TW_FUZZ_SECONDS:-0}" tw.seed="${TW_FUZZ_SEED:-0}" \
	${TW_E2E_ONLY:+tw.only=$TW_E2E_ONLY} ${TW_LIBTEST_ONLY:+tw.libonly=$TW_LIBTEST_ONLY}
TW_E2E_SKIPS=allowed TW_FUZZ_BITS=${TW_FUZZ_SECONDS:+64} TW_REQUIRE_BINDINGS=$bindings \
	TW_REQUIRE_LIBTEST=${TW_LIBTEST:-1} \
	exec "$TW_ROOT/scripts/verdict/e2e-verdict.sh" "$work/console.log" e2e "UML 6.12 $flavour"
