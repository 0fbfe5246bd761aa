/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels timingwheel builds against lives
 * here: Debian's 6.1 and 6.12 (amd64, cloud-amd64, rt-amd64) and the 6.12
 * UML kernel of the test suite.  Features are tested, not versions: Kbuild
 * looks for each one in the target kernel's headers and defines TW_HAVE_*.
 */
#ifndef _TW_COMPAT_H
#define _TW_COMPAT_H

#include <linux/cacheinfo.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/time_namespace.h>

/*
 * hrtimer_setup() arrived in 6.13 and hrtimer_init() is gone from 6.15.
 * Kbuild greps the target's <linux/hrtimer.h> for it (TW_HAVE_*), which
 * also covers a distribution kernel that backports it.
 */
#ifndef TW_HAVE_HRTIMER_SETUP
static inline void tw_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#else
#define tw_hrtimer_setup	hrtimer_setup
#endif

/*
 * The offset of the calling task's time namespace on @clockid, in ns: what
 * it adds to the host's clock to get its own.  The kernel converts with
 * timens_ktime_to_host(), whose worker a module cannot call; the offsets
 * themselves are plain fields.  A kernel thread, or a task that has left
 * its namespaces while exiting, sees the host's clock.
 */
static inline s64 tw_timens_offset(clockid_t clockid)
{
#ifdef CONFIG_TIME_NS
	const struct timens_offsets *o;

	if (!current->nsproxy)
		return 0;
	o = &current->nsproxy->time_ns->offsets;
	return timespec64_to_ns(clockid == CLOCK_BOOTTIME ? &o->boottime :
							     &o->monotonic);
#else
	return 0;
#endif
}

/*
 * vm_flags became read-only behind vm_flags_set() and vm_flags_clear() in
 * 6.3; before, the mmap handler wrote the field, under the same lock.
 */
static inline void tw_vm_flags_mod(struct vm_area_struct *vma,
				   vm_flags_t set, vm_flags_t clear)
{
#ifdef TW_HAVE_VM_FLAGS_SET
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Whether the data cache aliases, so that the kernel's vmap() of a ring
 * and the user's mapping could disagree: no rings there.  6.9 added
 * cpu_dcache_is_aliasing(); before it, only the architectures known not
 * to alias get rings.
 */
static inline bool tw_dcache_is_aliasing(void)
{
#ifdef TW_HAVE_CPU_DCACHE_IS_ALIASING
	return cpu_dcache_is_aliasing();
#else
	return !IS_ENABLED(CONFIG_X86) && !IS_ENABLED(CONFIG_ARM64) &&
	       !IS_ENABLED(CONFIG_UML) && !IS_ENABLED(CONFIG_RISCV);
#endif
}

#endif /* _TW_COMPAT_H */
