// SPDX-License-Identifier: MIT
/*
 * idle_server: the idle timeouts of a server's connections on one
 * /dev/timingwheel file, waited on with epoll in edge-triggered mode.
 *
 * Every connection has one timer, its id the connection's number.  Traffic
 * re-arms it with TWHEEL_TIMER_REPLACE and some slack (an idle timeout need
 * not be exact, and slack lets the module put many on one round tick); a
 * connection that closes cancels its timer with a stop; each round's
 * re-arms and stops go to the device in one batch.  An expiry means the
 * connection was idle for IDLE_MS: the server would close it.
 *
 * The traffic here is simulated, so that the program can check itself:
 * NCONN connections; every round (ROUND_MS) the even ones see traffic; in
 * round 1 every tenth one (5, 15, ...) closes.  After ROUNDS rounds nothing
 * happens any more, and every connection still open must time out, exactly
 * once, never before IDLE_MS after its last traffic, and no closed one may.
 * (A connection that timed out is closed: it sees no traffic after.)
 *
 * Exit status: 0 all as expected, 1 something was not, 2 no device.
 * Build: cc -o idle_server idle_server.c $(pkg-config --cflags --libs libtimingwheel)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <libtimingwheel.h>

#define NCONN		1000
#define IDLE_MS		100
#define SLACK_MS	20
#define ROUND_MS	40
#define ROUNDS		3
#define MS		1000000ULL
#define BATCH		256	/* entries per submission */
#define READ_EVENTS	256	/* a read buffer of 256 events, 10 KiB */

struct conn {
	uint64_t	last_traffic;	/* ns, CLOCK_MONOTONIC */
	int		open;
	int		timed_out;
};

static struct conn conns[NCONN];
static struct twheel_op ops[BATCH];

static int fail(const char *what, int err)
{
	fprintf(stderr, "idle_server: %s: %s\n", what, timingwheel_strerror(err));
	return 1;
}

/* Submit @b and check every entry; the batch is emptied for reuse. */
static int submit(struct timingwheel_batch *b)
{
	unsigned int i;
	int ret;

	if (!b->count)
		return 0;
	ret = timingwheel_batch_submit(b);
	if (ret < 0)
		return fail("batch", ret);
	for (i = 0; i < b->count; i++)
		if (b->ops[i].result < 0)
			return fail("batch entry", b->ops[i].result);
	timingwheel_batch_reset(b);
	return 0;
}

/* Queue one entry, submitting first when the batch is full. */
static int queue(struct timingwheel_batch *b, int stop, uint64_t id, unsigned int flags)
{
	int ret;

	if (b->count == b->cap && submit(b))
		return 1;
	if (stop)
		ret = timingwheel_batch_stop(b, id);
	else
		ret = timingwheel_batch_start(b, id, IDLE_MS * MS, 0, SLACK_MS * MS, flags);
	return ret < 0 ? fail("queue", ret) : 0;
}

/* One round of traffic: re-arm the even connections, close some in round 1. */
static int traffic(struct timingwheel_batch *b, int round)
{
	uint64_t now = timingwheel_now(CLOCK_MONOTONIC);
	int i;

	for (i = 0; i < NCONN; i++) {
		if (!conns[i].open || conns[i].timed_out)
			continue;
		if (round == 1 && i % 10 == 5) {
			conns[i].open = 0;
			if (queue(b, 1, i, 0))
				return 1;
		} else if (i % 2 == 0) {
			conns[i].last_traffic = now;
			if (queue(b, 0, i, TWHEEL_TIMER_REPLACE))
				return 1;
		}
	}
	return submit(b);
}

/*
 * The edge-triggered drain rule: after each wakeup, read until -EAGAIN.
 * An edge is reported once per batch of queued events; what is left unread
 * after it would wait for the next edge, which may never come.
 */
static int drain(int fd, int *expired)
{
	struct twheel_event ev[READ_EVENTS];
	uint64_t floor;
	ssize_t n, i;
	int id;

	for (;;) {
		n = timingwheel_read(fd, ev, READ_EVENTS);
		if (n == -EAGAIN)
			return 0;
		if (n == -EINTR)
			continue;
		if (n < 0)
			return fail("read", n);
		for (i = 0; i < n; i++) {
			id = (int)ev[i].id;
			if (ev[i].id >= NCONN || !conns[id].open || conns[id].timed_out) {
				fprintf(stderr, "idle_server: unexpected expiry of %llu\n",
					(unsigned long long)ev[i].id);
				return 1;
			}
			/* The last traffic's time was read before its re-arm. */
			floor = conns[id].last_traffic + IDLE_MS * MS;
			if (ev[i].fired < floor) {
				fprintf(stderr, "idle_server: %d timed out %llu ns early\n", id,
					(unsigned long long)(floor - ev[i].fired));
				return 1;
			}
			conns[id].timed_out = 1;	/* the server closes it here */
			(*expired)++;
		}
	}
}

static int serve(int fd, int epfd)
{
	struct timingwheel_batch b;
	struct epoll_event ee;
	uint64_t start, now, deadline, next_round;
	int round = 0, expired = 0, closed = 0, i, n, ms;

	timingwheel_batch_init(&b, fd, ops, BATCH);
	start = timingwheel_now(CLOCK_MONOTONIC);
	for (i = 0; i < NCONN; i++) {
		conns[i] = (struct conn){ .last_traffic = start, .open = 1 };
		if (queue(&b, 0, i, 0))
			return 1;
	}
	if (submit(&b))
		return 1;
	next_round = start + ROUND_MS * MS;
	deadline = start + (ROUNDS * ROUND_MS + IDLE_MS + SLACK_MS + 2000) * MS;
	while (round < ROUNDS || expired + closed < NCONN) {
		now = timingwheel_now(CLOCK_MONOTONIC);
		if (now >= deadline) {
			fprintf(stderr, "idle_server: %d closed, %d of the others timed out\n",
				closed, expired);
			return 1;
		}
		if (round < ROUNDS && now >= next_round) {
			if (traffic(&b, ++round))
				return 1;
			next_round += ROUND_MS * MS;
			for (closed = 0, i = 0; i < NCONN; i++)
				closed += !conns[i].open;
			continue;
		}
		ms = (int)(((round < ROUNDS ? next_round : deadline) - now + MS - 1) / MS);
		n = epoll_wait(epfd, &ee, 1, ms);
		if (n < 0 && errno != EINTR)
			return fail("epoll_wait", -errno);
		if (n > 0 && drain(fd, &expired))
			return 1;
	}
	for (i = 0; i < NCONN; i++) {
		if (conns[i].open != conns[i].timed_out) {
			fprintf(stderr, "idle_server: connection %d: open %d, timed out %d\n",
				i, conns[i].open, conns[i].timed_out);
			return 1;
		}
	}
	printf("idle_server: %d connections, %d closed, %d timed out, in %llu ms\n",
	       NCONN, closed, expired,
	       (unsigned long long)((timingwheel_now(CLOCK_MONOTONIC) - start) / MS));
	return 0;
}

int main(void)
{
	struct epoll_event ee = { .events = EPOLLIN | EPOLLET };
	int fd, epfd, ret;

	fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "idle_server: %s: %s\n", TIMINGWHEEL_DEVICE,
			timingwheel_strerror(fd));
		return fd == -ENOENT || fd == -ENODEV ? 2 : 1;
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ee))
		return fail("epoll", -errno);
	ret = serve(fd, epfd);
	close(epfd);
	close(fd);
	return ret;
}
