/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for tw_ring_hdr.h: the kernel's READ_ONCE() and
 * WRITE_ONCE(), whole-word accesses the compiler neither tears nor merges,
 * and barrier(), the compiler's alone.
 */
#ifndef _TW_SB_COMPILER_H
#define _TW_SB_COMPILER_H

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline void barrier(void)
{
	__asm__ __volatile__("" : : : "memory");
}

#endif
