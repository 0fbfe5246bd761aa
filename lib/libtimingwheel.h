/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libtimingwheel: a thin C library over /dev/timingwheel.
 *
 * Every function returns 0, a count or a positive result on success and a
 * negative errno on failure; none sets errno as its only report, and none
 * allocates memory.  The structs are the kernel's own, from
 * <linux/timingwheel.h>.
 *
 * The reference is the manual: libtimingwheel(3) for an overview, a page
 * per function (timingwheel_open(3), timingwheel_start(3), ...) for its
 * arguments, return value and errors, and timingwheel(4) for the device.
 * The comments here only say what each declaration is.
 */
#ifndef LIBTIMINGWHEEL_H
#define LIBTIMINGWHEEL_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <linux/timingwheel.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIMINGWHEEL_DEVICE	"/dev/timingwheel"

/*
 * The clockid of timingwheel_open(3) and timingwheel_config(3) that asks
 * for the default clock, CLOCK_MONOTONIC.  (In libtimingwheel 0.1.0 a
 * clockid of 0 meant that; 0 is CLOCK_REALTIME, now refused: -EINVAL.)
 * -1 can never be a valid clockid: a negative clockid is a CPU-time clock
 * (low 3 bits: bit 2 per-thread, bits 0-1 which clock, 0 to 2) or, with
 * low bits 3, a file descriptor's clock; -1's low bits are 7, a per-thread
 * clock number 3, which the kernel refuses (clock_gettime(-1, ...) fails
 * with EINVAL).
 */
#define TIMINGWHEEL_CLOCK_DEFAULT	((clockid_t)-1)

/* twheel_op.result of a batch entry the kernel did not get to. */
#define TIMINGWHEEL_RESULT_NONE	INT32_MIN

/* timingwheel_open(3): open a client of the device. */
int timingwheel_open(clockid_t clockid, uint64_t resolution_ns, int flags);

/* timingwheel_config(3): choose the clock and resolution of a new client. */
int timingwheel_config(int fd, clockid_t clockid, uint64_t resolution_ns);

/* timingwheel_start(3): start timer @id (TWHEEL_IOC_START). */
int timingwheel_start(int fd, uint64_t id, uint64_t value_ns,
		      uint64_t interval_ns, uint64_t slack_ns, unsigned int flags);

/* timingwheel_start_after(3): start one-shot timer @id @ns from now. */
int timingwheel_start_after(int fd, uint64_t id, uint64_t ns);

/* timingwheel_stop(3): stop timer @id (TWHEEL_IOC_STOP). */
int timingwheel_stop(int fd, uint64_t id);

/* timingwheel_query(3): the state of timer @id (TWHEEL_IOC_QUERY). */
int timingwheel_query(int fd, uint64_t id, struct twheel_query *q);

/* timingwheel_info(3): the client's settings and counters. */
int timingwheel_info(int fd, struct twheel_info *info);

/* timingwheel_has_feature(3): whether the running module offers @feature. */
int timingwheel_has_feature(int fd, uint64_t feature);

/* The batch of timingwheel_batch_init(3): the caller owns @ops. */
struct timingwheel_batch {
	int			fd;
	struct twheel_op	*ops;
	unsigned int		cap;
	unsigned int		count;
};

/* timingwheel_batch_init(3): set up an empty batch over caller-owned @ops. */
void timingwheel_batch_init(struct timingwheel_batch *b, int fd,
			    struct twheel_op *ops, unsigned int cap);

/* timingwheel_batch_init(3): queue a start. */
int timingwheel_batch_start(struct timingwheel_batch *b, uint64_t id,
			    uint64_t value_ns, uint64_t interval_ns,
			    uint64_t slack_ns, unsigned int flags);

/* timingwheel_batch_init(3): queue a stop. */
int timingwheel_batch_stop(struct timingwheel_batch *b, uint64_t id);

/* timingwheel_batch_init(3): apply every queued entry. */
int timingwheel_batch_submit(struct timingwheel_batch *b);

/* timingwheel_batch_init(3): empty the batch, keeping its storage. */
void timingwheel_batch_reset(struct timingwheel_batch *b);

/* timingwheel_read(3): read up to @max_events events. */
ssize_t timingwheel_read(int fd, struct twheel_event *ev, size_t max_events);

/* timingwheel_now(3): the time on @clockid, in ns, as the device counts it. */
uint64_t timingwheel_now(clockid_t clockid);

/* timingwheel_strerror(3): what error @err means for this device. */
const char *timingwheel_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBTIMINGWHEEL_H */
