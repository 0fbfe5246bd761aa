// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libtimingwheel: the shared-memory rings of /dev/timingwheel, in
 * liburing's shape (Documentation/timingwheel/rings.rst, "The library").
 *
 * The ordering contract is tw_ring.c's: entries, then the SQ tail with a
 * release store; the SQ head with an acquire load before an entry is
 * reused; the CQ tail with an acquire load before events are read, and
 * the CQ head with a release store after.  timingwheel_submit() and
 * timingwheel_cq_advance() are the user's side of two store-buffering
 * pairs: a store, a seq_cst fence, then a load of what the kernel
 * publishes (armed_for and NEED_ENTER against the SQ tail, NEED_FLUSH
 * against the CQ head, wheel_ns against a stopper's tail).
 *
 * Threads: one thread per SQ (timingwheel_ring_sq() to
 * timingwheel_submit(), timingwheel_sq_set_now() and its slots'
 * timingwheel_slot_get()); one CQ consumer at a time; timingwheel_slot_put()
 * from any thread.  Each SQ's free list is its thread's; a put, from any
 * thread, the SQ's own included, goes onto the SQ's return queue, an
 * intrusive MPSC FIFO (Vyukov's), which timingwheel_slot_get() drains in
 * order onto the free list when that is empty.
 *
 * The slot table: 8 bytes a slot (the link, the generation, the SQ, a taken
 * bit), and after the capacity's one more entry per SQ, the stub node of
 * its return queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libtimingwheel.h"

#define TW_EXPORT	__attribute__((visibility("default")))
/* The end of a free list. */
#define TW_NO_SLOT	UINT32_MAX

static void *tw_map(int fd, uint64_t off, size_t len, int prot)
{
	void *m = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)off);

	return m == MAP_FAILED ? NULL : m;
}

/* Map the header, every SQ and the CQ; -errno of the first mmap() failing. */
static int tw_ring_map(struct timingwheel_ring *ring)
{
	const struct twheel_ring_setup *p = &ring->params;
	int rw = PROT_READ | PROT_WRITE;
	uint32_t i;

	if (!ring->hdr)
		ring->hdr = tw_map(ring->fd, TWHEEL_OFF_RING_HDR, p->hdr_bytes, PROT_READ);
	if (!ring->hdr)
		return -errno;
	ring->cq = tw_map(ring->fd, TWHEEL_OFF_CQ, p->cq_bytes, rw);
	if (!ring->cq)
		return -errno;
	ring->cqes = (struct twheel_cqe *)(ring->cq + 1);
	ring->cq_mask = p->cq_entries - 1;
	for (i = 0; i < p->nr_sq; i++) {
		struct timingwheel_sq *sq = &ring->sqs[i];

		sq->ctl = tw_map(ring->fd, TWHEEL_OFF_SQ(i), p->sq_bytes, rw);
		if (!sq->ctl)
			return -errno;
		sq->sqes = (struct twheel_sqe *)(sq->ctl + 1);
	}
	return 0;
}

/* SQ @i's share of the slots starts here: an even split of capacity. */
static uint32_t tw_share(const struct twheel_ring_setup *p, uint32_t i)
{
	return (uint32_t)((uint64_t)i * p->capacity / p->nr_sq);
}

/* Each SQ's free list: its share of the slots, in order. */
static void tw_ring_lists(struct timingwheel_ring *ring)
{
	const struct twheel_ring_setup *p = &ring->params;
	uint32_t i, s, first, end;

	for (i = 0; i < p->nr_sq; i++) {
		struct timingwheel_sq *sq = &ring->sqs[i];

		first = tw_share(p, i);
		end = tw_share(p, i + 1);
		sq->ring = ring;
		sq->index = i;
		sq->mask = p->sq_entries - 1;
		sq->wheel_ns = UINT64_MAX;
		sq->free_head = first < end ? first : TW_NO_SLOT;
		sq->free_tail = first < end ? end - 1 : TW_NO_SLOT;
		for (s = first; s < end; s++) {
			ring->slots[s].next = s + 1 < end ? s + 1 : TW_NO_SLOT;
			ring->slots[s].sq = (uint8_t)i;
		}
		/* An empty return queue: its stub alone, head and tail. */
		s = p->capacity + i;
		ring->slots[s].next = TW_NO_SLOT;
		ring->slots[s].sq = (uint8_t)i;
		sq->rq_head = s;
		sq->rq_tail = s;
	}
}

/*
 * The integer after @name on its line of @buf (a "name sec nsec" table,
 * /proc/self/timens_offsets'), as ns; 0 if @name is not there.
 */
static int tw_timens_line(const char *buf, const char *name, int64_t *ns)
{
	size_t len = strlen(name);
	const char *l;
	char *end;
	long long sec, nsec;

	for (l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, name, len) || (l[len] != ' ' && l[len] != '\t'))
			continue;
		sec = strtoll(l + len, &end, 10);
		nsec = strtoll(end, &end, 10);
		*ns = sec * 1000000000LL + nsec;
		return 1;
	}
	return 0;
}

/*
 * TIMINGWHEEL_RING_OTHER_TIMENS in ring->flags when this process's time
 * namespace offset on the ring's clock differs from the one the rings
 * were set up with.  A file that cannot be read says nothing: no flag.
 */
static void tw_ring_timens(struct timingwheel_ring *ring)
{
	int boot = ring->hdr->clockid == CLOCK_BOOTTIME;
	char buf[256];
	int64_t off;
	ssize_t n;
	int fd;

	fd = open("/proc/self/timens_offsets", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (!tw_timens_line(buf, boot ? "boottime" : "monotonic", &off) &&
	    !tw_timens_line(buf, boot ? "7" : "1", &off))
		return;
	if (off != ring->hdr->timens_offset_ns)
		ring->flags |= TIMINGWHEEL_RING_OTHER_TIMENS;
}

/* A power of two in [TWHEEL_RING_MIN_ENTRIES, @max]. */
static int tw_pow2_in(uint32_t n, uint32_t max)
{
	return n >= TWHEEL_RING_MIN_ENTRIES && n <= max && !(n & (n - 1));
}

/*
 * Rings set up before on @ring->fd (by another process, or another
 * struct): the file asked first whether it is the device (EBADF,
 * ENOTTY), then the header mapped, one page, and the geometry read from
 * it and checked as a setup's would be.
 */
static int tw_ring_attach(struct timingwheel_ring *ring)
{
	struct twheel_ring_setup *p = &ring->params;
	long page = sysconf(_SC_PAGESIZE);
	const struct twheel_ring_hdr *h;
	struct twheel_info info;
	int ret = timingwheel_info(ring->fd, &info);

	if (ret)
		return ret;
	h = tw_map(ring->fd, TWHEEL_OFF_RING_HDR, (size_t)page, PROT_READ);
	if (!h)
		return -errno;
	ring->hdr = h;
	p->hdr_bytes = (uint32_t)page;
	p->capacity = h->capacity;
	p->nr_sq = h->nr_sq;
	p->sq_entries = h->sq_entries;
	p->cq_entries = h->cq_entries;
	p->sq_bytes = h->sq_bytes;
	p->cq_bytes = h->cq_bytes;
	if (!p->capacity || p->capacity > TWHEEL_RING_MAX_CAPACITY ||
	    !p->nr_sq || p->nr_sq > TWHEEL_RING_MAX_SQ ||
	    !tw_pow2_in(p->sq_entries, TWHEEL_RING_MAX_SQ_ENTRIES) ||
	    !tw_pow2_in(p->cq_entries, TWHEEL_RING_MAX_CQ) ||
	    p->sq_bytes < sizeof(struct twheel_ring_ctl) +
			  (uint64_t)p->sq_entries * sizeof(struct twheel_sqe) ||
	    p->cq_bytes < sizeof(struct twheel_ring_ctl) +
			  (uint64_t)p->cq_entries * sizeof(struct twheel_cqe))
		return -EINVAL;
	return 0;
}

/*
 * Attached: the indices where the kernel and the rings' other users left
 * them, the CQ's head and every SQ's tail (0 after a setup).
 */
static void tw_ring_resume(struct timingwheel_ring *ring)
{
	uint32_t i;

	ring->cq_head = __atomic_load_n(&ring->cq->head, __ATOMIC_ACQUIRE);
	for (i = 0; i < ring->params.nr_sq; i++) {
		struct timingwheel_sq *sq = &ring->sqs[i];

		sq->tail = __atomic_load_n(&sq->ctl->tail, __ATOMIC_ACQUIRE);
		sq->pub_tail = sq->tail;
	}
}

TW_EXPORT int timingwheel_ring_init(int fd,
				    const struct twheel_ring_setup *params,
				    struct timingwheel_ring *ring)
{
	int ret;

	if (!ring)
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	if (params) {
		ring->params = *params;
		if (ioctl(fd, TWHEEL_IOC_RING_SETUP, &ring->params) < 0)
			return -errno;
	} else {
		ret = tw_ring_attach(ring);
		if (ret) {
			/* The header, if a refused geometry came with it. */
			timingwheel_ring_exit(ring);
			return ret;
		}
	}
	ring->sqs = calloc(ring->params.nr_sq, sizeof(*ring->sqs));
	/* A stub per SQ after the slots: nr_sq <= 64, no overflow. */
	ring->slots = calloc((size_t)ring->params.capacity + ring->params.nr_sq,
			     sizeof(*ring->slots));
	if (!ring->sqs || !ring->slots)
		ret = -ENOMEM;
	else
		ret = tw_ring_map(ring);
	if (ret) {
		timingwheel_ring_exit(ring);
		return ret;
	}
	tw_ring_lists(ring);
	if (!params)
		tw_ring_resume(ring);
	tw_ring_timens(ring);
	return 0;
}

TW_EXPORT void timingwheel_ring_exit(struct timingwheel_ring *ring)
{
	const struct twheel_ring_setup *p = &ring->params;
	uint32_t i;

	for (i = 0; ring->sqs && i < p->nr_sq; i++)
		if (ring->sqs[i].ctl)
			munmap(ring->sqs[i].ctl, p->sq_bytes);
	if (ring->cq)
		munmap(ring->cq, p->cq_bytes);
	if (ring->hdr)
		munmap((void *)ring->hdr, p->hdr_bytes);
	free(ring->sqs);
	free(ring->slots);
	ring->sqs = NULL;
	ring->slots = NULL;
	ring->hdr = NULL;
	ring->cq = NULL;
	ring->cqes = NULL;
}

TW_EXPORT struct timingwheel_sq *timingwheel_ring_sq(struct timingwheel_ring *ring,
						     unsigned int i)
{
	if (!ring->sqs || i >= ring->params.nr_sq)
		return NULL;
	return &ring->sqs[i];
}

/*
 * The return queue, Vyukov's intrusive MPSC FIFO over slot indices: rq_head
 * is the last node put (the producers' exchange), rq_tail the oldest, or
 * the stub (the owner's alone); a node's next is TW_NO_SLOT until the node
 * put after it links itself.
 *
 * Ordering.  A put stores the node's next (TW_NO_SLOT) and its taken (0),
 * then exchanges rq_head with acq_rel, then stores the node into its
 * predecessor's next with release.  The release half of the exchange
 * orders the node's stores before it; the next producer's exchange reads
 * it with its acquire half, so that producer's link store into this
 * node's next comes after the TW_NO_SLOT store, never overwritten by it
 * (and likewise this put's link store comes after its predecessor's).
 * The link's release store pairs with the owner's acquire load of next:
 * the owner that sees a node sees its next and taken as the putter left
 * them, and everything the putter did before the put.  A node is taken
 * off only once its next is linked, so no producer writes it after; the
 * owner then links it into its free list with plain stores.
 *
 * Between its exchange and its link store a producer leaves a gap: the
 * nodes after the gap are the queue's but not yet reachable.  The owner
 * then finds a null next while rq_head is elsewhere: it takes the queue
 * as ending there for now (timingwheel_slot_get() answers -EAGAIN if it
 * has no other slot) and never waits for the producer.
 */
static void tw_rq_push(struct timingwheel_sq *sq, struct timingwheel_slot *slots,
		       uint32_t i)
{
	uint32_t prev;

	__atomic_store_n(&slots[i].next, TW_NO_SLOT, __ATOMIC_RELAXED);
	prev = __atomic_exchange_n(&sq->rq_head, i, __ATOMIC_ACQ_REL);
	__atomic_store_n(&slots[prev].next, i, __ATOMIC_RELEASE);
}

/* The oldest linked node of @sq's return queue, taken off; or TW_NO_SLOT. */
static uint32_t tw_rq_pop(struct timingwheel_sq *sq, struct timingwheel_slot *slots)
{
	uint32_t stub = sq->ring->params.capacity + sq->index;
	uint32_t tail = sq->rq_tail, next, head;

	next = __atomic_load_n(&slots[tail].next, __ATOMIC_ACQUIRE);
	if (tail == stub) {
		if (next == TW_NO_SLOT)
			return TW_NO_SLOT;	/* empty, or a put in its gap */
		tail = next;
		sq->rq_tail = tail;
		next = __atomic_load_n(&slots[tail].next, __ATOMIC_ACQUIRE);
	}
	if (next != TW_NO_SLOT) {
		sq->rq_tail = next;
		return tail;
	}
	/* @tail is the last linked node: the last put, or a put is in its gap. */
	head = __atomic_load_n(&sq->rq_head, __ATOMIC_ACQUIRE);
	if (tail != head)
		return TW_NO_SLOT;
	/* The last put: the stub goes behind it, so that it can be taken. */
	tw_rq_push(sq, slots, stub);
	/* A put may have come in between: read the link again. */
	next = __atomic_load_n(&slots[tail].next, __ATOMIC_ACQUIRE);
	if (next == TW_NO_SLOT)
		return TW_NO_SLOT;
	sq->rq_tail = next;
	return tail;
}

/* Append slot @i to @sq's free list: the owner's, plain stores. */
static void tw_free_append(struct timingwheel_sq *sq, uint32_t i)
{
	struct timingwheel_slot *slots = sq->ring->slots;

	slots[i].next = TW_NO_SLOT;
	if (sq->free_tail == TW_NO_SLOT)
		sq->free_head = i;
	else
		slots[sq->free_tail].next = i;
	sq->free_tail = i;
}

/*
 * Move every linked node of @sq's return queue, oldest first, onto the
 * tail of its free list.  Bounded: a slot is put once per get, and only
 * the owner gets.
 */
static void tw_rq_drain(struct timingwheel_sq *sq)
{
	uint32_t i;

	while ((i = tw_rq_pop(sq, sq->ring->slots)) != TW_NO_SLOT)
		tw_free_append(sq, i);
}

TW_EXPORT int timingwheel_slot_get(struct timingwheel_sq *sq, uint32_t *slot,
				   uint16_t *gen)
{
	struct timingwheel_slot *s;
	uint32_t i = sq->free_head;

	if (i == TW_NO_SLOT) {
		tw_rq_drain(sq);
		i = sq->free_head;
	}
	if (i == TW_NO_SLOT) {
		/* A put in its gap leaves rq_head past the owner's tail. */
		if (__atomic_load_n(&sq->rq_head, __ATOMIC_RELAXED) != sq->rq_tail)
			return -EAGAIN;
		return -ENOSPC;
	}
	s = &sq->ring->slots[i];
	sq->free_head = s->next;
	if (sq->free_head == TW_NO_SLOT)
		sq->free_tail = TW_NO_SLOT;
	s->next = TW_NO_SLOT;
	__atomic_store_n(&s->taken, 1, __ATOMIC_RELAXED);
	s->gen++;
	*slot = i;
	*gen = s->gen;
	return 0;
}

/*
 * Any thread, the owner's too: always through the return queue, one
 * exchange, so that the owner's free list stays its own.  taken is read
 * and cleared relaxed: two threads putting one slot at once is the
 * program's bug, as a double free() is; a slot put twice in turn is
 * refused.  The putter got the slot number through the CQ or the
 * program's own synchronisation, which orders the get's store of taken
 * before this load.
 */
TW_EXPORT int timingwheel_slot_put(struct timingwheel_ring *ring, uint32_t slot)
{
	struct timingwheel_slot *s;

	if (!ring->slots || slot >= ring->params.capacity)
		return -EINVAL;
	s = &ring->slots[slot];
	if (!__atomic_load_n(&s->taken, __ATOMIC_RELAXED))
		return -EINVAL;
	__atomic_store_n(&s->taken, 0, __ATOMIC_RELAXED);
	tw_rq_push(&ring->sqs[s->sq], ring->slots, slot);
	return 0;
}

/*
 * The owner's own put: straight onto its free list, no atomic exchange
 * (the exchange of timingwheel_slot_put() costs a pair about 4 ns).
 */
TW_EXPORT int timingwheel_sq_slot_put(struct timingwheel_sq *sq, uint32_t slot)
{
	struct timingwheel_ring *ring = sq->ring;
	struct timingwheel_slot *s;

	if (!ring->slots || slot >= ring->params.capacity)
		return -EINVAL;
	s = &ring->slots[slot];
	if (s->sq != sq->index || !__atomic_load_n(&s->taken, __ATOMIC_RELAXED))
		return -EINVAL;
	__atomic_store_n(&s->taken, 0, __ATOMIC_RELAXED);
	tw_free_append(sq, slot);
	return 0;
}

TW_EXPORT void timingwheel_sq_set_now(struct timingwheel_sq *sq, uint64_t now_ns)
{
	sq->now_ns = now_ns;
}

/**
 * struct tw_due - when the starts not yet submitted may fire, at the latest
 * @exact: the earliest time asked for by a start without slack, or by a
 *         periodic start (its first); the kernel fires it at the tick it
 *         rounds that up to (tw_tick_up())
 * @slack: the earliest end of a start's slack range, when + slack; the
 *         kernel picks a tick no later
 */
struct tw_due {
	uint64_t	exact;
	uint64_t	slack;
};

/*
 * A start_in() entry's delay becomes its time: after @now, the clock read
 * once for the batch, at its first such entry.
 */
static void tw_stamp(const struct timingwheel_sq *sq, struct twheel_sqe *e,
		     uint64_t *now)
{
	if (!*now)
		*now = timingwheel_now((clockid_t)sq->ring->hdr->clockid);
	e->when = *now + e->when < *now ? UINT64_MAX : *now + e->when;
	e->flags &= (uint8_t)~TIMINGWHEEL_SQE_STAMP;
}

/* Stamp the entries of the batch, and find when they fire (struct tw_due). */
static void tw_earliest(const struct timingwheel_sq *sq, struct tw_due *d)
{
	struct twheel_sqe *e;
	uint64_t end, now = 0;
	uint32_t i;

	d->exact = UINT64_MAX;
	d->slack = UINT64_MAX;
	for (i = sq->pub_tail; i != sq->tail; i++) {
		e = &sq->sqes[i & sq->mask];
		if (e->op != TWHEEL_SQE_START)
			continue;
		if (e->flags & TIMINGWHEEL_SQE_STAMP)
			tw_stamp(sq, e, &now);
		if ((e->flags & TWHEEL_SQE_PERIODIC) || !e->arg) {
			if (e->when < d->exact)
				d->exact = e->when;
			continue;
		}
		end = e->when + e->arg < e->when ? UINT64_MAX : e->when + e->arg;
		if (end < d->slack)
			d->slack = end;
	}
}

/*
 * The time @when fires at: rounded up to the file's tick on the host's
 * clock, as the kernel rounds it (tw_due_tick()), on the rings' view.
 * @when itself where that cannot be computed (the kernel refuses such a
 * time, or fires it at once): never later than the kernel's time.
 */
static uint64_t tw_tick_up(const struct twheel_ring_hdr *h, uint64_t when)
{
	uint64_t res = h->resolution_ns, host, up;
	int64_t off = h->timens_offset_ns;

	if (when > INT64_MAX || (off >= 0 && when <= (uint64_t)off))
		return when;
	host = when - (uint64_t)off;
	if (!res || host > INT64_MAX - res)
		return when;
	up = (host + res - 1) / res * res;
	return up + (uint64_t)off > INT64_MAX ? when : up + (uint64_t)off;
}

/*
 * The units of ring work one hrtimer callback does (uapi.rst): more
 * entries waiting at once make it leave them, and its timers, to a
 * system call.
 */
#define TW_CALLBACK_UNITS	32

/*
 * When the starts just published fire, at the earliest, for the ENTER
 * check.  A start due in the tick the hrtimer is armed for needs no ENTER:
 * the callback applies it before it fires that tick.  Only a start asked
 * for before @armed_for is rounded (one division), only while a callback's
 * work holds the SQ's backlog (@head: the SQ's head after the publish),
 * and only on rings of one SQ: a callback takes the SQs one after another,
 * so another thread's backlog may use up its work before it comes to this
 * one.  And only while the wheel has not reached that tick (a callback for
 * it, under way, may have read the SQ tails already).
 */
static uint64_t tw_due_at(const struct timingwheel_sq *sq, struct tw_due *d,
			  uint64_t armed_for, uint32_t head)
{
	uint64_t up;

	if (d->exact < armed_for && armed_for != UINT64_MAX &&
	    sq->ring->params.nr_sq == 1 && sq->tail - head <= TW_CALLBACK_UNITS) {
		up = tw_tick_up(sq->ring->hdr, d->exact);
		if (up > sq->wheel_ns)
			d->exact = up;
	}
	return d->exact < d->slack ? d->exact : d->slack;
}

/* armed_for, wheel_ns and flags, torn-free on a 32-bit process too. */
static void tw_read_hdr(const struct twheel_ring_hdr *h, uint64_t *armed_for,
			uint64_t *wheel_ns, uint32_t *flags)
{
	uint32_t s1, s2;

	do {
		s1 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		*armed_for = __atomic_load_n(&h->armed_for, __ATOMIC_RELAXED);
		*wheel_ns = __atomic_load_n(&h->wheel_ns, __ATOMIC_RELAXED);
		*flags = __atomic_load_n(&h->flags, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&h->seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
}

TW_EXPORT int timingwheel_submit(struct timingwheel_sq *sq)
{
	uint32_t n = sq->tail - sq->pub_tail, flags, head;
	uint64_t due, armed_for;
	struct tw_due d;
	int ret;

	tw_earliest(sq, &d);
	/* sq_set_now()'s time was this batch's. */
	sq->now_ns = 0;
	__atomic_store_n(&sq->ctl->tail, sq->tail, __ATOMIC_RELEASE);
	sq->pub_tail = sq->tail;
	/* The store-buffering pair with tw_ring_publish()'s smp_mb(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	tw_read_hdr(sq->ring->hdr, &armed_for, &sq->wheel_ns, &flags);
	head = __atomic_load_n(&sq->ctl->head, __ATOMIC_ACQUIRE);
	if (flags & TWHEEL_RING_BROKEN) {
		/* No stop is applied again: none can be said to win. */
		sq->wheel_ns = UINT64_MAX;
		return -EBADFD;
	}
	due = tw_due_at(sq, &d, armed_for, head);
	/* An idle hrtimer consumes nothing: entries need an ENTER. */
	if (due < armed_for || sq->tail - head > sq->mask ||
	    (n && armed_for == UINT64_MAX) ||
	    (flags & (TWHEEL_RING_NEED_ENTER | TWHEEL_RING_NEED_FLUSH))) {
		ret = timingwheel_ring_enter(sq->ring);
		if (ret < 0)
			return ret;
	}
	return (int)n;
}

TW_EXPORT int timingwheel_stop_won(const struct timingwheel_sq *sq,
				   uint64_t when_ns)
{
	return sq->wheel_ns < when_ns;
}

/*
 * Broken rings clear every NEED_* flag, so the consumer, which enters only
 * for those, asks the header itself.  The kernel posts nothing once it has
 * set the flag (acquire: the posts before it are seen).
 */
static int tw_ring_broken(const struct timingwheel_ring *ring)
{
	return !!(__atomic_load_n(&ring->hdr->flags, __ATOMIC_ACQUIRE) &
		  TWHEEL_RING_BROKEN);
}

TW_EXPORT int timingwheel_peek_cqe(struct timingwheel_ring *ring,
				   struct twheel_cqe **cqe)
{
	if (timingwheel_peek_batch_cqe(ring, cqe, 1))
		return 0;
	if (!tw_ring_broken(ring))
		return -EAGAIN;
	/* What was posted before the break is still read first. */
	return timingwheel_peek_batch_cqe(ring, cqe, 1) ? 0 : -EBADFD;
}

/* The kernel's flags that ask the CQ's consumer for a system call. */
#define TW_CQ_NEEDS	(TWHEEL_RING_NEED_FLUSH | TWHEEL_RING_NEED_ENTER | \
			 TWHEEL_RING_NEED_ARM)

TW_EXPORT unsigned int timingwheel_peek_batch_cqe(struct timingwheel_ring *ring,
						  struct twheel_cqe **cqes,
						  unsigned int n)
{
	uint32_t tail = __atomic_load_n(&ring->cq->tail, __ATOMIC_ACQUIRE);
	uint32_t avail = tail - ring->cq_head, i;

	/*
	 * An empty CQ while the kernel asks for a system call: a callback
	 * left the wheel to them (its user's softirq budget short), so a
	 * consumer that waits by peeking would wait for ever.  Enter, and
	 * look again.
	 */
	if (!avail && n &&
	    (__atomic_load_n(&ring->hdr->flags, __ATOMIC_ACQUIRE) & TW_CQ_NEEDS)) {
		int saved = errno;

		/* Its error shows again at the next submit or enter. */
		timingwheel_ring_enter(ring);
		errno = saved;
		tail = __atomic_load_n(&ring->cq->tail, __ATOMIC_ACQUIRE);
		avail = tail - ring->cq_head;
	}
	if (avail > ring->cq_mask + 1)
		avail = ring->cq_mask + 1;
	if (n > avail)
		n = avail;
	for (i = 0; i < n; i++)
		cqes[i] = &ring->cqes[(ring->cq_head + i) & ring->cq_mask];
	return n;
}

TW_EXPORT int timingwheel_cq_advance(struct timingwheel_ring *ring,
				     unsigned int n)
{
	uint32_t tail = __atomic_load_n(&ring->cq->tail, __ATOMIC_ACQUIRE);
	uint32_t flags;
	int ret;

	if (n > tail - ring->cq_head)
		return -EINVAL;
	ring->cq_head += n;
	__atomic_store_n(&ring->cq->head, ring->cq_head, __ATOMIC_RELEASE);
	/* The store-buffering pair with the kernel's NEED_FLUSH (and NEED_ARM) store. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Acquire: a break's events are seen with it (tw_ring_broken()). */
	flags = __atomic_load_n(&ring->hdr->flags, __ATOMIC_ACQUIRE);
	if (flags & TWHEEL_RING_BROKEN)
		/* Not while events posted before it wait to be read. */
		return __atomic_load_n(&ring->cq->tail, __ATOMIC_ACQUIRE) ==
		       ring->cq_head ? -EBADFD : 0;
	if (!(flags & TW_CQ_NEEDS))
		return 0;
	ret = timingwheel_ring_enter(ring);
	return ret < 0 ? ret : 0;
}

TW_EXPORT int timingwheel_ring_enter(struct timingwheel_ring *ring)
{
	int ret;

	__atomic_fetch_add(&ring->enters, 1, __ATOMIC_RELAXED);
	ret = ioctl(ring->fd, TWHEEL_IOC_RING_ENTER, NULL);
	return ret < 0 ? -errno : ret;
}
