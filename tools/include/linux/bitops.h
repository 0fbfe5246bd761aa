/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_BITOPS_H
#define _TW_SHIM_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

static inline unsigned int __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

/* Bits needed to hold @word: 0 for 0, 64 for the top bit set. */
static inline unsigned int fls64(u64 word)
{
	return word ? 64 - __builtin_clzll(word) : 0;
}

#endif
