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

#endif /* _TW_COMPAT_H */
