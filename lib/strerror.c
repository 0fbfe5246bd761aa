// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * timingwheel_strerror(): what each errno of /dev/timingwheel means
 * (Documentation/timingwheel/uapi.rst), rather than libc's generic text.
 */
#include <errno.h>

#include "libtimingwheel.h"

#define TW_EXPORT	__attribute__((visibility("default")))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const tw_errors[] = {
	[EPERM]		= "operation not permitted",
	[ENOENT]	=
		"no such timer (stopped, or its last event read); from open: no /dev/timingwheel, module not loaded (modprobe timingwheel)",
	[EINTR]		= "a blocking read was interrupted by a signal",
	[EIO]		= "the device returned a partial event record",
	[EBADF]		= "not an open file descriptor",
	[EAGAIN]	=
		"no event waiting on a non-blocking file; from slot_get: a slot is being put back by another thread, try again",
	[ENOMEM]	= "out of memory, or the memory cgroup is at its limit",
	[EACCES]	=
		"permission denied opening /dev/timingwheel: see the udev rule and group in packaging.rst",
	[EFAULT]	= "a bad pointer was passed to the device",
	[EBUSY]		=
		"its event is being read now (retry); or config or rings after the first timer; from a ring call: results wait for CQ room, consume completions",
	[EEXIST]	=
		"the timer id or ring slot is in use; TWHEEL_TIMER_REPLACE re-arms it; from ring setup: the file has rings already",
	[ENODEV]	=
		"from a ring call: the file has no rings (set them up first); from open: no timingwheel device behind /dev/timingwheel, module not loaded (modprobe timingwheel)",
	[EINVAL]	= "unknown flag or op, reserved field set, bad clock, resolution, interval",
	[EMFILE]	= "too many open files: the user's max_user_files, or the process's limit",
	[ENOTTY]	= "not a timingwheel file, or an ioctl this module does not know",
	[ENOSPC]	=
		"timer limit: the file's max_timers or the user's max_user_timers; from slot_get: every slot of the SQ's share is taken",
	[ERANGE]	= "the expiry is beyond the wheel's range (range_ns)",
	[EOPNOTSUPP]	=
		"rings on a kernel without them, or a periodic entry on rings set up without periodic slots",
	[EBADFD]	=
		"the file's rings are broken: their shared memory was corrupted (close the file)",
};

TW_EXPORT const char *timingwheel_strerror(int err)
{
	/* Unsigned, so that INT_MIN has an absolute value too. */
	unsigned int e = err < 0 ? 0U - (unsigned int)err : (unsigned int)err;

	if (!e)
		return "success";
	if (e < ARRAY_SIZE(tw_errors) && tw_errors[e])
		return tw_errors[e];
	return "unknown error";
}
