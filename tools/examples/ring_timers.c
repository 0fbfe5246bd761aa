// SPDX-License-Identifier: MIT
/*
 * ring_timers: many timers through the shared-memory rings, with almost no
 * system call: the ring API of libtimingwheel (timingwheel_ring_init(3)).
 *
 * One thread, one SQ.  NTIMERS timers are started in rounds of ROUND,
 * due 300 to 400 ms out; every fourth is stopped right after its round,
 * and timingwheel_stop_won(3) says the stop is sure to win (the timers
 * are due later than the wheel has gone).  Expiries are read from the
 * completion ring after poll(); each slot goes back to its free list when
 * its expiry is read, or when its stop won.
 *
 * The program checks itself: every timer not stopped fires exactly once,
 * never before its time, no stopped one fires, and it prints how many
 * RING_ENTER calls it made per timer (well under 1).
 *
 * Exit status: 0 all as expected, 1 something was not, 2 no device or no
 * rings.  Build: cc -o ring_timers ring_timers.c $(pkg-config --cflags
 * --libs libtimingwheel)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libtimingwheel.h>

#define NTIMERS		512
#define ROUND		64
#define MS		1000000ULL

struct timer {
	uint64_t	when;
	uint32_t	slot;
	uint16_t	gen;
	uint8_t		stopped;
	uint8_t		fired;
};

static struct timer timers[NTIMERS];

/*
 * The next free entry: when the SQ is full, submit (which enters, since
 * the kernel has not consumed it yet) and take one then.
 */
static struct twheel_sqe *sqe_get(struct timingwheel_sq *sq)
{
	struct twheel_sqe *e;

	while (!(e = timingwheel_get_sqe(sq)))
		if (timingwheel_submit(sq) < 0)
			return NULL;
	return e;
}

/* Start timers [first, first + ROUND), then stop every fourth of them. */
static int start_round(struct timingwheel_ring *ring,
		       struct timingwheel_sq *sq, unsigned int first)
{
	uint64_t now = timingwheel_now(CLOCK_MONOTONIC);
	struct twheel_sqe *e;
	unsigned int i;
	int ret;

	for (i = first; i < first + ROUND; i++) {
		struct timer *t = &timers[i];

		if (timingwheel_slot_get(sq, &t->slot, &t->gen))
			return -ENOSPC;
		e = sqe_get(sq);
		if (!e)
			return -EBADFD;
		t->when = now + 300 * MS + (i * 100 * MS) / NTIMERS;
		timingwheel_prep_start(e, t->slot, t->gen,
				       i, t->when, 0, 0);
	}
	ret = timingwheel_submit(sq);
	if (ret < 0)
		return ret;
	for (i = first; i < first + ROUND; i += 4) {
		e = sqe_get(sq);
		if (!e)
			return -EBADFD;
		timingwheel_prep_stop(e, timers[i].slot, timers[i].gen, i, 0);
	}
	ret = timingwheel_submit(sq);
	if (ret < 0)
		return ret;
	for (i = first; i < first + ROUND; i += 4) {
		/*
		 * Sure to win unless this thread stalled 300 ms between the
		 * two submits; a program that can stall so long asks for
		 * the stop's result (TWHEEL_SQE_RESULT) instead.
		 */
		if (!timingwheel_stop_won(sq, timers[i].when))
			return -EAGAIN;
		timers[i].stopped = 1;
		timingwheel_slot_put(ring, timers[i].slot);
	}
	return 0;
}

/* Read the expiries there are; how many, or -1 if one is wrong. */
static int reap(struct timingwheel_ring *ring)
{
	struct twheel_cqe *c[64];
	unsigned int i, n = timingwheel_peek_batch_cqe(ring, c, 64);
	struct timer *t;

	for (i = 0; i < n; i++) {
		if (!(c[i]->flags & TWHEEL_CQE_EXPIRY) || c[i]->cookie >= NTIMERS) {
			fprintf(stderr, "unexpected event: flags %u res %d\n",
				c[i]->flags, c[i]->res);
			return -1;
		}
		t = &timers[c[i]->cookie];
		if (t->stopped || t->fired++ || c[i]->due < t->when ||
		    c[i]->gen != t->gen) {
			fprintf(stderr, "timer %llu: stopped %u fired %u\n",
				(unsigned long long)c[i]->cookie, t->stopped, t->fired);
			return -1;
		}
		timingwheel_slot_put(ring, t->slot);
	}
	return timingwheel_cq_advance(ring, n) ? -1 : (int)n;
}

static int run(struct timingwheel_ring *ring)
{
	struct timingwheel_sq *sq = timingwheel_ring_sq(ring, 0);
	struct pollfd pfd = { .fd = ring->fd, .events = POLLIN };
	unsigned int first, want = 0, got = 0;
	int ret;

	for (first = 0; first < NTIMERS; first += ROUND) {
		ret = start_round(ring, sq, first);
		if (ret) {
			fprintf(stderr, "round %u: %s\n", first / ROUND,
				timingwheel_strerror(ret));
			return 1;
		}
	}
	for (first = 0; first < NTIMERS; first++)
		want += !timers[first].stopped;
	while (got < want) {
		if (poll(&pfd, 1, 2000) <= 0) {
			fprintf(stderr, "%u of %u expiries, then nothing\n", got, want);
			return 1;
		}
		ret = reap(ring);
		if (ret < 0)
			return 1;
		got += ret;
	}
	printf("%u timers, %u stopped, %u fired; %llu RING_ENTER calls (%.3f a timer)\n",
	       NTIMERS, NTIMERS - want, got, (unsigned long long)ring->enters,
	       (double)ring->enters / NTIMERS);
	return 0;
}

int main(void)
{
	struct twheel_ring_setup p = {
		.capacity = NTIMERS, .nr_sq = 1, .sq_entries = 256,
		.cq_entries = 1024,
	};
	struct timingwheel_ring ring;
	int fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_CLOEXEC);
	int ret;

	if (fd < 0) {
		fprintf(stderr, "open: %s\n", timingwheel_strerror(fd));
		return 2;
	}
	if (timingwheel_has_feature(fd, TWHEEL_FEATURE_RINGS) != 1) {
		fprintf(stderr, "the module has no rings\n");
		return 2;
	}
	ret = timingwheel_ring_init(fd, &p, &ring);
	if (ret) {
		fprintf(stderr, "ring_init: %s\n", timingwheel_strerror(ret));
		return 1;
	}
	ret = run(&ring);
	timingwheel_ring_exit(&ring);
	close(fd);
	return ret;
}
