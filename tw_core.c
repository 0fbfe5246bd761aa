// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: The timing wheel
 *
 * A hierarchical timing wheel in the sense of Varghese and Lauck's scheme 7,
 * with the lazy radix sort of Jane Street's OCaml timing_wheel, exact to the
 * tick: a timer fires in the tw_advance() call that reaches its tick, with
 * tw_now() equal to that tick in its callback, never earlier and never later.
 *
 * It is a pure data structure: nothing here allocates, sleeps, locks or reads
 * a clock.  The caller embeds a &struct tw_timer in its own object,
 * serialises all calls on one wheel, and drives time by advancing the wheel
 * to a tick.  Time is a 64-bit count of ticks; what a tick is belongs to the
 * caller.  The same file compiles unchanged in userspace against a shim of
 * the kernel headers it includes, for the benchmarks and the fuzzers.
 */

/**
 * DOC: Layout
 *
 * A wheel has 1 to TW_MAX_LEVELS (10) levels.  Level n has 2^bits[n] slots,
 * bits[n] from 1 to 6, so that one u64 holds the level's occupancy.  A slot
 * of level n spans 2^shift[n] ticks, shift[n] being the sum of the bits of
 * the levels below: level 0 has one tick per slot, and every slot of level n
 * spans all the slots of level n - 1.
 *
 * A timer due at tick T goes to the lowest level n whose window, seen from
 * now, holds it, that is where (T >> shift[n]) - (now >> shift[n]) <
 * 2^bits[n], into slot (T >> shift[n]) & (2^bits[n] - 1).  So the window of
 * level n ends at ((now >> shift[n]) + 2^bits[n]) << shift[n], and how far
 * ahead of now that is depends on where now lies in its slot of level n:
 * level n holds every tick up to (2^bits[n] - 1) * 2^shift[n] ahead, and
 * some up to 2^(shift[n] + bits[n]) - 1 ahead.  For the default layout,
 * 8 levels of 6 bits (48 bits)::
 *
 *   level  bits  shift  slot spans    holds every tick up to (ahead of now)
 *     0     6      0    1 tick        63
 *     1     6      6    64 ticks      4032          (63 * 2^6)
 *     2     6     12    2^12 ticks    258048        (63 * 2^12)
 *    ...
 *     7     6     42    2^42 ticks    2^48 - 2^42   (63 * 2^42)
 *
 * The windows slide with now, and the wheel accepts every tick below
 * tw_max_expiry(), the end of the top level's window, which is at least
 * 2^total_bits - 2^shift[top] ticks ahead (&tw_wheel.reach; more than 2^47
 * for the default layout) and never beyond TW_MAX_TICK (2^63).  A tick at or
 * beyond it is refused with -ERANGE rather than clamped: firing a timer at a
 * time it was not asked for, silently, would be worse than telling the
 * caller.
 */

/**
 * DOC: Lazy radix sort
 *
 * A timer on level n > 0 stays where it is until its slot becomes the
 * current one, at tick T rounded down to a multiple of 2^shift[n].  Then
 * every timer of that slot is placed again by the rule of the layout; T now
 * agrees with now on all bits of level n and up, so each lands on a lower
 * level.  This is the cascade the kernel's own wheel (kernel/time/timer.c)
 * gave up in 4.8 in exchange for up to 12.5% of lateness.  A timer is moved
 * at most once per level below the one it started on, plus once per time
 * tw_modify() left it behind in a slot that then came round, and most timers
 * are stopped long before that (tw_start_range() picks a round tick, which
 * usually needs a single move).  Advancing 2^41 ticks over a handful of
 * timers takes a few steps per timer.
 */

/**
 * DOC: Lazy re-arming
 *
 * Most timers are pushed later again and again before they fire (idle
 * timeouts re-armed on activity).  tw_modify() leaves a timer pushed later
 * in its slot when that slot is above level 0, changing only its tick: the
 * slot still becomes current before the timer is due, and the cascade then
 * places it by its new tick, on any level.  A timer pushed later a hundred
 * times is moved once, when its slot comes round; the kernel's
 * __mod_timer() saves the store only within one bucket.  So a slot above
 * level 0 holds timers due in it or later; level 0 holds exact ticks only,
 * which is what keeps expiry exact, so a level-0 timer, or a timer pushed
 * earlier, is unlinked and placed again.  Whether a timer is above level 0
 * is known without storing its level: the level a fresh start would pick
 * now is a lower bound on the one it is on (see tw_may_stay()).
 */

/**
 * DOC: Invariant
 *
 * Between calls, the slot now falls into is empty on every level, unless
 * &tw_wheel.collecting says a cascade budget ran out while emptying it.
 * Placement keeps it (a timer on level n > 0 is at least one slot ahead, and
 * a timer due at or before now goes to the overdue list instead), and
 * tw_advance() empties each slot as it becomes current, finishing an
 * unfinished one before anything else.
 */

/**
 * DOC: Occupancy
 *
 * Each level keeps a 64-bit map of its non-empty slots, the counterpart of
 * the kernel wheel's pending_map.  The next tick at which a level has work
 * is one rotate and one find-first-set away, so finding the next event costs
 * O(levels) and advancing over a long idle gap costs one such search per
 * occupied slot passed, independent of the ticks passed.
 */

/**
 * DOC: Expiry
 *
 * tw_advance() hands the timers due at each tick it reaches to the
 * caller's callback one at a time, each unlinked first, so the callback
 * may start, modify or stop any timer, the one it was given included.
 * With a budget, or when a cascade brings timers due now, they are first
 * collected into an expired list, where those a budget holds back wait;
 * with no budget, level 0's slots are fired where they lie
 * (tw_fire_slot()).
 *
 * A budget bounds the number of callbacks per call; when it runs out the
 * wheel stays at the tick being expired (tw_has_due() is true,
 * tw_next_event() returns now) and the next call, with any target, resumes
 * there first.  The budget bounds cascades as well, counted apart from
 * expiries: one call moves at most that many timers down a level.  When a
 * slot holds more, the wheel stops at the tick whose slot it was emptying
 * (&tw_wheel.collecting is set) and the next call finishes that slot before
 * anything else.  Running the collection again at the same tick is safe
 * because neither a cascaded nor a new timer ever lands in the current slot
 * of a level above 0, so the slots already emptied are found empty.  Without
 * this, a slot holding a million timers would move all of them in one call,
 * in the device's softirq.
 *
 * Timers started at or before now, from a callback or not, wait on an
 * overdue list and fire in a later call (or, in a call resuming after a
 * budget ran out, once after the held-back ones), so a callback that re-arms
 * its timer for "now" cannot make one call loop forever.
 */

/**
 * DOC: Inline fast paths
 *
 * The calls a busy event loop makes most are decided in tw_core.h, inline in
 * the caller, as Ratas' header is: tw_modify() of a pending timer more than
 * &tw_wheel.near_mask ticks ahead (so above level 0), pushed no earlier and
 * within &tw_wheel.reach is the single store; tw_start() of a timer due in
 * (now, now + near_mask], the most common start, links it into its level-0
 * slot with no level to look up; tw_stop() is inline whole, an unlink and
 * the occupancy bit; tw_modify() of a timer that is not pending
 * is tw_start(); and tw_modify_range() of a timer already due in the range
 * returns without a call.  Everything else is __tw_start(), __tw_modify()
 * and __tw_modify_range() here, which apply the whole rule, edge cases
 * included (a tick at or before now, a tick past reach that is still below
 * tw_max_expiry(), the same tick on level 0).  The inline checks are a
 * strict subset of that rule, so they cannot change what a call does, only
 * what it costs; each has a planted bug that the KUnit suite catches, and
 * tw_test_end_of_time covers the one bound the subset must repeat,
 * TW_MAX_TICK.  tw_advance() with no budget, nothing waiting and a target
 * in level 0's current round fires level 0's slots inline, in its own loop
 * (tw_walk0()), where the compiler may inline the callback as well, Ratas'
 * advance(); __tw_advance() does everything else, and walks each round of
 * level 0 with the same loop when it has no budget.  That loop finds each
 * slot as tw_next_event() does, fires a slot's timers from the slot itself,
 * and counts the timers it fired off nr_pending once per tick, not once per
 * timer; each of these has a planted bug as well.
 *
 * The out-of-line halves, __tw_start(), __tw_modify(), __tw_modify_range(),
 * __tw_next_event() and __tw_advance(), are noinline.  Inlined by link-time
 * optimisation into the caller's function that uses the fast paths, their
 * rarely run bulk made that function too big to be inlined in turn where it
 * is called, an event callback in its expiry loop: in Ratas' benchmark
 * program that cost 6% of all instructions.
 */

/**
 * DOC: Costs
 *
 * For L levels of S slots; a wheel is 5,368 bytes on 64-bit whatever its
 * layout, a timer 24 bytes (a list node and its tick).
 *
 * ========================= ==============================================
 * operation                 cost
 * ========================= ==============================================
 * tw_start()                O(1): a table lookup by the distance's bit
 *                           length and one comparison pick the level
 * tw_stop()                 O(1): unlink; if the timer was first in a slot
 *                           and the slot is now empty, clear its bit
 * tw_modify()               O(1); one store when pushed later above level 0
 * tw_modify_range()         O(L); one comparison when still in range
 * tw_next_event()           O(L)
 * tw_next_expiry()          O(L * S + the timers of the slots it scans)
 * tw_next_expiry_within()   O(L * (S + max_scan))
 * tw_advance()              O(L) per occupied slot reached, O(1) per timer
 *                           fired or cascaded, independent of the ticks
 *                           passed; at most budget fires and budget cascades
 * ========================= ==============================================
 */

#include <linux/bitops.h>
#include <linux/errno.h>

#include "tw_core.h"

static inline unsigned int tw_level_slots(const struct tw_wheel *w,
					  unsigned int lvl)
{
	return 1U << w->bits[lvl];
}

static inline struct hlist_head *tw_slot(struct tw_wheel *w, unsigned int lvl,
					 unsigned int idx)
{
	return &w->slots[lvl * TW_LEVEL_SLOTS + idx];
}

/* Index of the slot that tick @t falls into on level @lvl. */
static inline unsigned int tw_slot_index(const struct tw_wheel *w,
					 unsigned int lvl, u64 t)
{
	return (t >> w->shift[lvl]) & w->slot_mask[lvl];
}

/*
 * The lowest level whose slots reach a distance of @d ticks, by its bit
 * length.  A distance of 0 looks up the entry of 1, which is the same,
 * level 0, whose slots reach at least one bit: so the bit length needs no
 * test for 0 (fls64() of a word known not to be 0).
 */
static inline unsigned int tw_level_of(const struct tw_wheel *w, u64 d)
{
	return w->level_of_bits[fls64(d | 1)];
}

/*
 * The lowest level whose window, seen from tick @from, holds @expires
 * (>= @from); w->nr_levels if none does.  Levels below the one that spans
 * the highest set bit of the distance cannot hold it, and the window of that
 * level may fall one slot short, in which case the next level up holds it:
 * so one table lookup and one comparison decide, whatever the layout.
 */
static unsigned int tw_level_for(const struct tw_wheel *w, u64 from,
				 u64 expires)
{
	unsigned int lvl = tw_level_of(w, expires - from);
	unsigned int s = w->shift[lvl];

	if (lvl < w->nr_levels &&
	    (expires >> s) - (from >> s) >= tw_level_slots(w, lvl))
		lvl++;
	return lvl;
}

static __always_inline void tw_enqueue_at(struct tw_wheel *w,
					  struct tw_timer *t,
					  unsigned int lvl, unsigned int idx)
{
	hlist_add_head(&t->entry, tw_slot(w, lvl, idx));
	w->pending_map[lvl] |= BIT_ULL(idx);
}

static __always_inline void tw_enqueue(struct tw_wheel *w, struct tw_timer *t,
				       unsigned int lvl)
{
	tw_enqueue_at(w, t, lvl, tw_slot_index(w, lvl, t->expires));
}

/**
 * tw_init - set up an empty wheel
 * @wheel:      the wheel
 * @level_bits: log2 of the slots of each level, 1..6; NULL for the default
 * @nr_levels:  number of entries in @level_bits, 1..TW_MAX_LEVELS
 * @now:        the tick the wheel starts at, below TW_MAX_TICK
 *
 * More bits per level mean fewer levels and fewer cascades for the same
 * range; fewer bits a smaller search per level.  Any valid layout spans at
 * most 60 bits, which tw_core.h asserts at compile time.
 *
 * Return: 0, or -EINVAL for a layout the wheel cannot represent (no level,
 * too many, a level of 0 or more than 6 bits) or a start tick out of range.
 */
int tw_init(struct tw_wheel *wheel, const u8 *level_bits,
	    unsigned int nr_levels, u64 now)
{
	unsigned int lvl, bits, shift = 0;

	if (!level_bits)
		nr_levels = TW_DEFAULT_LEVELS;
	if (nr_levels < 1 || nr_levels > TW_MAX_LEVELS || now >= TW_MAX_TICK)
		return -EINVAL;

	for (lvl = 0; lvl < nr_levels; lvl++) {
		bits = level_bits ? level_bits[lvl] : TW_DEFAULT_LEVEL_BITS;
		if (bits < 1 || bits > TW_MAX_LEVEL_BITS)
			return -EINVAL;
		wheel->bits[lvl] = bits;
		wheel->slot_mask[lvl] = (1U << bits) - 1;
		wheel->shift[lvl] = shift;
		shift += bits;
	}
	/* Past the top, a "level" starts where the range ends. */
	for (lvl = nr_levels; lvl <= TW_MAX_LEVELS; lvl++)
		wheel->shift[lvl] = shift;
	/* The lowest level whose slots reach a distance of that many bits. */
	for (lvl = 0, bits = 0; bits <= 64; bits++) {
		while (lvl < nr_levels &&
		       wheel->shift[lvl] + wheel->bits[lvl] < bits)
			lvl++;
		wheel->level_of_bits[bits] = lvl;
	}

	wheel->nr_levels = nr_levels;
	wheel->near_mask = ((u64)1 << wheel->bits[0]) - 1;
	wheel->reach = ((u64)1 << shift) - ((u64)1 << wheel->shift[nr_levels - 1]);
	wheel->now = now;
	wheel->nr_pending = 0;
	wheel->nr_fired = 0;
	wheel->nr_cascades = 0;
	wheel->collecting = false;
	INIT_HLIST_HEAD(&wheel->overdue);
	INIT_HLIST_HEAD(&wheel->expired);
	for (lvl = 0; lvl < TW_MAX_LEVELS; lvl++)
		wheel->pending_map[lvl] = 0;
	for (lvl = 0; lvl < TW_MAX_LEVELS * TW_LEVEL_SLOTS; lvl++)
		INIT_HLIST_HEAD(&wheel->slots[lvl]);
	return 0;
}

/**
 * tw_max_expiry - the first tick the wheel cannot hold right now
 * @wheel: the wheel
 *
 * tw_start() accepts expiries strictly below this.  It grows as the wheel
 * advances, one top-level slot at a time, up to TW_MAX_TICK.
 *
 * Return: that tick.
 */
u64 tw_max_expiry(const struct tw_wheel *wheel)
{
	unsigned int top = wheel->nr_levels - 1;
	unsigned int s = wheel->shift[top];
	u64 max = ((wheel->now >> s) + tw_level_slots(wheel, top)) << s;

	return max < TW_MAX_TICK ? max : TW_MAX_TICK;
}

/**
 * __tw_start - tw_start() beyond its inline level-0 case
 * @wheel:   the wheel
 * @timer:   an initialised timer
 * @expires: the tick it fires at
 *
 * Return: as tw_start().
 */
noinline int __tw_start(struct tw_wheel *wheel, struct tw_timer *timer, u64 expires)
{
	unsigned int lvl;

	if (tw_timer_pending(timer))
		return -EBUSY;

	if (expires <= wheel->now) {
		timer->expires = expires;
		hlist_add_head(&timer->entry, &wheel->overdue);
	} else {
		lvl = tw_level_for(wheel, wheel->now, expires);
		if (lvl == wheel->nr_levels || expires >= TW_MAX_TICK)
			return -ERANGE;
		timer->expires = expires;
		tw_enqueue(wheel, timer, lvl);
	}
	wheel->nr_pending++;
	return 0;
}

/*
 * True if a pending timer may stay where it is when due at @expires instead
 * of @t->expires.  A timer due after now is in a wheel slot.  If a fresh
 * start would put it above level 0, it is above level 0 (the level a tick
 * needs only falls as now advances, and a timer left behind by this
 * function is above level 0 until its slot re-places it), and a slot above
 * level 0 may hold a timer due later than the slot's own ticks: the slot
 * becomes current first, never after, and re-places the timer by its tick.
 * So a timer pushed later, the common case, stays.  Level 0 holds exact
 * ticks only, so there it must be the same tick.
 */
static bool tw_may_stay(const struct tw_wheel *w, const struct tw_timer *t,
			u64 expires)
{
	if (t->expires <= w->now || expires < t->expires)
		return false;
	if (expires == t->expires)
		return true;
	/* Above level 0, and the new tick in range (most are well inside). */
	return t->expires - w->now >= tw_level_slots(w, 0) &&
	       ((expires - w->now < w->reach && expires < TW_MAX_TICK) ||
		expires < tw_max_expiry(w));
}

/**
 * __tw_modify - tw_modify() beyond its inline common cases
 * @wheel:   the wheel
 * @timer:   a pending timer
 * @expires: the tick it fires at
 *
 * Return: as tw_modify().
 */
noinline int __tw_modify(struct tw_wheel *wheel, struct tw_timer *timer, u64 expires)
{
	if (tw_may_stay(wheel, timer, expires)) {
		timer->expires = expires;
		return 0;
	}
	/* A tick within reach, most are, is below tw_max_expiry(). */
	if (expires > wheel->now &&
	    (expires - wheel->now >= wheel->reach || expires >= TW_MAX_TICK) &&
	    expires >= tw_max_expiry(wheel))
		return -ERANGE;
	tw_stop(wheel, timer);
	return tw_start(wheel, timer, expires);
}

/* Rotate the low @n bits of @map right by @r (0 <= @r < @n <= 64). */
static inline u64 tw_rotate(u64 map, unsigned int r, unsigned int n)
{
	u64 mask = n < 64 ? BIT_ULL(n) - 1 : ~0ULL;

	if (!r)
		return map;
	return ((map >> r) | (map << (n - r))) & mask;
}

/*
 * The first tick after @now at which an occupied slot of level @lvl becomes
 * current, or TW_NO_EVENT.  The current slot is empty by the invariant, so
 * the search starts one slot ahead of it.
 */
static u64 tw_level_next(const struct tw_wheel *w, unsigned int lvl)
{
	unsigned int n = tw_level_slots(w, lvl), s = w->shift[lvl];
	unsigned int ahead = (tw_slot_index(w, lvl, w->now) + 1) & (n - 1);
	u64 map = w->pending_map[lvl];

	if (!map)
		return TW_NO_EVENT;
	/* Bit 0 of the rotated map is the slot one ahead of now. */
	map = tw_rotate(map, ahead, n);
	return ((w->now >> s) + __ffs64(map) + 1) << s;
}

/* The earliest tick level @lvl can have work at: its next slot boundary. */
static u64 tw_level_horizon(const struct tw_wheel *w, unsigned int lvl)
{
	unsigned int s = w->shift[lvl];

	return ((w->now >> s) + 1) << s;
}

/**
 * __tw_next_event - tw_next_slot_event() beyond its inline case
 * @w:     the wheel
 * @limit: do not look past this tick
 *
 * The next tick in (now, @limit] at which a slot becomes current, the long
 * way.  Levels are searched from the bottom; a level whose next slot
 * boundary is past the best tick so far, or past @limit, cannot do better,
 * and neither can any level above it, so the search stops there (Ratas'
 * ticks_until_next_event(max)).
 *
 * Level 0 has nothing after now in its round (tw_next_slot_event() looked),
 * so no level has work before the next round's first tick.  A busy wheel
 * mostly has work right there, a slot of level 1 to cascade or a timer of
 * the next round in level 0's slot 0 (now's slot, if it is 0, is empty):
 * two bits answer, before the search.
 *
 * Return: that tick, or TW_NO_EVENT.
 */
noinline u64 __tw_next_event(const struct tw_wheel *w, u64 limit)
{
	u64 best = (w->now | w->near_mask) + 1;
	unsigned int lvl;

	if ((w->pending_map[0] & 1) ||
	    (w->nr_levels > 1 &&
	     (w->pending_map[1] & BIT_ULL(tw_slot_index(w, 1, best)))))
		return best <= limit ? best : TW_NO_EVENT;
	best = TW_NO_EVENT;
	for (lvl = 0; lvl < w->nr_levels; lvl++) {
		u64 horizon = tw_level_horizon(w, lvl);
		u64 t;

		if (horizon >= best || horizon > limit)
			break;
		t = tw_level_next(w, lvl);
		if (t < best)
			best = t;
	}
	return best <= limit ? best : TW_NO_EVENT;
}

/*
 * The earliest expiry among the timers of one slot, looking at no more than
 * *@left of them and counting them off; if the slot holds more, @floor, the
 * tick the slot becomes current, which no timer in it precedes.
 */
static u64 tw_slot_min(const struct hlist_head *head, u64 floor,
		       unsigned int *left)
{
	const struct hlist_node *n;
	u64 min = TW_NO_EVENT;

	for (n = head->first; n; n = n->next) {
		u64 t = hlist_entry(n, struct tw_timer, entry)->expires;

		if (!*left)
			return floor;
		(*left)--;
		if (t < min)
			min = t;
	}
	return min;
}

/*
 * While a cascade is unfinished, the current slots are not empty: level 0's
 * holds timers due now, an upper level's the rest of the slot it was
 * emptying.  The earliest of them, as tw_slot_min() sees it.
 */
static u64 tw_current_min(const struct tw_wheel *w, unsigned int max_scan)
{
	u64 best = TW_NO_EVENT, t;
	unsigned int lvl, idx, left;

	for (lvl = 0; lvl < w->nr_levels; lvl++) {
		idx = tw_slot_index(w, lvl, w->now);
		if (!(w->pending_map[lvl] & BIT_ULL(idx)))
			continue;
		left = lvl ? max_scan : 0;
		t = tw_slot_min(&w->slots[lvl * TW_LEVEL_SLOTS + idx], w->now, &left);
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * The earliest expiry on level @lvl if it precedes @best, else @best.  A
 * slot above level 0 may hold timers due after later slots of its level
 * begin (see tw_may_stay()), so the slots are taken in the order they come
 * round until one begins no earlier than the best so far, looking at no
 * more than @max_scan timers in all; past that, a slot counts from its
 * first tick.  On level 0 a slot's tick is its timers' tick.
 */
static u64 tw_level_min(const struct tw_wheel *w, unsigned int lvl,
			u64 best, unsigned int max_scan)
{
	unsigned int n = tw_level_slots(w, lvl), s = w->shift[lvl];
	unsigned int cur = tw_slot_index(w, lvl, w->now), k, idx;
	u64 map = w->pending_map[lvl] & ~BIT_ULL(cur), start, t;

	/* Bit k of the rotated map is the slot k + 1 ahead of now's. */
	for (map = tw_rotate(map, (cur + 1) & (n - 1), n); map; map &= map - 1) {
		k = __ffs64(map);
		start = ((w->now >> s) + k + 1) << s;
		if (start >= best)
			break;
		idx = lvl * TW_LEVEL_SLOTS + ((cur + k + 1) & (n - 1));
		t = lvl ? tw_slot_min(&w->slots[idx], start, &max_scan) : start;
		if (t < best)
			best = t;
	}
	return best;
}

/**
 * tw_next_expiry_within - the earliest pending timer's tick, at bounded cost
 * @wheel:    the wheel
 * @max_scan: look at no more than this many timers on one level (twice
 *            that on a level whose unfinished cascade is scanned too)
 *
 * Unlike tw_next_event() this looks inside the slots that could hold the
 * earliest timer, so it costs O(levels) plus up to @max_scan timers per
 * level.  When a level holds more timers than that before the answer is
 * known, the slot where the scan stopped counts as due when it becomes
 * current, so the result stays a lower bound that no timer precedes; it is
 * exact whenever the scan did not stop.  The earliest timer may be on a
 * higher level (one placed on level 1 at tick 0 for tick 100 is due before
 * one placed on level 0 at tick 50 for tick 110).  tw_next_expiry() is the
 * exact, unbounded form, meant for tests, not for anything that holds a
 * lock: a slot may hold every timer.  The device's GET_INFO uses this one.
 *
 * Return: @wheel->now if timers are due and waiting, the tick of the earliest
 * pending timer (or that lower bound), or TW_NO_EVENT if there is none.
 */
u64 tw_next_expiry_within(const struct tw_wheel *wheel, unsigned int max_scan)
{
	u64 best;
	unsigned int lvl;

	if (!hlist_empty(&wheel->expired) || !hlist_empty(&wheel->overdue))
		return wheel->now;
	best = wheel->collecting ? tw_current_min(wheel, max_scan) : TW_NO_EVENT;

	for (lvl = 0; lvl < wheel->nr_levels; lvl++) {
		if (tw_level_horizon(wheel, lvl) >= best)
			break;
		best = tw_level_min(wheel, lvl, best, max_scan);
	}
	return best;
}

/*
 * The level a timer due @d ticks after now goes to when a slot of a level
 * whose slots span @span ticks comes round at now.  Now is then a multiple
 * of @span, so of the span of every lower level's whole window: a tick less
 * than @span ahead is in the window of the lowest level whose slots reach
 * its bit length, with no window to check (the fast case, the tick in the
 * slot it was placed for).  A timer tw_modify() pushed later may be due
 * farther ahead: the general rule then.
 */
static __always_inline unsigned int tw_cascade_level(const struct tw_wheel *w,
						     u64 d, u64 span)
{
	if (d < span)
		return tw_level_of(w, d);
	return tw_level_for(w, w->now, w->now + d);
}

/*
 * Place again every timer of level @lvl's current slot, while *@left
 * allows.  Each lands on a lower level, or in level 0's current slot if it
 * is due right now, or, if tw_modify() pushed it later, wherever its tick
 * belongs: never in the current slot of a level above 0.  Return false if
 * the budget ran out with timers left in the slot.
 */
static bool tw_cascade(struct tw_wheel *w, unsigned int lvl, u64 *left)
{
	unsigned int idx = tw_slot_index(w, lvl, w->now);
	u64 budget = *left, span = (u64)1 << w->shift[lvl], now = w->now;
	struct hlist_head *head = tw_slot(w, lvl, idx);
	struct hlist_node *n, *next;
	u64 moved = 0;

	/*
	 * The slot's list is walked rather than unlinked node by node: no
	 * timer lands back in it, and the nodes the budget leaves are put
	 * back whole.  tw_advance() counts budgets in 64 bits, TW_NO_BUDGET
	 * as U64_MAX, which no call can spend: so unlimited needs no test of
	 * its own.
	 */
	for (n = head->first; n && moved < budget; n = next) {
		struct tw_timer *t = hlist_entry(n, struct tw_timer, entry);

		next = n->next;
		tw_enqueue(w, t, tw_cascade_level(w, t->expires - now, span));
		moved++;
	}
	head->first = n;
	w->nr_cascades += moved;
	*left = budget - moved;
	if (n) {
		n->pprev = &head->first;
		return false;
	}
	w->pending_map[lvl] &= ~BIT_ULL(idx);
	return true;
}

/*
 * Cascade the upper levels at @w->now.  Only a level whose slot boundary
 * @now sits on can have a slot that just became current, and if @now is
 * not on a boundary of level n it is on none above.  The order among levels
 * does not matter: a cascaded timer never lands in the current slot of a
 * level above 0, nor does a new one.  So when the cascade budget *@left
 * runs out, the wheel marks the collection unfinished and a later call
 * simply runs it again at the same tick: the slots already emptied are
 * skipped.  Return false in that case.
 */
static bool tw_cascade_all(struct tw_wheel *w, u64 *left)
{
	unsigned int lvl;

	for (lvl = 1; lvl < w->nr_levels; lvl++) {
		if (w->now & (((u64)1 << w->shift[lvl]) - 1))
			break;
		if ((w->pending_map[lvl] & BIT_ULL(tw_slot_index(w, lvl, w->now))) &&
		    !tw_cascade(w, lvl, left)) {
			w->collecting = true;
			return false;
		}
	}
	w->collecting = false;
	return true;
}

/*
 * Cascade what became current at @w->now (see tw_cascade_all()) and collect
 * what is due there.  Most ticks are not on a slot boundary of level 1, and
 * then only level 0 can have work.  Return false if the cascade budget
 * *@left ran out.
 */
static inline bool tw_collect(struct tw_wheel *w, u64 *left)
{
	unsigned int idx = tw_slot0(w, w->now);

	if (!idx && !tw_cascade_all(w, left))
		return false;
	if (w->pending_map[0] & BIT_ULL(idx)) {
		hlist_move_list(tw_slot(w, 0, idx), &w->expired);
		w->pending_map[0] &= ~BIT_ULL(idx);
	}
	return true;
}

/*
 * Hand the expired timers to @fn while *@left allows (tw_fire_list()).
 * Return false if it ran out with timers left.
 */
static __always_inline bool tw_fire_expired(struct tw_wheel *w,
					    u64 *left,
					    tw_expire_fn fn, void *data)
{
	*left -= tw_fire_list(w, *left, fn, data);
	return hlist_empty(&w->expired);
}

static __always_inline bool tw_run_expired(struct tw_wheel *w,
					   u64 *left,
					   tw_expire_fn fn, void *data)
{
	return hlist_empty(&w->expired) || tw_fire_expired(w, left, fn, data);
}

/**
 * __tw_advance - tw_advance() beyond its inline case
 * @wheel:  the wheel
 * @target: the tick to advance to
 * @budget: fire at most this many timers in this call (TW_NO_BUDGET: all)
 * @fn:     called for each expired timer, already unlinked
 * @data:   passed to @fn
 *
 * Return: as tw_advance().
 */
noinline unsigned int __tw_advance(struct tw_wheel *wheel, u64 target,
			  unsigned int budget, tw_expire_fn fn, void *data)
{
	u64 fired = wheel->nr_fired;
	u64 left = budget != TW_NO_BUDGET ? budget : U64_MAX, moves = left;

	if (target >= TW_MAX_TICK)
		target = TW_MAX_TICK - 1;

	if (!tw_run_expired(wheel, &left, fn, data))
		goto out;
	/* A collection a budget cut short is finished before anything else. */
	if (wheel->collecting &&
	    (!tw_collect(wheel, &moves) || !tw_run_expired(wheel, &left, fn, data)))
		goto out;
	/* Timers started since the last call, due by now, go first. */
	if (!hlist_empty(&wheel->overdue))
		hlist_move_list(&wheel->overdue, &wheel->expired);

	while (tw_run_expired(wheel, &left, fn, data) && wheel->now < target) {
		u64 next;

		/*
		 * With no budget, the rest of now's round of level 0 as
		 * tw_advance() walks it: the expired list is empty, no
		 * cascade is unfinished, and no slot above level 0 comes
		 * round before the round's last tick.  Timers callbacks
		 * started for now or earlier wait on the overdue list for
		 * the next call, as in the loop below.
		 */
		if (budget == TW_NO_BUDGET) {
			next = wheel->now | wheel->near_mask;
			if (next > target)
				next = target;
			if (next > wheel->now) {
				tw_walk0(wheel, next, fn, data);
				if (next == target)
					break;
			}
		}
		next = tw_next_slot_event(wheel, target);
		if (next == TW_NO_EVENT) {
			wheel->now = target;
			break;
		}
		wheel->now = next;
		if (!tw_collect(wheel, &moves))
			break;
	}
out:
	fired = wheel->nr_fired - fired;
	return fired < UINT_MAX ? fired : UINT_MAX;
}

/**
 * tw_cascades_needed - how often a timer would be moved before it fires
 * @wheel:   the wheel
 * @expires: a tick below tw_max_expiry()
 *
 * Return: the number of cascades a timer started now for @expires goes
 * through before it fires (0 if it starts on level 0 or is already due).
 */
unsigned int tw_cascades_needed(const struct tw_wheel *wheel, u64 expires)
{
	unsigned int lvl, moves = 1;

	if (expires <= wheel->now)
		return 0;
	lvl = tw_level_for(wheel, wheel->now, expires);
	if (!lvl || lvl >= wheel->nr_levels)
		return 0;
	/*
	 * It leaves level lvl when its slot comes round, at @expires with
	 * the bits below that level cleared.  From there the distance is
	 * those low bits, so it goes to the level of their highest set bit,
	 * that is the next level down whose digit of @expires is not 0, and
	 * so on until level 0: one move per such level above 0.
	 */
	while (--lvl > 0)
		moves += tw_slot_index(wheel, lvl, expires) != 0;
	return moves;
}

/**
 * DOC: Range scheduling
 *
 * tw_start_range() and tw_modify_range() take a range [lo, hi] of ticks and
 * place the timer at its roundest tick, tw_roundest(): the one with the
 * most trailing zero bits, unique in any range.  It is the one policy of
 * the project: the device's slack uses it too.  Two things follow.
 *
 * Coalescing: the pick depends on the range only, not on now or on the
 * wheel, so timers whose ranges hold the same round tick share it and fire
 * in one tw_advance() step, on one hrtimer interrupt for the device.
 *
 * No cascade: a tick with k trailing zeros is aligned to the slots of every
 * level whose slots span at most 2^k ticks, and no tick of the range is
 * aligned to more of them.  When the roundest tick lands on such a level,
 * it fires when its slot comes round, with no move to a lower level, which
 * is what Ratas' schedule_in_range buys by zeroing as many low digits as
 * the range allows.  It is not always the cheapest tick: one on level 0
 * costs no move at all, and now and then (about 1% of random ranges above
 * level 0) a tick with a non-zero level-0 digit but zero digits above it
 * saves one move.  Coalescing, and a pick that needs no search, are worth
 * that move; tw_cascades_needed() tells what a tick costs.
 *
 * tw_modify_range() first leaves a pending timer already due in the range
 * alone (inline, one load and two comparisons), so a timer re-armed with a
 * range that slides with now (an idle timeout with a second of slack) costs
 * no store until now has moved by about the slack.
 */

/* Check a range for tw_start_range() and tw_modify_range(); cut @hi. */
static __always_inline int tw_check_range(const struct tw_wheel *w, u64 lo,
					  u64 *hi)
{
	u64 max;

	if (lo > *hi)
		return -EINVAL;
	/* Most ranges are well inside the reach: no tw_max_expiry() then. */
	if (*hi - w->now < w->reach && *hi < TW_MAX_TICK)
		return 0;
	max = tw_max_expiry(w) - 1;
	if (lo > max)
		return -ERANGE;
	if (*hi > max)
		*hi = max;
	return 0;
}

/**
 * tw_start_range - start a timer anywhere in [@lo, @hi], cheaply
 * @wheel: the wheel
 * @timer: an initialised timer that is not pending
 * @lo:    the earliest acceptable tick
 * @hi:    the latest acceptable tick
 *
 * Starts it at tw_roundest(@lo, @hi), the tick with the most trailing zero
 * bits: timers whose ranges share a round tick fire together, and a round
 * tick fires when its slot comes round (see "Range scheduling").
 *
 * Return: as tw_start(); -EINVAL if @lo > @hi.  @hi beyond the wheel's range
 * is cut to it; @lo beyond it is -ERANGE.
 */
int tw_start_range(struct tw_wheel *wheel, struct tw_timer *timer,
		   u64 lo, u64 hi)
{
	int ret;

	if (tw_timer_pending(timer))
		return -EBUSY;
	ret = tw_check_range(wheel, lo, &hi);
	return ret ? ret : tw_start(wheel, timer, tw_roundest(lo, hi));
}

/**
 * __tw_modify_range - tw_modify_range() for a timer not due in the range
 * @wheel: the wheel
 * @timer: an initialised timer, pending or not
 * @lo:    the earliest acceptable tick
 * @hi:    the latest acceptable tick
 *
 * The caller, tw_modify_range(), has found @timer not pending or not due
 * in [@lo, @hi].
 *
 * Return: as tw_modify_range().
 */
noinline int __tw_modify_range(struct tw_wheel *wheel, struct tw_timer *timer,
		      u64 lo, u64 hi)
{
	int ret = tw_check_range(wheel, lo, &hi);

	return ret ? ret : tw_modify(wheel, timer, tw_roundest(lo, hi));
}
