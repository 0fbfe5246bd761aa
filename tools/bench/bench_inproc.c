// SPDX-License-Identifier: GPL-2.0
/*
 * bench_inproc: the positioning row of bench_device.  The same start, stop
 * and expire workload on an in-process wheel: tw_core.c compiled into the
 * benchmark (against tools/include, the shim) behind ONE timerfd, the way an
 * event loop would use it.
 *
 *   start  one clock_gettime() for "now" (the device reads its clock per
 *          start too), tw_start() of the tick ceil(due / resolution), and a
 *          timerfd_settime() only when the new timer is due before the one
 *          the timerfd is armed for
 *   stop   tw_stop(); the timerfd is left as it is: if it fires for a timer
 *          that is gone, the loop finds nothing due and re-arms (lazy, as
 *          event loops do, so a stop never costs a system call)
 *   expire wait for the timerfd (poll + read), take the clock, advance the
 *          wheel to floor(now / resolution), deliver what fired, re-arm the
 *          timerfd for the wheel's next expiry
 *
 * Memory is the caller's own: one struct ip_timer per timer and one wheel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "tw_core.h"
#include "bench_ring.h"

/**
 * struct ip_timer - the caller's object holding one wheel timer
 * @t:   the wheel's node; the wheel owns it while pending
 * @idx: index of this timer in the run's due[] array
 */
struct ip_timer {
	struct tw_timer	t;
	uint32_t	idx;
};

/**
 * struct ip_loop - a single-threaded event loop's timers
 * @wheel:  the wheel, its tick is @res ns of CLOCK_MONOTONIC
 * @timers: the timers, one per id
 * @tfd:    the one timerfd; armed for tick @armed
 * @res:    ns per tick
 * @armed:  the tick the timerfd is armed for, TW_NO_EVENT if none
 * @run:    the lateness run being delivered, or NULL
 * @seen:   clock_gettime() after the timerfd's read() returned
 */
struct ip_loop {
	struct tw_wheel	*wheel;
	struct ip_timer	*timers;
	int		tfd;
	uint64_t	res;
	uint64_t	armed;
	struct lat_run	*run;
	uint64_t	seen;
};

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

size_t inproc_timer_bytes(void)
{
	return sizeof(struct ip_timer);
}

size_t inproc_wheel_bytes(void)
{
	return sizeof(struct tw_wheel);
}

static int ip_init(struct ip_loop *l, uint32_t n, uint64_t res)
{
	uint32_t i;

	memset(l, 0, sizeof(*l));
	l->res = res;
	l->armed = TW_NO_EVENT;
	l->wheel = malloc(sizeof(*l->wheel));
	l->timers = calloc(n, sizeof(*l->timers));
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!l->wheel || !l->timers || l->tfd < 0 ||
	    tw_init(l->wheel, NULL, 0, bench_now_ns() / res)) {
		perror("bench-device: in-process wheel");
		return -1;
	}
	for (i = 0; i < n; i++) {
		tw_timer_init(&l->timers[i].t);
		l->timers[i].idx = i;
	}
	return 0;
}

static void ip_destroy(struct ip_loop *l)
{
	if (l->tfd >= 0)
		close(l->tfd);
	free(l->wheel);
	free(l->timers);
}

/* Arm the timerfd for @tick (absolute), or disarm it for TW_NO_EVENT. */
static int ip_arm(struct ip_loop *l, uint64_t tick)
{
	struct itimerspec its = { 0 };
	uint64_t ns = tick == TW_NO_EVENT ? 0 : tick * l->res;

	its.it_value.tv_sec = ns / NSEC_PER_SEC;
	its.it_value.tv_nsec = ns % NSEC_PER_SEC;
	/* Absolute 0 would disarm: tick 0 is long past, any value fires. */
	if (tick != TW_NO_EVENT && !ns)
		its.it_value.tv_nsec = 1;
	l->armed = tick;
	return timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Start timer @i due at @due ns (absolute): never fires before @due. */
static int ip_start(struct ip_loop *l, uint32_t i, uint64_t due)
{
	uint64_t tick = (due + l->res - 1) / l->res;

	if (tw_start(l->wheel, &l->timers[i].t, tick))
		return -1;
	if (tick < l->armed)
		return ip_arm(l, tick);
	return 0;
}

/* Entries an event loop's turn defers, as the rings' submit per 32. */
#define IP_DEFER	32

/*
 * Starts @first to @end - 1 deferred to the turn's end, then placed after
 * one clock read: none early, as the rings' prep_start_in().  The loop's
 * queue of them is @q, one store and one load each.
 */
static int ip_start_deferred(struct ip_loop *l, uint32_t first, uint32_t end,
			     uint64_t ahead)
{
	uint32_t q[IP_DEFER], k, nq = 0;
	uint64_t now;

	for (k = first; k < end; k++)
		q[nq++] = k;
	now = bench_now_ns();
	for (k = 0; k < nq; k++)
		if (ip_start(l, q[k], now + ahead))
			return -1;
	return 0;
}

static double ip_startstop_once(struct ip_loop *l, uint32_t n, uint64_t ahead,
				bool deferred)
{
	uint64_t t0 = bench_now_ns();
	uint32_t i, end;

	for (i = 0; i < n && deferred; i = end) {
		end = n - i < IP_DEFER ? n : i + IP_DEFER;
		if (ip_start_deferred(l, i, end, ahead))
			return -1;
	}
	for (i = 0; i < n && !deferred; i++)
		if (ip_start(l, i, bench_now_ns() + ahead))
			return -1;
	for (i = 0; i < n; i++)
		if (!tw_stop(l->wheel, &l->timers[i].t))
			return -1;
	return 2.0 * n * NSEC_PER_SEC / (bench_now_ns() - t0);
}

/*
 * Best of @reps runs of @n starts then @n stops, @ahead_ns ahead; ops/s.
 * @deferred: each start placed after one clock read per 32, at the end of
 * their turn, instead of after its own.
 */
double inproc_startstop_rate(uint32_t n, uint64_t ahead_ns, unsigned int reps,
			     bool deferred)
{
	struct ip_loop l;
	double r, best = -1;
	unsigned int i;

	if (ip_init(&l, n, NSEC_PER_MSEC))
		goto out;
	for (i = 0; i < reps; i++) {
		r = ip_startstop_once(&l, n, ahead_ns, deferred);
		if (r < 0) {
			fprintf(stderr, "bench-device: in-process start/stop failed\n");
			best = -1;
			break;
		}
		if (r > best)
			best = r;
		/* The next round starts with the timerfd armed, as a loop would. */
	}
out:
	ip_destroy(&l);
	return best;
}

static void ip_fired(struct tw_timer *t, void *data)
{
	struct ip_loop *l = data;
	struct lat_run *run = l->run;
	uint64_t due = run->due[container_of(t, struct ip_timer, t)->idx];

	if (l->seen < due)
		run->early++;
	run->late[run->got++] = (int64_t)(l->seen - due);
}

/* One pass of the loop: wait for the timerfd, deliver, re-arm; 0 or -1. */
static int ip_loop_once(struct ip_loop *l)
{
	struct pollfd pfd = { .fd = l->tfd, .events = POLLIN };
	uint64_t ticks;
	int ret;

	ret = poll(&pfd, 1, LAT_WAIT_MS);
	if (ret <= 0)
		return ret < 0 && errno == EINTR ? 0 : -1;
	if (read(l->tfd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return errno == EAGAIN ? 0 : -1;
	l->seen = bench_now_ns();
	tw_advance(l->wheel, l->seen / l->res, TW_NO_BUDGET, ip_fired, l);
	return ip_arm(l, tw_next_expiry(l->wheel));
}

/* The lateness pattern @run on the in-process wheel at @res_ns per tick. */
int inproc_lateness(struct lat_run *run, uint64_t res_ns)
{
	struct ip_loop l;
	int ret = -1;
	uint32_t i;

	run->got = 0;
	run->early = 0;
	run->behind = 0;
	if (ip_init(&l, run->n, res_ns))
		goto out;
	l.run = run;
	for (i = 0; i < run->n; i++)
		if (ip_start(&l, i, run->due[i]))
			goto out;
	while (run->got < run->n)
		if (ip_loop_once(&l))
			break;
	ret = run->got == run->n ? 0 : -1;
out:
	ip_destroy(&l);
	return ret;
}

/* tw_start() of @n timers, then tw_stop() of each, alone; ns per pair. */
double inproc_core_pair_ns(uint32_t n, unsigned int reps)
{
	struct ip_loop l;
	double best = -1, ns;
	uint64_t t0, now;
	unsigned int r;
	uint32_t i;

	if (ip_init(&l, n, NSEC_PER_MSEC))
		goto fail;
	for (r = 0; r < reps; r++) {
		now = bench_now_ns() / l.res;
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			if (tw_start(l.wheel, &l.timers[i].t,
				     now + 1000 + (i * 2654435761U) % 4096))
				goto fail;
		for (i = 0; i < n; i++)
			if (!tw_stop(l.wheel, &l.timers[i].t))
				goto fail;
		ns = (double)(bench_now_ns() - t0) / n;
		if (best < 0 || ns < best)
			best = ns;
	}
	ip_destroy(&l);
	return best;
fail:
	ip_destroy(&l);
	return -1;
}

/**
 * struct bt_run - the threads of one bench_threads() call
 * @fn:    one repetition of one thread's work
 * @args:  per thread, @fn's argument
 * @n:     threads
 * @reps:  repetitions
 * @gate:  0 until every thread exists, then 1; -1 if one could not start
 * @bar:   the start and the end line of every repetition
 * @ns:    per thread and repetition, its time from the start line
 * @err:   set if a repetition failed
 */
struct bt_run {
	bench_rep_fn		fn;
	void *const		*args;
	unsigned int		n;
	unsigned int		reps;
	int			gate;
	pthread_barrier_t	bar;
	uint64_t		ns[BENCH_MAX_THREADS][BENCH_MAX_REPS];
	int			err;
};

/**
 * struct bt_thread - one thread of a bt_run
 * @run: the run
 * @i:   its index
 */
struct bt_thread {
	struct bt_run	*run;
	unsigned int	i;
};

static void *bt_main(void *arg)
{
	struct bt_thread *t = arg;
	struct bt_run *run = t->run;
	unsigned int r;
	uint64_t t0;
	int gate;

	while (!(gate = __atomic_load_n(&run->gate, __ATOMIC_ACQUIRE)))
		;
	for (r = 0; gate > 0 && r < run->reps; r++) {
		pthread_barrier_wait(&run->bar);
		bench_excluded_ns = 0;
		t0 = bench_now_ns();
		/* A failed thread still meets the others at every line. */
		if (!__atomic_load_n(&run->err, __ATOMIC_RELAXED) &&
		    run->fn(run->args[t->i]))
			__atomic_store_n(&run->err, 1, __ATOMIC_RELAXED);
		run->ns[t->i][r] = bench_now_ns() - t0 - bench_excluded_ns;
		pthread_barrier_wait(&run->bar);
	}
	return NULL;
}

__thread uint64_t bench_excluded_ns;

/* The best repetition's time, each repetition's the slowest thread's. */
static double bt_best(const struct bt_run *run)
{
	uint64_t worst, best = 0;
	unsigned int r, i;

	for (r = 0; r < run->reps; r++) {
		for (worst = 0, i = 0; i < run->n; i++)
			if (run->ns[i][r] > worst)
				worst = run->ns[i][r];
		if (!best || worst < best)
			best = worst;
	}
	return (double)best;
}

double bench_threads(unsigned int n, unsigned int reps, bench_rep_fn fn,
		     void *const args[])
{
	struct bt_run *run = calloc(1, sizeof(*run));
	struct bt_thread t[BENCH_MAX_THREADS];
	pthread_t tid[BENCH_MAX_THREADS];
	unsigned int i, started = 0;
	double ns = -1;

	if (!run || !n || n > BENCH_MAX_THREADS || !reps || reps > BENCH_MAX_REPS ||
	    pthread_barrier_init(&run->bar, NULL, n)) {
		free(run);
		return -1;
	}
	run->fn = fn;
	run->args = args;
	run->n = n;
	run->reps = reps;
	for (i = 0; i < n; i++, started++) {
		t[i] = (struct bt_thread) { .run = run, .i = i };
		if (pthread_create(&tid[i], NULL, bt_main, &t[i]))
			break;
	}
	__atomic_store_n(&run->gate, started == n ? 1 : -1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (started == n && !run->err)
		ns = bt_best(run);
	pthread_barrier_destroy(&run->bar);
	free(run);
	return ns;
}

/* The wheel behind one mutex, shared by the threads of a run. */
#define MX_BATCH	32
#define MX_PAIRS	(1024U * 1024)
#define MX_REPS		5

/**
 * struct mx_shared - one wheel and its lock, as a runtime's timer driver
 * @lock:  taken per start and per stop
 * @wheel: the wheel; @lock
 */
struct mx_shared {
	pthread_mutex_t		lock;
	struct tw_wheel		wheel;
};

/**
 * struct mx_thread - one thread's timers
 * @s:      what the threads share
 * @timers: MX_BATCH timers of its own
 */
struct mx_thread {
	struct mx_shared	*s;
	struct tw_timer		timers[MX_BATCH];
};

/* MX_PAIRS pairs: MX_BATCH starts (one clock read), then their stops. */
static int mx_pairs(void *arg)
{
	struct mx_thread *th = arg;
	struct mx_shared *s = th->s;
	uint64_t now;
	uint32_t k, i;
	int bad = 0;

	for (k = 0; k < MX_PAIRS; k += MX_BATCH) {
		now = bench_now_ns() / NSEC_PER_MSEC;
		for (i = 0; i < MX_BATCH; i++) {
			pthread_mutex_lock(&s->lock);
			bad |= tw_start(&s->wheel, &th->timers[i], now + 1000 + (k + i) % 4096);
			pthread_mutex_unlock(&s->lock);
		}
		for (i = 0; i < MX_BATCH; i++) {
			pthread_mutex_lock(&s->lock);
			bad |= !tw_stop(&s->wheel, &th->timers[i]);
			pthread_mutex_unlock(&s->lock);
		}
	}
	return bad ? -1 : 0;
}

double inproc_mutex_pair_ns(unsigned int threads)
{
	struct mx_shared *s = calloc(1, sizeof(*s));
	struct mx_thread th[BENCH_MAX_THREADS];
	void *args[BENCH_MAX_THREADS];
	double ns = -1;
	unsigned int i, k;

	if (!s || !threads || threads > BENCH_MAX_THREADS ||
	    tw_init(&s->wheel, NULL, 0, bench_now_ns() / NSEC_PER_MSEC))
		goto out;
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < threads; i++) {
		th[i].s = s;
		for (k = 0; k < MX_BATCH; k++)
			tw_timer_init(&th[i].timers[k]);
		args[i] = &th[i];
	}
	ns = bench_threads(threads, MX_REPS, mx_pairs, args);
	if (ns >= 0)
		ns /= MX_PAIRS;
	pthread_mutex_destroy(&s->lock);
out:
	free(s);
	return ns;
}
