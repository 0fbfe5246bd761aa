/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hierarchical timing wheel: the interface.  See tw_core.c for the design.
 *
 * The wheel owns no memory and takes no lock: the caller embeds a struct
 * tw_timer in its own object, serialises every call on one wheel, and drives
 * time by advancing the wheel to a tick.
 */
#ifndef _TW_CORE_H
#define _TW_CORE_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/list.h>

/* Each level has at most 64 slots so that its occupancy fits one u64. */
#define TW_MAX_LEVEL_BITS	6
#define TW_LEVEL_SLOTS		BIT(TW_MAX_LEVEL_BITS)
#define TW_MAX_LEVELS		10
/* Ticks stay below 2^63 so that no range computation can overflow. */
#define TW_MAX_TICK		((u64)1 << 63)
/* Any layout spans at most 60 bits, so no range computation overflows. */
static_assert(TW_MAX_LEVELS * TW_MAX_LEVEL_BITS <= 60, "wheel wider than 60 bits");

/* The default layout: 8 levels of 64 slots, 48 bits of range. */
#define TW_DEFAULT_LEVELS	8
#define TW_DEFAULT_LEVEL_BITS	6

/* tw_next_event() and tw_next_expiry() return this when nothing is due. */
#define TW_NO_EVENT		U64_MAX
/* tw_advance() with this budget fires every timer that is due. */
#define TW_NO_BUDGET		UINT_MAX

/**
 * struct tw_timer - a timer node, embedded in the caller's object
 * @expires: the tick at which the timer fires; kept after it fired
 * @entry:   link in a slot, the overdue list or the expired list, while
 *           the timer is pending; once it fired, @entry.pprev is NULL,
 *           all tw_timer_pending() reads, and @entry.next is left as it
 *           was, as hlist_del_init_rcu() leaves it
 * @link:    the caller's, while the timer is not pending: a fired timer
 *           can wait on the caller's own queue at no extra cost
 *
 * 24 bytes on 64-bit.  Which slot a timer is in is not stored: tw_stop()
 * learns it from @entry when it matters (see there), and tw_modify() from
 * the tick.  Initialise with tw_timer_init() before first use and again
 * after using @link; while the timer is pending the wheel owns every field.
 *
 * @expires comes first: the check a caller makes most, whether a timer is
 * already due in a range (tw_modify_range()), reads it, and a caller that
 * puts the node right after its object's first words (a C++ event's
 * vtable pointer and wheel) then finds it beside what it has just read
 * (with tw_ratas.hh's check: Ratas' program's D1 misses down 30%).
 */
struct tw_timer {
	u64			expires;
	union {
		struct hlist_node	entry;
		struct list_head	link;
	};
};

/**
 * struct tw_wheel - a hierarchical timing wheel
 * @now:         the last tick the wheel was advanced to
 * @pending_map: per level, bit s is set iff slot s of that level is non-empty,
 *               between calls (a walk clears a slot's bit, then fires it)
 * @overdue:     timers started at or before @now; they fire on the next advance
 * @expired:     timers collected for firing that a budget held back (a
 *               walk with no budget fires level 0's slots where they lie)
 * @nr_fired:    timers handed to the expiry callback, ever
 * @nr_cascades: timers placed again when their slot came round, ever: moved
 *               to a lower level, or anywhere if tw_modify() pushed them later
 * @collecting:  a cascade budget ran out at @now: some current slot above
 *               level 0 still holds timers, and the next advance finishes it
 * @nr_levels:   levels in use
 * @bits:        log2 of the number of slots of each level
 * @shift:       log2 of the ticks one slot of each level spans
 * @slot_mask:   per level, 2^bits - 1: the mask of a tick's slot index
 * @near_mask:   the ticks level 0 spans, 2^bits[0], less one: a timer due at
 *               most this far ahead of @now goes to level 0, one due farther
 *               above it; the mask of a tick's level-0 slot
 * @reach:       every tick less than this far ahead of @now is in range,
 *               wherever @now is (2^total_bits - 2^shift[top]); farther
 *               ones need tw_max_expiry()
 * @nr_pending:  timers started and neither fired nor stopped.  Like
 *               @nr_fired, exact between calls: tw_advance() counts the
 *               timers of one tick off once it has fired them all.  Kept
 *               away from @nr_fired, which it is updated with, so that
 *               compilers do not pair the two in one wide access (see
 *               tw_fire_list())
 * @level_of_bits: for a distance of n significant bits, the lowest level
 *               whose window can reach it (see tw_level_for())
 * @slots:       TW_LEVEL_SLOTS list heads per level, level after level
 */
struct tw_wheel {
	u64			now;
	u64			pending_map[TW_MAX_LEVELS];
	struct hlist_head	overdue;
	struct hlist_head	expired;
	u64			nr_fired;
	u64			nr_cascades;
	u64			near_mask;
	u64			reach;
	u64			nr_pending;
	bool			collecting;
	u8			nr_levels;
	u8			bits[TW_MAX_LEVELS];
	u8			shift[TW_MAX_LEVELS + 1];
	u8			slot_mask[TW_MAX_LEVELS];
	u8			level_of_bits[65];
	struct hlist_head	slots[TW_MAX_LEVELS * TW_LEVEL_SLOTS];
};

/*
 * Called once per expired timer: may start, modify or stop any timer, not
 * advance it.  What tw_has_due(), tw_next_event(), tw_next_expiry() and
 * tw_next_expiry_within() answer there is unspecified: the timers of the
 * tick not yet handed out may or may not count.
 */
typedef void (*tw_expire_fn)(struct tw_timer *timer, void *data);

int tw_init(struct tw_wheel *wheel, const u8 *level_bits,
	    unsigned int nr_levels, u64 now);
int __tw_start(struct tw_wheel *wheel, struct tw_timer *timer, u64 expires);
int tw_start_range(struct tw_wheel *wheel, struct tw_timer *timer,
		   u64 lo, u64 hi);
int __tw_modify(struct tw_wheel *wheel, struct tw_timer *timer, u64 expires);
int __tw_modify_range(struct tw_wheel *wheel, struct tw_timer *timer,
		      u64 lo, u64 hi);
u64 __tw_next_event(const struct tw_wheel *w, u64 limit);
u64 tw_next_expiry_within(const struct tw_wheel *wheel, unsigned int max_scan);
u64 tw_max_expiry(const struct tw_wheel *wheel);
unsigned int tw_cascades_needed(const struct tw_wheel *wheel, u64 expires);

static inline void tw_timer_init(struct tw_timer *timer)
{
	INIT_HLIST_NODE(&timer->entry);
	timer->expires = 0;
}

/*
 * True while the timer is in the wheel: started, not yet fired or stopped.
 * Not while the caller uses @timer->link, which shares the storage.
 */
static inline bool tw_timer_pending(const struct tw_timer *timer)
{
	return !hlist_unhashed(&timer->entry);
}

/*
 * A timer was just unlinked; @pprev is where its link was.  It pointed into
 * tw_wheel.slots exactly when the timer was the first of a slot, and only
 * then can the slot have become empty: a timer behind another leaves that
 * one in place.  So the occupancy map is kept without the timer naming its
 * slot.  The overdue and expired lists are not slots and have no bit.
 */
static inline void tw_unlinked(struct tw_wheel *w, struct hlist_node **pprev)
{
	unsigned long off = (unsigned long)pprev - (unsigned long)w->slots;
	unsigned int slot = off / sizeof(w->slots[0]);

	if (off < sizeof(w->slots) && !w->slots[slot].first)
		w->pending_map[slot / TW_LEVEL_SLOTS] &=
			~BIT_ULL(slot % TW_LEVEL_SLOTS);
}

/**
 * tw_stop - stop a timer
 * @wheel: the wheel
 * @timer: the timer
 *
 * O(1): the timer is unlinked from wherever it waits.  A stopped timer
 * never fires, even one already collected for firing that a budget held
 * back.
 *
 * Not while the caller uses @timer->link: initialise the timer first.
 *
 * Return: true if the timer was pending, false if it was not (never
 * started, already fired or already stopped), in which case nothing changes.
 */
static inline bool tw_stop(struct tw_wheel *wheel, struct tw_timer *timer)
{
	struct hlist_node **pprev = timer->entry.pprev;

	if (!pprev)
		return false;

	hlist_del_init(&timer->entry);
	tw_unlinked(wheel, pprev);
	wheel->nr_pending--;
	return true;
}

/* Level 0's slot of tick @t: level 0 has one tick per slot. */
static inline unsigned long tw_slot0(const struct tw_wheel *w, u64 t)
{
	return t & w->near_mask;
}

/**
 * tw_start - start a timer
 * @wheel:   the wheel
 * @timer:   an initialised timer that is not pending
 * @expires: the tick it fires at
 *
 * A timer due at or before the current tick fires on the next tw_advance().
 *
 * The most common start, a timer due at most @near_mask ticks ahead, goes to
 * its level-0 slot here, inline, with no level to look up and no call;
 * every other case is __tw_start().
 *
 * Return: 0; -EBUSY if @timer is already pending (stop it first); -ERANGE if
 * @expires is at or beyond tw_max_expiry().
 */
static inline int tw_start(struct tw_wheel *wheel, struct tw_timer *timer,
			   u64 expires)
{
	unsigned long idx = tw_slot0(wheel, expires);

	/* In (now, now + near_mask]: one comparison, now + 1 the origin. */
	if (tw_timer_pending(timer) ||
	    expires - wheel->now - 1 >= wheel->near_mask ||
	    expires >= TW_MAX_TICK)
		return __tw_start(wheel, timer, expires);
	timer->expires = expires;
	hlist_add_head(&timer->entry, &wheel->slots[idx]);
	wheel->pending_map[0] |= BIT_ULL(idx);
	wheel->nr_pending++;
	return 0;
}

/**
 * tw_modify - start a timer, or move a pending one to a new tick
 * @wheel:   the wheel
 * @timer:   an initialised timer, pending or not
 * @expires: the tick it fires at
 *
 * The common case, pushing a pending timer later (an idle timeout re-armed
 * on activity), costs one store unless the timer is on level 0: the slot it
 * is in becomes current no later than the new tick, which is all a slot
 * above level 0 promises, and places it again then (see tw_may_stay() in
 * tw_core.c for the whole rule).  A timer pushed later a hundred times is
 * moved once, when its slot comes round.  Otherwise this is tw_stop() and
 * tw_start().  Not while the caller uses @timer->link.
 *
 * That common case is checked here, inline, so that a re-arm costs the
 * caller a few instructions and no call: the timer is pending, due more
 * than @near_mask ticks ahead (so above level 0), pushed no earlier, and
 * the new tick within @reach.  A timer not pending goes straight to
 * tw_start(); everything else, edge cases of the same rule included, is
 * __tw_modify().
 *
 * Return: 0, or -ERANGE if @expires is at or beyond tw_max_expiry(), in
 * which case the timer is left as it was.
 */
static inline int tw_modify(struct tw_wheel *wheel, struct tw_timer *timer,
			    u64 expires)
{
	if (!tw_timer_pending(timer))
		return tw_start(wheel, timer, expires);
	if (expires >= timer->expires &&
	    timer->expires > wheel->now + wheel->near_mask &&
	    expires - wheel->now < wheel->reach && expires < TW_MAX_TICK) {
		timer->expires = expires;
		return 0;
	}
	return __tw_modify(wheel, timer, expires);
}

/**
 * tw_roundest - the roundest tick in [@lo, @hi]
 * @lo: the first tick of the range
 * @hi: the last, at least @lo
 *
 * The tick with the most trailing zero bits, the one tw_start_range() and
 * tw_modify_range() pick (see "Range scheduling" in tw_core.c).  Below the
 * highest bit in which @lo and @hi differ, bit k, the range holds the tick
 * with the bits of @hi from k up and none under: @lo itself if its bits
 * under k + 1 are clear, else @hi with its bits under k cleared.  Two ticks
 * of a range with as many trailing zeros would have a rounder one between
 * them, so it is unique.  Ticks are below 2^63, so k + 1 is a valid shift.
 *
 * Return: that tick.
 */
static inline u64 tw_roundest(u64 lo, u64 hi)
{
	u64 under;

	if (lo == hi)
		return lo;
	under = BIT_ULL(fls64(lo ^ hi)) - 1;
	return lo & under ? hi & ~(under >> 1) : lo;
}

/**
 * tw_modify_range - start a timer, or move a pending one, anywhere in
 *                   [@lo, @hi], cheaply
 * @wheel: the wheel
 * @timer: an initialised timer, pending or not
 * @lo:    the earliest acceptable tick
 * @hi:    the latest acceptable tick
 *
 * A pending timer already due in the range is left alone, here, inline: an
 * idle timeout re-armed on every request with a slack of a second costs
 * the caller one load and two comparisons, not a store, until now has
 * moved by about that second.  Otherwise the timer is set as by
 * tw_modify() to tw_roundest(@lo, @hi), which leaves a timer pushed later
 * in its slot.  Ratas' schedule_in_range().
 *
 * Return: as tw_start_range(), but never -EBUSY; on an error the timer is
 * left as it was.
 */
static inline int tw_modify_range(struct tw_wheel *wheel,
				  struct tw_timer *timer, u64 lo, u64 hi)
{
	if (tw_timer_pending(timer) && timer->expires >= lo &&
	    timer->expires <= hi)
		return 0;
	return __tw_modify_range(wheel, timer, lo, hi);
}

/* The exact tick of the earliest pending timer: a scan without bound. */
static inline u64 tw_next_expiry(const struct tw_wheel *wheel)
{
	return tw_next_expiry_within(wheel, UINT_MAX);
}

/*
 * True if tw_advance() has work at the current tick: timers due and waiting,
 * or a cascade a budget cut short.
 */
static inline bool tw_has_due(const struct tw_wheel *wheel)
{
	return !hlist_empty(&wheel->expired) || !hlist_empty(&wheel->overdue) ||
	       wheel->collecting;
}

static inline u64 tw_now(const struct tw_wheel *wheel)
{
	return wheel->now;
}

/**
 * tw_ahead0 - level 0's occupied slots after one in the same round
 * @w:   the wheel
 * @idx: a slot of level 0
 *
 * Written once for tw_next_event() and tw_advance(), so that a compiler
 * that inlines both, one after the other as an event loop calls them, may
 * compute it once.
 *
 * Return: bit k set for each occupied slot k after @idx.
 */
static __always_inline u64 tw_ahead0(const struct tw_wheel *w,
				     unsigned long idx)
{
	return w->pending_map[0] & (~1ULL << idx);
}

/**
 * tw_next0 - level 0's next occupied slot in now's round
 * @w: the wheel
 *
 * Return: the tick of level 0's first occupied slot after now's, up to the
 * end of its round; 0, which is never after now, if there is none.
 */
static __always_inline u64 tw_next0(const struct tw_wheel *w)
{
	unsigned long idx = tw_slot0(w, w->now);
	u64 ahead = tw_ahead0(w, idx);

	return ahead ? w->now - idx + __ffs64(ahead) : 0;
}

/*
 * The next tick after now at which a slot becomes current, or TW_NO_EVENT
 * if none does by @limit, first trying the common case here: level 0 has
 * work later in its current round.  Every level above has work only at its
 * slot boundaries, which are at or after the end of that round, so that is
 * the answer.  Otherwise __tw_next_event() searches the levels.
 */
static __always_inline u64 tw_next_slot_event(const struct tw_wheel *w,
					      u64 limit)
{
	u64 next = tw_next0(w);

	if (!next)
		return __tw_next_event(w, limit);
	return next <= limit ? next : TW_NO_EVENT;
}

/**
 * tw_next_event - the next tick at which tw_advance() has work
 * @wheel: the wheel
 * @limit: do not look past this tick
 *
 * The tick returned is a lower bound on the next expiry, exact when the
 * earliest work is on level 0.  When it comes from a higher level it is the
 * tick at which that level's slot cascades: no timer fires before it, and
 * advancing to it makes progress (a cascade or an expiry).  A caller that
 * sleeps until this tick never oversleeps an expiry.  Cost: O(levels), less
 * with a tight @limit; inline, without a call, when level 0 has the answer.
 *
 * Return: @wheel->now if timers are due and waiting, else that tick, or
 * TW_NO_EVENT if there is no work at or before @limit.
 */
static inline u64 tw_next_event(const struct tw_wheel *wheel, u64 limit)
{
	if (tw_has_due(wheel))
		return wheel->now;
	return tw_next_slot_event(wheel, limit);
}

/**
 * tw_unlink_expired - unlink the expired list's first timer before its
 *                     callback
 * @w: the wheel
 * @n: the first node of @w->expired
 *
 * hlist_del_init_rcu() of a node that has no predecessor: its back link
 * cleared, all tw_timer_pending() reads, its forward link left.
 */
static __always_inline void tw_unlink_expired(struct tw_wheel *w,
					      struct hlist_node *n)
{
	w->expired.first = n->next;
	if (n->next)
		n->next->pprev = &w->expired.first;
	n->pprev = NULL;
}

/*
 * Hand the expired timers to @fn, at most @budget of them, and return how
 * many it fired.  Each is unlinked before @fn sees it, from the head of the
 * list, so the callback may stop any other timer, one still waiting on the
 * list included.
 */
static __always_inline u64 tw_fire_list(struct tw_wheel *w, u64 budget,
					tw_expire_fn fn, void *data)
{
	struct hlist_node *n;
	u64 fired = 0;

	while ((n = w->expired.first)) {
		if (fired == budget)
			break;
		tw_unlink_expired(w, n);
		fired++;
		fn(hlist_entry(n, struct tw_timer, entry), data);
	}
	/*
	 * Counted off once, not per timer.  The two counters sit apart in
	 * struct tw_wheel: next to each other, compilers paired them in one
	 * wide load that the callback's narrow store to nr_pending, just
	 * before, cannot forward to.
	 */
	w->nr_pending -= fired;
	w->nr_fired += fired;
	return fired;
}

/**
 * tw_fire_slot - fire a slot of level 0 where it lies
 * @w:    the wheel, now at the slot's tick
 * @head: the slot, not empty, its occupancy bit already cleared
 * @fn:   called for each timer, already unlinked
 * @data: passed to @fn
 *
 * tw_walk0()'s tw_fire_list(): no budget, and no expired list.  Each timer
 * is unlinked from the slot's head before its callback, which may stop or
 * move any timer, one still waiting in the slot included, so the head is
 * read again after each callback.  No callback can put a timer in the slot
 * meanwhile: one started for now goes to the overdue list, one for up to
 * &tw_wheel.near_mask ticks later to another slot of level 0, one farther
 * above level 0.  Moving the slot to the expired list first, as the budget
 * path must, cost a store at each end of the list and the head's own
 * address to every link.
 *
 * One mispredicted branch per slot fewer: the last timer is known before
 * its callback, by its empty link, and the loop ends after it with no look
 * at the slot.  Tested after each callback instead, the slot's end took a
 * branch that every timer shares, so the processor mispredicted it once
 * per slot: 9.6 million times in Ratas' benchmark program, whose own loop
 * has the shape here.
 *
 * Return: the number of timers fired.
 */
static __always_inline u64 tw_fire_slot(struct tw_wheel *w,
					struct hlist_head *head,
					tw_expire_fn fn, void *data)
{
	struct hlist_node *n = head->first, *next;
	u64 fired = 0;

	do {
		next = n->next;
		fired++;
		if (!next) {
			head->first = NULL;
			n->pprev = NULL;
			fn(hlist_entry(n, struct tw_timer, entry), data);
			break;
		}
		head->first = next;
		next->pprev = &head->first;
		n->pprev = NULL;
		fn(hlist_entry(n, struct tw_timer, entry), data);
	} while ((n = head->first));
	w->nr_pending -= fired;
	w->nr_fired += fired;
	return fired;
}

/**
 * tw_walk0 - fire level 0's occupied slots after now's, up to @target's
 * @w:      the wheel, its expired list empty and no cascade unfinished
 *          (timers on the overdue list wait for a later call)
 * @target: a tick after now, in now's round of level 0
 * @fn:     called for each expired timer, already unlinked
 * @data:   passed to @fn
 *
 * No slot above level 0 can come round before @target, so level 0's
 * occupied slots fire in order, each found as tw_next_event() finds it
 * (tw_ahead0()), each tick's timers handed out from the slot itself
 * (tw_fire_slot()); the walk stops at @target's slot without another
 * look.  A callback may start timers for the ticks after now's up to
 * @target's, which the next look finds; the slots before now's hold the
 * next round.  Leaves the wheel at @target.
 *
 * Return: the number of timers fired.
 */
static __always_inline u64 tw_walk0(struct tw_wheel *w, u64 target,
				    tw_expire_fn fn, void *data)
{
	unsigned long idx = tw_slot0(w, w->now), last = tw_slot0(w, target);
	u64 fired = 0, ahead, base = w->now - idx;

	/* Slot k of the round is tick @base + k. */
	while ((ahead = tw_ahead0(w, idx))) {
		idx = __ffs64(ahead);
		if (idx > last)
			break;
		w->now = base + idx;
		w->pending_map[0] &= ~BIT_ULL(idx);
		fired += tw_fire_slot(w, &w->slots[idx], fn, data);
		if (idx == last)
			break;
	}
	w->now = target;
	return fired;
}

unsigned int __tw_advance(struct tw_wheel *wheel, u64 target,
			  unsigned int budget, tw_expire_fn fn, void *data);

/**
 * tw_advance - move the wheel's clock forward and fire what is due
 * @wheel:  the wheel
 * @target: the tick to advance to; a tick at or before now only fires
 *          the timers that are already due
 * @budget: fire at most this many timers in this call (TW_NO_BUDGET: all)
 * @fn:     called for each expired timer, already unlinked
 * @data:   passed to @fn
 *
 * Every timer due at or before @target fires exactly once, in the first
 * advance that reaches its tick.  If the budget runs out, the wheel stops at
 * the tick it was expiring (tw_has_due() is then true) and a later call,
 * with any @target, resumes there before moving on; a zero budget may still
 * move the wheel up to the first tick with work (timers due or a cascade).
 * A timer a callback starts for a tick in (now, @target] fires in this same
 * call.  One started at or before now fires in a later call, except that a
 * call resuming after a budget ran out fires the overdue timers right after
 * the held-back ones, those started by their callbacks included: a timer
 * re-armed for "now" fires at most twice per call, never endlessly.
 *
 * The budget also bounds the cascades of one call, separately: at most
 * @budget timers are moved down a level, so a slot holding a million
 * timers is spread over many calls as well.  A call whose cascade budget
 * runs out stops at that tick with tw_has_due() true and finishes the
 * cascade first thing next time.
 *
 * The common call of an event loop is decided here, inline, as Ratas'
 * advance() is: no budget, nothing waiting (tw_has_due() false) and
 * @target in the round of level 0 that now is in, so that no slot above
 * level 0 can come round: tw_walk0().  Its first look is the one
 * tw_next_event() has just made, if the caller asked.  The call, the
 * checks of the general case and the callback's indirection are saved (the
 * compiler may inline @fn).  Everything else is __tw_advance(), which walks
 * each round the same way when there is no budget.
 *
 * Return: the number of timers fired (saturated at UINT_MAX).
 */
static __always_inline unsigned int
tw_advance(struct tw_wheel *wheel, u64 target, unsigned int budget,
	   tw_expire_fn fn, void *data)
{
	u64 fired;

	/* @target in now's round of level 0: no bit above the mask differs. */
	if (budget != TW_NO_BUDGET || tw_has_due(wheel) ||
	    target <= wheel->now || (target ^ wheel->now) > wheel->near_mask)
		return __tw_advance(wheel, target, budget, fn, data);
	fired = tw_walk0(wheel, target, fn, data);
	return fired < UINT_MAX ? fired : UINT_MAX;
}

#endif /* _TW_CORE_H */
