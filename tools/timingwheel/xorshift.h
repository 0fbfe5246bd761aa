/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks' random numbers: xorshift64*, seeded by the caller, so
 * that every run of a benchmark makes the same sequence of operations.
 */
#ifndef _TW_XORSHIFT_H
#define _TW_XORSHIFT_H

#include <stdint.h>

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

#endif
