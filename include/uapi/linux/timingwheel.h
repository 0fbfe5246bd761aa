/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * timingwheel: many timers behind one file descriptor.
 *
 * Open /dev/timingwheel; each open file is a client with its own timers,
 * named by 64-bit ids the caller chooses.  Start and stop timers with the
 * ioctls below; read() returns one struct tw_event per expiry; poll/epoll
 * report EPOLLIN while events wait.  Times are nanoseconds on the client's
 * clock (CLOCK_MONOTONIC unless TW_IOC_SET_CONFIG chose CLOCK_BOOTTIME).
 *
 * See Documentation/timingwheel/uapi.rst for every call and error.
 */
#ifndef _UAPI_LINUX_TIMINGWHEEL_H
#define _UAPI_LINUX_TIMINGWHEEL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* struct tw_config: per-file settings, before the first timer only. */
struct tw_config {
	__u32	clockid;	/* CLOCK_MONOTONIC (1) or CLOCK_BOOTTIME (7) */
	__u32	flags;		/* none defined: must be 0 */
	__u64	resolution_ns;	/* tick length; 0 keeps the current one */
	__u64	__reserved[2];	/* must be 0 */
};

/* struct tw_timer_spec: one timer to start (TW_IOC_START). */
struct tw_timer_spec {
	__u64	id;		/* the caller's name for the timer */
	__u64	value;		/* ns from now, or absolute with TW_TIMER_ABSTIME */
	__u64	interval;	/* ns between periodic expiries; 0: one-shot */
	__u32	flags;		/* TW_TIMER_* */
	__u32	__reserved;	/* must be 0 */
};

#define TW_TIMER_ABSTIME	(1U << 0)	/* value is a time on the clock */
#define TW_TIMER_REPLACE	(1U << 1)	/* re-arm the id if it exists */
#define TW_TIMER_FLAGS		(TW_TIMER_ABSTIME | TW_TIMER_REPLACE)

/* struct tw_stop: one timer to stop (TW_IOC_STOP returns TW_STOPPED_*). */
struct tw_stop {
	__u64	id;
	__u32	flags;		/* none defined: must be 0 */
	__u32	__reserved;	/* must be 0 */
};

#define TW_STOPPED_PENDING	1	/* it had not fired yet */
#define TW_STOPPED_EXPIRED	2	/* it had fired; its unread event is withdrawn */

/* struct tw_op: one entry of a TW_IOC_BATCH array. */
struct tw_op {
	__u32	op;		/* TW_OP_START or TW_OP_STOP */
	__u32	flags;		/* TW_OP_START: TW_TIMER_*; TW_OP_STOP: 0 */
	__u64	id;
	__u64	value;		/* TW_OP_START only, else 0 */
	__u64	interval;	/* TW_OP_START only, else 0 */
	__s32	result;		/* out: 0 or TW_STOPPED_*, or -errno */
	__u32	__reserved;	/* must be 0 */
};

#define TW_OP_START	1
#define TW_OP_STOP	2

/* struct tw_batch: an array of struct tw_op in the caller's memory. */
struct tw_batch {
	__u64	ops;		/* pointer to count struct tw_op */
	__u32	count;		/* at most TW_BATCH_MAX */
	__u32	flags;		/* none defined: must be 0 */
	__u64	__reserved;	/* must be 0 */
};

#define TW_BATCH_MAX	65536

/* struct tw_info: a client's settings and counters (TW_IOC_GET_INFO). */
struct tw_info {
	__u32	clockid;
	__u32	__pad;
	__u64	resolution_ns;
	__u64	range_ns;	/* the furthest ahead a timer can be started */
	__u64	max_timers;	/* the limit on this file's timers */
	__u64	user_timers;	/* timers held by this file's user, all files */
	__u64	max_user_timers; /* the limit on those */
	__u64	pending;	/* started and not yet fired */
	__u64	queued;		/* fired, event not yet read */
	__u64	fired;		/* expiries, ever */
	__u64	cascades;	/* timers moved between wheel levels, ever */
	__u64	next_expiry;	/* no timer fires before; 0 if none is pending */
	__u64	now;		/* ns on the clock when this was taken */
	__u64	__reserved[2];
};

/* struct tw_query: one timer's state (TW_IOC_QUERY). */
struct tw_query {
	__u64	id;		/* in */
	__u64	due;		/* out: ns on the clock of its (last) expiry */
	__u64	remaining;	/* out: ns until then, 0 if fired */
	__u64	interval;	/* out: the period, 0 for one-shot */
	__u32	state;		/* out: TW_STATE_* */
	__u32	__reserved;	/* must be 0 */
};

#define TW_STATE_PENDING	1	/* waiting to fire */
#define TW_STATE_EXPIRED	2	/* fired, its event is waiting to be read */

/* struct tw_event: what read() returns, one per expiry. */
struct tw_event {
	__u64	id;
	__u64	due;		/* ns on the clock the expiry was due */
	__u64	fired;		/* ns on the clock the kernel fired it */
	__u64	overrun;	/* periodic: periods missed before this read */
	__u32	flags;		/* TW_EVENT_* */
	__u32	__reserved;	/* 0 */
};

#define TW_EVENT_PERIODIC	(1U << 0)	/* periodic: re-armed when read */

#define TW_IOC_MAGIC		0xB9
#define TW_IOC_SET_CONFIG	_IOW(TW_IOC_MAGIC, 0x00, struct tw_config)
#define TW_IOC_GET_INFO		_IOR(TW_IOC_MAGIC, 0x01, struct tw_info)
#define TW_IOC_START		_IOW(TW_IOC_MAGIC, 0x02, struct tw_timer_spec)
#define TW_IOC_STOP		_IOW(TW_IOC_MAGIC, 0x03, struct tw_stop)
#define TW_IOC_BATCH		_IOW(TW_IOC_MAGIC, 0x04, struct tw_batch)
#define TW_IOC_QUERY		_IOWR(TW_IOC_MAGIC, 0x05, struct tw_query)

#endif /* _UAPI_LINUX_TIMINGWHEEL_H */
