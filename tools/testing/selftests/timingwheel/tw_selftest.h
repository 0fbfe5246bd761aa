/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of /dev/timingwheel share: tw_e2e, tw_fuzz and tw_libtest.
 * The helpers every program of tools/ shares (ARRAY_SIZE, MS, tw_ioctl,
 * tick_up, xorshift64s) are in tools/include/tw_tools.h, included here.
 */
#ifndef _TW_SELFTEST_H
#define _TW_SELFTEST_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <linux/timingwheel.h>
#include <libtimingwheel.h>

#include "tw_tools.h"

#define DEV		TIMINGWHEEL_DEVICE

/* Open the device with @flags besides O_RDWR | O_CLOEXEC, or exit 2. */
static inline int tw_open(int flags)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC | flags);

	if (fd < 0) {
		perror(DEV);
		exit(2);
	}
	return fd;
}

/* The ioctls stay raw, the ABI is under test; the clock is the library's. */
static inline uint64_t clock_ns(clockid_t id)
{
	return timingwheel_now(id);
}

#endif
