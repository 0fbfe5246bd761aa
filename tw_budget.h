/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The softirq budget of a user's ring files: the interface.  See
 * tw_budget.c.
 */
#ifndef _TW_BUDGET_H
#define _TW_BUDGET_H

#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * struct tw_bucket - the tokens of softirq work one user has left
 * @lock:     guards @tokens and @stamp_ns; taken with bottom halves off
 *            (hrtimer callbacks, and tw_kbench's), inside tw_client.lock
 * @tokens:   units of work the user's ring files may still do in softirq
 * @stamp_ns: CLOCK_MONOTONIC up to which @tokens holds what was earned
 */
struct tw_bucket {
	spinlock_t	lock;		/* see the kernel-doc above */
	u64		tokens;
	u64		stamp_ns;
};

void tw_bucket_init(struct tw_bucket *b, u64 now_ns);
u64 tw_bucket_most(u64 fixed, u64 variable, u64 rate);
bool tw_bucket_reserve(struct tw_bucket *b, u64 fixed, u64 variable,
		       u64 rate, u64 now_ns);
void tw_bucket_settle(struct tw_bucket *b, u64 variable, u64 spent, u64 rate);

#endif /* _TW_BUDGET_H */
