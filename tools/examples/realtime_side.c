// SPDX-License-Identifier: MIT
/*
 * realtime_side: wall-clock deadlines on the monotonic device, with a
 * timerfd as the side channel that says when the wall clock was set.
 *
 * /dev/timingwheel counts CLOCK_MONOTONIC (or CLOCK_BOOTTIME) only:
 * CLOCK_REALTIME is refused with EINVAL, because a wheel cannot follow the
 * wall clock's jumps.  A program that needs "at 09:00" converts the wall
 * time to the monotonic clock when it starts the timer, and must convert
 * again when the wall clock is set (settimeofday, NTP stepping it, a
 * suspend on some systems).  A timerfd on CLOCK_REALTIME with
 * TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET tells it: its read() fails
 * with ECANCELED whenever the clock is set.  The program then re-arms
 * each wall-clock timer with TWHEEL_TIMER_REPLACE at its new monotonic
 * time, and arms the timerfd again.
 *
 * Here: one wall-clock deadline WALL_MS from now, and an epoll loop over
 * the device and the timerfd; it ends when the deadline fires (exit 0),
 * or after 5 s (exit 1).  Exit status 2: no device.
 * Build: cc -o realtime_side realtime_side.c $(pkg-config --cflags --libs libtimingwheel)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libtimingwheel.h>

#define WALL_MS		50
#define DEADLINE_ID	1
#define NSEC		1000000000ULL

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

/* Start (or re-arm) the device's timer for wall-clock time @wall_ns. */
static int arm_wall(int fd, uint64_t wall_ns)
{
	uint64_t real = now_ns(CLOCK_REALTIME);
	uint64_t mono = timingwheel_now(CLOCK_MONOTONIC);
	uint64_t at = wall_ns > real ? mono + (wall_ns - real) : mono;

	return timingwheel_start(fd, DEADLINE_ID, at, 0, 0,
				 TWHEEL_TIMER_ABSTIME | TWHEEL_TIMER_REPLACE);
}

/*
 * Arm the side channel: an absolute CLOCK_REALTIME timer far in the
 * future, cancelled (read() fails with ECANCELED) when the clock is set.
 */
static int arm_side(int tfd)
{
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)1 << 40 } };

	return timerfd_settime(tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}

int main(void)
{
	struct epoll_event ee, dev = { .events = EPOLLIN, .data.u32 = 0 },
		side = { .events = EPOLLIN, .data.u32 = 1 };
	struct twheel_event ev;
	uint64_t wall, buf, end;
	int fd, tfd, epfd, ret, sets = 0;

	fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "realtime_side: %s\n", timingwheel_strerror(fd));
		return fd == -ENOENT || fd == -ENODEV ? 2 : 1;
	}
	tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (tfd < 0 || epfd < 0 || arm_side(tfd) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &dev) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &side)) {
		perror("realtime_side: timerfd or epoll");
		return 1;
	}
	wall = now_ns(CLOCK_REALTIME) + WALL_MS * 1000000ULL;
	ret = arm_wall(fd, wall);
	end = timingwheel_now(CLOCK_MONOTONIC) + 5 * NSEC;
	while (!ret && timingwheel_now(CLOCK_MONOTONIC) < end) {
		if (epoll_wait(epfd, &ee, 1, 100) <= 0)
			continue;
		if (ee.data.u32 == 1) {
			/* ECANCELED: the wall clock was set; convert again. */
			if (read(tfd, &buf, sizeof(buf)) < 0 && errno == ECANCELED) {
				sets++;
				ret = arm_wall(fd, wall);
				if (!ret && arm_side(tfd))
					ret = -errno;
			}
			continue;
		}
		if (timingwheel_read(fd, &ev, 1) == 1) {
			printf("realtime_side: fired %+.3f ms from the deadline (%d clock sets)\n",
			       ((double)now_ns(CLOCK_REALTIME) - (double)wall) / 1e6, sets);
			return 0;
		}
	}
	if (ret)
		fprintf(stderr, "realtime_side: start: %s\n", timingwheel_strerror(ret));
	else
		fprintf(stderr, "realtime_side: the deadline did not fire in 5 s\n");
	return 1;
}
