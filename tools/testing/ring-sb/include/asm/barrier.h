/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for tw_ring_hdr.h: the kernel's barriers as C11 fences.
 * smp_mb() is the full barrier (x86: mfence, as strong as the kernel's
 * locked add); smp_wmb() orders stores before stores.
 */
#ifndef _TW_SB_BARRIER_H
#define _TW_SB_BARRIER_H

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#endif
