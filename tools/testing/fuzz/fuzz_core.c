// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: tw_core.c against a model that knows, for every timer,
 * the one tick it must fire at.  The input picks a layout and a start tick,
 * then a sequence of starts, range starts, modifies, stops, advances with
 * budgets and next-event queries; the expiry callback, too, stops and
 * moves timers, one of the tick it fires included.  Any broken promise
 * aborts, which the fuzzer reports with the input that did it: a timer
 * fired early, late, twice or after a stop; a wrong error; a pending
 * count, next expiry or next-event bound that disagrees with the model.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "tw_core.h"

#define N	64

struct probe {
	struct tw_timer	timer;
	u64		must;
	bool		pending;
};

static struct tw_wheel wheel;
static struct probe probe[N];
static unsigned int nr_pending;

/* A distance: mostly short, sometimes across levels, sometimes huge. */
static u64 take_delta(struct input *in)
{
	unsigned int kind = take(in, 1);

	return take(in, 1 + kind % 8) >> (kind / 8 % 8);
}

/* What tw_start() must answer for @due, from the wheel's own bound. */
static int expect_start(u64 due)
{
	if (due > wheel.now && (due >= tw_max_expiry(&wheel) || due >= TW_MAX_TICK))
		return -ERANGE;
	return 0;
}

static void started(struct probe *p, int ret, int want)
{
	CHECK(ret == want);
	if (ret)
		return;
	if (!p->pending)
		nr_pending++;
	p->pending = true;
	p->must = p->timer.expires > wheel.now ? p->timer.expires : wheel.now;
}

static void check_model(void)
{
	u64 first = TW_NO_EVENT, ev;
	unsigned int i;

	for (i = 0; i < N; i++) {
		if (!probe[i].pending)
			continue;
		CHECK(tw_timer_pending(&probe[i].timer));
		if (!tw_has_due(&wheel))
			CHECK(probe[i].must > wheel.now);
		if (probe[i].must < first)
			first = probe[i].must;
	}
	CHECK(wheel.nr_pending == nr_pending);
	CHECK(tw_next_expiry(&wheel) == first);
	CHECK(tw_next_expiry_within(&wheel, 2) <= first);
	ev = tw_next_event(&wheel, U64_MAX);
	CHECK(ev <= first);
	if (first != TW_NO_EVENT)
		CHECK(ev >= wheel.now && ev != TW_NO_EVENT);
}

/*
 * The expiry callback: the timer must be due now.  Then, as the input says,
 * stop or move another timer, maybe one still waiting at this tick, or this
 * one: to a tick after now, which this advance or a later one must fire.
 * Each action eats input, so a chain of re-arms ends with it.
 */
static void fire(struct tw_timer *t, void *data)
{
	struct probe *p = (struct probe *)((char *)t - offsetof(struct probe, timer));
	struct input *in = data;
	struct probe *q;
	u64 due;

	CHECK(p->pending);
	CHECK(wheel.now == p->must);
	CHECK(!tw_timer_pending(t));
	p->pending = false;
	nr_pending--;
	if (!in->left || take(in, 1) % 4)
		return;
	q = &probe[take(in, 1) % N];
	if (take(in, 1) & 1) {
		CHECK(tw_stop(&wheel, &q->timer) == q->pending);
		nr_pending -= q->pending;
		q->pending = false;
		return;
	}
	due = wheel.now + 1 + take_delta(in);
	if (due > wheel.now)
		started(q, tw_modify(&wheel, &q->timer, due), expect_start(due));
}

static void advance(struct input *in, u64 target, unsigned int budget)
{
	if (target >= TW_MAX_TICK)
		target = TW_MAX_TICK - 1;
	tw_advance(&wheel, target, budget, fire, in);
	if (!tw_has_due(&wheel) && target > wheel.now)
		abort();
}

/*
 * The roundest tick of [@lo, @hi], by brute force over the powers of 2:
 * the one multiple in range of the highest that has one.
 */
static u64 roundest_ref(u64 lo, u64 hi)
{
	int k;
	u64 m;

	for (k = 63; k > 0; k--) {
		m = (lo + (1ULL << k) - 1) & ~((1ULL << k) - 1);
		if (m >= lo && m <= hi)
			return m;
	}
	return lo;
}

/* tw_start_range() or tw_modify_range() over [@lo, @hi]: at its roundest. */
static void range_op(struct probe *p, u64 lo, u64 hi, bool modify)
{
	u64 was = p->timer.expires, max = tw_max_expiry(&wheel) - 1;
	int ret;

	if (modify && p->pending && was >= lo && was <= hi) {
		CHECK(!tw_modify_range(&wheel, &p->timer, lo, hi));
		CHECK(p->timer.expires == was);
		return;
	}
	ret = modify ? tw_modify_range(&wheel, &p->timer, lo, hi) :
		       tw_start_range(&wheel, &p->timer, lo, hi);
	if (!modify && p->pending) {
		CHECK(ret == -EBUSY);
	} else if (hi < lo) {
		CHECK(ret == -EINVAL);
	} else if (!ret) {
		CHECK(p->timer.expires == roundest_ref(lo, hi < max ? hi : max));
		started(p, ret, 0);
	} else {
		CHECK(ret == -ERANGE && lo >= tw_max_expiry(&wheel));
		CHECK(!p->pending || p->timer.expires == was);
	}
}

static void step(struct input *in)
{
	struct probe *p = &probe[take(in, 1) % N];
	unsigned int op = take(in, 1) % 8;
	u64 due = wheel.now + take_delta(in), hi;
	int ret;

	switch (op) {
	case 0:
		ret = tw_start(&wheel, &p->timer, due);
		started(p, ret, p->pending ? -EBUSY : expect_start(due));
		break;
	case 1:
		hi = due + take_delta(in);
		range_op(p, due, hi, take(in, 1) & 1);
		break;
	case 2:
		ret = tw_modify(&wheel, &p->timer, due);
		started(p, ret, expect_start(due));
		break;
	case 3:
		CHECK(tw_stop(&wheel, &p->timer) == p->pending);
		if (p->pending)
			nr_pending--;
		p->pending = false;
		break;
	case 4:
		advance(in, due, take(in, 1) % 4 ? TW_NO_BUDGET : take(in, 1) % 8);
		break;
	case 5:
		due = tw_next_event(&wheel, U64_MAX);
		advance(in, due == TW_NO_EVENT ? wheel.now + 1 : due, take(in, 1) % 16);
		break;
	default:
		advance(in, wheel.now + take(in, 1) % 130, TW_NO_BUDGET);
	}
	check_model();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	u8 bits[TW_MAX_LEVELS];
	unsigned int levels = take(&in, 1) % (TW_MAX_LEVELS + 1), i;

	for (i = 0; i < levels; i++)
		bits[i] = 1 + take(&in, 1) % TW_MAX_LEVEL_BITS;
	if (tw_init(&wheel, levels ? bits : NULL, levels,
		    take(&in, 6) & ((1ULL << 46) - 1)))
		return 0;
	memset(probe, 0, sizeof(probe));
	for (i = 0; i < N; i++)
		tw_timer_init(&probe[i].timer);
	nr_pending = 0;
	while (in.left)
		step(&in);
	/* Everything still pending fires at its tick, once. */
	advance(&in, TW_MAX_TICK - 1, TW_NO_BUDGET);
	CHECK(nr_pending == 0 && wheel.nr_pending == 0);
	return 0;
}
