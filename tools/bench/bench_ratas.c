// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ratas: the workload of Ratas' benchmark (Juho Snellman's timer wheel,
 * src/test/test_benchmark.cc), written again in C from its description,
 * driving tw_core, the binary heap of heap.c and, when built with RATAS_DIR,
 * Ratas itself through one backend interface (bench_ratas.h), so that the
 * workload code is the same for all of them.
 *
 * The workload.  A tick is 20 us.  Pairs of units, a server and a client,
 * are created at random over the first second, on average @pairs of them.
 * Each unit has five timers:
 *
 *   idle      pushed to now + 60 s on every message the unit sends or
 *             receives, so it practically never fires; with range
 *             scheduling on, anywhere in [60 s, 61 s] instead
 *   close     at creation + 180 s: the unit stops making requests; 10 s
 *             later it fires again and the unit is deleted
 *   pace      10 ticks: the server sends one message per pace tick
 *   request   the client asks for 128 messages, then waits 1 s (plus a
 *             random 0..99 ticks per client) after the last one
 *   deadline  a request must start within 4 x 128 pace intervals and
 *             finish within 2 x 128 after the first message; it is moved
 *             once and cancelled, and firing means a failed workload
 *
 * Time advances one tick at a time while pairs are created, then by
 * "ticks to the next event, at most 100 ms" up to 300 s; the last 110 s are
 * idle.  Each unit counts the deliveries it receives (an empty delivery
 * counts, as in Ratas); their total is Ratas' own checksum.
 *
 * Two rules make the result independent of the order in which timers due
 * at the same tick fire, which differs between the structures: a unit makes
 * no request at or after its close tick (whether the close timer fired yet
 * or not), and at its delete tick a unit's other timers do nothing, as if
 * every deletion of that tick came first.  Ratas' program leaves both to
 * the order.  No such tie happened in the runs we counted (1000 to 32000
 * pairs, 5 to 300 s), but nothing in the workload rules one out.
 *
 * The checksum sums a hash of (tick, timer) over every firing, so it
 * catches a timer fired at the wrong tick, or not at all, and does not
 * depend on the order within a tick.  With range scheduling on, the idle
 * timers are left out of it: which tick of the range one fires at is the
 * structure's choice.  At one pair count and range setting, the sums and the
 * delivery totals must agree between structures and between runs; the
 * program exits 1 if they do not.  Idle timers never fire in this
 * workload, so the sums also agree between range on and range off.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_ratas.h"
#include "heap.h"
#include "tw_core.h"
#include "tw_tools.h"

#define TICKS_MS	50ULL
#define TICKS_S		(1000 * TICKS_MS)
#define CREATE_TICKS	TICKS_S
#define POLL_TICKS	(100 * TICKS_MS)
#define IDLE_TICKS	(60 * TICKS_S)
#define IDLE_SLACK	TICKS_S
#define RESPONSE_SIZE	128
#define PACE_TICKS	10
/* Ratas' run: 300 s, closing 180 s after creation, deleted 10 s later. */
#define FULL_SECONDS	300
#define DEFAULT_SECONDS	30
#define DEFAULT_RUNS	3
#define MAX_RUNS	32
#define MAX_BACKENDS	3
#define MAX_SIZES	8

enum { T_IDLE, T_CLOSE, T_PACE, T_REQUEST, T_DEADLINE, T_PER_UNIT };

static void bk_fail(const char *what)
{
	fprintf(stderr, "bench_ratas: %s failed\n", what);
	exit(2);
}

/* --- tw_core ------------------------------------------------------------ */

struct tw_bk {
	struct tw_wheel		wheel;
	struct tw_timer		*t;
	uint64_t		target;		/* where the advance is going */
	bk_fire_fn		fire;
	void			*ctx;
};

static struct tw_bk *twb(struct bk *b)
{
	return (struct tw_bk *)b;
}

static struct bk *twb_create(uint32_t nr, bk_fire_fn fire, void *ctx)
{
	struct tw_bk *w = calloc(1, sizeof(*w));
	uint32_t i;

	if (w)
		w->t = calloc(nr, sizeof(*w->t));
	if (!w || !w->t)
		bk_fail("tw_core allocation");
	if (tw_init(&w->wheel, NULL, 0, 0))
		bk_fail("tw_init");
	for (i = 0; i < nr; i++)
		tw_timer_init(&w->t[i]);
	w->fire = fire;
	w->ctx = ctx;
	return (struct bk *)w;
}

static void twb_destroy(struct bk *b)
{
	free(twb(b)->t);
	free(b);
}

static uint64_t twb_now(struct bk *b)
{
	return tw_now(&twb(b)->wheel);
}

static void twb_schedule(struct bk *b, uint32_t id, uint64_t delta)
{
	struct tw_bk *w = twb(b);

	if (tw_modify(&w->wheel, &w->t[id], tw_now(&w->wheel) + delta))
		bk_fail("tw_modify");
}

/* Ratas' schedule_in_range(): tw_modify_range() is the same rule. */
static void twb_schedule_in_range(struct bk *b, uint32_t id, uint64_t lo,
				  uint64_t hi)
{
	struct tw_bk *w = twb(b);
	uint64_t now = tw_now(&w->wheel);

	if (tw_modify_range(&w->wheel, &w->t[id], now + lo, now + hi))
		bk_fail("tw_modify_range");
}

static void twb_cancel(struct bk *b, uint32_t id)
{
	tw_stop(&twb(b)->wheel, &twb(b)->t[id]);
}

static void twb_expired(struct tw_timer *t, void *data)
{
	struct tw_bk *w = data;

	w->fire(w->ctx, t - w->t);
}

static bool twb_advance(struct bk *b, uint64_t delta, size_t max_execute)
{
	struct tw_bk *w = twb(b);
	unsigned int budget = max_execute < TW_NO_BUDGET ? max_execute :
							   TW_NO_BUDGET;

	w->target += delta;
	tw_advance(&w->wheel, w->target, budget, twb_expired, w);
	return !tw_has_due(&w->wheel) && tw_now(&w->wheel) == w->target;
}

static uint64_t twb_ticks_to_next_event(struct bk *b, uint64_t max)
{
	struct tw_bk *w = twb(b);
	uint64_t now = tw_now(&w->wheel), next;

	if (tw_has_due(&w->wheel) || now != w->target)
		return 0;
	next = tw_next_event(&w->wheel, now + max);
	return next == TW_NO_EVENT ? max : next - now;
}

static const struct bk_ops bk_tw_ops = {
	.name = "tw_core",
	.range_note = "tw_modify_range(): Ratas' rule, the latest cheapest tick",
	.create = twb_create,
	.destroy = twb_destroy,
	.now = twb_now,
	.schedule = twb_schedule,
	.schedule_in_range = twb_schedule_in_range,
	.cancel = twb_cancel,
	.advance = twb_advance,
	.ticks_to_next_event = twb_ticks_to_next_event,
};

/* --- binary heap -------------------------------------------------------- */

struct heap_bk {
	struct heap		heap;
	struct heap_timer	*t;
	uint64_t		now;
	uint64_t		target;
	bk_fire_fn		fire;
	void			*ctx;
};

static struct heap_bk *hpb(struct bk *b)
{
	return (struct heap_bk *)b;
}

static struct bk *hpb_create(uint32_t nr, bk_fire_fn fire, void *ctx)
{
	struct heap_bk *h = calloc(1, sizeof(*h));
	uint32_t i;

	if (h)
		h->t = calloc(nr, sizeof(*h->t));
	if (!h || !h->t || heap_init(&h->heap, nr))
		bk_fail("heap allocation");
	for (i = 0; i < nr; i++)
		h->t[i].idx = HEAP_NONE;
	h->fire = fire;
	h->ctx = ctx;
	return (struct bk *)h;
}

static void hpb_destroy(struct bk *b)
{
	heap_free(&hpb(b)->heap);
	free(hpb(b)->t);
	free(b);
}

static uint64_t hpb_now(struct bk *b)
{
	return hpb(b)->now;
}

static void hpb_schedule(struct bk *b, uint32_t id, uint64_t delta)
{
	struct heap_bk *h = hpb(b);

	if (heap_modify(&h->heap, &h->t[id], h->now + delta))
		bk_fail("heap_modify");
}

/* No range scheduling: the low end of the range, like a plain schedule. */
static void hpb_schedule_in_range(struct bk *b, uint32_t id, uint64_t lo,
				  uint64_t hi)
{
	(void)hi;
	hpb_schedule(b, id, lo);
}

static void hpb_cancel(struct bk *b, uint32_t id)
{
	heap_stop(&hpb(b)->heap, &hpb(b)->t[id]);
}

/* Fire in tick order, the clock at each timer's tick while it fires. */
static bool hpb_advance(struct bk *b, uint64_t delta, size_t max_execute)
{
	struct heap_bk *h = hpb(b);

	h->target += delta;
	while (h->heap.n && h->heap.v[0]->expires <= h->target) {
		struct heap_timer *t = h->heap.v[0];

		if (!max_execute--)
			return false;
		h->now = t->expires;
		heap_stop(&h->heap, t);
		h->fire(h->ctx, t - h->t);
	}
	h->now = h->target;
	return true;
}

static uint64_t hpb_ticks_to_next_event(struct bk *b, uint64_t max)
{
	struct heap_bk *h = hpb(b);
	uint64_t d;

	if (h->now != h->target)
		return 0;
	if (!h->heap.n)
		return max;
	d = h->heap.v[0]->expires - h->now;
	return d < max ? d : max;
}

static const struct bk_ops bk_heap_ops = {
	.name = "heap",
	.range_note = "no range scheduling: the range's low end, every time",
	.create = hpb_create,
	.destroy = hpb_destroy,
	.now = hpb_now,
	.schedule = hpb_schedule,
	.schedule_in_range = hpb_schedule_in_range,
	.cancel = hpb_cancel,
	.advance = hpb_advance,
	.ticks_to_next_event = hpb_ticks_to_next_event,
};

/* --- the workload ------------------------------------------------------- */

/**
 * struct unit - one half of a pair: unit 2k is a server, 2k + 1 its client
 * @close_at: the tick of the first close: no requests from then on
 * @tx:       messages queued to send
 * @rx:       deliveries received
 * @quota:    messages the pace allows to send now (0 or 1)
 * @interval: ticks from a finished request to the next one
 * @closing:  the close timer fired once
 * @waiting:  a request is out and no message of it has arrived
 * @dead:     deleted: its timers are cancelled
 */
struct unit {
	uint64_t	close_at;
	int32_t		tx;
	int32_t		rx;
	int32_t		quota;
	uint32_t	interval;
	bool		closing;
	bool		waiting;
	bool		dead;
};

/* One run of the workload on one backend, and what it counted. */
struct wl {
	const struct bk_ops	*ops;
	struct bk		*b;
	struct unit		*u;
	uint32_t		nr_units;
	uint32_t		max_units;
	bool			range;
	size_t			max_execute;
	uint64_t		rng;
	uint64_t		now;
	uint64_t		life;
	uint64_t		drain;
	uint64_t		end;
	uint64_t		sum;
	uint64_t		rx_total;
	uint64_t		nr_ops;
	uint64_t		nr_idle;
	uint64_t		nr_missed;
};

/* Uniform in [0, 1). */
static double rnd_unit(uint64_t *s)
{
	return (double)(xorshift64s(s) >> 11) / (double)(1ULL << 53);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void wl_schedule(struct wl *w, uint32_t i, unsigned int kind,
			uint64_t delta)
{
	w->nr_ops++;
	w->ops->schedule(w->b, i * T_PER_UNIT + kind, delta);
}

static void wl_cancel(struct wl *w, uint32_t i, unsigned int kind)
{
	w->nr_ops++;
	w->ops->cancel(w->b, i * T_PER_UNIT + kind);
}

/* Deleted, or at its delete tick, where deletion counts as done first. */
static bool unit_gone(const struct wl *w, const struct unit *u)
{
	return u->dead || w->now >= u->close_at + w->drain;
}

static void unit_delete(struct wl *w, uint32_t i)
{
	unsigned int kind;

	if (w->u[i].dead)
		return;
	w->u[i].dead = true;
	for (kind = 0; kind < T_PER_UNIT; kind++)
		wl_cancel(w, i, kind);
}

static void unit_unidle(struct wl *w, uint32_t i)
{
	w->nr_ops++;
	if (w->range)
		w->ops->schedule_in_range(w->b, i * T_PER_UNIT + T_IDLE,
					  IDLE_TICKS, IDLE_TICKS + IDLE_SLACK);
	else
		w->ops->schedule(w->b, i * T_PER_UNIT + T_IDLE, IDLE_TICKS);
}

static void unit_receive(struct wl *w, uint32_t i)
{
	struct unit *u = &w->u[i];

	if (unit_gone(w, u))
		return;
	unit_unidle(w, i);
	/* The request is alive: it has longer to finish than to start. */
	if (u->waiting) {
		wl_schedule(w, i, T_DEADLINE, PACE_TICKS * RESPONSE_SIZE * 2);
		u->waiting = false;
	}
	if (++u->rx % RESPONSE_SIZE == 0) {
		wl_cancel(w, i, T_DEADLINE);
		wl_schedule(w, i, T_REQUEST, u->interval);
	}
}

/* Send what the pace allows (perhaps nothing: that is delivered too). */
static void unit_deliver(struct wl *w, uint32_t i)
{
	struct unit *u = &w->u[i];
	int32_t amount = u->quota < u->tx ? u->quota : u->tx;

	unit_unidle(w, i);
	u->quota -= amount;
	u->tx -= amount;
	unit_receive(w, i ^ 1);
	if (!u->quota)
		wl_schedule(w, i, T_PACE, PACE_TICKS);
}

static void unit_transmit(struct wl *w, uint32_t i, int32_t count)
{
	if (unit_gone(w, &w->u[i]))
		return;
	w->u[i].tx += count;
	unit_deliver(w, i);
}

static void unit_request(struct wl *w, uint32_t i)
{
	struct unit *u = &w->u[i];

	if (w->now >= u->close_at)
		return;
	wl_schedule(w, i, T_DEADLINE, PACE_TICKS * RESPONSE_SIZE * 4);
	u->waiting = true;
	unit_transmit(w, i ^ 1, RESPONSE_SIZE);
}

static void unit_close(struct wl *w, uint32_t i)
{
	if (w->u[i].closing) {
		unit_delete(w, i);
		return;
	}
	w->u[i].closing = true;
	wl_schedule(w, i, T_CLOSE, w->drain);
}

static void unit_pace(struct wl *w, uint32_t i)
{
	if (w->u[i].tx) {
		w->u[i].quota = 1;
		unit_deliver(w, i);
	}
}

static void wl_fire(void *ctx, uint32_t id)
{
	struct wl *w = ctx;
	uint32_t i = id / T_PER_UNIT;
	unsigned int kind = id % T_PER_UNIT;

	w->now = w->ops->now(w->b);
	w->nr_ops++;
	if (kind != T_CLOSE && unit_gone(w, &w->u[i]))
		return;
	if (kind != T_IDLE || !w->range)
		w->sum += mix(mix(w->now) ^ id);
	switch (kind) {
	case T_IDLE:
		w->nr_idle++;
		unit_delete(w, i);
		break;
	case T_CLOSE:
		unit_close(w, i);
		break;
	case T_PACE:
		unit_pace(w, i);
		break;
	case T_REQUEST:
		unit_request(w, i);
		break;
	default:
		w->nr_missed++;
		unit_delete(w, i);
		unit_delete(w, i ^ 1);
	}
}

static void wl_make_pair(struct wl *w)
{
	uint32_t s = w->nr_units, c = s + 1;

	if (c >= w->max_units)
		bk_fail("room for the pairs");
	w->nr_units += 2;
	memset(&w->u[s], 0, 2 * sizeof(*w->u));
	w->u[s].interval = TICKS_S;
	w->u[c].interval = TICKS_S + xorshift64s(&w->rng) % 100;
	w->u[s].quota = 1;
	w->u[c].quota = 1;
	w->u[s].close_at = w->now + w->life;
	w->u[c].close_at = w->u[s].close_at;
	unit_unidle(w, s);
	wl_schedule(w, s, T_CLOSE, w->life);
	unit_unidle(w, c);
	wl_schedule(w, c, T_CLOSE, w->life);
	unit_request(w, c);
}

/* Advance @delta ticks, all the way even if a max_execute bound cuts in. */
static void wl_advance(struct wl *w, uint64_t delta)
{
	while (!w->ops->advance(w->b, delta, w->max_execute))
		delta = 0;
	w->now = w->ops->now(w->b);
}

static void wl_create_pairs(struct wl *w, uint32_t pairs)
{
	double per_tick = 2.0 * pairs / CREATE_TICKS, progress = 0;

	while (w->now < CREATE_TICKS) {
		progress += rnd_unit(&w->rng) * per_tick;
		while (progress > 1) {
			progress--;
			wl_make_pair(w);
		}
		wl_advance(w, 1);
	}
}

static void wl_run_to_end(struct wl *w)
{
	while (w->now < w->end) {
		uint64_t t = w->ops->ticks_to_next_event(w->b, POLL_TICKS);
		uint64_t was = w->now;

		if (!t || t > POLL_TICKS)
			bk_fail("ticks_to_next_event");
		wl_advance(w, t < w->end - w->now ? t : w->end - w->now);
		if (w->now <= was)
			bk_fail("advance");
	}
}

/* --- measurement -------------------------------------------------------- */

/* What the command line asks for. */
struct cfg {
	uint32_t	sizes[MAX_SIZES];
	unsigned int	nr_sizes;
	unsigned int	seconds;
	unsigned int	runs;
	size_t		max_execute;
	bool		range[2];	/* run with range scheduling off, on */
	bool		quick;
	const char	*only;		/* run this backend alone (profiling) */
	bool		help;
};

/* One backend at one pair count and range setting, over all runs. */
struct result {
	double		ns[MAX_RUNS];
	uint64_t	sum;
	uint64_t	rx_total;
	uint64_t	nr_ops;
	uint64_t	nr_idle;
	uint64_t	nr_missed;
	uint32_t	nr_pairs;
	bool		unstable;	/* two runs disagreed */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void wl_init(struct wl *w, const struct cfg *c, uint32_t pairs)
{
	uint64_t total = (uint64_t)c->seconds * TICKS_S;

	w->max_units = 4 * pairs + 4;
	w->u = calloc(w->max_units, sizeof(*w->u));
	if (!w->u)
		bk_fail("unit allocation");
	w->rng = 0x9e3779b97f4a7c15ULL ^ pairs;
	/* Ratas' timeline, scaled: 180 s of life, 10 s of drain in 300 s. */
	w->life = total * 180 / FULL_SECONDS;
	w->drain = total * 10 / FULL_SECONDS;
	w->end = total;
	w->max_execute = c->max_execute;
}

/* The first run sets the result; later runs must give the same one. */
static void record(struct result *r, const struct wl *w, unsigned int run)
{
	if (!run) {
		r->sum = w->sum;
		r->rx_total = w->rx_total;
		r->nr_ops = w->nr_ops;
		r->nr_idle = w->nr_idle;
		r->nr_missed = w->nr_missed;
		r->nr_pairs = w->nr_units / 2;
	} else if (r->sum != w->sum || r->rx_total != w->rx_total) {
		r->unstable = true;
	}
}

static void run_once(const struct bk_ops *ops, const struct cfg *c,
		     uint32_t pairs, bool range, struct result *r,
		     unsigned int run)
{
	struct wl w = { .ops = ops, .range = range };
	uint32_t i;
	double t0;

	wl_init(&w, c, pairs);
	w.b = ops->create(w.max_units * T_PER_UNIT, wl_fire, &w);
	t0 = now_ns();
	wl_create_pairs(&w, pairs);
	wl_run_to_end(&w);
	r->ns[run] = now_ns() - t0;
	ops->destroy(w.b);
	for (i = 0; i < w.nr_units; i++)
		w.rx_total += w.u[i].rx;
	free(w.u);
	record(r, &w, run);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned int n)
{
	double s[MAX_RUNS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double best(const double *v, unsigned int n)
{
	double b = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		b = v[i] < b ? v[i] : b;
	return b;
}

/* Median over the runs of this backend's time over tw_core's, run by run. */
static double ratio(const struct result *r, const struct result *base,
		    unsigned int runs)
{
	double q[MAX_RUNS];
	unsigned int i;

	for (i = 0; i < runs; i++)
		q[i] = r->ns[i] / base->ns[i];
	return median(q, runs);
}

static const struct bk_ops *backends[MAX_BACKENDS];
static unsigned int nr_backends;

/* Every backend @c->runs times, interleaved, a different one first each run. */
static void measure(const struct cfg *c, uint32_t pairs, bool range,
		    struct result *res)
{
	unsigned int run, k;

	memset(res, 0, nr_backends * sizeof(*res));
	for (run = 0; run < c->runs; run++) {
		for (k = 0; k < nr_backends; k++) {
			unsigned int b = (run + k) % nr_backends;

			run_once(backends[b], c, pairs, range, &res[b], run);
		}
	}
}

/* One row; false if its checksum must agree with tw_core's and does not. */
static bool print_row(const struct cfg *c, uint32_t pairs, bool range,
		      const struct result *res, unsigned int k)
{
	const struct result *r = &res[k];
	bool ok = !r->unstable && r->sum == res[0].sum &&
		  r->rx_total == res[0].rx_total;
	double b = best(r->ns, c->runs);

	printf("%7u %6u  %-4s %-8s", pairs, r->nr_pairs, range ? "on" : "off",
	       backends[k]->name);
	if (!c->quick)
		printf(" %8.3f %8.3f %7.1f", b / 1e9, median(r->ns, c->runs) / 1e9,
		       r->nr_ops / b * 1e3);
	printf(" %11llu  %016llx", (unsigned long long)r->rx_total,
	       (unsigned long long)r->sum);
	if (!c->quick)
		printf("  %6.2f", ratio(r, &res[0], c->runs));
	printf("%s\n", ok ? "" : r->unstable ? "  UNSTABLE" : "  MISMATCH");
	if (r->nr_missed || r->nr_idle)
		printf("%25s%llu request deadlines missed, %llu idle timeouts\n",
		       "", (unsigned long long)r->nr_missed,
		       (unsigned long long)r->nr_idle);
	return ok;
}

/*
 * No idle timer fired in either setting: then range scheduling changed no
 * other timer's tick, and the sums of both settings must agree too.
 */
static bool same_across_settings(const struct result *off,
				 const struct result *on)
{
	if (off->nr_idle || on->nr_idle)
		return true;
	if (off->sum == on->sum && off->rx_total == on->rx_total)
		return true;
	printf("MISMATCH: range on and off give different checksums\n");
	return false;
}

static bool run_size(const struct cfg *c, uint32_t pairs)
{
	struct result res[2][MAX_BACKENDS];
	unsigned int m, k;
	bool ok = true;

	for (m = 0; m < 2; m++) {
		if (!c->range[m])
			continue;
		measure(c, pairs, m, res[m]);
		for (k = 0; k < nr_backends; k++)
			ok &= print_row(c, pairs, m, res[m], k);
	}
	if (c->range[0] && c->range[1])
		ok &= same_across_settings(&res[0][0], &res[1][0]);
	return ok;
}

static void print_header(const struct cfg *c)
{
	unsigned int k;

	printf("timingwheel bench-core: Ratas' benchmark workload (jsnell/ratas, %s), in C\n",
	       "test_benchmark.cc");
	printf("simulated %u s of 20 us ticks (Ratas' own run: %u s, option -f); %s\n",
	       c->seconds, FULL_SECONDS, "pairs made over the first 1 s");
	printf("close %.1f s after creation, deleted %.2f s later; %s\n",
	       c->seconds * 180.0 / FULL_SECONDS, c->seconds * 10.0 / FULL_SECONDS,
	       "idle timeout 60 s, or 60..61 s with range on");
	if (c->max_execute != SIZE_MAX)
		printf("advance() runs at most %zu callbacks per call\n", c->max_execute);
	for (k = 0; k < nr_backends; k++)
		printf("range on, %-8s %s\n", backends[k]->name, backends[k]->range_note);
	if (!c->quick) {
		printf("seconds: best and median of %u interleaved runs; %s\n",
		       c->runs, "Mops/s: schedules, cancels and");
		printf("firings per second of the best run; %s\n",
		       "ratio: this backend's time / tw_core's in the");
		printf("same run, median over the runs (above 1: tw_core is faster)\n");
	}
	printf("checksum: sum of hash(tick, timer) over the firings %s\n\n",
	       "(idle timers left out with range on)");
	printf("%7s %6s  %-4s %-8s", "pairs", "made", "rng", "backend");
	if (!c->quick)
		printf(" %8s %8s %7s", "best s", "median s", "Mops/s");
	printf(" %11s  %-16s%s\n", "rx-total", "checksum", c->quick ? "" : "   ratio");
}

static int parse_sizes(struct cfg *c, char *list)
{
	char *tok, *save = NULL;

	c->nr_sizes = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long n = strtoul(tok, NULL, 0);

		if (c->nr_sizes == MAX_SIZES || n < 1 || n > 1000000)
			return -1;
		c->sizes[c->nr_sizes++] = n;
	}
	return c->nr_sizes ? 0 : -1;
}

static int parse_range(struct cfg *c, const char *s)
{
	c->range[0] = !strcmp(s, "off") || !strcmp(s, "both");
	c->range[1] = !strcmp(s, "on") || !strcmp(s, "both");
	return c->range[0] || c->range[1] ? 0 : -1;
}

static int parse(int argc, char **argv, struct cfg *c)
{
	int opt, err = 0;

	*c = (struct cfg){ .sizes = { 1000, 32000 }, .nr_sizes = 2,
			   .seconds = DEFAULT_SECONDS, .runs = DEFAULT_RUNS,
			   .max_execute = SIZE_MAX, .range = { true, true } };
	while (!err && (opt = getopt(argc, argv, "p:s:fn:b:r:qo:h")) != -1) {
		switch (opt) {
		case 'p':
			err = parse_sizes(c, optarg);
			break;
		case 's':
			c->seconds = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			c->seconds = FULL_SECONDS;
			break;
		case 'n':
			c->runs = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			c->max_execute = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			err = parse_range(c, optarg);
			break;
		case 'q':
			c->quick = true;
			c->runs = 1;
			break;
		case 'o':
			c->only = optarg;
			break;
		case 'h':
			c->help = true;
			err = -1;
			break;
		default:
			err = -1;
		}
	}
	if (c->seconds < 1 || c->seconds > 1000 || c->runs < 1 ||
	    c->runs > MAX_RUNS || !c->max_execute || optind != argc)
		err = -1;
	return err;
}

/* tw_core first: the ratios are against the first backend. */
static int pick_backends(const char *only)
{
	static const struct bk_ops *all[] = {
		&bk_tw_ops,
		&bk_heap_ops,
#ifdef BENCH_HAVE_RATAS
		&bk_ratas_ops,
#endif
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(all); k++)
		if (!only || !strcmp(only, all[k]->name))
			backends[nr_backends++] = all[k];
	return nr_backends ? 0 : -1;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: bench_ratas [-p PAIRS,...] [-s SECONDS | -f] [-n RUNS] [-b MAX_EXECUTE]\n"
		"                   [-r off|on|both] [-q] [-o BACKEND] [-h]\n"
		"  -p  pair counts (default 1000,32000)     -s  simulated seconds (default %u)\n"
		"  -f  Ratas' own length, %u s              -n  interleaved runs (default %u)\n"
		"  -b  callbacks per advance() call         -r  range scheduling (default both)\n"
		"  -q  one run, checksums only: exit 1 if they disagree\n"
		"  -o  this backend alone (tw_core, heap, Ratas), for a profiler\n",
		DEFAULT_SECONDS, FULL_SECONDS, DEFAULT_RUNS);
}

int main(int argc, char **argv)
{
	struct cfg c;
	unsigned int s;
	bool ok = true;

	if (parse(argc, argv, &c)) {
		print_usage();
		return c.help ? 0 : 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pick_backends(c.only)) {
		fprintf(stderr, "bench_ratas: no backend %s here\n", c.only);
		return 2;
	}
	print_header(&c);
	for (s = 0; s < c.nr_sizes; s++)
		ok &= run_size(&c, c.sizes[s]);
	fflush(stdout);
	if (!ok) {
		fprintf(stderr, "bench_ratas: checksums that must agree differ\n");
		return 1;
	}
	return 0;
}
