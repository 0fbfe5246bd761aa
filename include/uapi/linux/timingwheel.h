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
#define TWHEEL_FEATURE_RINGS	(1ULL << 4)	/* TWHEEL_IOC_RING_SETUP, mmap() */

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

/*
 * Shared-memory rings (Documentation/timingwheel/rings.rst): a file may opt
 * in, once, with TWHEEL_IOC_RING_SETUP, then map each region with its own
 * mmap(MAP_SHARED) at the offsets below, and start and stop timers by
 * writing submission queue entries (SQEs), with no system call in the
 * steady state.  Expiries and results arrive in the completion queue (CQ).
 */
struct twheel_ring_setup {
	__u32	capacity;	/* in: timer slots, 1..TWHEEL_RING_MAX_CAPACITY */
	__u32	nr_sq;		/* in: submission rings, 1..TWHEEL_RING_MAX_SQ */
	__u32	sq_entries;	/* in: per SQ, a power of 2, 8..32768 */
	__u32	cq_entries;	/* in: a power of 2, 8..TWHEEL_RING_MAX_CQ */
	__u32	flags;		/* in: TWHEEL_RING_SETUP_* */
	__u32	hdr_bytes;	/* out: length of the header region */
	__u32	sq_bytes;	/* out: length of each SQ region */
	__u32	cq_bytes;	/* out: length of the CQ region */
	__u64	memory;		/* out: bytes charged, every region included */
	__u64	timers;		/* out: counted against max_user_timers */
	__u64	__reserved[2];	/* 0 */
};

#define TWHEEL_RING_SETUP_PERIODIC	(1U << 0)	/* periodic slots: 8 B more a slot */

#define TWHEEL_RING_MAX_CAPACITY	(1U << 25)
#define TWHEEL_RING_MAX_SQ		64
#define TWHEEL_RING_MIN_ENTRIES		8
#define TWHEEL_RING_MAX_SQ_ENTRIES	32768
#define TWHEEL_RING_MAX_CQ		1048576

/* mmap() offsets of the regions; every one below 2^31. */
#define TWHEEL_OFF_RING_HDR	0x00000000ULL
#define TWHEEL_OFF_SQ(i)	(0x01000000ULL + (__u64)(i) * 0x200000ULL)
#define TWHEEL_OFF_CQ		0x10000000ULL

/* The header region: read-only, written by the kernel only. */
struct twheel_ring_hdr {
	__u64	armed_for;	/* the hrtimer fires no later; ~0: idle */
	__u64	wheel_ns;	/* the wheel has advanced to no later than this */
	__u32	seq;		/* odd while armed_for and wheel_ns change */
	__u32	flags;		/* TWHEEL_RING_* */
	__u32	broken;		/* TWHEEL_BROKEN_SQ | i, or TWHEEL_BROKEN_CQ */
	__u32	__pad0[9];
	__u32	capacity;
	__u32	nr_sq;
	__u32	sq_entries;
	__u32	cq_entries;
	__u32	clockid;
	__u32	__pad1;
	__u64	resolution_ns;
	__u32	sq_bytes;
	__u32	cq_bytes;
	__s64	timens_offset_ns; /* setup's time namespace offset */
	__u64	__reserved0[2];
	__u64	posted;		/* events and results written to the CQ, ever */
	__u64	waited;		/* events that waited for CQ room, ever */
	__u64	waiting;	/* events waiting for CQ room now */
	__u64	errors;		/* entries that failed, ever */
};

#define TWHEEL_RING_NEED_ENTER	(1U << 0)	/* call TWHEEL_IOC_RING_ENTER */
#define TWHEEL_RING_NEED_FLUSH	(1U << 1)	/* events wait for CQ room: enter */
#define TWHEEL_RING_BROKEN	(1U << 2)	/* corrupt shared memory: rings unusable */
#define TWHEEL_RING_NEED_ARM	(1U << 3)	/* periodic slots wait: the CQ's reader enters */

#define TWHEEL_BROKEN_SQ	0x100U		/* | the SQ's index */
#define TWHEEL_BROKEN_CQ	0x200U

/* At offset 0 of each SQ and of the CQ region; entries follow at 128. */
struct twheel_ring_ctl {
	__u32	head;		/* SQ: the kernel writes; CQ: the user writes */
	__u32	__pad0[15];
	__u32	tail;		/* SQ: the user writes; CQ: the kernel writes */
	__u32	__pad1[15];
};

struct twheel_sqe {
	__u8	op;		/* TWHEEL_SQE_START or TWHEEL_SQE_STOP */
	__u8	flags;		/* TWHEEL_SQE_* */
	__u16	gen;		/* the slot's generation */
	__u32	slot;		/* below capacity */
	__u64	cookie;		/* START: carried into events; STOP: into its result */
	__u64	when;		/* START: ns on the clock, absolute; STOP: 0 */
	__u64	arg;		/* START: slack, or PERIODIC's period; STOP: 0 */
};

#define TWHEEL_SQE_START	1
#define TWHEEL_SQE_STOP		2

#define TWHEEL_SQE_REPLACE	(1U << 0)	/* re-arm a busy slot of the same gen */
#define TWHEEL_SQE_PERIODIC	(1U << 1)	/* arg is the period: needs SETUP_PERIODIC */
#define TWHEEL_SQE_RESULT	(1U << 2)	/* post a result on success too */
/* (1U << 7) is never the kernel's: libtimingwheel marks entries with it. */

struct twheel_cqe {
	__u64	cookie;		/* the timer's; the entry's for a result */
	__u64	due;		/* EXPIRY: ns this expiry was due */
	__u64	fired;		/* EXPIRY: ns it fired */
	__u64	overrun;	/* EXPIRY: periods missed before this one */
	__u32	slot;
	__u16	gen;
	__u16	flags;		/* TWHEEL_CQE_* */
	__s32	res;		/* RESULT: 0, TWHEEL_STOPPED_*, or -errno */
	__u16	sq;		/* RESULT: the entry's SQ */
	__u16	__reserved;
};

#define TWHEEL_CQE_EXPIRY	(1U << 0)
#define TWHEEL_CQE_RESULT	(1U << 1)	/* an entry's error, or asked for */
#define TWHEEL_CQE_PERIODIC	(1U << 2)	/* EXPIRY: the slot is armed again */
#define TWHEEL_CQE_WAITED	(1U << 4)	/* waited in the kernel for room */

#define TWHEEL_IOC_MAGIC	0xB9
#define TWHEEL_IOC_SET_CONFIG	_IOW(TWHEEL_IOC_MAGIC, 0x00, struct twheel_config)
#define TWHEEL_IOC_GET_INFO	_IOR(TWHEEL_IOC_MAGIC, 0x01, struct twheel_info)
#define TWHEEL_IOC_START	_IOW(TWHEEL_IOC_MAGIC, 0x02, struct twheel_timer_spec)
#define TWHEEL_IOC_STOP		_IOW(TWHEEL_IOC_MAGIC, 0x03, struct twheel_stop)
/* 0x04 was BATCH of 40-byte entries, before slack: never reused. */
#define TWHEEL_IOC_BATCH	_IOW(TWHEEL_IOC_MAGIC, 0x06, struct twheel_batch)
#define TWHEEL_IOC_QUERY	_IOWR(TWHEEL_IOC_MAGIC, 0x05, struct twheel_query)
#define TWHEEL_IOC_RING_SETUP	_IOWR(TWHEEL_IOC_MAGIC, 0x07, struct twheel_ring_setup)
#define TWHEEL_IOC_RING_ENTER	_IO(TWHEEL_IOC_MAGIC, 0x08)

#endif /* _UAPI_LINUX_TIMINGWHEEL_H */
