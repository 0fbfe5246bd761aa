// SPDX-License-Identifier: GPL-2.0
/*
 * tw_ring_sb: the rings' store-buffering pairs, run on two CPUs.
 *
 * One thread is the kernel: tw_ring_hdr_announce() of tw_ring_hdr.h, the
 * very function tw_ring.c publishes with, then the load tw_ring.c makes
 * after it.  The other is the submitter or the CQ consumer:
 * libtimingwheel's own timingwheel_submit(), timingwheel_stop_won() and
 * timingwheel_cq_advance().  The rings are plain memory laid out as the
 * module's (only what those functions touch), and an ENTER is counted,
 * not made: the file descriptor is -1.
 *
 * Each round, both threads leave a start line together, each after a
 * random short delay (seeded, the seed printed), so that their stores and
 * loads overlap; then the kernel's thread judges the round.  Three pairs,
 * in turn ("DOC: No system call in the steady state" in tw_ring.c):
 *
 *   idle   the kernel publishes armed_for = idle and loads the SQ tail;
 *          the submitter stores a start's tail and loads armed_for.
 *          Lost if neither the kernel saw the entry nor the submitter
 *          entered: the entry would wait for ever.
 *   flush  the kernel publishes NEED_FLUSH and loads the CQ head; the
 *          consumer stores a head and loads the flags.  Lost if neither
 *          saw the other: held events would wait with room in the CQ.
 *   stop   the kernel publishes wheel_ns = D and loads the SQ tail; the
 *          stopper stores a stop's tail and loads wheel_ns.  Lost if the
 *          stopper was told its stop wins (wheel_ns < D) but the kernel,
 *          advancing to D, did not see it.
 *
 * With both barriers no round can be lost on any CPU, so a loss is a bug,
 * never bad luck: the verdict cannot be tripped by a slow or busy machine.
 * Taking out either barrier makes x86's store buffer lose rounds within
 * seconds; the planted bugs in scripts/mutations/device prove it.
 *
 *   tw_ring_sb [-t SECONDS] [-S SEED]
 *
 * Runs for SECONDS (default 3), stopping at the first lost round.  Prints
 * "ring-sb: PASS: ..." and exits 0; "ring-sb: FAILED: N lost ..." and
 * exits 1; "ring-sb: SKIP: ..." and exits 77 with fewer than two CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libtimingwheel.h"
#include "tw_ring_hdr.h"

#define SB_ENTRIES	8
/* armed_for while armed, and the due time a stop races the wheel for. */
#define SB_ARMED	1000000ULL
#define SB_DUE		5000000ULL
/*
 * Each round starts at a time both threads wait for, this many clock
 * ticks after the kernel's thread sets it, then each side waits a random
 * few more, so that their parts overlap within a store buffer's drain.
 */
#define SB_LEAD		2000
#define SB_JITTER	64

enum sb_pair { SB_IDLE, SB_FLUSH, SB_STOP, SB_PAIRS };

static const char *const sb_name[SB_PAIRS] = { "idle", "flush", "stop" };

/**
 * struct sb_sq - one SQ region as the module lays it out
 * @ctl:  the control block
 * @sqes: the entries
 */
struct sb_sq {
	struct twheel_ring_ctl	ctl;
	struct twheel_sqe	sqes[SB_ENTRIES];
};

/**
 * struct sb_cq - the CQ region
 * @ctl:  the control block
 * @cqes: the events
 */
struct sb_cq {
	struct twheel_ring_ctl	ctl;
	struct twheel_cqe	cqes[SB_ENTRIES];
};

/**
 * struct sb - the shared memory, the library's view of it, the kernel's
 * @hdr:   the header
 * @sq:    the SQ
 * @cq:    the CQ
 * @ring:  libtimingwheel's rings, mapped on the above
 * @usq:   libtimingwheel's SQ
 * @seq:   the kernel's copy of the header's seq
 * @news:  the kernel's copy of what the header says
 * @head:  the kernel's SQ head: entries below it applied
 * @cqh:   the CQ head the kernel last loaded
 * @entered: the user's verdict: whether it entered, or was told it won
 * @pair:  the round's pair
 */
static struct sb {
	struct twheel_ring_hdr	hdr;
	struct sb_sq		sq;
	struct sb_cq		cq;
	struct timingwheel_ring	ring;
	struct timingwheel_sq	usq;
	uint32_t		seq;
	struct tw_ring_news	news;
	uint32_t		head;
	uint32_t		cqh;
	int			entered;
	enum sb_pair		pair;
} sb;

/**
 * struct sb_line - a word alone on its cache line
 * @v:   the word
 * @pad: the rest of the line
 */
struct sb_line {
	uint64_t	v;
	char		pad[56];
};

/*
 * The round both threads start, and when (the kernel's thread writes
 * both), and the round the user's thread finished.
 */
static struct sb_line sb_go, sb_at, sb_done;

/* xorshift64: the delays, replayable from the seed. */
static uint64_t sb_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Wait for the round's start, then a random few spins more. */
static void sb_delay(uint64_t *s, uint64_t at)
{
	unsigned int i, n = sb_rand(s) % SB_JITTER;

	while (sb_tick() < at)
		barrier();
	for (i = 0; i < n; i++)
		barrier();
}

/* The library's view: what timingwheel_ring_init() would have mapped. */
static void sb_init(void)
{
	sb.ring.fd = -1;
	sb.ring.params.nr_sq = 1;
	sb.ring.params.sq_entries = SB_ENTRIES;
	sb.ring.params.cq_entries = SB_ENTRIES;
	sb.ring.hdr = &sb.hdr;
	sb.ring.cq = &sb.cq.ctl;
	sb.ring.cqes = sb.cq.cqes;
	sb.ring.cq_mask = SB_ENTRIES - 1;
	sb.ring.sqs = &sb.usq;
	sb.usq.ring = &sb.ring;
	sb.usq.ctl = &sb.sq.ctl;
	sb.usq.sqes = sb.sq.sqes;
	sb.usq.mask = SB_ENTRIES - 1;
	sb.news.armed_for = SB_ARMED;
	sb.news.wheel_ns = SB_DUE - 1;
	tw_ring_hdr_announce(&sb.hdr, &sb.seq, &sb.news);
}

/*
 * Before a round, the kernel's thread: the SQ applied, the CQ full, the
 * hrtimer armed, the wheel short of SB_DUE, no flag.
 */
static void sb_reset(void)
{
	sb.head = __atomic_load_n(&sb.sq.ctl.tail, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sb.sq.ctl.head, sb.head, __ATOMIC_RELEASE);
	sb.cqh = __atomic_load_n(&sb.cq.ctl.head, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sb.cq.ctl.tail, sb.cqh + SB_ENTRIES, __ATOMIC_RELEASE);
	sb.news.armed_for = SB_ARMED;
	sb.news.wheel_ns = SB_DUE - 1;
	sb.news.flags = 0;
	tw_ring_hdr_announce(&sb.hdr, &sb.seq, &sb.news);
}

/* The kernel's part of a round: announce, then load; whether it saw. */
static int sb_kernel(enum sb_pair pair)
{
	if (pair == SB_IDLE)
		sb.news.armed_for = UINT64_MAX;
	else if (pair == SB_FLUSH)
		sb.news.flags = TWHEEL_RING_NEED_FLUSH;
	else
		sb.news.wheel_ns = SB_DUE;
	tw_ring_hdr_announce(&sb.hdr, &sb.seq, &sb.news);
	if (pair == SB_FLUSH)
		return READ_ONCE(sb.cq.ctl.head) != sb.cqh;
	return READ_ONCE(sb.sq.ctl.tail) != sb.head;
}

/* The user's part: whether it entered (idle, flush) or was told it won. */
static int sb_user(enum sb_pair pair)
{
	uint64_t enters = sb.ring.enters;

	if (pair == SB_FLUSH) {
		timingwheel_cq_advance(&sb.ring, 1);
		return sb.ring.enters != enters;
	}
	if (pair == SB_IDLE)
		timingwheel_prep_start(timingwheel_get_sqe(&sb.usq), 0, 1, 0,
				       SB_ARMED + 1, 0, 0);
	else
		timingwheel_prep_stop(timingwheel_get_sqe(&sb.usq), 0, 1, 0, 0);
	timingwheel_submit(&sb.usq);
	if (pair == SB_IDLE)
		return sb.ring.enters != enters;
	return timingwheel_stop_won(&sb.usq, SB_DUE);
}

static void *sb_user_thread(void *arg)
{
	uint64_t s = *(uint64_t *)arg, round = 0, go;

	for (;;) {
		while ((go = __atomic_load_n(&sb_go.v, __ATOMIC_ACQUIRE)) == round)
			;
		if (go == UINT64_MAX)
			return NULL;
		round = go;
		sb_delay(&s, __atomic_load_n(&sb_at.v, __ATOMIC_RELAXED));
		sb.entered = sb_user(sb.pair);
		__atomic_store_n(&sb_done.v, go, __ATOMIC_RELEASE);
	}
}

/* One round, from the kernel's thread; 1 if it was lost. */
static int sb_round(uint32_t r, enum sb_pair pair, uint64_t *s)
{
	uint64_t at = sb_tick() + SB_LEAD;
	int saw;

	sb_reset();
	sb.pair = pair;
	__atomic_store_n(&sb_at.v, at, __ATOMIC_RELAXED);
	__atomic_store_n(&sb_go.v, r, __ATOMIC_RELEASE);
	sb_delay(s, at);
	saw = sb_kernel(pair);
	while (__atomic_load_n(&sb_done.v, __ATOMIC_ACQUIRE) != r)
		;
	return !saw && sb.entered == (pair == SB_STOP);
}

/* Pin the calling thread to CPU @cpu; 0 or an errno. */
static int sb_pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(t, sizeof(set), &set);
}

static uint64_t sb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Rounds for @secs, or to the first loss; the rounds and losses per pair. */
static uint32_t sb_run(double secs, uint64_t *s, uint64_t lost[SB_PAIRS])
{
	uint64_t end = sb_now() + (uint64_t)(secs * 1e9);
	uint32_t r;
	int bad = 0;

	for (r = 1; r < UINT32_MAX - 1 && !bad; r++) {
		if (!(r % 4096) && sb_now() > end)
			break;
		bad = sb_round(r, (enum sb_pair)(r % SB_PAIRS), s);
		lost[r % SB_PAIRS] += bad;
	}
	__atomic_store_n(&sb_go.v, UINT64_MAX, __ATOMIC_RELEASE);
	return r - 1;
}

static int sb_cpus(int cpu[2])
{
	cpu_set_t set;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[n++] = i;
	return n;
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32), s, us;
	uint64_t lost[SB_PAIRS] = { 0 };
	double secs = 3;
	pthread_t user;
	int opt, cpu[2], k;
	uint32_t rounds;

	while ((opt = getopt(argc, argv, "t:S:")) != -1) {
		if (opt == 't')
			secs = strtod(optarg, NULL);
		else if (opt == 'S')
			seed = strtoull(optarg, NULL, 0);
		else
			return fprintf(stderr, "usage: %s [-t SECONDS] [-S SEED]\n", argv[0]), 2;
	}
	if (sb_cpus(cpu) < 2) {
		printf("ring-sb: SKIP: fewer than two CPUs, no store buffer to race\n");
		return 77;
	}
	seed |= 1;
	s = seed;
	us = seed * 0x9e3779b97f4a7c15ULL | 1;
	sb_init();
	if (pthread_create(&user, NULL, sb_user_thread, &us) ||
	    sb_pin(pthread_self(), cpu[0]) || sb_pin(user, cpu[1])) {
		perror("ring-sb: threads");
		return 2;
	}
	rounds = sb_run(secs, &s, lost);
	pthread_join(user, NULL);
	if (!lost[SB_IDLE] && !lost[SB_FLUSH] && !lost[SB_STOP]) {
		printf("ring-sb: PASS: %u rounds on CPUs %d and %d, none lost (seed %#llx)\n",
		       rounds, cpu[0], cpu[1], (unsigned long long)seed);
		return 0;
	}
	for (k = 0; k < SB_PAIRS; k++)
		if (lost[k])
			printf("ring-sb: FAILED: %llu lost in round %u, the %s pair (seed %#llx)\n",
			       (unsigned long long)lost[k], rounds, sb_name[k],
			       (unsigned long long)seed);
	return 1;
}
