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
 * spend at most (tw_bucket_reserve()): a fixed part, 64 tokens for the
 * call, one per SQ (a proxy for the few lines of each it loads and stores:
 * a tail, a head, the results it holds) and TW_CHUNK for the units of ring
 * work it may do (an entry applied or walked past, an event posted),
 * done or not; and a variable part, one per timer it may fire and one per
 * timer it may move down a level, two expiry_batch, cut so that the whole
 * is at most a quarter of the most the bucket holds (tw_bucket_most():
 * the callback then fires and moves as many fewer).  At the end it gives
 * back what it did not fire or move (tw_bucket_settle()).  A callback that
 * finds less than its reservation does nothing: it leaves the rest to the
 * file's own system calls, in process context, in the owner's cgroup, as
 * a callback with more entries than a chunk does (tw_ring.c, "DOC:
 * Softirq work").  So the softirq work a user's ring files do is at most
 * ring_budget units a second, however many files, plus a burst of the
 * eighth of a second's worth the bucket holds.  A rate below eight
 * reservations of one expiry a second (792 with one SQ) leaves all of it
 * to system calls; one below 68,640 (with the defaults and one SQ) cuts
 * the expiries of a callback.  An honest program that arms and stops 10^6
 * timers a second through its rings, with 10^4 callbacks a second and
 * 10^5 expiries, spends about 1.2 * 10^6 a second of the default
 * 8,388,608.
 *
 * The bucket refills lazily, when a callback takes from it, from
 * CLOCK_MONOTONIC read before its lock: a time not after the last refill's
 * (another CPU's, read later but locked first) adds nothing.  A refill adds
 * whole tokens and moves the bucket's time on by what they took to earn,
 * so the fraction of a token carries over: callbacks closer together than
 * a token's worth of time still earn the rate, not one token each.
 *
 * A user's bucket is made empty when the user's first file opens, and
 * earns from then on.  It goes with the user's last file; one made full
 * would give a user who closes every file and opens one again an eighth
 * of a second's worth each time, however fast the loop.
 *
 * Id-only files do not use it: their callbacks fire what a system call
 * armed, at most expiry_batch timers each.
 */
#include <linux/minmax.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "tw_budget.h"

/**
 * tw_bucket_init - an empty bucket that earns from @now_ns on
 * @b:      the bucket
 * @now_ns: CLOCK_MONOTONIC
 */
void tw_bucket_init(struct tw_bucket *b, u64 now_ns)
{
	spin_lock_init(&b->lock);
	b->tokens = 0;
	b->stamp_ns = now_ns;
}

/* The most tokens a bucket holds: an eighth of a second at @rate. */
static u64 tw_bucket_cap(u64 rate)
{
	return rate / 8;
}

/*
 * Add what @rate earned since the last refill, never past the cap of the
 * current rate, which may have been lowered since.  An eighth of a second
 * or more fills it; below that, with @rate below 2^32, the product stays
 * under 2^27 * 2^32.  A full bucket earns nothing, so its time is now;
 * otherwise the time moves on by what the whole tokens took, rounded up,
 * which is at most @since: add * NSEC_PER_SEC <= since * rate.
 */
static void tw_bucket_refill(struct tw_bucket *b, u64 rate, u64 now_ns)
{
	u64 cap = tw_bucket_cap(rate), since = now_ns - b->stamp_ns, add;

	lockdep_assert_held(&b->lock);
	b->tokens = min(b->tokens, cap);
	if (now_ns <= b->stamp_ns)
		return;
	add = since < NSEC_PER_SEC / 8 ? div_u64(since * rate, NSEC_PER_SEC) : cap;
	if (!add)
		return;
	if (add >= cap - b->tokens) {
		b->tokens = cap;
		b->stamp_ns = now_ns;
		return;
	}
	b->tokens += add;
	b->stamp_ns += div64_u64(add * NSEC_PER_SEC + rate - 1, rate);
}

/**
 * tw_bucket_most - the variable part a callback may reserve
 * @fixed:    the part it spends whatever it does
 * @variable: the variable part it would like: two expiry_batch
 * @rate:     tokens a second (ring_budget)
 *
 * A reservation above the cap would never be granted, and one near it only
 * after an eighth of a second of no work: an expiry_batch set high next to
 * the rate would stall every callback.  So a reservation is cut to a
 * quarter of the cap, but never below its fixed part, one expiry and one
 * move; a rate whose cap is below that (under eight such reservations a
 * second) leaves every callback to stall.
 *
 * Return: @variable, or less, but at least 2 if @variable is.
 */
u64 tw_bucket_most(u64 fixed, u64 variable, u64 rate)
{
	u64 most = max(tw_bucket_cap(rate) / 4, fixed + 2);

	return min(variable, most - fixed);
}

/**
 * tw_bucket_reserve - take a callback's most, all or none
 * @b:        the bucket
 * @fixed:    the part it spends whatever it does
 * @variable: the part it may give back (tw_bucket_settle())
 * @rate:     tokens a second (ring_budget)
 * @now_ns:   CLOCK_MONOTONIC
 *
 * Context: bottom halves off (a client's hrtimer callback, or the
 * benchmark's stand-in for one); takes @b->lock.
 *
 * Return: true if the bucket held @fixed + @variable, now taken; else
 * false, and nothing taken.
 */
bool tw_bucket_reserve(struct tw_bucket *b, u64 fixed, u64 variable,
		       u64 rate, u64 now_ns)
{
	u64 want = fixed + variable;
	bool got = false;

	spin_lock(&b->lock);
	tw_bucket_refill(b, rate, now_ns);
	if (b->tokens >= want) {
		b->tokens -= want;
		got = true;
	}
	spin_unlock(&b->lock);
	return got;
}

/**
 * tw_bucket_settle - give back what a reservation did not spend
 * @b:        the bucket
 * @variable: the variable part reserved
 * @spent:    how much of it the callback spent; more counts as all
 * @rate:     tokens a second (ring_budget), for the cap
 *
 * Context: as tw_bucket_reserve().
 */
void tw_bucket_settle(struct tw_bucket *b, u64 variable, u64 spent, u64 rate)
{
	u64 back = variable - min(spent, variable);

	spin_lock(&b->lock);
	b->tokens = min(b->tokens + back, tw_bucket_cap(rate));
	spin_unlock(&b->lock);
}
