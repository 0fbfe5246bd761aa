/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libtimingwheel: a thin C library over /dev/timingwheel.
 *
 * Every function returns 0, a count or a positive result on success and a
 * negative errno on failure; none sets errno as its only report, and none
 * allocates memory.  The structs are the kernel's own, from
 * <linux/timingwheel.h>; Documentation/timingwheel/uapi.rst and
 * timingwheel(4) describe the device.
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

/* twheel_op.result of a batch entry the kernel did not get to. */
#define TIMINGWHEEL_RESULT_NONE	INT32_MIN

/**
 * timingwheel_open - open a client of the device
 * @clockid:       CLOCK_MONOTONIC or CLOCK_BOOTTIME; 0 keeps the default
 *                 (CLOCK_MONOTONIC)
 * @resolution_ns: the tick, TWHEEL_MIN_RESOLUTION_NS..TWHEEL_MAX_RESOLUTION_NS
 *                 ns; 0 keeps the module's default
 * @flags:         0, O_NONBLOCK and/or O_CLOEXEC
 *
 * Opens TIMINGWHEEL_DEVICE and applies TWHEEL_IOC_SET_CONFIG when @clockid
 * or @resolution_ns asks for something; on any failure the file is closed.
 *
 * Return: the file descriptor, or -EINVAL (other @flags, a clock or
 * resolution the device refuses), -ENOENT (no device: module not loaded),
 * -EMFILE (the user's max_user_files, or the process's fd limit), or
 * another errno of open(2).
 */
int timingwheel_open(clockid_t clockid, uint64_t resolution_ns, int flags);

/**
 * timingwheel_config - choose the clock and resolution of a new client
 * @fd:            the client, before its first timer
 * @clockid:       CLOCK_MONOTONIC or CLOCK_BOOTTIME; 0 means CLOCK_MONOTONIC
 * @resolution_ns: the tick, TWHEEL_MIN_RESOLUTION_NS..TWHEEL_MAX_RESOLUTION_NS
 *                 ns; 0 keeps the current one
 *
 * TWHEEL_IOC_SET_CONFIG; timingwheel_open() calls it for its arguments.
 *
 * Return: 0, or -EINVAL (another clock, a resolution out of range), -EBUSY
 * (a timer was started on @fd before), -EBADF, -ENOTTY.
 */
int timingwheel_config(int fd, clockid_t clockid, uint64_t resolution_ns);

/**
 * timingwheel_start - start timer @id (TWHEEL_IOC_START)
 * @fd:          the client
 * @id:          the caller's name for the timer
 * @value_ns:    ns from now, or a time on the client's clock with
 *               TWHEEL_TIMER_ABSTIME
 * @interval_ns: period of a periodic timer, 0 for a one-shot
 * @slack_ns:    a one-shot may fire up to this much after @value_ns
 * @flags:       TWHEEL_TIMER_ABSTIME, TWHEEL_TIMER_REPLACE
 *
 * Return: 0, or -EEXIST (@id in use, no TWHEEL_TIMER_REPLACE), -ERANGE
 * (beyond the wheel's range), -EINVAL (bad flags, @interval_ns not a
 * multiple of the resolution), -ENOSPC (max_timers or max_user_timers
 * reached), -ENOMEM, -EBUSY (replacing a timer whose event is being read:
 * retry), -EBADF, -ENOTTY.
 */
int timingwheel_start(int fd, uint64_t id, uint64_t value_ns,
		      uint64_t interval_ns, uint64_t slack_ns, unsigned int flags);

/**
 * timingwheel_start_after - start one-shot timer @id @ns from now
 * @fd: the client
 * @id: the timer
 * @ns: ns from now
 *
 * Return: as timingwheel_start().
 */
int timingwheel_start_after(int fd, uint64_t id, uint64_t ns);

/**
 * timingwheel_stop - stop timer @id (TWHEEL_IOC_STOP)
 * @fd: the client
 * @id: the timer
 *
 * Return: TWHEEL_STOPPED_PENDING (it had not fired), TWHEEL_STOPPED_EXPIRED
 * (it had fired; its unread event is withdrawn), or -ENOENT (no such
 * timer, or its last event was read), -EBADF, -ENOTTY.
 */
int timingwheel_stop(int fd, uint64_t id);

/**
 * timingwheel_query - the state of timer @id (TWHEEL_IOC_QUERY)
 * @fd: the client
 * @id: the timer
 * @q:  filled in: due, remaining, interval, state (TWHEEL_STATE_*)
 *
 * Return: 0, or -ENOENT (no such timer), -EBADF, -ENOTTY.
 */
int timingwheel_query(int fd, uint64_t id, struct twheel_query *q);

/**
 * timingwheel_info - the client's settings and counters (TWHEEL_IOC_GET_INFO)
 * @fd:   the client
 * @info: filled in
 *
 * Return: 0, or -EBADF, -ENOTTY (not the device).
 */
int timingwheel_info(int fd, struct twheel_info *info);

/**
 * timingwheel_has_feature - whether the running module offers @feature
 * @fd:      the client
 * @feature: one or more TWHEEL_FEATURE_* bits
 *
 * A module that reports no abi_version (an older one) offers none.
 *
 * Return: 1 if every bit of @feature is offered, 0 if not, -EINVAL for
 * @feature 0, or an error of timingwheel_info().
 */
int timingwheel_has_feature(int fd, uint64_t feature);

/**
 * struct timingwheel_batch - starts and stops queued for one submission
 * @fd:    the client they go to
 * @ops:   the caller's array of entries; each entry's result is written
 *         by timingwheel_batch_submit()
 * @cap:   how many entries @ops holds (at most INT_MAX are used)
 * @count: how many are queued
 *
 * The library never allocates: @ops is the caller's memory.
 */
struct timingwheel_batch {
	int			fd;
	struct twheel_op	*ops;
	unsigned int		cap;
	unsigned int		count;
};

/**
 * timingwheel_batch_init - set up an empty batch over caller-owned @ops
 * @b:   the batch
 * @fd:  the client
 * @ops: storage for @cap entries
 * @cap: its size in entries
 */
void timingwheel_batch_init(struct timingwheel_batch *b, int fd,
			    struct twheel_op *ops, unsigned int cap);

/**
 * timingwheel_batch_start - queue a start (arguments as timingwheel_start())
 * @b:           the batch
 * @id:          the timer
 * @value_ns:    when
 * @interval_ns: period, 0 for one-shot
 * @slack_ns:    one-shot slack
 * @flags:       TWHEEL_TIMER_*
 *
 * The entry's result is TIMINGWHEEL_RESULT_NONE until it is applied.
 *
 * Return: 0, or -ENOSPC when the batch is full.
 */
int timingwheel_batch_start(struct timingwheel_batch *b, uint64_t id,
			    uint64_t value_ns, uint64_t interval_ns,
			    uint64_t slack_ns, unsigned int flags);

/**
 * timingwheel_batch_stop - queue a stop
 * @b:  the batch
 * @id: the timer
 *
 * Return: 0, or -ENOSPC when the batch is full.
 */
int timingwheel_batch_stop(struct timingwheel_batch *b, uint64_t id);

/**
 * timingwheel_batch_submit - apply every queued entry (TWHEEL_IOC_BATCH)
 * @b: the batch
 *
 * Submits the entries in order, in calls of at most TWHEEL_BATCH_MAX.
 * Each applied entry's result is 0 (a start), TWHEEL_STOPPED_* (a stop) or
 * a negative errno of timingwheel_start()/timingwheel_stop(); a failed
 * entry does not stop the others.  The queue is left as it was: call
 * timingwheel_batch_reset() before queueing the next batch.
 *
 * The kernel stops early only for a fatal signal (EINTR), no memory for
 * its buffer (ENOMEM) or a bad array (EFAULT); the entries before were
 * applied.  Then the entries not applied have result
 * TIMINGWHEEL_RESULT_NONE and the call returns how many were applied
 * (fewer than @b->count), or the error if none was.
 *
 * Return: the number of entries applied (@b->count when all were), or
 * -EINTR, -ENOMEM, -EFAULT, -EBADF, -ENOTTY with nothing applied.
 */
int timingwheel_batch_submit(struct timingwheel_batch *b);

/**
 * timingwheel_batch_reset - empty the batch, keeping its storage
 * @b: the batch
 */
void timingwheel_batch_reset(struct timingwheel_batch *b);

/**
 * timingwheel_read - read up to @max_events events
 * @fd:         the client
 * @ev:         where they go
 * @max_events: room in @ev
 *
 * Blocks while none waits, unless @fd is O_NONBLOCK.
 *
 * Return: the number of events read (at least 1), or -EAGAIN (non-blocking,
 * none waiting), -EINTR (a signal while blocked), -EINVAL (@max_events 0),
 * -EFAULT, -EBADF.
 */
ssize_t timingwheel_read(int fd, struct twheel_event *ev, size_t max_events);

/**
 * timingwheel_now - the time on @clockid, in ns, as the device counts it
 * @clockid: CLOCK_MONOTONIC or CLOCK_BOOTTIME (the client's clock)
 *
 * Return: the time in ns, or 0 if @clockid is not a clock.
 */
uint64_t timingwheel_now(clockid_t clockid);

/**
 * timingwheel_strerror - what error @err means for this device
 * @err: an errno, negative (as returned) or positive
 *
 * Return: a static string, never NULL.
 */
const char *timingwheel_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBTIMINGWHEEL_H */
