/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timers' share of a memory cgroup: the interface.  See tw_memcg.c.
 *
 * A kernel without memory cgroups (CONFIG_MEMCG unset, as a UML kernel may
 * be) builds no tw_memcg.o, and every start is allowed here.
 */
#ifndef _TW_MEMCG_H
#define _TW_MEMCG_H

#include <linux/types.h>

#ifdef CONFIG_MEMCG
unsigned int tw_memcg_allow(unsigned long held, unsigned int n, size_t cost);
#else
static inline unsigned int tw_memcg_allow(unsigned long held, unsigned int n,
					  size_t cost)
{
	return n;
}
#endif

#endif /* _TW_MEMCG_H */
