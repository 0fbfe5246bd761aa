// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the time conversions of tw_client.h, which the ioctls and
 * the rings share: a time namespace's view to the host's clock and back
 * (tw_to_host(), tw_to_view()), and a host time to the tick a timer fires
 * at (tw_tick_ceil(), tw_due_tick()).
 *
 * Each result is checked against the arithmetic written out plainly, on
 * the edges where the helpers branch: offsets of both signs, a time before
 * the host clock's zero, the last ticks before KTIME_MAX, resolutions that
 * are and are not powers of two.  Pure functions: no client is set up
 * (tw_client_create()); a zeroed one carries the two fields the rounding
 * reads.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "tw_client.h"

#define TT_SEC		((s64)NSEC_PER_SEC)

/* Offsets a time namespace may have, both signs; ns. */
static const s64 tt_offs[] = {
	0, 1, TT_SEC, 1000 * TT_SEC, KTIME_MAX / 4,
	-1, -TT_SEC, -1000 * TT_SEC, -(KTIME_MAX / 4),
};

/* Times on a view: the edges and a few between; ns. */
static const u64 tt_times[] = {
	0, 1, 999, TT_SEC, 1000 * TT_SEC + 7,
	KTIME_MAX / 4, KTIME_MAX / 4 + 1, KTIME_MAX / 2, KTIME_MAX - 1,
	KTIME_MAX,
};

/*
 * A view's time is the host's plus the offset.  Before the host clock's
 * zero (a positive offset larger than the time) it is the host's 0: due.
 * After it, back to the view is the identity.  A view's time past
 * KTIME_MAX is -ERANGE; one before it behind a negative offset may give a
 * host time past KTIME_MAX, which tw_due_tick() refuses.
 */
static void tw_time_test_to_host(struct kunit *test)
{
	unsigned int i, k;
	u64 host;
	s64 off;

	for (k = 0; k < ARRAY_SIZE(tt_offs); k++) {
		off = tt_offs[k];
		for (i = 0; i < ARRAY_SIZE(tt_times); i++) {
			u64 t = tt_times[i];

			if (tw_to_host(t, off, &host)) {
				KUNIT_FAIL(test, "%llu on offset %lld: an error", t, off);
				continue;
			}
			if (off >= 0 && t <= (u64)off) {
				KUNIT_EXPECT_EQ(test, host, 0ULL);
				continue;
			}
			/* Both signs: t - off, which a u64 wraps to the sum. */
			KUNIT_EXPECT_EQ(test, host, t - (u64)off);
			KUNIT_EXPECT_EQ(test, tw_to_view(host, off), t);
		}
		KUNIT_EXPECT_EQ(test, tw_to_host((u64)KTIME_MAX + 1, off, &host),
				-ERANGE);
		KUNIT_EXPECT_EQ(test, tw_to_host(U64_MAX, off, &host), -ERANGE);
	}
}

/*
 * Host to view: the host's time plus the offset; with a negative offset a
 * host time not past its magnitude reads as 0, never wrapping.
 */
static void tw_time_test_to_view(struct kunit *test)
{
	unsigned int i, k;
	s64 off;

	for (k = 0; k < ARRAY_SIZE(tt_offs); k++) {
		off = tt_offs[k];
		for (i = 0; i < ARRAY_SIZE(tt_times); i++) {
			u64 t = tt_times[i];

			if (off < 0 && t <= (u64)-off)
				KUNIT_EXPECT_EQ(test, tw_to_view(t, off), 0ULL);
			else
				KUNIT_EXPECT_EQ(test, tw_to_view(t, off),
						t + (u64)off);
		}
	}
	KUNIT_EXPECT_EQ(test, tw_to_view(TT_SEC + 1, -TT_SEC), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_to_view(TT_SEC, -TT_SEC), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_to_view(5, 1000 * TT_SEC), 1000ULL * TT_SEC + 5);
}

/* Resolutions: 1 ns, powers of two and of ten, and odd ones; ns. */
static const u64 tt_res[] = {
	1, 2, 3, 333, 1024, 10000, NSEC_PER_MSEC, 999999937, TT_SEC,
	3600 * TT_SEC,
};

/*
 * The tick of a timer is the first at or after its time, a division
 * rounded up: a time on a tick is that tick, a nanosecond after it the
 * next.  A time whose tick would start past KTIME_MAX is -ERANGE, as is
 * a time past KTIME_MAX; the last tick that starts at or before it is not.
 */
static void tw_time_test_due_tick(struct kunit *test)
{
	struct tw_client *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u64 res, tick, last, t, want, rem;
	unsigned int i, k;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (k = 0; k < ARRAY_SIZE(tt_res); k++) {
		res = tt_res[k];
		c->resolution = res;
		c->res_inv = tw_div_inv(res);
		last = div64_u64(KTIME_MAX, res);
		for (i = 0; i < ARRAY_SIZE(tt_times); i++) {
			t = tt_times[i];
			want = div64_u64_rem(t, res, &rem) + (rem != 0);
			KUNIT_EXPECT_EQ(test, tw_tick_ceil(c, t), want);
			if (want > last) {
				KUNIT_EXPECT_EQ(test, tw_due_tick(c, t, &tick), -ERANGE);
				continue;
			}
			KUNIT_EXPECT_EQ(test, tw_due_tick(c, t, &tick), 0);
			KUNIT_EXPECT_EQ(test, tick, want);
		}
		/* On a tick, and a nanosecond either side (1 ns: ticks). */
		KUNIT_EXPECT_EQ(test, tw_tick_ceil(c, 7 * res), 7ULL);
		KUNIT_EXPECT_EQ(test, tw_tick_ceil(c, 7 * res + 1), 8ULL);
		KUNIT_EXPECT_EQ(test, tw_tick_ceil(c, 7 * res - 1),
				res == 1 ? 6ULL : 7ULL);
		/* The last tick that is a ktime, and the time just after it. */
		KUNIT_EXPECT_EQ(test, tw_due_tick(c, last * res, &tick), 0);
		KUNIT_EXPECT_EQ(test, tick, last);
		if (last * res < KTIME_MAX)
			KUNIT_EXPECT_EQ(test, tw_due_tick(c, last * res + 1, &tick),
					-ERANGE);
		KUNIT_EXPECT_EQ(test, tw_due_tick(c, (u64)KTIME_MAX + 1, &tick),
				-ERANGE);
	}
}

static struct kunit_case tw_time_cases[] = {
	KUNIT_CASE(tw_time_test_to_host),
	KUNIT_CASE(tw_time_test_to_view),
	KUNIT_CASE(tw_time_test_due_tick),
	{}
};

static struct kunit_suite tw_time_suite = {
	.name = "timingwheel-time",
	.test_cases = tw_time_cases,
};

kunit_test_suite(tw_time_suite);
