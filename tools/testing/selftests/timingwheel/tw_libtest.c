// SPDX-License-Identifier: GPL-2.0
/*
 * tw_libtest: every function of libtimingwheel against the real module, run
 * as root inside a test guest.  It uses <libtimingwheel.h> and libc only.
 * Each case prints "ok N name" or "not ok N name"; the last line is
 * "TW-LIBTEST-SUMMARY passed=P failed=F", and the exit status is 0 only if
 * every case passed.  The marker is listed in scripts/guest/markers.txt.
 *
 *   tw_libtest [CASE...]   only the cases named (a planted bug's, see
 *                          scripts/mutations/mutate.sh); a name that is no
 *                          case's is an error, exit status 2
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tw_selftest.h"

/* How late a TCG guest may fire a timer, beyond its slack and tick. */
#define LATE_NS		(1000 * MS)
/* More entries than one TWHEEL_IOC_BATCH call takes: two calls. */
#define BIG_BATCH	(TWHEEL_BATCH_MAX + 100)

static int failing;

#define CHECK(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		printf("# %s:%d: %s: " fmt "\n", __FILE__, __LINE__,	\
		       #cond, ##__VA_ARGS__);				\
		failing = 1;					\
	}								\
} while (0)

/* CHECK_RET: @call returns @want; else print what it returned and means. */
#define CHECK_RET(call, want) do {					\
	long long __r = (call), __w = (want);				\
	CHECK(__r == __w, "got %lld (%s), want %lld", __r,		\
	      __r < 0 ? timingwheel_strerror(__r) : "", __w);		\
} while (0)

static struct twheel_op big_ops[BIG_BATCH];

static int open_nb(void)
{
	int fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_NONBLOCK | O_CLOEXEC);

	CHECK(fd >= 0, "open: %s", timingwheel_strerror(fd));
	return fd;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * MS };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Wait up to 3 s until @n events are queued on @fd; how many are.  A test
 * that needs its timers fired waits for them, not for a fixed time.
 */
static uint64_t wait_queued(int fd, uint64_t n)
{
	uint64_t end = timingwheel_now(CLOCK_MONOTONIC) + 3000 * MS;
	struct twheel_info info = { 0 };

	while (!timingwheel_info(fd, &info) && info.queued < n &&
	       timingwheel_now(CLOCK_MONOTONIC) < end)
		sleep_ms(5);
	return info.queued;
}

static void test_open(void)
{
	struct twheel_info info;
	int fd;

	CHECK_RET(timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_APPEND), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_TAI, 0, 0), -EINVAL);
	CHECK_RET(timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 5, 0), -EINVAL);
	fd = timingwheel_open(CLOCK_BOOTTIME, 100000, O_CLOEXEC);
	CHECK(fd >= 0, "%s", timingwheel_strerror(fd));
	if (fd < 0)
		return;
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.clockid == CLOCK_BOOTTIME, "clockid %u", info.clockid);
	CHECK(info.resolution_ns == 100000, "resolution %llu", info.resolution_ns);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC, "no FD_CLOEXEC");
	CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK), "O_NONBLOCK set");
	close(fd);
	fd = open_nb();
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK, "no O_NONBLOCK");
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.clockid == CLOCK_MONOTONIC, "clockid %u", info.clockid);
	close(fd);
}

static void test_config(void)
{
	struct twheel_info info;
	int fd = open_nb();

	CHECK_RET(timingwheel_config(fd, CLOCK_BOOTTIME, 0), 0);
	CHECK_RET(timingwheel_config(fd, TIMINGWHEEL_CLOCK_DEFAULT, 250000), 0);
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.clockid == CLOCK_MONOTONIC && info.resolution_ns == 250000,
	      "clockid %u resolution %llu", info.clockid, info.resolution_ns);
	CHECK_RET(timingwheel_config(fd, CLOCK_REALTIME + 100, 0), -EINVAL);
	CHECK_RET(timingwheel_start_after(fd, 1, 1000 * MS), 0);
	CHECK_RET(timingwheel_config(fd, CLOCK_BOOTTIME, 0), -EBUSY);
	CHECK(strstr(timingwheel_strerror(-EBUSY), "first timer"), "EBUSY text");
	close(fd);
}

/* CLOCK_REALTIME is 0, and is refused: it is not the default clock. */
static void test_clock_realtime(void)
{
	struct twheel_info info;
	int fd;

	CHECK_RET(timingwheel_open(CLOCK_REALTIME, 0, 0), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_REALTIME, 0, O_NONBLOCK | O_CLOEXEC), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_REALTIME, 250000, 0), -EINVAL);
	fd = open_nb();
	CHECK_RET(timingwheel_config(fd, CLOCK_BOOTTIME, 500000), 0);
	CHECK_RET(timingwheel_config(fd, CLOCK_REALTIME, 0), -EINVAL);
	CHECK_RET(timingwheel_config(fd, CLOCK_REALTIME, 250000), -EINVAL);
	/* Nothing of a refused config was applied. */
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.clockid == CLOCK_BOOTTIME && info.resolution_ns == 500000,
	      "clockid %u resolution %llu", info.clockid, info.resolution_ns);
	close(fd);
}

/* TIMINGWHEEL_CLOCK_DEFAULT: CLOCK_MONOTONIC, with or without a resolution. */
static void test_clock_default(void)
{
	struct twheel_info info;
	int fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_CLOEXEC);

	CHECK(fd >= 0, "%s", timingwheel_strerror(fd));
	if (fd < 0)
		return;
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.clockid == CLOCK_MONOTONIC, "clockid %u", info.clockid);
	close(fd);
	fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 250000, O_CLOEXEC);
	CHECK(fd >= 0, "%s", timingwheel_strerror(fd));
	if (fd < 0)
		return;
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.clockid == CLOCK_MONOTONIC && info.resolution_ns == 250000,
	      "clockid %u resolution %llu", info.clockid, info.resolution_ns);
	close(fd);
	CHECK(timingwheel_now(TIMINGWHEEL_CLOCK_DEFAULT) >= info.now, "now");
}

/*
 * A refused argument is refused before the device is touched: a config on
 * no file fails with EINVAL, not EBADF; and with /dev hidden by a tmpfs in
 * a mount namespace of its own, a child sees EINVAL for a bad open and
 * ENOENT, "module not loaded", for a good one.
 */
static void test_args_before_open(void)
{
	const clockid_t def = TIMINGWHEEL_CLOCK_DEFAULT;
	int status, bad = 0;
	pid_t pid;

	CHECK_RET(timingwheel_open(def, TWHEEL_MIN_RESOLUTION_NS - 1, 0), -EINVAL);
	CHECK_RET(timingwheel_open(def, TWHEEL_MAX_RESOLUTION_NS + 1, 0), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_BOOTTIME, TWHEEL_MAX_RESOLUTION_NS + 1, 0),
		  -EINVAL);
	CHECK_RET(timingwheel_config(-1, def, TWHEEL_MAX_RESOLUTION_NS + 1), -EINVAL);
	CHECK_RET(timingwheel_config(-1, CLOCK_REALTIME, 0), -EINVAL);
	CHECK_RET(timingwheel_config(-1, def, TWHEEL_MAX_RESOLUTION_NS), -EBADF);

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid < 0)
		return;
	if (!pid) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tw_libtest", "/dev", "tmpfs", 0, NULL)) {
			printf("# no mount namespace to hide /dev in (%s): skipped\n",
			       strerror(errno));
			_exit(0);
		}
		bad += timingwheel_open(CLOCK_REALTIME, 0, 0) != -EINVAL;
		bad += timingwheel_open(def, TWHEEL_MAX_RESOLUTION_NS + 1, 0) != -EINVAL;
		bad += timingwheel_open(def, 0, O_CLOEXEC) != -ENOENT;
		bad += timingwheel_open(CLOCK_BOOTTIME, TWHEEL_MIN_RESOLUTION_NS, 0) != -ENOENT;
		if (bad)
			printf("# without the device: %d opens failed otherwise\n", bad);
		fflush(stdout);
		_exit(bad ? 1 : 0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "child status %#x", status);
}

/* What an open's errors mean, and ENOENT's meaning for a timer kept. */
static void test_strerror_open(void)
{
	const char *enoent = timingwheel_strerror(-ENOENT);

	CHECK(strstr(enoent, "no such timer"), "ENOENT: %s", enoent);
	CHECK(strstr(enoent, "module not loaded (modprobe timingwheel)"), "ENOENT: %s",
	      enoent);
	CHECK(strstr(timingwheel_strerror(-ENODEV), "modprobe timingwheel"), "ENODEV");
	CHECK(strstr(timingwheel_strerror(-EACCES), "udev rule and group in packaging.rst"),
	      "EACCES: %s", timingwheel_strerror(-EACCES));
	CHECK(!strstr(timingwheel_strerror(-EINTR), "batch"), "EINTR: %s",
	      timingwheel_strerror(-EINTR));
}

static void test_info(void)
{
	struct twheel_info info;
	int fd = open_nb();

	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.abi_version == TWHEEL_ABI_VERSION, "abi %u", info.abi_version);
	CHECK(info.now && info.now <= timingwheel_now(CLOCK_MONOTONIC), "now");
	CHECK_RET(timingwheel_has_feature(fd, TWHEEL_FEATURE_SLACK), 1);
	CHECK_RET(timingwheel_has_feature(fd, TWHEEL_FEATURE_SLACK |
					  TWHEEL_FEATURE_BOOTTIME), 1);
	CHECK_RET(timingwheel_has_feature(fd, 1ULL << 63), 0);
	CHECK_RET(timingwheel_has_feature(fd, TWHEEL_FEATURE_SLACK | 1ULL << 63), 0);
	CHECK_RET(timingwheel_has_feature(fd, 0), -EINVAL);
	close(fd);
	CHECK_RET(timingwheel_info(fd, &info), -EBADF);
	CHECK_RET(timingwheel_has_feature(fd, TWHEEL_FEATURE_SLACK), -EBADF);
	CHECK_RET(timingwheel_info(STDIN_FILENO, &info), -ENOTTY);
}

static void test_start_stop_query(void)
{
	struct twheel_query q;
	int fd = open_nb();

	CHECK_RET(timingwheel_start(fd, 1, 10000 * MS, 0, 0, 0), 0);
	CHECK_RET(timingwheel_start(fd, 1, 10000 * MS, 0, 0, 0), -EEXIST);
	CHECK(strstr(timingwheel_strerror(-EEXIST), "REPLACE"), "EEXIST text");
	CHECK_RET(timingwheel_start(fd, 1, 20000 * MS, 0, 0, TWHEEL_TIMER_REPLACE), 0);
	CHECK_RET(timingwheel_query(fd, 1, &q), 0);
	CHECK(q.id == 1 && q.state == TWHEEL_STATE_PENDING, "state %u", q.state);
	CHECK(q.remaining > 10000 * MS && q.remaining <= 20001 * MS, "remaining %llu",
	      q.remaining);
	CHECK(q.interval == 0, "interval %llu", q.interval);
	CHECK_RET(timingwheel_start(fd, 2, 1000 * MS, 1000 * MS, 0, 0), 0);
	CHECK_RET(timingwheel_query(fd, 2, &q), 0);
	CHECK(q.interval == 1000 * MS, "interval %llu", q.interval);
	CHECK_RET(timingwheel_stop(fd, 1), TWHEEL_STOPPED_PENDING);
	CHECK_RET(timingwheel_stop(fd, 1), -ENOENT);
	CHECK_RET(timingwheel_query(fd, 1, &q), -ENOENT);
	CHECK_RET(timingwheel_stop(fd, 2), TWHEEL_STOPPED_PENDING);
	/* Periodic timers take no slack; periods are whole ticks. */
	CHECK_RET(timingwheel_start(fd, 3, MS, MS, MS, 0), -EINVAL);
	CHECK_RET(timingwheel_start(fd, 3, MS, 1, 0, 0), -EINVAL);
	CHECK_RET(timingwheel_start(fd, 3, MS, 0, 0, 1U << 31), -EINVAL);
	close(fd);
}

static void test_errors(void)
{
	struct twheel_info info;
	int fd = open_nb();

	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK_RET(timingwheel_start(fd, 1, info.range_ns + 1000 * MS, 0, 0, 0),
		  -ERANGE);
	CHECK(strstr(timingwheel_strerror(ERANGE), "range"), "ERANGE text");
	CHECK(strstr(timingwheel_strerror(-ENOSPC), "limit"), "ENOSPC text");
	CHECK(strstr(timingwheel_strerror(-EBUSY), "being read"), "EBUSY text");
	CHECK(!strcmp(timingwheel_strerror(ENOENT), timingwheel_strerror(-ENOENT)),
	      "sign");
	CHECK(!strcmp(timingwheel_strerror(0), "success"), "0");
	CHECK(!strcmp(timingwheel_strerror(100000), "unknown error"), "unknown");
	CHECK(!strcmp(timingwheel_strerror(TIMINGWHEEL_RESULT_NONE), "unknown error"),
	      "INT32_MIN");
	close(fd);
}

static void test_read(void)
{
	struct twheel_event ev[8];
	int fd = open_nb(), i;
	uint64_t t0 = timingwheel_now(CLOCK_MONOTONIC);

	CHECK_RET(timingwheel_read(fd, ev, 8), -EAGAIN);
	CHECK(strstr(timingwheel_strerror(-EAGAIN), "no event"), "EAGAIN text");
	CHECK_RET(timingwheel_read(fd, ev, 0), -EINVAL);
	for (i = 0; i < 10; i++)
		CHECK_RET(timingwheel_start_after(fd, 100 + i, 5 * MS), 0);
	CHECK(wait_queued(fd, 10) == 10, "ten events");
	/* Ten events through a buffer of four: 4, 4, 2. */
	CHECK_RET(timingwheel_read(fd, ev, 4), 4);
	CHECK_RET(timingwheel_read(fd, ev, 4), 4);
	CHECK_RET(timingwheel_read(fd, ev, 4), 2);
	CHECK(ev[0].id >= 100 && ev[0].id < 110, "id %llu", ev[0].id);
	CHECK(ev[0].due >= t0 + 5 * MS && ev[0].fired >= ev[0].due, "times");
	CHECK_RET(timingwheel_read(fd, ev, 4), -EAGAIN);
	/* An expired timer stopped: its event is withdrawn. */
	CHECK_RET(timingwheel_start_after(fd, 7, MS), 0);
	CHECK(wait_queued(fd, 1) == 1, "its event");
	CHECK_RET(timingwheel_stop(fd, 7), TWHEEL_STOPPED_EXPIRED);
	CHECK_RET(timingwheel_read(fd, ev, 8), -EAGAIN);
	close(fd);
}

/* A blocking read waits for the event, and not past it by much. */
static void test_read_blocking(void)
{
	struct twheel_event ev;
	int fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, 0);
	uint64_t t0;

	CHECK(fd >= 0, "%s", timingwheel_strerror(fd));
	t0 = timingwheel_now(CLOCK_MONOTONIC);
	CHECK_RET(timingwheel_start(fd, 9, t0 + 30 * MS, 0, 0, TWHEEL_TIMER_ABSTIME), 0);
	CHECK_RET(timingwheel_read(fd, &ev, 1), 1);
	CHECK(ev.id == 9 && ev.due >= t0 + 30 * MS, "id %llu", ev.id);
	CHECK(timingwheel_now(CLOCK_MONOTONIC) >= t0 + 30 * MS, "woke early");
	close(fd);
}

/* With slack, the timer fires in [asked, asked + slack + tick], never before. */
static void test_slack(void)
{
	const uint64_t slack = 20 * MS;
	struct twheel_info info;
	struct twheel_event ev;
	int fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, 0), i;
	uint64_t asked;

	CHECK_RET(timingwheel_info(fd, &info), 0);
	for (i = 0; i < 5; i++) {
		asked = timingwheel_now(CLOCK_MONOTONIC) + (10 + 7 * i) * MS;
		CHECK_RET(timingwheel_start(fd, i, asked, 0, slack,
					    TWHEEL_TIMER_ABSTIME), 0);
		CHECK_RET(timingwheel_read(fd, &ev, 1), 1);
		CHECK(ev.due >= asked, "due %llu before %llu", ev.due,
		      (unsigned long long)asked);
		CHECK(ev.due <= asked + slack + info.resolution_ns, "due %llu ns late",
		      ev.due - asked);
		CHECK(ev.fired >= ev.due, "fired before due");
		CHECK(ev.fired <= asked + slack + info.resolution_ns + LATE_NS,
		      "fired %llu ns late", ev.fired - asked);
	}
	close(fd);
}

static void test_batch_small(void)
{
	struct timingwheel_batch b;
	struct twheel_op ops[6];
	int fd = open_nb();

	timingwheel_batch_init(&b, fd, ops, 6);
	CHECK_RET(timingwheel_batch_submit(&b), 0);
	CHECK_RET(timingwheel_batch_start(&b, 5, 1000 * MS, 0, 0, 0), 0);
	CHECK_RET(timingwheel_batch_start(&b, 5, 1000 * MS, 0, 0, 0), 0);
	CHECK_RET(timingwheel_batch_stop(&b, 6), 0);
	CHECK_RET(timingwheel_batch_stop(&b, 5), 0);
	CHECK_RET(timingwheel_batch_start(&b, 8, MS, 0, 0, 1U << 30), 0);
	CHECK_RET(timingwheel_batch_start(&b, 9, 1000 * MS, 0, MS, 0), 0);
	CHECK_RET(timingwheel_batch_stop(&b, 10), -ENOSPC);
	CHECK(b.count == 6, "count %u", b.count);
	CHECK_RET(ops[5].result, TIMINGWHEEL_RESULT_NONE);
	CHECK_RET(timingwheel_batch_submit(&b), 6);
	CHECK_RET(ops[0].result, 0);
	CHECK_RET(ops[1].result, -EEXIST);
	CHECK_RET(ops[2].result, -ENOENT);
	CHECK_RET(ops[3].result, TWHEEL_STOPPED_PENDING);
	CHECK_RET(ops[4].result, -EINVAL);
	CHECK_RET(ops[5].result, 0);
	timingwheel_batch_reset(&b);
	CHECK(b.count == 0 && b.cap == 6 && b.ops == ops, "reset");
	CHECK_RET(timingwheel_batch_stop(&b, 9), 0);
	CHECK_RET(timingwheel_batch_submit(&b), 1);
	CHECK_RET(ops[0].result, TWHEEL_STOPPED_PENDING);
	close(fd);
	CHECK_RET(timingwheel_batch_submit(&b), -EBADF);
}

/* More entries than one call takes: submitted in two, all applied, in order. */
static void test_batch_chunks(void)
{
	struct timingwheel_batch b;
	struct twheel_info info;
	unsigned int i, bad = 0;
	int fd = open_nb();

	timingwheel_batch_init(&b, fd, big_ops, BIG_BATCH);
	for (i = 0; i < BIG_BATCH - 1; i++)
		CHECK_RET(timingwheel_batch_start(&b, i, 5000 * MS + i * 1000, 0, 0, 0), 0);
	/* The last entry, in the second call, finds the first's timer. */
	CHECK_RET(timingwheel_batch_start(&b, 0, MS, 0, 0, 0), 0);
	CHECK_RET(timingwheel_batch_submit(&b), BIG_BATCH);
	for (i = 0; i < BIG_BATCH - 1; i++)
		bad += big_ops[i].result != 0;
	CHECK(!bad, "%u starts failed, first result %d", bad, big_ops[0].result);
	CHECK_RET(big_ops[BIG_BATCH - 1].result, -EEXIST);
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.pending == BIG_BATCH - 1, "pending %llu", info.pending);
	timingwheel_batch_reset(&b);
	for (i = 0; i < BIG_BATCH; i++)
		CHECK_RET(timingwheel_batch_stop(&b, i), 0);
	CHECK_RET(timingwheel_batch_submit(&b), BIG_BATCH);
	for (i = 0, bad = 0; i < BIG_BATCH - 1; i++)
		bad += big_ops[i].result != TWHEEL_STOPPED_PENDING;
	CHECK(!bad, "%u stops failed", bad);
	CHECK_RET(big_ops[BIG_BATCH - 1].result, -ENOENT);
	CHECK_RET(timingwheel_info(fd, &info), 0);
	CHECK(info.pending == 0, "pending %llu", info.pending);
	close(fd);
}

static void test_now(void)
{
	uint64_t a = timingwheel_now(CLOCK_MONOTONIC), b;

	sleep_ms(10);
	b = timingwheel_now(CLOCK_MONOTONIC);
	CHECK(a && b >= a + 10 * MS, "%llu then %llu", (unsigned long long)a,
	      (unsigned long long)b);
	CHECK(timingwheel_now(CLOCK_BOOTTIME) >= b, "boottime behind");
	CHECK(timingwheel_now((clockid_t)-100) == 0, "not a clock");
	CHECK(!strcmp(TIMINGWHEEL_DEVICE, "/dev/timingwheel"), "device");
}

/* A ring file of @nr_sq SQs; 0, or what timingwheel_ring_init() returned. */
static int ring_open_flags(struct timingwheel_ring *ring, uint32_t capacity,
			   uint32_t nr_sq, uint32_t sq_entries,
			   uint32_t cq_entries, uint32_t flags)
{
	struct twheel_ring_setup p = {
		.capacity = capacity, .nr_sq = nr_sq, .flags = flags,
		.sq_entries = sq_entries, .cq_entries = cq_entries,
	};
	int fd = open_nb(), ret;

	ret = timingwheel_ring_init(fd, &p, ring);
	CHECK(ret == 0, "ring_init: %s", timingwheel_strerror(ret));
	if (ret)
		close(fd);
	return ret;
}

static int ring_open(struct timingwheel_ring *ring, uint32_t capacity,
		     uint32_t nr_sq, uint32_t sq_entries, uint32_t cq_entries)
{
	return ring_open_flags(ring, capacity, nr_sq, sq_entries, cq_entries, 0);
}

static void ring_close(struct timingwheel_ring *ring)
{
	int fd = ring->fd;

	timingwheel_ring_exit(ring);
	close(fd);
}

/*
 * Copy up to @n events out, consuming them with timingwheel_cq_advance(),
 * for up to @timeout_ms.  It sleeps rather than poll()s: poll() posts
 * waiting events itself and would hide an ENTER that cq_advance() missed.
 */
static unsigned int ring_reap(struct timingwheel_ring *ring,
			      struct twheel_cqe *out, unsigned int n,
			      unsigned int timeout_ms)
{
	uint64_t end = timingwheel_now(CLOCK_MONOTONIC) + timeout_ms * MS;
	struct twheel_cqe *c[16];
	unsigned int got = 0, k, i;

	while (got < n) {
		k = timingwheel_peek_batch_cqe(ring, c, n - got < 16 ? n - got : 16);
		for (i = 0; i < k; i++)
			out[got++] = *c[i];
		CHECK_RET(timingwheel_cq_advance(ring, k), 0);
		if (!k) {
			if (timingwheel_now(CLOCK_MONOTONIC) >= end)
				break;
			sleep_ms(5);
		}
	}
	return got;
}

/* Copy out and consume what the CQ holds now, up to @n; one cq_advance(). */
static unsigned int cq_take(struct timingwheel_ring *ring,
			    struct twheel_cqe *out, unsigned int n)
{
	struct twheel_cqe *c[8];
	unsigned int k, i;

	k = timingwheel_peek_batch_cqe(ring, c, n < 8 ? n : 8);
	for (i = 0; i < k; i++)
		out[i] = *c[i];
	CHECK_RET(timingwheel_cq_advance(ring, k), 0);
	return k;
}

static void test_ring_init_exit(void)
{
	struct twheel_ring_setup p = {
		.capacity = 5, .nr_sq = 2, .sq_entries = 8, .cq_entries = 16,
	};
	struct timingwheel_ring ring, again;
	void *hdr, *cq, *sq1;
	int fd = open_nb();

	CHECK_RET(timingwheel_ring_init(fd, &p, NULL), -EINVAL);
	p.capacity = 0;
	CHECK_RET(timingwheel_ring_init(fd, &p, &ring), -EINVAL);
	p.capacity = 5;
	CHECK_RET(timingwheel_ring_init(fd, &p, &ring), 0);
	CHECK(ring.hdr->capacity == 5 && ring.hdr->nr_sq == 2, "header");
	CHECK(ring.params.hdr_bytes && ring.params.memory, "setup's out fields");
	CHECK_RET(timingwheel_ring_init(fd, &p, &again), -EEXIST);
	CHECK(!again.hdr && !again.sqs && !again.slots, "a failed init maps nothing");
	CHECK(timingwheel_ring_sq(&ring, 1) && !timingwheel_ring_sq(&ring, 2), "ring_sq");
	hdr = (void *)ring.hdr;
	cq = ring.cq;
	sq1 = timingwheel_ring_sq(&ring, 1)->ctl;
	timingwheel_ring_exit(&ring);
	CHECK(msync(hdr, 4096, MS_ASYNC) == -1 && errno == ENOMEM, "header mapped");
	CHECK(msync(cq, 4096, MS_ASYNC) == -1 && errno == ENOMEM, "CQ mapped");
	CHECK(msync(sq1, 4096, MS_ASYNC) == -1 && errno == ENOMEM, "SQ 1 mapped");
	CHECK(!ring.hdr && !ring.sqs && !ring.slots, "exit");
	/* The fd is still the caller's, and still has its rings. */
	CHECK(fcntl(fd, F_GETFD) >= 0, "fd closed");
	CHECK_RET(timingwheel_ring_init(fd, &p, &again), -EEXIST);
	close(fd);
}

/* Each SQ's share of the slots, first in, first out, a new gen each get. */
static void test_ring_slots(void)
{
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq0, *sq1;
	uint32_t slot, slots[5];
	uint16_t gen;
	int i;

	if (ring_open(&ring, 5, 2, 8, 16))
		return;
	sq0 = timingwheel_ring_sq(&ring, 0);
	sq1 = timingwheel_ring_sq(&ring, 1);
	/* Slots 0-1 are SQ 0's, 2-4 SQ 1's, handed out in order. */
	for (i = 0; i < 2; i++) {
		CHECK_RET(timingwheel_slot_get(sq0, &slots[i], &gen), 0);
		CHECK(slots[i] == (uint32_t)i && gen == 1, "slot %u gen %u", slots[i], gen);
	}
	CHECK_RET(timingwheel_slot_get(sq0, &slot, &gen), -ENOSPC);
	for (i = 2; i < 5; i++)
		CHECK_RET(timingwheel_slot_get(sq1, &slots[i], &gen), 0);
	CHECK(slots[2] == 2 && slots[4] == 4, "SQ 1's share");
	CHECK_RET(timingwheel_slot_put(&ring, 5), -EINVAL);
	CHECK_RET(timingwheel_slot_put(&ring, 1), 0);
	CHECK_RET(timingwheel_slot_put(&ring, 1), -EINVAL);
	CHECK_RET(timingwheel_slot_put(&ring, 0), 0);
	CHECK_RET(timingwheel_slot_put(&ring, 4), 0);
	CHECK_RET(timingwheel_slot_get(sq0, &slot, &gen), 0);
	CHECK(slot == 1 && gen == 2, "slot %u gen %u", slot, gen);
	CHECK_RET(timingwheel_slot_get(sq0, &slot, &gen), 0);
	CHECK(slot == 0 && gen == 2, "slot %u gen %u", slot, gen);
	CHECK_RET(timingwheel_slot_get(sq1, &slot, &gen), 0);
	CHECK(slot == 4 && gen == 2, "put back to its own SQ: slot %u", slot);
	/* The owner's own put: its share only, onto its free list in order. */
	CHECK_RET(timingwheel_sq_slot_put(sq0, 2), -EINVAL);
	CHECK_RET(timingwheel_sq_slot_put(sq0, 5), -EINVAL);
	CHECK_RET(timingwheel_sq_slot_put(sq1, 3), 0);
	CHECK_RET(timingwheel_sq_slot_put(sq1, 3), -EINVAL);
	CHECK_RET(timingwheel_sq_slot_put(sq1, 2), 0);
	CHECK_RET(timingwheel_slot_get(sq1, &slot, &gen), 0);
	CHECK(slot == 3 && gen == 2, "own put: slot %u gen %u", slot, gen);
	CHECK_RET(timingwheel_slot_get(sq1, &slot, &gen), 0);
	CHECK(slot == 2 && gen == 2, "own put: slot %u gen %u", slot, gen);
	CHECK_RET(timingwheel_slot_get(sq1, &slot, &gen), -ENOSPC);
	ring_close(&ring);
}

/*
 * A full SQ: get_sqe() gives NULL, and submit() enters though no start is
 * due before armed_for, so the kernel frees the entries.
 */
static void test_ring_sq_full(void)
{
	uint64_t far = timingwheel_now(CLOCK_MONOTONIC) + 60000 * MS;
	struct timingwheel_ring ring;
	struct twheel_info info;
	struct timingwheel_sq *sq;
	unsigned int i, flags;
	uint64_t armed;

	if (ring_open(&ring, 16, 1, 8, 32))
		return;
	/*
	 * On a tick: the hrtimer is armed for the start of the slot the timer
	 * waits in, at most its tick.  Off one, when the tick is the slot's
	 * first (one run in 4096), the hrtimer would be armed for the tick
	 * itself, after far + i: the submit below then takes the library's
	 * rounding to ticks (ring_enter_in_tick tests that), not this test's
	 * path.
	 */
	far -= far % ring.hdr->resolution_ns;
	sq = timingwheel_ring_sq(&ring, 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), 0, 1, 0, far, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	for (i = 1; i < 8; i++)
		timingwheel_prep_start(timingwheel_get_sqe(sq), i, 1, i, far + i, 0, 0);
	/* What the submit below decides on, for a failure to show. */
	flags = __atomic_load_n(&ring.hdr->flags, __ATOMIC_ACQUIRE);
	armed = __atomic_load_n(&ring.hdr->armed_for, __ATOMIC_RELAXED);
	CHECK_RET(timingwheel_submit(sq), 7);
	CHECK(ring.enters == 1, "enters %llu flags %#x armed_for %llu far %llu",
	      (unsigned long long)ring.enters, flags, (unsigned long long)armed,
	      (unsigned long long)far);
	timingwheel_prep_start(timingwheel_get_sqe(sq), 8, 1, 8, far + 8, 0, 0);
	CHECK(!timingwheel_get_sqe(sq), "an entry of a full SQ");
	CHECK_RET(timingwheel_submit(sq), 1);
	CHECK(ring.enters == 2, "enters %llu", (unsigned long long)ring.enters);
	CHECK(timingwheel_get_sqe(sq), "the SQ stays full");
	CHECK_RET(timingwheel_info(ring.fd, &info), 0);
	CHECK(info.pending == 9, "pending %llu", info.pending);
	ring_close(&ring);
}

/*
 * Copy the expiries of @ev to @x, up to @max, and check that each result
 * is a success of the entry @cookie; how many expiries there were.
 */
static unsigned int split_expiries(const struct twheel_cqe *ev, unsigned int n,
				   struct twheel_cqe *x, unsigned int max,
				   uint64_t cookie)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (ev[i].flags == TWHEEL_CQE_RESULT)
			CHECK(ev[i].res == 0 && ev[i].cookie == cookie, "result %d",
			      ev[i].res);
		else if (k < max)
			x[k++] = ev[i];
		else
			k++;
	}
	return k;
}

/* Put the events of @x in the order of @cookies, as far as they are found. */
static void order_by_cookie(struct twheel_cqe *x, unsigned int n,
			    const uint64_t *cookies)
{
	struct twheel_cqe t;
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			if (x[j].cookie == cookies[i]) {
				t = x[i];
				x[i] = x[j];
				x[j] = t;
				break;
			}
}

/*
 * Starts and expiries: an ENTER for the first start (the hrtimer is idle)
 * and for one due before armed_for; none for one due after it.
 */
static void test_ring_start_expiry(void)
{
	uint64_t when = timingwheel_now(CLOCK_MONOTONIC) + 300 * MS, early;
	struct twheel_cqe ev[4], x[3], *cqe;
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq;
	uint64_t armed_for, enters;
	uint32_t a, b, c;
	uint16_t ga, gb, gc;
	int want, judged;

	if (ring_open(&ring, 16, 1, 8, 32))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
	CHECK_RET(timingwheel_slot_get(sq, &b, &gb), 0);
	CHECK_RET(timingwheel_slot_get(sq, &c, &gc), 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), a, ga, 0xc00c1e, when, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	CHECK(ring.enters == 1, "enters %llu", (unsigned long long)ring.enters);
	armed_for = ring.hdr->armed_for;
	/* Due before armed_for: the hrtimer would be late for it, so ENTER. */
	early = timingwheel_now(CLOCK_MONOTONIC) + 10 * MS;
	want = early < ring.hdr->armed_for ? 2 : 1;
	timingwheel_prep_start(timingwheel_get_sqe(sq), c, gc, 0xea, early, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	enters = ring.enters;
	/* Due after armed_for: the hrtimer takes it, no ENTER. */
	timingwheel_prep_start(timingwheel_get_sqe(sq), b, gb, 0xbeef,
			       when + 10 * MS, MS, TWHEEL_SQE_RESULT);
	CHECK_RET(timingwheel_submit(sq), 1);
	/*
	 * What follows holds only if no timer fired before b's submit, and
	 * early came well before when: a guest may stall past either.
	 */
	judged = timingwheel_now(CLOCK_MONOTONIC) + 20 * MS < when;
	if (!judged)
		printf("# ring_start_expiry: a stall to the due time, not all judged\n");
	CHECK(!judged || armed_for <= when + 4 * MS, "armed_for %llu",
	      (unsigned long long)armed_for);
	CHECK(!judged || enters == (uint64_t)want, "enters %llu, want %d",
	      (unsigned long long)enters, want);
	CHECK_RET(ring_reap(&ring, ev, 4, 5000), 4);
	/* The result comes when b is applied, before or after c fires. */
	CHECK_RET(split_expiries(ev, 4, x, 3, 0xbeef), 3);
	if (!judged)
		order_by_cookie(x, 3, (const uint64_t []){ 0xea, 0xc00c1e, 0xbeef });
	CHECK(x[0].cookie == 0xea && x[0].flags == TWHEEL_CQE_EXPIRY &&
	      x[0].due >= early, "early expiry %llx", (unsigned long long)x[0].cookie);
	CHECK(x[1].flags == TWHEEL_CQE_EXPIRY && x[1].cookie == 0xc00c1e &&
	      x[1].slot == a && x[1].gen == ga && x[1].due >= when &&
	      x[1].fired >= x[1].due, "expiry %llx slot %u due %llu",
	      (unsigned long long)x[1].cookie, x[1].slot,
	      (unsigned long long)x[1].due);
	CHECK(x[2].cookie == 0xbeef && x[2].gen == gb &&
	      x[2].due >= when + 10 * MS, "second expiry");
	CHECK(!judged || ring.enters == (uint64_t)want, "enters %llu",
	      (unsigned long long)ring.enters);
	CHECK_RET(timingwheel_peek_cqe(&ring, &cqe), -EAGAIN);
	CHECK_RET(timingwheel_cq_advance(&ring, 1), -EINVAL);
	ring_close(&ring);
}

#define RING_BUDGET	"/sys/module/timingwheel/parameters/ring_budget"

/* Set ring_budget to @v; return what it was, or -1 if it cannot be read. */
static long set_ring_budget(long v)
{
	FILE *f = fopen(RING_BUDGET, "r+");
	long old = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &old) != 1)
		old = -1;
	rewind(f);
	fprintf(f, "%ld\n", v);
	fclose(f);
	return old;
}

/* Start one timer through @sq, due in 10 ms; its slot. */
static uint32_t start_one_in(struct timingwheel_sq *sq, uint64_t cookie)
{
	struct twheel_sqe *e = timingwheel_get_sqe(sq);
	uint32_t slot = UINT32_MAX;
	uint16_t gen;

	CHECK(e, "no free entry");
	CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), 0);
	if (!e)
		return slot;
	timingwheel_prep_start_in(sq, e, slot, gen, cookie, 10 * MS, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	return slot;
}

/*
 * timingwheel_ring_init() with no parameters attaches to rings set up
 * before: their geometry from the header, the CQ's head and the SQs'
 * tails where the first struct left them; ENOTTY for a file not the
 * device, ENODEV for one without rings.  The first struct starts and
 * reaps one timer through SQ 1, then hands both over.
 */
static void test_ring_attach(void)
{
	struct timingwheel_ring a, b;
	struct twheel_cqe ev;
	int fd = open_nb();
	uint32_t slot;

	CHECK_RET(timingwheel_ring_init(fd, NULL, &b), -ENODEV);
	close(fd);
	if (ring_open(&a, 16, 2, 8, 32))
		return;
	start_one_in(timingwheel_ring_sq(&a, 1), 0xa1);
	CHECK(ring_reap(&a, &ev, 1, 5000) == 1 && ev.cookie == 0xa1, "a's own");
	CHECK_RET(timingwheel_ring_init(a.fd, NULL, &b), 0);
	CHECK(b.params.capacity == 16 && b.params.nr_sq == 2 &&
	      b.params.sq_entries == 8 && b.params.cq_entries == 32 &&
	      b.params.sq_bytes == a.params.sq_bytes &&
	      b.params.cq_bytes == a.params.cq_bytes &&
	      b.params.hdr_bytes == a.params.hdr_bytes, "geometry %u %u %u %u",
	      b.params.capacity, b.params.nr_sq, b.params.sq_entries,
	      b.params.cq_entries);
	CHECK(b.cq_head == 1, "CQ head %u", b.cq_head);
	slot = start_one_in(timingwheel_ring_sq(&b, 1), 0xb1);
	CHECK(slot >= 8 && slot < 16, "SQ 1's share: %u", slot);
	CHECK_RET(ring_reap(&b, &ev, 1, 5000), 1);
	CHECK(ev.cookie == 0xb1 && ev.slot == slot && ev.flags == TWHEEL_CQE_EXPIRY,
	      "cookie %llx", (unsigned long long)ev.cookie);
	timingwheel_ring_exit(&b);
	ring_close(&a);
}

/* Start @n timers asked for at @when in one submit, cookies from @cookie. */
static void start_n_at(struct timingwheel_sq *sq, unsigned int n, uint64_t when,
		       uint64_t cookie)
{
	uint32_t slot;
	uint16_t gen;
	unsigned int i;

	for (i = 0; i < n; i++) {
		CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), 0);
		timingwheel_prep_start(timingwheel_get_sqe(sq), slot, gen,
				       cookie + i, when, 0, 0);
	}
	CHECK_RET(timingwheel_submit(sq), (int)n);
}

#define IN_TICK_BURST	33

/*
 * Starts asked for inside the tick the hrtimer is armed for need no ENTER
 * on rings of one SQ: the library rounds them up to the tick as the kernel
 * does.  A tick of 100 ms, the hrtimer armed for tick B: a start 60 ms
 * before B enters nothing and fires at B; one 10 ms before B's previous
 * tick enters and fires at that tick; then 33 at once inside that tick
 * enter, since one callback would not apply them all.  On rings of
 * @nr_sq 2 every start asked for before B enters, the one 60 ms before it
 * too: a callback takes the SQs one after another, and another thread's
 * backlog may use up its work first.
 */
static void ring_enter_in_tick(uint32_t nr_sq)
{
	struct twheel_ring_setup p = {
		.capacity = 64 * nr_sq, .nr_sq = nr_sq, .sq_entries = 64, .cq_entries = 64,
	};
	uint64_t res = 100 * MS, t0 = timingwheel_now(CLOCK_MONOTONIC), b, done;
	uint64_t asked[4], enters[4], want1 = nr_sq == 1 ? 1 : 2;
	struct twheel_cqe ev[IN_TICK_BURST + 3];
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq;
	int fd = timingwheel_open(CLOCK_MONOTONIC, res, O_NONBLOCK | O_CLOEXEC), i;

	CHECK(fd >= 0, "open: %s", timingwheel_strerror(fd));
	if (fd < 0 || timingwheel_ring_init(fd, &p, &ring)) {
		CHECK(fd < 0, "ring_init");
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Ticks are whole on the host's clock, not on a time namespace's view. */
	b = (t0 - ring.hdr->timens_offset_ns + 400 * MS + res - 1) / res * res +
	    ring.hdr->timens_offset_ns;
	asked[0] = b - 30 * MS;
	asked[1] = b - 60 * MS;
	asked[2] = b - res - 10 * MS;
	asked[3] = b - res - 20 * MS;
	sq = timingwheel_ring_sq(&ring, nr_sq - 1);
	for (i = 0; i < 4; i++) {
		start_n_at(sq, i < 3 ? 1 : IN_TICK_BURST, asked[i], i);
		enters[i] = ring.enters;
	}
	/* Judged if nothing fired before the last submit. */
	done = timingwheel_now(CLOCK_MONOTONIC);
	if (done >= asked[3])
		printf("# %u SQs: a stall of %llu ms, ENTERs not judged\n", nr_sq,
		       (unsigned long long)(done - t0) / MS);
	CHECK(done >= asked[3] || (enters[0] == 1 && enters[1] == want1 &&
				   enters[2] == want1 + 1 && enters[3] == want1 + 2),
	      "%u SQs: ENTERs %llu %llu %llu %llu, want 1 %llu %llu %llu", nr_sq,
	      (unsigned long long)enters[0], (unsigned long long)enters[1],
	      (unsigned long long)enters[2], (unsigned long long)enters[3],
	      (unsigned long long)want1, (unsigned long long)want1 + 1,
	      (unsigned long long)want1 + 2);
	CHECK_RET(ring_reap(&ring, ev, IN_TICK_BURST + 3, 5000), IN_TICK_BURST + 3);
	for (i = 0; i < IN_TICK_BURST + 3; i++)
		CHECK(ev[i].due == (ev[i].cookie < 2 ? b : b - res) && ev[i].fired >= ev[i].due,
		      "cookie %llu due %lld ms from B", (unsigned long long)ev[i].cookie,
		      (long long)(ev[i].due - b) / (long long)MS);
	ring_close(&ring);
}

static void test_ring_enter_in_tick(void)
{
	ring_enter_in_tick(1);
}

static void test_ring_enter_in_tick_sqs(void)
{
	ring_enter_in_tick(2);
}

/*
 * A consumer that waits by peeking, its user's softirq budget short: the
 * callback leaves the expiry to a system call, which the empty peek makes:
 * one ENTER beside the submit's, or two if a callback for a cascade
 * stalled first.
 */
static void test_ring_peek_enters(void)
{
	uint64_t when = timingwheel_now(CLOCK_MONOTONIC) + 300 * MS, end;
	struct timingwheel_ring ring;
	struct twheel_cqe *cqe = NULL;
	struct timingwheel_sq *sq;
	int judged;
	long old;
	uint32_t a;
	uint16_t ga;

	old = set_ring_budget(8);
	CHECK(old >= 0, "cannot set %s", RING_BUDGET);
	if (old < 0 || ring_open(&ring, 4, 1, 8, 8)) {
		if (old >= 0)
			set_ring_budget(old);
		return;
	}
	sq = timingwheel_ring_sq(&ring, 0);
	CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), a, ga, 0x9ee, when, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	/* A guest stalled to the due time: the submit's ENTER may have fired it. */
	judged = timingwheel_now(CLOCK_MONOTONIC) < when;
	if (!judged)
		printf("# ring_peek_enters: the submit took 300 ms, ENTERs not judged\n");
	end = timingwheel_now(CLOCK_MONOTONIC) + 5000 * MS;
	while (timingwheel_peek_cqe(&ring, &cqe) == -EAGAIN &&
	       timingwheel_now(CLOCK_MONOTONIC) < end)
		sleep_ms(5);
	CHECK(cqe && cqe->cookie == 0x9ee && cqe->due >= when,
	      "no expiry by peeking (flags %#x)", ring.hdr->flags);
	CHECK(!judged || ring.enters == 2 || ring.enters == 3, "enters %llu",
	      (unsigned long long)ring.enters);
	if (cqe)
		CHECK_RET(timingwheel_cq_advance(&ring, 1), 0);
	set_ring_budget(old);
	ring_close(&ring);
}

/* Stops of timers not yet due win, and none of them fires. */
static void test_ring_stop_won(void)
{
	uint64_t anchor = timingwheel_now(CLOCK_MONOTONIC) + 100 * MS;
	uint64_t when = anchor + 200 * MS, done;
	struct timingwheel_ring ring;
	struct twheel_cqe ev[40];
	struct timingwheel_sq *sq;
	uint32_t slot[33];
	uint16_t gen[33];
	unsigned int i, got, fired_stopped = 0;
	int won;

	if (ring_open(&ring, 64, 1, 64, 64))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	CHECK(!timingwheel_stop_won(sq, UINT64_MAX), "won before a submit");
	for (i = 0; i < 33; i++)
		CHECK_RET(timingwheel_slot_get(sq, &slot[i], &gen[i]), 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), slot[0], gen[0], 1000, anchor, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	for (i = 1; i < 33; i++)
		timingwheel_prep_start(timingwheel_get_sqe(sq), slot[i], gen[i], i, when, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 32);
	for (i = 1; i < 33; i += 2)
		timingwheel_prep_stop(timingwheel_get_sqe(sq), slot[i], gen[i], i,
				      i == 1 ? TWHEEL_SQE_RESULT : 0);
	CHECK_RET(timingwheel_submit(sq), 16);
	/*
	 * A stop said to win wins, whenever it came.  Said to win it must
	 * be if it came before @when, and with no ENTER if before @anchor;
	 * a guest may stall past either, and then those are not judged.
	 */
	won = timingwheel_stop_won(sq, when);
	done = timingwheel_now(CLOCK_MONOTONIC);
	if (done >= anchor)
		printf("# ring_stop_won: the stops came %llu ms after the anchor, not all judged\n",
		       (unsigned long long)(done - anchor) / MS);
	CHECK(won || done >= when, "wheel_ns %llu, when %llu",
	      (unsigned long long)sq->wheel_ns, (unsigned long long)when);
	CHECK(done >= anchor || ring.enters == 1, "enters %llu",
	      (unsigned long long)ring.enters);
	/* The 18 awaited up to 5 s (a late softirq), then 200 ms for more. */
	got = ring_reap(&ring, ev, 18, 5000);
	got += ring_reap(&ring, ev + got, 40 - got, 200);
	CHECK(!won || got == 18, "got %u", got);
	for (i = 0; i < got; i++) {
		/* Stops that came too late fail, and say so (ENOENT). */
		if (ev[i].flags == TWHEEL_CQE_RESULT)
			CHECK(won ? ev[i].cookie == 1 && ev[i].res == TWHEEL_STOPPED_PENDING :
			      ev[i].cookie % 2 == 1 && (ev[i].res == -ENOENT ||
							ev[i].res == TWHEEL_STOPPED_PENDING),
			      "stop %llu result %d", (unsigned long long)ev[i].cookie, ev[i].res);
		else
			fired_stopped += ev[i].cookie % 2 == 1;
	}
	CHECK(done >= anchor || (got > 1 && ev[0].flags == TWHEEL_CQE_RESULT &&
				 ev[1].cookie == 1000), "result, then the anchor");
	CHECK(!won || !fired_stopped, "%u stopped timers fired", fired_stopped);
	/* The wheel went past @when: a stop now cannot be said to win. */
	timingwheel_prep_stop(timingwheel_get_sqe(sq), slot[2], gen[2], 2,
			      TWHEEL_SQE_RESULT);
	CHECK_RET(timingwheel_submit(sq), 1);
	CHECK(!timingwheel_stop_won(sq, when), "a late stop won");
	CHECK_RET(ring_reap(&ring, ev, 1, 1000), 1);
	CHECK(ev[0].res == -ENOENT, "late stop %d", ev[0].res);
	ring_close(&ring);
}

/* Failed entries post their -errno; a result names its SQ. */
static void test_ring_results(void)
{
	uint64_t far = timingwheel_now(CLOCK_MONOTONIC) + 60000 * MS;
	struct timingwheel_ring ring;
	struct twheel_cqe ev[8];
	struct timingwheel_sq *sq;
	uint32_t s;
	uint16_t g;

	if (ring_open(&ring, 16, 2, 8, 32))
		return;
	sq = timingwheel_ring_sq(&ring, 1);
	CHECK_RET(timingwheel_slot_get(sq, &s, &g), 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), s, g, 1, far, 0, 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), s, g, 2, far, 0, 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), 16, 0, 3, far, 0, 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), s + 1, 1, 4, far, 0,
			       TWHEEL_SQE_PERIODIC);
	timingwheel_prep_stop(timingwheel_get_sqe(sq), s, g + 1, 5, 0);
	timingwheel_prep_stop(timingwheel_get_sqe(sq), s, g, 6, TWHEEL_SQE_RESULT);
	CHECK_RET(timingwheel_submit(sq), 6);
	CHECK_RET(ring_reap(&ring, ev, 5, 5000), 5);
	CHECK(ev[0].cookie == 2 && ev[0].res == -EEXIST && ev[0].sq == 1 &&
	      ev[0].flags == TWHEEL_CQE_RESULT, "EEXIST: %d sq %u", ev[0].res, ev[0].sq);
	CHECK(ev[1].cookie == 3 && ev[1].res == -EINVAL, "slot range: %d", ev[1].res);
	CHECK(ev[2].cookie == 4 && ev[2].res == -EOPNOTSUPP, "periodic: %d", ev[2].res);
	CHECK(ev[3].cookie == 5 && ev[3].res == -ENOENT, "stale gen: %d", ev[3].res);
	CHECK(ev[4].cookie == 6 && ev[4].res == TWHEEL_STOPPED_PENDING, "stop: %d",
	      ev[4].res);
	CHECK(ring.hdr->errors == 4, "errors %llu", (unsigned long long)ring.hdr->errors);
	CHECK_RET(timingwheel_ring_enter(&ring), 0);
	ring_close(&ring);
}

/*
 * A periodic start is due at its first time, whatever its period: submit
 * enters for one due before armed_for.  A start_in() is due its delay
 * after the clock read.
 */
static void test_ring_periodic(void)
{
	uint64_t now = timingwheel_now(CLOCK_MONOTONIC), first = now + 20 * MS;
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq;
	struct twheel_cqe ev[4], *x;
	uint32_t a, b;
	uint16_t ga, gb;
	int want;

	if (ring_open_flags(&ring, 16, 1, 8, 32, TWHEEL_RING_SETUP_PERIODIC))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
	CHECK_RET(timingwheel_slot_get(sq, &b, &gb), 0);
	timingwheel_prep_start(timingwheel_get_sqe(sq), a, ga, 1, now + 60000 * MS, 0, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	CHECK(ring.enters == 1, "enters %llu", (unsigned long long)ring.enters);
	/* Its period, a minute, is not a slack: first < armed_for enters. */
	want = first < ring.hdr->armed_for ? 2 : 1;
	timingwheel_prep_periodic(timingwheel_get_sqe(sq), b, gb, 2, first,
				  60000 * MS, 0);
	CHECK_RET(timingwheel_submit(sq), 1);
	CHECK(ring.enters == (uint64_t)want, "enters %llu, want %d",
	      (unsigned long long)ring.enters, want);
	CHECK_RET(ring_reap(&ring, ev, 1, 5000), 1);
	CHECK(ev[0].cookie == 2 && ev[0].due >= first && ev[0].fired >= ev[0].due &&
	      ev[0].flags == (TWHEEL_CQE_EXPIRY | TWHEEL_CQE_PERIODIC),
	      "periodic expiry %llx flags %x", (unsigned long long)ev[0].cookie,
	      ev[0].flags);
	/* Relative, from a clock read: due no earlier than the delay. */
	now = timingwheel_now(CLOCK_MONOTONIC);
	timingwheel_prep_start_in(sq, timingwheel_get_sqe(sq), a, ga, 4,
				  30 * MS, 0, TWHEEL_SQE_REPLACE);
	CHECK_RET(timingwheel_submit(sq), 1);
	CHECK_RET(ring_reap(&ring, ev, 1, 5000), 1);
	x = &ev[0];
	CHECK(x->cookie == 4 && x->due >= now + 30 * MS &&
	      x->due <= timingwheel_now(CLOCK_MONOTONIC) + 30 * MS,
	      "start_in: due %llu, asked %llu + 30 ms", (unsigned long long)x->due,
	      (unsigned long long)now);
	timingwheel_prep_stop(timingwheel_get_sqe(sq), b, gb, 3, TWHEEL_SQE_RESULT);
	CHECK_RET(timingwheel_submit(sq), 1);
	/* A stop is applied at the next consumption point: make it now. */
	CHECK_RET(timingwheel_ring_enter(&ring), 0);
	CHECK_RET(ring_reap(&ring, ev, 1, 5000), 1);
	CHECK(ev[0].cookie == 3 && ev[0].res == TWHEEL_STOPPED_PENDING,
	      "stop of a periodic slot: %d", ev[0].res);
	ring_close(&ring);
}

/* A CQ of 8 against 100 expiries: cq_advance() enters for the rest. */
static void test_ring_cq_overflow(void)
{
	uint64_t when = timingwheel_now(CLOCK_MONOTONIC) + 20 * MS;
	struct timingwheel_ring ring;
	static struct twheel_cqe ev[100];
	unsigned int i, got, missing, waited = 0, seen[100] = { 0 };
	struct timingwheel_sq *sq;
	uint32_t s;
	uint16_t g;

	if (ring_open(&ring, 128, 1, 128, 8))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	for (i = 0; i < 100; i++) {
		CHECK_RET(timingwheel_slot_get(sq, &s, &g), 0);
		timingwheel_prep_start(timingwheel_get_sqe(sq), s, g, i,
				       when + (i / 10) * MS, 0, 0);
	}
	CHECK_RET(timingwheel_submit(sq), 100);
	for (i = 0; i < 600 && ring.hdr->waiting < 92; i++)
		sleep_ms(5);
	CHECK(ring.hdr->waiting == 92, "waiting %llu",
	      (unsigned long long)ring.hdr->waiting);
	/*
	 * The full CQ consumed: cq_advance() itself must enter for
	 * NEED_FLUSH (the peeks of ring_reap() would enter only once the
	 * CQ is empty, and hide it).
	 */
	got = cq_take(&ring, ev, 8);
	CHECK(got == 8 && ring.enters == 2, "got %u, enters %llu", got,
	      (unsigned long long)ring.enters);
	got += ring_reap(&ring, ev + got, 100 - got, 3000);
	CHECK(got == 100, "got %u", got);
	for (i = 0; i < got; i++) {
		if (ev[i].cookie < 100)
			seen[ev[i].cookie]++;
		waited += !!(ev[i].flags & TWHEEL_CQE_WAITED);
	}
	for (i = 0, missing = 0; i < 100; i++)
		missing += seen[i] != 1;
	CHECK(!missing, "%u cookies not seen once", missing);
	CHECK(waited == 92 && ring.hdr->waiting == 0, "waited %u", waited);
	CHECK(ring.enters >= 2, "enters %llu", (unsigned long long)ring.enters);
	ring_close(&ring);
}

/*
 * The consumer learns that the rings broke.  Breaking clears every NEED_*
 * flag, so a consumer that entered only on them never would: the two
 * events posted before the break are still read, a cq_advance() that
 * leaves one says 0, and once the CQ is empty cq_advance() (its events
 * consumed) and the peek say -EBADFD; a stop submitted after the break
 * is not said to win.
 */
static void test_ring_broken(void)
{
	uint64_t end = timingwheel_now(CLOCK_MONOTONIC) + 5000 * MS;
	struct timingwheel_ring ring;
	struct twheel_cqe *cqe = NULL;
	struct timingwheel_sq *sq;
	uint32_t a, i;
	uint16_t ga;

	if (ring_open(&ring, 4, 1, 8, 8))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	for (i = 0; i < 2; i++) {
		CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
		timingwheel_prep_start(timingwheel_get_sqe(sq), a, ga, 0xba0 + i,
				       timingwheel_now(CLOCK_MONOTONIC), 0, 0);
	}
	CHECK_RET(timingwheel_submit(sq), 2);
	while (ring.cq->tail - ring.cq_head < 2 &&
	       timingwheel_now(CLOCK_MONOTONIC) < end)
		sleep_ms(5);
	/* A tail more than the SQ's size ahead of its head. */
	__atomic_store_n(&sq->ctl->tail, sq->tail + 9, __ATOMIC_RELEASE);
	CHECK_RET(timingwheel_ring_enter(&ring), -EBADFD);
	for (i = 0; i < 2; i++) {
		CHECK_RET(timingwheel_peek_cqe(&ring, &cqe), 0);
		CHECK(cqe && (cqe->cookie & ~1ULL) == 0xba0,
		      "an expiry of before the break");
		CHECK_RET(timingwheel_cq_advance(&ring, 1), i ? -EBADFD : 0);
	}
	CHECK_RET(timingwheel_peek_cqe(&ring, &cqe), -EBADFD);
	CHECK_RET(timingwheel_cq_advance(&ring, 0), -EBADFD);
	CHECK(ring.cq_head == ring.cq->tail, "the events not consumed");
	/* A stop submitted now is never applied: it cannot be said to win. */
	CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
	timingwheel_prep_stop(timingwheel_get_sqe(sq), a, ga, 0xba2, 0);
	CHECK_RET(timingwheel_submit(sq), -EBADFD);
	CHECK(!timingwheel_stop_won(sq, UINT64_MAX - 1), "a stop won on broken rings");
	ring_close(&ring);
}

/*
 * The return queue, white-box: a put caught between its exchange and its
 * link store (done here by hand, on the library's own fields) hides the
 * slots behind it, -EAGAIN, and loses none; every slot comes back once,
 * in the order of the exchanges, the owner's puts included.
 */
static void test_ring_slot_return(void)
{
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq;
	uint32_t slot, prev, i;
	uint16_t gen;

	if (ring_open(&ring, 4, 1, 8, 16))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	for (i = 0; i < 4; i++)
		CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), 0);
	CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), -ENOSPC);
	CHECK_RET(timingwheel_slot_put(&ring, 0), 0);
	/* Slot 1's put, stopped in its gap: exchanged, not linked. */
	ring.slots[1].taken = 0;
	__atomic_store_n(&ring.slots[1].next, UINT32_MAX, __ATOMIC_RELAXED);
	prev = __atomic_exchange_n(&sq->rq_head, 1, __ATOMIC_ACQ_REL);
	CHECK(prev == 0, "the put before: %u", prev);
	CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), -EAGAIN);
	/* A put that completes behind the gap waits behind it. */
	CHECK_RET(timingwheel_slot_put(&ring, 2), 0);
	CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), -EAGAIN);
	__atomic_store_n(&ring.slots[prev].next, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++) {
		slot = UINT32_MAX;
		CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), 0);
		CHECK(slot == i && gen == 2, "get %u: slot %u gen %u", i, slot, gen);
	}
	CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), -ENOSPC);
	/* The last node alone, then the stub's turn twice over. */
	for (i = 0; i < 3; i++) {
		CHECK_RET(timingwheel_slot_put(&ring, 3 - i), 0);
		slot = UINT32_MAX;
		CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), 0);
		CHECK(slot == 3 - i, "get after put: slot %u, want %u", slot, 3 - i);
	}
	CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), -ENOSPC);
	CHECK_RET(timingwheel_slot_put(&ring, 0), 0);
	CHECK_RET(timingwheel_slot_put(&ring, 0), -EINVAL);
	/* The stub is no slot. */
	CHECK_RET(timingwheel_slot_put(&ring, 4), -EINVAL);
	ring_close(&ring);
}

#define MPSC_SLOTS	512
#define MPSC_PRODUCERS	3
#define MPSC_ROUNDS	20

struct mpsc_producer {
	struct timingwheel_ring	*ring;
	uint32_t		slots[MPSC_SLOTS];
	unsigned int		n;
	unsigned int		seed;
	int			*done;
	int			errors;
};

static void *mpsc_put(void *arg)
{
	struct mpsc_producer *p = arg;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		p->errors += timingwheel_slot_put(p->ring, p->slots[i]) != 0;
		if (rand_r(&p->seed) % 8 == 0)
			sched_yield();
	}
	__atomic_fetch_add(p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Three threads put an SQ's slots while its owner gets them and puts a
 * fourth share itself, MPSC_ROUNDS rounds, the shares drawn from a seed
 * (TW_LIBTEST_SEED replays one).  Once every putter is done the queue
 * must be empty (-ENOSPC, never -EAGAIN): the verdict does not depend on
 * how the threads ran.  Every slot comes back once a round, with the next
 * generation, and each putter's slots in its order.
 */
static void test_ring_slot_mpsc(void)
{
	static struct mpsc_producer prod[MPSC_PRODUCERS + 1];
	static uint32_t got[MPSC_SLOTS], owner[MPSC_SLOTS], at[MPSC_PRODUCERS + 1];
	static uint16_t gens[MPSC_SLOTS];
	const char *env = getenv("TW_LIBTEST_SEED");
	unsigned int seed, r, i, k, n, own, bad = 0;
	struct timingwheel_ring ring;
	struct mpsc_producer *me = &prod[MPSC_PRODUCERS];
	pthread_t t[MPSC_PRODUCERS];
	struct timingwheel_sq *sq;
	uint32_t slot;
	uint16_t gen;
	int done, ret;

	seed = env ? (unsigned int)strtoul(env, NULL, 0) :
		(unsigned int)(timingwheel_now(CLOCK_MONOTONIC) ^ getpid());
	printf("# ring_slot_mpsc: seed %u (TW_LIBTEST_SEED=%u replays it)\n", seed, seed);
	if (ring_open(&ring, MPSC_SLOTS, 1, 8, 16))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	for (r = 0; r < MPSC_ROUNDS && !bad; r++) {
		/* Take every slot: the free list first, then the queue. */
		for (i = 0; i < MPSC_SLOTS; i++) {
			ret = timingwheel_slot_get(sq, &slot, &gen);
			CHECK(ret == 0, "round %u get %u: %d", r, i, ret);
			if (ret)
				goto out;
			gens[slot] = gen;
		}
		CHECK_RET(timingwheel_slot_get(sq, &slot, &gen), -ENOSPC);
		for (k = 0; k <= MPSC_PRODUCERS; k++) {
			prod[k].ring = &ring;
			prod[k].n = 0;
			prod[k].seed = rand_r(&seed);
			prod[k].done = &done;
			prod[k].errors = 0;
			at[k] = 0;
		}
		for (i = 0; i < MPSC_SLOTS; i++) {
			k = (unsigned int)rand_r(&seed) % (MPSC_PRODUCERS + 1);
			owner[i] = k;
			prod[k].slots[prod[k].n++] = i;
		}
		done = 0;
		for (k = 0; k < MPSC_PRODUCERS; k++)
			if (pthread_create(&t[k], NULL, mpsc_put, &prod[k])) {
				CHECK(0, "pthread_create");
				goto out;
			}
		for (n = 0, own = 0;;) {
			/* The owner's share: a put between gets. */
			if (own < me->n)
				me->errors += timingwheel_slot_put(&ring,
								   me->slots[own++]) != 0;
			k = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
			ret = timingwheel_slot_get(sq, &slot, &gen);
			if (!ret) {
				if (slot >= MPSC_SLOTS || n == MPSC_SLOTS ||
				    gen != (uint16_t)(gens[slot] + 1)) {
					bad++;
					printf("# round %u: slot %u gen %u, %u got\n", r,
					       slot, gen, n);
					break;
				}
				gens[slot] = gen;
				got[n++] = slot;
				continue;
			}
			if (k == MPSC_PRODUCERS && own == me->n) {
				CHECK(ret == -ENOSPC, "round %u, all put: %d", r, ret);
				break;
			}
			sched_yield();
		}
		for (k = 0; k < MPSC_PRODUCERS; k++)
			pthread_join(t[k], NULL);
		for (k = 0; k <= MPSC_PRODUCERS; k++)
			bad += prod[k].errors;
		CHECK(n == MPSC_SLOTS, "round %u: %u slots back", r, n);
		bad += n != MPSC_SLOTS;
		/* Each slot once, each putter's in its order. */
		for (i = 0; i < n; i++) {
			k = owner[got[i] % MPSC_SLOTS];
			if (at[k] >= prod[k].n || prod[k].slots[at[k]] != got[i]) {
				printf("# round %u: get %u is slot %u, putter %u's next is %u\n",
				       r, i, got[i], k,
				       at[k] < prod[k].n ? prod[k].slots[at[k]] : UINT32_MAX);
				bad++;
				break;
			}
			at[k]++;
		}
		/* Give every slot back for the next round's gets. */
		for (i = 0; i < n; i++)
			bad += timingwheel_slot_put(&ring, got[i]) != 0;
	}
	CHECK(!bad, "seed %u: %u faults", seed, bad);
out:
	ring_close(&ring);
}

/* Two threads entering at once, each filling its own SQ. */
#define TWO_SQ_ENTRIES	512
#define TWO_ROUNDS	100

/**
 * struct two_enters - one thread of test_ring_two_enters()
 * @sq:    its SQ
 * @busy:  ENTERs (its submits') that failed with EBUSY
 * @other: submits that failed otherwise, the last errno
 * @bad:   slot calls that failed, or an SQ that stayed full
 */
struct two_enters {
	struct timingwheel_sq	*sq;
	unsigned int		busy;
	int			other;
	unsigned int		bad;
};

/* Submit @t's SQ, counting how it failed. */
static void two_submit(struct two_enters *t)
{
	int ret = timingwheel_submit(t->sq);

	if (ret == -EBUSY)
		t->busy++;
	else if (ret < 0)
		t->other = ret;
}

/* An entry of @t's SQ, submitting (and entering) while it is full. */
static struct twheel_sqe *two_sqe(struct two_enters *t)
{
	struct twheel_sqe *e;
	int k;

	for (k = 0; k < 100; k++) {
		e = timingwheel_get_sqe(t->sq);
		if (e)
			return e;
		two_submit(t);
	}
	t->bad++;
	return NULL;
}

/* Fill the SQ with starts due 10 s ahead, submit, then their stops. */
static void *two_enters_main(void *arg)
{
	struct two_enters *t = arg;
	uint32_t slot[TWO_SQ_ENTRIES];
	uint16_t gen[TWO_SQ_ENTRIES];
	struct twheel_sqe *e;
	unsigned int r, i;
	uint64_t when;

	for (r = 0; r < TWO_ROUNDS && !t->bad; r++) {
		when = timingwheel_now(CLOCK_MONOTONIC) + 10000 * MS;
		for (i = 0; i < TWO_SQ_ENTRIES; i++) {
			e = two_sqe(t);
			if (!e)
				return NULL;
			t->bad += timingwheel_slot_get(t->sq, &slot[i], &gen[i]) != 0;
			timingwheel_prep_start(e, slot[i], gen[i], i, when, 0, 0);
		}
		two_submit(t);
		for (i = 0; i < TWO_SQ_ENTRIES; i++) {
			e = two_sqe(t);
			if (!e)
				return NULL;
			timingwheel_prep_stop(e, slot[i], gen[i], i, 0);
			t->bad += timingwheel_sq_slot_put(t->sq, slot[i]) != 0;
		}
		two_submit(t);
	}
	return NULL;
}

/*
 * Two threads, each on its own SQ, filling it and entering, again and
 * again: an ENTER answers EBUSY only while results wait for CQ room, and
 * none is asked for here.  One thread's ENTER used to look at the SQ heads
 * after its last chunk, unlocked, and take another thread's chunk between
 * applying entries and publishing the head for held results: EBUSY with
 * an empty CQ (seen by bench_device -T on two vCPUs at once).
 */
static void test_ring_two_enters(void)
{
	static struct two_enters t[2];
	struct timingwheel_ring ring;
	pthread_t tid[2];
	unsigned int k, started = 0;

	if (ring_open(&ring, 4 * TWO_SQ_ENTRIES, 2, TWO_SQ_ENTRIES, 16))
		return;
	for (k = 0; k < 2; k++) {
		t[k] = (struct two_enters) { .sq = timingwheel_ring_sq(&ring, k) };
		if (pthread_create(&tid[k], NULL, two_enters_main, &t[k]))
			break;
		started++;
	}
	CHECK(started == 2, "pthread_create");
	for (k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	for (k = 0; k < started; k++)
		CHECK(!t[k].busy && !t[k].other && !t[k].bad,
		      "thread %u: %u EBUSY, last other error %d, %u stuck",
		      k, t[k].busy, t[k].other, t[k].bad);
	CHECK(ring.hdr->errors == 0 && ring.hdr->posted == 0,
	      "%llu errors, %llu posted", (unsigned long long)ring.hdr->errors,
	      (unsigned long long)ring.hdr->posted);
	printf("# ring_two_enters: %llu ENTERs\n", (unsigned long long)ring.enters);
	ring_close(&ring);
}

/*
 * sq_set_now(): prep_start_in() counts from its time, not a clock read,
 * until the submit or a 0; then it holds its delay, marked, for the submit
 * to stamp.
 */
static void test_ring_set_now(void)
{
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq;
	struct twheel_sqe *e;
	uint64_t now, t;
	uint32_t a, b;
	uint16_t ga, gb;

	if (ring_open(&ring, 16, 1, 8, 32))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
	CHECK_RET(timingwheel_slot_get(sq, &b, &gb), 0);
	t = timingwheel_now(CLOCK_MONOTONIC) + 30000 * MS;
	timingwheel_sq_set_now(sq, t);
	e = timingwheel_get_sqe(sq);
	timingwheel_prep_start_in(sq, e, a, ga, 1, 5 * MS, 0, 0);
	CHECK(e->when == t + 5 * MS, "when %llu, want %llu",
	      (unsigned long long)e->when, (unsigned long long)(t + 5 * MS));
	e = timingwheel_get_sqe(sq);
	timingwheel_prep_start_in(sq, e, b, gb, 2, 7 * MS, 0, 0);
	CHECK(e->when == t + 7 * MS, "second when %llu", (unsigned long long)e->when);
	CHECK_RET(timingwheel_submit(sq), 2);
	/* The submit ended the batch: its delay waits for the next submit. */
	e = timingwheel_get_sqe(sq);
	timingwheel_prep_start_in(sq, e, a, ga, 3, 5 * MS, 0, TWHEEL_SQE_REPLACE);
	CHECK(e->when == 5 * MS && (e->flags & TIMINGWHEEL_SQE_STAMP),
	      "after submit: when %llu flags %x", (unsigned long long)e->when,
	      e->flags);
	/* 0 clears it. */
	timingwheel_sq_set_now(sq, t);
	timingwheel_sq_set_now(sq, 0);
	e = timingwheel_get_sqe(sq);
	timingwheel_prep_start_in(sq, e, b, gb, 4, 5 * MS, 0, TWHEEL_SQE_REPLACE);
	CHECK(e->when == 5 * MS && (e->flags & TIMINGWHEEL_SQE_STAMP),
	      "after 0: when %llu flags %x", (unsigned long long)e->when, e->flags);
	now = timingwheel_now(CLOCK_MONOTONIC);
	CHECK_RET(timingwheel_submit(sq), 2);
	CHECK(e->when >= now + 5 * MS && e->when < t &&
	      !(e->flags & TIMINGWHEEL_SQE_STAMP), "stamped: when %llu flags %x",
	      (unsigned long long)e->when, e->flags);
	ring_close(&ring);
}

/*
 * prep_start_in() with no sq_set_now() time: the submit reads the clock
 * once for its batch, after every prep of it, so a batch prepared over 50
 * ms has each start due its delay after the submit began, not after its
 * prep: none early.  The kernel sees a time, never the mark.
 */
static void test_ring_start_in_stamped(void)
{
	struct twheel_sqe *e1, *e2, probe;
	struct timingwheel_ring ring;
	struct timingwheel_sq *sq;
	struct twheel_cqe ev[2];
	uint64_t before, after;
	uint32_t a, b;
	uint16_t ga, gb;

	if (ring_open(&ring, 16, 1, 8, 32))
		return;
	sq = timingwheel_ring_sq(&ring, 0);
	CHECK_RET(timingwheel_slot_get(sq, &a, &ga), 0);
	CHECK_RET(timingwheel_slot_get(sq, &b, &gb), 0);
	e1 = timingwheel_get_sqe(sq);
	timingwheel_prep_start_in(sq, e1, a, ga, 1, 40 * MS, 0, 0);
	CHECK(e1->when == 40 * MS && (e1->flags & TIMINGWHEEL_SQE_STAMP),
	      "held: when %llu flags %x", (unsigned long long)e1->when, e1->flags);
	sleep_ms(50);
	e2 = timingwheel_get_sqe(sq);
	timingwheel_prep_start_in(sq, e2, b, gb, 2, 20 * MS, 0, 0);
	before = timingwheel_now(CLOCK_MONOTONIC);
	CHECK_RET(timingwheel_submit(sq), 2);
	after = timingwheel_now(CLOCK_MONOTONIC);
	CHECK(e1->when >= before + 40 * MS && e1->when <= after + 40 * MS &&
	      e2->when == e1->when - 20 * MS, "stamped: %llu and %llu, submit %llu",
	      (unsigned long long)e1->when, (unsigned long long)e2->when,
	      (unsigned long long)before);
	CHECK(!((e1->flags | e2->flags) & TIMINGWHEEL_SQE_STAMP), "marks left");
	/* The mark is the library's: prep_start() drops it from its flags. */
	timingwheel_prep_start(&probe, a, ga, 3, 5 * MS, 0,
			       TIMINGWHEEL_SQE_STAMP | TWHEEL_SQE_RESULT);
	CHECK(probe.flags == TWHEEL_SQE_RESULT && probe.when == 5 * MS,
	      "prep_start kept flags %x", probe.flags);
	CHECK_RET(ring_reap(&ring, ev, 2, 5000), 2);
	CHECK(ev[0].cookie == 2 && ev[1].cookie == 1 &&
	      ev[0].due >= before + 20 * MS && ev[1].due >= before + 40 * MS,
	      "expiries %llu due %llu, %llu due %llu; submit at %llu",
	      (unsigned long long)ev[0].cookie, (unsigned long long)ev[0].due,
	      (unsigned long long)ev[1].cookie, (unsigned long long)ev[1].due,
	      (unsigned long long)before);
	CHECK(!ring.hdr->errors, "%llu errors", (unsigned long long)ring.hdr->errors);
	ring_close(&ring);
}

/* A child's ring_init: 1 if it set OTHER_TIMENS, 0 if not, 2 on a failure. */
static int timens_child_init(void)
{
	struct twheel_ring_setup p = {
		.capacity = 4, .nr_sq = 1, .sq_entries = 8, .cq_entries = 16,
	};
	struct timingwheel_ring ring;
	int fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_CLOEXEC), ret;

	if (fd < 0 || timingwheel_ring_init(fd, &p, &ring))
		return 2;
	ret = !!(ring.flags & TIMINGWHEEL_RING_OTHER_TIMENS);
	timingwheel_ring_exit(&ring);
	close(fd);
	return ret;
}

/*
 * OTHER_TIMENS: not in the rings' own namespace; set after an unshare()
 * of a time namespace with a monotonic offset, which /proc/self's file
 * shows while the process still runs on the old one; not in a child of
 * it, which runs on the new one.
 */
static void test_ring_timens(void)
{
	struct timingwheel_ring ring;
	int status, fd, out;
	pid_t pid, child;

	if (ring_open(&ring, 4, 1, 8, 16))
		return;
	CHECK(!(ring.flags & TIMINGWHEEL_RING_OTHER_TIMENS), "flags %#x", ring.flags);
	ring_close(&ring);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid < 0)
		return;
	if (!pid) {
		if (unshare(CLONE_NEWTIME)) {
			printf("# no time namespaces (%s): skipped\n", strerror(errno));
			_exit(0);
		}
		fd = open("/proc/self/timens_offsets", O_WRONLY);
		if (fd < 0 || write(fd, "monotonic 1000 0\n", 17) != 17) {
			printf("# timens_offsets: %s\n", strerror(errno));
			_exit(1);
		}
		close(fd);
		out = timens_child_init();
		if (out != 1) {
			printf("# unshared: OTHER_TIMENS %d, want 1\n", out);
			_exit(1);
		}
		fflush(stdout);
		child = fork();
		if (!child)
			_exit(timens_child_init());
		if (child < 0 || waitpid(child, &status, 0) != child ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("# in the namespace: status %#x, want 0\n", status);
			_exit(1);
		}
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "child status %#x", status);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "open", test_open },
	{ "config", test_config },
	{ "clock_realtime", test_clock_realtime },
	{ "clock_default", test_clock_default },
	{ "args_before_open", test_args_before_open },
	{ "strerror_open", test_strerror_open },
	{ "info", test_info },
	{ "start_stop_query", test_start_stop_query },
	{ "errors", test_errors },
	{ "read", test_read },
	{ "read_blocking", test_read_blocking },
	{ "slack", test_slack },
	{ "batch_small", test_batch_small },
	{ "batch_chunks", test_batch_chunks },
	{ "now", test_now },
	{ "ring_init_exit", test_ring_init_exit },
	{ "ring_slots", test_ring_slots },
	{ "ring_sq_full", test_ring_sq_full },
	{ "ring_start_expiry", test_ring_start_expiry },
	{ "ring_enter_in_tick", test_ring_enter_in_tick },
	{ "ring_enter_in_tick_sqs", test_ring_enter_in_tick_sqs },
	{ "ring_attach", test_ring_attach },
	{ "ring_peek_enters", test_ring_peek_enters },
	{ "ring_stop_won", test_ring_stop_won },
	{ "ring_results", test_ring_results },
	{ "ring_periodic", test_ring_periodic },
	{ "ring_cq_overflow", test_ring_cq_overflow },
	{ "ring_broken", test_ring_broken },
	{ "ring_slot_return", test_ring_slot_return },
	{ "ring_slot_mpsc", test_ring_slot_mpsc },
	{ "ring_set_now", test_ring_set_now },
	{ "ring_start_in_stamped", test_ring_start_in_stamped },
	{ "ring_two_enters", test_ring_two_enters },
	{ "ring_timens", test_ring_timens },
};

/* Whether case @name is among the @argc names of @argv (all if none). */
static int wanted(const char *name, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return argc < 2;
}

/* Exit 2 if a name in @argv is no case's: a filter that runs nothing. */
static void check_names(int argc, char **argv)
{
	unsigned int i;
	int a;

	for (a = 1; a < argc; a++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			if (!strcmp(argv[a], cases[i].name))
				break;
		if (i == ARRAY_SIZE(cases)) {
			fprintf(stderr, "tw_libtest: no case '%s'\n", argv[a]);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int i, n = 0, failed = 0;
	const char *verdict;

	setvbuf(stdout, NULL, _IOLBF, 0);
	check_names(argc, argv);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		n += wanted(cases[i].name, argc, argv);
	printf("1..%u\n", n);
	for (i = 0, n = 0; i < ARRAY_SIZE(cases); i++) {
		if (!wanted(cases[i].name, argc, argv))
			continue;
		failing = 0;
		cases[i].fn();
		failed += failing;
		verdict = failing ? "not ok" : "ok";
		printf("%s %u lib.%s\n", verdict, ++n, cases[i].name);
	}
	printf("TW-LIBTEST-SUMMARY passed=%u failed=%u\n", n - failed, failed);
	return failed ? 1 : 0;
}
