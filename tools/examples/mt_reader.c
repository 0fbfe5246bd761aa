// SPDX-License-Identifier: MIT
/*
 * mt_reader: several threads reading the expiries of one /dev/timingwheel
 * file.
 *
 * libtimingwheel keeps no state of its own: every function may be called
 * from any thread, on the same descriptor, at once; only a struct
 * timingwheel_batch belongs to one thread at a time.  The device gives each
 * event to exactly one read(), and the readers of one file copy out one at
 * a time, so the threads never see an event twice and need no lock to
 * share the work.  Each has its own read buffer.
 *
 * The file is non-blocking and each thread waits with poll(): a blocking
 * read() would do too, but a thread blocked in read() wakes only for an
 * event, so stopping it would need one event per thread.  A non-blocking
 * read() may fail with EAGAIN although events wait (another thread is
 * copying out): poll again.
 *
 * The main thread starts NTIMERS timers due over 200 ms (in batches) while
 * NTHREADS threads read; every expiry must be read exactly once.
 * Exit status: 0 as expected, 1 not, 2 no device.
 * Build: cc -pthread -o mt_reader mt_reader.c $(pkg-config --cflags --libs libtimingwheel)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <libtimingwheel.h>

#define NTHREADS	4
#define NTIMERS		20000
#define SPREAD_NS	200000000ULL
#define BATCH		1024
#define READ_EVENTS	128

static int fd;
static atomic_uchar seen[NTIMERS];
static atomic_int total, twice, foreign;
static atomic_int done;

static void *reader(void *arg)
{
	struct twheel_event ev[READ_EVENTS];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long *count = arg;
	ssize_t n, i;

	while (!atomic_load(&done)) {
		if (poll(&p, 1, 20) <= 0)
			continue;
		n = timingwheel_read(fd, ev, READ_EVENTS);
		if (n < 0)
			continue;	/* -EAGAIN: another thread was reading */
		for (i = 0; i < n; i++) {
			if (ev[i].id >= NTIMERS)
				atomic_fetch_add(&foreign, 1);
			else if (atomic_exchange(&seen[ev[i].id], 1))
				atomic_fetch_add(&twice, 1);
		}
		*count += n;
		if (atomic_fetch_add(&total, n) + n >= NTIMERS)
			atomic_store(&done, 1);
	}
	return NULL;
}

int main(void)
{
	static struct twheel_op ops[BATCH];
	struct timingwheel_batch b;
	pthread_t t[NTHREADS];
	long count[NTHREADS] = { 0 };
	uint64_t start;
	int i, ret = 0, waited;

	fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mt_reader: %s\n", timingwheel_strerror(fd));
		return fd == -ENOENT || fd == -ENODEV ? 2 : 1;
	}
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, reader, &count[i]))
			return 1;
	timingwheel_batch_init(&b, fd, ops, BATCH);
	start = timingwheel_now(CLOCK_MONOTONIC);
	for (i = 0; i < NTIMERS && ret >= 0; i++) {
		ret = timingwheel_batch_start(&b, i, start + SPREAD_NS * i / NTIMERS, 0, 0,
					      TWHEEL_TIMER_ABSTIME);
		if (ret >= 0 && (b.count == BATCH || i == NTIMERS - 1)) {
			ret = timingwheel_batch_submit(&b);
			if (ret >= 0 && (unsigned int)ret != b.count)
				ret = -EIO;
			timingwheel_batch_reset(&b);
		}
	}
	if (ret < 0)
		fprintf(stderr, "mt_reader: start: %s\n", timingwheel_strerror(ret));
	for (waited = 0; ret >= 0 && !atomic_load(&done) && waited < 500; waited++)
		usleep(10000);
	atomic_store(&done, 1);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	close(fd);
	if (ret < 0)
		return 1;
	printf("mt_reader: %d events read by %d threads (", atomic_load(&total), NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		printf("%s%ld", i ? " " : "", count[i]);
	printf("), %d twice, %d unknown\n", atomic_load(&twice), atomic_load(&foreign));
	return atomic_load(&total) == NTIMERS && !atomic_load(&twice) &&
	       !atomic_load(&foreign) ? 0 : 1;
}
