// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the timing wheel in tw_core.c.
 *
 * The unit cases pin down each promise of the wheel at its edges: level
 * boundaries and wrap-around, the range limit, stop before and after a
 * cascade, callbacks that start and stop timers, budgets, next-event bounds
 * and long idle jumps.  The model case replays a long random mix of
 * operations against a plain array that knows, for every timer, the one
 * tick it must fire at; it runs over several level layouts.  The scale case
 * holds a million timers.
 *
 * The wheel is linked into this module directly rather than exported from
 * timingwheel.ko: kbuild refuses one object in two modules, and the wheel
 * has no business in the kernel's symbol table.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "tw_core.c"
#include "tw_div.h"

static unsigned long long seed;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "seed of the randomized cases (0: pick one)");

/* xorshift64*: reproducible from the printed seed on every kernel. */
static u64 tw_rand(u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

static u64 tw_rand_below(u64 *state, u64 n)
{
	return n ? tw_rand(state) % n : 0;
}

/*
 * tw_div() against div64_u64_rem() for every resolution class, near the
 * multiples of the divisor where the estimate is furthest off (the top of
 * the range, just past a multiple), and at random from the module's seed,
 * printed.
 */
static void tw_test_div(struct kunit *test)
{
	static const u64 ds[] = { 1, 1000, 1001, 4096, 999983, 1000000,
				  123456789, 1000000000 };
	u64 d, inv, n, q, r, want_r, top, k, s0, rng;
	unsigned int i, j, bad = 0;

	s0 = seed ? seed : get_random_u64();
	rng = s0 | 1;
	kunit_info(test, "seed %llu\n", s0);

	for (i = 0; i < ARRAY_SIZE(ds); i++) {
		d = ds[i];
		inv = tw_div_inv(d);
		top = div64_u64(U64_MAX, d);
		for (j = 0; j < 4000; j++) {
			k = tw_rand(&rng);
			if (top != U64_MAX)
				k %= top + 1;
			if (j < 2000)
				k = j < 1000 ? top - j : j;
			n = k * d + (j & 1 ? 0 : (j >> 1) % min_t(u64, d, 7));
			if (j % 3 == 2 && n > 0)
				n--;
			q = tw_div(n, d, inv, &r);
			bad += q != div64_u64_rem(n, d, &want_r) || r != want_r;
		}
		q = tw_div(U64_MAX, d, inv, &r);
		bad += q != div64_u64_rem(U64_MAX, d, &want_r) || r != want_r;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "seed %llu", s0);
}

/* A test timer remembers where and how often it fired. */
struct tw_probe {
	struct tw_timer	timer;
	u64		fired_at;
	unsigned int	fires;
};

struct tw_fixture {
	struct kunit	*test;
	struct tw_wheel	*wheel;
	/* What the callback does beyond recording the expiry. */
	void		(*action)(struct tw_fixture *fx, struct tw_probe *p);
	struct tw_probe	*pair;
	u64		period;
	unsigned int	restarts;
	unsigned int	errors;
};

static void tw_record(struct tw_timer *timer, void *data)
{
	struct tw_fixture *fx = data;
	struct tw_probe *p = container_of(timer, struct tw_probe, timer);

	KUNIT_EXPECT_FALSE(fx->test, tw_timer_pending(timer));
	p->fired_at = fx->wheel->now;
	p->fires++;
	if (fx->action)
		fx->action(fx, p);
}

static struct tw_fixture *tw_fixture_new(struct kunit *test, const u8 *bits,
					 unsigned int nr_levels, u64 now)
{
	struct tw_fixture *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->wheel = kunit_kzalloc(test, sizeof(*fx->wheel), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx->wheel);
	KUNIT_ASSERT_EQ(test, tw_init(fx->wheel, bits, nr_levels, now), 0);
	fx->test = test;
	return fx;
}

/*
 * The wheel slot holding @t (level * TW_LEVEL_SLOTS + index), found by
 * walking them all, or U32_MAX: the wheel itself does not record it.
 */
static u32 tw_slot_of(const struct tw_wheel *w, const struct tw_timer *t)
{
	const struct hlist_node *n;
	u32 slot;

	for (slot = 0; slot < ARRAY_SIZE(w->slots); slot++)
		for (n = w->slots[slot].first; n; n = n->next)
			if (n == &t->entry)
				return slot;
	return U32_MAX;
}

static struct tw_probe *tw_probes_new(struct kunit *test, unsigned int n)
{
	struct tw_probe *p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++)
		tw_timer_init(&p[i].timer);
	return p;
}

static unsigned int tw_fx_advance(struct tw_fixture *fx, u64 target)
{
	return tw_advance(fx->wheel, target, TW_NO_BUDGET, tw_record, fx);
}

static void tw_test_init_rejects_bad_layouts(struct kunit *test)
{
	static const u8 zero[] = { 6, 0, 6 }, wide[] = { 7 };
	static const u8 sixty_six[] = { 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };
	struct tw_wheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, tw_init(w, zero, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_init(w, zero, 3, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_init(w, wide, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_init(w, sixty_six, 11, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_init(w, NULL, 0, TW_MAX_TICK), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_init(w, sixty_six, 10, 0), 0);
	KUNIT_EXPECT_EQ(test, tw_init(w, NULL, 0, 5), 0);
	KUNIT_EXPECT_EQ(test, w->nr_levels, TW_DEFAULT_LEVELS);
	KUNIT_EXPECT_EQ(test, w->now, 5ULL);
	/* The default layout reaches well past the 2^36 ticks asked of it. */
	KUNIT_EXPECT_GE(test, tw_max_expiry(w) - w->now, (1ULL << 48) - (1ULL << 42));
}

/*
 * Every distance around every level boundary, from start ticks that sit at,
 * just before and just after slot and rotation boundaries: each timer fires
 * in the advance that reaches its tick, not one tick before.
 */
static void tw_test_fires_exactly_at_level_boundaries(struct kunit *test)
{
	static const u64 starts[] = { 0, 1, 63, 64, 65, 4095, 4096, 262143,
				      (1ULL << 42) - 1, (1ULL << 47) + 12345 };
	static const s64 nudges[] = { -1, 0, 1 };
	unsigned int si, lvl, ni;

	for (si = 0; si < ARRAY_SIZE(starts); si++) {
		for (lvl = 0; lvl <= TW_DEFAULT_LEVELS; lvl++) {
			for (ni = 0; ni < ARRAY_SIZE(nudges); ni++) {
				struct tw_fixture *fx;
				struct tw_probe *p;
				u64 delta, due;

				delta = (1ULL << (6 * lvl)) + nudges[ni];
				if (!delta)
					continue;
				fx = tw_fixture_new(test, NULL, 0, starts[si]);
				p = tw_probes_new(test, 1);
				due = starts[si] + delta;
				if (due >= tw_max_expiry(fx->wheel)) {
					KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p->timer, due),
							-ERANGE);
					continue;
				}
				KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p->timer, due), 0);
				KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, due - 1), 0U);
				KUNIT_EXPECT_EQ_MSG(test, p->fires, 0U,
						    "start %llu due %llu", starts[si], due);
				KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, due), 1U);
				KUNIT_EXPECT_EQ(test, p->fired_at, due);
				KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
				KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX),
						TW_NO_EVENT);
			}
		}
	}
}

/* Advancing one tick at a time across several level-0 rotations. */
static void tw_test_wraps_around_level_zero(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 60);
	struct tw_probe *p = tw_probes_new(test, 200);
	unsigned int i;
	u64 t;

	for (i = 0; i < 200; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, 61 + i), 0);
	for (t = 61; t < 61 + 200; t++) {
		KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, t), 1U);
		KUNIT_EXPECT_EQ(test, p[t - 61].fired_at, t);
	}
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_fired, 200ULL);
}

/*
 * One advance over adjacent occupied slots of level 0 fires every one of
 * them, the target's last: the inline loop stops after @target's slot, not
 * before it; and it is not taken while a timer waits overdue.  Seeded runs
 * of the model find both too, but a seed may miss them.
 */
static void tw_test_advance_fires_its_target(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 3);
	unsigned int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, 5 + i), 0);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 7), 3U);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, p[i].fired_at, 5ULL + i);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
	/*
	 * One started for now waits on the overdue list: the next advance
	 * within the round, which the inline loop could take, fires it.
	 */
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 7), 0);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 8), 1U);
	KUNIT_EXPECT_EQ(test, p[0].fires, 2U);
}

static void tw_test_range_limit(struct kunit *test)
{
	static const u8 small[] = { 4, 4 };
	struct tw_fixture *fx = tw_fixture_new(test, small, 2, 100);
	struct tw_probe *p = tw_probes_new(test, 3);
	u64 max = tw_max_expiry(fx->wheel);

	/* Level 1 spans 16 ticks a slot; seen from 100 the window ends at 352. */
	KUNIT_EXPECT_EQ(test, max, 352ULL);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[0].timer, max), -ERANGE);
	KUNIT_EXPECT_FALSE(test, tw_timer_pending(&p[0].timer));
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[0].timer, U64_MAX), -ERANGE);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[1].timer, max - 1), 0);
	/* The range slides with the clock. */
	tw_fx_advance(fx, 116);
	KUNIT_EXPECT_EQ(test, tw_max_expiry(fx->wheel), max + 16);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[0].timer, max), 0);
	tw_fx_advance(fx, max);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, max);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, max - 1);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[1].timer, 0), 0);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[1].timer, 1), -EBUSY);
	/* Pending, and started again on level 0: the inline path refuses it. */
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[2].timer, max + 1), 0);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[2].timer, max + 2), -EBUSY);
	KUNIT_EXPECT_EQ(test, p[2].timer.expires, max + 1);
}

static void tw_test_many_timers_one_tick(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 1000);
	unsigned int i;

	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, 300000), 0);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 1000ULL);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 299999), 0U);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 1ULL << 40), 1000U);
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_EQ(test, p[i].fired_at, 300000ULL);
}

/* Stop a level-2 timer before its first cascade and between cascades. */
static void tw_test_stop_around_cascades(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 2);
	u64 due = 3 * 4096 + 5 * 64 + 7;

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, due), 0);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, due), 0);
	KUNIT_EXPECT_TRUE(test, tw_stop(fx->wheel, &p[0].timer));
	KUNIT_EXPECT_FALSE(test, tw_stop(fx->wheel, &p[0].timer));

	/* Past the level-2 cascade, before the level-1 one. */
	tw_fx_advance(fx, 3 * 4096 + 1);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_cascades, 1ULL);
	KUNIT_EXPECT_TRUE(test, tw_stop(fx->wheel, &p[1].timer));
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
	/* Stopping the last timer of a slot must clear its occupancy bit. */
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), TW_NO_EVENT);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 1ULL << 41), 0U);
	KUNIT_EXPECT_EQ(test, p[0].fires + p[1].fires, 0U);
	KUNIT_EXPECT_EQ(test, fx->wheel->now, 1ULL << 41);
}

static void tw_test_restart_after_fire(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 1);

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p->timer, 70000), 0);
	tw_fx_advance(fx, 70000);
	KUNIT_EXPECT_FALSE(test, tw_stop(fx->wheel, &p->timer));
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p->timer, 70001), 0);
	tw_fx_advance(fx, 80000);
	KUNIT_EXPECT_EQ(test, p->fires, 2U);
	KUNIT_EXPECT_EQ(test, p->fired_at, 70001ULL);
}

/*
 * tw_modify() keeps a timer in its slot when the new tick fits it, moves it
 * otherwise, refuses a tick out of range without touching the timer, and
 * takes a timer a budget held back off the expired list.
 */
static void tw_test_modify(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 3);
	u64 max = tw_max_expiry(fx->wheel);

	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[0].timer, 2 * 4096 + 10), 0);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 1ULL);
	/* Same level-2 slot, later and then earlier: no move, exact fire. */
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[0].timer, 2 * 4096 + 4000), 0);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[0].timer, 2 * 4096 + 3), 0);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[0].timer),
			2U * TW_LEVEL_SLOTS + 2);
	/* Out of range: refused, still pending where it was. */
	KUNIT_EXPECT_EQ(test, tw_modify(fx->wheel, &p[0].timer, max), -ERANGE);
	/* Even when the far tick maps to the very slot the timer is in. */
	KUNIT_EXPECT_EQ(test, tw_modify(fx->wheel, &p[0].timer, max + 2 * 4096 + 3),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, p[0].timer.expires, 2ULL * 4096 + 3);
	/*
	 * From 4196 a fresh start for 8212 would go to level 1; the fast path
	 * keeps the timer on level 2, where it still fires on time.
	 */
	tw_fx_advance(fx, 4096 + 100);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[0].timer, 2 * 4096 + 20), 0);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[0].timer),
			2U * TW_LEVEL_SLOTS + 2);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[0].timer, 2 * 4096 + 3), 0);
	/* Into another slot. */
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 3 * 4096 + 1), 0);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[1].timer, 5 * 4096 + 2), 0);
	tw_fx_advance(fx, 3 * 4096 + 1);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, 2ULL * 4096 + 3);
	KUNIT_EXPECT_EQ(test, p[1].fires, 0U);
	tw_fx_advance(fx, 6 * 4096);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, 5ULL * 4096 + 2);

	/* Two timers due now, a budget of one: move the one held back. */
	p[1].fires = 0;
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 6 * 4096 + 5), 0);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[2].timer, 6 * 4096 + 5), 0);
	KUNIT_EXPECT_EQ(test, tw_advance(fx->wheel, 6 * 4096 + 9, 1, tw_record, fx), 1U);
	KUNIT_ASSERT_TRUE(test, tw_has_due(fx->wheel));
	if (p[1].fires == 1)
		KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[2].timer, 6 * 4096 + 7), 0);
	else
		KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[1].timer, 6 * 4096 + 7), 0);
	KUNIT_EXPECT_FALSE(test, tw_has_due(fx->wheel));
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 6 * 4096 + 9), 1U);
	KUNIT_EXPECT_EQ(test, p[1].fires + p[2].fires, 2U);
	KUNIT_EXPECT_EQ(test, max_t(u64, p[1].fired_at, p[2].fired_at), 6ULL * 4096 + 7);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
}

/*
 * Near the end of time TW_MAX_TICK bounds the range before any level does,
 * and the inline paths refuse a tick at or past it too: a level-0 start,
 * and a re-arm that would leave the timer in its slot.  The last tick
 * before it is a tick like any other.
 */
static void tw_test_end_of_time(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, TW_MAX_TICK - 10);
	struct tw_fixture *far = tw_fixture_new(test, NULL, 0, TW_MAX_TICK - 10000);
	struct tw_probe *p = tw_probes_new(test, 2);

	KUNIT_EXPECT_EQ(test, tw_max_expiry(fx->wheel), TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, tw_start(fx->wheel, &p[0].timer, TW_MAX_TICK), -ERANGE);
	KUNIT_EXPECT_EQ(test, tw_modify(fx->wheel, &p[0].timer, TW_MAX_TICK + 3),
			-ERANGE);
	KUNIT_EXPECT_FALSE(test, tw_timer_pending(&p[0].timer));
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, TW_MAX_TICK - 1), 0);

	/* Above level 0, pushed later: past the end is refused, untouched. */
	KUNIT_ASSERT_EQ(test, tw_start(far->wheel, &p[1].timer, TW_MAX_TICK - 9900), 0);
	KUNIT_EXPECT_EQ(test, tw_modify(far->wheel, &p[1].timer, TW_MAX_TICK + 5),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, p[1].timer.expires, TW_MAX_TICK - 9900);
	KUNIT_EXPECT_TRUE(test, tw_timer_pending(&p[1].timer));
	KUNIT_ASSERT_EQ(test, tw_modify(far->wheel, &p[1].timer, TW_MAX_TICK - 1), 0);

	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, U64_MAX), 1U);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, TW_MAX_TICK - 1);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(far, TW_MAX_TICK - 2), 0U);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(far, U64_MAX), 1U);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, TW_MAX_TICK - 1);
}

/*
 * A timer pushed later stays in its slot above level 0 (tw_may_stay()) and
 * is placed by its new tick when the slot comes round: it fires exactly
 * then, the exact next expiry looks past it to later slots, and a push
 * earlier, or any push on level 0, moves the timer.
 */
static void tw_test_lazy_modify(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 4);

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 2 * 4096 + 10), 0);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 3 * 4096 + 5), 0);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[0].timer, 5 * 4096 + 1), 0);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[0].timer),
			2U * TW_LEVEL_SLOTS + 2);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 3ULL * 4096 + 5);
	/* Earlier, into an earlier slot: moved, or it would fire late. */
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[2].timer, 4 * 4096 + 9), 0);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[2].timer, 100), 0);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[2].timer),
			1U * TW_LEVEL_SLOTS + 1);
	/* On level 0 a later tick is another slot. */
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[3].timer, 10), 0);
	KUNIT_ASSERT_EQ(test, tw_modify(fx->wheel, &p[3].timer, 12), 0);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[3].timer), 12U);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 12ULL);

	tw_fx_advance(fx, 3 * 4096 + 5);
	KUNIT_EXPECT_EQ(test, p[3].fired_at, 12ULL);
	KUNIT_EXPECT_EQ(test, p[2].fired_at, 100ULL);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, 3ULL * 4096 + 5);
	KUNIT_EXPECT_EQ(test, p[0].fires, 0U);
	/* The slot it was left in came round at 8192 and placed it again. */
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 5ULL * 4096 + 1);
	tw_fx_advance(fx, 5 * 4096);
	KUNIT_EXPECT_EQ(test, p[0].fires, 0U);
	tw_fx_advance(fx, 6 * 4096);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, 5ULL * 4096 + 1);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
}

/*
 * tw_modify_range() leaves a pending timer due in the range alone, moves one
 * due outside it to the tick tw_start_range() would pick (lazily when that
 * is later), starts a stopped one, and refuses what tw_start_range() does.
 */
static void tw_test_modify_range(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 100);
	struct tw_probe *p = tw_probes_new(test, 2);
	u64 lo = 100000, hi = 103000, t;

	KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p[0].timer, lo, hi), 0);
	t = p[0].timer.expires;
	/* The one tick in range aligned to a level-2 slot: one move. */
	KUNIT_EXPECT_EQ(test, t, 25ULL * 4096);
	KUNIT_EXPECT_EQ(test, tw_cascades_needed(fx->wheel, t), 1U);
	/* Still in range, though 26 * 4096 would be picked now: no change. */
	KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p[0].timer, 102000, 106500), 0);
	KUNIT_EXPECT_EQ(test, p[0].timer.expires, t);
	/* Out of range, later: the new tick, in the slot it was in. */
	KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p[0].timer, lo + 4000, hi + 4000), 0);
	KUNIT_EXPECT_EQ(test, p[0].timer.expires, 26ULL * 4096);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[0].timer),
			2U * TW_LEVEL_SLOTS + (t >> 12) % 64);
	/* Out of range, and no tick in range needs less than two moves. */
	KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p[1].timer, 111000, 111999), 0);
	KUNIT_EXPECT_EQ(test, p[1].timer.expires, 109ULL * 1024);
	KUNIT_EXPECT_EQ(test, tw_cascades_needed(fx->wheel, 109 * 1024), 2U);
	tw_stop(fx->wheel, &p[1].timer);
	/* Earlier: moved, to level 0. */
	KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p[0].timer, 120, 130), 0);
	KUNIT_EXPECT_EQ(test, p[0].timer.expires, 128ULL);
	KUNIT_EXPECT_EQ(test, tw_slot_of(fx->wheel, &p[0].timer), 128U % 64);
	/* Errors leave the timer as it was. */
	KUNIT_EXPECT_EQ(test, tw_modify_range(fx->wheel, &p[0].timer, 200, 199), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_modify_range(fx->wheel, &p[0].timer,
					      tw_max_expiry(fx->wheel), U64_MAX), -ERANGE);
	KUNIT_EXPECT_EQ(test, p[0].timer.expires, 128ULL);
	KUNIT_EXPECT_TRUE(test, tw_timer_pending(&p[0].timer));
	KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p[1].timer, 140, 140), 0);
	tw_fx_advance(fx, 200);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, 128ULL);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, 140ULL);
}

/* A timer due at or before now fires on the next advance, to any tick. */
static void tw_test_overdue_fires_next_advance(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 1000);
	struct tw_probe *p = tw_probes_new(test, 2);

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 1000), 0);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 3), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 0), 1000ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 1000ULL);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 0), 2U);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, 1000ULL);
	KUNIT_EXPECT_EQ(test, fx->wheel->now, 1000ULL);
}

static void tw_stop_other(struct tw_fixture *fx, struct tw_probe *p)
{
	struct tw_probe *other = p == &fx->pair[0] ? &fx->pair[1] : &fx->pair[0];

	if (fx->restarts) {
		fx->restarts--;
		KUNIT_EXPECT_TRUE(fx->test, tw_stop(fx->wheel, &other->timer));
	}
}

static void tw_move_other(struct tw_fixture *fx, struct tw_probe *p)
{
	struct tw_probe *other = p == &fx->pair[0] ? &fx->pair[1] : &fx->pair[0];

	if (fx->restarts) {
		fx->restarts--;
		KUNIT_EXPECT_EQ(fx->test, tw_modify(fx->wheel, &other->timer,
						    p->fired_at + 1), 0);
	}
}

static void tw_restart_periodic(struct tw_fixture *fx, struct tw_probe *p)
{
	if (fx->restarts) {
		fx->restarts--;
		KUNIT_EXPECT_EQ(fx->test,
				tw_start(fx->wheel, &p->timer, p->fired_at + fx->period), 0);
	}
}

/*
 * Start @p[0] and @p[1] for @tick, the first of them to fire to do @action
 * once to the other, and advance to @target.  Return the number fired.
 */
static unsigned int tw_pair_fires(struct kunit *test, struct tw_fixture *fx,
				  struct tw_probe *p, u64 tick, u64 target,
				  void (*action)(struct tw_fixture *fx,
						 struct tw_probe *p))
{
	p[0].fires = 0;
	p[1].fires = 0;
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, tick), 0);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, tick), 0);
	fx->action = action;
	fx->pair = p;
	fx->restarts = 1;
	return tw_fx_advance(fx, target);
}

/*
 * Callbacks stop or move a timer of their own tick and re-arm their own.
 * Tick 40 is in level 0's first round: the inline advance fires its slot
 * where it lies (tw_fire_slot()).  Tick 500 is cascaded to level 0 first.
 */
static void tw_test_callback_starts_and_stops(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 2);

	/* The first to fire moves the other, still in their slot, a tick on. */
	KUNIT_EXPECT_EQ(test, tw_pair_fires(test, fx, p, 40, 41, tw_move_other), 2U);
	KUNIT_EXPECT_EQ(test, p[0].fires, 1U);
	KUNIT_EXPECT_EQ(test, p[1].fires, 1U);
	KUNIT_EXPECT_EQ(test, p[0].fired_at + p[1].fired_at, 81ULL);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);

	/* The first to fire stops the other, still waiting in their slot. */
	KUNIT_EXPECT_EQ(test, tw_pair_fires(test, fx, p, 500, 500, tw_stop_other), 1U);
	KUNIT_EXPECT_EQ(test, p[0].fires + p[1].fires, 1U);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);

	/* A periodic re-arm from the callback, in one long advance. */
	p[0].fires = 0;
	fx->action = tw_restart_periodic;
	fx->period = 1000;
	fx->restarts = 9;
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 1000), 0);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 100000), 10U);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, 10000ULL);
}

static void tw_restart_now(struct tw_fixture *fx, struct tw_probe *p)
{
	if (fx->restarts) {
		fx->restarts--;
		KUNIT_EXPECT_EQ(fx->test,
				tw_start(fx->wheel, &p->timer, fx->wheel->now), 0);
	}
}

/* A callback re-arming for "now" cannot make one advance loop forever. */
static void tw_test_callback_rearm_now_waits(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 2);

	fx->action = tw_restart_now;
	fx->restarts = 3;
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 10), 0);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 20), 0);
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 30), 2U);
	/* p[0] re-armed at 10 waited; p[1] at 20 still fired on time. */
	KUNIT_EXPECT_EQ(test, p[1].fired_at, 20ULL);
	KUNIT_EXPECT_TRUE(test, tw_has_due(fx->wheel));
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 30), 2U);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_fired, 4ULL);
}

static void tw_test_budget_and_resume(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 150);
	unsigned int i, calls, total = 0;

	for (i = 0; i < 150; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer,
					       i < 100 ? 10 : 5000), 0);
	KUNIT_EXPECT_EQ(test, tw_advance(fx->wheel, 9000, 30, tw_record, fx), 30U);
	KUNIT_EXPECT_EQ(test, fx->wheel->now, 10ULL);
	KUNIT_EXPECT_TRUE(test, tw_has_due(fx->wheel));
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 10ULL);
	/* A zero budget fires nothing; with timers due it does not move. */
	KUNIT_EXPECT_EQ(test, tw_advance(fx->wheel, 9000, 0, tw_record, fx), 0U);
	KUNIT_EXPECT_EQ(test, fx->wheel->now, 10ULL);
	/* A timer held back by the budget can still be stopped. */
	for (i = 0; i < 100; i++)
		if (!p[i].fires)
			break;
	KUNIT_ASSERT_LT(test, i, 100U);
	KUNIT_EXPECT_TRUE(test, tw_stop(fx->wheel, &p[i].timer));
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 119ULL);

	/* A call may only cascade, so count calls rather than require fires. */
	total = 30;
	for (calls = 0; fx->wheel->nr_pending && calls < 20; calls++) {
		unsigned int n = tw_advance(fx->wheel, 9000, 30, tw_record, fx);

		KUNIT_ASSERT_LE(test, n, 30U);
		total += n;
	}
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
	KUNIT_EXPECT_EQ(test, total, 149U);
	KUNIT_EXPECT_EQ(test, p[i].fires, 0U);
	for (i = 0; i < 150; i++)
		if (p[i].fires)
			KUNIT_EXPECT_EQ(test, p[i].fired_at, i < 100 ? 10ULL : 5000ULL);
}

/* The first of @n probes pending in wheel slot @slot, or @n. */
static unsigned int tw_find_in_slot(const struct tw_wheel *w,
				    const struct tw_probe *p, unsigned int n,
				    u32 slot)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (tw_slot_of(w, &p[i].timer) == slot)
			break;
	return i;
}

/*
 * The budget bounds cascades too: a level-1 slot of 100 timers (ticks 64
 * to 127) is moved down 30 at a time, the wheel waiting at tick 64 with
 * work due until the slot is empty; then every timer fires at its tick.
 */
static void tw_test_cascade_budget(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 100);
	unsigned int i, calls;

	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, 64 + i % 64), 0);
	KUNIT_EXPECT_EQ(test, tw_advance(fx->wheel, 200, 30, tw_record, fx), 0U);
	KUNIT_EXPECT_EQ(test, fx->wheel->now, 64ULL);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_cascades, 30ULL);
	KUNIT_EXPECT_TRUE(test, fx->wheel->collecting);
	KUNIT_EXPECT_TRUE(test, tw_has_due(fx->wheel));
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 64ULL);
	/* Stop one still waiting in the slot, re-arm another within it. */
	i = tw_find_in_slot(fx->wheel, p, 100, 64 + 1);
	KUNIT_ASSERT_LT(test, i, 100U);
	KUNIT_EXPECT_TRUE(test, tw_stop(fx->wheel, &p[i].timer));
	i = tw_find_in_slot(fx->wheel, p, 100, 64 + 1);
	KUNIT_ASSERT_LT(test, i, 100U);
	KUNIT_EXPECT_EQ(test, tw_modify(fx->wheel, &p[i].timer, 64), 0);
	for (calls = 0; fx->wheel->nr_pending && calls < 20; calls++)
		tw_advance(fx->wheel, 200, 30, tw_record, fx);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_fired, 99ULL);
	KUNIT_EXPECT_FALSE(test, fx->wheel->collecting);
	for (i = 0; i < 100; i++)
		if (p[i].fires)
			KUNIT_EXPECT_EQ(test, p[i].fired_at, p[i].timer.expires);
}

/*
 * tw_next_event() is exact for level 0 and the cascade tick for higher
 * levels, a lower bound; tw_next_expiry() is always exact.  A limit below
 * the next event gives TW_NO_EVENT.
 */
static void tw_test_next_event_and_bound(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 3);
	u64 far = 5 * 4096 + 9 * 64 + 3;

	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), TW_NO_EVENT);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), TW_NO_EVENT);

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, far), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 5 * 4096ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), far);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 5 * 4096 - 1), TW_NO_EVENT);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 5 * 4096), 5 * 4096ULL);

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 40), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 40ULL);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 39), TW_NO_EVENT);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 40ULL);
}

/*
 * With level 0 empty after now, __tw_next_event() answers the next round's
 * first tick from level 1's slot for it (or level 0's slot 0) before its
 * search: a level-1 slot further on, or a limit short of that tick, must
 * not take that answer.  The model finds both with most seeds; a seed may
 * miss them.
 */
static void tw_test_next_event_shortcut(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 3);

	/* Level 1's slot 3, [192, 256): its own boundary. */
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 197), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 192ULL);
	/* Level 1's slot 1, the next round's: 64, within its limit. */
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 70), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 64ULL);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 64), 64ULL);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 63), TW_NO_EVENT);
	/* From tick 70, level 0's slot 0 holds the next round's tick 128. */
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 70), 1U);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[2].timer, 128), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 128ULL);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, 127), TW_NO_EVENT);
}

/*
 * Timers at every tick from 1 to @ticks, on a wheel of layout @bits,
 * advanced one tick at a time: each fires alone, exactly at its tick.
 */
static void tw_check_every_tick(struct kunit *test, const u8 *bits,
				unsigned int nr_levels, unsigned int ticks)
{
	struct tw_fixture *fx = tw_fixture_new(test, bits, nr_levels, 0);
	struct tw_probe *p = tw_probes_new(test, ticks);
	unsigned int i, bad = 0;

	for (i = 0; i < ticks; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, i + 1), 0);
	for (i = 0; i < ticks; i++)
		bad += tw_fx_advance(fx, i + 1) != 1 || p[i].fired_at != i + 1;
	KUNIT_EXPECT_EQ_MSG(test, bad, 0U, "layout of %u levels, %u bits first",
			    nr_levels, bits[0]);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
}

/*
 * Each level masks a slot's index by its own width, and a distance of 0
 * or 1 is level 0's: on a layout of mixed widths and on one of 1-bit
 * levels, every timer fires at its tick.  The model finds both with most
 * seeds; a seed may miss them.
 */
static void tw_test_levels_of_their_own_widths(struct kunit *test)
{
	static const u8 mixed[] = { 3, 5, 2 }, ones[] = { 1, 1, 1, 1, 1, 1 };

	tw_check_every_tick(test, mixed, ARRAY_SIZE(mixed), 300);
	tw_check_every_tick(test, ones, ARRAY_SIZE(ones), 60);
}

/*
 * The lazy sort lets a higher level hold the earliest timer: one placed on
 * level 1 at tick 0 is due before one placed on level 0 at tick 50.
 */
static void tw_test_next_expiry_looks_up_levels(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 2);

	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[0].timer, 100), 0);
	tw_fx_advance(fx, 50);
	KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[1].timer, 110), 0);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 64ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 100ULL);
	tw_fx_advance(fx, 64);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_cascades, 1ULL);
	KUNIT_EXPECT_EQ(test, tw_next_event(fx->wheel, U64_MAX), 100ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 100ULL);
	tw_fx_advance(fx, 110);
	KUNIT_EXPECT_EQ(test, p[0].fired_at, 100ULL);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, 110ULL);
}

/*
 * A bounded scan looks at no more than max_scan timers of a slot; a longer
 * slot counts from the tick it becomes current, a lower bound.  Fifty
 * timers at ticks 179 down to 130 share level 1's slot [128, 192).
 */
static void tw_test_next_expiry_bounded_scan(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = tw_probes_new(test, 50);
	unsigned int i;

	for (i = 0; i < 50; i++)
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, 179 - i), 0);
	KUNIT_EXPECT_EQ(test, tw_next_expiry_within(fx->wheel, 50), 130ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry_within(fx->wheel, 49), 128ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry_within(fx->wheel, 0), 128ULL);
	KUNIT_EXPECT_EQ(test, tw_next_expiry(fx->wheel), 130ULL);
	/* Level 0 needs no scan: its slots hold one tick each. */
	tw_fx_advance(fx, 128);
	KUNIT_EXPECT_EQ(test, tw_next_expiry_within(fx->wheel, 0), 130ULL);
}

/* A handful of timers across a 2^41-tick gap: work follows timers, not ticks. */
static void tw_test_long_idle_jump(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 12345);
	struct tw_probe *p = tw_probes_new(test, 5);
	static const u64 due[] = { 1ULL << 40, (1ULL << 40) + 1, 3ULL << 38,
				   (1ULL << 41) - 1, 77777777777ULL };
	unsigned int i, cascades = 0;

	for (i = 0; i < ARRAY_SIZE(due); i++) {
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer, due[i]), 0);
		cascades += tw_cascades_needed(fx->wheel, due[i]);
	}
	KUNIT_EXPECT_EQ(test, tw_fx_advance(fx, 1ULL << 41), 5U);
	for (i = 0; i < ARRAY_SIZE(due); i++)
		KUNIT_EXPECT_EQ(test, p[i].fired_at, due[i]);
	/* Bounded by levels per timer, and predicted exactly. */
	KUNIT_EXPECT_LE(test, fx->wheel->nr_cascades, 5ULL * TW_DEFAULT_LEVELS);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_cascades, (u64)cascades);
}

static void tw_test_start_range(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 100);
	struct tw_probe *p = tw_probes_new(test, 4);
	u64 before, expected;

	KUNIT_EXPECT_EQ(test, tw_start_range(fx->wheel, &p[0].timer, 9, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_start_range(fx->wheel, &p[0].timer,
					     tw_max_expiry(fx->wheel), U64_MAX), -ERANGE);
	/* The roundest tick, though the range reaches level 0: one move. */
	KUNIT_ASSERT_EQ(test, tw_start_range(fx->wheel, &p[0].timer, 150, 5000), 0);
	KUNIT_EXPECT_EQ(test, p[0].timer.expires, 4096ULL);
	KUNIT_EXPECT_EQ(test, tw_cascades_needed(fx->wheel, 4096), 1U);
	/* Far out: a slot-aligned tick that needs one move. */
	KUNIT_ASSERT_EQ(test, tw_start_range(fx->wheel, &p[1].timer,
					     1000003, 1000003 + 70000), 0);
	KUNIT_EXPECT_GE(test, p[1].timer.expires, 1000003ULL);
	KUNIT_EXPECT_LE(test, p[1].timer.expires, 1000003ULL + 70000);
	KUNIT_EXPECT_EQ(test, tw_cascades_needed(fx->wheel, p[1].timer.expires), 1U);
	KUNIT_EXPECT_GT(test, tw_cascades_needed(fx->wheel, 1000003), 1U);
	/* A range with no cheaper tick keeps lo. */
	KUNIT_ASSERT_EQ(test, tw_start_range(fx->wheel, &p[2].timer, 1000003,
					     1000003), 0);
	KUNIT_EXPECT_EQ(test, p[2].timer.expires, 1000003ULL);
	/* hi past the range is cut, not refused. */
	KUNIT_ASSERT_EQ(test, tw_start_range(fx->wheel, &p[3].timer, 1ULL << 47,
					     U64_MAX), 0);
	KUNIT_EXPECT_LT(test, p[3].timer.expires, tw_max_expiry(fx->wheel));
	/* Cut before the pick: 2^48, the roundest uncut, is out of reach. */
	tw_stop(fx->wheel, &p[3].timer);
	KUNIT_ASSERT_EQ(test, tw_start_range(fx->wheel, &p[3].timer,
					     (1ULL << 48) - 10, (1ULL << 48) + 5000), 0);
	KUNIT_EXPECT_EQ(test, p[3].timer.expires, (1ULL << 48) - 8);

	/* The roundest: 2^20. */
	KUNIT_EXPECT_EQ(test, p[1].timer.expires, 1ULL << 20);
	/* The prediction holds: p[0], p[1] move once, p[2] as often as computed. */
	before = fx->wheel->nr_cascades;
	expected = 2 + tw_cascades_needed(fx->wheel, 1000003);
	tw_fx_advance(fx, 1100000);
	KUNIT_EXPECT_EQ(test, p[1].fired_at, p[1].timer.expires);
	KUNIT_EXPECT_EQ(test, p[2].fired_at, 1000003ULL);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_cascades - before, expected);
}

/* The randomized model test. */

struct tw_layout {
	const char	*name;
	u8		nr_levels;
	u8		bits[TW_MAX_LEVELS];
};

static const struct tw_layout tw_layouts[] = {
	{ "default-8x6", 0, { 0 } },
	{ "4x6", 4, { 6, 6, 6, 6 } },
	{ "10x1", 10, { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 } },
	{ "mixed-3-2-5-1-6-4", 6, { 3, 2, 5, 1, 6, 4 } },
	{ "10x6", 10, { 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 } },
	{ "1x6", 1, { 6 } },
};

static void tw_layout_desc(const struct tw_layout *l, char *desc)
{
	strscpy(desc, l->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tw_layout, tw_layouts, tw_layout_desc);

#define TW_MODEL_TIMERS	256
#define TW_MODEL_STEPS	40000

struct tw_model {
	struct tw_fixture	fx;
	const struct tw_layout	*layout;
	struct tw_probe		probe[TW_MODEL_TIMERS];
	/* The tick each pending timer must fire at; 0 when not pending. */
	u64			must_fire[TW_MODEL_TIMERS];
	bool			pending[TW_MODEL_TIMERS];
	u64			nr_pending;
	u64			rng;
	u64			seed;
	unsigned long		step;
};

/* A distance that lands near interesting places of any layout. */
static u64 tw_rand_delta(struct tw_model *m)
{
	struct tw_wheel *w = m->fx.wheel;
	unsigned int lvl = tw_rand_below(&m->rng, w->nr_levels);
	u64 span = (u64)1 << (w->shift[lvl] + w->bits[lvl]);

	switch (tw_rand_below(&m->rng, 4)) {
	case 0:
		return tw_rand_below(&m->rng, 3);		/* overdue, now, next */
	case 1:
		return ((u64)1 << w->shift[lvl]) + tw_rand_below(&m->rng, 3) - 1;
	default:
		return tw_rand_below(&m->rng, span);
	}
}

static void tw_model_fire(struct tw_fixture *fx, struct tw_probe *p)
{
	struct tw_model *m = container_of(fx, struct tw_model, fx);
	unsigned int i = p - m->probe;

	KUNIT_ASSERT_TRUE_MSG(fx->test, m->pending[i],
			      "seed %llu step %lu: timer %u fired while stopped",
			      m->seed, m->step, i);
	KUNIT_ASSERT_EQ_MSG(fx->test, fx->wheel->now, m->must_fire[i],
			    "seed %llu step %lu: timer %u (expires %llu) fired at the wrong tick",
			    m->seed, m->step, i, p->timer.expires);
	m->pending[i] = false;
	m->nr_pending--;
	/* Sometimes stop or move another timer, maybe one held back. */
	if (!tw_rand_below(&m->rng, 8)) {
		unsigned int j = tw_rand_below(&m->rng, TW_MODEL_TIMERS);
		u64 due = fx->wheel->now + 1 + tw_rand_below(&m->rng, 5000);

		if (tw_rand_below(&m->rng, 2)) {
			KUNIT_ASSERT_EQ(fx->test, tw_stop(fx->wheel, &m->probe[j].timer),
					m->pending[j]);
			m->nr_pending -= m->pending[j];
			m->pending[j] = false;
		} else if (!tw_modify(fx->wheel, &m->probe[j].timer, due)) {
			m->nr_pending += !m->pending[j];
			m->pending[j] = true;
			m->must_fire[j] = due;
		}
	}
	/* Sometimes re-arm from the callback, strictly in the future. */
	if (m->pending[i]) {
		/* A callback above moved this very timer. */
	} else if (!tw_rand_below(&m->rng, 4)) {
		u64 due = fx->wheel->now + 1 + tw_rand_below(&m->rng, 5000);

		if (!tw_start(fx->wheel, &p->timer, due)) {
			m->pending[i] = true;
			m->must_fire[i] = due;
			m->nr_pending++;
		}
	}
}

/*
 * The wheel's reach, computed from the layout alone: the top level's window
 * ends 2^bits slots of 2^(sum of the bits below) ticks past now's slot.
 */
static u64 tw_model_max_expiry(const struct tw_layout *l, u64 now)
{
	unsigned int n = l->nr_levels ? l->nr_levels : TW_DEFAULT_LEVELS, i;
	unsigned int below = 0, top;
	u64 max;

	for (i = 0; i + 1 < n; i++)
		below += l->nr_levels ? l->bits[i] : TW_DEFAULT_LEVEL_BITS;
	top = l->nr_levels ? l->bits[n - 1] : TW_DEFAULT_LEVEL_BITS;
	max = ((now >> below) + (1ULL << top)) << below;
	return min(max, TW_MAX_TICK);
}

static void tw_model_start(struct kunit *test, struct tw_model *m, unsigned int i)
{
	struct tw_wheel *w = m->fx.wheel;
	u64 delta = tw_rand_delta(m);
	u64 due = delta >= 2 ? w->now + delta - 1 :
		  (w->now > 5 ? w->now - 5 * delta : w->now);
	bool in_range = due < tw_model_max_expiry(m->layout, w->now);
	int ret;

	if (!tw_rand_below(&m->rng, 4)) {
		/* A modify: moves a pending timer, starts one that is not. */
		ret = tw_modify(w, &m->probe[i].timer, due);
		KUNIT_ASSERT_EQ_MSG(test, ret, in_range ? 0 : -ERANGE,
				    "seed %llu step %lu: modify(%llu) at now %llu",
				    m->seed, m->step, due, w->now);
		if (ret)
			return;
		if (!m->pending[i])
			m->nr_pending++;
		m->pending[i] = true;
		m->must_fire[i] = max(due, w->now);
		return;
	}
	if (!tw_rand_below(&m->rng, 8)) {
		/* A range start: the pick must be in range. */
		u64 hi = due + tw_rand_below(&m->rng, 1 + delta);

		ret = tw_start_range(w, &m->probe[i].timer, due, hi);
		if (!ret) {
			KUNIT_ASSERT_GE(test, m->probe[i].timer.expires, due);
			KUNIT_ASSERT_LE(test, m->probe[i].timer.expires, hi);
			due = m->probe[i].timer.expires;
		}
	} else {
		ret = tw_start(w, &m->probe[i].timer, due);
	}
	if (m->pending[i]) {
		KUNIT_ASSERT_EQ_MSG(test, ret, -EBUSY, "seed %llu step %lu", m->seed, m->step);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, in_range ? 0 : -ERANGE,
			    "seed %llu step %lu: start(%llu) at now %llu",
			    m->seed, m->step, due, w->now);
	if (ret)
		return;
	m->pending[i] = true;
	m->must_fire[i] = max(due, w->now);
	m->nr_pending++;
}

static void tw_model_check(struct kunit *test, struct tw_model *m)
{
	struct tw_wheel *w = m->fx.wheel;
	u64 first = TW_NO_EVENT, ev;
	unsigned int i;

	for (i = 0; i < TW_MODEL_TIMERS; i++) {
		if (!m->pending[i])
			continue;
		/* Nothing overdue is left behind unless a budget held it back. */
		if (!tw_has_due(w))
			KUNIT_ASSERT_GT_MSG(test, m->must_fire[i], w->now,
					    "seed %llu step %lu: timer %u missed its tick",
					    m->seed, m->step, i);
		first = min(first, m->must_fire[i]);
	}
	KUNIT_ASSERT_EQ_MSG(test, w->nr_pending, m->nr_pending,
			    "seed %llu step %lu", m->seed, m->step);
	KUNIT_ASSERT_EQ_MSG(test, tw_next_expiry(w), first,
			    "seed %llu step %lu", m->seed, m->step);
	ev = tw_next_event(w, U64_MAX);
	KUNIT_ASSERT_LE_MSG(test, ev, first, "seed %llu step %lu", m->seed, m->step);
	if (first != TW_NO_EVENT)
		KUNIT_ASSERT_GE_MSG(test, ev, w->now, "seed %llu step %lu",
				    m->seed, m->step);
}

/*
 * Advance to a random tick, or to tw_next_event()'s: advancing there makes
 * progress, as it promises, whatever the budget: a timer fires or cascades,
 * or one is left due.
 */
static void tw_model_advance(struct kunit *test, struct tw_model *m, bool next)
{
	struct tw_wheel *w = m->fx.wheel;
	u64 work = w->nr_fired + w->nr_cascades, target;
	bool promised = false;

	if (next) {
		target = tw_next_event(w, U64_MAX);
		promised = !tw_has_due(w) && target < TW_MAX_TICK;
	} else {
		target = w->now + tw_rand_delta(m);
	}
	if (target == TW_NO_EVENT)
		target = w->now + 1;
	target = min(target, TW_MAX_TICK - 1);
	tw_advance(w, target, tw_rand_below(&m->rng, 3) ?
		   TW_NO_BUDGET : tw_rand_below(&m->rng, 8),
		   tw_record, &m->fx);
	if (!tw_has_due(w))
		KUNIT_ASSERT_EQ_MSG(test, w->now, target,
				    "seed %llu step %lu", m->seed, m->step);
	if (promised)
		KUNIT_ASSERT_TRUE_MSG(test, w->nr_fired + w->nr_cascades > work ||
				      tw_has_due(w),
				      "seed %llu step %lu: nothing at the next event %llu",
				      m->seed, m->step, target);
}

static void tw_test_model(struct kunit *test)
{
	const struct tw_layout *l = test->param_value;
	struct tw_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct tw_wheel *w;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->fx.wheel = kunit_kzalloc(test, sizeof(*m->fx.wheel), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->fx.wheel);
	w = m->fx.wheel;
	m->fx.test = test;
	m->fx.action = tw_model_fire;
	m->layout = l;
	m->seed = seed ? seed : get_random_u64();
	m->rng = m->seed | 1;
	kunit_info(test, "layout %s seed %llu\n", l->name, m->seed);

	KUNIT_ASSERT_EQ(test, tw_init(w, l->nr_levels ? l->bits : NULL,
				      l->nr_levels, tw_rand_below(&m->rng, 1ULL << 40)), 0);
	for (i = 0; i < TW_MODEL_TIMERS; i++)
		tw_timer_init(&m->probe[i].timer);

	for (m->step = 0; m->step < TW_MODEL_STEPS; m->step++) {
		unsigned int op = tw_rand_below(&m->rng, 10);

		i = tw_rand_below(&m->rng, TW_MODEL_TIMERS);
		if (op < 4) {
			tw_model_start(test, m, i);
		} else if (op < 6) {
			KUNIT_ASSERT_EQ_MSG(test, tw_stop(w, &m->probe[i].timer),
					    m->pending[i], "seed %llu step %lu",
					    m->seed, m->step);
			if (m->pending[i])
				m->nr_pending--;
			m->pending[i] = false;
		} else {
			tw_model_advance(test, m, op == 6);
		}
		tw_model_check(test, m);
	}
	KUNIT_EXPECT_GT(test, w->nr_fired, 0ULL);
}

/* A million pending timers, half of them stopped, the rest fired exactly. */
#define TW_SCALE_TIMERS	1000000

static void tw_vfree_action(void *p)
{
	vfree(p);
}

static void tw_count_fire(struct tw_fixture *fx, struct tw_probe *p)
{
	if (p->fired_at != p->timer.expires)
		fx->errors++;
}

static void tw_test_million_timers(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 0);
	struct tw_probe *p = vzalloc(array_size(TW_SCALE_TIMERS, sizeof(*p)));
	u64 rng = 0x9e3779b97f4a7c15ULL;
	unsigned int i, fired;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tw_vfree_action, p), 0);
	for (i = 0; i < TW_SCALE_TIMERS; i++) {
		tw_timer_init(&p[i].timer);
		KUNIT_ASSERT_EQ(test, tw_start(fx->wheel, &p[i].timer,
					       1 + tw_rand_below(&rng, 1ULL << 30)), 0);
	}
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, (u64)TW_SCALE_TIMERS);
	for (i = 0; i < TW_SCALE_TIMERS; i += 2)
		KUNIT_ASSERT_TRUE(test, tw_stop(fx->wheel, &p[i].timer));

	fx->action = tw_count_fire;
	fired = tw_fx_advance(fx, 1ULL << 30);
	KUNIT_EXPECT_EQ(test, fired, TW_SCALE_TIMERS / 2U);
	KUNIT_EXPECT_EQ(test, fx->errors, 0U);
	KUNIT_EXPECT_EQ(test, fx->wheel->nr_pending, 0ULL);
	for (i = 0; i < TW_SCALE_TIMERS; i++)
		if (p[i].fires != (i & 1))
			break;
	KUNIT_EXPECT_EQ(test, i, (unsigned int)TW_SCALE_TIMERS);
}

/* The roundest tick of [@lo, @hi] by a scan of every tick; 0 is roundest. */
static u64 tw_roundest_scan(u64 lo, u64 hi)
{
	u64 t, best = lo;

	for (t = lo + 1; t <= hi && best; t++)
		if (__ffs64(t) > __ffs64(best))
			best = t;
	return best;
}

/* The same, otherwise: the one multiple in range of the highest power of 2. */
static u64 tw_roundest_ref(u64 lo, u64 hi)
{
	int k;
	u64 m;

	for (k = 62; k > 0; k--) {
		m = round_up(lo, 1ULL << k);
		if (m >= lo && m <= hi)
			return m;
	}
	return lo;
}

/*
 * tw_roundest(), the one range policy (the device's slack too), against
 * brute force: every small range exhaustively, wide ones at random, and
 * what tw_start_range() and tw_modify_range() pick on a wheel.
 */
static void tw_test_roundest(struct kunit *test)
{
	struct tw_fixture *fx = tw_fixture_new(test, NULL, 0, 100);
	struct tw_probe *p = tw_probes_new(test, 1);
	u64 lo, hi, rng = 0x9e3779b97f4a7c15ULL, want;
	unsigned int i;

	for (lo = 0; lo < 200; lo++)
		for (hi = lo; hi < lo + 300; hi++)
			KUNIT_ASSERT_EQ_MSG(test, tw_roundest(lo, hi),
					    tw_roundest_scan(lo, hi),
					    "[%llu, %llu]", lo, hi);
	for (i = 0; i < 20000; i++) {
		lo = tw_rand_below(&rng, 1ULL << tw_rand_below(&rng, 63));
		hi = lo + tw_rand_below(&rng, 1ULL << tw_rand_below(&rng, 40));
		want = tw_roundest_ref(lo, hi);
		KUNIT_ASSERT_EQ_MSG(test, tw_roundest(lo, hi), want,
				    "[%llu, %llu]", lo, hi);
		/* Through the wheel, as a start and as a move. */
		lo = 101 + tw_rand_below(&rng, 1ULL << tw_rand_below(&rng, 40));
		hi = lo + tw_rand_below(&rng, 1ULL << tw_rand_below(&rng, 40));
		want = tw_roundest_ref(lo, hi);
		KUNIT_ASSERT_EQ(test, tw_start_range(fx->wheel, &p->timer, lo, hi), 0);
		KUNIT_ASSERT_EQ(test, p->timer.expires, want);
		KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p->timer, 1, 100), 0);
		KUNIT_ASSERT_EQ(test, tw_modify_range(fx->wheel, &p->timer, lo, hi), 0);
		KUNIT_ASSERT_EQ(test, p->timer.expires, want);
		tw_stop(fx->wheel, &p->timer);
	}
}

static struct kunit_case tw_core_cases[] = {
	KUNIT_CASE(tw_test_init_rejects_bad_layouts),
	KUNIT_CASE(tw_test_div),
	KUNIT_CASE(tw_test_fires_exactly_at_level_boundaries),
	KUNIT_CASE(tw_test_wraps_around_level_zero),
	KUNIT_CASE(tw_test_advance_fires_its_target),
	KUNIT_CASE(tw_test_range_limit),
	KUNIT_CASE(tw_test_many_timers_one_tick),
	KUNIT_CASE(tw_test_stop_around_cascades),
	KUNIT_CASE(tw_test_restart_after_fire),
	KUNIT_CASE(tw_test_modify),
	KUNIT_CASE(tw_test_lazy_modify),
	KUNIT_CASE(tw_test_end_of_time),
	KUNIT_CASE(tw_test_modify_range),
	KUNIT_CASE(tw_test_overdue_fires_next_advance),
	KUNIT_CASE(tw_test_callback_starts_and_stops),
	KUNIT_CASE(tw_test_callback_rearm_now_waits),
	KUNIT_CASE(tw_test_budget_and_resume),
	KUNIT_CASE(tw_test_cascade_budget),
	KUNIT_CASE(tw_test_next_event_and_bound),
	KUNIT_CASE(tw_test_next_event_shortcut),
	KUNIT_CASE(tw_test_levels_of_their_own_widths),
	KUNIT_CASE(tw_test_next_expiry_looks_up_levels),
	KUNIT_CASE(tw_test_next_expiry_bounded_scan),
	KUNIT_CASE(tw_test_long_idle_jump),
	KUNIT_CASE(tw_test_start_range),
	KUNIT_CASE(tw_test_roundest),
	KUNIT_CASE_PARAM(tw_test_model, tw_layout_gen_params),
	KUNIT_CASE_SLOW(tw_test_million_timers),
	{}
};

static struct kunit_suite tw_core_suite = {
	.name = "timingwheel-core",
	.test_cases = tw_core_cases,
};

kunit_test_suite(tw_core_suite);

MODULE_DESCRIPTION("KUnit tests for the timingwheel core");
MODULE_LICENSE("GPL");
