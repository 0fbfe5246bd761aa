// SPDX-License-Identifier: GPL-2.0
/*
 * timingwheel_kbench: the kernel-side cost of the device's operations.
 *
 * At load, on a client of its own, it times the very functions the ioctls
 * and read() call (tw_client.h), so that what it reports is the device's
 * own path less the copies to and from userspace and the system call:
 * allocation and memcg charge, the id index, the wheel, the lock and the
 * hrtimer's programming included.  Like the benchmark modules of the
 * kernel's lib/, it prints its results and stays loaded doing nothing;
 * unload it to run it again.
 *
 * One line per operation, in a format that tools parse:
 *
 *   KBENCH <op> ns_per_op=<float> ops=<n>
 *
 *   start        TWHEEL_IOC_START of one timer, ns per call
 *   stop         TWHEEL_IOC_STOP of one pending timer, ns per call
 *   batch_start  TWHEEL_IOC_BATCH of @nr starts, ns per timer
 *   batch_stop   TWHEEL_IOC_BATCH of @nr stops of pending timers, ns per timer
 *   expire       the hrtimer callback's work for a burst of @nr timers due
 *                at one tick, ns per timer fired
 *   read         read() of that burst's @nr events, ns per event
 *   ring_start   TWHEEL_IOC_RING_ENTER applying @nr start entries of one
 *                SQ, ns per entry
 *   ring_stop    the same for @nr stops of pending slots
 *   ring_expire  the callback's work for a burst of @nr ring timers due
 *                at one tick, each posted to the CQ, ns per timer
 *   ring_enter   a TWHEEL_IOC_RING_ENTER with nothing to do, ns per call
 *
 * Each is the best of @reps runs.  Next to them, measured in the same run,
 * a baseline for a start and a stop: what the kernel pays for one hrtimer
 * per timer, as timerfd does (KBENCH-BASE lines, not part of the format).
 * And the primitives of a single START or STOP, to say where its cost
 * goes: a spin_lock_bh()/spin_unlock_bh() pair (lock_bh) and a
 * ktime_get_ns() (clock), paid once per call, and a memcg-charged object
 * of a timer's size allocated and freed (slab_one), a START's allocation
 * and a STOP's free, once per timer.  And the wheel alone as the module
 * compiles it: tw_start() and tw_stop() of the ring runs' ticks on a bare
 * struct tw_wheel, per pair (wheel_pair), the floor under a ring start
 * and stop.  In the test guests these lines
 * become TW-KBENCH and TW-KBENCH-BASE markers (scripts/guest/markers.txt).
 *
 * Everything runs in the insmod process, preemptible, as the ioctls do;
 * the expiry with bottom halves off, as the softirq runs it.  The burst's
 * timers are due 50 ms ahead, in the wheel's first level, and the client's
 * hrtimer is cancelled while they wait, so that the benchmark, not the
 * softirq, fires them.  Timers of the start and stop runs are due 1 to 1.4
 * s ahead, spread over 4096 wheel ticks of the default 1 ms resolution.
 */
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "tw_client.h"
#include "tw_compat.h"
#include "tw_ring.h"
/* The wheel alone (kb_wheel()), compiled as the module compiles it. */
#include "tw_core.c"

static unsigned int nr = 4096;
module_param(nr, uint, 0444);
MODULE_PARM_DESC(nr, "timers per run (default 4096)");

static unsigned int reps = 5;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "runs of each operation; the best is reported (default 5)");

static unsigned int spread = 1;
module_param(spread, uint, 0444);
MODULE_PARM_DESC(spread, "above 1, the ring runs scatter their nr slots over nr * spread, rounded up to a power of 2 (default 1: slots 0 to nr - 1)");

static unsigned int profile;
module_param(profile, uint, 0444);
MODULE_PARM_DESC(profile, "extra rounds of ring starts and stops alone, for a profiler (default 0)");

/* How far ahead the burst of the expiry run is due. */
#define KB_BURST_AHEAD_NS	(50 * NSEC_PER_MSEC)

enum kb_op {
	KB_START,
	KB_STOP,
	KB_BATCH_START,
	KB_BATCH_STOP,
	KB_EXPIRE,
	KB_READ,
	KB_HRTIMER_START,
	KB_HRTIMER_CANCEL,
	KB_LOCK_BH,
	KB_CLOCK,
	KB_SLAB_ONE,
	KB_WHEEL_PAIR,
	KB_RING_START,
	KB_RING_STOP,
	KB_RING_EXPIRE,
	KB_RING_ENTER,
	KB_NR_OPS,
};

static const char *const kb_names[KB_NR_OPS] = {
	[KB_START]		= "KBENCH start",
	[KB_STOP]		= "KBENCH stop",
	[KB_BATCH_START]	= "KBENCH batch_start",
	[KB_BATCH_STOP]		= "KBENCH batch_stop",
	[KB_EXPIRE]		= "KBENCH expire",
	[KB_READ]		= "KBENCH read",
	[KB_HRTIMER_START]	= "KBENCH-BASE hrtimer_start",
	[KB_HRTIMER_CANCEL]	= "KBENCH-BASE hrtimer_cancel",
	[KB_LOCK_BH]		= "KBENCH-BASE lock_bh",
	[KB_CLOCK]		= "KBENCH-BASE clock",
	[KB_SLAB_ONE]		= "KBENCH-BASE slab_one",
	[KB_WHEEL_PAIR]		= "KBENCH-BASE wheel_pair",
	[KB_RING_START]		= "KBENCH ring_start",
	[KB_RING_STOP]		= "KBENCH ring_stop",
	[KB_RING_EXPIRE]	= "KBENCH ring_expire",
	[KB_RING_ENTER]		= "KBENCH ring_enter",
};

/**
 * struct kb - one benchmark's state
 * @c:     the client under test
 * @ops:   @nr batch entries, in kernel memory
 * @ev:    room for @nr events
 * @hr:    @nr hrtimers for the baseline
 * @rc:    the client with rings
 * @sq:    its SQ's control block, through the kernel's mapping
 * @sqes:  its SQ's entries
 * @cq:    its CQ's control block
 * @tail:  the SQ tail the benchmark last stored
 * @mask:  the SQ's entries less one
 * @gen:   the generation of the current round's starts
 * @best:  per operation, the best ns per operation so far, times 10
 * @count: per operation, the operations of that best run
 * @err:   the first thing that went wrong, or 0
 */
struct kb {
	struct tw_client	*c;
	struct twheel_op		*ops;
	struct twheel_event		*ev;
	struct hrtimer		*hr;
	struct tw_client	*rc;
	struct twheel_ring_ctl	*sq;
	struct twheel_sqe	*sqes;
	struct twheel_ring_ctl	*cq;
	u32			tail;
	u32			mask;
	u16			gen;
	u64			best[KB_NR_OPS];
	u64			count[KB_NR_OPS];
	int			err;
};

/* Record a run of @op: @n operations in @ns. */
static void kb_record(struct kb *kb, enum kb_op op, u64 ns, u64 n)
{
	u64 per10;

	if (!n)
		return;
	per10 = div64_u64(ns * 10, n);
	if (!kb->count[op] || per10 < kb->best[op]) {
		kb->best[op] = per10;
		kb->count[op] = n;
	}
}

static void kb_fail(struct kb *kb, const char *what, long got)
{
	if (!kb->err)
		pr_err("timingwheel_kbench: %s: %ld\n", what, got);
	kb->err = -EIO;
}

/* Timer @i of the start and stop runs: 1 to 1.4 s ahead, scattered. */
static u64 kb_value(unsigned int i)
{
	return NSEC_PER_SEC + (u64)((i * 2654435761U) % 4096) * 100 * NSEC_PER_USEC;
}

static int kb_get(void *arg, unsigned int done, struct twheel_op *ops,
		  unsigned int n)
{
	struct kb *kb = arg;

	memcpy(ops, kb->ops + done, n * sizeof(*ops));
	return 0;
}

static int kb_put(void *arg, unsigned int done, const struct twheel_op *ops,
		  unsigned int n)
{
	struct kb *kb = arg;
	unsigned int i;

	for (i = 0; i < n; i++)
		kb->ops[done + i].result = ops[i].result;
	return 0;
}

static const struct tw_batch_io kb_io = {
	.get	= kb_get,
	.put	= kb_put,
};

static int kb_copy(void *arg, size_t done, const struct twheel_event *ev,
		   unsigned int n)
{
	struct kb *kb = arg;

	memcpy(kb->ev + done, ev, n * sizeof(*ev));
	return 0;
}

/* START and STOP of one timer at a time, as the ioctls do. */
static void kb_one_by_one(struct kb *kb)
{
	struct twheel_op op = { .op = TWHEEL_OP_START };
	unsigned int i;
	u64 t0, t1, t2;
	int ret;

	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++) {
		op.id = i;
		op.value = kb_value(i);
		tw_client_apply(kb->c, &op, 1);
		if (op.result)
			kb_fail(kb, "start", op.result);
	}
	t1 = ktime_get_ns();
	for (i = 0; i < nr; i++) {
		ret = tw_client_stop(kb->c, i);
		if (ret != TWHEEL_STOPPED_PENDING)
			kb_fail(kb, "stop", ret);
	}
	t2 = ktime_get_ns();
	kb_record(kb, KB_START, t1 - t0, nr);
	kb_record(kb, KB_STOP, t2 - t1, nr);
}

/* One batch of @nr entries of @op, due @value (with @flags) if a start. */
static u64 kb_batch(struct kb *kb, u32 op, u32 flags, u64 value)
{
	unsigned int i;
	long ret;
	u64 t0;

	for (i = 0; i < nr; i++) {
		memset(&kb->ops[i], 0, sizeof(kb->ops[i]));
		kb->ops[i].op = op;
		kb->ops[i].id = i;
		if (op == TWHEEL_OP_START) {
			kb->ops[i].flags = flags;
			kb->ops[i].value = value ? value : kb_value(i);
		}
	}
	t0 = ktime_get_ns();
	ret = tw_client_batch(kb->c, nr, &kb_io, kb);
	t0 = ktime_get_ns() - t0;
	if (ret)
		kb_fail(kb, "batch", ret);
	for (i = 0; i < nr; i++)
		if (kb->ops[i].result != (op == TWHEEL_OP_START ? 0 : TWHEEL_STOPPED_PENDING))
			kb_fail(kb, "batch entry", kb->ops[i].result);
	return t0;
}

/*
 * Fire @c's burst due at @due as the callback would, bottom halves off:
 * the benchmark, not the client's softirq, once the time has come.
 */
static void kb_fire(struct kb *kb, struct tw_client *c, u64 due, enum kb_op op)
{
	struct twheel_info info;
	unsigned int n, calls = 0;
	u64 t0;

	hrtimer_cancel(&c->hrtimer);
	while (ktime_get_ns() < due + NSEC_PER_MSEC)
		msleep(1 + div64_u64(due + NSEC_PER_MSEC - ktime_get_ns(), NSEC_PER_MSEC));

	local_bh_disable();
	t0 = ktime_get_ns();
	/* Until a call finds nothing: its count also has a ring's postings. */
	do {
		n = tw_client_expire(c);
	} while (n && ++calls <= nr);
	t0 = ktime_get_ns() - t0;
	local_bh_enable();
	tw_client_info(c, &info);
	if (info.pending)
		kb_fail(kb, "expire", info.pending);
	kb_record(kb, op, t0, nr);
}

/* A burst of @nr timers due at one tick: fire them, then read them. */
static void kb_burst(struct kb *kb)
{
	u64 due = ktime_get_ns() + KB_BURST_AHEAD_NS, t0;
	ssize_t got;

	kb_batch(kb, TWHEEL_OP_START, TWHEEL_TIMER_ABSTIME, due);
	kb_fire(kb, kb->c, due, KB_EXPIRE);

	mutex_lock(&kb->c->read_mutex);
	t0 = ktime_get_ns();
	got = tw_client_read(kb->c, nr, kb_copy, kb);
	t0 = ktime_get_ns() - t0;
	mutex_unlock(&kb->c->read_mutex);
	if (got != nr)
		kb_fail(kb, "read", got);
	kb_record(kb, KB_READ, t0, got > 0 ? got : 0);
}

static enum hrtimer_restart kb_hrtimer_fn(struct hrtimer *hr)
{
	return HRTIMER_NORESTART;
}

/* The baseline: one hrtimer per timer, started and cancelled. */
static void kb_hrtimers(struct kb *kb)
{
	u64 now = ktime_get_ns(), t0, t1, t2;
	unsigned int i;

	for (i = 0; i < nr; i++)
		tw_hrtimer_setup(&kb->hr[i], kb_hrtimer_fn, CLOCK_MONOTONIC,
				 HRTIMER_MODE_ABS_SOFT);
	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++)
		hrtimer_start(&kb->hr[i], ns_to_ktime(now + kb_value(i)),
			      HRTIMER_MODE_ABS_SOFT);
	t1 = ktime_get_ns();
	for (i = 0; i < nr; i++)
		hrtimer_cancel(&kb->hr[i]);
	t2 = ktime_get_ns();
	kb_record(kb, KB_HRTIMER_START, t1 - t0, nr);
	kb_record(kb, KB_HRTIMER_CANCEL, t2 - t1, nr);
}

/* The lock of kb_primitives(): a static one, as lockdep wants. */
static DEFINE_SPINLOCK(kb_lock);

/*
 * The primitives a single START or STOP pays, @nr times each: the lock
 * and the clock read once per call (a batch once per chunk), the slab
 * object once per timer.
 */
static void kb_primitives(struct kb *kb)
{
	unsigned int i;
	u64 t0, t1, t2, t3;
	void *obj;

	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++) {
		spin_lock_bh(&kb_lock);
		spin_unlock_bh(&kb_lock);
	}
	t1 = ktime_get_ns();
	for (i = 0; i < nr; i++)
		ktime_get_ns();
	t2 = ktime_get_ns();
	for (i = 0; i < nr; i++) {
		/*
		 * The size of a struct tw_ktimer (tw_client.c), charged to the
		 * memory cgroup as the device's own cache is; kmalloc's cache
		 * of that size stands in for it, which is private.
		 */
		obj = kmalloc(56, GFP_KERNEL_ACCOUNT);
		if (!obj)
			kb_fail(kb, "kmalloc", -ENOMEM);
		kfree(obj);
	}
	t3 = ktime_get_ns();
	kb_record(kb, KB_LOCK_BH, t1 - t0, nr);
	kb_record(kb, KB_CLOCK, t2 - t1, nr);
	kb_record(kb, KB_SLAB_ONE, t3 - t2, nr);
}

/*
 * tw_start() and tw_stop() of @nr timers on a wheel of their own, at the
 * ticks the ring runs use: what the rings' starts and stops cost above it
 * is theirs.  ns per pair.
 */
static void kb_wheel(struct kb *kb)
{
	static const u8 bits[TW_DEFAULT_LEVELS] = { [0 ... TW_DEFAULT_LEVELS - 1] =
						    TW_DEFAULT_LEVEL_BITS };
	struct tw_timer *t = kvcalloc(nr, sizeof(*t), GFP_KERNEL);
	struct tw_wheel *w = kzalloc(sizeof(*w), GFP_KERNEL);
	u64 now = div_u64(ktime_get_ns(), NSEC_PER_MSEC), t0;
	unsigned int i;
	int bad = 0;

	if (!t || !w || tw_init(w, bits, TW_DEFAULT_LEVELS, now)) {
		kb_fail(kb, "wheel", -ENOMEM);
		goto out;
	}
	for (i = 0; i < nr; i++)
		tw_timer_init(&t[i]);
	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++)
		bad |= tw_start(w, &t[i], now + div_u64(kb_value(i), NSEC_PER_MSEC));
	for (i = 0; i < nr; i++)
		bad |= !tw_stop(w, &t[i]);
	kb_record(kb, KB_WHEEL_PAIR, ktime_get_ns() - t0, nr);
	if (bad)
		kb_fail(kb, "wheel start or stop", bad);
out:
	kfree(w);
	kvfree(t);
}

/* The ring slots of the ring runs: nr * spread of them. */
static u32 kb_ring_capacity(void)
{
	return spread > 1 ? roundup_pow_of_two(nr * spread) : nr;
}

/*
 * The slot of the ring runs' @i-th entry: @i, or with a spread, @i times
 * an odd constant modulo the capacity, a power of 2, so that each of the
 * @nr entries still has a slot of its own.
 */
static u32 kb_ring_slot(unsigned int i)
{
	return spread > 1 ? (i * 2654435761U) & (kb_ring_capacity() - 1) : i;
}

/* The rings' client: its slots, one SQ of @nr entries, a CQ of as many. */
static int kb_ring_setup(struct kb *kb)
{
	struct twheel_ring_setup p = {
		.capacity	= kb_ring_capacity(),
		.nr_sq		= 1,
		.sq_entries	= roundup_pow_of_two(max_t(u32, nr, TWHEEL_RING_MIN_ENTRIES)),
		.cq_entries	= roundup_pow_of_two(max_t(u32, nr, TWHEEL_RING_MIN_ENTRIES)),
	};
	struct tw_ring *r;
	int ret;

	kb->rc = tw_client_create();
	if (IS_ERR(kb->rc)) {
		ret = PTR_ERR(kb->rc);
		kb->rc = NULL;
		return ret;
	}
	ret = tw_client_ring_setup(kb->rc, &p);
	if (ret)
		return ret;
	r = tw_client_ring(kb->rc);
	kb->sq = tw_ring_kaddr(r, TWHEEL_OFF_SQ(0));
	kb->cq = tw_ring_kaddr(r, TWHEEL_OFF_CQ);
	if (!kb->sq || !kb->cq)
		return -EIO;
	kb->sqes = (struct twheel_sqe *)(kb->sq + 1);
	kb->mask = p.sq_entries - 1;
	return 0;
}

/* Fill the SQ with @nr entries of @op, all due @due if starts (0: spread). */
static void kb_ring_fill(struct kb *kb, u8 op, u64 due)
{
	u64 now = ktime_get_ns();
	struct twheel_sqe *e;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		e = &kb->sqes[(kb->tail + i) & kb->mask];
		memset(e, 0, sizeof(*e));
		e->op = op;
		e->slot = kb_ring_slot(i);
		e->gen = kb->gen;
		e->cookie = i;
		if (op == TWHEEL_SQE_START)
			e->when = due ? due : now + kb_value(i);
	}
	kb->tail += nr;
	/* The entries are written before the kernel sees the tail. */
	smp_store_release(&kb->sq->tail, kb->tail);
}

/* Whether @pending slots are pending and no result or error was posted. */
static void kb_ring_check(struct kb *kb, const char *what, u64 pending)
{
	struct twheel_info info;

	tw_client_info(kb->rc, &info);
	if (info.pending != pending)
		kb_fail(kb, what, info.pending);
	if (READ_ONCE(kb->cq->tail) != READ_ONCE(kb->cq->head))
		kb_fail(kb, what, READ_ONCE(kb->cq->tail) - READ_ONCE(kb->cq->head));
}

/* One RING_ENTER applying the SQ's @nr entries of @op; its ns. */
static u64 kb_ring_apply(struct kb *kb, u8 op, u64 due)
{
	long ret;
	u64 t0;

	kb_ring_fill(kb, op, due);
	t0 = ktime_get_ns();
	ret = tw_client_ring_enter(kb->rc);
	t0 = ktime_get_ns() - t0;
	if (ret)
		kb_fail(kb, "ring enter", ret);
	return t0;
}

/* Starts, stops, an empty ENTER, then a burst through the CQ. */
static void kb_ring(struct kb *kb)
{
	u64 due, t0;
	unsigned int i;
	long ret = 0;

	kb->gen++;
	kb_record(kb, KB_RING_START, kb_ring_apply(kb, TWHEEL_SQE_START, 0), nr);
	kb_ring_check(kb, "ring start", nr);
	kb_record(kb, KB_RING_STOP, kb_ring_apply(kb, TWHEEL_SQE_STOP, 0), nr);
	kb_ring_check(kb, "ring stop", 0);

	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++)
		ret |= tw_client_ring_enter(kb->rc);
	kb_record(kb, KB_RING_ENTER, ktime_get_ns() - t0, nr);
	if (ret)
		kb_fail(kb, "empty ring enter", ret);

	kb->gen++;
	due = ktime_get_ns() + KB_BURST_AHEAD_NS;
	kb_ring_apply(kb, TWHEEL_SQE_START, due);
	kb_fire(kb, kb->rc, due, KB_RING_EXPIRE);
	if (READ_ONCE(kb->cq->tail) - READ_ONCE(kb->cq->head) != nr)
		kb_fail(kb, "ring expire", READ_ONCE(kb->cq->tail) - READ_ONCE(kb->cq->head));
	/* The consumer read every event: the CQ is empty again. */
	smp_store_release(&kb->cq->head, READ_ONCE(kb->cq->tail));
}

/* What tw_ring_size() charges for a few setups, per timer of capacity. */
static void kb_ring_memory(void)
{
	static const u32 cfg[][4] = {
		{ 4096, 1, 256, 512 },
		{ 65536, 2, 1024, 4096 },
		{ 1048576, 8, 4096, 16384 },
	};
	struct twheel_ring_setup p;
	unsigned int i;
	u64 per100;

	for (i = 0; i < ARRAY_SIZE(cfg); i++) {
		p = (struct twheel_ring_setup) {
			.capacity = cfg[i][0], .nr_sq = cfg[i][1],
			.sq_entries = cfg[i][2], .cq_entries = cfg[i][3],
		};
		if (tw_ring_size(&p))
			continue;
		per100 = div_u64(p.memory * 100, p.capacity);
		pr_info("KBENCH-MEM capacity=%u nr_sq=%u sq_entries=%u cq_entries=%u bytes=%llu per_timer=%llu.%02llu\n",
			p.capacity, p.nr_sq, p.sq_entries, p.cq_entries, p.memory,
			div_u64(per100, 100), per100 % 100);
	}
}

/* Ring starts and stops alone, @profile rounds, for perf to sample. */
static void kb_profile(struct kb *kb)
{
	unsigned int rep;

	for (rep = 0; rep < profile && !kb->err; rep++) {
		kb->gen++;
		kb_ring_apply(kb, TWHEEL_SQE_START, 0);
		kb_ring_apply(kb, TWHEEL_SQE_STOP, 0);
		cond_resched();
	}
}

static void kb_run(struct kb *kb)
{
	unsigned int rep;

	kb_profile(kb);

	for (rep = 0; rep < reps && !kb->err; rep++) {
		kb_one_by_one(kb);
		kb_record(kb, KB_BATCH_START, kb_batch(kb, TWHEEL_OP_START, 0, 0), nr);
		kb_record(kb, KB_BATCH_STOP, kb_batch(kb, TWHEEL_OP_STOP, 0, 0), nr);
		kb_burst(kb);
		kb_hrtimers(kb);
		kb_primitives(kb);
		kb_wheel(kb);
		kb_ring(kb);
		cond_resched();
	}
}

static void kb_report(const struct kb *kb)
{
	enum kb_op op;

	for (op = 0; op < KB_NR_OPS; op++)
		pr_info("%s ns_per_op=%llu.%llu ops=%llu\n", kb_names[op],
			div_u64(kb->best[op], 10), kb->best[op] % 10,
			kb->count[op]);
}

static int __init kb_init(void)
{
	struct kb *kb;
	int ret;

	if (!nr || nr > TWHEEL_RING_MAX_SQ_ENTRIES || !reps || !spread ||
	    spread > TWHEEL_RING_MAX_CAPACITY / nr)
		return -EINVAL;
	kb = kzalloc(sizeof(*kb), GFP_KERNEL);
	if (!kb)
		return -ENOMEM;
	kb->ops = kvcalloc(nr, sizeof(*kb->ops), GFP_KERNEL);
	kb->ev = kvcalloc(nr, sizeof(*kb->ev), GFP_KERNEL);
	kb->hr = kvcalloc(nr, sizeof(*kb->hr), GFP_KERNEL);
	kb->c = tw_client_create();
	ret = IS_ERR(kb->c) ? PTR_ERR(kb->c) : 0;
	if (!ret && (!kb->ops || !kb->ev || !kb->hr))
		ret = -ENOMEM;
	if (!ret)
		ret = kb_ring_setup(kb);
	if (!ret) {
		kb_run(kb);
		ret = kb->err;
	}
	if (!ret) {
		kb_report(kb);
		kb_ring_memory();
	}
	if (kb->rc)
		tw_client_destroy(kb->rc);
	if (!IS_ERR(kb->c))
		tw_client_destroy(kb->c);
	kvfree(kb->hr);
	kvfree(kb->ev);
	kvfree(kb->ops);
	kfree(kb);
	return ret;
}

static void __exit kb_exit(void)
{
}

module_init(kb_init);
module_exit(kb_exit);

MODULE_DESCRIPTION("timingwheel: kernel-side benchmark of the device's operations");
MODULE_LICENSE("GPL");
