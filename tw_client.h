/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A timingwheel client: its operations on kernel memory, for
 * /dev/timingwheel (tw_chardev.c) and the kernel-side benchmark
 * (tw_kbench.c).  See "DOC: Overview" in tw_client.c.
 */
#ifndef _TW_CLIENT_H
#define _TW_CLIENT_H

#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <uapi/linux/timingwheel.h>

#include "tw_core.h"
#include "tw_div.h"
#include "tw_ids.h"

/* Batch entries per lock hold; a read takes half as many events. */
#define TW_CHUNK		32
/*
 * Ring entries per lock hold of a system call: a ring entry costs the
 * lock's holder a fifth of a batch entry (tw_kbench), so four times as
 * many hold it for less time.
 */
#define TW_RING_CHUNK		(4 * TW_CHUNK)

/*
 * A build for the kernel-side benchmark (make TW_KBENCH=1) exports the
 * client's operations to timingwheel_kbench.ko; the device's own build
 * exports nothing, and only checks that the symbol exists.
 */
#ifdef TW_KBENCH
#define EXPORT_SYMBOL_TW_KBENCH(sym)	EXPORT_SYMBOL_GPL(sym)
#else
#define EXPORT_SYMBOL_TW_KBENCH(sym)	static_assert(sizeof(typeof(sym) *))
#endif

struct tw_ring;
struct tw_user;

/*
 * Allocations a caller causes: charged to its memory cgroup, and allowed to
 * fail rather than invoke the OOM killer, globally or in the cgroup.
 */
#define TW_GFP			(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/**
 * struct tw_when - where a START puts its timer: at a tick in [@lo, @hi],
 *                  then every @interval
 * @lo:       the first tick the timer may fire at
 * @hi:       the last one; the wheel arms it at the roundest tick of the
 *            range, tw_roundest()'s
 * @interval: its period in ticks, 0 for one-shot
 *
 * On the stack of the task starting the timer: no lock guards it.
 */
struct tw_when {
	u64	lo;
	u64	hi;
	u64	interval;
};

/**
 * struct tw_client - one client: an open file of /dev/timingwheel, or the
 *                    benchmark's
 * @lock:       the client's spinlock ("DOC: Locking" in tw_client.c)
 * @wheel:      the timing wheel of ARMED timers; @lock
 * @ids:        every timer by id, but NEW and STOPPED ones; @lock.
 *              tw_ids_prepare() reads its size without it, as a hint
 * @events:     QUEUED timers in firing order; @lock
 * @nr_timers:  timers that exist, in any state; @lock
 * @nr_queued:  timers on @events; written under @lock, also read without
 *              it (READ_ONCE()) by tw_client_read() and tw_poll()
 * @nr_wakeups: runs of tw_client_expire(), ever; @lock
 * @resolution: ns per wheel tick; @lock, and fixed once @started
 * @res_inv:    tw_div_inv(@resolution), set with it
 * @fire_ns:    the clock at the current advance, for tw_fire(); @lock
 * @clockid:    CLOCK_MONOTONIC or CLOCK_BOOTTIME; as @resolution
 * @started:    a timer was started once: the clock is fixed; @lock
 * @hrtimer:    drives the wheel; programmed and cancelled under @lock
 * @wq:         readers and pollers waiting for events; its own lock
 * @read_mutex: serialises reads' copies out, so that events leave in
 *              order; never held while waiting for events
 * @user:       the creator's limits; immutable after tw_client_create()
 * @ring:       its shared-memory rings, or NULL; set once, under @lock,
 *              by tw_client_ring_setup(), and freed with the client; read
 *              without @lock with smp_load_acquire()
 * @ring_timers: what the rings count against max_user_timers; set with
 *              @ring
 * @serial:     the client's number, unique since the module was loaded:
 *              its trace events' client= and its fdinfo's "client:";
 *              immutable after tw_client_create()
 *
 * Until tw_client_create() returns it, and in tw_client_destroy(), nothing
 * else can reach the client: those two set up and tear down without @lock.
 */
struct tw_client {
	spinlock_t		lock;		/* see the kernel-doc above */
	struct tw_wheel		wheel;
	struct tw_ids		ids;
	struct list_head	events;
	u64			nr_timers;
	u64			nr_queued;
	u64			nr_wakeups;
	u64			resolution;
	u64			res_inv;
	u64			fire_ns;
	clockid_t		clockid;
	bool			started;
	struct hrtimer		hrtimer;
	wait_queue_head_t	wq;
	struct mutex		read_mutex;	/* see the kernel-doc above */
	struct tw_user		*user;
	struct tw_ring		*ring;
	u64			ring_timers;
	u64			serial;
};

/**
 * struct tw_batch_io - where a batch's entries come from and go back to
 * @get: copy entries [@done, @done + @n) of the batch into @ops; 0 or -errno
 * @put: write the results of those entries back from @ops; 0 or -errno
 *
 * Both are called without the client's lock, and may sleep.
 */
struct tw_batch_io {
	int (*get)(void *arg, unsigned int done, struct twheel_op *ops,
		   unsigned int n);
	int (*put)(void *arg, unsigned int done, const struct twheel_op *ops,
		   unsigned int n);
};

/*
 * Where a read's events go: events [@done, @done + @n) of the read, from
 * @ev.  0 or -errno.  Called without the client's lock; may sleep.
 */
typedef int (*tw_read_copy_fn)(void *arg, size_t done,
			       const struct twheel_event *ev, unsigned int n);

/* The client's rings, or NULL: set once, and then for the file's life. */
static inline struct tw_ring *tw_client_ring(struct tw_client *c)
{
	/* Pairs with the release in tw_client_ring_setup(): rings set up. */
	return smp_load_acquire(&c->ring);
}

int tw_client_init(void);
void tw_client_exit(void);

struct tw_client *tw_client_create(void);
void tw_client_destroy(struct tw_client *c);
int tw_client_set_config(struct tw_client *c, clockid_t clockid, u64 res);
void tw_client_info(struct tw_client *c, struct twheel_info *info);
int tw_client_query(struct tw_client *c, struct twheel_query *q);

void tw_client_apply(struct tw_client *c, struct twheel_op *ops, unsigned int n);
int tw_client_stop(struct tw_client *c, u64 id);
long tw_client_batch(struct tw_client *c, unsigned int count,
		     const struct tw_batch_io *io, void *arg);
unsigned int tw_client_expire(struct tw_client *c);
int tw_client_when(struct tw_client *c, u64 when, u64 slack, u64 every,
		   s64 off, struct tw_when *w);
int tw_client_ring_setup(struct tw_client *c, struct twheel_ring_setup *p);
long tw_client_ring_enter(struct tw_client *c);
__poll_t tw_client_ring_poll(struct tw_client *c);
void tw_client_ring_read(struct tw_client *c);
bool tw_client_ring_stalled(struct tw_client *c);
ssize_t tw_client_read(struct tw_client *c, size_t max, tw_read_copy_fn copy,
		       void *arg);

/*
 * Times to ticks, for the ioctls and the rings alike: tw_ring.c starts a
 * plain timer with these, inline.
 */

/* The first tick at or after @ns: a timer there never fires early. */
static inline u64 tw_tick_ceil(const struct tw_client *c, u64 ns)
{
	u64 rem, tick = tw_div(ns, c->resolution, c->res_inv, &rem);

	return tick + (rem != 0);
}

/*
 * The tick of a timer asked for @ns: the first at or after it, whose time
 * must be a ktime.  0 or -ERANGE.
 */
static inline int tw_due_tick(const struct tw_client *c, u64 ns, u64 *tick)
{
	if (ns > KTIME_MAX)
		return -ERANGE;
	*tick = tw_tick_ceil(c, ns);
	/* Only a time in the last tick of the range can round past its end. */
	if (ns > KTIME_MAX - c->resolution &&
	    *tick > div64_u64(KTIME_MAX, c->resolution))
		return -ERANGE;
	return 0;
}

/*
 * Time namespaces.  The wheel runs on the host's clock; a caller in a time
 * namespace gives and reads times on its own view of the clock, the host's
 * plus an offset (tw_timens_offset()), as with timerfd.  An absolute time
 * before the host clock's zero is simply due; a time that a reader's view
 * would put before its zero reads as 0.
 */
static inline int tw_to_host(u64 ns, s64 off, u64 *host)
{
	if (ns > KTIME_MAX)
		return -ERANGE;
	if (off >= 0)
		*host = ns > (u64)off ? ns - off : 0;
	else if (check_add_overflow(ns, (u64)-off, host))
		return -ERANGE;
	return 0;
}

/* Host time @ns on the view of @off: tw_to_host()'s inverse, 0 at the least. */
static inline u64 tw_to_view(u64 ns, s64 off)
{
	if (off < 0)
		return ns > (u64)-off ? ns + off : 0;
	return ns + off;
}

#endif /* _TW_CLIENT_H */
