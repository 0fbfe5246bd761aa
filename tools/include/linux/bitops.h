/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_BITOPS_H
#define _TW_SHIM_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

static inline unsigned int __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

/*
 * Bits needed to hold @word: 0 for 0, 64 for the top bit set.  Spelt as the
 * index of the top bit plus one, which compilers make one bsr (or lzcnt
 * and an xor) and an addition, as x86's fls64() is in the kernel; written
 * as 64 - clz, it took two more instructions.
 */
static inline unsigned int fls64(u64 word)
{
	return word ? (__builtin_clzll(word) ^ 63) + 1 : 0;
}

#endif
