// SPDX-License-Identifier: GPL-2.0
/*
 * timingwheel: shared-memory rings.
 *
 * Copyright (C) 2026 The timingwheel authors
 */

/**
 * DOC: Rings
 *
 * A file may opt in, once, to shared-memory rings (TWHEEL_IOC_RING_SETUP):
 * submission rings (SQs), each fed by one thread with starts and stops of
 * timers named by slot, and one completion ring (CQ) that the kernel fills
 * with expiries and results.  A read-only header publishes when the
 * hrtimer will next run (armed_for) and how far the wheel may have gone
 * (wheel_ns).  In the steady state a start or a stop is a few stores and
 * no system call.  Everything is allocated at setup and freed at
 * ->release; consuming entries, firing and posting never allocate.
 *
 * The ordering contract, every shared load READ_ONCE() or its C11
 * equivalent, as in io_uring's header::
 *
 *   producer (one per SQ)                     kernel
 *   write entries, then tail (release)  --->  load tail (acquire), read entries
 *   load head (acquire), reuse entries  <---  read entries, store head (release)
 *   consumer of the CQ
 *   load tail (acquire), read events    <---  write events, store tail (release)
 *   read events, store head (release)   --->  load head (acquire), reuse events
 *
 * The kernel keeps private copies of every head, tail, mask and size, and
 * reads an SQ tail or the CQ head once per round into a private copy that
 * it checks: a value no honest program can produce breaks the rings for
 * good ("DOC: The broken state").  Every entry is read once, word by word,
 * to be applied, and every slot index bounded with array_index_nospec()
 * before use; on a file of TW_RING_PREFETCH_SLOTS slots or more, an
 * entry's slot number is also read once before that, as a bounded hint
 * for a prefetch that decides nothing; a result held for CQ room copies the entry's cookie, slot
 * and generation again when it is posted, into the result alone.  The
 * kernel never waits on an entry: what lies below the tail it loaded is
 * taken as written.
 */

/**
 * DOC: No system call in the steady state
 *
 * A submitter needs TWHEEL_IOC_RING_ENTER only for a start due before the
 * header's armed_for, when NEED_ENTER or NEED_FLUSH is set, or when its SQ
 * is full: anything else is consumed by the hrtimer callback, which runs
 * no later than armed_for and consumes before it advances the wheel.
 *
 * Publish-and-check is the store-buffering pattern: each side stores,
 * makes a full barrier, then loads what the other side stores::
 *
 *   kernel: tw_ring_publish()             submitter: timingwheel_submit()
 *   WRITE_ONCE(hdr->armed_for, T);        store tail (release);
 *   smp_mb();                             atomic_thread_fence(seq_cst);
 *   load every SQ tail;                   load hdr->armed_for;
 *   new entries: program a follow-up      due before it: RING_ENTER
 *
 * No wakeup is lost: the two loads cannot both miss the other side's
 * store, each following a full barrier after its own side's store.  Either
 * the submitter sees T and enters if its start is due before T, or the
 * kernel sees the tail and runs the callback within TW_BURST_GAP_NS, or
 * both.  Acquire and release alone would allow both loads to miss (liburing
 * issue 541).  NEED_FLUSH pairs with the CQ consumer's head store the same
 * way, and wheel_ns (tw_ring_begin()) with a stopper's tail store.
 *
 * The kernel's stores and its barrier are one pure function,
 * tw_ring_hdr_announce() in tw_ring_hdr.h.  tools/testing/ring-sb runs it on
 * one CPU against libtimingwheel's timingwheel_submit() and
 * timingwheel_cq_advance() on another, millions of rounds, and counts the
 * rounds where both loads missed: none with the barriers, and some within
 * a few thousand rounds when either barrier is taken out
 * (scripts/mutations/device).
 */

/**
 * DOC: Stops that provably win
 *
 * The wheel advances to a tick t only at a consumption point that has
 * published t as wheel_ns, then made a full barrier, then applied every
 * SQ up to the tails it loaded after that barrier (tw_ring_begin()).  A
 * stopper that stores its tail, makes a full barrier and then loads a
 * wheel_ns below the stopped timer's time knows the stop wins: a point
 * whose tail load missed the stop published no more than that value, so
 * advanced below the timer's first tick, and the first point that sees
 * the stop applies it before it advances.
 */

/**
 * DOC: The broken state
 *
 * A tail more than sq_entries ahead of the published head or behind the
 * applied head, or a CQ head that leaves more than cq_entries events or is
 * ahead of the tail, is no honest value: the rings break for good.
 * TWHEEL_RING_BROKEN is set and ``broken`` names the ring; RING_ENTER fails
 * with EBADFD, poll() adds EPOLLERR, pollers are woken with EPOLLERR in the
 * key (tw_ring_take_break()), and no entry is read and no event written
 * again.  The events posted before the break are
 * published before the flag (the CQ tail is stored once more, unchanged,
 * at the point's end), so a consumer reads them all, then learns of the
 * break from the flag (timingwheel_peek_cqe(3) and timingwheel_cq_advance(3)
 * on an empty CQ).
 * Ring timers still fire, onto the waiting list, bounded by the capacity
 * (a periodic slot parked at the break stays parked, pending); id timers
 * and the ioctls keep working; close() frees it all.
 */

/**
 * DOC: Softirq work
 *
 * The hrtimer callback applies entries and posts results and waiting
 * events within TW_CHUNK units of work (an entry applied, an entry its
 * SQ's published head walks past while results are held, an event
 * posted).  If entries are left, or its own
 * publish finds new ones, it does not advance the wheel past them (a stop
 * among them must win): it sets NEED_ENTER (and NEED_FLUSH, so that a CQ
 * consumer enters too), leaves the hrtimer idle and wakes pollers; the
 * rest is done by the file's own system calls, in process context.  No
 * callback is ever programmed for entries alone, so softirq work on ring
 * entries is at most TW_CHUNK units per callback that a due timer or a
 * burst's follow-up brought, as for id timers; and the callbacks of one
 * user's ring files together do at most ring_budget units a second
 * ("DOC: The softirq budget" in tw_budget.c).
 */

/**
 * DOC: Periodic slots
 *
 * Rings set up with TWHEEL_RING_SETUP_PERIODIC keep a period per slot
 * (8 bytes more a slot, charged with the rest).  A start with
 * TWHEEL_SQE_PERIODIC gives its period in ``arg`` (whole ticks, as an id
 * timer's interval; there is no slack), and its first due time in
 * ``when``.  When its expiry is posted, the slot is due again at its
 * first period after the clock: the periods passed meanwhile are counted
 * in that event's overrun, as timerfd counts them, so each event stands
 * for 1 + overrun periods and none is lost.  A slot whose event waits for
 * CQ room is not armed while it waits: however long the consumer lags, a
 * periodic slot holds at most one event.
 *
 * Only process context arms it again.  A slot whose expiry the hrtimer
 * callback posted is parked, its next period noted, and NEED_ARM set in
 * the header, as NEED_FLUSH is and for the same reader: the file's next
 * system call (the library's cq_advance() enters for the flag, poll()
 * does a chunk, and any ENTER) arms it, and if that period already passed
 * it fires at once, its overrun counting the rest.  Submitters ignore the
 * flag: a periodic slot costs its consumer one ENTER per batch of events
 * read, and no one else a system call.
 * So softirq work on a periodic slot is one expiry per system call of its
 * file, as an id timer's periodic expiries are one per read(): a store to
 * the CQ head cannot buy a callback every microsecond.  A parked slot
 * counts as pending, and a stop of it answers STOPPED_PENDING.
 *
 * Events of the slot carry TWHEEL_CQE_PERIODIC while it stays armed; the
 * first event without it (a period past the wheel's reach or a ktime's,
 * years ahead) is its last.  A stop ends it like a one-shot: its result
 * says whether the slot was armed or its event was waiting.
 */

#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/preempt.h>
#include <linux/prefetch.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "tw_client.h"
#include "tw_compat.h"
#include "tw_div.h"
#include "tw_ring.h"
#include "tw_ring_hdr.h"

/* A result slot with nothing to post. */
#define TW_RES_NONE		S32_MIN
/* Lateness a waiting slot keeps, saturating: 2^46 - 1 ns. */
#define TW_LATE_MAX		(BIT_ULL(46) - 1)
/* Allocation pauses for the scheduler and fatal signals this often. */
#define TW_PAGES_PER_PAUSE	512
#define TW_CTL_BYTES		sizeof(struct twheel_ring_ctl)

enum tw_rslot_state {
	TW_RS_FREE,
	TW_RS_ARMED,
	TW_RS_WAITING,
	TW_RS_PARKED,
};

static_assert(TW_RS_PARKED < 4);	/* tw_rslot.state's 2 bits */

/**
 * struct tw_rslot - one timer slot of a ring file, kernel-private: 40 bytes
 * @node:   the wheel's part while ARMED; while WAITING, @node.link is on
 *          tw_ring.waiting; while PARKED, on tw_ring.parked, and
 *          @node.expires is its next period's tick; tw_client.lock
 * @cookie: the caller's, carried into the slot's events; tw_client.lock
 * @late:   WAITING: how late it fired, in ns, saturating; tw_client.lock
 * @state:  an enum tw_rslot_state; tw_client.lock
 * @gen:    the generation of the start that armed it; tw_client.lock
 */
struct tw_rslot {
	struct tw_timer	node;
	u64		cookie;
	u64		late:46;
	u64		state:2;
	u64		gen:16;
};

/**
 * struct tw_ring_sq - the kernel's side of one submission ring
 * @ctl:  the shared control block, through the kernel's vmap()
 * @sqes: the shared entries
 * @res:  per entry, its result waiting for CQ room, or TW_RES_NONE;
 *        kernel-private
 * @head: applied head: entries below it are applied; tw_client.lock
 * @pub:  published head: entries below it are the producer's again; at
 *        most @head; tw_client.lock
 * @held: how many of @res in [@pub, @head) are results, not TW_RES_NONE:
 *        while none are, @pub moves to @head without a look; tw_client.lock
 */
struct tw_ring_sq {
	struct twheel_ring_ctl	*ctl;
	struct twheel_sqe	*sqes;
	s32			*res;
	u32			head;
	u32			pub;
	u32			held;
};

/**
 * struct tw_ring - the rings of one file
 * @hdr:        the shared header, kernel-written only
 * @cq_ctl:     the CQ's shared control block
 * @cqes:       the CQ's shared events
 * @cq_tail:    private tail: events below it are posted; tw_client.lock
 * @cq_room:    free CQ entries at the last check of the head;
 *              tw_client.lock
 * @cq_stored:  the tail last stored to @cq_ctl; written under tw_client.lock
 *              with WRITE_ONCE(), read without it by poll()
 * @capacity:   slots; constant, as the sizes and masks below
 * @nr_sq:      submission rings
 * @sq_entries: entries per SQ
 * @cq_entries: entries of the CQ
 * @next_sq:    the SQ a round starts at, round-robin; tw_client.lock
 * @armed_for:  what the header says of the hrtimer; tw_client.lock
 * @wheel_ns:   what the header says of the wheel; tw_client.lock
 * @flags:      TWHEEL_RING_*, as published; written under tw_client.lock
 *              with WRITE_ONCE(), read without it by read() and poll()
 * @broken:     the ring that broke them, or 0; tw_client.lock
 * @break_owed: the break is yet to wake pollers (tw_ring_take_break());
 *              tw_client.lock
 * @seq:        the header's sequence count; tw_client.lock
 * @off:        the time namespace offset at setup; constant
 * @resolution: the client's, fixed at setup; constant
 * @max_tick:   the last tick whose time is a ktime; constant
 * @slots:      @capacity slots, kernel-private
 * @periods:    per slot, its period in ticks, 0 for a one-shot; NULL
 *              without TWHEEL_RING_SETUP_PERIODIC; tw_client.lock
 * @waiting:    WAITING slots, in firing order; tw_client.lock
 * @nr_armed:   ARMED slots; tw_client.lock
 * @nr_waiting: WAITING slots; tw_client.lock
 * @parked:     PARKED slots: periodic ones whose expiry a callback posted,
 *              each due its next period in @node.expires, waiting for a
 *              system call to arm them again; tw_client.lock
 * @nr_parked:  PARKED slots; tw_client.lock
 * @softirq:    the consumption point running is the hrtimer callback's;
 *              tw_client.lock
 * @posted:     events and results posted, ever; tw_client.lock
 * @waited:     events that waited for room, ever; tw_client.lock
 * @errors:     entries that failed, ever; tw_client.lock
 * @memory:     the bytes allocated, as charged; constant
 * @maps:       the kernel's vmap() of each region: header, SQs, CQ
 * @pages:      every page, header first, then each SQ's, then the CQ's
 * @nr_pages:   the size of @pages
 * @sq_pages:   pages per SQ region
 * @cq_pages:   pages of the CQ region
 * @sq:         the SQs
 */
struct tw_ring {
	struct twheel_ring_hdr	*hdr;
	struct twheel_ring_ctl	*cq_ctl;
	struct twheel_cqe	*cqes;
	u32			cq_tail;
	u32			cq_room;
	u32			cq_stored;
	u32			capacity;
	u32			nr_sq;
	u32			sq_entries;
	u32			cq_entries;
	u32			next_sq;
	u64			armed_for;
	u64			wheel_ns;
	u32			flags;
	u32			broken;
	bool			break_owed;
	u32			seq;
	s64			off;
	u64			resolution;
	u64			max_tick;
	struct tw_rslot		*slots;
	u64			*periods;
	struct list_head	waiting;
	u64			nr_armed;
	u64			nr_waiting;
	struct list_head	parked;
	u64			nr_parked;
	bool			softirq;
	u64			posted;
	u64			waited;
	u64			errors;
	u64			memory;
	void			*maps[TWHEEL_RING_MAX_SQ + 2];
	struct page		**pages;
	unsigned long		nr_pages;
	unsigned long		sq_pages;
	unsigned long		cq_pages;
	struct tw_ring_sq	sq[];
};

static_assert(sizeof(struct twheel_ring_hdr) == 160);
static_assert(sizeof(struct twheel_ring_ctl) == 128);
static_assert(sizeof(struct twheel_sqe) == 32);
static_assert(sizeof(struct twheel_cqe) == 48);
static_assert(sizeof(struct twheel_ring_setup) == 64);
static_assert(offsetof(struct twheel_ring_hdr, posted) == 128);
static_assert(offsetof(struct twheel_ring_hdr, resolution_ns) == 88);
static_assert(offsetof(struct twheel_ring_ctl, tail) == 64);
static_assert(TWHEEL_OFF_SQ(TWHEEL_RING_MAX_SQ) <= TWHEEL_OFF_CQ);

static u32 tw_sq_bytes(u32 entries)
{
	return TW_CTL_BYTES + entries * sizeof(struct twheel_sqe);
}

static u32 tw_cq_bytes(u32 entries)
{
	return TW_CTL_BYTES + entries * sizeof(struct twheel_cqe);
}

/* The most CQ entries a setup may ask for: an event a slot, a result an entry. */
static u32 tw_cq_cap(const struct twheel_ring_setup *p)
{
	u64 want = (u64)p->capacity + (u64)p->nr_sq * p->sq_entries;

	return min_t(u64, TWHEEL_RING_MAX_CQ,
		     max_t(u64, TWHEEL_RING_MIN_ENTRIES, roundup_pow_of_two(want)));
}

static bool tw_ring_pow2_in(u32 v, u32 max)
{
	return is_power_of_2(v) && v >= TWHEEL_RING_MIN_ENTRIES && v <= max;
}

/* Setup's arguments; 0 or -EINVAL. */
static int tw_ring_check(const struct twheel_ring_setup *p)
{
	if (!p->capacity || p->capacity > TWHEEL_RING_MAX_CAPACITY ||
	    !p->nr_sq || p->nr_sq > TWHEEL_RING_MAX_SQ ||
	    (p->flags & ~TWHEEL_RING_SETUP_PERIODIC) ||
	    p->__reserved[0] || p->__reserved[1])
		return -EINVAL;
	if (!tw_ring_pow2_in(p->sq_entries, TWHEEL_RING_MAX_SQ_ENTRIES) ||
	    !tw_ring_pow2_in(p->cq_entries, tw_cq_cap(p)))
		return -EINVAL;
	return 0;
}

/**
 * tw_ring_size - check a setup's arguments and fill in its out fields
 * @p: the setup, as the caller gave it
 *
 * Return: 0, or -EINVAL for an argument out of range.
 */
int tw_ring_size(struct twheel_ring_setup *p)
{
	u64 pages;
	int ret = tw_ring_check(p);

	if (ret)
		return ret;
	p->hdr_bytes = PAGE_SIZE;
	p->sq_bytes = tw_sq_bytes(p->sq_entries);
	p->cq_bytes = tw_cq_bytes(p->cq_entries);
	pages = 1 + (u64)p->nr_sq * DIV_ROUND_UP(p->sq_bytes, PAGE_SIZE) +
		DIV_ROUND_UP(p->cq_bytes, PAGE_SIZE);
	p->memory = (u64)p->capacity * sizeof(struct tw_rslot) +
		    (u64)p->nr_sq * p->sq_entries * sizeof(s32) +
		    pages * (PAGE_SIZE + sizeof(struct page *)) + PAGE_SIZE;
	if (p->flags & TWHEEL_RING_SETUP_PERIODIC)
		p->memory += (u64)p->capacity * sizeof(u64);
	p->timers = max_t(u64, p->capacity, DIV_ROUND_UP(p->memory, 64));
	return 0;
}
EXPORT_SYMBOL_TW_KBENCH(tw_ring_size);

/* Allocate @r->nr_pages zeroed pages, charged; pausing for fatal signals. */
static int tw_ring_alloc_pages(struct tw_ring *r)
{
	unsigned long i;

	r->pages = kvcalloc(r->nr_pages, sizeof(*r->pages), TW_GFP);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < r->nr_pages; i++) {
		if (i && !(i % TW_PAGES_PER_PAUSE)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		r->pages[i] = alloc_page(TW_GFP | __GFP_ZERO);
		if (!r->pages[i])
			return -ENOMEM;
	}
	return 0;
}

/* The kernel's view of each region: one vmap() each. */
static int tw_ring_map(struct tw_ring *r)
{
	unsigned long first = 1;
	unsigned int i;

	r->maps[0] = vmap(r->pages, 1, VM_MAP, PAGE_KERNEL);
	if (!r->maps[0])
		return -ENOMEM;
	r->hdr = r->maps[0];
	for (i = 0; i < r->nr_sq; i++, first += r->sq_pages) {
		r->maps[i + 1] = vmap(r->pages + first, r->sq_pages, VM_MAP,
				      PAGE_KERNEL);
		if (!r->maps[i + 1])
			return -ENOMEM;
		r->sq[i].ctl = r->maps[i + 1];
		r->sq[i].sqes = r->maps[i + 1] + TW_CTL_BYTES;
	}
	r->maps[i + 1] = vmap(r->pages + first, r->cq_pages, VM_MAP, PAGE_KERNEL);
	if (!r->maps[i + 1])
		return -ENOMEM;
	r->cq_ctl = r->maps[i + 1];
	r->cqes = r->maps[i + 1] + TW_CTL_BYTES;
	return 0;
}

static int tw_ring_alloc_results(struct tw_ring *r)
{
	unsigned int i, k;

	for (i = 0; i < r->nr_sq; i++) {
		r->sq[i].res = kvmalloc_array(r->sq_entries, sizeof(s32), TW_GFP);
		if (!r->sq[i].res)
			return -ENOMEM;
		for (k = 0; k < r->sq_entries; k++)
			r->sq[i].res[k] = TW_RES_NONE;
	}
	return 0;
}

/* The header's constant part, written once at setup. */
static void tw_ring_init_hdr(struct tw_ring *r, const struct twheel_ring_setup *p,
			     clockid_t clockid)
{
	struct twheel_ring_hdr *h = r->hdr;

	h->armed_for = U64_MAX;
	h->capacity = p->capacity;
	h->nr_sq = p->nr_sq;
	h->sq_entries = p->sq_entries;
	h->cq_entries = p->cq_entries;
	h->clockid = clockid;
	h->resolution_ns = r->resolution;
	h->sq_bytes = p->sq_bytes;
	h->cq_bytes = p->cq_bytes;
	h->timens_offset_ns = r->off;
	r->armed_for = U64_MAX;
}

/**
 * tw_ring_alloc - allocate and set up the rings a checked setup describes
 * @p:          the setup, sized by tw_ring_size()
 * @clockid:    the client's clock, published in the header
 * @resolution: the client's resolution, fixed from now on
 * @off:        the caller's time namespace offset: every time in the rings
 *              is on that view
 *
 * Everything the rings will ever use is allocated here, charged to the
 * caller's memory cgroup.
 *
 * Context: process context; may sleep.
 * Return: the rings, or ERR_PTR(-ENOMEM) or ERR_PTR(-EINTR).
 */
struct tw_ring *tw_ring_alloc(struct twheel_ring_setup *p, clockid_t clockid,
			      u64 resolution, s64 off)
{
	struct tw_ring *r;
	int ret;

	r = kzalloc(struct_size(r, sq, p->nr_sq), TW_GFP);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->nr_sq = p->nr_sq;
	r->capacity = p->capacity;
	r->sq_entries = p->sq_entries;
	r->cq_entries = p->cq_entries;
	r->cq_room = p->cq_entries;
	r->resolution = resolution;
	r->max_tick = div64_u64(KTIME_MAX, resolution);
	r->off = off;
	r->memory = p->memory;
	INIT_LIST_HEAD(&r->waiting);
	INIT_LIST_HEAD(&r->parked);
	r->sq_pages = DIV_ROUND_UP(p->sq_bytes, PAGE_SIZE);
	r->cq_pages = DIV_ROUND_UP(p->cq_bytes, PAGE_SIZE);
	r->nr_pages = 1 + r->nr_sq * r->sq_pages + r->cq_pages;
	ret = tw_ring_alloc_pages(r);
	if (!ret)
		ret = tw_ring_map(r);
	if (!ret)
		ret = tw_ring_alloc_results(r);
	if (!ret) {
		r->slots = kvcalloc(r->capacity, sizeof(*r->slots), TW_GFP);
		ret = r->slots ? 0 : -ENOMEM;
	}
	if (!ret && (p->flags & TWHEEL_RING_SETUP_PERIODIC)) {
		r->periods = kvcalloc(r->capacity, sizeof(u64), TW_GFP);
		ret = r->periods ? 0 : -ENOMEM;
	}
	if (ret) {
		tw_ring_free(r);
		return ERR_PTR(ret);
	}
	tw_ring_init_hdr(r, p, clockid);
	return r;
}

/**
 * tw_ring_free - free the rings
 * @r: the rings; no hrtimer callback may run, and no mapping may be left
 *     (->release runs after the last munmap(), since each mapping holds
 *     the file)
 *
 * Pages are put, not freed: a page pinned by get_user_pages() outlives
 * this until it is unpinned.
 */
void tw_ring_free(struct tw_ring *r)
{
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(r->maps); i++)
		if (r->maps[i])
			vunmap(r->maps[i]);
	for (i = 0; r->pages && i < r->nr_pages && r->pages[i]; i++)
		put_page(r->pages[i]);
	kvfree(r->pages);
	for (i = 0; i < r->nr_sq; i++)
		kvfree(r->sq[i].res);
	kvfree(r->slots);
	kvfree(r->periods);
	kfree(r);
}

/**
 * tw_ring_memory - the bytes the rings hold, as charged at setup
 * @r: the rings
 *
 * Return: tw_ring_size()'s memory.
 */
u64 tw_ring_memory(const struct tw_ring *r)
{
	return r->memory;
}

/* The pages of the region at mmap() offset @off, and whether it may be written. */
static int tw_ring_region(const struct tw_ring *r, u64 off,
			  unsigned long *first, unsigned long *nr, bool *rw)
{
	u64 i;

	*rw = true;
	if (off == TWHEEL_OFF_RING_HDR) {
		*first = 0;
		*nr = 1;
		*rw = false;
	} else if (off == TWHEEL_OFF_CQ) {
		*first = 1 + r->nr_sq * r->sq_pages;
		*nr = r->cq_pages;
	} else if (off >= TWHEEL_OFF_SQ(0) && off < TWHEEL_OFF_SQ(r->nr_sq) &&
		   !((off - TWHEEL_OFF_SQ(0)) % (TWHEEL_OFF_SQ(1) - TWHEEL_OFF_SQ(0)))) {
		i = (off - TWHEEL_OFF_SQ(0)) / (TWHEEL_OFF_SQ(1) - TWHEEL_OFF_SQ(0));
		*first = 1 + i * r->sq_pages;
		*nr = r->sq_pages;
	} else {
		return -EINVAL;
	}
	return 0;
}

/**
 * tw_ring_capacity - the rings' timer slots
 * @r: the rings
 *
 * Return: the capacity set up; constant.
 */
u32 tw_ring_capacity(const struct tw_ring *r)
{
	return r->capacity;
}

/**
 * tw_ring_nr_sq - the rings' SQs, each of whose tails a callback loads
 * @r: the rings
 *
 * Return: the number set up; constant.
 */
unsigned int tw_ring_nr_sq(const struct tw_ring *r)
{
	return r->nr_sq;
}

/**
 * tw_ring_kaddr - the kernel's own mapping of one region, for tw_kbench.c
 * @r:   the rings
 * @off: the region's mmap() offset
 *
 * The in-kernel benchmark plays the producer and the CQ consumer through
 * it, as a process does through its mapping.
 *
 * Return: the region's first byte in the kernel's vmap(), or NULL for
 * another offset.
 */
void *tw_ring_kaddr(struct tw_ring *r, u64 off)
{
	unsigned long first, nr;
	bool rw;

	if (tw_ring_region(r, off, &first, &nr, &rw))
		return NULL;
	if (off == TWHEEL_OFF_RING_HDR)
		return r->hdr;
	if (off == TWHEEL_OFF_CQ)
		return r->cq_ctl;
	return r->sq[(first - 1) / r->sq_pages].ctl;
}
EXPORT_SYMBOL_TW_KBENCH(tw_ring_kaddr);

/**
 * tw_ring_mmap - map one region of the rings
 * @r:   the rings
 * @vma: the caller's mapping: MAP_SHARED, at a region's offset, no longer
 *       than the region
 *
 * The pages go in with vm_insert_pages(), each PTE holding a reference;
 * the mapping cannot grow (VM_DONTEXPAND), stays out of core dumps
 * (VM_DONTDUMP), and can never become executable, nor the header writable.
 *
 * Return: 0; -EINVAL for another offset, a length beyond the region or a
 * private mapping; -EACCES for PROT_EXEC, or PROT_WRITE on the header.
 */
int tw_ring_mmap(struct tw_ring *r, struct vm_area_struct *vma)
{
	unsigned long first, nr, len = vma_pages(vma);
	bool rw;
	int ret;

	ret = tw_ring_region(r, (u64)vma->vm_pgoff << PAGE_SHIFT, &first, &nr, &rw);
	/* A read-only file's MAP_SHARED mapping has VM_MAYSHARE alone. */
	if (ret || !len || len > nr || !(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if ((vma->vm_flags & VM_EXEC) || (!rw && (vma->vm_flags & VM_WRITE)))
		return -EACCES;
	tw_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP,
			VM_MAYEXEC | (rw ? 0 : VM_MAYWRITE));
	nr = len;
	return vm_insert_pages(vma, vma->vm_start, r->pages + first, &nr);
}

/*
 * Write the header's changing part under its sequence count, then make the
 * full barrier of the store-buffering pairs (tw_ring_hdr_announce()); the
 * counters, which no protocol reads, after it.  Not preempted while the
 * count is odd: on PREEMPT_RT the client's lock does not keep preemption
 * off, and a reader of a higher priority on this CPU, which retries until
 * the count is even (timingwheel_submit()), would spin for ever.
 */
static void tw_ring_announce(struct tw_ring *r)
{
	struct twheel_ring_hdr *h = r->hdr;
	struct tw_ring_news news = {
		.armed_for	= r->armed_for,
		.wheel_ns	= r->wheel_ns,
		.flags		= r->flags,
		.broken		= r->broken,
	};

	preempt_disable();
	tw_ring_hdr_announce(h, &r->seq, &news);
	preempt_enable();
	WRITE_ONCE(h->posted, r->posted);
	WRITE_ONCE(h->waited, r->waited);
	WRITE_ONCE(h->waiting, r->nr_waiting);
	WRITE_ONCE(h->errors, r->errors);
}

/* Corrupt shared memory: the rings are unusable from now on. */
static void tw_ring_break(struct tw_ring *r, u32 which)
{
	if (r->broken)
		return;
	r->broken = which;
	r->break_owed = true;
	/* No ring is looked at again: nothing to enter or flush for. */
	WRITE_ONCE(r->flags, TWHEEL_RING_BROKEN);
	/*
	 * The events this point posted, published before the flag (the
	 * announce's first smp_wmb()): a consumer whose acquire load sees
	 * the flag then sees every event there will ever be.  tw_ring_end()
	 * stores the same tail again.
	 */
	smp_store_release(&r->cq_ctl->tail, r->cq_tail);
	tw_ring_announce(r);
}

/* Load and check the CQ head: how much room the CQ has.  False if broken. */
static bool tw_ring_cq_check(struct tw_ring *r)
{
	/* The consumer's reads of the events are done before its head store. */
	u32 head = smp_load_acquire(&r->cq_ctl->head);
	u32 used = r->cq_tail - head;

	if (used > r->cq_entries) {
		tw_ring_break(r, TWHEEL_BROKEN_CQ);
		return false;
	}
	r->cq_room = r->cq_entries - used;
	return true;
}

/* The next CQ entry to write, or NULL if the CQ is full or broken. */
static struct twheel_cqe *tw_ring_cqe(struct tw_ring *r)
{
	struct twheel_cqe *e;

	if (r->broken || !r->cq_room)
		return NULL;
	e = &r->cqes[r->cq_tail & (r->cq_entries - 1)];
	r->cq_tail++;
	r->cq_room--;
	r->posted++;
	return e;
}

/* Post the expiry of slot @s; its fields, not the entry's, fill the event. */
static void tw_ring_post_expiry(struct tw_ring *r, struct twheel_cqe *e,
				const struct tw_rslot *s, u64 fired, u16 flags)
{
	u64 due = s->node.expires * r->resolution;

	e->cookie = s->cookie;
	e->due = tw_to_view(due, r->off);
	e->fired = tw_to_view(fired, r->off);
	e->overrun = 0;
	e->slot = s - r->slots;
	e->gen = s->gen;
	e->flags = TWHEEL_CQE_EXPIRY | flags;
	e->res = 0;
	e->sq = 0;
	e->__reserved = 0;
}

/* The period of slot @s in ticks, 0 for a one-shot. */
static u64 tw_ring_period(const struct tw_ring *r, const struct tw_rslot *s)
{
	return r->periods ? r->periods[s - r->slots] : 0;
}

/*
 * Post slot @s's expiry into @e, fired at @fired, the clock at @now.  A
 * one-shot slot is free again; a periodic one is due its first period
 * after @now, the periods it passed counted in the event's overrun: armed
 * for it, or, by a callback, parked until a system call arms it ("DOC:
 * Periodic slots").
 */
static void tw_ring_post_slot(struct tw_ring *r, struct tw_client *c,
			      struct twheel_cqe *e, struct tw_rslot *s,
			      u64 fired, u16 flags, u64 now)
{
	u64 every = tw_ring_period(r, s), due = s->node.expires, tick, next, rem;

	tw_ring_post_expiry(r, e, s, fired, flags);
	s->state = TW_RS_FREE;
	if (!every)
		return;
	tick = max(tw_div(now, r->resolution, c->res_inv, &rem), tw_now(&c->wheel));
	if (tick >= due + every)
		e->overrun = div64_u64(tick - due, every);
	next = due + (e->overrun + 1) * every;
	/* Past the wheel's or a ktime's reach, years ahead: the slot ends. */
	if (next >= tw_max_expiry(&c->wheel) || next > r->max_tick)
		return;
	e->flags |= TWHEEL_CQE_PERIODIC;
	tw_timer_init(&s->node);
	if (r->softirq) {
		s->node.expires = next;
		list_add_tail(&s->node.link, &r->parked);
		s->state = TW_RS_PARKED;
		r->nr_parked++;
		return;
	}
	/* Below the reach, which only moves on: cannot fail. */
	WARN_ON_ONCE(tw_start(&c->wheel, &s->node, next));
	s->state = TW_RS_ARMED;
	r->nr_armed++;
}

/*
 * Arm parked slots for their next period, within @budget, in process
 * context; one already due fires at the advance that follows.  Return
 * how many.
 */
static unsigned int tw_ring_unpark(struct tw_ring *r, struct tw_client *c,
				   unsigned int budget)
{
	struct tw_rslot *s;
	unsigned int n = 0;
	u64 next;

	while (n < budget && !list_empty(&r->parked)) {
		s = list_first_entry(&r->parked, struct tw_rslot, node.link);
		list_del(&s->node.link);
		r->nr_parked--;
		next = s->node.expires;
		tw_timer_init(&s->node);
		s->state = TW_RS_FREE;
		if (WARN_ON_ONCE(tw_start(&c->wheel, &s->node, next)))
			continue;
		s->state = TW_RS_ARMED;
		r->nr_armed++;
		n++;
	}
	return n;
}

/**
 * tw_ring_owns - whether a wheel node is one of the rings' slots
 * @r:    the rings, or NULL
 * @node: a node the wheel fired
 *
 * Return: true if @node lies in @r's slot array.
 */
bool tw_ring_owns(const struct tw_ring *r, const struct tw_timer *node)
{
	if (!r)
		return false;
	return (unsigned long)node - (unsigned long)r->slots <
	       (unsigned long)r->capacity * sizeof(*r->slots);
}

/**
 * tw_ring_fire - the wheel fired a slot: post its expiry, or let it wait
 * @r:    the rings
 * @c:    the client, its lock held; @c->fire_ns is the time it fired
 * @node: the slot's node, out of the wheel
 *
 * A slot posts only behind every waiting one, so that events keep their
 * firing order; else it waits for room, none lost, nothing allocated.
 */
void tw_ring_fire(struct tw_ring *r, struct tw_client *c, struct tw_timer *node)
{
	struct tw_rslot *s = container_of(node, struct tw_rslot, node);
	struct twheel_cqe *e = NULL;
	u64 due = node->expires * r->resolution;

	lockdep_assert_held(&c->lock);
	r->nr_armed--;
	if (list_empty(&r->waiting))
		e = tw_ring_cqe(r);
	if (e) {
		tw_ring_post_slot(r, c, e, s, c->fire_ns, 0, c->fire_ns);
		return;
	}
	s->late = min_t(u64, c->fire_ns > due ? c->fire_ns - due : 0, TW_LATE_MAX);
	s->state = TW_RS_WAITING;
	list_add_tail(&node->link, &r->waiting);
	r->nr_waiting++;
	r->waited++;
}

/*
 * Post waiting events, oldest first, within @budget, the clock at @now;
 * return how many.
 */
static unsigned int tw_ring_post_waiting(struct tw_ring *r, struct tw_client *c,
					 unsigned int budget, u64 now)
{
	struct tw_rslot *s;
	struct twheel_cqe *e;
	unsigned int n = 0;

	while (n < budget && !list_empty(&r->waiting)) {
		e = tw_ring_cqe(r);
		if (!e)
			break;
		s = list_first_entry(&r->waiting, struct tw_rslot, node.link);
		list_del(&s->node.link);
		r->nr_waiting--;
		tw_ring_post_slot(r, c, e, s, s->node.expires * r->resolution + s->late,
				  TWHEEL_CQE_WAITED, now);
		n++;
	}
	return n;
}

/*
 * Post SQ @i's results, in ring order, moving its published head over
 * entries with nothing to post, within @budget entries walked; then
 * publish the head.  With no result held, the head jumps to the applied
 * one at no cost, whatever the budget: an SQ whose last entry took a
 * chunk's last unit must not look full, nor its results held.  A result
 * without room stops it: the entries from there stay the kernel's, so the
 * producer sees its SQ fill.  Return the entries walked.
 */
static unsigned int tw_ring_post_results(struct tw_ring *r, unsigned int i,
					 unsigned int budget)
{
	struct tw_ring_sq *sq = &r->sq[i];
	const struct twheel_sqe *src;
	struct twheel_cqe *e;
	unsigned int n = 0;
	u32 idx;

	if (r->broken)
		return 0;
	while (sq->pub != sq->head) {
		if (!sq->held) {
			sq->pub = sq->head;
			break;
		}
		if (n == budget)
			break;
		idx = sq->pub & (r->sq_entries - 1);
		if (sq->res[idx] != TW_RES_NONE) {
			e = tw_ring_cqe(r);
			if (!e)
				break;
			src = &sq->sqes[idx];
			/* Only copied: a rewritten entry garbles its own result. */
			memset(e, 0, sizeof(*e));
			e->cookie = READ_ONCE(src->cookie);
			e->slot = READ_ONCE(src->slot);
			e->gen = READ_ONCE(src->gen);
			e->flags = TWHEEL_CQE_RESULT;
			e->res = sq->res[idx];
			e->sq = i;
			sq->res[idx] = TW_RES_NONE;
			sq->held--;
		}
		sq->pub++;
		n++;
	}
	/* Our reads of the entries are done before the producer reuses them. */
	smp_store_release(&sq->ctl->head, sq->pub);
	return n;
}

/*
 * Post the results that wait for CQ room, within @budget, before waiting
 * events: they hold SQ space, and periodic slots could keep the CQ full of
 * events forever, so that a stop's SQ never drained.  From the round's
 * first SQ, as tw_ring_consume(): a walk costs budget, and SQ 0 must not
 * take every callback's.  Return how many units.
 */
static unsigned int tw_ring_post_held(struct tw_ring *r, unsigned int budget)
{
	unsigned int i = r->next_sq, k, done = 0;

	for (k = 0; k < r->nr_sq && done < budget; k++) {
		if (r->sq[i].pub != r->sq[i].head)
			done += tw_ring_post_results(r, i, budget - done);
		if (++i == r->nr_sq)
			i = 0;
	}
	return done;
}

/*
 * The entry whose words, read once, are @w0 to @w3: a private copy,
 * initialised whole at its declaration, so it is not zeroed first.
 */
static __always_inline struct twheel_sqe tw_ring_sqe(u64 w0, u64 w1, u64 w2,
						     u64 w3)
{
	union {
		u64			w[4];
		struct twheel_sqe	e;
	} u = { .w = { w0, w1, w2, w3 } };

	static_assert(sizeof(u) == sizeof(u.e));
	return u.e;
}

/* The caller's names for slot @s, number @slot, once it is armed. */
static __always_inline void tw_ring_named(struct tw_ring *r,
					  struct tw_rslot *s, u32 slot,
					  const struct twheel_sqe *e, u64 every)
{
	s->gen = e->gen;
	s->cookie = e->cookie;
	if (r->periods)
		r->periods[slot] = every;
}

/* Take slot @s, not armed, off its list and arm it at @w. */
static int tw_ring_arm(struct tw_ring *r, struct tw_client *c,
		       struct tw_rslot *s, const struct tw_when *w)
{
	bool listed = s->state != TW_RS_FREE;
	int ret;

	if (s->state == TW_RS_WAITING) {
		list_del(&s->node.link);
		r->nr_waiting--;
	} else if (s->state == TW_RS_PARKED) {
		list_del(&s->node.link);
		r->nr_parked--;
	}
	s->state = TW_RS_FREE;
	tw_timer_init(&s->node);
	/* A range of one tick is that tick: tw_start() inline, no pick. */
	if (w->lo == w->hi)
		ret = tw_start(&c->wheel, &s->node, w->lo);
	else
		ret = tw_start_range(&c->wheel, &s->node, w->lo, w->hi);
	/* A listed slot's start was checked first: it cannot fail. */
	if (WARN_ON_ONCE(ret && listed))
		return ret;
	if (ret)
		return ret;
	r->nr_armed++;
	s->state = TW_RS_ARMED;
	return 0;
}

/*
 * Arm free slot @s, number @slot, for entry @e, a one-shot start with no
 * slack: the start a timeout makes, its tick found inline as
 * tw_client_when() finds it, and no range to pick from.
 */
static __always_inline int tw_ring_start_plain(struct tw_ring *r,
					       struct tw_client *c,
					       struct tw_rslot *s, u32 slot,
					       const struct twheel_sqe *e)
{
	u64 host, tick;
	int ret;

	ret = tw_to_host(e->when, r->off, &host);
	if (!ret)
		ret = tw_due_tick(c, host, &tick);
	if (ret)
		return ret;
	tw_timer_init(&s->node);
	ret = tw_start(&c->wheel, &s->node, tick);
	if (ret)
		return ret;
	r->nr_armed++;
	s->state = TW_RS_ARMED;
	tw_ring_named(r, s, slot, e, 0);
	return 0;
}

/*
 * Arm slot @s for entry @e, any start but a plain one (tw_ring_apply()):
 * periodic, with slack, re-armed, or taken off its list; *@every is its
 * period in ticks.
 */
static int tw_ring_start_any(struct tw_ring *r, struct tw_client *c,
			     struct tw_rslot *s, const struct twheel_sqe *e,
			     u64 *every)
{
	bool periodic = e->flags & TWHEEL_SQE_PERIODIC;
	struct tw_when w;
	u64 max;
	int ret;

	ret = tw_client_when(c, e->when, periodic ? 0 : e->arg,
			     periodic ? e->arg : 0, r->off, &w);
	if (ret)
		return ret;
	/*
	 * A refused start changes nothing: the wheel refuses a tick past its
	 * reach itself, but a waiting or parked slot leaves its list first,
	 * and a period must be reachable too.
	 */
	if (periodic || s->state == TW_RS_WAITING || s->state == TW_RS_PARKED) {
		max = tw_max_expiry(&c->wheel);
		if (w.lo >= max || w.interval >= max - w.lo)
			return -ERANGE;
	}
	*every = w.interval;
	/* Left alone if already due in the range: the core's policy. */
	if (s->state == TW_RS_ARMED)
		return tw_modify_range(&c->wheel, &s->node, w.lo, w.hi);
	return tw_ring_arm(r, c, s, &w);
}

/*
 * Arm slot @s, number @slot, for entry @e, a start that tw_ring_apply()
 * did not take inline: checked in this order, then armed.
 */
static int tw_ring_start(struct tw_ring *r, struct tw_client *c,
			 struct tw_rslot *s, u32 slot, const struct twheel_sqe *e)
{
	bool periodic = e->flags & TWHEEL_SQE_PERIODIC;
	u64 every = 0;
	int ret;

	if (periodic && !r->periods)
		return -EOPNOTSUPP;
	if (periodic && !e->arg)
		return -EINVAL;
	if (s->state != TW_RS_FREE &&
	    (!(e->flags & TWHEEL_SQE_REPLACE) || s->gen != e->gen))
		return -EEXIST;
	ret = tw_ring_start_any(r, c, s, e, &every);
	if (ret)
		return ret;
	tw_ring_named(r, s, slot, e, every);
	return 0;
}

/* Stop slot @s, ARMED: off the wheel. */
static __always_inline int tw_ring_stop_armed(struct tw_ring *r,
					      struct tw_client *c,
					      struct tw_rslot *s)
{
	tw_stop(&c->wheel, &s->node);
	r->nr_armed--;
	s->state = TW_RS_FREE;
	return TWHEEL_STOPPED_PENDING;
}

/* Stop slot @s for entry @e: TWHEEL_STOPPED_* or -ENOENT. */
static int tw_ring_stop(struct tw_ring *r, struct tw_client *c,
			struct tw_rslot *s, const struct twheel_sqe *e)
{
	if (e->when || e->arg || (e->flags & ~TWHEEL_SQE_RESULT))
		return -EINVAL;
	if (s->state == TW_RS_FREE || s->gen != e->gen)
		return -ENOENT;
	if (s->state == TW_RS_ARMED)
		return tw_ring_stop_armed(r, c, s);
	list_del(&s->node.link);
	/* Parked, a periodic slot is as good as armed. */
	if (s->state == TW_RS_PARKED) {
		r->nr_parked--;
		s->state = TW_RS_FREE;
		return TWHEEL_STOPPED_PENDING;
	}
	r->nr_waiting--;
	s->state = TW_RS_FREE;
	return TWHEEL_STOPPED_EXPIRED;
}

#define TW_SQE_FLAGS	(TWHEEL_SQE_REPLACE | TWHEEL_SQE_PERIODIC | TWHEEL_SQE_RESULT)

/* What an entry with @flags posts for @ret: TW_RES_NONE, or @ret. */
static __always_inline s32 tw_ring_result(struct tw_ring *r, u8 flags, int ret)
{
	if (ret < 0)
		r->errors++;
	else if (!(flags & TWHEEL_SQE_RESULT))
		return TW_RES_NONE;
	return ret;
}

/*
 * Apply the entry whose words are @w0 to @w3, whatever it asks: its result
 * to post, or TW_RES_NONE.
 */
static noinline s32 tw_ring_apply_any(struct tw_ring *r, struct tw_client *c,
				      u64 w0, u64 w1, u64 w2, u64 w3)
{
	struct twheel_sqe e = tw_ring_sqe(w0, w1, w2, w3);
	struct tw_rslot *s;
	u32 slot;
	int ret;

	if ((e.flags & ~TW_SQE_FLAGS) || e.slot >= r->capacity) {
		ret = -EINVAL;
	} else {
		slot = array_index_nospec(e.slot, r->capacity);
		s = &r->slots[slot];
		if (e.op == TWHEEL_SQE_START)
			ret = tw_ring_start(r, c, s, slot, &e);
		else if (e.op == TWHEEL_SQE_STOP)
			ret = tw_ring_stop(r, c, s, &e);
		else
			ret = -EINVAL;
	}
	return tw_ring_result(r, e.flags, ret);
}

/*
 * Apply the entry at @src: its result to post, or TW_RES_NONE.  Its words
 * are read once, here.  The two entries a timeout makes, a plain start of
 * a free slot and a stop of an armed one of its generation, are taken
 * inline with the entry in registers (a plain start's ERANGE too); every
 * other entry is tw_ring_apply_any()'s, out of line, on the same words,
 * which would give these two the same effects by its general paths.
 */
static __always_inline s32 tw_ring_apply(struct tw_ring *r,
					 struct tw_client *c,
					 const struct twheel_sqe *src)
{
	const u64 *w = (const u64 *)src;
	u64 w0 = READ_ONCE(w[0]), w1 = READ_ONCE(w[1]), w2 = READ_ONCE(w[2]);
	u64 w3 = READ_ONCE(w[3]);
	struct twheel_sqe e = tw_ring_sqe(w0, w1, w2, w3);
	struct tw_rslot *s;
	u32 slot;
	int ret;

	if ((e.flags & ~TWHEEL_SQE_RESULT) || e.arg || e.slot >= r->capacity)
		goto any;
	slot = array_index_nospec(e.slot, r->capacity);
	s = &r->slots[slot];
	if (e.op == TWHEEL_SQE_START && s->state == TW_RS_FREE)
		ret = tw_ring_start_plain(r, c, s, slot, &e);
	else if (e.op == TWHEEL_SQE_STOP && !e.when &&
		 s->state == TW_RS_ARMED && s->gen == e.gen)
		ret = tw_ring_stop_armed(r, c, s);
	else
		goto any;
	return tw_ring_result(r, e.flags, ret);
any:
	return tw_ring_apply_any(r, c, w0, w1, w2, w3);
}

/*
 * A slot is a cache miss once a file's slots outgrow the nearer caches and
 * its threads use them in no order a hardware prefetcher follows.  The
 * apply loop's own instructions then leave the processor room for few
 * misses in flight, so each entry would wait for its own.  From
 * TW_RING_PREFETCH_SLOTS slots on (640 KiB of them on 64-bit, 512 KiB on
 * 32-bit), tw_ring_apply_sq() prefetches the slot of the entry
 * TW_RING_AHEAD entries ahead of the one it applies.  The threshold is a
 * choice between measured points (benchmarks.rst, "Prefetching ahead"):
 * 4,096 slots used in order stay cached, and a prefetch there costs 1 to
 * 6 ns an entry; 4,096 entries scattered over 16,384 slots apply a start
 * 8 to 12 ns faster with it.
 */
#define TW_RING_PREFETCH_SLOTS	16384
#define TW_RING_AHEAD		8

/*
 * Prefetch for writing the slot the entry at @src names, if that is a slot.
 * A hint, and nothing is decided on it: the entry's words are read again,
 * once, by tw_ring_apply(), and a producer that rewrites the slot number
 * in between costs itself a miss, nothing else.  The number is bounded as
 * an index is, so that not even a mispredicted check prefetches outside
 * the slots.
 */
static __always_inline void tw_ring_prefetch(const struct tw_ring *r,
					     const struct twheel_sqe *src)
{
	u32 slot = READ_ONCE(src->slot);
	struct tw_rslot *s;

	if (slot < r->capacity) {
		s = &r->slots[array_index_nospec(slot, r->capacity)];
		/* Both lines of a slot that straddles two: 4 in 8 on 64-bit. */
		prefetchw(s);
		prefetchw((char *)(s + 1) - 1);
	}
}

/*
 * Apply the @n entries of @sq from @head on.  With @ahead, prefetch the
 * slots of the first TW_RING_AHEAD entries before applying any, then with
 * each entry applied the slot of the one TW_RING_AHEAD after it: of
 * entries below the tail loaded only.
 */
static __always_inline void tw_ring_apply_run(struct tw_ring *r,
					      struct tw_client *c,
					      struct tw_ring_sq *sq, u32 head,
					      u32 n, bool ahead)
{
	const struct twheel_sqe *sqes = sq->sqes;
	u32 mask = r->sq_entries - 1, k, idx;
	s32 res;

	for (k = 0; ahead && k < n && k < TW_RING_AHEAD; k++)
		tw_ring_prefetch(r, &sqes[(head + k) & mask]);
	for (k = 0; k < n; k++) {
		idx = (head + k) & mask;
		if (ahead && k + TW_RING_AHEAD < n)
			tw_ring_prefetch(r, &sqes[(idx + TW_RING_AHEAD) & mask]);
		res = tw_ring_apply(r, c, &sqes[idx]);
		if (res != TW_RES_NONE) {
			sq->res[idx] = res;
			sq->held++;
		}
	}
}

/*
 * Load SQ @i's tail once and check it against the private heads; apply up
 * to @budget entries, prefetching their slots once the file has slots
 * enough to outgrow a core's caches.  Return the entries applied; *@left
 * is set if any remain below the tail.  Out of line, so that the loop has
 * the registers to itself: inlined into tw_ring_begin(), it kept its entry
 * and slot on the stack (the prefetching copy of the loop still reloads a
 * few values from it).
 */
static noinline unsigned int tw_ring_apply_sq(struct tw_ring *r,
					      struct tw_client *c,
					      unsigned int i,
					      unsigned int budget, bool *left)
{
	struct tw_ring_sq *sq = &r->sq[i];
	/* The producer's entries are written before the tail we load. */
	u32 tail = smp_load_acquire(&sq->ctl->tail), head = sq->head, n;

	if (tail - sq->pub > r->sq_entries || tail - sq->pub < head - sq->pub) {
		tw_ring_break(r, TWHEEL_BROKEN_SQ | i);
		return 0;
	}
	n = min(tail - head, budget);
	if (r->capacity >= TW_RING_PREFETCH_SLOTS)
		tw_ring_apply_run(r, c, sq, head, n, true);
	else
		tw_ring_apply_run(r, c, sq, head, n, false);
	sq->head = head + n;
	if (head + n != tail)
		*left = true;
	return n;
}

/*
 * One round over the SQs, from the round's first, one SQ further each round:
 * results held for room first, since they hold SQ space, then the
 * entries.  Return the units of work done.
 */
static unsigned int tw_ring_consume(struct tw_ring *r, struct tw_client *c,
				    unsigned int budget, bool *left)
{
	unsigned int done = 0, k, i;

	for (k = 0; k < r->nr_sq && !r->broken; k++) {
		i = (r->next_sq + k) % r->nr_sq;
		if (done >= budget) {
			/* Only an SQ with entries not applied is work left. */
			if (READ_ONCE(r->sq[i].ctl->tail) != r->sq[i].head)
				*left = true;
			continue;
		}
		done += tw_ring_post_results(r, i, budget - done);
		if (done < budget)
			done += tw_ring_apply_sq(r, c, i, budget - done, left);
		/* Only compared: no entry is read after it. */
		else if (READ_ONCE(r->sq[i].ctl->tail) != r->sq[i].head)
			*left = true;
		/* With no budget left too: what posts nothing is handed back. */
		done += tw_ring_post_results(r, i, budget - done);
	}
	r->next_sq = (r->next_sq + 1) % r->nr_sq;
	return done;
}

/**
 * tw_ring_begin - a consumption point, before the wheel advances
 * @r:        the rings
 * @c:        the client, its lock held
 * @now:      the clock, host's view
 * @tick:     the tick the wheel would advance to
 * @budget:   the most units of work: entries applied, entries walked past
 *            while results are held, waiting events posted
 * @callback: the hrtimer callback: entries left set NEED_ENTER
 *
 * Publishes @tick as wheel_ns, makes a full barrier, then posts waiting
 * events and applies the SQs up to the tails it loads after the barrier
 * ("DOC: Stops that provably win").
 *
 * Return: true if every SQ was applied up to those tails, so the wheel may
 * advance to @tick.
 */
bool tw_ring_begin(struct tw_ring *r, struct tw_client *c, u64 now, u64 tick,
		   unsigned int budget, bool callback)
{
	bool left = false;
	unsigned int done = 0;

	lockdep_assert_held(&c->lock);
	/* Until tw_ring_end(): what the wheel fires meanwhile posts so. */
	r->softirq = callback;
	if (r->broken)
		return true;
	tick = max(tick, tw_now(&c->wheel));
	r->wheel_ns = max(r->wheel_ns, tw_to_view(tick * r->resolution, r->off));
	/* Its full barrier pairs with the stopper's fence after its tail store. */
	tw_ring_announce(r);
	WRITE_ONCE(r->cq_stored, r->cq_tail);
	if (!tw_ring_cq_check(r))
		return true;
	if (!callback)
		done = tw_ring_unpark(r, c, budget);
	done += tw_ring_post_held(r, budget - done);
	done += tw_ring_post_waiting(r, c, budget - done, now);
	tw_ring_consume(r, c, budget - done, &left);
	if (r->broken)
		return true;
	if (left && callback)
		WRITE_ONCE(r->flags, r->flags | TWHEEL_RING_NEED_ENTER);
	else if (!left)
		WRITE_ONCE(r->flags, r->flags & ~TWHEEL_RING_NEED_ENTER);
	return !left;
}

/**
 * tw_ring_end - after the wheel advanced: publish the CQ's new events
 * @r: the rings, the client's lock held
 *
 * Return: the events and results posted since tw_ring_begin(), for the
 * caller to wake readers.
 */
unsigned int tw_ring_end(struct tw_ring *r)
{
	u32 n = r->cq_tail - r->cq_stored;

	r->softirq = false;
	if (n)
		/* The events are written before the consumer sees the tail. */
		smp_store_release(&r->cq_ctl->tail, r->cq_tail);
	WRITE_ONCE(r->cq_stored, r->cq_tail);
	return n;
}

/**
 * tw_ring_results_held - whether entries' results wait for CQ room
 * @r: the rings, the client's lock held
 *
 * Return: true if an SQ's published head is behind its applied head.
 */
bool tw_ring_results_held(const struct tw_ring *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_sq; i++)
		if (r->sq[i].pub != r->sq[i].head)
			return true;
	return false;
}

/**
 * tw_ring_held - whether results or events wait for CQ room
 * @r: the rings, the client's lock held
 *
 * Return: true if any does.
 */
bool tw_ring_held(const struct tw_ring *r)
{
	return r->nr_waiting || tw_ring_results_held(r);
}

/**
 * tw_ring_work_bound - the most units of work the rings can hold at once
 * @r: the rings
 *
 * Return: every SQ entry twice (applied, then walked past by its published
 * head), every CQ entry and slot: what bounds RING_ENTER.
 */
u64 tw_ring_work_bound(const struct tw_ring *r)
{
	return 2ULL * r->nr_sq * r->sq_entries + r->cq_entries + r->capacity;
}

/**
 * tw_ring_publish - publish the hrtimer's time and the flags, then look
 * @r:         the rings, the client's lock held
 * @armed_for: the host time the hrtimer fires no later than; U64_MAX: idle
 *
 * The kernel's half of the store-buffering pairs ("DOC: No system call in
 * the steady state"): the stores, a full barrier, then the loads of every
 * SQ tail and of the CQ head, in a row.
 *
 * Return: true if an SQ holds entries not applied, or something held can
 * now be posted: the caller must see that a consumption point follows.
 */
bool tw_ring_publish(struct tw_ring *r, u64 armed_for)
{
	bool held = tw_ring_held(r);
	unsigned int i;

	if (r->broken)
		return false;
	r->armed_for = armed_for == U64_MAX ? U64_MAX : tw_to_view(armed_for, r->off);
	if (held || (r->flags & TWHEEL_RING_NEED_ENTER))
		WRITE_ONCE(r->flags, r->flags | TWHEEL_RING_NEED_FLUSH);
	else
		WRITE_ONCE(r->flags, r->flags & ~TWHEEL_RING_NEED_FLUSH);
	/* For the CQ's reader alone: submitters need not enter for it. */
	if (r->nr_parked)
		WRITE_ONCE(r->flags, r->flags | TWHEEL_RING_NEED_ARM);
	else
		WRITE_ONCE(r->flags, r->flags & ~TWHEEL_RING_NEED_ARM);
	/* Its full barrier pairs with the submitter's and the CQ consumer's. */
	tw_ring_announce(r);
	for (i = 0; i < r->nr_sq; i++)
		if (READ_ONCE(r->sq[i].ctl->tail) != r->sq[i].head)
			return true;
	return held && r->cq_entries != r->cq_tail - READ_ONCE(r->cq_ctl->head);
}

/**
 * tw_ring_stall - a callback leaves the rest to the file's system calls
 * @r: the rings, the client's lock held
 */
void tw_ring_stall(struct tw_ring *r)
{
	if (!r->broken)
		WRITE_ONCE(r->flags, r->flags | TWHEEL_RING_NEED_ENTER);
}

/**
 * tw_rings_supported - whether this kernel offers rings
 *
 * A 32-bit kernel's vmalloc space, about 120 MB, is shared and not charged
 * to the caller: no rings there, nor where the data cache aliases.
 *
 * Return: true if TWHEEL_IOC_RING_SETUP may succeed.
 */
bool tw_rings_supported(void)
{
	return IS_ENABLED(CONFIG_64BIT) && !tw_dcache_is_aliasing();
}

/**
 * tw_ring_stalled - whether a callback ran out of budget with entries left
 * @r: the rings, the client's lock held
 *
 * Return: true while NEED_ENTER is set: the wheel waits for a system call.
 */
bool tw_ring_stalled(const struct tw_ring *r)
{
	return !r->broken && (r->flags & TWHEEL_RING_NEED_ENTER);
}

/**
 * tw_ring_more - whether a consumption point has work left now
 * @r: the rings, the client's lock held
 *
 * Return: true if an SQ holds entries not applied, or events or results
 * wait while the CQ has room.
 */
bool tw_ring_more(struct tw_ring *r)
{
	unsigned int i;

	if (r->broken)
		return false;
	for (i = 0; i < r->nr_sq; i++)
		if (READ_ONCE(r->sq[i].ctl->tail) != r->sq[i].head)
			return true;
	return r->nr_parked ||
	       (tw_ring_held(r) && tw_ring_cq_check(r) && r->cq_room);
}

/**
 * tw_ring_broken - whether the rings broke
 * @r: the rings, the client's lock held
 *
 * Return: true once corrupt shared memory was seen.
 */
bool tw_ring_broken(const struct tw_ring *r)
{
	return r->broken;
}

/**
 * tw_ring_take_break - whether the rings broke since this was last asked
 * @r: the rings, the client's lock held
 *
 * A break posts nothing, so a point that breaks the rings may have nothing
 * else to wake pollers for.  Every path that consumes the rings asks this
 * before it drops the lock, wherever in its work the break happened, and
 * wakes with EPOLLERR in the key if so.
 *
 * Return: true once after the rings broke.
 */
bool tw_ring_take_break(struct tw_ring *r)
{
	bool owed = r->break_owed;

	r->break_owed = false;
	return owed;
}

/**
 * tw_ring_parked - PARKED slots, for GET_INFO's pending
 * @r: the rings, the client's lock held
 *
 * A parked periodic slot is armed for its next period, out of the wheel
 * until a system call puts it back: pending, as a stop of it reports
 * (TWHEEL_STOPPED_PENDING).  ARMED slots are in the wheel's own count.
 *
 * Return: the number of PARKED slots.
 */
u64 tw_ring_parked(const struct tw_ring *r)
{
	return r->nr_parked;
}

/**
 * tw_ring_queued - events the kernel holds for CQ room, for GET_INFO
 * @r: the rings, the client's lock held
 *
 * Return: the number of WAITING slots.
 */
u64 tw_ring_queued(const struct tw_ring *r)
{
	return r->nr_waiting;
}

/**
 * tw_ring_wants_enter - whether a callback left the wheel to system calls
 * @r: the rings
 *
 * Lockless, for a blocking read()'s wait, and it cannot miss a wakeup, as
 * tw_ring_poll_mask() cannot: NEED_ENTER is set under tw_client.lock, and
 * the callback that sets it wakes tw_client.wq after the unlock.
 *
 * Return: true while NEED_ENTER is set and the rings are not broken.
 */
bool tw_ring_wants_enter(const struct tw_ring *r)
{
	return (READ_ONCE(r->flags) & (TWHEEL_RING_NEED_ENTER | TWHEEL_RING_BROKEN)) ==
	       TWHEEL_RING_NEED_ENTER;
}

/**
 * tw_ring_poll_mask - what poll() reports of the rings
 * @r: the rings
 *
 * Lockless, and it cannot miss a wakeup: every change that makes this
 * report more (an event posted, a flag set, the rings broken) is made under
 * tw_client.lock and followed, after the unlock, by a wake-up of
 * tw_client.wq, which poll_wait() joined before this looked.  A stale
 * answer costs a look at an empty CQ, or an ENTER with nothing to do.
 *
 * Return: EPOLLIN | EPOLLRDNORM while the CQ holds events, events or
 * results wait, or a flag asks for RING_ENTER; EPOLLERR once broken.
 */
__poll_t tw_ring_poll_mask(struct tw_ring *r)
{
	u32 flags = READ_ONCE(r->flags);

	if (flags & TWHEEL_RING_BROKEN)
		return EPOLLERR | (READ_ONCE(r->cq_stored) !=
				   READ_ONCE(r->cq_ctl->head) ?
				   EPOLLIN | EPOLLRDNORM : 0);
	if ((flags & (TWHEEL_RING_NEED_ENTER | TWHEEL_RING_NEED_FLUSH |
		      TWHEEL_RING_NEED_ARM)) ||
	    READ_ONCE(r->cq_stored) != READ_ONCE(r->cq_ctl->head))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}
