/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for tw_ring_hdr.h: the kernel's barriers as C11 fences.
 */
#ifndef _TW_SB_BARRIER_H
#define _TW_SB_BARRIER_H

/* The full barrier: x86's mfence, as strong as the kernel's locked add. */
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* Stores before stores: x86 keeps that order anyway. */
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#endif
