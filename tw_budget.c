// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: The softirq budget
 *
 * An hrtimer callback runs in softirq, charged to whatever task it
 * interrupts, outside its owner's cpu.max.  A ring file would let a store
 * buy what an ioctl costs a system call for: a tail rewritten, a CQ head
 * moved, a thousand timers due one tick apart, each bringing a callback
 * that applies entries and posts events.  So the work the callbacks of one
 * user's ring files may do is bounded by a token bucket the user's files
 * share: ring_budget tokens a second (a module parameter), of which it
 * holds at most an eighth of a second's worth.
 *
 * A callback of a ring file reserves, before it does anything, what it may
 * spend at most: TW_BUDGET_CALLBACK tokens for the call and for the
 * TW_CHUNK units of ring work it may do, and one per timer it may fire
 * (expiry_batch).  It gives back, at the end, one per timer it did not
 * fire.  A callback that finds less than that reservation does nothing: it
 * leaves the rest to the file's own system calls, in process context, in
 * the owner's cgroup, as a callback with more entries than a chunk does
 * (tw_ring.c, "DOC: Softirq work").  The softirq work a user's ring files
 * do is therefore at most ring_budget units a second, however many files,
 * plus a burst of an eighth of that; an honest program that arms and
 * stops 10^6 timers a second through its rings, with 10^4 callbacks a
 * second and 10^5 expiries, spends about 1.06 * 10^6 a second of the
 * default 8,388,608.
 *
 * The bucket refills lazily, when a callback takes from it, from
 * CLOCK_MONOTONIC; a refill adds whole tokens and loses the fraction, less
 * than one token a refill.  Id-only files do not use it: their callbacks
 * fire what a system call armed, at most expiry_batch timers each.
 */
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "tw_budget.h"

/**
 * tw_bucket_init - an empty bucket, full at its first take
 * @b: the bucket
 */
void tw_bucket_init(struct tw_bucket *b)
{
	spin_lock_init(&b->lock);
	b->tokens = 0;
	b->stamp_ns = 0;
}

/* The most tokens a bucket holds: an eighth of a second at @rate. */
static u64 tw_bucket_cap(u64 rate)
{
	return rate / 8;
}

/*
 * Add what @rate earned since the last refill.  An eighth of a second or
 * more fills it; below that, with @rate below 2^32, the product stays
 * under 2^27 * 2^32.
 */
static void tw_bucket_refill(struct tw_bucket *b, u64 rate, u64 now_ns)
{
	u64 cap = tw_bucket_cap(rate), since = now_ns - b->stamp_ns, add;

	lockdep_assert_held(&b->lock);
	if (!b->stamp_ns || now_ns < b->stamp_ns || since >= NSEC_PER_SEC / 8) {
		b->tokens = cap;
		b->stamp_ns = now_ns;
		return;
	}
	add = div_u64(since * rate, NSEC_PER_SEC);
	if (!add)
		return;
	b->tokens = min(b->tokens + add, cap);
	b->stamp_ns = now_ns;
}

/**
 * tw_bucket_take - reserve tokens, all or none
 * @b:      the bucket
 * @want:   how many
 * @rate:   tokens a second (ring_budget)
 * @now_ns: CLOCK_MONOTONIC
 *
 * Return: @want if the bucket held that many, now taken; else 0, and
 * nothing taken.
 */
u64 tw_bucket_take(struct tw_bucket *b, u64 want, u64 rate, u64 now_ns)
{
	u64 got = 0;

	spin_lock(&b->lock);
	tw_bucket_refill(b, rate, now_ns);
	if (b->tokens >= want) {
		b->tokens -= want;
		got = want;
	}
	spin_unlock(&b->lock);
	return got;
}

/**
 * tw_bucket_give - give back tokens a reservation did not spend
 * @b:    the bucket
 * @n:    how many
 * @rate: tokens a second (ring_budget), for the cap
 */
void tw_bucket_give(struct tw_bucket *b, u64 n, u64 rate)
{
	spin_lock(&b->lock);
	b->tokens = min(b->tokens + n, tw_bucket_cap(rate));
	spin_unlock(&b->lock);
}
