/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timers' share of a memory cgroup: the interface.  See tw_memcg.c.
 *
 * A kernel without memory cgroups (CONFIG_MEMCG unset, as a UML kernel may
 * be) builds no tw_memcg.o, and every start is allowed here.
 */
#ifndef _TW_MEMCG_H
#define _TW_MEMCG_H

#include <linux/limits.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* What the memory cgroup adds to each object it charges. */
#define TW_MEMCG_OBJ_EXTRA	sizeof(void *)
/*
 * A file's own memory, counted in the share: no less than the 16,440
 * bytes a file may hold beside its timers (uapi.rst).
 */
#define TW_MEMCG_FILE_COST	(SZ_16K + 64)

#ifdef CONFIG_MEMCG
u64 tw_memcg_room(void);
#else
static inline u64 tw_memcg_room(void)
{
	return U64_MAX;
}
#endif

#endif /* _TW_MEMCG_H */
