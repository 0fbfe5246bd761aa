// SPDX-License-Identifier: GPL-2.0
/*
 * bench_project: the device's throughput on real hardware, projected.
 *
 * The QEMU guest runs the device under TCG, which distorts it: system calls
 * cost only ~3-6x native, memory copies far more, so batched work looks
 * worse against single calls than it is.  This host has no module support,
 * so the device cannot run natively here.  The projection adds the two
 * halves a native run would pay:
 *
 *   host native  measured here, on the host's own kernel: an ioctl() round
 *                trip (on /dev/null, which answers at once), memcpy per
 *                byte, and timerfd's own costs (the baseline)
 *   kernel side  the device's work per operation inside the kernel, from
 *                scripts/guest/uml-kbench.sh: lines
 *                "KBENCH <op> ns_per_op=<float> ops=<n>", op one of start,
 *                stop, batch_start, batch_stop, expire, read
 *
 *   START        = ioctl + spec B * copy + k_start
 *   STOP         = ioctl + stop B * copy + k_stop
 *   BATCH entry  = (ioctl + 4096 * (in + out) B * copy) / 4096 + k_batch_op
 *   expiry       = k_expire + k_read + (ioctl + 4096 * event B * copy) / 4096
 *   ops/s        = 1e9 / ns;  a start+stop pair: 2e9 / (START + STOP)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/timingwheel.h>

#include "bench.h"
#include "bench_project.h"

#define P_REPS		5
#define P_IOCTLS	100000
#define P_COPIES	2000
#define P_DELIVER	1000
#define P_BATCH		4096
/* A batch entry goes in whole; only its result comes back (4 bytes). */
#define P_IN_B		sizeof(struct twheel_op)
#define P_OUT_B		sizeof(__s32)
#define P_EVENT_B	sizeof(struct twheel_event)
#define P_SPEC_B	sizeof(struct twheel_timer_spec)
#define P_STOP_B	sizeof(struct twheel_stop)

enum kop {
	K_START, K_STOP, K_BSTART, K_BSTOP, K_EXPIRE, K_READ,
	K_RSTART, K_RSTOP, K_REXPIRE, K_RENTER, K_OPS
};

static const char * const kop_name[K_OPS] = {
	"start", "stop", "batch_start", "batch_stop", "expire", "read",
	"ring_start", "ring_stop", "ring_expire", "ring_enter",
};

/* KBENCH-MEM lines: the rings' memory for a few setups. */
#define P_MEMS		4
/* What an ioctl timer costs, slab object and index bucket (TW_TIMER_COST). */
#define P_ID_TIMER_B	64

/**
 * struct ring_mem - one KBENCH-MEM line
 * @cap:       capacity
 * @nr_sq:     SQs
 * @sq:        entries per SQ
 * @cq:        CQ entries
 * @per_timer: bytes per timer of capacity
 */
struct ring_mem {
	unsigned int	cap, nr_sq, sq, cq;
	double		per_timer;
};

static struct ring_mem mems[P_MEMS];
static int nr_mems;

/* Whether a KBENCH-MEM line of capacity @cap was read already. */
static bool mem_seen(unsigned int cap)
{
	int i;

	for (i = 0; i < nr_mems; i++)
		if (mems[i].cap == cap)
			return true;
	return false;
}

/* The bytes per timer of the largest setup read, or NAN. */
static double mem_largest(void)
{
	double per = NAN;
	unsigned int cap = 0;
	int i;

	for (i = 0; i < nr_mems; i++)
		if (mems[i].cap > cap) {
			cap = mems[i].cap;
			per = mems[i].per_timer;
		}
	return per;
}

/* Best ns per ioctl() on /dev/null, or NAN. */
static double measure_ioctl(void)
{
	struct twheel_info info;
	double best = NAN, ns;
	uint64_t t0;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), r, i;

	if (fd < 0)
		return NAN;
	for (r = 0; r < P_REPS; r++) {
		t0 = bench_now_ns();
		for (i = 0; i < P_IOCTLS; i++)
			if (ioctl(fd, TWHEEL_IOC_GET_INFO, &info) != -1 || errno != ENOTTY)
				goto out;
		ns = (double)(bench_now_ns() - t0) / P_IOCTLS;
		if (isnan(best) || ns < best)
			best = ns;
	}
out:
	close(fd);
	return best;
}

/* Best memcpy ns per byte of one batch's entries, in cache. */
static double measure_copy(void)
{
	size_t len = P_BATCH * P_IN_B;
	char *a = calloc(1, len), *b = calloc(1, len);
	double best = NAN, ns;
	uint64_t t0;
	int r, i;

	if (!a || !b)
		goto out;
	for (r = 0; r < P_REPS; r++) {
		t0 = bench_now_ns();
		for (i = 0; i < P_COPIES; i++) {
			memcpy(i & 1 ? a : b, i & 1 ? b : a, len);
			__asm__ __volatile__("" : : "r"(a), "r"(b) : "memory");
		}
		ns = (double)(bench_now_ns() - t0) / ((double)P_COPIES * len);
		if (isnan(best) || ns < best)
			best = ns;
	}
out:
	free(a);
	free(b);
	return best;
}

/* Expire @n timerfds at once, then time epoll_wait() + read() of each. */
static double deliver_once(int ep, const int *fds, int n)
{
	struct itimerspec its = { .it_value.tv_nsec = 1 };
	struct epoll_event ev[256];
	int got = 0, ret, i;
	uint64_t exp, t0;

	for (i = 0; i < n; i++)
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			return NAN;
	usleep(2000);
	t0 = bench_now_ns();
	while (got < n) {
		ret = epoll_wait(ep, ev, 256, LAT_WAIT_MS);
		if (ret <= 0)
			return NAN;
		for (i = 0; i < ret; i++)
			got += read(fds[ev[i].data.u32], &exp, sizeof(exp)) == sizeof(exp);
	}
	return (double)(bench_now_ns() - t0) / n;
}

static double measure_deliver(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fds[P_DELIVER], ep = epoll_create1(EPOLL_CLOEXEC), n, r;
	double best = NAN, ns;

	for (n = 0; ep >= 0 && n < P_DELIVER; n++) {
		fds[n] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		ev.data.u32 = n;
		if (fds[n] < 0)
			break;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[n], &ev)) {
			close(fds[n]);
			break;
		}
	}
	for (r = 0; n == P_DELIVER && r < P_REPS; r++) {
		ns = deliver_once(ep, fds, n);
		if (isnan(best) || ns < best)
			best = ns;
	}
	while (n-- > 0)
		close(fds[n]);
	if (ep >= 0)
		close(ep);
	return best;
}

void host_measure(struct host_costs *h)
{
	fprintf(stderr, "bench-device: host costs for the projection...\n");
	h->ioctl_ns = measure_ioctl();
	h->copy_ns_b = measure_copy();
	h->deliver_ns = measure_deliver();
	fprintf(stderr, "bench-device: the rings' user side, the in-process baselines...\n");
	if (ring_user_measure(&h->ring))
		h->ring = (struct ring_user) {
			{ NAN, NAN, NAN }, { NAN, NAN, NAN }, { NAN, NAN },
			{ NAN, NAN }, NAN,
		};
	h->core_pair_ns = inproc_core_pair_ns(P_BATCH, P_REPS);
	h->mutex_ns[0] = inproc_mutex_pair_ns(1);
	h->mutex_ns[1] = inproc_mutex_pair_ns(2);
}

/*
 * Read the KBENCH lines of @path into @k (NAN: absent), the first of each
 * op; 0 if the six of the ioctls came.  KBENCH-MEM lines into mems[], one
 * per capacity.
 */
static int kbench_read(const char *path, double k[K_OPS])
{
	char line[256], op[32];
	double ns;
	int i, have = 0;
	FILE *f;

	for (i = 0; i < K_OPS; i++)
		k[i] = NAN;
	f = path ? fopen(path, "r") : NULL;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct ring_mem *m = &mems[nr_mems];

		const char *pt = strstr(line, " per_timer=");

		if (nr_mems < P_MEMS && pt &&
		    sscanf(line, "KBENCH-MEM capacity=%u nr_sq=%u sq_entries=%u cq_entries=%u",
			   &m->cap, &m->nr_sq, &m->sq, &m->cq) == 4 &&
		    sscanf(pt, " per_timer=%lf", &m->per_timer) == 1 && !mem_seen(m->cap))
			nr_mems++;
		if (sscanf(line, "KBENCH %31s ns_per_op=%lf", op, &ns) != 2)
			continue;
		for (i = 0; i < K_OPS; i++)
			if (!strcmp(op, kop_name[i]) && isnan(k[i])) {
				k[i] = ns;
				have++;
			}
	}
	fclose(f);
	for (i = 0; i < K_RSTART; i++)
		if (isnan(k[i]))
			return -1;
	return 0;
}

/* Whether the ring lines came too (a file of an older run has none). */
static bool kbench_rings(const double k[K_OPS])
{
	int i;

	for (i = K_RSTART; i < K_OPS; i++)
		if (isnan(k[i]))
			return false;
	return true;
}

static void print_host(const struct host_costs *h)
{
	printf("\nprojection for real hardware\n");
	printf("  [host native] timerfd_settime arm %.0f ns, disarm %.0f ns;\n",
	       h->arm_ns, h->disarm_ns);
	printf("    ioctl() round trip on /dev/null %.0f ns;\n", h->ioctl_ns);
	printf("    memcpy %.2f GB/s (%zu KiB in cache);\n", 1 / h->copy_ns_b,
	       P_BATCH * P_IN_B / 1024);
	printf("    timerfd expiry delivery (epoll_wait + read per timerfd) %.0f ns\n",
	       h->deliver_ns);
}

static void print_kernel(const char *path, const double k[K_OPS])
{
	int i;

	printf("  [UML kernel-side] from %s, ns per timer:", path);
	for (i = 0; i < K_OPS; i++)
		printf(" %s %.1f", kop_name[i], k[i]);
	printf("\n");
}

static void print_formula(void)
{
	printf("  formula (ns; copy = ns per byte of memcpy):\n");
	printf("    START       = ioctl + %zu B * copy + k_start\n", P_SPEC_B);
	printf("    STOP        = ioctl + %zu B * copy + k_stop\n", P_STOP_B);
	printf("    BATCH entry = (ioctl + %d * (%zu + %zu) B * copy) / %d + k_batch_start|stop\n",
	       P_BATCH, P_IN_B, P_OUT_B, P_BATCH);
	printf("    expiry      = k_expire + k_read + (ioctl + %d * %zu B * copy) / %d\n",
	       P_BATCH, P_EVENT_B, P_BATCH);
	printf("    ops/s = 1e9 / ns; a start+stop pair: 2e9 / (start + stop)\n");
}

static void proj_row(const char *what, double dev_ns, double tfd_ns)
{
	printf("  %-34s | %10.1f | %10.1f | %12.0f | %12.0f | %7.2f\n", what,
	       dev_ns, tfd_ns, 1e9 / dev_ns, 1e9 / tfd_ns, tfd_ns / dev_ns);
}

static void print_assumptions(void)
{
	printf("  assumptions: the kernel-side figures are the device's own work per\n");
	printf("    timer, the very functions the ioctls and read() call, timed in a\n");
	printf("    UML kernel, whose kernel code runs natively on this CPU; system\n");
	printf("    call entry and user copies are not in them and are added from\n");
	printf("    this host; copy_from_user and copy_to_user move bytes at memcpy\n");
	printf("    speed (an in-cache batch), their fixed cost left out; a read() of\n");
	printf("    events costs one ioctl round trip of entry and exit; timerfd's\n");
	printf("    delivery leaves out its hrtimer expiry, which favours timerfd\n");
}

/* The projected ns of each operation; the last two for pairs. */
static void project(const struct host_costs *h, const double k[K_OPS],
		    double p[K_OPS])
{
	double call = h->ioctl_ns / P_BATCH;

	p[K_START] = h->ioctl_ns + P_SPEC_B * h->copy_ns_b + k[K_START];
	p[K_STOP] = h->ioctl_ns + P_STOP_B * h->copy_ns_b + k[K_STOP];
	p[K_BSTART] = call + (P_IN_B + P_OUT_B) * h->copy_ns_b + k[K_BSTART];
	p[K_BSTOP] = call + (P_IN_B + P_OUT_B) * h->copy_ns_b + k[K_BSTOP];
	p[K_EXPIRE] = k[K_EXPIRE] + k[K_READ] + call + P_EVENT_B * h->copy_ns_b;
	p[K_READ] = NAN;
}

static void print_targets(const struct host_costs *h, const double p[K_OPS])
{
	double batch = (h->arm_ns + h->disarm_ns) / (p[K_BSTART] + p[K_BSTOP]);

	printf("  targets (printed, not judged by any test):\n");
	printf("    BATCH start+stop >= 10x timerfd: %.1fx (%s)\n", batch,
	       batch >= 10 ? "met" : "not met");
	printf("    single START <= one timerfd_settime: %.0f ns vs %.0f ns (%s)\n",
	       p[K_START], h->arm_ns, p[K_START] <= h->arm_ns ? "met" : "not met");
	printf("    single STOP <= one timerfd_settime: %.0f ns vs %.0f ns (%s)\n",
	       p[K_STOP], h->disarm_ns, p[K_STOP] <= h->disarm_ns ? "met" : "not met");
}

/* --- the rings ------------------------------------------------------- */

/**
 * struct ring_proj - the rings' projection, ns of total CPU
 * @k_pair:  the kernel's work on a start entry and a stop entry
 * @enter:   one ENTER: the system call and the kernel's fixed work
 * @pair:    per enum rb_mode, a pair
 * @expiry:  an expiry posted to the CQ and read from it
 * @thread:  per thread, with 1 and 2 threads, each on its own SQ
 */
struct ring_proj {
	double	k_pair;
	double	enter;
	double	pair[RB_MODES];
	double	expiry;
	double	thread[2];
};

static void ring_project(const struct host_costs *h, const double k[K_OPS],
			 struct ring_proj *r)
{
	const struct ring_user *u = &h->ring;
	unsigned int t;

	r->k_pair = k[K_RSTART] + k[K_RSTOP];
	r->enter = h->ioctl_ns + k[K_RENTER];
	for (t = 0; t < RB_MODES; t++)
		r->pair[t] = u->ns[t] + r->k_pair + u->enters[t] * r->enter;
	r->expiry = k[K_REXPIRE] + u->read_ns;
	/* The kernel's work is serialised by the client's lock. */
	for (t = 0; t < 2; t++)
		r->thread[t] = fmax(u->thread_ns[t] + r->k_pair +
				    u->thread_enters[t] * r->enter,
				    (t + 1) * r->k_pair);
}

static void ring_formula(void)
{
	printf("\nthe rings, per start+stop pair, CPU ns (user side measured on this\n");
	printf("host with libtimingwheel over rings in memory, bench_ring.c; kernel side\n");
	printf("from the UML lines ring_start, ring_stop, ring_enter, ring_expire):\n");
	printf("  pair     = user pair + k_ring_start + k_ring_stop + ENTERs/pair * enter\n");
	printf("  enter    = ioctl + k_ring_enter\n");
	printf("  expiry   = k_ring_expire + user read of one CQ entry\n");
	printf("  T threads, per thread, a floor = max(user pair_T + k_pair + ENTERs/pair\n");
	printf("             * enter, T * k_pair): the kernel's work is serialised by the\n");
	printf("             client's lock, and k_pair was measured with the entries in\n");
	printf("             the applying CPU's cache, which another thread's are not\n");
}

static void ring_row(const char *what, double user, double kern, double enters,
		     double total)
{
	printf("  %-40s | %8.1f | %8.1f | %9.5f | %8.1f\n", what, user, kern,
	       enters, total);
}

static void ring_table(const struct host_costs *h, const struct ring_proj *r,
		       const double p[K_OPS])
{
	const struct ring_user *u = &h->ring;

	printf("\n  %-40s | %8s | %8s | %9s | %8s\n", "start+stop pair", "user ns",
	       "kernel", "ENTER/pr", "total ns");
	ring_row("ring: clock each start, submit each", u->ns[RB_EACH], r->k_pair,
		 u->enters[RB_EACH], r->pair[RB_EACH]);
	ring_row("ring: clock each start, submit per 32", u->ns[RB_LOOP], r->k_pair,
		 u->enters[RB_LOOP], r->pair[RB_LOOP]);
	ring_row("ring: start_in, a clock read per submit", u->ns[RB_STAMPED], r->k_pair,
		 u->enters[RB_STAMPED], r->pair[RB_STAMPED]);
	ring_row("in-process row: tw_core + one timerfd", h->inproc_pair_ns, 0, 0,
		 h->inproc_pair_ns);
	ring_row("in-process: clock per 32, deferred",
		 h->inproc_deferred_pair_ns, 0, 0, h->inproc_deferred_pair_ns);
	ring_row("tw_core alone: tw_start + tw_stop", h->core_pair_ns, 0, 0,
		 h->core_pair_ns);
	ring_row("timerfd_settime arm + disarm", 0, 0, 2, h->arm_ns + h->disarm_ns);
	ring_row("single ioctl START + STOP", 0, p[K_START] + p[K_STOP], 2,
		 p[K_START] + p[K_STOP]);
	ring_row("BATCH start + stop, per timer", 0, p[K_BSTART] + p[K_BSTOP], 0,
		 p[K_BSTART] + p[K_BSTOP]);
	printf("  expiry: ring %.1f ns (kernel %.1f + CQ read %.1f); read() %.1f;"
	       " timerfd %.1f\n", r->expiry, h->ring.read_ns >= 0 ? r->expiry -
	       h->ring.read_ns : NAN, h->ring.read_ns, p[K_EXPIRE], h->deliver_ns);
}

static void ring_threads(const struct host_costs *h, const struct ring_proj *r)
{
	unsigned int t;

	printf("\n  threads arming and cancelling on one file, each through its own SQ\n");
	printf("  (projected, a floor), against one wheel behind one mutex, the lock per\n");
	printf("  start and per stop (measured); wall ns per pair per thread, each\n");
	printf("  repetition's slowest thread, the best repetition\n");
	printf("  %-8s | %14s | %14s | %14s | %14s | %6s\n", "threads",
	       "ring ns/pair", "ring pairs/s", "mutex ns/pair", "mutex pairs/s", "ratio");
	for (t = 0; t < 2; t++)
		printf("  %-8u | %14.1f | %14.0f | %14.1f | %14.0f | %6.2f\n", t + 1,
		       r->thread[t], 1e9 / r->thread[t], h->mutex_ns[t],
		       1e9 / h->mutex_ns[t], h->mutex_ns[t] / r->thread[t]);
	printf("  (the rings' user side measured on as many host threads)\n");
}

static void ring_memory(void)
{
	int i;

	printf("\n  memory per timer of ring capacity, every region (tw_ring_size()):\n");
	for (i = 0; i < nr_mems; i++)
		printf("    capacity %u, %u SQ of %u, CQ of %u: %.2f B per timer\n",
		       mems[i].cap, mems[i].nr_sq, mems[i].sq, mems[i].cq,
		       mems[i].per_timer);
	printf("    an ioctl timer: %d B (slab object and index bucket)\n", P_ID_TIMER_B);
}

static const char *met(bool ok)
{
	return ok ? "met" : "not met";
}

static void ring_targets(const struct host_costs *h, const struct ring_proj *r)
{
	double sys = h->ring.enters[RB_STAMPED] / 2, tfd = h->arm_ns + h->disarm_ns;
	double pair = r->pair[RB_STAMPED];
	double mem = mem_largest();

	printf("\n  targets of the rings (printed, not judged by any test; the pair:\n");
	printf("  timingwheel_prep_start_in() each, a submit per 32 that reads the\n");
	printf("  clock once, after the entries: no start early):\n");
	printf("    pair <= in-process pair: %.1f vs %.1f ns (%s)\n", pair,
	       h->inproc_pair_ns, met(pair <= h->inproc_pair_ns));
	printf("      (a clock read per start, as the in-process row: %.1f ns;\n",
	       r->pair[RB_LOOP]);
	printf("      the in-process loop deferring its starts as the rings do: %.1f ns)\n",
	       h->inproc_deferred_pair_ns);
	printf("    pair <= 3x tw_core's pair: %.1f vs %.1f ns (%s)\n", pair,
	       3 * h->core_pair_ns, met(pair <= 3 * h->core_pair_ns));
	printf("    >= 15x cheaper than timerfd arm+disarm: %.1fx (%s)\n",
	       tfd / pair, met(tfd / pair >= 15));
	printf("    system calls per operation < 0.01: %.5f (%s)\n", sys, met(sys < 0.01));
	printf("    2 threads: rings beat the mutex wheel: %.2fx (%s)\n",
	       h->mutex_ns[1] / r->thread[1], met(r->thread[1] < h->mutex_ns[1]));
	printf("    <= 48 B per timer of capacity (largest setup): %.2f B (%s)\n",
	       mem, met(mem <= 48));
}

static void ring_print(const struct host_costs *h, const double k[K_OPS],
		       const double p[K_OPS])
{
	struct ring_proj r;

	ring_project(h, k, &r);
	ring_formula();
	ring_table(h, &r, p);
	ring_threads(h, &r);
	ring_memory();
	ring_targets(h, &r);
	/* One line in a stable format, for tools. */
	printf("PROJECTION ring_pair_ns=%.1f", r.pair[RB_STAMPED]);
	printf(" inproc_pair_ns=%.1f", h->inproc_pair_ns);
	printf(" core_pair_ns=%.1f", h->core_pair_ns);
	printf(" timerfd_pair_ns=%.1f", h->arm_ns + h->disarm_ns);
	printf(" ioctl_pair_ns=%.1f", p[K_START] + p[K_STOP]);
	printf(" batch_pair_ns=%.1f", p[K_BSTART] + p[K_BSTOP]);
	printf(" syscalls_per_op=%.5f\n", h->ring.enters[RB_STAMPED] / 2);
}

void project_print(const char *kbench_path, const struct host_costs *h)
{
	double k[K_OPS], p[K_OPS];

	print_host(h);
	if (kbench_read(kbench_path, k)) {
		printf("  [UML kernel-side] MISSING: %s has not all of the KBENCH lines\n",
		       kbench_path ? kbench_path : "(no file given)");
		printf("    (start, stop, batch_start, batch_stop, expire, read): no projection\n");
		print_formula();
		return;
	}
	print_kernel(kbench_path, k);
	print_formula();
	project(h, k, p);
	printf("\n  %-34s | %10s | %10s | %12s | %12s | %7s\n", "operation",
	       "device ns", "timerfd ns", "device ops/s", "timerfd op/s", "ratio");
	proj_row("single START vs arm", p[K_START], h->arm_ns);
	proj_row("single STOP vs disarm", p[K_STOP], h->disarm_ns);
	proj_row("single start+stop, per op", (p[K_START] + p[K_STOP]) / 2,
		 (h->arm_ns + h->disarm_ns) / 2);
	proj_row("BATCH start, per timer vs arm", p[K_BSTART], h->arm_ns);
	proj_row("BATCH stop, per timer vs disarm", p[K_BSTOP], h->disarm_ns);
	proj_row("BATCH start+stop, per op", (p[K_BSTART] + p[K_BSTOP]) / 2,
		 (h->arm_ns + h->disarm_ns) / 2);
	proj_row("expiry to userspace vs delivery", p[K_EXPIRE], h->deliver_ns);
	print_targets(h, p);
	print_assumptions();
	if (kbench_rings(k))
		ring_print(h, k, p);
	else
		printf("\nno ring_* KBENCH lines in %s: the rings are not projected\n",
		       kbench_path);
}
