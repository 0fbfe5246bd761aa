// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: The timers' share of a memory cgroup
 *
 * Timers are slab objects charged to the caller's memory cgroup, which no
 * reclaim can free.  Were they allowed to fill a cgroup up to memory.max,
 * a START would fail with ENOMEM as promised, but the next page fault or
 * allocation of any process in that cgroup, with nothing left to reclaim,
 * would run the cgroup's OOM killer: on the timers' behalf, and not
 * necessarily on their holder.  So the timers of a cgroup may take only a
 * share of its limit, memcg_max_percent (default 50, 0: no share), and
 * the rest stays for its processes.
 *
 * Usage is no guide: a cgroup doing file I/O sits at memory.max with
 * reclaimable page cache, so a check of usage against the limit would
 * refuse timers for ever there, and a module cannot ask the cgroup how
 * much of its usage is timers.  So what is counted is the timingwheel's
 * own: the timers of the caller's user, in all its files (the count that
 * max_user_timers limits, spares being started included), each at
 * TW_TIMER_COST plus the pointer the memory cgroup keeps with every object
 * it charges (obj_full_size() in mm/memcontrol.c): 72 bytes.  A START
 * that would bring that beyond the share of memory.max of the caller's
 * cgroup, or of any of its ancestors, fails with ENOMEM.  The cgroup is
 * the one of the caller's mm (get_mem_cgroup_from_mm()), the one its
 * timers are charged to; a cgroup without a limit ("max") sets no share.
 *
 * The count is the user's, not the cgroup's: timers of one user in other
 * cgroups count too (a share is then refused early, never late), and
 * several users in one cgroup may each take the share.  It is exact as
 * far as the kernel charges 72 bytes a timer; a kernel that pads slab
 * objects (KASAN, slub_debug) charges more, and the share is larger there
 * by as much.  Like max_user_timers, the count is read before a chunk's
 * timers are allocated, so calls of one user that run at the same moment
 * may each take up to a chunk (TW_CHUNK timers) beyond it.
 */

#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/page_counter.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "tw_memcg.h"

static unsigned int memcg_max_percent = 50;
module_param(memcg_max_percent, uint, 0644);
MODULE_PARM_DESC(memcg_max_percent,
		 "most timers may take of a memory cgroup's memory.max, in % (default 50, 0: no limit)");

/*
 * @pct percent of @memcg's own memory.max, in bytes; U64_MAX if it has no
 * limit.  memory.max is read as mm/memcontrol.c writes it (xchg), from the
 * struct page_counter that <linux/memcontrol.h> gives every kernel since
 * 5.x, 6.1 and 6.12 alike.
 */
static u64 tw_memcg_share(struct mem_cgroup *memcg, unsigned int pct)
{
	unsigned long max = READ_ONCE(memcg->memory.max);

	if (max >= PAGE_COUNTER_MAX)
		return U64_MAX;
	/* Below 2^51 pages times 100: no overflow, nor once in bytes. */
	return div_u64((u64)max * pct, 100) << PAGE_SHIFT;
}

/**
 * tw_memcg_room - what the caller's memory cgroups let one user's timers
 *                 and files hold
 *
 * Looks at the calling task's memory cgroup and each of its ancestors
 * ("DOC: The timers' share of a memory cgroup").
 *
 * Context: process context.
 * Return: the least memcg_max_percent share of their memory.max, in bytes;
 * U64_MAX where none sets one.
 */
u64 tw_memcg_room(void)
{
	unsigned int pct = min(READ_ONCE(memcg_max_percent), 100U);
	struct mem_cgroup *m;
	u64 room = U64_MAX;

	if (!pct || mem_cgroup_disabled())
		return U64_MAX;
	/* RCU keeps the task's cgroup and, through it, its ancestors. */
	rcu_read_lock();
	for (m = mem_cgroup_from_task(current); m; m = parent_mem_cgroup(m))
		room = min(room, tw_memcg_share(m, pct));
	rcu_read_unlock();
	return room;
}
