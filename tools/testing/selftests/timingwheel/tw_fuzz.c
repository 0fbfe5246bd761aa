// SPDX-License-Identifier: GPL-2.0
/*
 * tw_fuzz: randomized attacks on /dev/timingwheel, each judged by an oracle.
 *
 *   tw_fuzz ioctl SEED SECONDS   random commands, sizes, pointers (NULL,
 *                                unmapped, read-only, straddling a page
 *                                boundary), flags, reserved fields, huge
 *                                counts and times; every return value is
 *                                checked against the errno the ABI document
 *                                promises, from a model of the file's ids
 *   tw_fuzz stress SEED SECONDS [STORM]
 *                                threads, forks, kills in the middle of a
 *                                read and expiry storms of STORM timers on
 *                                one file (see fuzz_stress())
 *   tw_fuzz ring SEED SECONDS    a random client of the rings, every event
 *                                and result checked against a model of its
 *                                slots (tw_fuzz_ring.h)
 *   tw_fuzz model SEED SECONDS   a random client (starts, stops, replace,
 *                                batches, periodic timers, reads of odd
 *                                sizes) whose every event is checked against
 *                                a model: never early, never lost, never
 *                                duplicated, the counters exact
 *
 * SEED 0 picks one; the seed is always printed, and the same seed replays
 * the same sequence of calls (what the kernel answers may still differ
 * where timing decides, which the oracles allow for).  The run stops after
 * SECONDS and prints one line, "TW-FUZZ <mode> seed=... <counts>
 * failures=N", which the harness judges (scripts/guest/markers.txt lists
 * the marker); failures also print the step.
 * Nothing here is timed: a slow guest does fewer steps, never fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tw_selftest.h"

#define KTIME_MAX	((uint64_t)INT64_MAX)
/* The TWHEEL_TIMER_* flags the module knows; a START with another is EINVAL. */
#define KNOWN_TIMER_FLAGS	(TWHEEL_TIMER_ABSTIME | TWHEEL_TIMER_REPLACE)
#define NIDS		256		/* the fuzzed id space: collisions wanted */
#define PAGE		4096

static uint64_t rng;
static unsigned long long seed, step, failures;

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#define FAIL(fmt, ...) do {						\
	failures++;							\
	if (failures <= 20)						\
		printf("# FAIL seed=%llu step=%llu: " fmt "\n", \
		       seed, step, ##__VA_ARGS__);			\
} while (0)

static int dev_open(void)
{
	return tw_open(O_NONBLOCK);
}

/* What the fuzzer knows of its file. */
struct timer_model {
	bool		live;
	bool		periodic;
	uint64_t	due;	/* model only: the (next) due time */
	uint64_t	interval;
};

struct file_model {
	int		fd;
	clockid_t	clock;
	uint64_t	res;
	uint64_t	range;
	bool		started;
	bool		ring;
	unsigned int	live;
	struct timer_model t[NIDS];
};

static void model_reset(struct file_model *m)
{
	if (m->fd > 0)
		close(m->fd);
	memset(m, 0, sizeof(*m));
	m->fd = dev_open();
	m->clock = CLOCK_MONOTONIC;
}

static void model_set(struct file_model *m, unsigned int id, bool live)
{
	if (m->t[id].live != live)
		m->live += live ? 1 : -1;
	m->t[id].live = live;
}

/* GET_INFO into a good buffer: its counters must match the model. */
static void check_info(struct file_model *m)
{
	struct twheel_info i;

	memset(&i, 0xa5, sizeof(i));
	if (tw_ioctl(m->fd, TWHEEL_IOC_GET_INFO, &i)) {
		FAIL("GET_INFO failed");
		return;
	}
	if (i.pending + i.queued != m->live)
		FAIL("pending %llu + queued %llu != %u live", (unsigned long long)i.pending,
		     (unsigned long long)i.queued, m->live);
	if (i.abi_version != TWHEEL_ABI_VERSION || i.__reserved)
		FAIL("GET_INFO reserved output not zeroed");
	if (i.clockid != (uint32_t)m->clock)
		FAIL("clockid %u", i.clockid);
	m->res = i.resolution_ns;
	m->range = i.range_ns;
}

/*
 * The ioctl fuzzer's memory: page 0 read-write, page 1 read-only, page 2
 * inaccessible.  A struct is placed in one of five ways.
 */
enum where { GOOD, RDONLY, STRADDLE, NUL, WILD, NR_WHERE };
static char *arena;

static void *place(enum where w, const void *src, size_t size)
{
	char *p;

	switch (w) {
	case GOOD:
		p = arena + below(PAGE - size + 1) / 8 * 8;
		memcpy(p, src, size);
		return p;
	case RDONLY:
	case STRADDLE:
		mprotect(arena + PAGE, PAGE, PROT_READ | PROT_WRITE);
		p = w == RDONLY ? arena + PAGE : arena + 2 * PAGE - size / 2;
		memcpy(p, src, w == RDONLY ? size : size / 2);
		mprotect(arena + PAGE, PAGE, PROT_READ);
		return p;
	case NUL:
		return NULL;
	default:
		return (void *)(uintptr_t)(below(2) ? 16 : ~0xfffULL);
	}
}

static enum where pick_where(void)
{
	return below(4) ? GOOD : (enum where)below(NR_WHERE);
}

/* A value in ns: mostly near, sometimes at the edges of every range. */
static uint64_t pick_value(void)
{
	switch (below(10)) {
	case 0:
		return rnd();
	case 1:
		return UINT64_MAX - below(4);
	case 2:
		return KTIME_MAX - below(2 * SEC);
	case 3:
		return (1ULL << (40 + below(24))) + below(1000);
	case 4:
		return below(2) ? 0 : 1;
	default:
		return below(3 * SEC);
	}
}

static unsigned int pick_id(void)
{
	return below(NIDS);
}

enum verdict { ANY_STOP = 1000, ANY_RANGE = 1001 };

/*
 * The documented outcome of one start on the model, applied to it.  ERANGE
 * has a boundary that moves with the clock, so near it either is accepted.
 */
static int start_oracle(struct file_model *m, unsigned int id, uint64_t value,
			uint64_t interval, uint32_t flags, uint32_t rsv,
			uint64_t now, bool *fuzzy)
{
	uint64_t due;
	struct timer_model *t = &m->t[id];

	*fuzzy = false;
	/* rsv also carries "slack with a period", which is refused too. */
	if ((flags & ~KNOWN_TIMER_FLAGS) || rsv)
		return -EINVAL;
	/* A period is a whole number of ticks. */
	if (interval % m->res)
		return -EINVAL;
	if (flags & TWHEEL_TIMER_ABSTIME) {
		due = value;
	} else {
		if (value > UINT64_MAX - now - 10 * SEC)
			*fuzzy = value <= UINT64_MAX - now;
		if (value > UINT64_MAX - now)
			return -ERANGE;
		due = now + value;
	}
	if (due > KTIME_MAX)
		return -ERANGE;
	if (due + 10 * SEC > KTIME_MAX)
		*fuzzy = true;
	/* The wheel's reach moves with the clock: near it, either answer. */
	if (due > now && due - now + 10 * SEC >= m->range)
		return ANY_RANGE;
	if (t->live && !(flags & TWHEEL_TIMER_REPLACE))
		return -EEXIST;
	return 0;
}

static void start_apply(struct file_model *m, unsigned int id, uint64_t interval,
			uint64_t due)
{
	model_set(m, id, true);
	m->t[id].periodic = interval != 0;
	m->t[id].interval = interval;
	m->t[id].due = due;
	m->started = true;
}

/* Judge a start's result; apply it to the model if it started. */
static void start_judge(struct file_model *m, const char *what, unsigned int id,
			int want, bool fuzzy, int got, uint64_t interval)
{
	bool ok = got == want || (want == ANY_RANGE && (got == -ERANGE || got == 0)) ||
		  (fuzzy && (got == -ERANGE || got == 0 || got == -EEXIST));

	if (!ok)
		FAIL("%s id %u: got %d, want %d", what, id, got, want);
	if (got == 0)
		start_apply(m, id, interval, 0);
}

static void fuzz_start(struct file_model *m)
{
	struct twheel_timer_spec s = {
		.id = pick_id(), .value = pick_value(),
		.interval = below(3) ? 0 : (below(4) ? below(2 * m->res) : pick_value()),
		.slack = below(4) ? 0 : pick_value(),
		.flags = below(8) ? (uint32_t)below(4) : (uint32_t)rnd(),
		.__reserved = below(16) ? 0 : (uint32_t)rnd() | 1,
	};
	enum where w = pick_where();
	bool fuzzy;
	int want, got;
	void *p;

	want = start_oracle(m, s.id, s.value, s.interval, s.flags,
			    s.__reserved | (s.slack && s.interval),
			    clock_ns(m->clock), &fuzzy);
	p = place(w, &s, sizeof(s));
	got = tw_ioctl(m->fd, TWHEEL_IOC_START, p);
	if (w >= STRADDLE) {
		if (got != -EFAULT)
			FAIL("START from a bad pointer (%d): %d", w, got);
		return;
	}
	start_judge(m, "START", s.id, want, fuzzy, got, s.interval);
}

static void fuzz_stop(struct file_model *m)
{
	struct twheel_stop s = {
		.id = pick_id(),
		.flags = below(16) ? 0 : (uint32_t)rnd() | 1,
		.__reserved = below(16) ? 0 : (uint32_t)rnd() | 1,
	};
	enum where w = pick_where();
	int got = tw_ioctl(m->fd, TWHEEL_IOC_STOP, place(w, &s, sizeof(s)));

	if (w >= STRADDLE) {
		if (got != -EFAULT)
			FAIL("STOP from a bad pointer (%d): %d", w, got);
	} else if (s.flags || s.__reserved) {
		if (got != -EINVAL)
			FAIL("STOP with flags or reserved: %d", got);
	} else if (!m->t[s.id].live) {
		if (got != -ENOENT)
			FAIL("STOP of unknown id %u: %d", (unsigned int)s.id, got);
	} else if (got != TWHEEL_STOPPED_PENDING && got != TWHEEL_STOPPED_EXPIRED) {
		FAIL("STOP of live id %u: %d", (unsigned int)s.id, got);
	} else {
		model_set(m, s.id, false);
	}
}

static void fuzz_query(struct file_model *m)
{
	struct twheel_query q = { .id = pick_id(), .__reserved = below(16) ? 0 : 1 };
	enum where w = pick_where();
	struct twheel_query *p = place(w, &q, sizeof(q));
	int got = tw_ioctl(m->fd, TWHEEL_IOC_QUERY, p);
	int want = q.__reserved ? -EINVAL : m->t[q.id].live ? 0 : -ENOENT;

	if (w == RDONLY && want == 0)
		want = -EFAULT;
	if (w >= STRADDLE)
		want = -EFAULT;
	if (got != want)
		FAIL("QUERY id %u where %d: got %d want %d", (unsigned int)q.id, w, got, want);
	if (!got && ((p->state != TWHEEL_STATE_PENDING && p->state != TWHEEL_STATE_EXPIRED) ||
		     p->__reserved || p->interval != m->t[q.id].interval))
		FAIL("QUERY id %u: state %u interval %llu", (unsigned int)q.id, p->state,
		     (unsigned long long)p->interval);
}

static void fuzz_config(struct file_model *m)
{
	uint32_t clocks[] = { CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, 99 };
	uint64_t res[] = {
		0, TWHEEL_MIN_RESOLUTION_NS, TWHEEL_MIN_RESOLUTION_NS - 1, 1000000,
		TWHEEL_MAX_RESOLUTION_NS, TWHEEL_MAX_RESOLUTION_NS + 1ULL, 100000,
	};
	struct twheel_config c = {
		.clockid = clocks[below(4)], .resolution_ns = res[below(7)],
		.flags = below(16) ? 0 : 1,
	};
	enum where w = pick_where();
	int got, want;

	c.__reserved[1] = below(16) ? 0 : 1;
	want = c.flags || c.__reserved[1] ? -EINVAL :
	       c.clockid != CLOCK_MONOTONIC && c.clockid != CLOCK_BOOTTIME ? -EINVAL :
	       c.resolution_ns && (c.resolution_ns < TWHEEL_MIN_RESOLUTION_NS ||
				   c.resolution_ns > TWHEEL_MAX_RESOLUTION_NS) ? -EINVAL :
	       m->started ? -EBUSY : 0;
	if (w >= STRADDLE)
		want = -EFAULT;
	got = tw_ioctl(m->fd, TWHEEL_IOC_SET_CONFIG, place(w, &c, sizeof(c)));
	if (got != want)
		FAIL("SET_CONFIG clock %u res %llu where %d: got %d want %d", c.clockid,
		     (unsigned long long)c.resolution_ns, w, got, want);
	if (!got) {
		m->clock = c.clockid;
		check_info(m);
	}
}

static void fuzz_info(struct file_model *m)
{
	enum where w = pick_where();
	struct twheel_info i = { 0 };
	int got;

	if (w == GOOD) {
		check_info(m);
		return;
	}
	got = tw_ioctl(m->fd, TWHEEL_IOC_GET_INFO, place(w, &i, sizeof(i)));
	if (got != -EFAULT)
		FAIL("GET_INFO into a bad pointer (%d): %d", w, got);
}

/* After a batch whose results were lost: learn the ids' state again. */
static void resync(struct file_model *m)
{
	unsigned int id;

	for (id = 0; id < NIDS; id++) {
		struct twheel_query q = { .id = id };
		int got = tw_ioctl(m->fd, TWHEEL_IOC_QUERY, &q);

		if (got && got != -ENOENT)
			FAIL("QUERY %u: %d", id, got);
		if (!got)
			start_apply(m, id, q.interval, 0);
		else if (m->t[id].live)
			model_set(m, id, false);
	}
}

static void fill_op(struct file_model *m, struct twheel_op *op)
{
	memset(op, 0, sizeof(*op));
	op->op = below(16) ? 1 + below(2) : (uint32_t)rnd();
	op->id = pick_id();
	if (op->op == TWHEEL_OP_START) {
		op->value = pick_value();
		op->interval = below(3) ? 0 : pick_value() % (2 * SEC);
		op->slack = below(4) ? 0 : pick_value();
		op->flags = below(8) ? (uint32_t)below(4) : (uint32_t)rnd();
	} else if (!below(16)) {
		op->value = 1;
	}
	op->__reserved = below(32) ? 0 : 1;
	op->result = INT32_MIN;
	(void)m;
}

static int op_oracle(struct file_model *m, const struct twheel_op *op, bool *fuzzy)
{
	*fuzzy = false;
	if (op->op == TWHEEL_OP_START)
		return start_oracle(m, op->id, op->value, op->interval, op->flags,
				    op->__reserved | (op->slack && op->interval),
				    clock_ns(m->clock), fuzzy);
	if (op->op != TWHEEL_OP_STOP || op->flags || op->value || op->interval ||
	    op->slack || op->__reserved)
		return -EINVAL;
	return m->t[op->id].live ? ANY_STOP : -ENOENT;
}

static void judge_op(struct file_model *m, const struct twheel_op *op, int want, bool fuzzy)
{
	if (want == ANY_STOP) {
		if (op->result != TWHEEL_STOPPED_PENDING && op->result != TWHEEL_STOPPED_EXPIRED)
			FAIL("batch STOP id %u: %d", (unsigned int)op->id, op->result);
		else
			model_set(m, op->id, false);
	} else if (op->op == TWHEEL_OP_START) {
		start_judge(m, "batch START", op->id, want, fuzzy, op->result, op->interval);
	} else if (op->result != want) {
		FAIL("batch op %u id %u: got %d want %d", op->op, (unsigned int)op->id,
		     op->result, want);
	}
}

static void fuzz_batch(struct file_model *m)
{
	static struct twheel_op ops[100];
	struct twheel_batch b = { .count = below(100), .flags = below(32) ? 0 : 1 };
	enum where wb = pick_where(), wo = below(3) ? GOOD : (enum where)below(NR_WHERE);

	unsigned int i;
	int got;
	void *p;

	if (wo == STRADDLE)
		wo = RDONLY;
	if (!below(32))
		b.count = TWHEEL_BATCH_MAX + 1 + below(4);
	/* Read-only ops must fit page 1; 99 entries of 48 bytes do not. */
	if (wo == RDONLY && b.count * sizeof(ops[0]) > PAGE)
		wo = GOOD;
	for (i = 0; i < b.count && i < 100; i++)
		fill_op(m, &ops[i]);
	b.ops = (uintptr_t)ops;
	if (wo == RDONLY)
		b.ops = (uintptr_t)place(RDONLY, ops, b.count * sizeof(ops[0]));
	if (wo == WILD)
		b.ops = 16;
	if (wo == NUL)
		b.ops = 0;
	p = place(wb, &b, sizeof(b));
	if (wb >= STRADDLE) {
		got = tw_ioctl(m->fd, TWHEEL_IOC_BATCH, p);
		if (got != -EFAULT)
			FAIL("BATCH header at a bad pointer (%d): %d", wb, got);
		return;
	}
	if (b.flags || b.count > TWHEEL_BATCH_MAX) {
		got = tw_ioctl(m->fd, TWHEEL_IOC_BATCH, p);
		if (got != -EINVAL)
			FAIL("BATCH flags %u count %u: %d", b.flags, b.count, got);
		return;
	}
	if (wo != GOOD && wo != RDONLY) {
		got = tw_ioctl(m->fd, TWHEEL_IOC_BATCH, p);
		if (got != (b.count ? -EFAULT : 0))
			FAIL("BATCH of %u ops at a bad pointer: %d", b.count, got);
		return;
	}
	if (wo != GOOD) {
		/* Read-only ops: whatever page 1 holds is applied, no result lands. */
		got = tw_ioctl(m->fd, TWHEEL_IOC_BATCH, p);
		if (got != (b.count ? -EFAULT : 0))
			FAIL("BATCH of %u read-only ops: %d", b.count, got);
		resync(m);
		return;
	}
	got = tw_ioctl(m->fd, TWHEEL_IOC_BATCH, p);
	if (got)
		FAIL("BATCH of %u good ops: %d", b.count, got);
	/* In order: each entry sees the model as the ones before left it. */
	for (i = 0; i < b.count; i++) {
		bool fuzzy;
		int want = op_oracle(m, &ops[i], &fuzzy);

		judge_op(m, &ops[i], want, fuzzy);
	}
}

/* A read with an odd size into one of the arenas; events update the model. */
static void fuzz_read(struct file_model *m)
{
	static struct twheel_event ev[64];
	size_t sizes[] = { 0, 1, sizeof(ev[0]) - 1, sizeof(ev[0]), sizeof(ev[0]) + 7,
			   3 * sizeof(ev[0]) + 1, sizeof(ev) };
	size_t size = sizes[below(7)];
	enum where w = below(4) ? GOOD : (enum where)below(NR_WHERE);
	void *buf = w == GOOD ? (void *)ev : place(w, ev, 0);
	ssize_t got = read(m->fd, buf, size);
	uint64_t now = clock_ns(m->clock);
	size_t i, n;

	/* The VFS refuses a kernel address before the driver sees the size. */
	if (size < sizeof(ev[0])) {
		if (got != -1 || (errno != EINVAL && !(errno == EFAULT && w == WILD)))
			FAIL("read of %zu bytes into %d: %zd errno %d", size, w, got, errno);
		return;
	}
	if (got < 0) {
		if (errno != EAGAIN && !(errno == EFAULT && w != GOOD))
			FAIL("read into %d: errno %d", w, errno);
		return;
	}
	if (w != GOOD || got % sizeof(ev[0]) || (size_t)got > size)
		FAIL("read into %d of %zu bytes returned %zd", w, size, got);
	n = w == GOOD ? got / sizeof(ev[0]) : 0;
	for (i = 0; i < n; i++) {
		unsigned int id = ev[i].id;

		if (id >= NIDS || !m->t[id].live) {
			FAIL("event for id %llu, which is not live", (unsigned long long)ev[i].id);
			continue;
		}
		if (ev[i].fired < ev[i].due || now < ev[i].due || ev[i].__reserved ||
		    !!(ev[i].flags & TWHEEL_EVENT_PERIODIC) != m->t[id].periodic)
			FAIL("event id %u due %llu fired %llu flags %u", id,
			     (unsigned long long)ev[i].due, (unsigned long long)ev[i].fired,
			     ev[i].flags);
		/*
		 * A one-shot timer ends with its event; a periodic one goes on,
		 * unless its next period is out of range (QUERY tells).
		 */
		if (!m->t[id].periodic) {
			model_set(m, id, false);
		} else {
			struct twheel_query q = { .id = id };

			if (tw_ioctl(m->fd, TWHEEL_IOC_QUERY, &q) == -ENOENT)
				model_set(m, id, false);
		}
	}
}

/* Unknown commands, and known numbers with the wrong size or direction. */
static void fuzz_bad_cmd(struct file_model *m)
{
	/* Our magic only: another could name a generic one such as FIONBIO. */
	uint32_t cmds[] = {
		_IO(TWHEEL_IOC_MAGIC, 0x06 + below(250)),
		_IOW(TWHEEL_IOC_MAGIC, 0x02, uint32_t),
		_IOR(TWHEEL_IOC_MAGIC, 0x02, struct twheel_timer_spec),
		_IOWR(TWHEEL_IOC_MAGIC, 0x03, struct twheel_stop),
		_IOC(below(4), TWHEEL_IOC_MAGIC, below(256), below(1 << 14)),
	};
	uint32_t cmd = cmds[below(5)];
	int got;

	if (cmd == TWHEEL_IOC_SET_CONFIG || cmd == TWHEEL_IOC_GET_INFO || cmd == TWHEEL_IOC_START ||
	    cmd == TWHEEL_IOC_STOP || cmd == TWHEEL_IOC_BATCH || cmd == TWHEEL_IOC_QUERY ||
	    cmd == TWHEEL_IOC_RING_SETUP || cmd == TWHEEL_IOC_RING_ENTER)
		return;
	got = tw_ioctl(m->fd, cmd, arena);
	if (got != -ENOTTY)
		FAIL("unknown command %#x: %d", cmd, got);
}

/* The rule of RING_SETUP's arguments (rings.rst): 0 or -EINVAL. */
static int ring_args(const struct twheel_ring_setup *p)
{
	uint64_t want = (uint64_t)p->capacity + (uint64_t)p->nr_sq * p->sq_entries;
	uint64_t cap = TWHEEL_RING_MIN_ENTRIES;

	while (cap < want && cap < TWHEEL_RING_MAX_CQ)
		cap *= 2;
	if (!p->capacity || p->capacity > TWHEEL_RING_MAX_CAPACITY || !p->nr_sq ||
	    p->nr_sq > TWHEEL_RING_MAX_SQ ||
	    (p->flags & ~TWHEEL_RING_SETUP_PERIODIC) || p->__reserved[0] ||
	    p->__reserved[1])
		return -EINVAL;
	if (p->sq_entries & (p->sq_entries - 1) || p->sq_entries < 8 ||
	    p->sq_entries > TWHEEL_RING_MAX_SQ_ENTRIES)
		return -EINVAL;
	if (p->cq_entries & (p->cq_entries - 1) || p->cq_entries < 8 ||
	    p->cq_entries > cap)
		return -EINVAL;
	return 0;
}

/* RING_SETUP and RING_ENTER, with small valid and random bad arguments. */
static void fuzz_ring(struct file_model *m)
{
	uint32_t caps[] = { 0, 1, 100, 4096, TWHEEL_RING_MAX_CAPACITY + 1 };
	uint32_t sqs[] = { 0, 1, 2, TWHEEL_RING_MAX_SQ + 1 };
	uint32_t ents[] = { 0, 4, 8, 48, 64, 1024, 1U << 20 };
	struct twheel_ring_setup p = {
		.capacity = caps[below(5)], .nr_sq = sqs[below(4)],
		.sq_entries = ents[below(5)], .cq_entries = ents[below(7)],
		.flags = below(8) ? 0 : below(2) ? TWHEEL_RING_SETUP_PERIODIC :
			 2U << below(31),
	};
	unsigned long arg = below(4) ? 0 : 1 + below(1000);
	int got, want;

	if (below(2)) {
		got = tw_ioctl(m->fd, TWHEEL_IOC_RING_ENTER, (void *)arg);
		want = arg ? -EINVAL : m->ring ? 0 : -ENODEV;
		if (got != want)
			FAIL("RING_ENTER arg %lu: got %d want %d", arg, got, want);
		return;
	}
	want = ring_args(&p);
	if (!want)
		want = m->ring ? -EEXIST : m->started ? -EBUSY : 0;
	got = tw_ioctl(m->fd, TWHEEL_IOC_RING_SETUP, &p);
	if (got != want)
		FAIL("RING_SETUP %u slots %u x %u cq %u: got %d want %d", p.capacity,
		     p.nr_sq, p.sq_entries, p.cq_entries, got, want);
	if (!got) {
		m->ring = true;
		m->started = true;
		check_info(m);
	}
}

static int fuzz_ioctl(unsigned int seconds)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + seconds * SEC;
	struct file_model *m = calloc(1, sizeof(*m));

	arena = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!m || arena == MAP_FAILED)
		return 2;
	mprotect(arena + 2 * PAGE, PAGE, PROT_NONE);
	model_reset(m);
	check_info(m);
	for (step = 0; clock_ns(CLOCK_MONOTONIC) < end; step++) {
		switch (below(21)) {
		case 0 ... 5:
			fuzz_start(m);
			break;
		case 6 ... 8:
			fuzz_stop(m);
			break;
		case 9 ... 10:
			fuzz_query(m);
			break;
		case 11 ... 12:
			fuzz_batch(m);
			break;
		case 13 ... 15:
			fuzz_read(m);
			break;
		case 16:
			fuzz_info(m);
			break;
		case 17:
			fuzz_config(m);
			break;
		case 18:
			fuzz_bad_cmd(m);
			break;
		case 19:
			fuzz_ring(m);
			break;
		default:
			if (!below(50)) {
				model_reset(m);
				check_info(m);
			}
		}
		if (!(step % 64))
			check_info(m);
	}
	check_info(m);
	printf("TW-FUZZ ioctl seed=%llu ioctls=%llu failures=%llu\n",
	       seed, step, failures);
	close(m->fd);
	return failures ? 1 : 0;
}

/*
 * The model client.  Valid calls only, on ids it tracks exactly: each
 * live timer's due time (the next one, for a periodic timer), and for a
 * one-shot timer whether it may already have fired.  Every event must be
 * for a live timer, due exactly when the model says, fired no earlier,
 * and a one-shot timer's event comes once.  At the end every one-shot
 * timer still live must deliver its event (nothing lost) and the counters
 * must agree.
 */
struct client {
	struct file_model	m;
	uint64_t		events, starts, stops;
};

static uint64_t client_value(void)
{
	return below(4) ? below(50 * MS) : below(600 * MS);
}

static void client_check_event(struct client *c, const struct twheel_event *ev,
			       uint64_t now)
{
	struct timer_model *t;

	if (ev->id >= NIDS || !c->m.t[ev->id].live) {
		FAIL("event for id %llu, not live: lost a stop or duplicated",
		     (unsigned long long)ev->id);
		return;
	}
	t = &c->m.t[ev->id];
	if (ev->due != t->due)
		FAIL("event id %llu due %llu, model %llu", (unsigned long long)ev->id,
		     (unsigned long long)ev->due, (unsigned long long)t->due);
	if (ev->fired < ev->due || now < ev->due)
		FAIL("event id %llu early: due %llu fired %llu read at %llu",
		     (unsigned long long)ev->id, (unsigned long long)ev->due,
		     (unsigned long long)ev->fired, (unsigned long long)now);
	if (!!(ev->flags & TWHEEL_EVENT_PERIODIC) != t->periodic || ev->__reserved)
		FAIL("event id %llu flags %u", (unsigned long long)ev->id, ev->flags);
	c->events++;
	if (t->periodic)
		t->due += (ev->overrun + 1) * t->interval;
	else
		model_set(&c->m, ev->id, false);
}

/* Read what is there, in buffers of odd sizes; return how many events. */
static size_t client_read(struct client *c)
{
	static struct twheel_event ev[97];
	size_t n = 1 + below(97), i;
	ssize_t got = read(c->m.fd, ev, n * sizeof(ev[0]) + below(sizeof(ev[0])));
	uint64_t now = clock_ns(c->m.clock);

	if (got < 0) {
		if (errno != EAGAIN)
			FAIL("read: errno %d", errno);
		return 0;
	}
	if (got % sizeof(ev[0]) || (size_t)got > n * sizeof(ev[0]))
		FAIL("read of %zu records returned %zd bytes", n, got);
	for (i = 0; i < got / sizeof(ev[0]); i++)
		client_check_event(c, &ev[i], now);
	return got / sizeof(ev[0]);
}

static void client_start(struct client *c, unsigned int id, bool replace)
{
	uint64_t now = clock_ns(c->m.clock), value = client_value(), interval = 0;
	struct twheel_timer_spec s = { .id = id, .value = value };
	bool abs = below(2);
	int got;

	if (!below(4))
		interval = c->m.res * (1 + below(100));
	s.interval = interval;
	s.flags = (replace ? TWHEEL_TIMER_REPLACE : 0) | (abs ? TWHEEL_TIMER_ABSTIME : 0);
	if (abs)
		s.value = now + value;
	got = tw_ioctl(c->m.fd, TWHEEL_IOC_START, &s);
	if (got != (c->m.t[id].live && !replace ? -EEXIST : 0)) {
		FAIL("START id %u replace %d: %d", id, replace, got);
		return;
	}
	if (got)
		return;
	c->starts++;
	/* A relative due is the kernel's clock at the call plus value: learn it. */
	start_apply(&c->m, id, interval, tick_up(s.value, c->m.res));
	if (!abs) {
		struct twheel_query q = { .id = id };

		if (tw_ioctl(c->m.fd, TWHEEL_IOC_QUERY, &q))
			FAIL("QUERY after START %u", id);
		c->m.t[id].due = q.due;
		if (q.due < now + value ||
		    q.due >= clock_ns(c->m.clock) + value + c->m.res)
			FAIL("START id %u: due %llu outside the call", id,
			     (unsigned long long)q.due);
	}
}

static void client_stop(struct client *c, unsigned int id)
{
	int got = tw_ioctl(c->m.fd, TWHEEL_IOC_STOP, &(struct twheel_stop){ .id = id });

	if (!c->m.t[id].live) {
		if (got != -ENOENT)
			FAIL("STOP of dead id %u: %d", id, got);
		return;
	}
	if (got != TWHEEL_STOPPED_PENDING && got != TWHEEL_STOPPED_EXPIRED)
		FAIL("STOP of live id %u: %d", id, got);
	/* A timer stopped before its due time cannot have fired. */
	if (got == TWHEEL_STOPPED_EXPIRED && clock_ns(c->m.clock) < c->m.t[id].due)
		FAIL("STOP of id %u before its due time says it expired", id);
	model_set(&c->m, id, false);
	c->stops++;
}

/* A batch of starts and stops on distinct ids, judged entry by entry. */
static void client_batch(struct client *c)
{
	static struct twheel_op ops[64];
	struct twheel_batch b = { .ops = (uintptr_t)ops, .count = 1 + below(64) };
	bool used[NIDS] = { false };
	unsigned int i;
	uint64_t now = clock_ns(c->m.clock);

	for (i = 0; i < b.count; i++) {
		unsigned int id;

		do
			id = pick_id();
		while (used[id]);
		used[id] = true;
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].id = id;
		ops[i].op = c->m.t[id].live && below(2) ? TWHEEL_OP_STOP : TWHEEL_OP_START;
		if (ops[i].op == TWHEEL_OP_START) {
			ops[i].flags = TWHEEL_TIMER_ABSTIME | TWHEEL_TIMER_REPLACE;
			ops[i].value = now + client_value();
		}
	}
	if (tw_ioctl(c->m.fd, TWHEEL_IOC_BATCH, &b))
		FAIL("BATCH");
	for (i = 0; i < b.count; i++) {
		unsigned int id = ops[i].id;

		if (ops[i].op == TWHEEL_OP_START) {
			if (ops[i].result)
				FAIL("batch START %u: %d", id, ops[i].result);
			else
				start_apply(&c->m, id, 0, tick_up(ops[i].value, c->m.res));
			c->starts++;
		} else if (ops[i].result != TWHEEL_STOPPED_PENDING &&
			   ops[i].result != TWHEEL_STOPPED_EXPIRED) {
			FAIL("batch STOP %u: %d", id, ops[i].result);
		} else {
			model_set(&c->m, id, false);
			c->stops++;
		}
	}
}

static void client_info(struct client *c)
{
	check_info(&c->m);
}

/* Stop the periodic timers, then read until every one-shot timer is in. */
static void client_drain(struct client *c)
{
	uint64_t last = 0, deadline;
	unsigned int id;

	for (id = 0; id < NIDS; id++) {
		if (c->m.t[id].live && c->m.t[id].periodic)
			client_stop(c, id);
		if (c->m.t[id].live && c->m.t[id].due > last)
			last = c->m.t[id].due;
	}
	/* Generous: a TCG guest is slow, and only a lost event waits this long. */
	deadline = (last > clock_ns(c->m.clock) ? last : clock_ns(c->m.clock)) + 60 * SEC;
	while (c->m.live && clock_ns(c->m.clock) < deadline) {
		struct pollfd p = { .fd = c->m.fd, .events = POLLIN };

		poll(&p, 1, 100);
		client_read(c);
	}
	for (id = 0; id < NIDS; id++)
		if (c->m.t[id].live)
			FAIL("id %u due %llu: its event never came (lost)", id,
			     (unsigned long long)c->m.t[id].due);
	client_info(c);
}

static int fuzz_model(unsigned int seconds)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + seconds * SEC;
	struct client *c = calloc(1, sizeof(*c));
	uint64_t res[] = { TWHEEL_MIN_RESOLUTION_NS, 100000, 1000000 };
	struct twheel_config cfg = { .clockid = CLOCK_MONOTONIC };

	if (!c)
		return 2;
	model_reset(&c->m);
	cfg.clockid = below(2) ? CLOCK_MONOTONIC : CLOCK_BOOTTIME;
	cfg.resolution_ns = res[below(3)];
	if (tw_ioctl(c->m.fd, TWHEEL_IOC_SET_CONFIG, &cfg))
		FAIL("SET_CONFIG");
	c->m.clock = cfg.clockid;
	check_info(&c->m);
	for (step = 0; clock_ns(CLOCK_MONOTONIC) < end; step++) {
		unsigned int id = pick_id();

		switch (below(12)) {
		case 0 ... 3:
			client_start(c, id, c->m.t[id].live && below(2));
			break;
		case 4 ... 5:
			client_stop(c, id);
			break;
		case 6:
			client_batch(c);
			break;
		case 7 ... 9:
			client_read(c);
			break;
		case 10:
			client_info(c);
			break;
		default:
			usleep(below(3000));
		}
	}
	client_drain(c);
	printf("TW-FUZZ model seed=%llu steps=%llu starts=%llu ", seed, step,
	       (unsigned long long)c->starts);
	printf("stops=%llu events=%llu failures=%llu\n", (unsigned long long)c->stops,
	       (unsigned long long)c->events, failures);
	close(c->m.fd);
	return failures ? 1 : 0;
}

#include "tw_fuzz_ring.h"

/*
 * Stress: many threads on one file, with no model of the whole but the
 * promises every event and every call must keep.  Four workers start,
 * re-arm, stop and batch timers in id ranges of their own; two readers
 * take events in buffers of odd sizes; a storm thread starts STORM timers
 * due at one instant every half second; a forker runs children that fill
 * a file of their own and are killed in the middle of a read, so that the
 * file is closed with timers pending and a read in flight.  Every event
 * must be for a known range and never early; every call must return a
 * documented result.  The kernel's own checks (KASAN, lockdep, the lockup
 * and hung-task detectors, the slab cache at rmmod) judge the rest.
 */
#define WORKERS		4
#define STORM_RANGE	((uint64_t)WORKERS + 1)

static int stress_stop;		/* atomic */
static unsigned int storm_size = 20000;
static unsigned long long stress_events, stress_calls;
static pthread_mutex_t stress_lock = PTHREAD_MUTEX_INITIALIZER;

static void stress_fail(const char *what, long long v)
{
	pthread_mutex_lock(&stress_lock);
	FAIL("stress: %s: %lld", what, v);
	pthread_mutex_unlock(&stress_lock);
}

struct worker {
	int		fd;
	unsigned int	n;
	uint64_t	rng;
	pthread_t	thread;
};

static uint64_t wrnd(struct worker *w, uint64_t n)
{
	uint64_t r = xorshift64s(&w->rng);

	return n ? r % n : 0;
}

/*
 * A start's documented failures here: the id is taken (without REPLACE),
 * or, with REPLACE, a reader is copying that timer's event right now.
 */
static bool stress_start_ok(int err, unsigned int flags)
{
	return flags & TWHEEL_TIMER_REPLACE ? err == -EBUSY : err == -EEXIST;
}

static void *stress_worker(void *arg)
{
	struct worker *w = arg;
	struct twheel_op ops[64];
	struct twheel_batch b = { .ops = (uintptr_t)ops };
	unsigned long long calls = 0;
	unsigned int i;
	int got;

	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		uint64_t id = (uint64_t)w->n << 32 | wrnd(w, 4096);
		struct twheel_timer_spec s = {
			.id = id, .value = wrnd(w, 20 * MS),
			.interval = wrnd(w, 8) ? 0 : MS * (1 + wrnd(w, 10)),
			.flags = wrnd(w, 2) ? TWHEEL_TIMER_REPLACE : 0,
		};

		calls++;
		switch (wrnd(w, 4)) {
		case 0:
		case 1:
			got = tw_ioctl(w->fd, TWHEEL_IOC_START, &s);
			if (got && !stress_start_ok(got, s.flags))
				stress_fail("START", got);
			break;
		case 2:
			got = tw_ioctl(w->fd, TWHEEL_IOC_STOP, &(struct twheel_stop){ .id = id });
			if (got != -ENOENT && got != TWHEEL_STOPPED_PENDING &&
			    got != TWHEEL_STOPPED_EXPIRED)
				stress_fail("STOP", got);
			break;
		default:
			b.count = 1 + wrnd(w, 64);
			memset(ops, 0, sizeof(ops));
			for (i = 0; i < b.count; i++) {
				ops[i].op = wrnd(w, 2) ? TWHEEL_OP_START : TWHEEL_OP_STOP;
				ops[i].id = (uint64_t)w->n << 32 | wrnd(w, 4096);
				if (ops[i].op == TWHEEL_OP_START) {
					ops[i].value = wrnd(w, 20 * MS);
					ops[i].flags = TWHEEL_TIMER_REPLACE;
				}
			}
			got = tw_ioctl(w->fd, TWHEEL_IOC_BATCH, &b);
			if (got)
				stress_fail("BATCH", got);
			for (i = 0; i < b.count; i++)
				if (ops[i].result < 0 && ops[i].result != -ENOENT &&
				    !stress_start_ok(ops[i].result, ops[i].flags))
					stress_fail("batch entry", ops[i].result);
		}
	}
	__atomic_fetch_add(&stress_calls, calls, __ATOMIC_RELAXED);
	return NULL;
}

static void *stress_reader(void *arg)
{
	struct worker *w = arg;
	struct twheel_event *ev = calloc(257, sizeof(*ev));
	unsigned long long events = 0;

	if (!ev)
		return NULL;
	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		ssize_t got, i;
		uint64_t now;

		if (poll(&p, 1, 50) <= 0)
			continue;
		got = read(w->fd, ev, (1 + wrnd(w, 257)) * sizeof(ev[0]));
		now = clock_ns(CLOCK_MONOTONIC);
		if (got < 0) {
			if (errno != EAGAIN)
				stress_fail("read errno", errno);
			continue;
		}
		for (i = 0; i < got / (ssize_t)sizeof(ev[0]); i++) {
			if ((ev[i].id >> 32) > STORM_RANGE || ev[i].fired < ev[i].due ||
			    now < ev[i].due)
				stress_fail("event", (long long)ev[i].id);
			events++;
		}
	}
	__atomic_fetch_add(&stress_events, events, __ATOMIC_RELAXED);
	free(ev);
	return NULL;
}

/* Every half second, storm_size timers due at one instant. */
static void *stress_storm(void *arg)
{
	struct worker *w = arg;
	static struct twheel_op ops[4096];
	struct twheel_batch b = { .ops = (uintptr_t)ops };
	unsigned int i, done, round = 0;

	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		uint64_t due = clock_ns(CLOCK_MONOTONIC) + 100 * MS;

		for (done = 0; done < storm_size; done += b.count) {
			b.count = storm_size - done < 4096 ? storm_size - done : 4096;
			for (i = 0; i < b.count; i++)
				ops[i] = (struct twheel_op){
					.op = TWHEEL_OP_START, .id = STORM_RANGE << 32 |
					(uint64_t)(round % 2) << 31 | (done + i),
					.value = due,
					.flags = TWHEEL_TIMER_ABSTIME | TWHEEL_TIMER_REPLACE,
				};
			if (tw_ioctl(w->fd, TWHEEL_IOC_BATCH, &b))
				stress_fail("storm BATCH", errno);
			for (i = 0; i < b.count; i++)
				if (ops[i].result && !stress_start_ok(ops[i].result, ops[i].flags))
					stress_fail("storm start", ops[i].result);
		}
		round++;
		usleep(500000);
	}
	return NULL;
}

/* A child fills a file of its own and dies in the middle of a read. */
static void stress_child(void)
{
	static struct twheel_op ops[4096];
	struct twheel_batch b = { .ops = (uintptr_t)ops, .count = 4096 };
	static struct twheel_event ev[4096];
	int fd = open(DEV, O_RDWR), i, round;

	if (fd < 0)
		_exit(3);
	for (round = 0; round < 4; round++) {
		for (i = 0; i < 4096; i++)
			ops[i] = (struct twheel_op){ .op = TWHEEL_OP_START, .id = round << 16 | i,
						 .value = (i % 64) * MS / 8,
						 .interval = i % 3 ? 0 : MS };
		if (tw_ioctl(fd, TWHEEL_IOC_BATCH, &b))
			_exit(4);
	}
	for (;;)
		if (read(fd, ev, sizeof(ev)) < 0 && errno != EINTR)
			_exit(5);
}

static void *stress_forker(void *arg)
{
	struct worker *w = arg;
	unsigned int n = 0;

	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		pid_t pid = fork();
		int st;

		if (!pid)
			stress_child();
		/*
		 * A fork the guest cannot afford says nothing of the device;
		 * and kill(-1) would signal every process we may.
		 */
		if (pid < 0) {
			usleep(10000);
			continue;
		}
		usleep(50000 + wrnd(w, 250000));
		kill(pid, SIGKILL);
		if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st))
			stress_fail("child", st);
		n++;
	}
	return NULL;
}

static int fuzz_stress(unsigned int seconds)
{
	struct worker w[WORKERS + 4];
	int fd = dev_open(), i;

	fcntl(fd, F_SETFL, 0);
	for (i = 0; i < WORKERS + 4; i++) {
		w[i] = (struct worker){ .fd = fd, .n = i, .rng = rnd() | 1 };
		pthread_create(&w[i].thread, NULL,
			       i < WORKERS ? stress_worker : i < WORKERS + 2 ? stress_reader :
			       i == WORKERS + 2 ? stress_storm : stress_forker, &w[i]);
	}
	sleep(seconds);
	__atomic_store_n(&stress_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < WORKERS + 4; i++)
		pthread_join(w[i].thread, NULL);
	close(fd);
	printf("TW-FUZZ stress seed=%llu calls=%llu events=%llu storm=%u failures=%llu\n",
	       seed, stress_calls, stress_events, storm_size, failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int seconds;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4 || (strcmp(argv[1], "ioctl") && strcmp(argv[1], "model") &&
			 strcmp(argv[1], "stress") && strcmp(argv[1], "ring"))) {
		fprintf(stderr, "usage: tw_fuzz ioctl|model|stress|ring SEED SECONDS [STORM]\n");
		return 2;
	}
	if (argc > 4)
		storm_size = strtoul(argv[4], NULL, 0);
	seed = strtoull(argv[2], NULL, 0);
	if (!seed)
		seed = clock_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32);
	rng = seed | 1;
	seconds = strtoul(argv[3], NULL, 0);
	printf("# tw_fuzz %s seed=%llu seconds=%u\n", argv[1], seed, seconds);
	if (!strcmp(argv[1], "stress"))
		return fuzz_stress(seconds);
	if (!strcmp(argv[1], "ring"))
		return fuzz_ring_model(seconds);
	return strcmp(argv[1], "ioctl") ? fuzz_model(seconds) : fuzz_ioctl(seconds);
}
