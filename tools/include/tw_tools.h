/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small helpers that timingwheel's userspace programs (tools/) share,
 * kept here once.  Plain C and libc: no kernel shim, no uapi header.
 */
#ifndef _TW_TOOLS_H
#define _TW_TOOLS_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Nanoseconds. */
#define MS		1000000ULL
#define SEC		1000000000ULL

/* ioctl returning its non-negative result, or -errno. */
static inline int tw_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* The time of the first tick of @res at or after @ns: a timer's due time. */
static inline uint64_t tick_up(uint64_t ns, uint64_t res)
{
	return (ns + res - 1) / res * res;
}

/*
 * xorshift64*, on the state @s, seeded by the caller: the same seed makes
 * the same sequence, so that a run can be replayed.
 */
static inline uint64_t xorshift64s(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

#endif
