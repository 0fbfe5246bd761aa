// SPDX-License-Identifier: GPL-2.0
/*
 * bench_device: /dev/timingwheel against timerfd, from userspace.
 *
 *   throughput  start+stop operations per second, far-future timers that
 *               never fire: single TW_IOC_START/TW_IOC_STOP ioctls, and
 *               TW_IOC_BATCH arrays of 4096 entries, against
 *               timerfd_settime() arm and disarm on pre-created timerfds;
 *               best of REPS runs
 *   memory      slab bytes (from /proc/slabinfo, else /proc/meminfo Slab:)
 *               and MemAvailable bytes per pending timer, for 100000 and
 *               1000000 device timers against as many timerfds as
 *               RLIMIT_NOFILE allows, at most 100000
 *   lateness    100000 one-shot timers due uniformly over 2 s: how late
 *               userspace sees each expiry (clock_gettime() right after
 *               read() or epoll_wait() returns), and for the device also
 *               how late the kernel fired it; p50/p99/max and the number
 *               of expiries seen before they were due, which must be 0
 *
 * Usage: bench_device [-q] [-t]
 *   -q  quick: every count divided by 10
 *   -t  timerfd only: skip the device (for machines without the module)
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
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/timingwheel.h>

#define DEV_PATH	"/dev/timingwheel"
#define MAX_TIMERS_PATH	"/sys/module/timingwheel/parameters/max_timers"
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
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
#define LAT_N		100000
#define LAT_LEAD_NS	(100 * NSEC_PER_MSEC)
#define LAT_SPAN_NS	(2 * NSEC_PER_SEC)
#define LAT_RES_FINE	10000ULL
#define LAT_POOL	1000
#define LAT_WAIT_MS	5000
#define READ_EVENTS	4096
#define FD_RESERVE	32
#define NOFILE_WANT	1048576
#define MAX_ROWS	48
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum better { HIGHER, LOWER, NO_RATIO };

struct row {
	char		name[64];
	double		tw;		/* NAN: not measured */
	double		tfd;
	int		prec;
	enum better	better;
};

struct lat_stats {
	double		p50;		/* microseconds */
	double		p99;
	double		max;
	uint64_t	early;
	uint64_t	got;
	bool		valid;
};

struct mem_snap {
	long long	slab;		/* bytes */
	long long	avail;
};

struct counts {
	uint32_t	single;
	uint32_t	batch;
	uint32_t	tfd;
	uint32_t	mem_small;
	uint32_t	mem_large;
	uint32_t	mem_tfd;
	uint32_t	lat;
};

static struct row rows[MAX_ROWS];
static unsigned int nr_rows;
static int errors;
static bool tfd_only;
static const char *slab_source = "/proc/meminfo Slab:";
static long long tw_objsize = -1;
static double batch_start_rate;		/* ops/s, to size the lateness lead */
static uint64_t lat_lead_ns = LAT_LEAD_NS;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

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

static void add_row(const char *name, double tw, double tfd, int prec,
		    enum better better)
{
	struct row *r;

	if (nr_rows >= ARRAY_SIZE(rows))
		return;
	r = &rows[nr_rows++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->tw = tw;
	r->tfd = tfd;
	r->prec = prec;
	r->better = better;
}

static void fmt_val(char *buf, size_t len, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
}

static void fmt_ratio(char *buf, size_t len, const struct row *r)
{
	double num = r->better == HIGHER ? r->tw : r->tfd;
	double den = r->better == HIGHER ? r->tfd : r->tw;

	/* A negative figure is noise (memory freed meanwhile): no ratio. */
	if (r->better == NO_RATIO || isnan(num) || isnan(den) || num < 0 || den < 0)
		snprintf(buf, len, "-");
	else if (den == 0)
		snprintf(buf, len, num == 0 ? "1.00" : "inf");
	else
		snprintf(buf, len, "%.2f", num / den);
}

static void print_table(void)
{
	char tw[32], tfd[32], ratio[32];
	unsigned int i;

	printf("%-44s | %14s | %14s | %8s\n", "metric", "timingwheel",
	       "timerfd", "ratio");
	printf("%.44s-+-%.14s-+-%.14s-+-%.8s\n",
	       "--------------------------------------------",
	       "--------------", "--------------", "--------");
	for (i = 0; i < nr_rows; i++) {
		fmt_val(tw, sizeof(tw), rows[i].tw, rows[i].prec);
		fmt_val(tfd, sizeof(tfd), rows[i].tfd, rows[i].prec);
		fmt_ratio(ratio, sizeof(ratio), &rows[i]);
		printf("%-44s | %14s | %14s | %8s\n", rows[i].name, tw, tfd,
		       ratio);
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

static void lat_compute(int64_t *v, size_t n, struct lat_stats *s)
{
	s->got = n;
	s->valid = n > 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	s->p50 = percentile_us(v, n, 50);
	s->p99 = percentile_us(v, n, 99);
	s->max = v[n - 1] / 1000.0;
}

/* --- /dev/timingwheel ------------------------------------------------ */

static int dev_open(uint64_t resolution_ns)
{
	struct tw_config cfg = {
		.clockid = CLOCK_MONOTONIC,
		.resolution_ns = resolution_ns,
	};
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fail("open " DEV_PATH);
		return -1;
	}
	if (resolution_ns && ioctl(fd, TW_IOC_SET_CONFIG, &cfg)) {
		fail("TW_IOC_SET_CONFIG");
		close(fd);
		return -1;
	}
	return fd;
}

static uint64_t dev_resolution(int fd)
{
	struct tw_info info;

	if (ioctl(fd, TW_IOC_GET_INFO, &info)) {
		fail("TW_IOC_GET_INFO");
		return 0;
	}
	return info.resolution_ns;
}

static void fill_ops(struct tw_op *ops, uint32_t n, uint32_t op,
		     uint64_t value, uint32_t flags)
{
	uint32_t i;

	memset(ops, 0, n * sizeof(*ops));
	for (i = 0; i < n; i++) {
		ops[i].op = op;
		ops[i].id = i;
		if (op == TW_OP_START) {
			ops[i].value = value;
			ops[i].flags = flags;
		}
	}
}

/* Submit @n ops in TW_IOC_BATCH calls of BATCH_LEN; 0 if all succeeded. */
static int dev_submit(int fd, struct tw_op *ops, uint32_t n)
{
	struct tw_batch batch = { 0 };
	uint32_t done, i, bad = 0;

	for (done = 0; done < n; done += batch.count) {
		batch.ops = (uintptr_t)(ops + done);
		batch.count = n - done < BATCH_LEN ? n - done : BATCH_LEN;
		if (ioctl(fd, TW_IOC_BATCH, &batch)) {
			fail("TW_IOC_BATCH");
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
	struct tw_timer_spec spec = { .value = FAR_NS };
	struct tw_stop stop = { 0 };
	uint64_t t0 = now_ns();
	uint32_t i;

	for (i = 0; i < n; i++) {
		spec.id = i;
		if (ioctl(fd, TW_IOC_START, &spec)) {
			fail("TW_IOC_START");
			return -1;
		}
	}
	for (i = 0; i < n; i++) {
		stop.id = i;
		if (ioctl(fd, TW_IOC_STOP, &stop) != TW_STOPPED_PENDING) {
			fail("TW_IOC_STOP");
			return -1;
		}
	}
	return 2.0 * n * NSEC_PER_SEC / (now_ns() - t0);
}

static double dev_batch_rate(int fd, struct tw_op *starts, struct tw_op *stops,
			     uint32_t n)
{
	uint64_t t0, t1, t2;

	t0 = now_ns();
	if (dev_submit(fd, starts, n))
		return -1;
	t1 = now_ns();
	if (dev_submit(fd, stops, n))
		return -1;
	t2 = now_ns();
	if (n * NSEC_PER_SEC / (double)(t1 - t0) > batch_start_rate)
		batch_start_rate = n * NSEC_PER_SEC / (double)(t1 - t0);
	return 2.0 * n * NSEC_PER_SEC / (t2 - t0);
}

static void dev_throughput(const struct counts *c, double rate[2])
{
	struct tw_op *starts = xcalloc(c->batch, sizeof(*starts));
	struct tw_op *stops = xcalloc(c->batch, sizeof(*stops));
	double r;
	int fd, i;

	rate[0] = NAN;
	rate[1] = NAN;
	fd = dev_open(0);
	if (fd < 0)
		goto out;
	fill_ops(starts, c->batch, TW_OP_START, FAR_NS, 0);
	fill_ops(stops, c->batch, TW_OP_STOP, 0, 0);
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

/* Arm then disarm each of @n timerfds, @rounds times; ops/s. */
static double tfd_rate_once(const int *fds, uint32_t n, unsigned int rounds)
{
	uint64_t t0 = now_ns();
	unsigned int r;
	uint32_t i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++)
			if (tfd_arm(fds[i], FAR_NS, 0))
				return -1;
		for (i = 0; i < n; i++)
			if (tfd_arm(fds[i], 0, 0))
				return -1;
	}
	return 2.0 * n * rounds * NSEC_PER_SEC / (now_ns() - t0);
}

static double tfd_throughput(const struct counts *c)
{
	int *fds = xcalloc(c->tfd, sizeof(*fds));
	uint32_t n = tfd_create(fds, c->tfd);
	double r, best = NAN;
	int i;

	if (n < c->tfd) {
		fprintf(stderr, "bench-device: only %u of %u timerfds\n", n, c->tfd);
		errors++;
	} else {
		for (i = 0; i < REPS; i++) {
			r = tfd_rate_once(fds, n, TFD_ROUNDS);
			if (r < 0)
				break;
			if (isnan(best) || r > best)
				best = r;
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

/* Bytes in all slab pages, from /proc/slabinfo; -1 if unreadable. */
static long long slabinfo_bytes(void)
{
	unsigned long objsize, pages, slabs;
	long long total = 0, page = sysconf(_SC_PAGESIZE);
	char line[512], name[128], *data;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* name active_objs num_objs objsize objperslab pagesperslab */
		if (sscanf(line, "%127s %*u %*u %lu %*u %lu", name, &objsize,
			   &pages) != 3)
			continue;
		/* ... : slabdata active_slabs num_slabs sharedavail */
		data = strstr(line, ": slabdata");
		if (!data || sscanf(data, ": slabdata %*u %lu", &slabs) != 1)
			continue;
		total += (long long)slabs * pages * page;
		if (!strcmp(name, "tw_ktimer"))
			tw_objsize = objsize;
	}
	fclose(f);
	return total;
}

static void mem_pick_source(void)
{
	if (slabinfo_bytes() >= 0)
		slab_source = "/proc/slabinfo (all caches, slab pages)";
}

static void mem_snapshot(struct mem_snap *s)
{
	s->slab = slabinfo_bytes();
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

static uint32_t dev_max_timers(void)
{
	unsigned long v = 0;
	FILE *f = fopen(MAX_TIMERS_PATH, "r");

	if (!f)
		return UINT32_MAX;
	if (fscanf(f, "%lu", &v) != 1)
		v = UINT32_MAX;
	fclose(f);
	return v;
}

/*
 * Device memory at @c->mem_small then @c->mem_large pending timers:
 * out[0..1] slab and MemAvailable at the small count, out[2..3] at the large.
 */
static void dev_memory(const struct counts *c, double out[4])
{
	uint32_t large = c->mem_large, small = c->mem_small;
	struct mem_snap s0, s1, s2;
	struct tw_op *ops;
	int fd, i;

	for (i = 0; i < 4; i++)
		out[i] = NAN;
	if (large > dev_max_timers()) {
		large = dev_max_timers();
		fprintf(stderr, "bench-device: max_timers caps the device at %u\n", large);
	}
	small = small < large ? small : large;
	ops = xcalloc(large, sizeof(*ops));
	fill_ops(ops, large, TW_OP_START, FAR_NS, 0);
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
	fill_ops(ops, large, TW_OP_STOP, 0, 0);
	dev_submit(fd, ops, large);
out_close:
	close(fd);
out:
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

	out[0] = NAN;
	out[1] = NAN;
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

/* Due times @lead ns after @t0, spread uniformly over LAT_SPAN_NS. */
static void lat_dues(uint64_t *due, uint32_t n, uint64_t t0)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		due[i] = t0 + lat_lead_ns + (uint64_t)i * LAT_SPAN_NS / n;
}

struct dev_lat {
	int64_t		*obs;
	int64_t		*ker;
	bool		*seen;
	uint64_t	*due;
	uint32_t	n;
	uint32_t	got;
	uint64_t	early_obs;	/* seen before due */
	uint64_t	early_ker;	/* fired before due */
	uint64_t	bad;
};

static void dev_lat_account(struct dev_lat *l, const struct tw_event *ev,
			    uint64_t observed)
{
	if (ev->id >= l->n || l->seen[ev->id] || ev->due != l->due[ev->id]) {
		l->bad++;
		return;
	}
	l->seen[ev->id] = true;
	l->early_obs += observed < ev->due;
	l->early_ker += ev->fired < ev->due;
	l->obs[l->got] = (int64_t)(observed - ev->due);
	l->ker[l->got] = (int64_t)(ev->fired - ev->due);
	l->got++;
}

/* Read events until all @l->n arrived or none came for LAT_WAIT_MS. */
static void dev_lat_collect(int fd, struct dev_lat *l)
{
	static struct tw_event ev[READ_EVENTS];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t observed;
	ssize_t ret;
	size_t i;

	while (l->got + l->bad < l->n) {
		ret = poll(&pfd, 1, LAT_WAIT_MS);
		if (ret == 0)
			break;
		ret = read(fd, ev, sizeof(ev));
		observed = now_ns();
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

static void dev_lat_report(struct dev_lat *l, struct lat_stats *obs,
			   struct lat_stats *ker)
{
	if (l->got + l->bad < l->n || l->bad) {
		fprintf(stderr, "bench-device: lateness: %u of %u events, %llu bad\n",
			l->got, l->n, (unsigned long long)l->bad);
		errors++;
	}
	lat_compute(l->obs, l->got, obs);
	lat_compute(l->ker, l->got, ker);
	obs->early = l->early_obs;
	ker->early = l->early_ker;
}

/* Device lateness at @res ns (0: the default); return the resolution used. */
static uint64_t dev_lateness(uint32_t n, uint64_t res, struct lat_stats *obs,
			     struct lat_stats *ker)
{
	struct dev_lat l = { .n = n };
	struct tw_op *ops = xcalloc(n, sizeof(*ops));
	uint64_t t0, used = 0;
	uint32_t i;
	int fd;

	l.obs = xcalloc(n, sizeof(*l.obs));
	l.ker = xcalloc(n, sizeof(*l.ker));
	l.seen = xcalloc(n, sizeof(*l.seen));
	l.due = xcalloc(n, sizeof(*l.due));
	fill_ops(ops, n, TW_OP_START, 0, TW_TIMER_ABSTIME);
	fd = dev_open(res);
	if (fd < 0)
		goto out;
	used = dev_resolution(fd);
	t0 = now_ns();
	lat_dues(l.due, n, t0);
	for (i = 0; i < n; i++)
		ops[i].value = l.due[i];
	if (!dev_submit(fd, ops, n)) {
		dev_lat_collect(fd, &l);
		dev_lat_report(&l, obs, ker);
	}
	close(fd);
out:
	free(ops);
	free(l.obs);
	free(l.ker);
	free(l.seen);
	free(l.due);
	return used;
}

struct tfd_lat {
	int		*fds;
	uint32_t	*slot_idx;
	uint64_t	*due;
	int64_t		*obs;
	uint32_t	n;
	uint32_t	k;
	uint32_t	next;
	uint32_t	got;
	uint64_t	early;
};

/* Slot @slot fired: account its timer, re-arm it for the next due time. */
static int tfd_lat_fired(struct tfd_lat *l, uint32_t slot, uint64_t observed)
{
	uint64_t due = l->due[l->slot_idx[slot]], exp;

	if (read(l->fds[slot], &exp, sizeof(exp)) != sizeof(exp))
		return errno == EAGAIN ? 0 : -1;
	if (observed < due)
		l->early++;
	l->obs[l->got++] = (int64_t)(observed - due);
	if (l->next >= l->n)
		return 0;
	l->slot_idx[slot] = l->next++;
	return tfd_arm(l->fds[slot], l->due[l->slot_idx[slot]], TFD_TIMER_ABSTIME);
}

static void tfd_lat_collect(int ep, struct tfd_lat *l)
{
	struct epoll_event ev[256];
	uint64_t observed;
	int ret, i;

	while (l->got < l->n) {
		ret = epoll_wait(ep, ev, ARRAY_SIZE(ev), LAT_WAIT_MS);
		observed = now_ns();
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
	lat_dues(l->due, l->n, now_ns());
	for (i = 0; i < l->k; i++) {
		l->slot_idx[i] = i;
		if (tfd_arm(l->fds[i], l->due[i], TFD_TIMER_ABSTIME))
			return -1;
	}
	l->next = l->k;
	return 0;
}

/* timerfd lateness with a pool of timerfds; return the pool size. */
static uint32_t tfd_lateness(uint32_t n, struct lat_stats *obs)
{
	struct tfd_lat l = { .n = n };
	uint32_t want = fd_budget(n < LAT_POOL ? n : LAT_POOL);
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0) {
		fail("epoll_create1");
		return 0;
	}
	l.fds = xcalloc(want ? want : 1, sizeof(*l.fds));
	l.slot_idx = xcalloc(want ? want : 1, sizeof(*l.slot_idx));
	l.due = xcalloc(n, sizeof(*l.due));
	l.obs = xcalloc(n, sizeof(*l.obs));
	l.k = tfd_create(l.fds, want);
	if (l.k && !tfd_lat_setup(ep, &l))
		tfd_lat_collect(ep, &l);
	if (l.got < n) {
		fprintf(stderr, "bench-device: timerfd lateness: %u of %u expiries\n",
			l.got, n);
		errors++;
	}
	lat_compute(l.obs, l.got, obs);
	obs->early = l.early;
	tfd_close(l.fds, l.k);
	close(ep);
	free(l.fds);
	free(l.slot_idx);
	free(l.due);
	free(l.obs);
	return l.k;
}

/* --- the runs -------------------------------------------------------- */

static double stat_or_nan(const struct lat_stats *s, double v)
{
	return s && s->valid ? v : NAN;
}

static void lat_rows(const char *label, const struct lat_stats *tw,
		     const struct lat_stats *tfd)
{
	static const char * const what[] = { "p50", "p99", "max" };
	char name[64];
	double a, b;
	int i;

	for (i = 0; i < 3; i++) {
		a = i == 0 ? tw->p50 : i == 1 ? tw->p99 : tw->max;
		b = !tfd ? 0 : i == 0 ? tfd->p50 : i == 1 ? tfd->p99 : tfd->max;
		snprintf(name, sizeof(name), "%s %s (us)", label, what[i]);
		add_row(name, stat_or_nan(tw, a), stat_or_nan(tfd, b), 1, LOWER);
	}
	snprintf(name, sizeof(name), "%s early expiries", label);
	add_row(name, stat_or_nan(tw, tw->early),
		stat_or_nan(tfd, tfd ? tfd->early : 0), 0, NO_RATIO);
}

static void run_throughput(const struct counts *c)
{
	double tw[2] = { NAN, NAN }, tfd;

	fprintf(stderr, "bench-device: throughput...\n");
	if (!tfd_only)
		dev_throughput(c, tw);
	tfd = tfd_throughput(c);
	add_row("start+stop, single ioctl (ops/s)", tw[0], tfd, 0, HIGHER);
	add_row("start+stop, batch of 4096 (ops/s)", tw[1], tfd, 0, HIGHER);
}

static void run_memory(const struct counts *c, uint32_t *tfd_n)
{
	double tw[4] = { NAN, NAN, NAN, NAN }, tfd[2];
	char name[64];

	fprintf(stderr, "bench-device: memory...\n");
	mem_pick_source();
	if (!tfd_only)
		dev_memory(c, tw);
	*tfd_n = tfd_memory(c->mem_tfd, tfd);
	snprintf(name, sizeof(name), "slab bytes/timer, %u timers", c->mem_small);
	add_row(name, tw[0], tfd[0], 0, LOWER);
	snprintf(name, sizeof(name), "slab bytes/timer, %u timers", c->mem_large);
	add_row(name, tw[2], tfd[0], 0, LOWER);
	snprintf(name, sizeof(name), "MemAvailable bytes/timer, %u timers",
		 c->mem_small);
	add_row(name, tw[1], tfd[1], 0, LOWER);
	snprintf(name, sizeof(name), "MemAvailable bytes/timer, %u timers",
		 c->mem_large);
	add_row(name, tw[3], tfd[1], 0, LOWER);
}

static const char *res_label(uint64_t res)
{
	static char buf[32];

	if (!res)
		return "default";
	if (res % 1000)
		snprintf(buf, sizeof(buf), "%llu ns", (unsigned long long)res);
	else
		snprintf(buf, sizeof(buf), "%llu us", (unsigned long long)(res / 1000));
	return buf;
}

static void run_lateness(const struct counts *c, uint32_t *pool,
			 uint64_t res_used[2])
{
	struct lat_stats tw_obs[2] = { 0 }, tw_ker[2] = { 0 }, tfd = { 0 };
	static const uint64_t res[2] = { 0, LAT_RES_FINE };
	char label[48];
	int i;

	/* Leave room for the starts, at twice the best batch start rate. */
	if (batch_start_rate > 0)
		lat_lead_ns += 2.0 * c->lat / batch_start_rate * NSEC_PER_SEC;
	fprintf(stderr, "bench-device: lateness, first expiry after %llu ms...\n",
		(unsigned long long)(lat_lead_ns / NSEC_PER_MSEC));
	*pool = tfd_lateness(c->lat, &tfd);
	for (i = 0; i < 2 && !tfd_only; i++)
		res_used[i] = dev_lateness(c->lat, res[i], &tw_obs[i], &tw_ker[i]);
	for (i = 0; i < 2; i++) {
		snprintf(label, sizeof(label), "late, res %s", res_label(res_used[i]));
		lat_rows(label, &tw_obs[i], &tfd);
		snprintf(label, sizeof(label), "kernel late, res %s",
			 res_label(res_used[i]));
		lat_rows(label, &tw_ker[i], NULL);
	}
}

static void print_header(const struct counts *c, bool quick)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	printf("bench-device: %s vs timerfd on %s %s, %ld CPUs%s\n",
	       tfd_only ? "(timingwheel skipped)" : DEV_PATH, u.sysname, u.release,
	       sysconf(_SC_NPROCESSORS_ONLN), quick ? ", quick mode (counts / 10)" : "");
	printf("  throughput, best of %d, timers %llu s ahead: single ioctls on %u ids,\n",
	       REPS, FAR_NS / NSEC_PER_SEC, c->single);
	printf("    TW_IOC_BATCH of %d on %u timers, timerfd_settime on %u fds x %d rounds\n",
	       BATCH_LEN, c->batch, c->tfd, TFD_ROUNDS);
	printf("  memory: %u and %u device timers\n", c->mem_small, c->mem_large);
	printf("  lateness: %u one-shot timers due uniformly over %llu s\n", c->lat,
	       LAT_SPAN_NS / NSEC_PER_SEC);
	printf("  ratio > 1: timingwheel better (ops/s: tw / timerfd; B, us: timerfd / tw)\n\n");
}

static void print_notes(const struct counts *c, uint32_t tfd_mem_n,
			uint32_t pool, const uint64_t res_used[2])
{
	printf("\nnotes:\n");
	printf("  memory source: %s\n", slab_source);
	printf("  MemAvailable also counts vmalloc (the id hash, fd tables) and any noise\n");
	if (tw_objsize > 0)
		printf("  slab cache tw_ktimer: %lld bytes per object\n", tw_objsize);
	printf("  timerfd memory measured on %u timerfds (RLIMIT_NOFILE, cap %u)\n",
	       tfd_mem_n, c->mem_tfd);
	printf("  timerfd additionally costs one file descriptor per timer\n");
	printf("  lateness: first due %llu ms after the start\n",
	       (unsigned long long)(lat_lead_ns / NSEC_PER_MSEC));
	printf("  late = clock_gettime() after read() / epoll_wait() returns, minus due\n");
	printf("  timerfd lateness: %u timerfds in epoll, each re-armed to the next due time\n",
	       pool);
	if (!tfd_only)
		printf("  device resolutions: %llu ns (default), %llu ns\n",
		       (unsigned long long)res_used[0], (unsigned long long)res_used[1]);
	printf("  kernel late = the event's fired - due (device only)\n");
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
}

int main(int argc, char **argv)
{
	uint64_t res_used[2] = { 0, LAT_RES_FINE };
	uint32_t tfd_mem_n = 0, pool = 0;
	struct counts c;
	bool quick = false;
	int opt, fd;

	while ((opt = getopt(argc, argv, "qt")) != -1) {
		switch (opt) {
		case 'q':
			quick = true;
			break;
		case 't':
			tfd_only = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-q] [-t]\n", argv[0]);
			return 2;
		}
	}
	set_counts(&c, quick ? 10 : 1);
	if (!tfd_only) {
		fd = dev_open(0);
		if (fd < 0)
			return 1;
		res_used[0] = dev_resolution(fd);
		close(fd);
	}
	raise_nofile();
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_header(&c, quick);
	run_throughput(&c);
	run_memory(&c, &tfd_mem_n);
	run_lateness(&c, &pool, res_used);
	print_table();
	print_notes(&c, tfd_mem_n, pool, res_used);
	printf("bench-device: done\n");
	return errors ? 1 : 0;
}
