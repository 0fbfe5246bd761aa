#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the tests catch real bugs: apply one deliberate bug at a time
# to a copy of the tree and require the suite to fail.  "core" plants bugs
# in the wheel and runs the KUnit suite under UML; "device" plants bugs in
# the driver and runs the e2e suite under the UML debug kernel.  A mutation
# whose pattern no longer matches the source is itself a failure, so this
# cannot pass by going stale.
#
#   scripts/mutate.sh core|device
#
# TW_MUTATION=<part of a name> runs only the matching mutations.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# name|file|sed expression
core_mutations=(
	"fire one tick early|tw_core.c|s/idx = tw_slot_index(w, 0, w->now);/idx = tw_slot_index(w, 0, w->now + 1);/"
	"stop leaves the occupancy bit set|tw_core.c|/if (timer->slot != TW_NO_SLOT \&\&/,/~BIT_ULL(timer->slot % TW_LEVEL_SLOTS);/d"
	"cascade leaves the occupancy bit set|tw_core.c|/^static void tw_cascade/,/^}/{/w->pending_map\[lvl\] \&= ~BIT_ULL(idx);/d}"
	"level window one slot too wide|tw_core.c|s/(expires >> s) - (from >> s) >= tw_level_slots(w, lvl))/(expires >> s) - (from >> s) > tw_level_slots(w, lvl))/"
	"budget ignored|tw_core.c|s/if (\*left != TW_NO_BUDGET)/if (*left == 0)/"
	"overdue timers never fire|tw_core.c|/hlist_move_list(\&wheel->overdue, \&wheel->expired);/d"
	"next event stops at the first level with work|tw_core.c|s/^\t\tif (horizon >= best || horizon > limit)/\t\tif (best != TW_NO_EVENT || horizon > limit)/"
	"modify's range check off by one|tw_core.c|s/if (expires > wheel->now \&\& expires >= tw_max_expiry(wheel))/if (expires > wheel->now \&\& expires > tw_max_expiry(wheel))/"
	"modify keeps a timer in a slot of another tick|tw_core.c|s/tw_slot_index(w, lvl, expires) == slot % TW_LEVEL_SLOTS;/true;/"
	"modify ignores the window|tw_core.c|s/ahead < tw_level_slots(w, lvl) \&\&/(ahead | 1) \&\&/"
	"pending count not kept on stop|tw_core.c|/^bool tw_stop/,/^}/{/wheel->nr_pending--;/d}"
	"cascade ignores the budget|tw_core.c|/^static bool tw_cascade/,/^}/{/if (!tw_take(left))/d;/return false;/d}"
	"an unfinished cascade is not resumed|tw_core.c|s/if (wheel->collecting \&\&/if (false \&\&/"
	"bounded next-expiry scan ignores its bound|tw_core.c|/^static u64 tw_slot_min/,/^}/{/if (!max--)/d;/return floor;/d}"
	"index split by the wrong hash bit|tw_ids.c|s/\& BIT(ids->level)) ? hi : lo;/\& BIT(ids->level - 1)) ? hi : lo;/"
	"index bucket ignores the split pointer|tw_ids.c|s/return b < ids->split ? hash \& ((2UL << ids->level) - 1) : b;/return b;/"
	"index hash ignores the id's top half|tw_ids.c|s/hsiphash_2u32(lower_32_bits(id), upper_32_bits(id),/hsiphash_2u32(lower_32_bits(id), 0,/"
	"index takes a duplicate id|tw_ids.c|s/if (old->id == node->id)/if (old->id == node->id \&\& !old)/"
	"index count not kept on remove|tw_ids.c|/^void tw_ids_remove/,/^}/{/ids->nr--;/d}"
	"index never reports overload|tw_ids.c|s/return ids->nr >= TW_IDS_MAX_LOAD \* tw_ids_buckets(ids);/return false;/"
	"a new segment brings no splits|tw_ids.c|/^bool tw_ids_add_seg/,/^}/{/tw_ids_split(ids);/d;/while (ids->nr > tw_ids_buckets(ids)/d}"
)

device_mutations=(
	"expiry rounded down: fires early|tw_chardev.c|s/return tick + (rem != 0);/return tick;/"
	"stop leaves an expired timer's event queued|tw_chardev.c|/^static int tw_do_stop/,/^}/s/^\tcase TW_QUEUED:$/\tcase TW_QUEUED:\n\t\tif (op->id != ~0ULL)\n\t\t\treturn TW_STOPPED_EXPIRED;/"
	"reserved field of START not checked|tw_chardev.c|s/if ((op->flags \& ~TW_TIMER_FLAGS) || op->__reserved)/if (op->flags \& ~TW_TIMER_FLAGS)/"
	"no follow-up callback after a burst|tw_chardev.c|s/\t\tnext = now + TW_BURST_GAP_NS;/\t\tnext = KTIME_MAX;/"
	"batch ignores a fault writing the results|tw_chardev.c|s/^\t\tif (tw_put_results(uops + done, ops, n)) {$/\t\tif (tw_put_results(uops + done, ops, n) \&\& false) {/"
	"events dropped when the copy to userspace fails|tw_chardev.c|/^static void tw_return_events/,/^}/s/^\t\tt->state = TW_QUEUED;$/\t\tlist_del(\&t->event);\n\t\ttw_forget(c, t);\n\t\tcontinue;/"
	"read not bounded by the queue it found|tw_chardev.c|s/size_t left = min_t(u64, max, READ_ONCE(c->nr_queued)), done = 0;/size_t left = max, done = 0;/"
	"memcg charge may invoke the OOM killer|tw_chardev.c|s/(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)/(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)/"
	"per-user timer limit overshot by a chunk|tw_chardev.c|/^static unsigned int tw_user_charge/,/^}/{/n = min_t(unsigned long, n, max - cur);/d}"
	"non-blocking read sleeps on the read mutex|tw_chardev.c|s/if (!mutex_trylock(\&c->read_mutex))/if (mutex_lock_interruptible(\&c->read_mutex))/"
	"a stopped timer's event requeued after a failed copy|tw_chardev.c|/^static void tw_return_events/,/^}/s/if (t->stopped) {/if (t->stopped \&\& t->interval) {/"
)

case ${1:-core} in
core)
	mutations=("${core_mutations[@]}")
	suite() { TW_RUN_TAG=mutant TW_UML_TIMEOUT=30 "$1/scripts/kunit-uml.sh" normal; }
	# Caught means tests ran and some failed or crashed.
	verdict='Ran [1-9][0-9]* tests: .*(failed|crashed): [1-9][0-9]*.*'
	;;
device)
	mutations=("${device_mutations[@]}")
	# The UML debug kernel: twice as fast as a TCG guest, and KASAN
	# turns a mutant's memory error into a report.
	suite() { TW_RUN_TAG=mutant TW_UML_TIMEOUT=300 "$1/scripts/uml-e2e.sh" debug; }
	# Caught means the suite ran (some tests passed) and not all passed.
	verdict='e2e: [1-9][0-9]* of [1-9][0-9]* planned tests passed'
	;;
*) tw_die "usage: mutate.sh core|device" ;;
esac

failures=0 tried=0
for m in "${mutations[@]}"; do
	IFS='|' read -r name file expr <<<"$m"
	[[ $name == *"${TW_MUTATION:-}"* ]] || continue
	tried=$((tried + 1))
	tree=$TW_CACHE/run/mutant
	rm -rf "$tree" && mkdir -p "$tree"
	(cd "$TW_ROOT" && rsync -a --exclude build Kbuild ./*.c ./*.h scripts tools "$tree/" &&
		if [ -d include ]; then rsync -a include "$tree/"; fi)
	sed -i "$expr" "$tree/$file"
	if cmp -s "$TW_ROOT/$file" "$tree/$file"; then
		tw_log "mutation '$name' did not apply: update scripts/mutate.sh"
		failures=$((failures + 1))
		continue
	fi
	if suite "$tree" >"$tree.log" 2>&1; then
		tw_log "mutation '$name' SURVIVED: the suite did not notice"
		failures=$((failures + 1))
	elif grep -qE 'insmod failed|TW-GUEST .* mode= ' "$tree.log" ||
		! ran=$(grep -m1 -oE "$verdict|the kernel reported a problem" "$tree.log"); then
		# A mutant that does not build or boot, or a guest that never
		# loaded it, proves nothing about the tests; one that crashes
		# the kernel under test was caught.
		tw_log "mutation '$name': the suite did not run (log: $tree.log)"
		failures=$((failures + 1))
	else
		tw_log "mutation '$name' caught: $ran"
	fi
done
[ $tried -gt 0 ] || tw_die "no mutation matches '${TW_MUTATION:-}'"
[ $failures -eq 0 ] || exit 1
tw_log "all $tried mutations caught"
