// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * tw_hosttest: what libtimingwheel decides without the device, run on the
 * build host (make -C lib test; scripts/lint.sh), 64- and 32-bit.  Bad
 * arguments are refused with -EINVAL before /dev/timingwheel is opened,
 * so the error is the same with or without the module; CLOCK_REALTIME (0)
 * is one of them, not the default clock.  Where the device is missing, a
 * good open fails with -ENOENT; and timingwheel_strerror() says what an
 * open's errors mean; timingwheel_ring_init() fails cleanly without
 * a device.  Each check prints "ok N name" or "not ok N name";
 * the exit status is 0 only if all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libtimingwheel.h"

static unsigned int n, failed;

static void check(int ok, const char *name, long long got)
{
	n++;
	if (!ok) {
		failed++;
		printf("# %s: got %lld (%s)\n", name, got,
		       got < 0 ? timingwheel_strerror((int)got) : "");
	}
	printf("%s %u %s\n", ok ? "ok" : "not ok", n, name);
}

/* @call returns @want; a returned fd is closed. */
#define CHECK_RET(call, want) do {					\
	long long __r = (call), __w = (want);				\
	check(__r == __w, #call, __r);					\
	if (__r >= 0 && __w < 0)					\
		close((int)__r);					\
} while (0)

/* timingwheel_strerror(@err) says @text. */
static void check_text(int err, const char *text)
{
	char name[160];

	snprintf(name, sizeof(name), "timingwheel_strerror(%d) says \"%s\"", err, text);
	check(!!strstr(timingwheel_strerror(err), text), name, err);
}

int main(void)
{
	const clockid_t def = TIMINGWHEEL_CLOCK_DEFAULT;
	struct twheel_ring_setup setup = {
		.capacity = 16, .nr_sq = 1, .sq_entries = 8, .cq_entries = 32,
	};
	struct timingwheel_ring ring;
	struct timespec ts;
	uint64_t a, b;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Refused before the open: the same with the module or without. */
	CHECK_RET(timingwheel_open(CLOCK_REALTIME, 0, 0), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_REALTIME, 0, O_NONBLOCK | O_CLOEXEC), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_REALTIME, 1000000, 0), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_TAI, 0, 0), -EINVAL);
	CHECK_RET(timingwheel_open((clockid_t)-2, 0, 0), -EINVAL);
	CHECK_RET(timingwheel_open(def, TWHEEL_MIN_RESOLUTION_NS - 1, 0), -EINVAL);
	CHECK_RET(timingwheel_open(def, TWHEEL_MAX_RESOLUTION_NS + 1, 0), -EINVAL);
	CHECK_RET(timingwheel_open(CLOCK_BOOTTIME, 5, 0), -EINVAL);
	CHECK_RET(timingwheel_open(def, 0, O_APPEND), -EINVAL);
	/* No ioctl either: -EINVAL, not the bad descriptor's -EBADF. */
	CHECK_RET(timingwheel_config(-1, CLOCK_REALTIME, 0), -EINVAL);
	CHECK_RET(timingwheel_config(-1, def, TWHEEL_MAX_RESOLUTION_NS + 1), -EINVAL);
	CHECK_RET(timingwheel_config(-1, def, 0), -EBADF);
	CHECK_RET(timingwheel_config(-1, CLOCK_BOOTTIME, TWHEEL_MAX_RESOLUTION_NS), -EBADF);
	/* The ring API: no ring, a bad descriptor, and not the device. */
	CHECK_RET(timingwheel_ring_init(-1, NULL, &ring), -EBADF);
	CHECK_RET(timingwheel_ring_init(-1, &setup, NULL), -EINVAL);
	CHECK_RET(timingwheel_ring_init(-1, &setup, &ring), -EBADF);
	check(!ring.hdr && !ring.sqs && !timingwheel_ring_sq(&ring, 0),
	      "a failed timingwheel_ring_init() leaves nothing mapped", 0);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	CHECK_RET(timingwheel_ring_init(fd, &setup, &ring), -ENOTTY);
	/* Attaching asks the file first: no mapping of what is not the device. */
	CHECK_RET(timingwheel_ring_init(fd, NULL, &ring), -ENOTTY);
	close(fd);

	if (access(TIMINGWHEEL_DEVICE, F_OK) && errno == ENOENT) {
		CHECK_RET(timingwheel_open(def, 0, 0), -ENOENT);
		CHECK_RET(timingwheel_open(CLOCK_BOOTTIME, TWHEEL_MIN_RESOLUTION_NS,
					   O_CLOEXEC), -ENOENT);
	} else {
		printf("# %s exists: the opens that need it missing are skipped\n",
		       TIMINGWHEEL_DEVICE);
	}

	check_text(-ENOENT, "no such timer");
	check_text(-ENOENT, "module not loaded (modprobe timingwheel)");
	check_text(-ENODEV, "modprobe timingwheel");
	check_text(-ENODEV, "the file has no rings");
	check_text(-EBADFD, "rings are broken");
	check_text(-EOPNOTSUPP, "without periodic slots");
	check_text(-EACCES, "udev rule and group in packaging.rst");

	/* The default is no clock of the kernel's, and stands for MONOTONIC. */
	check(clock_gettime(def, &ts) == -1 && errno == EINVAL,
	      "clock_gettime(TIMINGWHEEL_CLOCK_DEFAULT) fails with EINVAL", errno);
	a = timingwheel_now(CLOCK_MONOTONIC);
	b = timingwheel_now(def);
	check(a && b >= a && b - a < 1000000000ULL,
	      "timingwheel_now(TIMINGWHEEL_CLOCK_DEFAULT) is CLOCK_MONOTONIC",
	      (long long)(b - a));

	printf("1..%u\n# tw_hosttest: passed=%u failed=%u\n", n, n - failed, failed);
	return failed ? 1 : 0;
}
