// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the softirq budget's token bucket in tw_budget.c.
 *
 * The clock is the tests' own: every reservation names its time, so each
 * case pins down exactly what a refill adds, what the cap keeps, that a
 * reservation is all or none and that a settlement gives back only what
 * was not spent.  Like the wheel, the bucket is linked into this module
 * directly.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "tw_budget.c"

/* 8,000 tokens a second: one every 125 us, a cap of 1,000. */
#define TB_RATE		8000ULL
#define TB_CAP		(TB_RATE / 8)
#define TB_T0		(5 * NSEC_PER_SEC)

/* Reserve @n tokens, none of them to give back, at @t. */
static bool tb_take(struct tw_bucket *b, u64 n, u64 t)
{
	return tw_bucket_reserve(b, n, 0, TB_RATE, t);
}

/* A bucket made a second before TB_T0: full there. */
static void tb_full(struct tw_bucket *b)
{
	tw_bucket_init(b, TB_T0 - NSEC_PER_SEC);
}

/* A bucket emptied at TB_T0. */
static void tb_drained(struct kunit *test, struct tw_bucket *b)
{
	tb_full(b);
	KUNIT_ASSERT_TRUE(test, tb_take(b, TB_CAP, TB_T0));
	KUNIT_ASSERT_EQ(test, b->tokens, 0ULL);
}

/*
 * A new bucket is empty and earns from the time it was made: a user whose
 * files all close and who opens one again starts from nothing.  An eighth
 * of a second fills it, and no fuller.
 */
static void tw_budget_test_new_bucket_earns(struct kunit *test)
{
	struct tw_bucket b;

	tw_bucket_init(&b, TB_T0);
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 1, TB_T0));
	/* 1 ms: 8 tokens. */
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 9, TB_T0 + NSEC_PER_MSEC));
	KUNIT_EXPECT_TRUE(test, tb_take(&b, 8, TB_T0 + NSEC_PER_MSEC));
	tw_bucket_init(&b, TB_T0);
	KUNIT_EXPECT_FALSE(test, tb_take(&b, TB_CAP + 1, TB_T0 + NSEC_PER_SEC / 8));
	KUNIT_EXPECT_TRUE(test, tw_bucket_reserve(&b, TB_CAP - 100, 100, TB_RATE,
						  TB_T0 + NSEC_PER_SEC / 8));
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 1, TB_T0 + NSEC_PER_SEC / 8));
}

/* A reservation that does not fit takes nothing: what is left stays. */
static void tw_budget_test_all_or_none(struct kunit *test)
{
	struct tw_bucket b;

	tb_full(&b);
	KUNIT_EXPECT_TRUE(test, tb_take(&b, 600, TB_T0));
	KUNIT_EXPECT_FALSE(test, tw_bucket_reserve(&b, 300, 300, TB_RATE, TB_T0));
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP - 600);
	KUNIT_EXPECT_TRUE(test, tb_take(&b, TB_CAP - 600, TB_T0));
}

/* A refill adds whole tokens at the rate; a fraction waits for more. */
static void tw_budget_test_refill_rate(struct kunit *test)
{
	struct tw_bucket b;

	tb_drained(test, &b);
	/* 100 us: 0.8 of a token, nothing yet, and the time is kept. */
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 1, TB_T0 + 100000));
	KUNIT_EXPECT_EQ(test, b.stamp_ns, TB_T0);
	/* 200 us since the drain: 1.6 tokens, one given. */
	KUNIT_EXPECT_TRUE(test, tb_take(&b, 1, TB_T0 + 200000));
	KUNIT_EXPECT_EQ(test, b.tokens, 0ULL);
	/* 10 ms later: 80 more, with the 0.6 carried over. */
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 81, TB_T0 + 10200000));
	KUNIT_EXPECT_TRUE(test, tb_take(&b, 80, TB_T0 + 10200000));
	KUNIT_EXPECT_TRUE(test, tb_take(&b, 1, TB_T0 + 10250000));
}

/*
 * Refills closer together than they earn whole tokens keep the fraction:
 * 16 of them 200 us apart, 1.6 tokens each, earn 25 in 3.2 ms, not 16.
 */
static void tw_budget_test_fraction_carries(struct kunit *test)
{
	struct tw_bucket b;
	unsigned int i;

	tb_drained(test, &b);
	for (i = 1; i <= 16; i++)
		KUNIT_EXPECT_TRUE(test, tb_take(&b, 0, TB_T0 + i * 200000ULL));
	KUNIT_EXPECT_EQ(test, b.tokens, 25ULL);
	KUNIT_EXPECT_EQ(test, b.stamp_ns, TB_T0 + 25 * 125000ULL);
}

/*
 * A time before the last refill's, another CPU's clock read earlier but
 * locked later, adds nothing and keeps the later time.
 */
static void tw_budget_test_earlier_time(struct kunit *test)
{
	struct tw_bucket b;

	tb_drained(test, &b);
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 1, TB_T0 - NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, b.tokens, 0ULL);
	KUNIT_EXPECT_EQ(test, b.stamp_ns, TB_T0);
	/* Counted from TB_T0, not from the earlier time: 8 tokens. */
	KUNIT_EXPECT_FALSE(test, tb_take(&b, 9, TB_T0 + NSEC_PER_MSEC));
	KUNIT_EXPECT_TRUE(test, tb_take(&b, 8, TB_T0 + NSEC_PER_MSEC));
}

/* However long the bucket waits, or however much comes back: the cap. */
static void tw_budget_test_cap(struct kunit *test)
{
	struct tw_bucket b;
	u64 late = TB_T0 + 10 * NSEC_PER_SEC;

	tb_drained(test, &b);
	/* Just under an eighth of a second: 998, not quite full. */
	KUNIT_EXPECT_FALSE(test, tb_take(&b, TB_CAP, TB_T0 + NSEC_PER_SEC / 8 - 200000));
	/* 100 ms more, added to the 998: capped. */
	KUNIT_EXPECT_FALSE(test, tb_take(&b, TB_CAP + 1, TB_T0 + NSEC_PER_SEC / 8 + 99800000));
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP);
	KUNIT_EXPECT_FALSE(test, tb_take(&b, TB_CAP + 1, late));
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP);
	tw_bucket_settle(&b, 500, 0, TB_RATE);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP);
	/* A lower rate's cap holds at once, on what was saved at the old. */
	KUNIT_EXPECT_FALSE(test, tw_bucket_reserve(&b, TB_CAP / 2 + 1, 0, TB_RATE / 2, late));
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP / 2);
}

/* A settlement gives back the variable part not spent, and no more. */
static void tw_budget_test_settle(struct kunit *test)
{
	struct tw_bucket b;

	tb_full(&b);
	KUNIT_EXPECT_TRUE(test, tw_bucket_reserve(&b, 10, 100, TB_RATE, TB_T0));
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP - 110);
	tw_bucket_settle(&b, 100, 30, TB_RATE);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP - 40);
	KUNIT_EXPECT_TRUE(test, tw_bucket_reserve(&b, 10, 100, TB_RATE, TB_T0));
	/* Spending more than was reserved counts as all of it. */
	tw_bucket_settle(&b, 100, 300, TB_RATE);
	KUNIT_EXPECT_EQ(test, b.tokens, TB_CAP - 150);
}

/* A rate of 0 gives nothing, ever; the largest rate does not overflow. */
static void tw_budget_test_extreme_rates(struct kunit *test)
{
	struct tw_bucket b;
	u64 max = U32_MAX;

	tb_full(&b);
	KUNIT_EXPECT_FALSE(test, tw_bucket_reserve(&b, 1, 0, 0, TB_T0));
	KUNIT_EXPECT_FALSE(test, tw_bucket_reserve(&b, 1, 0, 0, TB_T0 + NSEC_PER_SEC));
	tb_full(&b);
	KUNIT_EXPECT_TRUE(test, tw_bucket_reserve(&b, max / 8, 0, max, TB_T0));
	/*
	 * An eighth of a second less 1 ns at 2^32 - 1 a second:
	 * 124,999,999 * 4,294,967,295 / 10^9 = 536,870,907.4, one taken.
	 */
	KUNIT_EXPECT_TRUE(test, tw_bucket_reserve(&b, 1, 0, max,
						  TB_T0 + NSEC_PER_SEC / 8 - 1));
	KUNIT_EXPECT_EQ(test, b.tokens, 536870906ULL);
}

/*
 * A callback's reservation is cut to what a bucket grants without waiting
 * for it to fill: a quarter of the cap, never less than its fixed part,
 * one expiry and one move.  What is left at the defaults is untouched,
 * and a reservation cut to a quarter is granted by a bucket a quarter
 * full, where the whole wish never would be.
 */
static void tw_budget_test_most(struct kunit *test)
{
	struct tw_bucket b;
	u64 most;

	/* The defaults: 97 fixed, two expiry_batch of 1024, 2^23 a second. */
	KUNIT_EXPECT_EQ(test, tw_bucket_most(97, 2048, 1ULL << 23), 2048ULL);
	/* A quarter of the cap of 1,000: 250, less 10 fixed. */
	most = tw_bucket_most(10, 1ULL << 40, TB_RATE);
	KUNIT_EXPECT_EQ(test, most, TB_CAP / 4 - 10);
	KUNIT_EXPECT_EQ(test, tw_bucket_most(10, 200, TB_RATE), 200ULL);
	tb_drained(test, &b);
	/* A quarter of an eighth of a second: 250 tokens. */
	KUNIT_EXPECT_FALSE(test, tw_bucket_reserve(&b, 10, 1ULL << 40, TB_RATE,
						   TB_T0 + NSEC_PER_SEC / 32));
	KUNIT_EXPECT_TRUE(test, tw_bucket_reserve(&b, 10, most, TB_RATE,
						  TB_T0 + NSEC_PER_SEC / 32));
	/* Below a quarter of the cap, still one expiry and one move. */
	KUNIT_EXPECT_EQ(test, tw_bucket_most(TB_CAP, 1ULL << 40, TB_RATE), 2ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_most(TB_CAP, 2, 8), 2ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_most(TB_CAP, 2, 0), 2ULL);
}

static struct kunit_case tw_budget_cases[] = {
	KUNIT_CASE(tw_budget_test_new_bucket_earns),
	KUNIT_CASE(tw_budget_test_all_or_none),
	KUNIT_CASE(tw_budget_test_refill_rate),
	KUNIT_CASE(tw_budget_test_fraction_carries),
	KUNIT_CASE(tw_budget_test_earlier_time),
	KUNIT_CASE(tw_budget_test_cap),
	KUNIT_CASE(tw_budget_test_settle),
	KUNIT_CASE(tw_budget_test_extreme_rates),
	KUNIT_CASE(tw_budget_test_most),
	{}
};

static struct kunit_suite tw_budget_suite = {
	.name = "timingwheel-budget",
	.test_cases = tw_budget_cases,
};

kunit_test_suite(tw_budget_suite);
