/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Division by a client's resolution, fixed while timers exist, by a
 * multiply.  A start converts its due time to a tick: a 64-bit divide
 * there was a sixth of a ring start's kernel time.
 *
 * With inv = floor((2^64 - 1) / d) = (2^64 - 1 - e) / d, where
 * e = (2^64 - 1) mod d, n * inv / 2^64 = n / d - n * (1 + e) / (d * 2^64),
 * and n < 2^64 and e < d make the second term less than 1: so
 * q0 = floor(n * inv / 2^64) is floor(n / d) or one below it, and one
 * correction makes it exact.
 */
#ifndef _TW_DIV_H
#define _TW_DIV_H

#include <linux/math64.h>

/*
 * The high half of @a * @b.  x86-64 kernels take one mulq for it (their
 * mul_u64_u64_shr(), asm/div64.h); x86-64 UML, where tw_kbench measures
 * the kernel side, has no such version and no ARCH_SUPPORTS_INT128, and
 * the generic one takes four 32-bit multiplies.  On any x86-64 build
 * GCC's 128-bit product is that one mulq, with no libgcc call.
 */
static __always_inline u64 tw_mul_hi(u64 a, u64 b)
{
#if defined(CONFIG_X86_64) && defined(__SIZEOF_INT128__)
	return (u64)(((__uint128_t)a * b) >> 64);
#else
	return mul_u64_u64_shr(a, b, 64);
#endif
}

/* The reciprocal of @d for tw_div(), @d >= 1. */
static inline u64 tw_div_inv(u64 d)
{
	return div64_u64(U64_MAX, d);
}

/* @n / @d and its remainder in *@rem, exact, for @inv = tw_div_inv(@d). */
static inline u64 tw_div(u64 n, u64 d, u64 inv, u64 *rem)
{
	u64 q = tw_mul_hi(n, inv);
	u64 m = n - q * d;

	if (m >= d) {
		q++;
		m -= d;
	}
	*rem = m;
	return q;
}

#endif /* _TW_DIV_H */
