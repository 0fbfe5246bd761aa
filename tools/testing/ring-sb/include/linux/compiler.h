/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for tw_ring_hdr.h: the kernel's READ_ONCE() and
 * WRITE_ONCE(), volatile accesses of a whole word, and barrier(), the
 * compiler's alone.
 */
#ifndef _TW_SB_COMPILER_H
#define _TW_SB_COMPILER_H

#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#endif
