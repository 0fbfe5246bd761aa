// SPDX-License-Identifier: GPL-2.0
/*
 * bench_device: /dev/timingwheel against timerfd and against an in-process
 * wheel (tw_core.c behind one timerfd, bench_inproc.c), from userspace.
 *
 *   throughput  start+stop operations per second, far-future timers that
 *               never fire: single TWHEEL_IOC_START/TWHEEL_IOC_STOP ioctls, and
 *               TWHEEL_IOC_BATCH arrays of 4096 entries, against
 *               timerfd_settime() arm and disarm on pre-created timerfds
 *               and tw_start()/tw_stop() in process; best of REPS runs
 *   memory      slab bytes (from /proc/slabinfo, else /proc/meminfo Slab:)
 *               and MemAvailable bytes per pending timer, for 100000 and
 *               1000000 device timers against as many timerfds as
 *               RLIMIT_NOFILE allows, at most 100000
 *   lateness    10000 one-shot timers due uniformly over 2 s (5 per ms, a
 *               rate every side keeps up with, even under TCG), the same
 *               pattern for each side: how late userspace sees each expiry
 *               (clock_gettime() right after read() or poll() returns),
 *               and for the device also how late the kernel fired it;
 *               p50/p99/max, expiries delivered, expiries a side fell
 *               behind on (more than LAT_BEHIND_NS late, or a timerfd
 *               re-armed after its due time), and expiries seen before
 *               they were due, which must be 0.  No ratio is printed when
 *               a side fell behind or lost an expiry: its figures then
 *               measure the consumer, not the timer.
 *   big         10,000,000 timers on one file (max_timers and
 *               max_user_timers raised for it, then restored): started by
 *               TWHEEL_IOC_BATCH, slab bytes per timer, the file closed with
 *               all of them pending (time to close, tw_ktimer objects and
 *               slab bytes left after it); then as many started due at
 *               once, fired and read back
 *
 * Usage: bench_device [-q] [-H [-k KBENCH]] | -T
 *   -q  quick: every count divided by 10
 *   -H  host: no device (the host's own kernel, no module); measure what a
 *       projection for real hardware needs (bench_project.c) and print it,
 *       with the kernel-side figures of the file KBENCH
 *   -T  threads, and nothing else: 1 and 2 threads arming and cancelling
 *       through their own SQs of one file of the device, its kernel work
 *       included, against tw_core behind one mutex the same threads share
 *       (the projection's threads row, measured where two CPUs run at
 *       once: a guest of 2 vCPUs, each a host thread)
 *
 * The exit status is non-zero only when something could not be set up or
 * an operation failed; slow figures never fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <libtimingwheel.h>

#include "bench.h"
#include "bench_project.h"
#include "tw_tools.h"

#define DEV_PATH	TIMINGWHEEL_DEVICE
#define PARAM_DIR	"/sys/module/timingwheel/parameters/"
#define SLAB_SYSFS_DIR	"/sys/kernel/slab/tw_ktimer"
#define SLAB_SYSFS	SLAB_SYSFS_DIR "/"
#define FAR_NS		(60 * NSEC_PER_SEC)
#define REPS		5
#define BATCH_LEN	4096
#define N_SINGLE	10000
#define N_BATCH		65536
#define N_TFD		1000
#define TFD_ROUNDS	10
#define MEM_SMALL	100000
#define MEM_LARGE	1000000
#define MEM_TFD_CAP	100000
#define LAT_N		10000
#define LAT_LEAD_NS	(100 * NSEC_PER_MSEC)
#define LAT_SPAN_NS	(2 * NSEC_PER_SEC)
#define LAT_SETTLE_US	300000
#define LAT_RES_COARSE	NSEC_PER_MSEC
#define LAT_RES_FINE	10000ULL
/* Later than this, a consumer has a backlog: it fell behind the pattern. */
#define LAT_BEHIND_NS	(20 * NSEC_PER_MSEC)
#define BIG_N		10000000
#define BIG_CHUNK	65536
#define READ_EVENTS	4096
#define FD_RESERVE	32
#define NOFILE_WANT	1048576
#define MAX_ROWS	80

enum better { HIGHER, LOWER, NO_RATIO };
enum side { TW, IP, TFD, SIDES };

/**
 * struct row - one line of the table
 * @name:   what is measured, with its unit
 * @v:      the figure of each side; NAN: not measured
 * @dirty:  per side: the figure measures a backlog (no ratio against it)
 * @prec:   decimals printed
 * @better: which way is better, for the ratios
 */
struct row {
	char		name[64];
	double		v[SIDES];
	bool		dirty[SIDES];
	int		prec;
	enum better	better;
};

struct lat_stats {
	double		p50;		/* microseconds */
	double		p99;
	double		max;
	uint64_t	early;
	uint64_t	got;
	uint64_t	want;
	uint64_t	behind;
	bool		valid;
};

struct mem_snap {
	long long	slab;		/* bytes */
	long long	avail;
	long long	tw_objs;	/* active tw_ktimer objects, -1: unknown */
};

struct counts {
	uint32_t	single;
	uint32_t	batch;
	uint32_t	tfd;
	uint32_t	mem_small;
	uint32_t	mem_large;
	uint32_t	mem_tfd;
	uint32_t	lat;
	uint32_t	big;
};

/* A module parameter raised for a run and restored after it. */
struct param_save {
	const char		*name;
	unsigned long long	old;
	bool			saved;
};

static struct row rows[MAX_ROWS];
static unsigned int nr_rows;
static int errors;
static bool host_mode;
static const char *slab_source = "/proc/meminfo Slab:";
static long long tw_objsize = -1;
static double batch_start_rate;		/* ops/s, to size the lateness lead */
static uint64_t lat_lead_ns = LAT_LEAD_NS;
static struct host_costs host;
static double batch_ratio;		/* BATCH start+stop against timerfd */

static void fail(const char *what)
{
	fprintf(stderr, "bench-device: %s: %s\n", what, strerror(errno));
	errors++;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("bench-device: calloc");
		exit(1);
	}
	return p;
}

static struct row *add_row(const char *name, double tw, double ip, double tfd,
			   int prec, enum better better)
{
	static struct row spare;
	struct row *r;

	if (nr_rows >= ARRAY_SIZE(rows))
		return memset(&spare, 0, sizeof(spare));
	r = &rows[nr_rows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->v[TW] = tw;
	r->v[IP] = ip;
	r->v[TFD] = tfd;
	r->prec = prec;
	r->better = better;
	return r;
}

static void fmt_val(char *buf, size_t len, const struct row *r, enum side s)
{
	if (isnan(r->v[s]))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f%s", r->prec, r->v[s], r->dirty[s] ? "*" : "");
}

/* How much better the device is than side @s; "-" if not comparable. */
static void fmt_ratio(char *buf, size_t len, const struct row *r, enum side s)
{
	double num = r->better == HIGHER ? r->v[TW] : r->v[s];
	double den = r->better == HIGHER ? r->v[s] : r->v[TW];

	/* A negative figure is noise (memory freed meanwhile): no ratio. */
	if (r->better == NO_RATIO || isnan(num) || isnan(den) || num < 0 ||
	    den < 0 || r->dirty[TW] || r->dirty[s])
		snprintf(buf, len, "-");
	else if (den == 0)
		snprintf(buf, len, num == 0 ? "1.00" : "inf");
	else
		snprintf(buf, len, "%.2f", num / den);
}

static void print_table(void)
{
	char v[SIDES][32], rt[32], ri[32];
	unsigned int i;
	int s;

	printf("%-40s | %12s | %12s | %12s | %7s | %7s\n", "metric",
	       "timingwheel", "in-process", "timerfd", "tw/tfd", "tw/wheel");
	printf("%.40s-+-%.12s-+-%.12s-+-%.12s-+-%.7s-+-%.7s\n",
	       "----------------------------------------", "------------",
	       "------------", "------------", "-------", "-------");
	for (i = 0; i < nr_rows; i++) {
		for (s = 0; s < SIDES; s++)
			fmt_val(v[s], sizeof(v[s]), &rows[i], s);
		fmt_ratio(rt, sizeof(rt), &rows[i], TFD);
		fmt_ratio(ri, sizeof(ri), &rows[i], IP);
		printf("%-40s | %12s | %12s | %12s | %7s | %7s\n", rows[i].name,
		       v[TW], v[IP], v[TFD], rt, ri);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of the sorted @v, in microseconds. */
static double percentile_us(const int64_t *v, size_t n, unsigned int p)
{
	size_t rank = (p * n + 99) / 100;

	if (rank < 1)
		rank = 1;
	return v[rank - 1] / 1000.0;
}

/* Statistics of @run; its @behind adds to the expiries over the bound. */
static void lat_compute(struct lat_run *run, struct lat_stats *s)
{
	uint32_t i, n = run->got;
	int64_t *v = run->late;

	memset(s, 0, sizeof(*s));
	s->got = n;
	s->want = run->n;
	s->early = run->early;
	s->behind = run->behind;
	s->valid = n > 0;
	for (i = 0; i < n; i++)
		s->behind += v[i] > (int64_t)LAT_BEHIND_NS;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	s->p50 = percentile_us(v, n, 50);
	s->p99 = percentile_us(v, n, 99);
	s->max = v[n - 1] / 1000.0;
}

static bool lat_clean(const struct lat_stats *s)
{
	return s->valid && s->got == s->want && !s->behind;
}

/* --- module parameters ------------------------------------------------ */

static int param_read(const char *name, unsigned long long *v)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int param_write(const char *name, unsigned long long v)
{
	char path[128];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	bad = fprintf(f, "%llu\n", v) < 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

/* Raise parameter @p->name to at least @want; 0 if it is that high now. */
static int param_raise(struct param_save *p, unsigned long long want)
{
	if (param_read(p->name, &p->old))
		return -1;
	if (p->old >= want)
		return 0;
	if (param_write(p->name, want)) {
		fprintf(stderr, "bench-device: cannot raise %s to %llu: %s\n",
			p->name, want, strerror(errno));
		return -1;
	}
	p->saved = true;
	return 0;
}

static void param_restore(struct param_save *p)
{
	if (p->saved && param_write(p->name, p->old))
		fail("restoring a module parameter");
	p->saved = false;
}

/* Raise both timer limits to @n for a run; 0 if @n timers now fit. */
static int limits_raise(struct param_save save[2], uint32_t n)
{
	save[0] = (struct param_save){ .name = "max_timers" };
	save[1] = (struct param_save){ .name = "max_user_timers" };
	return param_raise(&save[0], n) | param_raise(&save[1], n);
}

static void limits_restore(struct param_save save[2])
{
	param_restore(&save[0]);
	param_restore(&save[1]);
}

/* --- /dev/timingwheel ------------------------------------------------ */

/* Like fail(), for the library's negative errno @err. */
static void fail_lib(const char *what, int err)
{
	fprintf(stderr, "bench-device: %s: %s\n", what, timingwheel_strerror(err));
	errors++;
}

static int dev_open(uint64_t resolution_ns)
{
	int fd = timingwheel_open(CLOCK_MONOTONIC, resolution_ns, O_CLOEXEC);

	if (fd < 0) {
		fail_lib("open " DEV_PATH, fd);
		return -1;
	}
	return fd;
}

static uint64_t dev_resolution(int fd)
{
	struct twheel_info info;
	int ret = timingwheel_info(fd, &info);

	if (ret) {
		fail_lib("TWHEEL_IOC_GET_INFO", ret);
		return 0;
	}
	return info.resolution_ns;
}

/* Entries for ids @base.. of op @op; a start is @value (+ i * @step) ns. */
static void fill_ops_from(struct twheel_op *ops, uint32_t n, uint64_t base,
			  uint32_t op, uint64_t value, uint32_t flags)
{
	uint32_t i;

	memset(ops, 0, n * sizeof(*ops));
	for (i = 0; i < n; i++) {
		ops[i].op = op;
		ops[i].id = base + i;
		if (op == TWHEEL_OP_START) {
			ops[i].value = value;
			ops[i].flags = flags;
		}
	}
}

static void fill_ops(struct twheel_op *ops, uint32_t n, uint32_t op,
		     uint64_t value, uint32_t flags)
{
	fill_ops_from(ops, n, 0, op, value, flags);
}

/* Submit @n ops in TWHEEL_IOC_BATCH calls of BATCH_LEN; 0 if all succeeded. */
static int dev_submit(int fd, struct twheel_op *ops, uint32_t n)
{
	struct twheel_batch batch = { 0 };
	uint32_t done, i, bad = 0;

	for (done = 0; done < n; done += batch.count) {
		batch.ops = (uintptr_t)(ops + done);
		batch.count = n - done < BATCH_LEN ? n - done : BATCH_LEN;
		if (ioctl(fd, TWHEEL_IOC_BATCH, &batch)) {
			fail("TWHEEL_IOC_BATCH");
			return -1;
		}
	}
	for (i = n; i-- > 0;)
		if (ops[i].result < 0)
			bad = i + 1;
	if (bad) {
		fprintf(stderr, "bench-device: batch entry %u of %u failed: %s\n",
			bad - 1, n, strerror(-ops[bad - 1].result));
		errors++;
		return -1;
	}
	return 0;
}

/* Single-ioctl starts then stops of @n ids; ops/s, or -1 on error. */
static double dev_single_rate(int fd, uint32_t n)
{
	uint64_t t0 = bench_now_ns();
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = timingwheel_start(fd, i, FAR_NS, 0, 0, 0);
		if (ret) {
			fail_lib("TWHEEL_IOC_START", ret);
			return -1;
		}
	}
	for (i = 0; i < n; i++) {
		ret = timingwheel_stop(fd, i);
		if (ret != TWHEEL_STOPPED_PENDING) {
			/* A positive result is the wrong one: it was not pending. */
			fail_lib("TWHEEL_IOC_STOP", ret < 0 ? ret : -ENOENT);
			return -1;
		}
	}
	return 2.0 * n * NSEC_PER_SEC / (bench_now_ns() - t0);
}

static double dev_batch_rate(int fd, struct twheel_op *starts, struct twheel_op *stops,
			     uint32_t n)
{
	uint64_t t0, t1, t2;

	t0 = bench_now_ns();
	if (dev_submit(fd, starts, n))
		return -1;
	t1 = bench_now_ns();
	if (dev_submit(fd, stops, n))
		return -1;
	t2 = bench_now_ns();
	if (n * NSEC_PER_SEC / (double)(t1 - t0) > batch_start_rate)
		batch_start_rate = n * NSEC_PER_SEC / (double)(t1 - t0);
	return 2.0 * n * NSEC_PER_SEC / (t2 - t0);
}

static void dev_throughput(const struct counts *c, double rate[2])
{
	struct twheel_op *starts = xcalloc(c->batch, sizeof(*starts));
	struct twheel_op *stops = xcalloc(c->batch, sizeof(*stops));
	double r;
	int fd, i;

	fd = dev_open(0);
	if (fd < 0)
		goto out;
	fill_ops(starts, c->batch, TWHEEL_OP_START, FAR_NS, 0);
	fill_ops(stops, c->batch, TWHEEL_OP_STOP, 0, 0);
	for (i = 0; i < REPS; i++) {
		r = dev_single_rate(fd, c->single);
		if (r < 0)
			break;
		if (isnan(rate[0]) || r > rate[0])
			rate[0] = r;
	}
	for (i = 0; i < REPS; i++) {
		r = dev_batch_rate(fd, starts, stops, c->batch);
		if (r < 0)
			break;
		if (isnan(rate[1]) || r > rate[1])
			rate[1] = r;
	}
	close(fd);
out:
	free(starts);
	free(stops);
}

/* --- timerfd --------------------------------------------------------- */

static int tfd_arm(int fd, uint64_t ns, int flags)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ns / NSEC_PER_SEC;
	its.it_value.tv_nsec = ns % NSEC_PER_SEC;
	if (timerfd_settime(fd, flags, &its, NULL)) {
		fail("timerfd_settime");
		return -1;
	}
	return 0;
}

/* Create up to @n timerfds, fewer if the fd limit is reached. */
static uint32_t tfd_create(int *fds, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (fds[i] < 0) {
			if (errno != EMFILE && errno != ENFILE)
				fail("timerfd_create");
			break;
		}
	}
	return i;
}

static void tfd_close(int *fds, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * Arm then disarm each of @n timerfds, @rounds times; ns per arm and per
 * disarm into @ns[0] and @ns[1]; 0 or -1.
 */
static int tfd_rate_once(const int *fds, uint32_t n, unsigned int rounds,
			 double ns[2])
{
	uint64_t t0, t_arm = 0, t_disarm = 0;
	unsigned int r;
	uint32_t i;

	for (r = 0; r < rounds; r++) {
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			if (tfd_arm(fds[i], FAR_NS, 0))
				return -1;
		t_arm += bench_now_ns() - t0;
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			if (tfd_arm(fds[i], 0, 0))
				return -1;
		t_disarm += bench_now_ns() - t0;
	}
	ns[0] = (double)t_arm / ((double)n * rounds);
	ns[1] = (double)t_disarm / ((double)n * rounds);
	return 0;
}

/* Arm+disarm ops/s, best of REPS; the best ns per arm and disarm to @host. */
static double tfd_throughput(const struct counts *c)
{
	int *fds = xcalloc(c->tfd, sizeof(*fds));
	uint32_t n = tfd_create(fds, c->tfd);
	double ns[2], best = NAN;
	int i;

	if (n < c->tfd) {
		fprintf(stderr, "bench-device: only %u of %u timerfds\n", n, c->tfd);
		errors++;
	} else {
		for (i = 0; i < REPS && !tfd_rate_once(fds, n, TFD_ROUNDS, ns); i++) {
			if (isnan(best) || 2e9 / (ns[0] + ns[1]) > best)
				best = 2e9 / (ns[0] + ns[1]);
			if (!host.arm_ns || ns[0] < host.arm_ns)
				host.arm_ns = ns[0];
			if (!host.disarm_ns || ns[1] < host.disarm_ns)
				host.disarm_ns = ns[1];
		}
	}
	tfd_close(fds, n);
	free(fds);
	return best;
}

/* --- memory ---------------------------------------------------------- */

static long long meminfo_bytes(const char *key)
{
	size_t len = strlen(key);
	long long kb = -1;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			kb = atoll(line + len + 1);
			break;
		}
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/*
 * Bytes in all slab pages, from /proc/slabinfo; -1 if unreadable.  The
 * active objects of the tw_ktimer cache go to @tw_objs (-1: no such cache).
 */
static long long slabinfo_bytes(long long *tw_objs)
{
	unsigned long active, objsize, pages, slabs;
	long long total = 0, page = sysconf(_SC_PAGESIZE);
	char line[512], name[128], *data;
	FILE *f = fopen("/proc/slabinfo", "r");

	*tw_objs = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* name active_objs num_objs objsize objperslab pagesperslab */
		if (sscanf(line, "%127s %lu %*u %lu %*u %lu", name, &active,
			   &objsize, &pages) != 4)
			continue;
		/* ... : slabdata active_slabs num_slabs sharedavail */
		data = strstr(line, ": slabdata");
		if (!data || sscanf(data, ": slabdata %*u %lu", &slabs) != 1)
			continue;
		total += (long long)slabs * pages * page;
		if (!strcmp(name, "tw_ktimer")) {
			tw_objsize = objsize;
			*tw_objs = active;
		}
	}
	fclose(f);
	return total;
}

static void mem_pick_source(void)
{
	FILE *f = fopen(SLAB_SYSFS "object_size", "r");
	long long objs;

	if (slabinfo_bytes(&objs) >= 0)
		slab_source = "/proc/slabinfo (all caches, slab pages)";
	if (f) {
		if (tw_objsize < 0 && fscanf(f, "%lld", &tw_objsize) != 1)
			tw_objsize = -1;
		fclose(f);
	}
}

/*
 * SLUB counts every object of a CPU's current slab as active: shrinking the
 * cache first (root only, where SLUB has sysfs) makes the tw_ktimer count
 * exact.  Elsewhere the count is an upper bound.
 */
static void slab_shrink(void)
{
	FILE *f = fopen(SLAB_SYSFS "shrink", "w");

	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
}

/*
 * The objects in use in the tw_ktimer cache, through SLUB's sysfs, which
 * also finds a cache merged with others of its size (then their objects
 * count too); -1 if there is no such file.
 */
static long long slab_tw_objects(void)
{
	FILE *f = fopen(SLAB_SYSFS "objects", "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static bool slab_tw_merged(void)
{
	struct stat st;

	return !lstat(SLAB_SYSFS_DIR, &st) && S_ISLNK(st.st_mode);
}

static void mem_snapshot(struct mem_snap *s)
{
	long long objs;

	slab_shrink();
	s->slab = slabinfo_bytes(&s->tw_objs);
	objs = slab_tw_objects();
	if (objs >= 0)
		s->tw_objs = objs;
	if (s->slab < 0)
		s->slab = meminfo_bytes("Slab");
	s->avail = meminfo_bytes("MemAvailable");
}

/* Slab and MemAvailable bytes per timer between @a and @b. */
static void mem_per_timer(const struct mem_snap *a, const struct mem_snap *b,
			  uint32_t n, double out[2])
{
	out[0] = (double)(b->slab - a->slab) / n;
	out[1] = (double)(a->avail - b->avail) / n;
}

/*
 * Device memory at @c->mem_small then @c->mem_large pending timers:
 * out[0..1] slab and MemAvailable at the small count, out[2..3] at the large.
 */
static void dev_memory(const struct counts *c, double out[4])
{
	uint32_t large = c->mem_large, small = c->mem_small;
	struct param_save save[2];
	struct mem_snap s0, s1, s2;
	struct twheel_op *ops;
	int fd;

	if (limits_raise(save, large))
		fprintf(stderr, "bench-device: the limits may stop the memory run\n");
	ops = xcalloc(large, sizeof(*ops));
	fill_ops(ops, large, TWHEEL_OP_START, FAR_NS, 0);
	fd = dev_open(0);
	if (fd < 0)
		goto out;
	mem_snapshot(&s0);
	if (dev_submit(fd, ops, small))
		goto out_close;
	mem_snapshot(&s1);
	if (dev_submit(fd, ops + small, large - small))
		goto out_close;
	mem_snapshot(&s2);
	mem_per_timer(&s0, &s1, small, out);
	mem_per_timer(&s0, &s2, large, out + 2);
out_close:
	close(fd);
out:
	limits_restore(save);
	free(ops);
}

/* Raise RLIMIT_NOFILE as far as allowed; return the soft limit. */
static uint64_t raise_nofile(void)
{
	struct rlimit rl = { NOFILE_WANT, NOFILE_WANT };
	unsigned long nr_open = 0;
	FILE *f;

	if (!setrlimit(RLIMIT_NOFILE, &rl))
		return rl.rlim_cur;
	f = fopen("/proc/sys/fs/nr_open", "r");
	if (f) {
		if (fscanf(f, "%lu", &nr_open) == 1 && nr_open < NOFILE_WANT) {
			rl.rlim_cur = nr_open;
			rl.rlim_max = nr_open;
		}
		fclose(f);
		if (rl.rlim_cur < NOFILE_WANT && !setrlimit(RLIMIT_NOFILE, &rl))
			return rl.rlim_cur;
	}
	/* Not root: the soft limit up to the hard one. */
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	return rl.rlim_cur;
}

/* The timerfds one may still open, keeping a few descriptors spare. */
static uint32_t fd_budget(uint32_t cap)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur <= FD_RESERVE)
		return 0;
	return rl.rlim_cur - FD_RESERVE < cap ? rl.rlim_cur - FD_RESERVE : cap;
}

/* Memory of @n armed timerfds: out[0] slab, out[1] MemAvailable. */
static uint32_t tfd_memory(uint32_t cap, double out[2])
{
	uint32_t want = fd_budget(cap), n, i;
	int *fds = xcalloc(want ? want : 1, sizeof(*fds));
	struct mem_snap s0, s1;

	mem_snapshot(&s0);
	n = tfd_create(fds, want);
	for (i = 0; i < n; i++)
		if (tfd_arm(fds[i], FAR_NS, 0))
			break;
	mem_snapshot(&s1);
	if (n && i == n)
		mem_per_timer(&s0, &s1, n, out);
	tfd_close(fds, n);
	free(fds);
	return n;
}

/* --- lateness -------------------------------------------------------- */

/*
 * Let the previous side's teardown finish (closing thousands of timerfds
 * leaves RCU callbacks that run in softirq, beside the hrtimers of the
 * next side) so that each side starts from a quiet machine.
 */
static void lat_settle(void)
{
	usleep(LAT_SETTLE_US);
}

/* Due times lat_lead_ns after @t0, spread uniformly over LAT_SPAN_NS. */
static void lat_dues(uint64_t *due, uint32_t n, uint64_t t0)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		due[i] = t0 + lat_lead_ns + (uint64_t)i * LAT_SPAN_NS / n;
}

/* The pattern's arrays for @n timers; free with lat_run_free(). */
static void lat_run_alloc(struct lat_run *run, uint32_t n)
{
	memset(run, 0, sizeof(*run));
	run->n = n;
	run->due = xcalloc(n, sizeof(*run->due));
	run->late = xcalloc(n, sizeof(*run->late));
}

static void lat_run_free(struct lat_run *run)
{
	free((void *)run->due);
	free(run->late);
}

struct dev_lat {
	struct lat_run	obs;		/* seen by userspace */
	struct lat_run	ker;		/* fired by the kernel */
	bool		*seen;
	uint64_t	bad;
};

/*
 * Lateness is against the time the caller asked for: the event's own due
 * is that time rounded up to the client's tick.
 */
static void dev_lat_account(struct dev_lat *l, const struct twheel_event *ev,
			    uint64_t observed)
{
	uint64_t due;

	if (ev->id >= l->obs.n || l->seen[ev->id] ||
	    ev->due < l->obs.due[ev->id]) {
		l->bad++;
		return;
	}
	due = l->obs.due[ev->id];
	l->seen[ev->id] = true;
	l->obs.early += observed < due;
	l->ker.early += ev->fired < due;
	l->obs.late[l->obs.got++] = (int64_t)(observed - due);
	l->ker.late[l->ker.got++] = (int64_t)(ev->fired - due);
}

/* Read events until all arrived or none came for LAT_WAIT_MS. */
static void dev_lat_collect(int fd, struct dev_lat *l)
{
	static struct twheel_event ev[READ_EVENTS];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t observed;
	ssize_t ret;
	size_t i;

	while (l->obs.got + l->bad < l->obs.n) {
		ret = poll(&pfd, 1, LAT_WAIT_MS);
		if (ret == 0)
			break;
		ret = read(fd, ev, sizeof(ev));
		observed = bench_now_ns();
		if (ret < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fail("read " DEV_PATH);
			return;
		}
		for (i = 0; i < ret / sizeof(ev[0]); i++)
			dev_lat_account(l, &ev[i], observed);
	}
}

/* Device lateness at @res ns (0: the default); return the resolution used. */
static uint64_t dev_lateness(uint32_t n, uint64_t res, struct lat_stats *obs,
			     struct lat_stats *ker)
{
	struct twheel_op *ops = xcalloc(n, sizeof(*ops));
	struct dev_lat l = { 0 };
	uint64_t used = 0;
	uint32_t i;
	int fd;

	lat_run_alloc(&l.obs, n);
	l.ker = l.obs;
	l.ker.late = xcalloc(n, sizeof(*l.ker.late));
	l.seen = xcalloc(n, sizeof(*l.seen));
	fill_ops(ops, n, TWHEEL_OP_START, 0, TWHEEL_TIMER_ABSTIME);
	fd = dev_open(res);
	if (fd >= 0) {
		used = dev_resolution(fd);
		lat_dues((uint64_t *)l.obs.due, n, bench_now_ns());
		for (i = 0; i < n; i++)
			ops[i].value = l.obs.due[i];
		if (!dev_submit(fd, ops, n))
			dev_lat_collect(fd, &l);
		close(fd);
	}
	if (l.bad || l.obs.got < n) {
		fprintf(stderr, "bench-device: lateness: %u of %u events, %llu bad\n",
			l.obs.got, n, (unsigned long long)l.bad);
		errors++;
	}
	lat_compute(&l.obs, obs);
	lat_compute(&l.ker, ker);
	free(ops);
	free(l.ker.late);
	free(l.seen);
	lat_run_free(&l.obs);
	return used;
}

struct tfd_lat {
	struct lat_run	*run;
	int		*fds;
	uint32_t	*slot_idx;
	uint32_t	k;
	uint32_t	next;
};

/*
 * Slot @slot fired: account its timer, re-arm it for the next due time.
 * A re-arm that comes after that time is the pool falling behind.
 */
static int tfd_lat_fired(struct tfd_lat *l, uint32_t slot, uint64_t observed)
{
	struct lat_run *run = l->run;
	uint64_t due = run->due[l->slot_idx[slot]], exp;

	if (read(l->fds[slot], &exp, sizeof(exp)) != sizeof(exp))
		return errno == EAGAIN ? 0 : -1;
	run->early += observed < due;
	run->late[run->got++] = (int64_t)(observed - due);
	if (l->next >= run->n)
		return 0;
	l->slot_idx[slot] = l->next++;
	due = run->due[l->slot_idx[slot]];
	run->behind += bench_now_ns() >= due;
	return tfd_arm(l->fds[slot], due, TFD_TIMER_ABSTIME);
}

static void tfd_lat_collect(int ep, struct tfd_lat *l)
{
	struct epoll_event ev[256];
	uint64_t observed;
	int ret, i;

	while (l->run->got < l->run->n) {
		ret = epoll_wait(ep, ev, ARRAY_SIZE(ev), LAT_WAIT_MS);
		observed = bench_now_ns();
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			if (ret < 0)
				fail("epoll_wait");
			return;
		}
		for (i = 0; i < ret; i++)
			if (tfd_lat_fired(l, ev[i].data.u32, observed)) {
				fail("timerfd read/re-arm");
				return;
			}
	}
}

static int tfd_lat_setup(int ep, struct tfd_lat *l)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint32_t i;

	for (i = 0; i < l->k; i++) {
		ev.data.u32 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, l->fds[i], &ev)) {
			fail("epoll_ctl");
			return -1;
		}
	}
	lat_dues((uint64_t *)l->run->due, l->run->n, bench_now_ns());
	for (i = 0; i < l->k; i++) {
		l->slot_idx[i] = i;
		if (tfd_arm(l->fds[i], l->run->due[i], TFD_TIMER_ABSTIME))
			return -1;
	}
	l->next = l->k;
	return 0;
}

/*
 * timerfd lateness: one timerfd per timer, all armed before the first is
 * due, if the fd limit allows, else a pool re-armed to the next due time.
 * Return the number of timerfds.
 */
static uint32_t tfd_lateness(uint32_t n, struct lat_stats *obs)
{
	struct lat_run run;
	struct tfd_lat l = { .run = &run };
	uint32_t want = fd_budget(n);
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0) {
		fail("epoll_create1");
		return 0;
	}
	lat_run_alloc(&run, n);
	l.fds = xcalloc(want ? want : 1, sizeof(*l.fds));
	l.slot_idx = xcalloc(want ? want : 1, sizeof(*l.slot_idx));
	l.k = tfd_create(l.fds, want);
	if (l.k && !tfd_lat_setup(ep, &l))
		tfd_lat_collect(ep, &l);
	lat_compute(&run, obs);
	tfd_close(l.fds, l.k);
	close(ep);
	free(l.fds);
	free(l.slot_idx);
	lat_run_free(&run);
	return l.k;
}

/* The same pattern on the in-process wheel at @res ns per tick. */
static void ip_lateness(uint32_t n, uint64_t res, struct lat_stats *obs)
{
	struct lat_run run;

	lat_run_alloc(&run, n);
	lat_dues((uint64_t *)run.due, n, bench_now_ns());
	if (inproc_lateness(&run, res))
		fprintf(stderr, "bench-device: in-process lateness: %u of %u expiries\n",
			run.got, n);
	lat_compute(&run, obs);
	lat_run_free(&run);
}

/* --- 10,000,000 timers on one file ------------------------------------ */

/**
 * struct big - the figures of the big run
 * @start_rate: BATCH starts per second, far-future timers
 * @mem:        slab and MemAvailable bytes per pending timer
 * @close_s:    seconds close() took with every timer pending
 * @left_objs:  tw_ktimer objects in use after that close minus before
 *              the open, if @objs_known
 * @objs_known: the tw_ktimer cache was found before and after
 * @left_slab:  slab bytes after that close minus before the open
 * @read_n:     expiries read back in the second half
 * @read_s:     seconds from the end of its starts to the last event read
 */
struct big {
	double		start_rate;
	double		mem[2];
	double		close_s;
	long long	left_objs;
	bool		objs_known;
	long long	left_slab;
	uint64_t	read_n;
	double		read_s;
};

/* Start @n timers, ids 0.., @value ns from now, BIG_CHUNK at a time. */
static int big_start(int fd, struct twheel_op *ops, uint32_t n, uint64_t value)
{
	uint32_t base, len;

	for (base = 0; base < n; base += len) {
		len = n - base < BIG_CHUNK ? n - base : BIG_CHUNK;
		fill_ops_from(ops, len, base, TWHEEL_OP_START, value, 0);
		if (dev_submit(fd, ops, len))
			return -1;
	}
	return 0;
}

/* @n pending far-future timers, then close: memory, close time, leftovers. */
static void big_pending(uint32_t n, struct twheel_op *ops, struct big *b)
{
	struct mem_snap s0, s1, s2;
	uint64_t t0;
	int fd;

	mem_snapshot(&s0);
	fd = dev_open(0);
	if (fd < 0)
		return;
	t0 = bench_now_ns();
	if (big_start(fd, ops, n, FAR_NS)) {
		close(fd);
		return;
	}
	b->start_rate = (double)n * NSEC_PER_SEC / (bench_now_ns() - t0);
	mem_snapshot(&s1);
	mem_per_timer(&s0, &s1, n, b->mem);
	t0 = bench_now_ns();
	close(fd);
	b->close_s = (double)(bench_now_ns() - t0) / NSEC_PER_SEC;
	mem_snapshot(&s2);
	b->objs_known = s0.tw_objs >= 0 && s2.tw_objs >= 0;
	b->left_objs = s2.tw_objs - s0.tw_objs;
	b->left_slab = s2.slab - s0.slab;
}

/* @n timers due one resolution step after their start, all read back. */
static void big_fire_read(uint32_t n, struct twheel_op *ops, struct big *b)
{
	static struct twheel_event ev[READ_EVENTS];
	struct pollfd pfd = { .events = POLLIN };
	uint64_t t0;
	ssize_t ret;

	pfd.fd = dev_open(0);
	if (pfd.fd < 0)
		return;
	if (big_start(pfd.fd, ops, n, 1))
		goto out;
	t0 = bench_now_ns();
	while (b->read_n < n && poll(&pfd, 1, LAT_WAIT_MS) > 0) {
		ret = read(pfd.fd, ev, sizeof(ev));
		if (ret < 0 && errno != EINTR && errno != EAGAIN) {
			fail("read " DEV_PATH);
			break;
		}
		if (ret > 0)
			b->read_n += ret / sizeof(ev[0]);
	}
	b->read_s = (double)(bench_now_ns() - t0) / NSEC_PER_SEC;
	if (b->read_n < n) {
		fprintf(stderr, "bench-device: big: %llu of %u expiries read\n",
			(unsigned long long)b->read_n, n);
		errors++;
	}
out:
	close(pfd.fd);
}

static void run_big(const struct counts *c)
{
	struct big b = { 0 };
	struct param_save save[2];
	struct twheel_op *ops;
	char name[64];

	if (!c->big)
		return;
	fprintf(stderr, "bench-device: %u timers on one file...\n", c->big);
	ops = xcalloc(BIG_CHUNK, sizeof(*ops));
	if (limits_raise(save, c->big))
		fprintf(stderr, "bench-device: the limits may stop the big run\n");
	big_pending(c->big, ops, &b);
	big_fire_read(c->big, ops, &b);
	limits_restore(save);
	free(ops);
	snprintf(name, sizeof(name), "%uM timers: BATCH start (ops/s)", c->big / 1000000);
	add_row(name, b.start_rate ? b.start_rate : NAN, NAN, NAN, 0, NO_RATIO);
	add_row("  slab bytes/timer", b.mem[0], NAN, NAN, 1, NO_RATIO);
	add_row("  MemAvailable bytes/timer", b.mem[1], NAN, NAN, 1, NO_RATIO);
	add_row("  close() with all pending (s)", b.close_s, NAN, NAN, 2, NO_RATIO);
	add_row("  tw_ktimer objects, after close - before",
		b.objs_known ? b.left_objs : NAN,
		NAN, NAN, 0, NO_RATIO);
	add_row("  slab bytes after close - before", (double)b.left_slab, NAN, NAN,
		0, NO_RATIO);
	add_row("  fired and read back", (double)b.read_n, NAN, NAN, 0, NO_RATIO);
	add_row("  read back in (s)", b.read_s, NAN, NAN, 2, NO_RATIO);
}

/* --- the runs -------------------------------------------------------- */

static void run_throughput(const struct counts *c)
{
	double tw[2] = { NAN, NAN }, tfd, ip;

	fprintf(stderr, "bench-device: throughput...\n");
	if (!host_mode)
		dev_throughput(c, tw);
	tfd = tfd_throughput(c);
	ip = inproc_startstop_rate(c->batch, FAR_NS, REPS, false);
	if (ip < 0) {
		errors++;
		ip = NAN;
	}
	host.inproc_pair_ns = 2e9 / ip;
	host.inproc_deferred_pair_ns =
		2e9 / inproc_startstop_rate(c->batch, FAR_NS, REPS, true);
	if (host.inproc_deferred_pair_ns < 0) {
		errors++;
		host.inproc_deferred_pair_ns = NAN;
	}
	batch_ratio = tw[1] / tfd;
	add_row("start+stop, single ioctl (ops/s)", tw[0], ip, tfd, 0, HIGHER);
	add_row("start+stop, batch of 4096 (ops/s)", tw[1], ip, tfd, 0, HIGHER);
}

static void run_memory(const struct counts *c, uint32_t *tfd_n)
{
	double tw[4] = { NAN, NAN, NAN, NAN }, tfd[2] = { NAN, NAN }, ip[2];
	char name[64];

	fprintf(stderr, "bench-device: memory...\n");
	mem_pick_source();
	if (!host_mode)
		dev_memory(c, tw);
	*tfd_n = tfd_memory(c->mem_tfd, tfd);
	/* In process: the caller's heap, one object per timer and one wheel. */
	ip[0] = inproc_timer_bytes() + (double)inproc_wheel_bytes() / c->mem_small;
	ip[1] = inproc_timer_bytes() + (double)inproc_wheel_bytes() / c->mem_large;
	snprintf(name, sizeof(name), "slab bytes/timer, %u timers", c->mem_small);
	add_row(name, tw[0], ip[0], tfd[0], 0, LOWER);
	snprintf(name, sizeof(name), "slab bytes/timer, %u timers", c->mem_large);
	add_row(name, tw[2], ip[1], tfd[0], 0, LOWER);
	snprintf(name, sizeof(name), "MemAvailable bytes/timer, %u timers",
		 c->mem_small);
	add_row(name, tw[1], ip[0], tfd[1], 0, LOWER);
	snprintf(name, sizeof(name), "MemAvailable bytes/timer, %u timers",
		 c->mem_large);
	add_row(name, tw[3], ip[1], tfd[1], 0, LOWER);
}

static const char *res_label(uint64_t res)
{
	static char buf[32];

	if (res % 1000)
		snprintf(buf, sizeof(buf), "%llu ns", (unsigned long long)res);
	else if (res % 1000000)
		snprintf(buf, sizeof(buf), "%llu us", (unsigned long long)(res / 1000));
	else
		snprintf(buf, sizeof(buf), "%llu ms", (unsigned long long)(res / 1000000));
	return buf;
}

static double lat_value(const struct lat_stats *s, int what)
{
	static const size_t off[] = {
		offsetof(struct lat_stats, p50), offsetof(struct lat_stats, p99),
		offsetof(struct lat_stats, max),
	};

	if (!s || !s->valid)
		return NAN;
	if (what < 3)
		return *(const double *)((const char *)s + off[what]);
	return what == 3 ? s->got : what == 4 ? s->behind : s->early;
}

/* The rows of one resolution: @s holds the TW, IP and TFD sides. */
static void lat_rows(const char *label, const struct lat_stats *s[SIDES])
{
	static const char * const what[] = {
		"p50 (us)", "p99 (us)", "max (us)", "delivered", "fell behind",
		"early",
	};
	char name[64];
	struct row *r;
	int i, k;

	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "%s %s", label, what[i]);
		r = add_row(name, lat_value(s[TW], i), lat_value(s[IP], i),
			    lat_value(s[TFD], i), i < 3 ? 1 : 0,
			    i < 3 ? LOWER : NO_RATIO);
		for (k = 0; k < SIDES; k++)
			r->dirty[k] = i < 3 && s[k] && s[k]->valid && !lat_clean(s[k]);
	}
}

static void lat_kernel_rows(const char *label, const struct lat_stats *ker)
{
	static const char * const what[] = { "p50 (us)", "p99 (us)", "max (us)" };
	char name[64];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s %s", label, what[i]);
		add_row(name, lat_value(ker, i), NAN, NAN, 1, NO_RATIO);
	}
}

/* The device's p99 against timerfd's p99 plus one resolution step. */
static void lat_target(uint64_t res, const struct lat_stats *tw,
		       const struct lat_stats *tfd)
{
	double bound = tfd->p99 + res / 1000.0;

	if (!lat_clean(tw) || !lat_clean(tfd)) {
		printf("  res %s: p99 target not judged: a side fell behind or lost expiries\n",
		       res_label(res));
		return;
	}
	printf("  res %s: device p99 %.1f us %s timerfd p99 %.1f us + %.1f us = %.1f us\n",
	       res_label(res), tw->p99, tw->p99 <= bound ? "<=" : ">", tfd->p99,
	       res / 1000.0, bound);
}

struct lat_all {
	struct lat_stats	tw[2];
	struct lat_stats	ker[2];
	struct lat_stats	ip[2];
	struct lat_stats	tfd;
	uint64_t		res[2];
	uint32_t		fds;
};

static void run_lateness(const struct counts *c, struct lat_all *a)
{
	const struct lat_stats *s[SIDES];
	char label[48];
	int i;

	/* Leave room for the starts, at twice the best batch start rate. */
	if (batch_start_rate > 0)
		lat_lead_ns += 2.0 * c->lat / batch_start_rate * NSEC_PER_SEC;
	fprintf(stderr, "bench-device: lateness, first expiry after %llu ms...\n",
		(unsigned long long)(lat_lead_ns / NSEC_PER_MSEC));
	lat_settle();
	a->fds = tfd_lateness(c->lat, &a->tfd);
	for (i = 0; i < 2; i++) {
		lat_settle();
		if (!host_mode)
			a->res[i] = dev_lateness(c->lat, a->res[i], &a->tw[i], &a->ker[i]);
		lat_settle();
		ip_lateness(c->lat, a->res[i], &a->ip[i]);
		snprintf(label, sizeof(label), "late, res %s", res_label(a->res[i]));
		s[TW] = &a->tw[i];
		s[IP] = &a->ip[i];
		s[TFD] = &a->tfd;
		lat_rows(label, s);
		if (host_mode)
			continue;
		snprintf(label, sizeof(label), "kernel late, res %s",
			 res_label(a->res[i]));
		lat_kernel_rows(label, &a->ker[i]);
	}
}

static void print_header(const struct counts *c, bool quick)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	printf("bench-device: %s vs an in-process wheel and timerfd on %s %s, %ld CPUs%s\n",
	       host_mode ? "(no device: host mode)" : DEV_PATH, u.sysname, u.release,
	       sysconf(_SC_NPROCESSORS_ONLN), quick ? ", quick mode (counts / 10)" : "");
	printf("  throughput, best of %d, timers %llu s ahead: single ioctls on %u ids,\n",
	       REPS, FAR_NS / NSEC_PER_SEC, c->single);
	printf("    TWHEEL_IOC_BATCH of %d on %u timers, timerfd_settime on %u fds x %d rounds,\n",
	       BATCH_LEN, c->batch, c->tfd, TFD_ROUNDS);
	printf("    tw_start/tw_stop on %u timers in process\n", c->batch);
	if (!host_mode)
		printf("  memory: %u and %u device timers\n", c->mem_small, c->mem_large);
	printf("  lateness: %u one-shot timers due uniformly over %llu s, the same\n",
	       c->lat, LAT_SPAN_NS / NSEC_PER_SEC);
	printf("    pattern for each side; \"fell behind\": seen > %llu ms late, or a\n",
	       LAT_BEHIND_NS / NSEC_PER_MSEC);
	printf("    timerfd re-armed after its due time; * and no ratio: a side fell\n");
	printf("    behind or lost expiries, so its figure measures the consumer\n");
	printf("  ratio > 1: timingwheel better (ops/s: tw / other; B, us: other / tw)\n\n");
}

static void print_notes(const struct counts *c, uint32_t tfd_mem_n,
			const struct lat_all *a)
{
	printf("\nnotes:\n");
	printf("  memory source: %s\n", slab_source);
	printf("  MemAvailable also counts vmalloc (the id hash, fd tables) and any noise\n");
	if (tw_objsize > 0)
		printf("  slab cache tw_ktimer: %lld bytes per object\n", tw_objsize);
	if (slab_tw_merged())
		printf("  slab cache tw_ktimer is merged with other caches of its size:\n"
		       "    its object counts include theirs\n");
	printf("  timerfd memory measured on %u timerfds (RLIMIT_NOFILE, cap %u)\n",
	       tfd_mem_n, c->mem_tfd);
	printf("  timerfd additionally costs one file descriptor per timer\n");
	printf("  in-process: tw_core.c behind one timerfd; its memory is the caller's\n");
	printf("    heap (%zu B per timer + %zu B per wheel), no kernel memory; one\n",
	       inproc_timer_bytes(), inproc_wheel_bytes());
	printf("    tw_start/tw_stop figure stands in both throughput rows\n");
	printf("  lateness: first due %llu ms after the start\n",
	       (unsigned long long)(lat_lead_ns / NSEC_PER_MSEC));
	printf("  late = clock_gettime() after read(), poll() or epoll_wait(), minus due\n");
	printf("  timerfd lateness: %u timerfds in epoll%s\n", a->fds,
	       a->fds < c->lat ? ", each re-armed to the next due time" :
	       ", one per timer, all armed before the first is due");
	printf("  resolutions: %llu ns (the device's default), %llu ns\n",
	       (unsigned long long)a->res[0], (unsigned long long)a->res[1]);
	if (host_mode)
		return;
	printf("  kernel late = the event's fired - due (device only)\n");
	printf("  BATCH start+stop against timerfd arm+disarm: %.2fx (target under TCG: 5x)\n",
	       batch_ratio);
	lat_target(a->res[0], &a->tw[0], &a->tfd);
	lat_target(a->res[1], &a->tw[1], &a->tfd);
}

static void set_counts(struct counts *c, unsigned int div)
{
	c->single = N_SINGLE / div;
	c->batch = N_BATCH / div;
	c->tfd = N_TFD / div;
	c->mem_small = MEM_SMALL / div;
	c->mem_large = MEM_LARGE / div;
	c->mem_tfd = MEM_TFD_CAP / div;
	c->lat = LAT_N / div;
	c->big = host_mode ? 0 : BIG_N / div;
}

static int parse_args(int argc, char **argv, bool *quick, const char **kbench,
		      bool *threads)
{
	int opt;

	while ((opt = getopt(argc, argv, "qHk:T")) != -1) {
		switch (opt) {
		case 'q':
			*quick = true;
			break;
		case 'H':
			host_mode = true;
			break;
		case 'k':
			*kbench = optarg;
			break;
		case 'T':
			*threads = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-q] [-H [-k KBENCH]] | -T\n", argv[0]);
			return -1;
		}
	}
	return 0;
}

/*
 * -T: the threads row, measured.  Each side is timed from a common start
 * to the slower thread's end (bench_threads()); a pair is a start due
 * 1 s ahead and its stop, a start_in() each and a submit per 32 entries
 * that reads the clock once, as the projection's row.  Return the exit status.
 */
static int run_threads(void)
{
	double ring[2], enters[2], mutex[2];
	unsigned int t;
	int fd = dev_open(0), ret;

	ret = fd < 0 ? -1 : ring_threads_device(fd, ring, enters);
	if (fd >= 0)
		close(fd);
	if (ret) {
		fprintf(stderr, "bench-device: threads on the rings failed\n");
		return 1;
	}
	for (t = 0; t < 2; t++)
		mutex[t] = inproc_mutex_pair_ns(t + 1);
	printf("bench-device: threads on %s, %ld CPUs online\n", DEV_PATH,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("  threads  |   ring ns/pair |  ENTER/pair |  mutex ns/pair |  ratio\n");
	for (t = 0; t < 2; t++)
		printf("  %-8u | %14.1f | %11.5f | %14.1f | %6.2f\n", t + 1,
		       ring[t], enters[t], mutex[t], mutex[t] / ring[t]);
	printf("  ring: the device's rings, kernel work included; mutex: tw_core\n"
	       "  behind one pthread mutex; ratio > 1: the rings cheaper\n");
	return mutex[0] < 0 || mutex[1] < 0;
}

/*
 * Slack: SLACK_N timers spread evenly over SLACK_SPAN_NS, on a file of
 * 1 ms resolution, all with @slack ns of slack.  How many hrtimer
 * interrupts they cost (GET_INFO's wakeups), how many due times they got,
 * and the latest any fired after the time asked for (ms).
 */
#define SLACK_N		1000
#define SLACK_SPAN_NS	(2 * NSEC_PER_SEC)

static int slack_run(uint64_t slack, double out[3])
{
	static struct twheel_op ops[SLACK_N];
	static struct twheel_event ev[SLACK_N];
	uint64_t t0 = bench_now_ns() + 50 * NSEC_PER_MSEC, last = 0, late = 0;
	struct twheel_info info;
	uint32_t i, got = 0, dues = 0;
	int fd = dev_open(NSEC_PER_MSEC);

	if (fd < 0)
		return -1;
	fill_ops(ops, SLACK_N, TWHEEL_OP_START, 0, TWHEEL_TIMER_ABSTIME);
	for (i = 0; i < SLACK_N; i++) {
		ops[i].value = t0 + i * (SLACK_SPAN_NS / SLACK_N);
		ops[i].slack = slack;
	}
	if (dev_submit(fd, ops, SLACK_N))
		goto out;
	while (got < SLACK_N) {
		ssize_t r = read(fd, ev, sizeof(ev));

		if (r <= 0) {
			fail("read");
			goto out;
		}
		for (i = 0; i < r / sizeof(ev[0]); i++, got++) {
			uint64_t asked = ops[ev[i].id].value;

			dues += ev[i].due != last;
			last = ev[i].due;
			if (ev[i].fired - asked > late)
				late = ev[i].fired - asked;
		}
	}
	if (ioctl(fd, TWHEEL_IOC_GET_INFO, &info))
		fail("TWHEEL_IOC_GET_INFO");
	out[0] = info.wakeups;
	out[1] = dues;
	out[2] = late / 1e6;
out:
	close(fd);
	return got == SLACK_N ? 0 : -1;
}

static void run_slack(void)
{
	static const uint64_t slacks[] = { 0, 10 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC };
	char name[64];
	double v[3];
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(slacks); k++) {
		if (slack_run(slacks[k], v))
			return;
		snprintf(name, sizeof(name), "slack %llu ms: hrtimer wakeups",
			 (unsigned long long)(slacks[k] / NSEC_PER_MSEC));
		add_row(name, v[0], NAN, NAN, 0, NO_RATIO);
		add_row("  distinct due times", v[1], NAN, NAN, 0, NO_RATIO);
		add_row("  latest fired - asked (ms)", v[2], NAN, NAN, 1, NO_RATIO);
	}
}

int main(int argc, char **argv)
{
	struct lat_all lat = { .res = { LAT_RES_COARSE, LAT_RES_FINE } };
	const char *kbench = NULL;
	uint32_t tfd_mem_n = 0;
	struct counts c;
	bool quick = false, threads = false;
	int fd;

	if (parse_args(argc, argv, &quick, &kbench, &threads))
		return 2;
	if (threads) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		return run_threads();
	}
	set_counts(&c, quick ? 10 : 1);
	if (!host_mode) {
		fd = dev_open(0);
		if (fd < 0)
			return 1;
		lat.res[0] = dev_resolution(fd) ?: LAT_RES_COARSE;
		close(fd);
	}
	raise_nofile();
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_header(&c, quick);
	run_throughput(&c);
	if (host_mode)
		host_measure(&host);
	run_memory(&c, &tfd_mem_n);
	run_lateness(&c, &lat);
	run_big(&c);
	if (!host_mode)
		run_slack();
	print_table();
	print_notes(&c, tfd_mem_n, &lat);
	if (host_mode)
		project_print(kbench, &host);
	printf("bench-device: done\n");
	return errors ? 1 : 0;
}
