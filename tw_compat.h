/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels timingwheel builds against lives
 * here: Debian's 6.1 and 6.12 (amd64, cloud-amd64, rt-amd64) and the 6.12
 * UML kernel of the test suite.  Features are tested, not versions: Kbuild
 * looks for each one in the target kernel's headers and defines TW_HAVE_*.
 */
#ifndef _TW_COMPAT_H
#define _TW_COMPAT_H

#include <linux/hrtimer.h>
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

#endif /* _TW_COMPAT_H */
