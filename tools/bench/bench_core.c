// SPDX-License-Identifier: GPL-2.0
/*
 * bench_core: the timing wheel of tw_core.c against a binary min-heap, both
 * in userspace, measured in the same run on the same operation sequences.
 *
 * For each number of pending timers it times, in ns per operation:
 *   start   N starts into an empty structure, expiries uniform over 2^20 ticks
 *   stop    N stops of those timers, in random order
 *   expiry  advancing through all N timers until every one has fired
 *   churn   a steady state of N timers where the clock ticks slowly and
 *           random timers are stopped and started again at a random tick,
 *           so that most are re-armed before they fire; the worst case of
 *           re-arming, where no locality helps
 *   mixed   the pattern the kernel and Ratas report as dominant: each timer
 *           has its own timeout (256..16640 ticks); 80% of timers are busy
 *           and get pushed to now + timeout again and again (the wheel's
 *           tw_modify(), the heap's in-place sift), one push in ten being
 *           a stop and a start with a new timeout; the idle 20% fire and
 *           re-arm themselves
 *   mixed+pf  mixed, the caller prefetching the object of the operation
 *           AHEAD operations later, as a caller that holds a batch of work
 *           can (an event loop's ready list, a system call's array)
 * In churn and mixed an operation is one re-arm or one expiry.  Each figure
 * is the best of three runs.  The floor under mixed, one random touch of
 * the caller's object per operation, is measured the same two ways.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/bits.h>

#include "heap.h"
#include "tw_core.h"
#include "tw_tools.h"

#define START_SPAN	BIT_ULL(20)
#define MIXED_SPAN	BIT_ULL(16)
#define TIMEOUT_MIN	256
#define TIMEOUT_SPAN	BIT_ULL(14)
#define RUNS		3
/* How many operations ahead a prefetching run draws its random numbers. */
#define AHEAD		8

enum impl { WHEEL, HEAP };

/* The caller's object: its timer and the timeout it re-arms with. */
struct wheel_obj {
	struct tw_timer		timer;
	uint64_t		timeout;
};

struct heap_obj {
	struct heap_timer	timer;
	uint64_t		timeout;
};

struct bench {
	enum impl		impl;
	uint32_t		n;
	struct tw_wheel		*wheel;
	struct wheel_obj	*wo;
	struct heap		heap;
	struct heap_obj		*ho;
	uint64_t		*expires;
	uint32_t		*order;
	uint64_t		rng;
	uint64_t		now;
	uint64_t		fired;
	bool			rearm;
};

/*
 * The random numbers of the next AHEAD operations of a prefetching run and
 * the objects they pick, drawn in order, so that operation k still gets
 * the k-th number: each operation takes the oldest and draws the one of
 * operation k + AHEAD.  The same sequence as the plain run's only because
 * no callback of these runs draws a number (rearm_tick() draws only for a
 * timeout of 0, which mixed never sets).
 */
struct ahead {
	uint64_t		r[AHEAD];
	uint32_t		i[AHEAD];
	unsigned int		k;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __always_inline uint64_t *
b_timeout(struct bench *b, uint32_t i)
{
	return b->impl == WHEEL ? &b->wo[i].timeout : &b->ho[i].timeout;
}

static __always_inline void
b_start(struct bench *b, uint32_t i, uint64_t expires)
{
	if (b->impl == WHEEL)
		tw_start(b->wheel, &b->wo[i].timer, expires);
	else
		heap_start(&b->heap, &b->ho[i].timer, expires);
}

static __always_inline void
b_modify(struct bench *b, uint32_t i, uint64_t expires)
{
	if (b->impl == WHEEL)
		tw_modify(b->wheel, &b->wo[i].timer, expires);
	else
		heap_modify(&b->heap, &b->ho[i].timer, expires);
}

static __always_inline void
b_stop(struct bench *b, uint32_t i)
{
	if (b->impl == WHEEL)
		tw_stop(b->wheel, &b->wo[i].timer);
	else
		heap_stop(&b->heap, &b->ho[i].timer);
}

/* The tick a fired timer re-arms for: its own timeout, or a random one. */
static uint64_t rearm_tick(struct bench *b, uint32_t i)
{
	if (*b_timeout(b, i))
		return b->now + *b_timeout(b, i);
	return b->now + 1 + xorshift64s(&b->rng) % MIXED_SPAN;
}

static void wheel_fired(struct tw_timer *t, void *data)
{
	struct bench *b = data;
	uint32_t i = container_of(t, struct wheel_obj, timer) - b->wo;

	b->fired++;
	if (b->rearm)
		tw_start(b->wheel, t, rearm_tick(b, i));
}

static void heap_fired(struct heap_timer *t, void *data)
{
	struct bench *b = data;

	b->fired++;
	if (b->rearm)
		heap_start(&b->heap, t, rearm_tick(b, (struct heap_obj *)t - b->ho));
}

static __always_inline void
b_advance(struct bench *b, uint64_t to)
{
	b->now = to;
	if (b->impl == WHEEL)
		tw_advance(b->wheel, to, TW_NO_BUDGET, wheel_fired, b);
	else
		heap_advance(&b->heap, to, heap_fired, b);
}

/* An empty structure at tick 0 and nodes that are not pending. */
static void b_reset(struct bench *b)
{
	uint32_t i;

	b->now = 0;
	b->fired = 0;
	b->rearm = false;
	if (b->impl == WHEEL) {
		tw_init(b->wheel, NULL, 0, 0);
		for (i = 0; i < b->n; i++) {
			tw_timer_init(&b->wo[i].timer);
			b->wo[i].timeout = 0;
		}
	} else {
		b->heap.n = 0;
		for (i = 0; i < b->n; i++) {
			b->ho[i].timer.idx = HEAP_NONE;
			b->ho[i].timeout = 0;
		}
	}
}

static void b_start_all(struct bench *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		b_start(b, i, b->expires[i]);
}

static double phase_start(struct bench *b)
{
	double t0;

	b_reset(b);
	t0 = now_ns();
	b_start_all(b);
	return (now_ns() - t0) / b->n;
}

static double phase_stop(struct bench *b)
{
	double t0;
	uint32_t i;

	b_reset(b);
	b_start_all(b);
	t0 = now_ns();
	for (i = 0; i < b->n; i++)
		b_stop(b, b->order[i]);
	return (now_ns() - t0) / b->n;
}

static double phase_expiry(struct bench *b)
{
	double t0;

	b_reset(b);
	b_start_all(b);
	t0 = now_ns();
	b_advance(b, START_SPAN + 1);
	if (b->fired != b->n) {
		fprintf(stderr, "expiry: %llu of %u fired\n",
			(unsigned long long)b->fired, b->n);
		exit(1);
	}
	return (now_ns() - t0) / b->n;
}

/* Operations between two clock ticks, for n / @div. */
static uint32_t ops_per_tick(struct bench *b, uint32_t div)
{
	return b->n / div ? b->n / div : 1;
}

/*
 * Count one operation off *@left; true when the clock is to tick, the count
 * then starting over at @per_tick.  A countdown, not k % per_tick: a second
 * 64-bit division per operation would cost the driver, wheel and heap
 * alike, about what the floor's whole operation costs.
 */
static inline bool tick_due(uint32_t *left, uint32_t per_tick)
{
	if (--*left)
		return false;
	*left = per_tick;
	return true;
}

/*
 * Churn: the clock ticks once every n/4096 operations, so a timer lives
 * about MIXED_SPAN / 2 ticks and is moved about eight times before it would
 * fire.
 */
static double phase_churn(struct bench *b, double *expiry_share)
{
	uint64_t ops = 8ULL * (b->n > 500000 ? b->n : 500000), k;
	uint32_t per_tick = ops_per_tick(b, 4096), left = per_tick;
	double t0;

	b_reset(b);
	b->rng = 42;
	b->rearm = true;
	for (k = 0; k < b->n; k++)
		b_start(b, k, 1 + xorshift64s(&b->rng) % MIXED_SPAN);
	t0 = now_ns();
	for (k = 0; k < ops; k++) {
		uint32_t i = xorshift64s(&b->rng) % b->n;

		b_stop(b, i);
		b_start(b, i, b->now + 1 + xorshift64s(&b->rng) % MIXED_SPAN);
		if (tick_due(&left, per_tick))
			b_advance(b, b->now + 1);
	}
	*expiry_share = (double)b->fired / (ops + b->fired);
	return (now_ns() - t0) / (ops + b->fired);
}

/* Fill @a for a prefetching run over @busy objects; the run's start, in ns. */
static double ahead_start(struct bench *b, struct ahead *a, uint32_t busy)
{
	for (a->k = 0; a->k < AHEAD; a->k++) {
		a->r[a->k] = xorshift64s(&b->rng);
		a->i[a->k] = a->r[a->k] % busy;
	}
	a->k = 0;
	return now_ns();
}

/*
 * The next operation's random number, and in *@i the object it picks, one
 * division as in the plain runs; and a prefetch for writing of the
 * caller's object that operation k + AHEAD will touch: the wheel's and the
 * heap's alike, and the floor's (which runs as the wheel).
 */
static __always_inline uint64_t
ahead_next(struct bench *b, struct ahead *a, uint32_t busy, uint32_t *i)
{
	uint64_t r = a->r[a->k], next = xorshift64s(&b->rng);

	*i = a->i[a->k];
	a->r[a->k] = next;
	a->i[a->k] = next % busy;
	if (b->impl == WHEEL)
		__builtin_prefetch(&b->wo[a->i[a->k]], 1);
	else
		__builtin_prefetch(&b->ho[a->i[a->k]], 1);
	a->k = (a->k + 1) % AHEAD;
	return r;
}

/* The operations of a mixed run, and its timers started, each with its own timeout. */
static uint64_t mixed_setup(struct bench *b)
{
	uint64_t k;

	b_reset(b);
	b->rng = 43;
	b->rearm = true;
	for (k = 0; k < b->n; k++) {
		*b_timeout(b, k) = TIMEOUT_MIN + xorshift64s(&b->rng) % TIMEOUT_SPAN;
		b_start(b, k, *b_timeout(b, k));
	}
	return 8ULL * (b->n > 500000 ? b->n : 500000);
}

/* One operation of a mixed run, on busy object @i, @r its random number. */
static __always_inline void mixed_op(struct bench *b, uint64_t r, uint32_t i)
{
	if ((r >> 40) % 10 == 0) {
		b_stop(b, i);
		*b_timeout(b, i) = TIMEOUT_MIN + (r >> 20) % TIMEOUT_SPAN;
		b_start(b, i, b->now + *b_timeout(b, i));
	} else {
		b_modify(b, i, b->now + *b_timeout(b, i));
	}
}

/*
 * Mixed: the clock ticks once every n/256 operations, so a busy timer is
 * pushed later about every 200 ticks, long before its timeout.
 */
static double phase_mixed(struct bench *b, double *expiry_share)
{
	uint64_t ops = mixed_setup(b), k;
	uint32_t per_tick = ops_per_tick(b, 256), left = per_tick;
	uint32_t busy = b->n / 5 * 4;
	double t0 = now_ns();

	for (k = 0; k < ops; k++) {
		uint64_t r = xorshift64s(&b->rng);

		mixed_op(b, r, r % busy);
		if (tick_due(&left, per_tick))
			b_advance(b, b->now + 1);
	}
	*expiry_share = (double)b->fired / (ops + b->fired);
	return (now_ns() - t0) / (ops + b->fired);
}

/* Mixed, the caller prefetching: the same operations in the same order. */
static double phase_mixed_pf(struct bench *b, double *expiry_share)
{
	uint64_t ops = mixed_setup(b), k, r;
	uint32_t per_tick = ops_per_tick(b, 256), left = per_tick;
	uint32_t busy = b->n / 5 * 4, i;
	struct ahead a;
	double t0 = ahead_start(b, &a, busy);

	for (k = 0; k < ops; k++) {
		r = ahead_next(b, &a, busy, &i);
		mixed_op(b, r, i);
		if (tick_due(&left, per_tick))
			b_advance(b, b->now + 1);
	}
	*expiry_share = (double)b->fired / (ops + b->fired);
	return (now_ns() - t0) / (ops + b->fired);
}

/* A floor's objects, the wheel's, and the operations it runs. */
static uint64_t floor_setup(struct bench *b)
{
	uint64_t k;

	b->impl = WHEEL;
	b_reset(b);
	b->rng = 43;
	for (k = 0; k < b->n; k++)
		b->wo[k].timeout = TIMEOUT_MIN + xorshift64s(&b->rng) % TIMEOUT_SPAN;
	return 8ULL * (b->n > 500000 ? b->n : 500000);
}

/*
 * The floor under any timer structure in the mixed pattern: the same random
 * choice of object and one read-modify-write of it, nothing else.
 */
static double phase_floor(struct bench *b)
{
	uint64_t ops = floor_setup(b), k;
	uint32_t busy = b->n / 5 * 4;
	double t0 = now_ns();

	for (k = 0; k < ops; k++) {
		struct wheel_obj *o = &b->wo[xorshift64s(&b->rng) % busy];

		o->timer.expires = k + o->timeout;
	}
	return (now_ns() - t0) / ops;
}

/* The floor, prefetched as phase_mixed_pf() prefetches. */
static double phase_floor_pf(struct bench *b)
{
	uint64_t ops = floor_setup(b), k;
	uint32_t busy = b->n / 5 * 4, i;
	struct ahead a;
	double t0 = ahead_start(b, &a, busy);

	for (k = 0; k < ops; k++) {
		ahead_next(b, &a, busy, &i);
		b->wo[i].timer.expires = k + b->wo[i].timeout;
	}
	return (now_ns() - t0) / ops;
}

/*
 * The caller's objects, zeroed, from a cache line's start: as the kernel's
 * slab lays out objects of 32 bytes (struct wheel_obj's size), none
 * straddles two lines.  calloc()'s large blocks start 16 bytes into a
 * page, which split every other one, so that a re-arm touched two lines
 * where the floor's write touches one.
 */
static void *calloc_lines(size_t n, size_t size)
{
	size_t bytes = (n * size + 63) / 64 * 64;
	void *p = aligned_alloc(64, bytes);

	if (p)
		memset(p, 0, bytes);
	return p;
}

static void bench_setup(struct bench *b, uint32_t n)
{
	uint64_t s = 12345;
	uint32_t i;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->wheel = malloc(sizeof(*b->wheel));
	b->wo = calloc_lines(n, sizeof(*b->wo));
	b->ho = calloc_lines(n, sizeof(*b->ho));
	b->expires = calloc(n, sizeof(*b->expires));
	b->order = calloc(n, sizeof(*b->order));
	if (!b->wheel || !b->wo || !b->ho || !b->expires || !b->order ||
	    heap_init(&b->heap, n)) {
		perror("bench_core");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		b->expires[i] = 1 + xorshift64s(&s) % START_SPAN;
		b->order[i] = i;
	}
	for (i = n - 1; i > 0; i--) {
		uint32_t j = xorshift64s(&s) % (i + 1), t = b->order[i];

		b->order[i] = b->order[j];
		b->order[j] = t;
	}
}

static void bench_teardown(struct bench *b)
{
	heap_free(&b->heap);
	free(b->wheel);
	free(b->wo);
	free(b->ho);
	free(b->expires);
	free(b->order);
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

static void row(uint32_t n, const char *op, double w, double h, const char *note)
{
	printf("%9u  %-8s %10.1f %10.1f %9.2fx  %s\n", n, op, w, h, h / w, note);
}

/*
 * bench_core profile PHASE N [heap]: run one phase once, for perf or
 * valgrind --tool=callgrind to say where the time goes.
 */
static int profile(const char *phase, uint32_t n, enum impl impl)
{
	struct bench b;
	double share, ns;

	bench_setup(&b, n);
	b.impl = impl;
	if (!strcmp(phase, "start"))
		ns = phase_start(&b);
	else if (!strcmp(phase, "stop"))
		ns = phase_stop(&b);
	else if (!strcmp(phase, "expiry"))
		ns = phase_expiry(&b);
	else if (!strcmp(phase, "churn"))
		ns = phase_churn(&b, &share);
	else if (!strcmp(phase, "mixed"))
		ns = phase_mixed(&b, &share);
	else if (!strcmp(phase, "mixed+pf"))
		ns = phase_mixed_pf(&b, &share);
	else if (!strcmp(phase, "floor"))
		ns = phase_floor(&b);
	else if (!strcmp(phase, "floor+pf"))
		ns = phase_floor_pf(&b);
	else
		return 2;
	printf("%s %s %u: %.1f ns/op\n", b.impl == WHEEL ? "wheel" : "heap",
	       phase, n, ns);
	bench_teardown(&b);
	return 0;
}

#define NR_PHASES	6

static const char * const phase_names[NR_PHASES] = {
	"start", "stop", "expiry", "churn", "mixed", "mixed+pf",
};

/* Every phase once on @b into @res and @share, keeping the best. */
static void run_phases(struct bench *b, double *res, double *share)
{
	res[0] = best(res[0], phase_start(b));
	res[1] = best(res[1], phase_stop(b));
	res[2] = best(res[2], phase_expiry(b));
	res[3] = best(res[3], phase_churn(b, &share[3]));
	res[4] = best(res[4], phase_mixed(b, &share[4]));
	res[5] = best(res[5], phase_mixed_pf(b, &share[5]));
}

/*
 * The table's rows for @n pending: each phase and each floor the best of
 * RUNS, the floors run between the wheel's runs and the heap's.
 */
static void bench_size(uint32_t n)
{
	double res[2][NR_PHASES], share[2][NR_PHASES], fl[2] = { 1e18, 1e18 };
	struct bench b;
	enum impl impl;
	unsigned int r;

	bench_setup(&b, n);
	for (impl = WHEEL; impl <= HEAP; impl++) {
		b.impl = impl;
		for (r = 0; r < NR_PHASES; r++)
			res[impl][r] = 1e18;
		for (r = 0; r < RUNS; r++) {
			run_phases(&b, res[impl], share[impl]);
			if (impl == WHEEL) {
				fl[0] = best(fl[0], phase_floor(&b));
				fl[1] = best(fl[1], phase_floor_pf(&b));
			}
		}
	}
	for (r = 0; r < NR_PHASES; r++) {
		char note[64] = "";

		if (r >= 3)
			snprintf(note, sizeof(note), "%.1f%% of ops are expiries",
				 100 * share[WHEEL][r]);
		row(n, phase_names[r], res[WHEEL][r], res[HEAP][r], note);
	}
	printf("%9u  %-8s %10.1f %10s %10s  %s, mixed = %.2fx it\n", n,
	       "floor", fl[0], "", "",
	       "mixed's random touch of the caller's object alone",
	       res[WHEEL][4] / fl[0]);
	printf("%9u  %-8s %10.1f %10s %10s  %s, mixed+pf = %.2fx it\n", n,
	       "floor+pf", fl[1], "", "", "the same, the caller prefetching",
	       res[WHEEL][5] / fl[1]);
	bench_teardown(&b);
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 1000, 65536, 1000000 };
	unsigned int s;

	if (argc >= 4 && !strcmp(argv[1], "profile"))
		return profile(argv[2], strtoul(argv[3], NULL, 0),
			       argc > 4 && !strcmp(argv[4], "heap") ? HEAP : WHEEL);

	printf("timingwheel bench-core: tw_core (8 levels x 64 slots) vs binary heap\n");
	printf("ns per operation, best of %d runs; ratio = heap / wheel (higher: wheel faster)\n",
	       RUNS);
	printf("+pf: the caller prefetches the object of the operation %d ahead\n\n",
	       AHEAD);
	printf("%9s  %-8s %10s %10s %10s  %s\n", "pending", "op", "wheel", "heap",
	       "ratio", "");
	for (s = 0; s < ARRAY_SIZE(sizes); s++)
		bench_size(sizes[s]);
	printf("\ntargets (this machine): at 65536 start <= 20, stop <= 15, expiry <= 30 ns;\n"
	       "at 1000000 mixed (wheel) <= 2x the floor of the same run\n");
	return 0;
}
