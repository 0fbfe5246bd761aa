// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the softirq budget's token bucket in tw_budget.c.
 *
 * The clock is the tests' own: every take names its time, so each case
 * pins down exactly what a refill adds, what the cap keeps, and that a
 * take is all or none.  Like the wheel, the bucket is linked into this
 * module directly.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "tw_budget.c"

/* 8,000 tokens a second: one every 125 us, a cap of 1,000. */
#define TB_RATE		8000ULL
#define TB_CAP		(TB_RATE / 8)
#define TB_T0		(5 * NSEC_PER_SEC)

/* A bucket emptied at TB_T0. */
static void tb_drained(struct kunit *test, struct tw_bucket *b)
{
	tw_bucket_init(b);
	KUNIT_ASSERT_EQ(test, tw_bucket_take(b, TB_CAP, TB_RATE, TB_T0), TB_CAP);
	KUNIT_ASSERT_EQ(test, b->tokens, 0ULL);
}

/* The first take finds the bucket full, and no fuller. */
static void tw_budget_test_first_take_full(struct kunit *test)
{
	struct tw_bucket b;

	tw_bucket_init(&b);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP + 1, TB_RATE, TB_T0), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP, TB_RATE, TB_T0), TB_CAP);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 1, TB_RATE, TB_T0), 0ULL);
}

/* A take that does not fit takes nothing: what is left stays. */
static void tw_budget_test_all_or_none(struct kunit *test)
{
	struct tw_bucket b;

	tw_bucket_init(&b);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 600, TB_RATE, TB_T0), 600ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 600, TB_RATE, TB_T0), 0ULL);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP - 600);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP - 600, TB_RATE, TB_T0),
			TB_CAP - 600);
}

/* A refill adds whole tokens at the rate; a fraction waits for more. */
static void tw_budget_test_refill_rate(struct kunit *test)
{
	struct tw_bucket b;

	tb_drained(test, &b);
	/* 100 us: 0.8 of a token, nothing yet, and the time is kept. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 1, TB_RATE, TB_T0 + 100000), 0ULL);
	KUNIT_EXPECT_EQ(test, b.stamp_ns, TB_T0);
	/* 200 us since the drain: 1.6 tokens, one given. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 1, TB_RATE, TB_T0 + 200000), 1ULL);
	KUNIT_EXPECT_EQ(test, b.tokens, 0ULL);
	/* 10 ms later: 80 more. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 81, TB_RATE, TB_T0 + 10200000), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 80, TB_RATE, TB_T0 + 10200000), 80ULL);
}

/* However long the bucket waits, or however much is given back: the cap. */
static void tw_budget_test_cap(struct kunit *test)
{
	struct tw_bucket b;

	tb_drained(test, &b);
	/* Just under an eighth of a second: not quite full. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP, TB_RATE,
					     TB_T0 + NSEC_PER_SEC / 8 - 200000), 0ULL);
	/* 100 ms more, added to the 998 there: capped. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP + 1, TB_RATE,
					     TB_T0 + NSEC_PER_SEC / 8 + 99800000), 0ULL);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP + 1, TB_RATE,
					     TB_T0 + 10 * NSEC_PER_SEC), 0ULL);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP);
	tw_bucket_give(&b, 500, TB_RATE);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP);
	/* Below the cap, what is given back can be taken again, no more. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, TB_CAP, TB_RATE,
					     TB_T0 + 10 * NSEC_PER_SEC), TB_CAP);
	tw_bucket_give(&b, 10, TB_RATE);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 11, TB_RATE,
					     TB_T0 + 10 * NSEC_PER_SEC), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 10, TB_RATE,
					     TB_T0 + 10 * NSEC_PER_SEC), 10ULL);
}

/* A rate of 0 gives nothing, ever; the largest rate does not overflow. */
static void tw_budget_test_extreme_rates(struct kunit *test)
{
	struct tw_bucket b;
	u64 max = U32_MAX;

	tw_bucket_init(&b);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 1, 0, TB_T0), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 1, 0, TB_T0 + NSEC_PER_SEC), 0ULL);
	tw_bucket_init(&b);
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, max / 8, max, TB_T0), max / 8);
	/* An eighth of a second less 1 ns at 2^32 - 1 a second. */
	KUNIT_EXPECT_EQ(test, tw_bucket_take(&b, 1, max,
					     TB_T0 + NSEC_PER_SEC / 8 - 1),
			1ULL);
	KUNIT_EXPECT_EQ(test, b.tokens,
			div_u64((NSEC_PER_SEC / 8 - 1) * max, NSEC_PER_SEC) - 1);
}

static struct kunit_case tw_budget_cases[] = {
	KUNIT_CASE(tw_budget_test_first_take_full),
	KUNIT_CASE(tw_budget_test_all_or_none),
	KUNIT_CASE(tw_budget_test_refill_rate),
	KUNIT_CASE(tw_budget_test_cap),
	KUNIT_CASE(tw_budget_test_extreme_rates),
	{}
};

static struct kunit_suite tw_budget_suite = {
	.name = "timingwheel-budget",
	.test_cases = tw_budget_cases,
};

kunit_test_suite(tw_budget_suite);
