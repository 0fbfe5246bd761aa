/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels timingwheel builds against lives
 * here: Debian's 6.1 and 6.12 (amd64, cloud-amd64, rt-amd64) and the 6.12
 * UML kernel of the test suite.  Test by feature where a macro exists to
 * test; by version only where the kernel offers nothing else.
 */
#ifndef _TW_COMPAT_H
#define _TW_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/version.h>

/*
 * hrtimer_setup() arrived in 6.13 and hrtimer_init() is gone from 6.15.
 * Neither is a macro, and Debian backported neither, so only the version
 * can tell.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
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

#endif /* _TW_COMPAT_H */
