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
 * timingwheel_submit(), and its slots' timingwheel_slot_get() and
 * timingwheel_slot_put()); one CQ consumer at a time.  The design's MPSC
 * return queue, which lets any thread put a slot, is a later step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

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
	}
}

TW_EXPORT int timingwheel_ring_init(int fd,
				    const struct twheel_ring_setup *params,
				    struct timingwheel_ring *ring)
{
	int ret;

	if (!params || !ring)
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	ring->params = *params;
	if (ioctl(fd, TWHEEL_IOC_RING_SETUP, &ring->params) < 0)
		return -errno;
	ring->sqs = calloc(ring->params.nr_sq, sizeof(*ring->sqs));
	ring->slots = calloc(ring->params.capacity, sizeof(*ring->slots));
	if (!ring->sqs || !ring->slots)
		ret = -ENOMEM;
	else
		ret = tw_ring_map(ring);
	if (ret) {
		timingwheel_ring_exit(ring);
		return ret;
	}
	tw_ring_lists(ring);
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

TW_EXPORT int timingwheel_slot_get(struct timingwheel_sq *sq, uint32_t *slot,
				   uint16_t *gen)
{
	struct timingwheel_slot *s;
	uint32_t i = sq->free_head;

	if (i == TW_NO_SLOT)
		return -ENOSPC;
	s = &sq->ring->slots[i];
	sq->free_head = s->next;
	if (sq->free_head == TW_NO_SLOT)
		sq->free_tail = TW_NO_SLOT;
	s->next = TW_NO_SLOT;
	s->taken = 1;
	s->gen++;
	*slot = i;
	*gen = s->gen;
	return 0;
}

TW_EXPORT int timingwheel_slot_put(struct timingwheel_ring *ring, uint32_t slot)
{
	struct timingwheel_sq *sq;
	struct timingwheel_slot *s;

	if (!ring->slots || slot >= ring->params.capacity ||
	    !ring->slots[slot].taken)
		return -EINVAL;
	s = &ring->slots[slot];
	sq = &ring->sqs[s->sq];
	s->taken = 0;
	if (sq->free_tail == TW_NO_SLOT)
		sq->free_head = slot;
	else
		ring->slots[sq->free_tail].next = slot;
	sq->free_tail = slot;
	return 0;
}

TW_EXPORT struct twheel_sqe *timingwheel_get_sqe(struct timingwheel_sq *sq)
{
	uint32_t head = __atomic_load_n(&sq->ctl->head, __ATOMIC_ACQUIRE);

	if (sq->tail - head > sq->mask)
		return NULL;
	return &sq->sqes[sq->tail++ & sq->mask];
}

TW_EXPORT void timingwheel_prep_start(struct twheel_sqe *sqe, uint32_t slot,
				      uint16_t gen, uint64_t cookie,
				      uint64_t when_ns, uint64_t slack_ns,
				      unsigned int flags)
{
	sqe->op = TWHEEL_SQE_START;
	sqe->flags = (uint8_t)flags;
	sqe->gen = gen;
	sqe->slot = slot;
	sqe->cookie = cookie;
	sqe->when = when_ns;
	sqe->arg = slack_ns;
}

TW_EXPORT void timingwheel_prep_start_in(struct timingwheel_sq *sq,
					 struct twheel_sqe *sqe, uint32_t slot,
					 uint16_t gen, uint64_t cookie,
					 uint64_t delay_ns, uint64_t slack_ns,
					 unsigned int flags)
{
	uint64_t now = timingwheel_now((clockid_t)sq->ring->hdr->clockid);
	uint64_t when = now + delay_ns < now ? UINT64_MAX : now + delay_ns;

	/* Past a ktime's reach the kernel answers ERANGE, as for a START. */
	timingwheel_prep_start(sqe, slot, gen, cookie, when, slack_ns,
			       flags & ~TWHEEL_SQE_PERIODIC);
}

TW_EXPORT void timingwheel_prep_periodic(struct twheel_sqe *sqe, uint32_t slot,
					 uint16_t gen, uint64_t cookie,
					 uint64_t first_ns, uint64_t period_ns,
					 unsigned int flags)
{
	timingwheel_prep_start(sqe, slot, gen, cookie, first_ns, period_ns,
			       flags | TWHEEL_SQE_PERIODIC);
}

TW_EXPORT void timingwheel_prep_stop(struct twheel_sqe *sqe, uint32_t slot,
				     uint16_t gen, uint64_t cookie,
				     unsigned int flags)
{
	sqe->op = TWHEEL_SQE_STOP;
	sqe->flags = (uint8_t)flags;
	sqe->gen = gen;
	sqe->slot = slot;
	sqe->cookie = cookie;
	sqe->when = 0;
	sqe->arg = 0;
}

/*
 * The earliest deadline of the starts not yet submitted: when + slack, or
 * a periodic start's first due time (its arg is the period).
 */
static uint64_t tw_earliest(const struct timingwheel_sq *sq)
{
	uint64_t due, min = UINT64_MAX;
	const struct twheel_sqe *e;
	uint32_t i;

	for (i = sq->pub_tail; i != sq->tail; i++) {
		e = &sq->sqes[i & sq->mask];
		if (e->op != TWHEEL_SQE_START)
			continue;
		if (e->flags & TWHEEL_SQE_PERIODIC)
			due = e->when;
		else
			due = e->when + e->arg < e->when ? UINT64_MAX : e->when + e->arg;
		if (due < min)
			min = due;
	}
	return min;
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
	uint64_t due = tw_earliest(sq), armed_for;
	int ret;

	__atomic_store_n(&sq->ctl->tail, sq->tail, __ATOMIC_RELEASE);
	sq->pub_tail = sq->tail;
	/* The store-buffering pair with tw_ring_publish()'s smp_mb(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	tw_read_hdr(sq->ring->hdr, &armed_for, &sq->wheel_ns, &flags);
	head = __atomic_load_n(&sq->ctl->head, __ATOMIC_ACQUIRE);
	if (flags & TWHEEL_RING_BROKEN)
		return -EBADFD;
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

TW_EXPORT int timingwheel_peek_cqe(struct timingwheel_ring *ring,
				   struct twheel_cqe **cqe)
{
	return timingwheel_peek_batch_cqe(ring, cqe, 1) ? 0 : -EAGAIN;
}

TW_EXPORT unsigned int timingwheel_peek_batch_cqe(struct timingwheel_ring *ring,
						  struct twheel_cqe **cqes,
						  unsigned int n)
{
	uint32_t tail = __atomic_load_n(&ring->cq->tail, __ATOMIC_ACQUIRE);
	uint32_t avail = tail - ring->cq_head, i;

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
	flags = __atomic_load_n(&ring->hdr->flags, __ATOMIC_RELAXED);
	if (!(flags & (TWHEEL_RING_NEED_FLUSH | TWHEEL_RING_NEED_ENTER |
		       TWHEEL_RING_NEED_ARM)))
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
