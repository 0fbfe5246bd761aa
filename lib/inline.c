// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libtimingwheel: the header's inline functions as the library's own
 * exported symbols, for programs that look them up with dlsym() and for
 * bindings that call the shared library (lint checks that every function
 * the header defines or declares is exported).  Here the header's definitions take other
 * names, and each symbol calls its definition: the code is the header's.
 */
#define timingwheel_get_sqe		tw_inline_get_sqe
#define timingwheel_prep_start		tw_inline_prep_start
#define timingwheel_prep_periodic	tw_inline_prep_periodic
#define timingwheel_prep_stop		tw_inline_prep_stop
#define timingwheel_prep_start_in	tw_inline_prep_start_in
#include "libtimingwheel.h"
#undef timingwheel_get_sqe
#undef timingwheel_prep_start
#undef timingwheel_prep_periodic
#undef timingwheel_prep_stop
#undef timingwheel_prep_start_in

#define TW_EXPORT	__attribute__((visibility("default")))

TW_EXPORT struct twheel_sqe *timingwheel_get_sqe(struct timingwheel_sq *sq)
{
	return tw_inline_get_sqe(sq);
}

TW_EXPORT void timingwheel_prep_start(struct twheel_sqe *sqe, uint32_t slot,
				      uint16_t gen, uint64_t cookie,
				      uint64_t when_ns, uint64_t slack_ns,
				      unsigned int flags)
{
	tw_inline_prep_start(sqe, slot, gen, cookie, when_ns, slack_ns, flags);
}

TW_EXPORT void timingwheel_prep_periodic(struct twheel_sqe *sqe, uint32_t slot,
					 uint16_t gen, uint64_t cookie,
					 uint64_t first_ns, uint64_t period_ns,
					 unsigned int flags)
{
	tw_inline_prep_periodic(sqe, slot, gen, cookie, first_ns, period_ns,
				flags);
}

TW_EXPORT void timingwheel_prep_stop(struct twheel_sqe *sqe, uint32_t slot,
				     uint16_t gen, uint64_t cookie,
				     unsigned int flags)
{
	tw_inline_prep_stop(sqe, slot, gen, cookie, flags);
}

TW_EXPORT void timingwheel_prep_start_in(struct timingwheel_sq *sq,
					 struct twheel_sqe *sqe, uint32_t slot,
					 uint16_t gen, uint64_t cookie,
					 uint64_t delay_ns, uint64_t slack_ns,
					 unsigned int flags)
{
	tw_inline_prep_start_in(sq, sqe, slot, gen, cookie, delay_ns, slack_ns,
				flags);
}
