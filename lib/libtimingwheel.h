/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libtimingwheel: a thin C library over /dev/timingwheel.
 *
 * Every function returns 0, a count or a positive result on success and a
 * negative errno on failure; none sets errno as its only report, and none
 * allocates memory but timingwheel_ring_init(), for its slot table.  The
 * structs are the kernel's own, from <linux/timingwheel.h>.
 *
 * The reference is the manual: libtimingwheel(3) for an overview, a page
 * per function (timingwheel_open(3), timingwheel_start(3), ...) for its
 * arguments, return value and errors, and timingwheel(4) for the device.
 * The comments here only say what each declaration is.
 */
#ifndef LIBTIMINGWHEEL_H
#define LIBTIMINGWHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <linux/timingwheel.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIMINGWHEEL_DEVICE	"/dev/timingwheel"

/*
 * The clockid of timingwheel_open(3) and timingwheel_config(3) that asks
 * for the default clock, CLOCK_MONOTONIC.  (In libtimingwheel 0.1.0 a
 * clockid of 0 meant that; 0 is CLOCK_REALTIME, now refused: -EINVAL.)
 * -1 can never be a valid clockid: a negative clockid is a CPU-time clock
 * (low 3 bits: bit 2 per-thread, bits 0-1 which clock, 0 to 2) or, with
 * low bits 3, a file descriptor's clock; -1's low bits are 7, a per-thread
 * clock number 3, which the kernel refuses (clock_gettime(-1, ...) fails
 * with EINVAL).
 */
#define TIMINGWHEEL_CLOCK_DEFAULT	((clockid_t)-1)

/* twheel_op.result of a batch entry the kernel did not get to. */
#define TIMINGWHEEL_RESULT_NONE	INT32_MIN

/* timingwheel_open(3): open a client of the device. */
int timingwheel_open(clockid_t clockid, uint64_t resolution_ns, int flags);

/* timingwheel_config(3): choose the clock and resolution of a new client. */
int timingwheel_config(int fd, clockid_t clockid, uint64_t resolution_ns);

/* timingwheel_start(3): start timer @id (TWHEEL_IOC_START). */
int timingwheel_start(int fd, uint64_t id, uint64_t value_ns,
		      uint64_t interval_ns, uint64_t slack_ns, unsigned int flags);

/* timingwheel_start_after(3): start one-shot timer @id @ns from now. */
int timingwheel_start_after(int fd, uint64_t id, uint64_t ns);

/* timingwheel_stop(3): stop timer @id (TWHEEL_IOC_STOP). */
int timingwheel_stop(int fd, uint64_t id);

/* timingwheel_query(3): the state of timer @id (TWHEEL_IOC_QUERY). */
int timingwheel_query(int fd, uint64_t id, struct twheel_query *q);

/* timingwheel_info(3): the client's settings and counters. */
int timingwheel_info(int fd, struct twheel_info *info);

/* timingwheel_has_feature(3): whether the running module offers @feature. */
int timingwheel_has_feature(int fd, uint64_t feature);

/* The batch of timingwheel_batch_init(3): the caller owns @ops. */
struct timingwheel_batch {
	int			fd;
	struct twheel_op	*ops;
	unsigned int		cap;
	unsigned int		count;
};

/* timingwheel_batch_init(3): set up an empty batch over caller-owned @ops. */
void timingwheel_batch_init(struct timingwheel_batch *b, int fd,
			    struct twheel_op *ops, unsigned int cap);

/* timingwheel_batch_init(3): queue a start. */
int timingwheel_batch_start(struct timingwheel_batch *b, uint64_t id,
			    uint64_t value_ns, uint64_t interval_ns,
			    uint64_t slack_ns, unsigned int flags);

/* timingwheel_batch_init(3): queue a stop. */
int timingwheel_batch_stop(struct timingwheel_batch *b, uint64_t id);

/* timingwheel_batch_init(3): apply every queued entry. */
int timingwheel_batch_submit(struct timingwheel_batch *b);

/* timingwheel_batch_init(3): empty the batch, keeping its storage. */
void timingwheel_batch_reset(struct timingwheel_batch *b);

/* timingwheel_read(3): read up to @max_events events. */
ssize_t timingwheel_read(int fd, struct twheel_event *ev, size_t max_events);

/* timingwheel_now(3): the time on @clockid, in ns, as the device counts it. */
uint64_t timingwheel_now(clockid_t clockid);

/* timingwheel_strerror(3): what error @err means for this device. */
const char *timingwheel_strerror(int err);

/*
 * Shared-memory rings (timingwheel_ring_init(3)): the regions of a ring
 * file, mapped, and the library's own state.  The caller allocates the
 * struct; timingwheel_ring_init() fills it and allocates the slot table
 * (the only allocation of the library), timingwheel_ring_exit() frees it.
 * Fields are read-only to the caller; ``enters`` counts the
 * TWHEEL_IOC_RING_ENTER calls the ring's functions made, ever, and
 * ``flags`` holds timingwheel_ring_init()'s warnings (TIMINGWHEEL_RING_*).
 */
struct timingwheel_ring;

/* One submission ring: one thread's (timingwheel_ring_sq(3)). */
struct timingwheel_sq {
	struct timingwheel_ring	*ring;
	struct twheel_ring_ctl	*ctl;
	struct twheel_sqe	*sqes;
	uint32_t		index;
	uint32_t		mask;
	uint32_t		tail;		/* next entry to fill */
	uint32_t		pub_tail;	/* tail at the last submit */
	uint32_t		free_head;	/* the free list of its slots */
	uint32_t		free_tail;
	uint64_t		wheel_ns;	/* header's, at the last submit */
	uint32_t		rq_head;	/* return queue: the last put, any thread's */
	uint32_t		rq_tail;	/* return queue: the oldest, the owner's */
	uint64_t		now_ns;		/* timingwheel_sq_set_now()'s, or 0 */
};

/*
 * Per slot, library-private, 8 bytes: @next links the SQ's free list or
 * its return queue; the table has one more entry per SQ, the return
 * queue's stub, after the capacity's.
 */
struct timingwheel_slot {
	uint32_t	next;
	uint16_t	gen;
	uint8_t		sq;
	uint8_t		taken;
};

/*
 * timingwheel_ring_init(3): ring->flags bit, the process's time namespace
 * offsets (/proc/self/timens_offsets) differ from the rings' (the header's
 * timens_offset_ns): the rings' times are not this process's clock's.
 */
#define TIMINGWHEEL_RING_OTHER_TIMENS	0x1U

struct timingwheel_ring {
	int				fd;
	uint32_t			cq_mask;
	uint32_t			cq_head;	/* next event to consume */
	uint32_t			flags;		/* TIMINGWHEEL_RING_* */
	struct twheel_ring_setup	params;
	const struct twheel_ring_hdr	*hdr;
	struct twheel_ring_ctl		*cq;
	struct twheel_cqe		*cqes;
	struct timingwheel_sq		*sqs;
	struct timingwheel_slot		*slots;
	uint64_t			enters;
	uint64_t			__reserved[4];
};

/* timingwheel_ring_init(3): set up the rings of @fd and map them. */
int timingwheel_ring_init(int fd, const struct twheel_ring_setup *params,
			  struct timingwheel_ring *ring);

/* timingwheel_ring_init(3): unmap and free; @ring->fd stays open. */
void timingwheel_ring_exit(struct timingwheel_ring *ring);

/* timingwheel_ring_sq(3): SQ @i, for one thread; NULL if out of range. */
struct timingwheel_sq *timingwheel_ring_sq(struct timingwheel_ring *ring,
					   unsigned int i);

/* timingwheel_slot_get(3): a free slot of @sq's share and its next gen. */
int timingwheel_slot_get(struct timingwheel_sq *sq, uint32_t *slot,
			 uint16_t *gen);

/* timingwheel_slot_get(3): give @slot back to its SQ, from any thread. */
int timingwheel_slot_put(struct timingwheel_ring *ring, uint32_t slot);

/* timingwheel_slot_get(3): give @slot back to @sq, from @sq's own thread. */
int timingwheel_sq_slot_put(struct timingwheel_sq *sq, uint32_t slot);

/*
 * The calls made once per entry are defined here, inline, as liburing's
 * are: a call each would cost an entry more than its work (rings.rst, "The
 * library").  The library exports them too, for programs that look them
 * up with dlsym() and for other languages' bindings (lib/inline.c).  So
 * the header needs C99 or GNU C, as liburing's does: static inline, and
 * GCC's __atomic built-ins.
 */
/* timingwheel_get_sqe(3): the next free entry of @sq, or NULL. */
static inline struct twheel_sqe *timingwheel_get_sqe(struct timingwheel_sq *sq)
{
	/* The kernel's reads of an entry end before its head passes it. */
	uint32_t head = __atomic_load_n(&sq->ctl->head, __ATOMIC_ACQUIRE);

	if (sq->tail - head > sq->mask)
		return NULL;
	return &sq->sqes[sq->tail++ & sq->mask];
}

/*
 * timingwheel_prep_start(3): an entry's flag that is the library's, never
 * the kernel's (which refuses it): a prep_start_in() delay that the submit
 * turns into a time.  The other prep_*() drop it from their @flags.
 */
#define TIMINGWHEEL_SQE_STAMP	0x80U

/* timingwheel_prep_start(3): fill @sqe with a start. */
static inline void timingwheel_prep_start(struct twheel_sqe *sqe, uint32_t slot,
					  uint16_t gen, uint64_t cookie,
					  uint64_t when_ns, uint64_t slack_ns,
					  unsigned int flags)
{
	sqe->op = TWHEEL_SQE_START;
	sqe->flags = (uint8_t)(flags & ~TIMINGWHEEL_SQE_STAMP);
	sqe->gen = gen;
	sqe->slot = slot;
	sqe->cookie = cookie;
	sqe->when = when_ns;
	sqe->arg = slack_ns;
}

/*
 * timingwheel_prep_start(3): a start @delay_ns after timingwheel_sq_set_now()'s
 * time, or else after a clock read of the submit that publishes it: with no
 * such time the entry holds its delay, marked, and the submit reads the
 * clock once for its batch, after every prep of it, so that no start is
 * due before its delay has passed since its prep (lib/ring.c, tw_stamp()).
 */
static inline void timingwheel_prep_start_in(struct timingwheel_sq *sq,
					     struct twheel_sqe *sqe,
					     uint32_t slot, uint16_t gen,
					     uint64_t cookie, uint64_t delay_ns,
					     uint64_t slack_ns, unsigned int flags)
{
	uint64_t now = sq->now_ns;

	flags &= ~TWHEEL_SQE_PERIODIC;
	/* Past a ktime's reach the kernel answers ERANGE, as for a START. */
	if (now) {
		timingwheel_prep_start(sqe, slot, gen, cookie,
				       now + delay_ns < now ? UINT64_MAX :
				       now + delay_ns, slack_ns, flags);
	} else {
		timingwheel_prep_start(sqe, slot, gen, cookie, delay_ns,
				       slack_ns, flags);
		sqe->flags |= TIMINGWHEEL_SQE_STAMP;
	}
}

/* timingwheel_sq_set_now(3): @sq's time for prep_start_in() until submit; 0 clears. */
void timingwheel_sq_set_now(struct timingwheel_sq *sq, uint64_t now_ns);

/* timingwheel_prep_start(3): fill @sqe with a periodic start. */
static inline void timingwheel_prep_periodic(struct twheel_sqe *sqe,
					     uint32_t slot, uint16_t gen,
					     uint64_t cookie, uint64_t first_ns,
					     uint64_t period_ns, unsigned int flags)
{
	timingwheel_prep_start(sqe, slot, gen, cookie, first_ns, period_ns,
			       flags | TWHEEL_SQE_PERIODIC);
}

/* timingwheel_prep_start(3): fill @sqe with a stop. */
static inline void timingwheel_prep_stop(struct twheel_sqe *sqe, uint32_t slot,
					 uint16_t gen, uint64_t cookie,
					 unsigned int flags)
{
	/* A start of no time and no slack, but a stop: one store is dead. */
	timingwheel_prep_start(sqe, slot, gen, cookie, 0, 0, flags);
	sqe->op = TWHEEL_SQE_STOP;
}

/* timingwheel_submit(3): publish @sq's entries; enter only if needed. */
int timingwheel_submit(struct timingwheel_sq *sq);

/* timingwheel_submit(3): whether the last submit's stops of @when_ns win. */
int timingwheel_stop_won(const struct timingwheel_sq *sq, uint64_t when_ns);

/* timingwheel_peek_cqe(3): the oldest event, not consumed; -EBADFD once broken and empty. */
int timingwheel_peek_cqe(struct timingwheel_ring *ring,
			 struct twheel_cqe **cqe);

/* timingwheel_peek_cqe(3): up to @n of the oldest events. */
unsigned int timingwheel_peek_batch_cqe(struct timingwheel_ring *ring,
					struct twheel_cqe **cqes,
					unsigned int n);

/*
 * timingwheel_peek_cqe(3): consume @n events; enter if the kernel asks;
 * -EBADFD once broken and empty.
 */
int timingwheel_cq_advance(struct timingwheel_ring *ring, unsigned int n);

/* timingwheel_ring_enter(3): TWHEEL_IOC_RING_ENTER now. */
int timingwheel_ring_enter(struct timingwheel_ring *ring);

#ifdef __cplusplus
}
#endif

#endif /* LIBTIMINGWHEEL_H */
