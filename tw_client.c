// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: Overview
 *
 * A timingwheel client: the operations behind /dev/timingwheel, on kernel
 * memory only.  tw_chardev.c gives each open file one client and copies
 * the caller's structs in and out; the kernel-side benchmark (tw_kbench.c)
 * calls the same functions on kernel buffers, so that the benchmark
 * measures the device's own paths, less the copies.
 *
 * A client is a timing wheel (tw_core.c), an index of its timers by the
 * 64-bit ids the caller chose (tw_ids.c), a FIFO of fired timers whose
 * events wait to be read, and one hrtimer that drives the wheel.
 *
 * A timer is one 56-byte slab object, charged to the caller's memory cgroup
 * and counted against its user's max_user_timers, that lives from START
 * until its last event is read or it is stopped.
 *
 * The event record is built from the timer itself, so expiry never
 * allocates and no event can be lost: a fired timer is its own queue entry,
 * linked through the wheel node's link, which the wheel lends while the
 * timer is not pending.
 * A periodic timer is re-armed when its event is read, as timerfd does, so
 * an unread periodic timer costs nothing and its missed periods are counted
 * into the event's overrun instead of piling up.
 */

/**
 * DOC: Timer states
 *
 * A timer is in exactly one state (enum tw_state), changed only by
 * tw_timer_set_state() under the client's lock, which warns once on a
 * transition that is not one of these::
 *
 *   from        to        by
 *   ----------  --------  ---------------------------------------------
 *   (slab)      NEW       START takes a spare          tw_start_timer()
 *   NEW         ARMED     START                        tw_arm_range()
 *   ARMED       QUEUED    the wheel fires it           tw_fire()
 *   QUEUED      ARMED     START with REPLACE           tw_arm_queued()
 *   QUEUED      READING   read() takes its event       tw_take_events()
 *   READING     QUEUED    read()'s copy failed         tw_return_events()
 *   READING     ARMED     read() delivered, periodic   tw_arm_next()
 *   READING     STOPPED   STOP during the copy         tw_do_stop()
 *
 * A timer leaves the client, back to the slab, when STOP takes an ARMED or
 * QUEUED one, when read() delivers a one-shot one, and when read() is done
 * with a STOPPED one, whatever its copy's outcome: a STOPPED timer is out
 * of the id index and is never armed or queued again.  START with REPLACE
 * of an ARMED timer moves it in the wheel and keeps its state; of a
 * READING one it is refused (EBUSY).
 */

/**
 * DOC: Time and resolution
 *
 * The wheel's tick is the client's resolution: tick k is the moment
 * the clock reaches k * resolution.  A timer asked for T ns goes to tick
 * ceil(T / resolution), so it never fires before T and at most one
 * resolution step plus hrtimer latency after it, plus the client's backlog
 * if it has one ("DOC: The hrtimer").  That tick is all a timer
 * keeps of its time: its due time, as QUERY and its events report it, is
 * the tick's time, T rounded up to the resolution (as POSIX rounds timer
 * values up to the clock's resolution).  A period must be a whole number
 * of ticks (else EINVAL), so that a periodic timer's expiries are exactly
 * one period apart and never drift from the schedule its first due time
 * set, and a due time that does not fit a ktime after rounding is ERANGE.
 */

/**
 * DOC: The hrtimer
 *
 * It is programmed for the next tick at which the wheel has
 * work, an expiry or a cascade (tw_next_event()), and cancelled when the
 * client has no timers, so an idle client costs nothing.  It runs in softirq
 * mode (HRTIMER_MODE_ABS_SOFT), which is also where PREEMPT_RT runs it, and
 * fires at most expiry_batch timers per callback; the rest of a burst goes
 * to follow-up callbacks TW_BURST_GAP_NS apart, so a million timers due at
 * once cannot hold a CPU in softirq.
 *
 * The wheel moves at most expiry_batch timers down a level per callback
 * too, and goes past a tick only once the slots that came round at it are
 * empty (tw_advance()).  So a backlog, B timers due and not yet fired or
 * in a slot that came round and not yet moved, delays every later timer
 * of the client by up to ceil(B / expiry_batch) callbacks, each
 * TW_BURST_GAP_NS plus its own run: 10,000,000 timers in one slot made a
 * 1 ms periodic timer of the same file 5.49 s late.  Other clients are
 * not delayed.  Bounding it would mean letting the wheel run ahead of a
 * slot it has not emptied, against its invariant ("DOC: Invariant" in
 * tw_core.c).
 */

/**
 * DOC: Locking
 *
 * One spinlock per client, tw_client.lock, taken with _bh from process
 * context, guards the wheel, the event list, the timer states, the
 * hrtimer's programming and the id index; each field's kernel-doc says
 * what guards it.  No hold of it is longer than a small constant: a batch
 * takes it per TW_CHUNK entries, a system call of a ring file per
 * TW_RING_CHUNK ring entries, a read per TW_CHUNK / 2 events, the
 * hrtimer callback for at most expiry_batch expiries, and GET_INFO looks
 * at no more than 2 * TW_INFO_SCAN timers per wheel level.  Nothing is
 * allocated under it: the timers a chunk's starts need, and the memory
 * the id index grows into, are got before it is taken.  What a chunk's
 * stops free, with the index segment they let go (tw_ids_release_seg()),
 * goes back after it is dropped, and a smaller index directory is got
 * and the larger freed the same way; only read() gives the timers of the
 * events it delivered back to the slab under it, one read chunk at a
 * time (kmem_cache_free() does not sleep).  Inside it, only in the
 * hrtimer callback's work (tw_client_expire(), bottom halves off), nests
 * one more: the lock of the user's softirq budget (tw_bucket.lock), held
 * for a refill and a subtraction, or an addition.
 *
 * read() holds tw_client.read_mutex across the copy to userspace, so that
 * concurrent readers see events in order; it never holds it while waiting
 * for events, and an O_NONBLOCK read never sleeps on it.  close() cancels
 * the hrtimer, waiting for a callback in flight, before it frees the
 * timers.
 */

/**
 * DOC: Limits
 *
 * Every allocation a caller causes is charged to its memory cgroup
 * and may fail (__GFP_RETRY_MAYFAIL: the caller gets ENOMEM, nobody is OOM
 * killed on its behalf), and a user's timers take at most a share of the
 * cgroup's limit ("DOC: The timers' share of a memory cgroup" in
 * tw_memcg.c).  Without a cgroup limit, each user (by effective
 * uid at open) may hold at most max_user_timers timers and max_user_files
 * open files, so what one user can pin is bounded (uapi.rst, "Limits").
 */

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/wait.h>
#include <uapi/linux/timingwheel.h>

#include "tw_budget.h"
#include "tw_client.h"
#include "tw_compat.h"
#include "tw_core.h"
#include "tw_div.h"
#include "tw_ids.h"
#include "tw_memcg.h"
#include "tw_ring.h"

#define CREATE_TRACE_POINTS
#include "tw_trace.h"

/* The TWHEEL_TIMER_* flags this module knows: a START with another fails. */
#define TW_TIMER_FLAGS_VALID	(TWHEEL_TIMER_ABSTIME | TWHEEL_TIMER_REPLACE)
/* The pause between two follow-up callbacks of a burst. */
#define TW_BURST_GAP_NS		20000ULL
/*
 * GET_INFO and fdinfo look at no more timers of one wheel level than this,
 * twice that while a cascade is unfinished (tw_next_expiry_within()).
 */
#define TW_INFO_SCAN		64
/* What one timer pins: its object and about one index bucket. */
#define TW_TIMER_COST		(sizeof(struct tw_ktimer) + sizeof(void *))

static unsigned int max_timers = 1U << 20;
module_param(max_timers, uint, 0644);
MODULE_PARM_DESC(max_timers, "most timers one open file may hold (default 1048576)");

/* 0 at load: derived from the machine's memory in tw_client_init(). */
static unsigned long max_user_timers;
module_param(max_user_timers, ulong, 0644);
MODULE_PARM_DESC(max_user_timers,
		 "most timers one user may hold in all its files (default: 4% of memory)");

static unsigned int max_user_files = 1024;
module_param(max_user_files, uint, 0644);
MODULE_PARM_DESC(max_user_files, "most open files one user may have (default 1024)");

static unsigned int default_resolution_ns = 1000000;
module_param(default_resolution_ns, uint, 0644);
MODULE_PARM_DESC(default_resolution_ns,
		 "tick length of a new file, "
		 __stringify(TWHEEL_MIN_RESOLUTION_NS) ".."
		 __stringify(TWHEEL_MAX_RESOLUTION_NS) " ns (default 1 ms)");

static unsigned int expiry_batch = 1024;
module_param(expiry_batch, uint, 0644);
MODULE_PARM_DESC(expiry_batch, "most expiries per hrtimer callback (default 1024)");

static unsigned int ring_budget = 1U << 23;
module_param(ring_budget, uint, 0644);
MODULE_PARM_DESC(ring_budget,
		 "units of softirq work a second one user's ring files may do (default 8388608)");

/*
 * What a ring file's callback spends whatever it does, beside one token
 * per SQ: the call, and the ring work of a chunk (tw_budget.c).
 */
#define TW_BUDGET_CALLBACK	(64 + TW_CHUNK)

/**
 * enum tw_state - the state of a timer (see "DOC: Timer states")
 * @TW_NEW:     a spare being started: in no list, not yet in the index
 * @TW_ARMED:   in the wheel, due at its tick
 * @TW_QUEUED:  fired: on tw_client.events, waiting for read()
 * @TW_READING: taken by a read() that is copying its event to userspace,
 *              on that reader's private list
 * @TW_STOPPED: READING, and taken out of the id index by STOP meanwhile:
 *              the reader frees it
 */
enum tw_state {
	TW_NEW,
	TW_ARMED,
	TW_QUEUED,
	TW_READING,
	TW_STOPPED,
};

/**
 * struct tw_user - what one user holds, across all its files
 * @node:   link in tw_users; guarded by tw_users_lock
 * @uid:    the effective uid of the opener; constant
 * @files:  open files; guarded by tw_users_lock
 * @timers: timers allocated for the user's files, spares included, and
 *          what its ring files count as (tw_client_ring_setup()); atomic,
 *          charged before the client's lock is taken and released where a
 *          timer is freed
 * @ring_timers: the part of @timers that ring files count; atomic
 * @ring_bytes:  the memory those ring files hold; atomic
 * @bucket:      the softirq work its ring files' callbacks may still do
 *               (tw_budget.c); its own lock
 */
struct tw_user {
	struct hlist_node	node;
	kuid_t			uid;
	unsigned int		files;
	atomic_long_t		timers;
	atomic_long_t		ring_timers;
	atomic64_t		ring_bytes;
	struct tw_bucket	bucket;
};

/**
 * struct tw_ktimer - one timer of a client: 56 bytes, with its index
 *                    bucket 64 (TW_TIMER_COST)
 * @node:     the wheel's part; tw_client.lock.  @node.expires is the tick
 *            of the (last) expiry in every state, so the due time is
 *            @node.expires * resolution (tw_due()).  While ARMED,
 *            @node.entry is in the wheel; while QUEUED, @node.link is in
 *            tw_client.events, and while READING or STOPPED in a reader's
 *            private list, owned by that reader; tw_timer_init() before it
 *            is armed again
 * @idn:      the id index's part, with the caller's id; in the index while
 *            ARMED, QUEUED or READING; tw_client.lock
 * @fired:    ns on the clock when the wheel fired it; tw_client.lock
 * @interval: the period in ticks, 0 for one-shot; tw_client.lock
 * @state:    an enum tw_state; tw_client.lock, written only by
 *            tw_timer_set_state()
 */
struct tw_ktimer {
	struct tw_timer		node;
	struct tw_id_node	idn;
	u64			fired;
	u64			interval:61;
	u64			state:3;
};

/*
 * The legal transitions ("DOC: Timer states"): for each state, the states
 * a timer may enter it from.  NEW is entered from whatever a spare's slab
 * object held, so it has none to check.
 */
static const u8 tw_state_from[] = {
	[TW_NEW]	= 0,
	[TW_ARMED]	= BIT(TW_NEW) | BIT(TW_QUEUED) | BIT(TW_READING),
	[TW_QUEUED]	= BIT(TW_ARMED) | BIT(TW_READING),
	[TW_READING]	= BIT(TW_QUEUED),
	[TW_STOPPED]	= BIT(TW_READING),
};

/**
 * tw_timer_set_state - move a timer to another state
 * @c:  the timer's client, its lock held
 * @t:  the timer
 * @to: the new state; a constant, so that the check is one test of
 *      @t->state against a constant mask, and the change one store
 *
 * Every change of a timer's state is made here.  An illegal transition
 * warns once, and is made all the same.
 */
static __always_inline void tw_timer_set_state(struct tw_client *c,
					       struct tw_ktimer *t,
					       enum tw_state to)
{
	lockdep_assert_held(&c->lock);
	if (to != TW_NEW)
		WARN_ON_ONCE(!(tw_state_from[to] & BIT(t->state)));
	t->state = to;
}

/* Any period a caller can give fits @interval, in ticks of 1 us or more. */
static_assert(U64_MAX / TWHEEL_MIN_RESOLUTION_NS < BIT_ULL(61));

/**
 * struct tw_spares - a chunk's dealings with the slab, kept out of the lock:
 *                    the timers allocated for its starts before it, and
 *                    the ones its stops freed, given back after it
 * @t:       the objects: the spares a stack at the bottom, the stopped
 *           timers at the top.  One slot per entry of the chunk is enough
 *           for both, so a chunk of at most TW_CHUNK entries always has
 *           room; the applying task's own
 * @nr:      spares left, in the first slots of @t; the applying task's own
 * @nr_dead: stopped timers, in the last slots of @t: out of the index and
 *           of every list, no longer counted in tw_client.nr_timers, still
 *           charged to the user until tw_free_spares() frees them; the
 *           applying task's own
 * @err:     what a start that finds no spare left fails with: -ENOSPC if
 *           the user's limit held the chunk back, else -ENOMEM; set before
 *           the lock is taken, then read-only
 * @seg:     a segment the id index gave back in the chunk's hold
 *           (tw_ids_release_seg()), or NULL: set under the lock by
 *           tw_apply(), freed after it by tw_free_spares(); the applying
 *           task's own
 *
 * On the stack of the task applying the chunk: no lock guards it, and the
 * timers in it are in no list and not in the index.
 */
struct tw_spares {
	struct tw_ktimer	*t[TW_CHUNK];
	unsigned int		nr;
	unsigned int		nr_dead;
	int			err;
	struct tw_id_seg	*seg;
};

static struct kmem_cache *tw_timer_cache;

/* The last client number given (tw_client.serial). */
static atomic64_t tw_serial = ATOMIC64_INIT(0);

/* Every user with an open file, by uid. */
static DEFINE_HASHTABLE(tw_users, 6);
static DEFINE_SPINLOCK(tw_users_lock);

/*
 * Find or create the opener's entry and count one more file, or fail with
 * -EMFILE at max_user_files.
 */
static struct tw_user *tw_user_get(kuid_t uid)
{
	struct tw_user *u, *new = kzalloc(sizeof(*new), TW_GFP);
	int err = 0;

	if (!new)
		return ERR_PTR(-ENOMEM);
	spin_lock(&tw_users_lock);
	hash_for_each_possible(tw_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = new;
	new = NULL;
	u->uid = uid;
	tw_bucket_init(&u->bucket, ktime_get_ns());
	hash_add(tw_users, &u->node, __kuid_val(uid));
found:
	if (u->files >= READ_ONCE(max_user_files))
		err = -EMFILE;
	else
		WRITE_ONCE(u->files, u->files + 1);
	/* A new entry is only left behind with a file counted. */
	if (err && !u->files) {
		hash_del(&u->node);
		new = u;
	}
	spin_unlock(&tw_users_lock);
	kfree(new);
	return err ? ERR_PTR(err) : u;
}

static void tw_user_put(struct tw_user *u)
{
	spin_lock(&tw_users_lock);
	WRITE_ONCE(u->files, u->files - 1);
	if (u->files) {
		u = NULL;
	} else {
		WARN_ON_ONCE(atomic_long_read(&u->timers));
		hash_del(&u->node);
	}
	spin_unlock(&tw_users_lock);
	kfree(u);
}

/* Charge up to @n timers to @u; return how many its limit allowed. */
static unsigned int tw_user_charge(struct tw_user *u, unsigned int n)
{
	unsigned long max = READ_ONCE(max_user_timers);
	long cur = atomic_long_read(&u->timers);

	do {
		if (cur >= max)
			return 0;
		n = min_t(unsigned long, n, max - cur);
	} while (!atomic_long_try_cmpxchg(&u->timers, &cur, cur + n));
	return n;
}

static void tw_user_uncharge(struct tw_user *u, unsigned long n)
{
	atomic_long_sub(n, &u->timers);
}

static u64 tw_clock_ns(const struct tw_client *c)
{
	return c->clockid == CLOCK_BOOTTIME ? ktime_get_boottime_ns() :
					      ktime_get_ns();
}

/* The due time of @t: its tick's, which is a ktime (tw_due_tick()). */
static u64 tw_due(const struct tw_client *c, const struct tw_ktimer *t)
{
	return t->node.expires * c->resolution;
}

/*
 * The moment tick @tick begins, or, past what a ktime can hold, the last
 * tick that a ktime holds: the furthest a timer can be due (tw_due_tick()).
 */
static u64 tw_tick_ns(const struct tw_client *c, u64 tick)
{
	u64 last = div64_u64(KTIME_MAX, c->resolution);

	return min(tick, last) * c->resolution;
}

static struct tw_ktimer *tw_lookup(struct tw_client *c, u64 id)
{
	struct tw_id_node *idn;

	lockdep_assert_held(&c->lock);
	idn = tw_ids_find(&c->ids, id);

	return idn ? container_of(idn, struct tw_ktimer, idn) : NULL;
}

/* Find timer @id and take it out of the index, in one walk. */
static struct tw_ktimer *tw_take(struct tw_client *c, u64 id)
{
	struct tw_id_node *idn;

	lockdep_assert_held(&c->lock);
	idn = tw_ids_take(&c->ids, id);

	return idn ? container_of(idn, struct tw_ktimer, idn) : NULL;
}

static void tw_free(struct tw_client *c, struct tw_ktimer *t)
{
	lockdep_assert_held(&c->lock);
	kmem_cache_free(tw_timer_cache, t);
	tw_user_uncharge(c->user, 1);
	c->nr_timers--;
}

/*
 * A timer that STOP took out of the index and of every list: it goes back
 * to the slab after the lock, in bulk with the chunk's (tw_free_spares()).
 */
static void tw_free_later(struct tw_client *c, struct tw_spares *spares,
			  struct tw_ktimer *t)
{
	lockdep_assert_held(&c->lock);
	if (WARN_ON_ONCE(spares->nr + spares->nr_dead >= TW_CHUNK)) {
		tw_free(c, t);
		return;
	}
	spares->nr_dead++;
	spares->t[TW_CHUNK - spares->nr_dead] = t;
	c->nr_timers--;
}

/* Forget a timer that is in no list: out of the index, back to the slab. */
static void tw_forget(struct tw_client *c, struct tw_ktimer *t)
{
	tw_ids_remove(&c->ids, &t->idn);
	tw_free(c, t);
}

/* tw_advance() callback: the timer becomes its own event. */
static void tw_fire(struct tw_timer *node, void *data)
{
	struct tw_client *c = data;
	struct tw_ktimer *t = container_of(node, struct tw_ktimer, node);

	lockdep_assert_held(&c->lock);
	if (tw_ring_owns(c->ring, node)) {
		tw_ring_fire(c->ring, c, node);
		return;
	}
	t->fired = c->fire_ns;
	tw_timer_set_state(c, t, TW_QUEUED);
	trace_timingwheel_fire(c, t->idn.id, node->expires, t->fired);
	/* The wheel is done with the node: its link is ours. */
	list_add_tail(&t->node.link, &c->events);
	c->nr_queued++;
}

/* The most timers one catch-up fires: expiry_batch, at least 1. */
static unsigned int tw_expiry_batch(void)
{
	return max(READ_ONCE(expiry_batch), 1U);
}

/*
 * Bring the wheel up to the clock, firing at most @batch timers.  A ring
 * file's rings are consumed first, within @budget units of work, and the
 * wheel stays where it is unless every entry seen was applied ("DOC: Stops
 * that provably win" in tw_ring.c).  Return the number fired and posted;
 * the caller wakes readers after unlocking.
 */
static unsigned int tw_catch_up(struct tw_client *c, u64 now,
				unsigned int budget, unsigned int batch,
				bool callback)
{
	unsigned int fired = 0;
	u64 tick = div64_u64(now, c->resolution);
	bool stalled;

	lockdep_assert_held(&c->lock);
	c->fire_ns = now;
	if (!c->ring)
		return tw_advance(&c->wheel, tick, batch, tw_fire, c);
	stalled = tw_ring_stalled(c->ring);
	if (tw_ring_begin(c->ring, c, now, tick, budget, callback))
		fired = tw_advance(&c->wheel, tick, batch, tw_fire, c);
	fired += tw_ring_end(c->ring);
	/* A change of NEED_ENTER wakes pollers too (a break: tw_wake()). */
	return fired + (stalled != tw_ring_stalled(c->ring));
}

/*
 * The next time the wheel has work at, or U64_MAX for none: a follow-up if
 * timers are due, else its next expiry or cascade.  A stalled ring file
 * waits for a system call instead ("DOC: Softirq work" in tw_ring.c).
 */
static u64 tw_next_work(struct tw_client *c, u64 now)
{
	u64 next;

	lockdep_assert_held(&c->lock);
	if (c->ring && tw_ring_stalled(c->ring))
		return U64_MAX;
	if (tw_has_due(&c->wheel))
		return now + TW_BURST_GAP_NS;
	next = tw_next_event(&c->wheel, U64_MAX);
	return next == TW_NO_EVENT ? U64_MAX : tw_tick_ns(c, next);
}

/*
 * Program the hrtimer for @next, unless it is already programmed no later
 * than that: an early callback costs one wakeup, a late one would make a
 * timer late.  U64_MAX stops it.
 */
static void tw_set_hrtimer(struct tw_client *c, u64 next)
{
	lockdep_assert_held(&c->lock);
	if (next == U64_MAX) {
		/* Traced if it was queued, or is running its last time. */
		if (hrtimer_try_to_cancel(&c->hrtimer))
			trace_timingwheel_hrtimer(c, 0);
		return;
	}
	/* Every start is under the lock, so the queued expiry is current. */
	if (hrtimer_is_queued(&c->hrtimer) &&
	    (u64)hrtimer_get_expires_ns(&c->hrtimer) <= next)
		return;
	hrtimer_start(&c->hrtimer, ns_to_ktime(next), HRTIMER_MODE_ABS_SOFT);
	trace_timingwheel_hrtimer(c, next);
}

/* The host time the hrtimer fires no later than; U64_MAX if it is idle. */
static u64 tw_armed_for(struct tw_client *c)
{
	return hrtimer_is_queued(&c->hrtimer) ?
	       (u64)hrtimer_get_expires_ns(&c->hrtimer) : U64_MAX;
}

/*
 * Rounds of consumption tw_program() makes before it leaves it to a
 * follow-up: with the caller's chunk, one lock hold does at most
 * TW_RING_CHUNK + TW_REPUBLISH * TW_CHUNK units of ring work (rings.rst).
 */
#define TW_REPUBLISH	2

/*
 * A callback leaves the rest to the file's own system calls: NEED_ENTER
 * set, the hrtimer idle (but for what tw_program_callback() says) and
 * that published ("DOC: Softirq work" in tw_ring.c).  Return 1: the
 * caller wakes pollers, for the flag.
 */
static unsigned int tw_callback_stall(struct tw_client *c)
{
	tw_ring_stall(c->ring);
	tw_set_hrtimer(c, U64_MAX);
	tw_ring_publish(c->ring, U64_MAX);
	return 1;
}

/*
 * tw_program() for a ring file's callback: the time it is about to arm is
 * published first, and armed only if that publish finds nothing to
 * consume.  Armed first, as a system call does, the hrtimer could not be
 * taken back by a stall (hrtimer_try_to_cancel() of the running timer
 * fails): one more callback would run on entries alone while the header
 * said idle.  Only an expiry a system call queued while the callback
 * waited for the lock can still outlive a stall.  The value published is
 * the one arming gives tw_armed_for(): @next, or that earlier expiry.
 * Taking the hrtimer back is safe before the publish, so with no work
 * (@next U64_MAX) it is done first, as tw_program() does, for a call
 * outside the hrtimer (tw_kbench.c's), whose cancel succeeds.
 */
static unsigned int tw_program_callback(struct tw_client *c, u64 next)
{
	lockdep_assert_held(&c->lock);
	if (next == U64_MAX)
		tw_set_hrtimer(c, next);
	if (tw_ring_publish(c->ring, min(next, tw_armed_for(c))) &&
	    !tw_ring_stalled(c->ring))
		return tw_callback_stall(c);
	if (next != U64_MAX)
		tw_set_hrtimer(c, next);
	return 0;
}

/*
 * Program the hrtimer for the wheel's next work.  A ring file then
 * publishes it; entries the publish finds (its store-buffering check) are
 * applied at once, and the hrtimer programmed and published again; in a
 * callback they stall it instead (tw_program_callback()).  Return
 * the events posted meanwhile; the caller wakes readers after unlocking
 * (for a break too: tw_took_break()).
 */
static unsigned int tw_program(struct tw_client *c, u64 now, bool callback)
{
	unsigned int k, posted = 0;
	u64 tick;

	if (callback && c->ring)
		return tw_program_callback(c, tw_next_work(c, now));
	tw_set_hrtimer(c, tw_next_work(c, now));
	if (!c->ring)
		return 0;
	tick = div64_u64(now, c->resolution);
	for (k = 0; tw_ring_publish(c->ring, tw_armed_for(c)); k++) {
		if (tw_ring_stalled(c->ring))
			break;
		if (k == TW_REPUBLISH) {
			/* Producers still at it: a follow-up takes the rest. */
			tw_set_hrtimer(c, now + TW_BURST_GAP_NS);
			tw_ring_publish(c->ring, tw_armed_for(c));
			break;
		}
		/* Entries only: the wheel advances at the next point. */
		tw_ring_begin(c->ring, c, now, tick, TW_CHUNK, false);
		posted += tw_ring_end(c->ring);
		tw_set_hrtimer(c, tw_next_work(c, now));
	}
	return posted;
}

/*
 * Whether the rings broke under this lock hold, wherever in its work: a
 * break posts nothing, and is owed a wake-up all the same (tw_wake()).
 */
static bool tw_took_break(struct tw_client *c)
{
	lockdep_assert_held(&c->lock);
	return c->ring && tw_ring_take_break(c->ring);
}

/*
 * Wake readers and pollers, the lock dropped: for events posted or a flag
 * changed (@fired), or for a break (@broke).  A break's key has EPOLLERR:
 * pollwake() and ep_poll_callback() drop a wake-up whose key holds none of
 * the events a waiter asked for, and every waiter asks for EPOLLERR, one
 * that asked for nothing else (poll()'s events 0, epoll's EPOLLOUT) too.
 */
static void tw_wake(struct tw_client *c, bool fired, bool broke)
{
	if (broke)
		wake_up_interruptible_poll(&c->wq,
					   EPOLLIN | EPOLLRDNORM | EPOLLERR);
	else if (fired)
		wake_up_interruptible_poll(&c->wq, EPOLLIN | EPOLLRDNORM);
}

/**
 * tw_client_expire - the hrtimer callback's work: bring the wheel up to the
 *                    clock, queue at most expiry_batch events, reprogram
 * @c: the client
 *
 * Context: softirq, or process context with bottom halves disabled.
 * Return: the number of timers fired and events posted, plus 1 if a ring
 * flag changed (a budget stall fires none) and 1 if the rings broke:
 * non-zero, readers are woken.
 */
unsigned int tw_client_expire(struct tw_client *c)
{
	unsigned int fired, batch = tw_expiry_batch();
	u64 now, rate = READ_ONCE(ring_budget), moves = 0, fixed, spent;
	bool pays, broke;

	spin_lock(&c->lock);
	c->nr_wakeups++;
	now = tw_clock_ns(c);
	/*
	 * A ring file's callback pays first, from its user's bucket: the call
	 * and its ring work, and as many expiries and cascades as @batch
	 * allows each, cut to what the bucket can grant (tw_bucket_most()),
	 * less those it did not make (tw_budget.c).
	 */
	pays = c->ring && !tw_ring_broken(c->ring);
	if (pays) {
		fixed = TW_BUDGET_CALLBACK + tw_ring_nr_sq(c->ring);
		moves = tw_bucket_most(fixed, 2 * (u64)batch, rate);
		batch = moves / 2;
		if (!tw_bucket_reserve(&c->user->bucket, fixed, moves, rate,
				       ktime_get_ns())) {
			fired = tw_callback_stall(c);
			goto out;
		}
	}
	spent = c->wheel.nr_fired + c->wheel.nr_cascades;
	fired = tw_catch_up(c, now, TW_CHUNK, batch, true);
	spent = c->wheel.nr_fired + c->wheel.nr_cascades - spent;
	fired += tw_program(c, now, true);
	if (pays)
		tw_bucket_settle(&c->user->bucket, moves, spent, rate);
out:
	broke = tw_took_break(c);
	spin_unlock(&c->lock);
	tw_wake(c, fired, broke);
	return fired + broke;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_expire);

static enum hrtimer_restart tw_hrtimer_fn(struct hrtimer *hrtimer)
{
	tw_client_expire(container_of(hrtimer, struct tw_client, hrtimer));
	return HRTIMER_NORESTART;
}

/* Arm @t at tick @tick; it is new, or its node was initialised again. */
static int tw_arm(struct tw_client *c, struct tw_ktimer *t, u64 tick)
{
	int ret;

	lockdep_assert_held(&c->lock);
	ret = tw_start(&c->wheel, &t->node, tick);
	if (!ret)
		tw_timer_set_state(c, t, TW_ARMED);
	return ret;
}

/*
 * Arm @t at the tick the wheel picks in [@lo, @hi], tw_roundest()'s (see
 * "Range scheduling" in tw_core.c); it is new, or its node was initialised
 * again.
 */
static int tw_arm_range(struct tw_client *c, struct tw_ktimer *t, u64 lo,
			u64 hi)
{
	int ret;

	lockdep_assert_held(&c->lock);
	ret = tw_start_range(&c->wheel, &t->node, lo, hi);
	if (!ret)
		tw_timer_set_state(c, t, TW_ARMED);
	return ret;
}

/*
 * Arm a QUEUED timer in [@lo, @hi], withdrawing its unread event.  If that
 * fails, the event stays where it was in the queue, due as it was.
 */
static int tw_arm_queued(struct tw_client *c, struct tw_ktimer *t, u64 lo,
			 u64 hi)
{
	struct list_head *prev = t->node.link.prev;
	u64 old = t->node.expires;
	int ret;

	lockdep_assert_held(&c->lock);
	list_del(&t->node.link);
	tw_timer_init(&t->node);
	ret = tw_arm_range(c, t, lo, hi);
	if (ret) {
		t->node.expires = old;
		list_add(&t->node.link, prev);
		return ret;
	}
	c->nr_queued--;
	return 0;
}

/* Re-arm an existing timer for TWHEEL_TIMER_REPLACE. */
static int tw_rearm(struct tw_client *c, struct tw_ktimer *t,
		    const struct tw_when *w)
{
	int ret;

	lockdep_assert_held(&c->lock);
	/* A read() is delivering its event right now. */
	if (t->state == TW_READING)
		return -EBUSY;
	if (t->state == TW_QUEUED)
		/* The unread event of the old expiry is withdrawn. */
		ret = tw_arm_queued(c, t, w->lo, w->hi);
	else
		/*
		 * Already due in its range, it stays: an idle timeout with
		 * slack, re-armed on every request, costs a lookup and a
		 * comparison.  Else moved, usually without leaving its slot.
		 */
		ret = tw_modify_range(&c->wheel, &t->node, w->lo, w->hi);
	if (ret)
		return ret;
	t->interval = w->interval;
	return 0;
}

/* The time a START is due at, on the host's clock. */
static int tw_start_due(struct tw_client *c, const struct twheel_op *op,
			u64 now, s64 off, u64 *due)
{
	if (op->flags & TWHEEL_TIMER_ABSTIME)
		return tw_to_host(op->value, off, due);
	return check_add_overflow(now, op->value, due) ? -ERANGE : 0;
}

/* A period of @every ns in whole ticks, in *@ticks; 0 for none. */
static int tw_period_ticks(const struct tw_client *c, u64 every, u64 *ticks)
{
	u64 rem;

	*ticks = 0;
	if (!every)
		return 0;
	/* Whole ticks, or expiries would drift off the schedule. */
	*ticks = tw_div(every, c->resolution, c->res_inv, &rem);
	return rem ? -EINVAL : 0;
}

/*
 * The ticks a timer due at @due, host's view, may fire at: the first at
 * or after it, and the last that @slack reaches.
 */
static int tw_when_range(const struct tw_client *c, u64 due, u64 slack,
			 struct tw_when *w)
{
	u64 last;
	int ret;

	ret = tw_due_tick(c, due, &w->lo);
	w->hi = w->lo;
	if (ret || !slack)
		return ret;
	/* The slack only widens the choice: it ends at a ktime's, and the wheel's, reach. */
	if (check_add_overflow(due, slack, &last) || last > KTIME_MAX)
		last = KTIME_MAX;
	last = min(div64_u64(last, c->resolution), tw_max_expiry(&c->wheel) - 1);
	w->hi = max(w->lo, last);
	return 0;
}

/*
 * A START's arguments: the ticks it may fire at and its period in ticks,
 * or the error that refuses it.
 */
static int tw_start_args(struct tw_client *c, const struct twheel_op *op,
			 u64 now, s64 off, struct tw_when *w)
{
	u64 due;
	int ret;

	lockdep_assert_held(&c->lock);
	if ((op->flags & ~TW_TIMER_FLAGS_VALID) || op->__reserved)
		return -EINVAL;
	/* Its period would have to keep to the tick the slack chose. */
	if (op->slack && op->interval)
		return -EINVAL;
	ret = tw_period_ticks(c, op->interval, &w->interval);
	if (!ret)
		ret = tw_start_due(c, op, now, off, &due);
	return ret ? ret : tw_when_range(c, due, op->slack, w);
}

/**
 * tw_client_when - where a ring's start goes
 * @c:     the client, its lock held
 * @when:  the absolute time asked for, on the view of @off
 * @slack: how much later it may fire
 * @every: the period, 0 for a one-shot start
 * @off:   the rings' time namespace offset, fixed at their setup
 * @w:     filled in
 *
 * Return: 0, or -EINVAL or -ERANGE as for an absolute TWHEEL_IOC_START.
 */
int tw_client_when(struct tw_client *c, u64 when, u64 slack, u64 every,
		   s64 off, struct tw_when *w)
{
	u64 due;
	int ret;

	lockdep_assert_held(&c->lock);
	ret = tw_period_ticks(c, every, &w->interval);
	if (!ret)
		ret = tw_to_host(when, off, &due);
	return ret ? ret : tw_when_range(c, due, slack, w);
}

/*
 * START one timer, in @w; a timer that is created takes the top spare.
 * *@tp is the timer started, or refused after it was found or taken.
 */
static int tw_start_timer(struct tw_client *c, const struct twheel_op *op,
			  u64 now, struct tw_spares *spares, struct tw_when *w,
			  struct tw_ktimer **tp)
{
	struct tw_ktimer *t;
	int ret;

	lockdep_assert_held(&c->lock);
	ret = tw_start_args(c, op, now, tw_timens_offset(c->clockid), w);
	if (ret)
		return ret;
	if (op->flags & TWHEEL_TIMER_REPLACE) {
		t = tw_lookup(c, op->id);
		*tp = t;
		if (t)
			return tw_rearm(c, t, w);
	}
	/* A ring file's slots count against max_timers too. */
	if (c->nr_timers + (c->ring ? tw_ring_capacity(c->ring) : 0) >=
	    READ_ONCE(max_timers))
		return tw_lookup(c, op->id) ? -EEXIST : -ENOSPC;
	if (!spares->nr)
		return tw_lookup(c, op->id) ? -EEXIST : spares->err;
	/* No memory for the index to grow into: keep its chains short. */
	if (tw_ids_overloaded(&c->ids))
		return -ENOMEM;

	t = spares->t[spares->nr - 1];
	*tp = t;
	tw_timer_init(&t->node);
	t->idn.id = op->id;
	t->interval = w->interval;
	tw_timer_set_state(c, t, TW_NEW);
	ret = tw_arm_range(c, t, w->lo, w->hi);
	if (ret)
		return ret;
	/* One pass over the bucket both finds a duplicate and inserts. */
	if (tw_ids_insert(&c->ids, &t->idn)) {
		tw_stop(&c->wheel, &t->node);
		return -EEXIST;
	}
	spares->nr--;
	c->nr_timers++;
	c->started = true;
	return 0;
}

/* START one timer, and trace it; 0 or -errno. */
static int tw_do_start(struct tw_client *c, const struct twheel_op *op, u64 now,
		       struct tw_spares *spares)
{
	struct tw_ktimer *t = NULL;
	struct tw_when w = { };
	int ret;

	ret = tw_start_timer(c, op, now, spares, &w, &t);
	trace_timingwheel_start(c, op, w.lo, ret ? 0 : t->node.expires,
				w.interval, ret);
	return ret;
}

/*
 * STOP one timer; return TWHEEL_STOPPED_* or -ENOENT.  A timer it frees
 * goes to @spares, for the slab after the lock.
 */
static int tw_do_stop(struct tw_client *c, const struct twheel_op *op,
		      struct tw_spares *spares)
{
	struct tw_ktimer *t;

	lockdep_assert_held(&c->lock);
	if (op->flags || op->value || op->interval || op->slack ||
	    op->__reserved)
		return -EINVAL;
	/* Whatever its state, a stopped timer leaves the index. */
	t = tw_take(c, op->id);
	if (!t)
		return -ENOENT;

	switch (t->state) {
	case TW_ARMED:
		tw_stop(&c->wheel, &t->node);
		tw_free_later(c, spares, t);
		return TWHEEL_STOPPED_PENDING;
	case TW_QUEUED:
		list_del(&t->node.link);
		c->nr_queued--;
		tw_free_later(c, spares, t);
		return TWHEEL_STOPPED_EXPIRED;
	default:
		/*
		 * A read() is delivering its event right now.  The timer leaves
		 * the index and the reader frees it, whether its copy succeeds
		 * or fails: no later read returns this event.  For a one-shot
		 * timer that read is its end, as if it had already happened;
		 * a periodic one is kept from re-arming.
		 */
		tw_timer_set_state(c, t, TW_STOPPED);
		return t->interval ? TWHEEL_STOPPED_PENDING : -ENOENT;
	}
}

/*
 * Apply @n operations under one lock hold; the starts take @spares, and the
 * stops leave there the timers they free.
 */
static void tw_apply(struct tw_client *c, struct twheel_op *ops, unsigned int n,
		     struct tw_spares *spares)
{
	unsigned int i, fired;
	bool broke;
	u64 now;

	spin_lock_bh(&c->lock);
	now = tw_clock_ns(c);
	fired = tw_catch_up(c, now, TW_CHUNK, tw_expiry_batch(), false);
	for (i = 0; i < n; i++) {
		struct twheel_op *op = &ops[i];

		switch (op->op) {
		case TWHEEL_OP_START:
			op->result = tw_do_start(c, op, now, spares);
			break;
		case TWHEEL_OP_STOP:
			op->result = tw_do_stop(c, op, spares);
			trace_timingwheel_stop(c, op->id, op->result);
			break;
		default:
			op->result = -EINVAL;
		}
	}
	/* What the stops let the index spare, for the slab after the lock. */
	spares->seg = tw_ids_release_seg(&c->ids);
	fired += tw_program(c, now, false);
	broke = tw_took_break(c);
	spin_unlock_bh(&c->lock);
	tw_wake(c, fired, broke);
}

/* What one timer costs its memory cgroup, its charge's pointer included. */
#define TW_MEMCG_TIMER_COST	(TW_TIMER_COST + TW_MEMCG_OBJ_EXTRA)

/*
 * What @u holds, for the memory cgroups' share (tw_memcg.c): its files,
 * @timers timers, of which its ring files' count is replaced by their
 * memory.  @u->files is read without tw_users_lock: a file
 * opened or closed meanwhile moves the answer by one file, as a racing
 * call could anyway.
 */
static u64 tw_memcg_used(const struct tw_user *u, long timers)
{
	timers -= atomic_long_read(&u->ring_timers);
	return (u64)READ_ONCE(u->files) * TW_MEMCG_FILE_COST +
	       (u64)max(timers, 0L) * TW_MEMCG_TIMER_COST +
	       (u64)atomic64_read(&u->ring_bytes);
}

/*
 * Preallocate timers for @starts starts, as many as the user's limit, the
 * timers' share of its memory cgroups and memory allow; a start left
 * without one fails with @spares->err.
 */
static void tw_alloc_spares(struct tw_client *c, unsigned int starts,
			    struct tw_spares *spares)
{
	unsigned int n = tw_user_charge(c->user, starts), m;
	u64 room = tw_memcg_room(), used;

	spares->err = n < starts ? -ENOSPC : -ENOMEM;
	spares->nr_dead = 0;
	/* Within the share of the memory cgroups (tw_memcg.c). */
	used = tw_memcg_used(c->user, atomic_long_read(&c->user->timers) - n);
	m = room <= used ? 0 : min_t(u64, n, div64_u64(room - used, TW_MEMCG_TIMER_COST));
	spares->nr = m ? kmem_cache_alloc_bulk(tw_timer_cache, TW_GFP, m,
					       (void **)spares->t) : 0;
	if (spares->nr < n)
		spares->err = -ENOMEM;
	tw_user_uncharge(c->user, n - spares->nr);
}

/*
 * After the lock: give back what the starts did not take and what the
 * stops freed, in bulk, and uncharge it; and the segment the index spared.
 */
static void tw_free_spares(struct tw_client *c, struct tw_spares *spares)
{
	unsigned int n = spares->nr + spares->nr_dead;

	if (spares->nr)
		kmem_cache_free_bulk(tw_timer_cache, spares->nr,
				     (void **)spares->t);
	if (spares->nr_dead)
		kmem_cache_free_bulk(tw_timer_cache, spares->nr_dead,
				     (void **)&spares->t[TW_CHUNK - spares->nr_dead]);
	if (n)
		tw_user_uncharge(c->user, n);
	spares->nr = 0;
	spares->nr_dead = 0;
	kfree(spares->seg);
	spares->seg = NULL;
}

/*
 * Hand the id index the memory its next splits need, got before the lock
 * is taken: the index never allocates under it.
 */
static void tw_grow_ids(struct tw_client *c, unsigned int starts)
{
	struct tw_ids_prep prep;

	tw_ids_prepare(&c->ids, starts, &prep, TW_GFP);
	if (!prep.seg && !prep.dir)
		return;
	spin_lock_bh(&c->lock);
	tw_ids_commit(&c->ids, &prep, starts);
	spin_unlock_bh(&c->lock);
	tw_ids_unprepare(&prep);
}

/*
 * After a hold that removed timers from the id index: if its directory is
 * now four times too large, swap in one of half the size, got before the
 * lock is taken, and free the old one after.  Rare: once per halving.
 */
static void tw_shrink_ids(struct tw_client *c)
{
	struct tw_ids_prep prep;

	tw_ids_prepare_shrink(&c->ids, &prep, TW_GFP);
	if (!prep.dir)
		return;
	spin_lock_bh(&c->lock);
	tw_ids_commit(&c->ids, &prep, 0);
	spin_unlock_bh(&c->lock);
	tw_ids_unprepare(&prep);
}

/**
 * tw_client_apply - apply @n starts and stops, one lock hold
 * @c:   the client
 * @ops: the entries; each one's @result is set
 * @n:   how many, at most TW_CHUNK
 *
 * The timers the starts need are allocated, and the id index grown, before
 * the lock is taken; the timers the stops free go back to the slab after,
 * with the memory the id index shrank by.
 *
 * Context: process context; may sleep.
 */
void tw_client_apply(struct tw_client *c, struct twheel_op *ops, unsigned int n)
{
	struct tw_spares spares;
	unsigned int i, starts = 0;

	for (i = 0; i < n; i++)
		starts += ops[i].op == TWHEEL_OP_START;
	tw_alloc_spares(c, starts, &spares);
	tw_grow_ids(c, starts);
	tw_apply(c, ops, n, &spares);
	tw_free_spares(c, &spares);
	tw_shrink_ids(c);
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_apply);

/**
 * tw_client_stop - stop timer @id
 * @c:  the client
 * @id: the timer
 *
 * Return: TWHEEL_STOPPED_PENDING, TWHEEL_STOPPED_EXPIRED or -ENOENT.
 */
int tw_client_stop(struct tw_client *c, u64 id)
{
	struct twheel_op op = { .op = TWHEEL_OP_STOP, .id = id };
	struct tw_spares none;

	/* No spares: no start.  Room for the timer the stop frees. */
	none.nr = 0;
	none.nr_dead = 0;
	none.err = -ENOMEM;
	tw_apply(c, &op, 1, &none);
	tw_free_spares(c, &none);
	tw_shrink_ids(c);
	return op.result;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_stop);

/**
 * tw_client_batch - apply @count entries, TW_CHUNK per lock hold
 * @c:     the client
 * @count: entries in the batch, at most TWHEEL_BATCH_MAX
 * @io:    gets each chunk of entries in and puts its results back
 * @arg:   passed to @io
 *
 * Context: process context; may sleep.
 * Return: 0, or the error of @io (every chunk before was applied; one that
 * @io->get() failed was not, one that @io->put() failed was), -ENOMEM for
 * no chunk buffer (nothing applied), or -EINTR for a fatal signal.
 */
long tw_client_batch(struct tw_client *c, unsigned int count,
		     const struct tw_batch_io *io, void *arg)
{
	unsigned int done, n;
	struct twheel_op *ops;
	long ret = 0;

	ops = kmalloc_array(TW_CHUNK, sizeof(*ops), TW_GFP);
	if (!ops)
		return -ENOMEM;
	for (done = 0; done < count; done += n) {
		n = min_t(unsigned int, count - done, TW_CHUNK);
		ret = io->get(arg, done, ops, n);
		if (ret)
			break;
		tw_client_apply(c, ops, n);
		ret = io->put(arg, done, ops, n);
		if (ret)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	kfree(ops);
	return ret;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_batch);

/*
 * Bind the hrtimer to the client's clock and start an empty wheel at that
 * clock's current tick, and take the resolution's reciprocal.  An
 * hrtimer's clock is fixed at setup, so this is only for a client whose
 * hrtimer is idle: new, or without a timer yet.
 */
static void tw_set_clock(struct tw_client *c)
{
	c->res_inv = tw_div_inv(c->resolution);
	tw_hrtimer_setup(&c->hrtimer, tw_hrtimer_fn, c->clockid,
			 HRTIMER_MODE_ABS_SOFT);
	tw_init(&c->wheel, NULL, 0, div64_u64(tw_clock_ns(c), c->resolution));
}

/**
 * tw_client_set_config - choose the clock and the resolution
 * @c:       the client
 * @clockid: CLOCK_MONOTONIC or CLOCK_BOOTTIME
 * @res:     ns per tick, TWHEEL_MIN_RESOLUTION_NS..TWHEEL_MAX_RESOLUTION_NS,
 *           or 0 to keep the current one
 *
 * Return: 0; -EINVAL for another clock or a resolution out of range;
 * -EBUSY once a timer was started.
 */
int tw_client_set_config(struct tw_client *c, clockid_t clockid, u64 res)
{
	int ret = 0;

	if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME)
		return -EINVAL;
	if (res && (res < TWHEEL_MIN_RESOLUTION_NS ||
		    res > TWHEEL_MAX_RESOLUTION_NS))
		return -EINVAL;

	spin_lock_bh(&c->lock);
	if (c->started) {
		ret = -EBUSY;
	} else {
		c->clockid = clockid;
		if (res)
			c->resolution = res;
		tw_set_clock(c);
	}
	spin_unlock_bh(&c->lock);
	return ret;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_set_config);

/*
 * The bytes the client holds: itself with its wheel, its id index, its
 * timers, each the slab object it is, and its rings.
 */
static u64 tw_client_bytes(const struct tw_client *c)
{
	lockdep_assert_held(&c->lock);
	return kmalloc_size_roundup(sizeof(*c)) + tw_ids_bytes(&c->ids) +
	       c->nr_timers * kmem_cache_size(tw_timer_cache) +
	       (c->ring ? tw_ring_memory(c->ring) : 0);
}

/**
 * tw_client_info - a snapshot of the client's settings and counters
 * @c:    the client
 * @info: filled in full
 */
void tw_client_info(struct tw_client *c, struct twheel_info *info)
{
	u64 next, max, now;
	s64 off;

	memset(info, 0, sizeof(*info));
	info->abi_version = TWHEEL_ABI_VERSION;
	info->features = TWHEEL_FEATURE_SLACK | TWHEEL_FEATURE_TIMENS |
			 TWHEEL_FEATURE_BOOTTIME | TWHEEL_FEATURE_MEMORY;
	if (tw_rings_supported())
		info->features |= TWHEEL_FEATURE_RINGS;
	spin_lock_bh(&c->lock);
	/* Under the lock: the clock is fixed once a timer was started. */
	off = tw_timens_offset(c->clockid);
	now = tw_clock_ns(c);
	info->now = tw_to_view(now, off);
	info->clockid = c->clockid;
	info->resolution_ns = c->resolution;
	max = tw_tick_ns(c, tw_max_expiry(&c->wheel) - 1);
	info->range_ns = max > now ? max - now : 0;
	info->max_timers = READ_ONCE(max_timers);
	info->user_timers = atomic_long_read(&c->user->timers);
	info->max_user_timers = READ_ONCE(max_user_timers);
	info->pending = c->wheel.nr_pending + (c->ring ? tw_ring_parked(c->ring) : 0);
	info->queued = c->nr_queued + (c->ring ? tw_ring_queued(c->ring) : 0);
	info->fired = c->wheel.nr_fired;
	info->cascades = c->wheel.nr_cascades;
	info->wakeups = c->nr_wakeups;
	info->memory = tw_client_bytes(c);
	/* Bounded: a slot may hold every timer of the file. */
	next = tw_next_expiry_within(&c->wheel, TW_INFO_SCAN);
	info->next_expiry = next == TW_NO_EVENT ? 0 :
			    tw_to_view(tw_tick_ns(c, next), off);
	spin_unlock_bh(&c->lock);
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_info);

/**
 * tw_client_query - the state of timer @q->id
 * @c: the client
 * @q: @id in; @due, @remaining, @interval and @state out
 *
 * Return: 0 or -ENOENT.
 */
int tw_client_query(struct tw_client *c, struct twheel_query *q)
{
	struct tw_ktimer *t;
	u64 now, due;
	s64 off;

	spin_lock_bh(&c->lock);
	off = tw_timens_offset(c->clockid);
	now = tw_clock_ns(c);
	t = tw_lookup(c, q->id);
	if (t) {
		due = tw_due(c, t);
		q->due = tw_to_view(due, off);
		q->interval = t->interval * c->resolution;
		q->state = t->state == TW_ARMED ? TWHEEL_STATE_PENDING :
						  TWHEEL_STATE_EXPIRED;
		q->remaining = t->state == TW_ARMED && due > now ? due - now : 0;
	}
	spin_unlock_bh(&c->lock);
	return t ? 0 : -ENOENT;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_query);

/*
 * Take up to @max events off the list for delivery, filling @ev.  A
 * periodic timer's overrun counts the periods that ended since it was due.
 */
static unsigned int tw_take_events(struct tw_client *c, struct list_head *taken,
				   struct twheel_event *ev, unsigned int max)
{
	s64 off = tw_timens_offset(c->clockid);
	u64 now = tw_clock_ns(c);
	unsigned int n = 0;

	lockdep_assert_held(&c->lock);
	while (n < max && !list_empty(&c->events)) {
		struct tw_ktimer *t = list_first_entry(&c->events,
						       struct tw_ktimer, node.link);

		list_move_tail(&t->node.link, taken);
		tw_timer_set_state(c, t, TW_READING);
		c->nr_queued--;
		memset(&ev[n], 0, sizeof(ev[n]));
		ev[n].id = t->idn.id;
		ev[n].due = tw_due(c, t);
		ev[n].fired = t->fired;
		if (t->interval) {
			ev[n].flags = TWHEEL_EVENT_PERIODIC;
			if (now > ev[n].due)
				ev[n].overrun = div64_u64(now - ev[n].due,
							  t->interval * c->resolution);
		}
		ev[n].due = tw_to_view(ev[n].due, off);
		ev[n].fired = tw_to_view(ev[n].fired, off);
		n++;
	}
	return n;
}

/*
 * The tick of the period after the @overrun ones that were missed, if its
 * time is a ktime: whole periods after the last, never off the schedule.
 */
static bool tw_next_period(const struct tw_client *c, const struct tw_ktimer *t,
			   u64 overrun, u64 *next)
{
	u64 step, ns;

	return !check_mul_overflow(overrun + 1, (u64)t->interval, &step) &&
	       !check_add_overflow((u64)t->node.expires, step, next) &&
	       !check_mul_overflow(*next, c->resolution, &ns) && ns <= KTIME_MAX;
}

/* Arm a delivered periodic timer for its next period; false if done. */
static bool tw_arm_next(struct tw_client *c, struct tw_ktimer *t, u64 overrun)
{
	u64 next;

	if (!t->interval || !tw_next_period(c, t, overrun, &next))
		return false;
	/* Its link was the event's: the node is the wheel's again. */
	tw_timer_init(&t->node);
	return !tw_arm(c, t, next);
}

/*
 * After a successful copy of the events from the @done-th of the read on:
 * free one-shot timers, re-arm periodic ones.  Return whether any was
 * re-armed, which may need the hrtimer earlier.
 */
static bool tw_finish_events(struct tw_client *c, struct list_head *taken,
			     const struct twheel_event *ev, size_t done)
{
	struct tw_ktimer *t, *tmp;
	unsigned int i = 0;
	bool rearmed = false;

	lockdep_assert_held(&c->lock);
	list_for_each_entry_safe(t, tmp, taken, node.link) {
		trace_timingwheel_read(c, t->idn.id, t->node.expires, t->fired,
				       ev[i].overrun, t->interval, done + i);
		list_del(&t->node.link);
		if (t->state == TW_STOPPED)
			tw_free(c, t);
		else if (tw_arm_next(c, t, ev[i].overrun))
			rearmed = true;
		else
			/* One-shot, or the next period is out of range: done. */
			tw_forget(c, t);
		i++;
	}
	return rearmed;
}

/* After a failed copy: the events go back to the head, in order. */
static void tw_return_events(struct tw_client *c, struct list_head *taken)
{
	struct tw_ktimer *t, *tmp;

	lockdep_assert_held(&c->lock);
	list_for_each_entry_safe_reverse(t, tmp, taken, node.link) {
		if (t->state == TW_STOPPED) {
			list_del(&t->node.link);
			tw_free(c, t);
			continue;
		}
		tw_timer_set_state(c, t, TW_QUEUED);
		list_move(&t->node.link, &c->events);
		c->nr_queued++;
	}
}

/* One chunk of a read: take events, copy them out unlocked, settle them. */
static ssize_t tw_read_chunk(struct tw_client *c, size_t done, unsigned int max,
			     tw_read_copy_fn copy, void *arg)
{
	struct twheel_event ev[TW_CHUNK / 2];
	struct tw_id_seg *seg;
	LIST_HEAD(taken);
	unsigned int n, posted = 0;
	bool broke;
	int err;

	spin_lock_bh(&c->lock);
	n = tw_take_events(c, &taken, ev, min_t(unsigned int, max, ARRAY_SIZE(ev)));
	spin_unlock_bh(&c->lock);
	if (!n)
		return 0;

	err = copy(arg, done, ev, n);

	spin_lock_bh(&c->lock);
	if (err) {
		tw_return_events(c, &taken);
	} else {
		if (tw_finish_events(c, &taken, ev, done))
			posted = tw_program(c, tw_clock_ns(c), false);
	}
	/* What the delivered one-shot timers let the index spare. */
	seg = tw_ids_release_seg(&c->ids);
	broke = tw_took_break(c);
	spin_unlock_bh(&c->lock);
	kfree(seg);
	tw_shrink_ids(c);
	tw_wake(c, err || posted, broke);
	if (err)
		return err;
	return n;
}

/**
 * tw_client_read - deliver up to @max events, oldest first
 * @c:    the client, its @read_mutex held
 * @max:  the most events to deliver
 * @copy: copies each chunk of events to where the reader wants them
 * @arg:  passed to @copy
 *
 * No more events than were queued when the read began are delivered, so
 * that periodic timers firing again meanwhile cannot keep it going: a read
 * costs at most one event per timer of the client.  It reschedules between
 * chunks and stops early for a fatal signal, returning what it has.
 * Delivered one-shot timers are freed, periodic ones re-armed; a chunk
 * that @copy fails goes back to the head of the queue.
 *
 * Context: process context; may sleep.
 * Return: the events delivered; if none, 0 (none queued) or the error of
 * @copy.
 */
ssize_t tw_client_read(struct tw_client *c, size_t max, tw_read_copy_fn copy,
		       void *arg)
{
	size_t left = min_t(u64, max, READ_ONCE(c->nr_queued)), done = 0;
	ssize_t ret;

	lockdep_assert_held(&c->read_mutex);
	while (left) {
		ret = tw_read_chunk(c, done, min_t(size_t, left, TW_CHUNK / 2),
				    copy, arg);
		if (ret <= 0)
			return done ? done : ret;
		done += ret;
		left -= ret;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	return done;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_read);

/* Give back what a ring file counts against its user, and free its rings. */
static void tw_client_ring_free(struct tw_client *c, struct tw_ring *r,
				u64 timers)
{
	tw_user_uncharge(c->user, timers);
	atomic_long_sub(timers, &c->user->ring_timers);
	atomic64_sub(tw_ring_memory(r), &c->user->ring_bytes);
	tw_ring_free(r);
}

/* Count @p's timers and memory against the user's limits: 0, -ENOSPC, -ENOMEM. */
static int tw_client_ring_charge(struct tw_client *c,
				 const struct twheel_ring_setup *p)
{
	struct tw_user *u = c->user;
	unsigned int n;

	if (p->capacity > READ_ONCE(max_timers) || p->timers > UINT_MAX)
		return -ENOSPC;
	n = tw_user_charge(u, p->timers);
	if (n < p->timers) {
		/* All or nothing: give back what the limit allowed. */
		tw_user_uncharge(u, n);
		return -ENOSPC;
	}
	atomic_long_add(p->timers, &u->ring_timers);
	atomic64_add(p->memory, &u->ring_bytes);
	if (tw_memcg_used(u, atomic_long_read(&u->timers)) > tw_memcg_room()) {
		tw_user_uncharge(u, p->timers);
		atomic_long_sub(p->timers, &u->ring_timers);
		atomic64_sub(p->memory, &u->ring_bytes);
		return -ENOMEM;
	}
	return 0;
}

/**
 * tw_client_ring_setup - give the client its shared-memory rings
 * @c: the client
 * @p: the setup; its out fields are filled in
 *
 * Checks, charges and allocates without the lock, then installs the rings
 * in one hold of it, which also checks that the client has no rings and
 * never had a timer; a racing setup or START that wins makes this one
 * give everything back.
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL, -ENOSPC, -ENOMEM, -EINTR, -EOPNOTSUPP, -EEXIST or
 * -EBUSY as rings.rst tells.
 */
int tw_client_ring_setup(struct tw_client *c, struct twheel_ring_setup *p)
{
	struct tw_ring *r;
	clockid_t clockid;
	u64 res;
	int ret = tw_ring_size(p);

	if (ret)
		return ret;
	if (!tw_rings_supported())
		return -EOPNOTSUPP;
	if (tw_client_ring(c))
		return -EEXIST;
	/* The cheap refusal first: nothing charged or allocated for it. */
	spin_lock_bh(&c->lock);
	clockid = c->clockid;
	res = c->resolution;
	ret = c->ring ? -EEXIST : c->started ? -EBUSY : 0;
	spin_unlock_bh(&c->lock);
	if (ret)
		return ret;
	ret = tw_client_ring_charge(c, p);
	if (ret)
		return ret;
	r = tw_ring_alloc(p, clockid, res, tw_timens_offset(clockid));
	if (IS_ERR(r)) {
		ret = PTR_ERR(r);
		goto err_uncharge;
	}
	spin_lock_bh(&c->lock);
	if (c->ring)
		ret = -EEXIST;
	else if (c->started || c->clockid != clockid || c->resolution != res)
		/* A START or a SET_CONFIG got in first. */
		ret = -EBUSY;
	if (!ret) {
		c->ring_timers = p->timers;
		c->started = true;
		/* The rings are set up before mmap() and poll() can see them. */
		smp_store_release(&c->ring, r);
	}
	spin_unlock_bh(&c->lock);
	if (!ret)
		return 0;
	tw_ring_free(r);
err_uncharge:
	tw_user_uncharge(c->user, p->timers);
	atomic_long_sub(p->timers, &c->user->ring_timers);
	atomic64_sub(p->memory, &c->user->ring_bytes);
	return ret;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_ring_setup);

/*
 * One consumption point of a system call: a chunk of entries, postings and
 * expiries under one hold.  While work is left, the next chunk follows at
 * once, so the hrtimer is programmed and published only by a chunk that
 * leaves none or is @last: until then it may be late by the chunks
 * between, never early, and every submitter's entries are seen by the
 * last publish.  That chunk also sets *@held, under the same hold, if
 * results still wait for CQ room: looked at after the lock is dropped, an
 * SQ head that another thread's chunk applied but has yet to publish
 * would look held too.  Return the units done; *@more tells whether work
 * is left; -EBADFD once broken.
 */
static long tw_client_ring_chunk(struct tw_client *c, bool last, bool *more,
				 bool *held)
{
	unsigned int posted = 0;
	long ret = 0;
	bool broke;
	u64 now;

	spin_lock_bh(&c->lock);
	if (tw_ring_broken(c->ring)) {
		ret = -EBADFD;
	} else {
		now = tw_clock_ns(c);
		posted = tw_catch_up(c, now, TW_RING_CHUNK, tw_expiry_batch(),
				     false);
		*more = tw_ring_more(c->ring) || tw_has_due(&c->wheel);
		/* Broken now, no later chunk comes: the id timers need it. */
		if (!*more || last || tw_ring_broken(c->ring)) {
			posted += tw_program(c, now, false);
			*more = tw_ring_more(c->ring) || tw_has_due(&c->wheel);
			*held = tw_ring_results_held(c->ring);
		}
		ret = tw_ring_broken(c->ring) ? -EBADFD : (long)posted;
	}
	/* Broken in this hold, tw_ring_more()'s look at the CQ head too. */
	broke = tw_took_break(c);
	spin_unlock_bh(&c->lock);
	tw_wake(c, posted, broke);
	return ret;
}

/**
 * tw_client_ring_enter - TWHEEL_IOC_RING_ENTER: all of the rings' leftover work
 * @c: the client
 *
 * Applies every entry up to the tails as they move, posts what the CQ has
 * room for and advances the wheel, one chunk per lock hold, rescheduling
 * between chunks; at most as many chunks as the rings hold entries and
 * events, however fast producers refill them; a fatal signal ends it
 * after one more.  The last chunk programs the hrtimer and publishes it
 * (tw_client_ring_chunk()).
 *
 * Context: process context; may sleep.
 * Return: 0; -ENODEV without rings; -EBADFD once broken; -EBUSY if results
 * still wait for CQ room, so their SQs stay full; consume and enter again.
 */
long tw_client_ring_enter(struct tw_client *c)
{
	struct tw_ring *r = tw_client_ring(c);
	bool more = true, last = false, held = false;
	u64 chunks, k;
	long ret = 0;

	if (!r)
		return -ENODEV;
	chunks = 2 + tw_ring_work_bound(r) / TW_RING_CHUNK;
	for (k = 0; more && !last; k++) {
		/* A fatal signal ends it after a chunk that programs. */
		last = k + 1 == chunks || fatal_signal_pending(current);
		more = false;
		held = false;
		ret = tw_client_ring_chunk(c, last, &more, &held);
		if (ret < 0)
			return ret;
		cond_resched();
	}
	return held ? -EBUSY : 0;
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_ring_enter);

/**
 * tw_client_ring_poll - poll()'s part for the rings: one chunk of work, then
 *                       a lockless look
 * @c: the client
 *
 * Context: process context; may sleep.
 * Return: the rings' poll mask (tw_ring_poll_mask()), 0 without rings.
 */
__poll_t tw_client_ring_poll(struct tw_client *c)
{
	struct tw_ring *r = tw_client_ring(c);
	bool more, held;

	if (!r)
		return 0;
	tw_client_ring_chunk(c, true, &more, &held);
	return tw_ring_poll_mask(r);
}

/**
 * tw_client_ring_read - read()'s part for the rings: one chunk of work
 * @c: the client
 *
 * A read() is a consumption point too: a wheel that a callback left to
 * system calls (its user's budget short, or entries left) moves here, and
 * the events of its id timers come to the reader.
 *
 * Context: process context; may sleep.
 */
void tw_client_ring_read(struct tw_client *c)
{
	bool more, held;

	if (tw_client_ring(c))
		tw_client_ring_chunk(c, true, &more, &held);
}

/**
 * tw_client_ring_stalled - whether a sleeping reader must wake for a chunk
 * @c: the client
 *
 * Lockless, as tw_ring_wants_enter() is.
 *
 * Return: true if the rings' NEED_ENTER is set.
 */
bool tw_client_ring_stalled(struct tw_client *c)
{
	struct tw_ring *r = tw_client_ring(c);

	return r && tw_ring_wants_enter(r);
}

/**
 * tw_client_create - a new client, on the default resolution and
 *                    CLOCK_MONOTONIC, charged to the current task's user
 *
 * Context: process context; may sleep.
 * Return: the client; ERR_PTR(-ENOMEM), or ERR_PTR(-EMFILE) at the user's
 * max_user_files.
 */
struct tw_client *tw_client_create(void)
{
	struct tw_client *c;
	u64 res = READ_ONCE(default_resolution_ns);
	int ret;

	c = kzalloc(sizeof(*c), TW_GFP);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->user = tw_user_get(current_euid());
	if (IS_ERR(c->user)) {
		ret = PTR_ERR(c->user);
		goto err_free;
	}
	/* A file counts in the memory cgroups' share too (tw_memcg.c). */
	ret = -ENOMEM;
	if (tw_memcg_used(c->user, atomic_long_read(&c->user->timers)) >
	    tw_memcg_room())
		goto err_put_user;
	ret = tw_ids_create(&c->ids, TW_GFP);
	if (ret)
		goto err_put_user;
	spin_lock_init(&c->lock);
	mutex_init(&c->read_mutex);
	init_waitqueue_head(&c->wq);
	INIT_LIST_HEAD(&c->events);
	c->clockid = CLOCK_MONOTONIC;
	c->resolution = clamp_t(u64, res, TWHEEL_MIN_RESOLUTION_NS,
				TWHEEL_MAX_RESOLUTION_NS);
	c->serial = atomic64_inc_return(&tw_serial);
	tw_set_clock(c);
	return c;

err_put_user:
	tw_user_put(c->user);
err_free:
	kfree(c);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_create);

static void tw_free_timer(struct tw_id_node *idn, void *data)
{
	kmem_cache_free(tw_timer_cache, container_of(idn, struct tw_ktimer, idn));
	cond_resched();
}

/**
 * tw_client_destroy - stop and free every timer, then the client
 * @c: the client; no other call on it may run or follow
 *
 * Context: process context; may sleep.
 */
void tw_client_destroy(struct tw_client *c)
{
	/*
	 * Once the hrtimer is cancelled, with a callback in flight waited
	 * for, nothing touches the timers.  Every timer is in the index
	 * whatever its state.
	 */
	if (hrtimer_cancel(&c->hrtimer))
		trace_timingwheel_hrtimer(c, 0);
	tw_ids_drain(&c->ids, tw_free_timer, NULL);
	tw_user_uncharge(c->user, c->nr_timers);
	if (c->ring)
		tw_client_ring_free(c, c->ring, c->ring_timers);
	tw_user_put(c->user);
	tw_ids_destroy(&c->ids);
	mutex_destroy(&c->read_mutex);
	kfree(c);
}
EXPORT_SYMBOL_TW_KBENCH(tw_client_destroy);

/**
 * tw_client_init - at module load: the timers' slab cache, the user limit
 *
 * Return: 0 or -ENOMEM.
 */
int tw_client_init(void)
{
	/* Per timer: 56 bytes of slab, 64 with its index bucket. */
	BUILD_BUG_ON(sizeof(struct tw_ktimer) > 56);
	BUILD_BUG_ON(TW_TIMER_COST > 64);
	/* As epoll's max_user_watches: 4% of memory, in timers. */
	if (!max_user_timers)
		max_user_timers = (totalram_pages() / 25) * PAGE_SIZE / TW_TIMER_COST;
	tw_timer_cache = KMEM_CACHE(tw_ktimer, SLAB_ACCOUNT);
	return tw_timer_cache ? 0 : -ENOMEM;
}

/**
 * tw_client_exit - at module unload, once every client is destroyed
 */
void tw_client_exit(void)
{
	kmem_cache_destroy(tw_timer_cache);
}
