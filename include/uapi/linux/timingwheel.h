/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * timingwheel: many timers behind one file descriptor.
 *
 * Open /dev/timingwheel; each open file is a client with its own timers,
 * named by 64-bit ids the caller chooses (any value, 0 included).  Start and
 * stop timers with the ioctls below; read() returns struct twheel_event
 * records, one per expiry of a one-shot timer and one per delivery of a
 * periodic one (periods missed meanwhile are counted in its overrun);
 * poll/epoll report EPOLLIN while events wait.  Times are nanoseconds on the
 * client's clock (CLOCK_MONOTONIC unless TWHEEL_IOC_SET_CONFIG chose
 * CLOCK_BOOTTIME), as the calling process sees it in its time namespace.
 *
 * Probe what the running module offers with TWHEEL_IOC_GET_INFO: abi_version
 * and the TWHEEL_FEATURE_* bits.  See Documentation/timingwheel/uapi.rst for
 * every call and error; libtimingwheel wraps all of it.
 */
#ifndef _UAPI_LINUX_TIMINGWHEEL_H
#define _UAPI_LINUX_TIMINGWHEEL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The ABI this header describes; twheel_info.abi_version of the module. */
#define TWHEEL_ABI_VERSION	1

/* twheel_info.features: what the running module supports. */
#define TWHEEL_FEATURE_SLACK	(1ULL << 0)	/* twheel_timer_spec.slack */
#define TWHEEL_FEATURE_TIMENS	(1ULL << 1)	/* times in the caller's time namespace */
#define TWHEEL_FEATURE_BOOTTIME	(1ULL << 2)	/* CLOCK_BOOTTIME clients */
#define TWHEEL_FEATURE_MEMORY	(1ULL << 3)	/* twheel_info.memory is filled */

/* struct twheel_config: per-file settings, before the first timer only. */
struct twheel_config {
	__u32	clockid;	/* CLOCK_MONOTONIC (1) or CLOCK_BOOTTIME (7) */
	__u32	flags;		/* none defined: must be 0 */
	__u64	resolution_ns;	/* tick length; 0 keeps the current one */
	__u64	__reserved[2];	/* must be 0 */
};

/* twheel_config.resolution_ns: the shortest and the longest tick, in ns. */
#define TWHEEL_MIN_RESOLUTION_NS	1000
#define TWHEEL_MAX_RESOLUTION_NS	1000000000

/* struct twheel_timer_spec: one timer to start (TWHEEL_IOC_START). */
struct twheel_timer_spec {
	__u64	id;		/* the caller's name for the timer */
	__u64	value;		/* ns from now, or absolute with TWHEEL_TIMER_ABSTIME */
	__u64	interval;	/* ns between periodic expiries; 0: one-shot */
	__u64	slack;		/* one-shot: may fire up to slack ns after value */
	__u32	flags;		/* TWHEEL_TIMER_* */
	__u32	__reserved;	/* must be 0 */
};

#define TWHEEL_TIMER_ABSTIME	(1U << 0)	/* value is a time on the clock */
#define TWHEEL_TIMER_REPLACE	(1U << 1)	/* re-arm the id if it exists */

/* struct twheel_stop: one timer to stop (TWHEEL_IOC_STOP returns TWHEEL_STOPPED_*). */
struct twheel_stop {
	__u64	id;
	__u32	flags;		/* none defined: must be 0 */
	__u32	__reserved;	/* must be 0 */
};

#define TWHEEL_STOPPED_PENDING	1	/* it had not fired yet */
#define TWHEEL_STOPPED_EXPIRED	2	/* it had fired; its unread event is withdrawn */

/* struct twheel_op: one entry of a TWHEEL_IOC_BATCH array. */
struct twheel_op {
	__u32	op;		/* TWHEEL_OP_START or TWHEEL_OP_STOP */
	__u32	flags;		/* TWHEEL_OP_START: TWHEEL_TIMER_*; TWHEEL_OP_STOP: 0 */
	__u64	id;
	__u64	value;		/* TWHEEL_OP_START only, else 0 */
	__u64	interval;	/* TWHEEL_OP_START only, else 0 */
	__u64	slack;		/* TWHEEL_OP_START only, else 0 */
	__s32	result;		/* out: 0 or TWHEEL_STOPPED_*, or -errno */
	__u32	__reserved;	/* must be 0 */
};

#define TWHEEL_OP_START	1
#define TWHEEL_OP_STOP	2

/* struct twheel_batch: an array of struct twheel_op in the caller's memory. */
struct twheel_batch {
	__u64	ops;		/* pointer to count struct twheel_op */
	__u32	count;		/* at most TWHEEL_BATCH_MAX */
	__u32	flags;		/* none defined: must be 0 */
	__u64	__reserved;	/* must be 0 */
};

#define TWHEEL_BATCH_MAX	65536

/* struct twheel_info: a client's settings and counters (TWHEEL_IOC_GET_INFO). */
struct twheel_info {
	__u32	clockid;
	__u32	abi_version;	/* TWHEEL_ABI_VERSION of the module */
	__u64	features;	/* TWHEEL_FEATURE_* */
	__u64	resolution_ns;
	__u64	range_ns;	/* now + this: the furthest due time a start takes */
	__u64	max_timers;	/* the limit on this file's timers */
	__u64	user_timers;	/* timers held by this file's user, all files */
	__u64	max_user_timers; /* the limit on those */
	__u64	pending;	/* started and not yet fired */
	__u64	queued;		/* fired, event not yet read */
	__u64	fired;		/* expiries, ever */
	__u64	cascades;	/* timers moved between wheel levels, ever */
	__u64	wakeups;	/* hrtimer expiries that ran the wheel, ever */
	__u64	next_expiry;	/* no timer fires before; 0 if none is pending */
	__u64	now;		/* ns on the clock when this was taken */
	__u64	memory;		/* bytes the module holds for this file */
	__u64	__reserved;
};

/* struct twheel_query: one timer's state (TWHEEL_IOC_QUERY). */
struct twheel_query {
	__u64	id;		/* in */
	__u64	due;		/* out: ns on the clock of its (last) expiry */
	__u64	remaining;	/* out: ns until then, 0 if fired */
	__u64	interval;	/* out: the period, 0 for one-shot */
	__u32	state;		/* out: TWHEEL_STATE_* */
	__u32	__reserved;	/* must be 0 */
};

#define TWHEEL_STATE_PENDING	1	/* waiting to fire */
#define TWHEEL_STATE_EXPIRED	2	/* fired, its event is waiting to be read */

/* struct twheel_event: what read() returns. */
struct twheel_event {
	__u64	id;
	__u64	due;		/* ns on the clock the expiry was due */
	__u64	fired;		/* ns on the clock the kernel fired it */
	__u64	overrun;	/* periodic: periods missed before this read */
	__u32	flags;		/* TWHEEL_EVENT_* */
	__u32	__reserved;	/* 0 */
};

#define TWHEEL_EVENT_PERIODIC	(1U << 0)	/* periodic: re-armed when read */

#define TWHEEL_IOC_MAGIC	0xB9
#define TWHEEL_IOC_SET_CONFIG	_IOW(TWHEEL_IOC_MAGIC, 0x00, struct twheel_config)
#define TWHEEL_IOC_GET_INFO	_IOR(TWHEEL_IOC_MAGIC, 0x01, struct twheel_info)
#define TWHEEL_IOC_START	_IOW(TWHEEL_IOC_MAGIC, 0x02, struct twheel_timer_spec)
#define TWHEEL_IOC_STOP		_IOW(TWHEEL_IOC_MAGIC, 0x03, struct twheel_stop)
/* 0x04 was BATCH of 40-byte entries, before slack: never reused. */
#define TWHEEL_IOC_BATCH	_IOW(TWHEEL_IOC_MAGIC, 0x06, struct twheel_batch)
#define TWHEEL_IOC_QUERY	_IOWR(TWHEEL_IOC_MAGIC, 0x05, struct twheel_query)

#endif /* _UAPI_LINUX_TIMINGWHEEL_H */
