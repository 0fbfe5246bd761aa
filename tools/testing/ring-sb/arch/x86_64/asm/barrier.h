/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for tw_ring_hdr.h on x86-64: the kernel's barriers, no
 * stronger than the kernel's, or a barrier taken out of tw_ring_hdr.h
 * could hide behind one that is too strong here.  Another architecture
 * needs its own directory beside this one (tools/testing/ring-sb/Makefile).
 */
#ifndef _TW_SB_BARRIER_H
#define _TW_SB_BARRIER_H

#include <stdint.h>

/* The full barrier: mfence (the kernel's locked add is as strong). */
static inline void smp_mb(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Stores before stores: x86 keeps that order; the compiler must too. */
static inline void smp_wmb(void)
{
	barrier();
}

/* A cheap clock both CPUs share, for tw_ring_sb.c's start lines. */
static inline uint64_t sb_tick(void)
{
	return __builtin_ia32_rdtsc();
}

#endif
