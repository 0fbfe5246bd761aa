/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A keyed 32-bit hash with hsiphash's interface.  Not SipHash: the
 * userspace tests need a hash that spreads ids and depends on the key, not
 * one that resists an attacker.
 */
#ifndef _TW_SHIM_SIPHASH_H
#define _TW_SHIM_SIPHASH_H

#include <linux/types.h>

struct tw_shim_hsiphash_key {
	unsigned long key[2];
};

#define hsiphash_key_t		struct tw_shim_hsiphash_key

#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)((u64)(n) >> 32))
/* One thread in userspace: no race to annotate. */
#define data_race(expr)		(expr)

static inline u32 hsiphash_2u32(u32 a, u32 b, const hsiphash_key_t *key)
{
	u64 h = ((u64)b << 32 | a) ^ key->key[0];

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL ^ key->key[1];
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return (u32)(h ^ h >> 33);
}

#endif
