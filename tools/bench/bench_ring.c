// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ring: the user side of the rings, measured on this host with
 * libtimingwheel's own functions, unchanged, over rings in plain memory.
 *
 * The host has no module, so bench_device is linked with
 * -Wl,--wrap=ioctl,--wrap=mmap: on one file, the mock's, TWHEEL_IOC_RING_SETUP
 * sizes the regions as the module does, mmap() gives anonymous memory, and
 * TWHEEL_IOC_RING_ENTER "consumes" by moving every SQ head to its tail under
 * one mutex, as the module's ENTER takes the client's lock.  Every other
 * file goes to the real calls.  While timers are armed the header says the
 * hrtimer is armed for time 1, before every due time, and a start later
 * than armed_for needs no ENTER; when an ENTER leaves none armed (it
 * counts the starts and stops it applies) the header says ~0, idle, as the
 * module's does, and the next submit with entries enters.  What the module
 * does with the entries is the kernel side, measured apart (tw_kbench.c's
 * ring_* lines) and added in the projection.
 *
 * The mock's ENTER is timed and left out of the user side's time: its
 * work stands for the kernel's, which the projection adds.
 *
 * Counted, not assumed: the ENTERs the library makes (ring->enters).  A
 * real kernel also consumes at every hrtimer callback, which here would
 * only spare ENTERs of a full SQ.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/timingwheel.h>

#include "bench.h"
#include "bench_ring.h"
#include "libtimingwheel.h"

#define RB_CAPACITY	65536
#define RB_SQS		2
#define RB_SQ_ENTRIES	4096
#define RB_CQ_ENTRIES	4096
/* Timers per round: started, then stopped. */
#define RB_ROUND	4096
#define RB_ROUNDS	256
#define RB_REPS		5
#define RB_AHEAD_NS	NSEC_PER_SEC
/* An event loop's batch: entries per submit, the clock read once. */
#define RB_BATCH	32
#define RB_READ_BATCH	64

/**
 * struct rb_mock - the rings in plain memory, in place of the module's
 * @fd:    the file the mock answers for (-1: none)
 * @hdr:   the header region, once mapped
 * @sq:    each SQ region's control block, once mapped
 * @mask:  entries per SQ, less one
 * @armed: starts less stops applied: the slots armed; @lock
 * @lock:  what ENTER holds, as the module holds the client's lock
 */
static struct rb_mock {
	int			fd;
	struct twheel_ring_hdr	*hdr;
	struct twheel_ring_ctl	*sq[RB_SQS];
	uint32_t		mask;
	int64_t			armed;
	pthread_mutex_t		lock;
} mock = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/* The header's armed_for, under its seq, as the module writes it. */
static void mock_armed_for(uint64_t t)
{
	struct twheel_ring_hdr *h = mock.hdr;

	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&h->armed_for, t, __ATOMIC_RELAXED);
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
}

static int mock_setup(struct twheel_ring_setup *p)
{
	if (p->nr_sq > RB_SQS)
		return -EINVAL;
	p->hdr_bytes = 4096;
	p->sq_bytes = sizeof(struct twheel_ring_ctl) +
		      p->sq_entries * sizeof(struct twheel_sqe);
	p->cq_bytes = sizeof(struct twheel_ring_ctl) +
		      p->cq_entries * sizeof(struct twheel_cqe);
	mock.mask = p->sq_entries - 1;
	mock.armed = 0;
	return 0;
}

/* Apply SQ @ctl up to its tail: count its starts and stops. */
static void mock_apply(struct twheel_ring_ctl *ctl)
{
	const struct twheel_sqe *e = (const struct twheel_sqe *)(ctl + 1);
	uint32_t head = ctl->head, tail = __atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE);

	for (; head != tail; head++)
		mock.armed += e[head & mock.mask].op == TWHEEL_SQE_START ? 1 : -1;
	__atomic_store_n(&ctl->head, tail, __ATOMIC_RELEASE);
}

/*
 * ENTER: every SQ applied; the hrtimer idle once nothing is armed.  Its
 * time is the kernel's, which the projection adds from tw_kbench.c's
 * figures: left out of the user side's (bench_excluded_ns).
 */
static int mock_enter(void)
{
	uint64_t t0 = bench_now_ns();
	unsigned int i;

	pthread_mutex_lock(&mock.lock);
	for (i = 0; i < RB_SQS; i++)
		if (mock.sq[i])
			mock_apply(mock.sq[i]);
	mock_armed_for(mock.armed ? 1 : UINT64_MAX);
	pthread_mutex_unlock(&mock.lock);
	bench_excluded_ns += bench_now_ns() - t0;
	return 0;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != mock.fd || mock.fd < 0)
		return __real_ioctl(fd, req, arg);
	if (req == TWHEEL_IOC_RING_SETUP && !mock_setup(arg))
		return 0;
	if (req == TWHEEL_IOC_RING_ENTER)
		return mock_enter();
	errno = EINVAL;
	return -1;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	void *m;
	uint64_t i;

	if (fd != mock.fd || mock.fd < 0)
		return __real_mmap(addr, len, prot, flags, fd, off);
	m = __real_mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		return m;
	if ((uint64_t)off == TWHEEL_OFF_RING_HDR) {
		mock.hdr = m;
		/* Nothing armed: the hrtimer idle. */
		mock.hdr->armed_for = UINT64_MAX;
	}
	for (i = 0; i < RB_SQS; i++)
		if ((uint64_t)off == TWHEEL_OFF_SQ(i))
			mock.sq[i] = m;
	return m;
}

/* The mock's rings: what a runtime with two threads would set up. */
static int rb_init(struct timingwheel_ring *ring)
{
	struct twheel_ring_setup p = {
		.capacity = RB_CAPACITY, .nr_sq = RB_SQS,
		.sq_entries = RB_SQ_ENTRIES, .cq_entries = RB_CQ_ENTRIES,
	};
	int ret;

	memset(&mock.sq, 0, sizeof(mock.sq));
	mock.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (mock.fd < 0)
		return -errno;
	ret = timingwheel_ring_init(mock.fd, &p, ring);
	if (ret) {
		close(mock.fd);
		mock.fd = -1;
	}
	return ret;
}

static void rb_exit(struct timingwheel_ring *ring)
{
	timingwheel_ring_exit(ring);
	close(mock.fd);
	mock.fd = -1;
}

/* Take an entry, entering as the library does when the SQ is full. */
static struct twheel_sqe *rb_sqe(struct timingwheel_sq *sq)
{
	struct twheel_sqe *e = timingwheel_get_sqe(sq);

	if (!e && timingwheel_submit(sq) >= 0)
		e = timingwheel_get_sqe(sq);
	if (!e) {
		fprintf(stderr, "bench-device: ring: no SQ entry\n");
		exit(1);
	}
	return e;
}

/**
 * struct rb_timer - what a caller keeps of one ring timer
 * @slot: its slot
 * @gen:  the generation of its start
 */
struct rb_timer {
	uint32_t	slot;
	uint16_t	gen;
};

/* Whether entry @i is the last before a submit. */
static bool rb_submit_now(enum rb_mode m, uint32_t i)
{
	return m == RB_EACH || i % RB_BATCH == RB_BATCH - 1;
}

/*
 * One round on @sq: @n starts (each taking a slot), then @n stops (each
 * giving it back), read and submitted as @mode says.
 */
/* Say why a round failed: @what returned @ret, a negative errno. */
static int rb_fail(const char *what, int ret)
{
	fprintf(stderr, "bench-device: ring round: %s: %s\n", what,
		strerror(-ret));
	return -1;
}

static int rb_round(struct timingwheel_sq *sq, struct rb_timer *t,
		    uint32_t n, enum rb_mode mode)
{
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = timingwheel_slot_get(sq, &t[i].slot, &t[i].gen);
		if (ret)
			return rb_fail("slot_get", ret);
		if (mode == RB_STAMPED)
			timingwheel_prep_start_in(sq, rb_sqe(sq), t[i].slot,
						  t[i].gen, i, RB_AHEAD_NS, 0, 0);
		else
			timingwheel_prep_start(rb_sqe(sq), t[i].slot, t[i].gen,
					       i, bench_now_ns() + RB_AHEAD_NS,
					       0, 0);
		ret = rb_submit_now(mode, i) ? timingwheel_submit(sq) : 0;
		if (ret < 0)
			return rb_fail("submit", ret);
	}
	for (i = 0; i < n; i++) {
		timingwheel_prep_stop(rb_sqe(sq), t[i].slot, t[i].gen, i, 0);
		ret = rb_submit_now(mode, i) ? timingwheel_submit(sq) : 0;
		if (ret < 0)
			return rb_fail("submit", ret);
		ret = timingwheel_sq_slot_put(sq, t[i].slot);
		if (ret)
			return rb_fail("sq_slot_put", ret);
	}
	ret = timingwheel_submit(sq);
	return ret < 0 ? rb_fail("submit", ret) : 0;
}

/**
 * struct rb_thread - one thread's run on its own SQ
 * @sq:   its SQ
 * @mode: how it reads the clock and submits
 * @t:    its timers
 */
struct rb_thread {
	struct timingwheel_sq	*sq;
	enum rb_mode		mode;
	struct rb_timer		t[RB_ROUND];
};

/* One repetition of one thread: RB_ROUNDS rounds. */
static int rb_thread_rep(void *arg)
{
	struct rb_thread *th = arg;
	int k;

	for (k = 0; k < RB_ROUNDS; k++)
		if (rb_round(th->sq, th->t, RB_ROUND, th->mode))
			return -1;
	return 0;
}

/* @nthreads threads, each on its own SQ; ns per pair per thread. */
static double rb_threads(struct timingwheel_ring *ring, unsigned int nthreads,
			 enum rb_mode mode, double *enters_per_pair)
{
	static struct rb_thread th[RB_SQS];
	void *args[RB_SQS];
	uint64_t enters = ring->enters;
	unsigned int i;
	double ns;

	for (i = 0; i < nthreads; i++) {
		th[i].sq = timingwheel_ring_sq(ring, i);
		th[i].mode = mode;
		args[i] = &th[i];
	}
	ns = bench_threads(nthreads, RB_REPS, rb_thread_rep, args);
	*enters_per_pair = (double)(ring->enters - enters) /
			   ((double)nthreads * RB_REPS * RB_ROUNDS * RB_ROUND);
	return ns < 0 ? -1 : ns / ((double)RB_ROUNDS * RB_ROUND);
}

/* The CQ consumer: RB_CQ_ENTRIES events posted, then read; ns per event. */
static double rb_read(struct timingwheel_ring *ring)
{
	struct twheel_cqe *cqe[RB_READ_BATCH];
	double best = -1, ns;
	uint64_t sum = 0, t0;
	unsigned int n, i, k;
	int rep;

	for (rep = 0; rep < RB_REPS * 64; rep++) {
		/* The kernel's part, not timed: a full CQ of expiries. */
		for (i = 0; i < RB_CQ_ENTRIES; i++) {
			struct twheel_cqe *e = &ring->cqes[(ring->cq_head + i) & ring->cq_mask];

			e->cookie = i;
			e->flags = TWHEEL_CQE_EXPIRY;
		}
		__atomic_store_n(&ring->cq->tail, ring->cq_head + RB_CQ_ENTRIES,
				 __ATOMIC_RELEASE);
		t0 = bench_now_ns();
		for (k = 0; k < RB_CQ_ENTRIES; k += n) {
			n = timingwheel_peek_batch_cqe(ring, cqe, RB_READ_BATCH);
			for (i = 0; i < n; i++)
				sum += cqe[i]->cookie + cqe[i]->flags;
			if (!n || timingwheel_cq_advance(ring, n))
				return -1;
		}
		ns = (double)(bench_now_ns() - t0) / RB_CQ_ENTRIES;
		if (best < 0 || ns < best)
			best = ns;
	}
	return sum ? best : -1;
}

int ring_threads_device(int fd, double ns[2], double enters[2])
{
	struct twheel_ring_setup p = {
		.capacity = RB_CAPACITY, .nr_sq = RB_SQS,
		.sq_entries = RB_SQ_ENTRIES, .cq_entries = RB_CQ_ENTRIES,
	};
	struct timingwheel_ring ring;
	unsigned int t;
	int ret = timingwheel_ring_init(fd, &p, &ring);

	if (ret) {
		fprintf(stderr, "bench-device: ring setup: %s\n", strerror(-ret));
		return -1;
	}
	for (t = 0; t < 2; t++)
		ns[t] = rb_threads(&ring, t + 1, RB_STAMPED, &enters[t]);
	/* Every stop found its start: no entry came back as an error. */
	if (ring.hdr->errors || ns[0] < 0 || ns[1] < 0)
		fprintf(stderr, "bench-device: ring: %llu errors, %llu posted, %llu waiting\n",
			(unsigned long long)ring.hdr->errors,
			(unsigned long long)ring.hdr->posted,
			(unsigned long long)ring.hdr->waiting);
	ret = ns[0] < 0 || ns[1] < 0 || ring.hdr->errors ? -1 : 0;
	timingwheel_ring_exit(&ring);
	return ret;
}

int ring_user_measure(struct ring_user *u)
{
	struct timingwheel_ring ring;
	int ret = rb_init(&ring);

	if (ret) {
		fprintf(stderr, "bench-device: ring mock: %s\n", strerror(-ret));
		return -1;
	}
	enum rb_mode m;
	int bad = 0;

	for (m = 0; m < RB_MODES; m++) {
		u->ns[m] = rb_threads(&ring, 1, m, &u->enters[m]);
		bad |= u->ns[m] < 0;
	}
	u->thread_ns[0] = u->ns[RB_STAMPED];
	u->thread_enters[0] = u->enters[RB_STAMPED];
	u->thread_ns[1] = rb_threads(&ring, 2, RB_STAMPED, &u->thread_enters[1]);
	u->read_ns = rb_read(&ring);
	rb_exit(&ring);
	return bad || u->thread_ns[1] < 0 || u->read_ns < 0 ? -1 : 0;
}
