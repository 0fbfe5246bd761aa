// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libtimingwheel: thin wrappers around the ioctls and read() of
 * /dev/timingwheel (Documentation/timingwheel/uapi.rst).  No function
 * allocates; each returns a negative errno instead of setting errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libtimingwheel.h"

#define TW_EXPORT	__attribute__((visibility("default")))

static int tw_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/*
 * What the device would refuse with EINVAL, refused here first, so that the
 * error is right without the device (timingwheel_open() checks before it
 * opens); and TIMINGWHEEL_CLOCK_DEFAULT made the clock it stands for.
 */
static int tw_check_config(clockid_t *clockid, uint64_t resolution_ns)
{
	if (*clockid == TIMINGWHEEL_CLOCK_DEFAULT)
		*clockid = CLOCK_MONOTONIC;
	if (*clockid != CLOCK_MONOTONIC && *clockid != CLOCK_BOOTTIME)
		return -EINVAL;
	if (resolution_ns && (resolution_ns < TWHEEL_MIN_RESOLUTION_NS ||
			      resolution_ns > TWHEEL_MAX_RESOLUTION_NS))
		return -EINVAL;
	return 0;
}

TW_EXPORT int timingwheel_config(int fd, clockid_t clockid,
				 uint64_t resolution_ns)
{
	struct twheel_config cfg;
	int ret = tw_check_config(&clockid, resolution_ns);

	if (ret)
		return ret;
	memset(&cfg, 0, sizeof(cfg));
	cfg.clockid = clockid;
	cfg.resolution_ns = resolution_ns;
	return tw_ioctl(fd, TWHEEL_IOC_SET_CONFIG, &cfg);
}

TW_EXPORT int timingwheel_open(clockid_t clockid, uint64_t resolution_ns,
			       int flags)
{
	clockid_t clock = clockid;
	int fd, ret;

	if (flags & ~(O_NONBLOCK | O_CLOEXEC))
		return -EINVAL;
	ret = tw_check_config(&clock, resolution_ns);
	if (ret)
		return ret;
	fd = open(TIMINGWHEEL_DEVICE, O_RDWR | flags);
	if (fd < 0)
		return -errno;
	/* A new client has the default clock and resolution already. */
	if (clockid == TIMINGWHEEL_CLOCK_DEFAULT && !resolution_ns)
		return fd;
	ret = timingwheel_config(fd, clock, resolution_ns);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

TW_EXPORT int timingwheel_start(int fd, uint64_t id, uint64_t value_ns,
				uint64_t interval_ns, uint64_t slack_ns,
				unsigned int flags)
{
	struct twheel_timer_spec spec;

	memset(&spec, 0, sizeof(spec));
	spec.id = id;
	spec.value = value_ns;
	spec.interval = interval_ns;
	spec.slack = slack_ns;
	spec.flags = flags;
	return tw_ioctl(fd, TWHEEL_IOC_START, &spec);
}

TW_EXPORT int timingwheel_start_after(int fd, uint64_t id, uint64_t ns)
{
	return timingwheel_start(fd, id, ns, 0, 0, 0);
}

TW_EXPORT int timingwheel_stop(int fd, uint64_t id)
{
	struct twheel_stop stop;

	memset(&stop, 0, sizeof(stop));
	stop.id = id;
	return tw_ioctl(fd, TWHEEL_IOC_STOP, &stop);
}

TW_EXPORT int timingwheel_query(int fd, uint64_t id, struct twheel_query *q)
{
	memset(q, 0, sizeof(*q));
	q->id = id;
	return tw_ioctl(fd, TWHEEL_IOC_QUERY, q);
}

TW_EXPORT int timingwheel_info(int fd, struct twheel_info *info)
{
	return tw_ioctl(fd, TWHEEL_IOC_GET_INFO, info);
}

TW_EXPORT int timingwheel_has_feature(int fd, uint64_t feature)
{
	struct twheel_info info;
	int ret;

	if (!feature)
		return -EINVAL;
	ret = timingwheel_info(fd, &info);
	if (ret < 0)
		return ret;
	if (info.abi_version < 1)
		return 0;
	return (info.features & feature) == feature;
}

TW_EXPORT void timingwheel_batch_init(struct timingwheel_batch *b, int fd,
				      struct twheel_op *ops, unsigned int cap)
{
	b->fd = fd;
	b->ops = ops;
	b->cap = cap > INT_MAX ? INT_MAX : cap;
	b->count = 0;
}

static struct twheel_op *tw_batch_next(struct timingwheel_batch *b)
{
	struct twheel_op *op;

	if (b->count >= b->cap)
		return NULL;
	op = &b->ops[b->count++];
	memset(op, 0, sizeof(*op));
	/* Until a submission gets to it. */
	op->result = TIMINGWHEEL_RESULT_NONE;
	return op;
}

TW_EXPORT int timingwheel_batch_start(struct timingwheel_batch *b, uint64_t id,
				      uint64_t value_ns, uint64_t interval_ns,
				      uint64_t slack_ns, unsigned int flags)
{
	struct twheel_op *op = tw_batch_next(b);

	if (!op)
		return -ENOSPC;
	op->op = TWHEEL_OP_START;
	op->flags = flags;
	op->id = id;
	op->value = value_ns;
	op->interval = interval_ns;
	op->slack = slack_ns;
	return 0;
}

TW_EXPORT int timingwheel_batch_stop(struct timingwheel_batch *b, uint64_t id)
{
	struct twheel_op *op = tw_batch_next(b);

	if (!op)
		return -ENOSPC;
	op->op = TWHEEL_OP_STOP;
	op->id = id;
	return 0;
}

/*
 * One TWHEEL_IOC_BATCH call of @n entries.  The kernel applies them in
 * chunks and reports only a failure, so an entry it did not reach keeps
 * TIMINGWHEEL_RESULT_NONE: return how many it applied, or -errno if none.
 */
static int tw_batch_call(int fd, struct twheel_op *ops, unsigned int n)
{
	struct twheel_batch batch;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++)
		ops[i].result = TIMINGWHEEL_RESULT_NONE;
	memset(&batch, 0, sizeof(batch));
	batch.ops = (uintptr_t)ops;
	batch.count = n;
	ret = tw_ioctl(fd, TWHEEL_IOC_BATCH, &batch);
	if (!ret)
		return n;
	for (i = 0; i < n && ops[i].result != TIMINGWHEEL_RESULT_NONE; i++)
		;
	return i ? (int)i : ret;
}

TW_EXPORT int timingwheel_batch_submit(struct timingwheel_batch *b)
{
	unsigned int done = 0, n;
	int ret;

	while (done < b->count) {
		n = b->count - done;
		if (n > TWHEEL_BATCH_MAX)
			n = TWHEEL_BATCH_MAX;
		ret = tw_batch_call(b->fd, b->ops + done, n);
		if (ret < 0)
			return done ? (int)done : ret;
		done += ret;
		if ((unsigned int)ret < n)
			break;
	}
	return done;
}

TW_EXPORT void timingwheel_batch_reset(struct timingwheel_batch *b)
{
	b->count = 0;
}

TW_EXPORT ssize_t timingwheel_read(int fd, struct twheel_event *ev,
				   size_t max_events)
{
	ssize_t n;

	if (!max_events)
		return -EINVAL;
	if (max_events > SSIZE_MAX / sizeof(*ev))
		max_events = SSIZE_MAX / sizeof(*ev);
	n = read(fd, ev, max_events * sizeof(*ev));
	if (n < 0)
		return -errno;
	if (n % sizeof(*ev))
		return -EIO;
	return n / sizeof(*ev);
}

TW_EXPORT uint64_t timingwheel_now(clockid_t clockid)
{
	struct timespec ts;

	if (clockid == TIMINGWHEEL_CLOCK_DEFAULT)
		clockid = CLOCK_MONOTONIC;
	if (clock_gettime(clockid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
