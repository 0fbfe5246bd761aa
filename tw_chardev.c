// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/timingwheel: the misc device and its file operations.
 *
 * Each open file is a client (tw_client.c).  This file copies the caller's
 * structs in and out of userspace around the client's operations, which
 * work on kernel memory only, and sleeps where a blocking read() or poll()
 * waits for events.  The design, the timer states, the locking and the
 * limits are described once, in the DOC: blocks of tw_client.c.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/linux/timingwheel.h>

#include "tw_client.h"
#include "tw_ring.h"

/*
 * A batch's entries are in the caller's memory; @arg points to the user
 * pointer to them.  Only the results go back: the rest of each entry is the
 * caller's own input, and writing it back would double the bytes a batch
 * moves.
 */
static int tw_get_ops(void *arg, unsigned int done, struct twheel_op *ops,
		      unsigned int n)
{
	struct twheel_op __user *uops = *(struct twheel_op __user **)arg + done;

	return copy_from_user(ops, uops, n * sizeof(*ops)) ? -EFAULT : 0;
}

static int tw_put_results(void *arg, unsigned int done, const struct twheel_op *ops,
			  unsigned int n)
{
	struct twheel_op __user *uops = *(struct twheel_op __user **)arg + done;
	unsigned int i;

	if (!user_write_access_begin(uops, n * sizeof(*uops)))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_put_user(ops[i].result, &uops[i].result, fault);
	user_write_access_end();
	return 0;
fault:
	user_write_access_end();
	return -EFAULT;
}

static const struct tw_batch_io tw_user_batch = {
	.get	= tw_get_ops,
	.put	= tw_put_results,
};

static long tw_ioctl_batch(struct tw_client *c, void __user *argp)
{
	struct twheel_op __user *uops;
	struct twheel_batch batch;

	if (copy_from_user(&batch, argp, sizeof(batch)))
		return -EFAULT;
	if (batch.flags || batch.__reserved || batch.count > TWHEEL_BATCH_MAX)
		return -EINVAL;
	uops = u64_to_user_ptr(batch.ops);
	return tw_client_batch(c, batch.count, &tw_user_batch, &uops);
}

static long tw_ioctl_start(struct tw_client *c, void __user *argp)
{
	struct twheel_timer_spec spec;
	struct twheel_op op = { .op = TWHEEL_OP_START };

	if (copy_from_user(&spec, argp, sizeof(spec)))
		return -EFAULT;
	op.id = spec.id;
	op.value = spec.value;
	op.interval = spec.interval;
	op.slack = spec.slack;
	op.flags = spec.flags;
	op.__reserved = spec.__reserved;
	tw_client_apply(c, &op, 1);
	return op.result;
}

static long tw_ioctl_stop(struct tw_client *c, void __user *argp)
{
	struct twheel_stop stop;

	if (copy_from_user(&stop, argp, sizeof(stop)))
		return -EFAULT;
	if (stop.flags || stop.__reserved)
		return -EINVAL;
	/* The result is the return value: no copy-out can lose it. */
	return tw_client_stop(c, stop.id);
}

static long tw_ioctl_set_config(struct tw_client *c, void __user *argp)
{
	struct twheel_config cfg;

	if (copy_from_user(&cfg, argp, sizeof(cfg)))
		return -EFAULT;
	if (cfg.flags || cfg.__reserved[0] || cfg.__reserved[1])
		return -EINVAL;
	return tw_client_set_config(c, cfg.clockid, cfg.resolution_ns);
}

static long tw_ioctl_query(struct tw_client *c, void __user *argp)
{
	struct twheel_query q;
	int ret;

	if (copy_from_user(&q, argp, sizeof(q)))
		return -EFAULT;
	if (q.__reserved)
		return -EINVAL;
	ret = tw_client_query(c, &q);
	if (ret)
		return ret;
	return copy_to_user(argp, &q, sizeof(q)) ? -EFAULT : 0;
}

static long tw_ioctl_ring_setup(struct tw_client *c, void __user *argp)
{
	struct twheel_ring_setup p;
	int ret;

	if (copy_from_user(&p, argp, sizeof(p)))
		return -EFAULT;
	ret = tw_client_ring_setup(c, &p);
	if (ret)
		return ret;
	/* The rings exist now: a failed copy leaves them, as for GET_INFO. */
	return copy_to_user(argp, &p, sizeof(p)) ? -EFAULT : 0;
}

static long tw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tw_client *c = file->private_data;
	void __user *argp = (void __user *)arg;
	struct twheel_info info;

	switch (cmd) {
	case TWHEEL_IOC_SET_CONFIG:
		return tw_ioctl_set_config(c, argp);
	case TWHEEL_IOC_GET_INFO:
		tw_client_info(c, &info);
		return copy_to_user(argp, &info, sizeof(info)) ? -EFAULT : 0;
	case TWHEEL_IOC_START:
		return tw_ioctl_start(c, argp);
	case TWHEEL_IOC_STOP:
		return tw_ioctl_stop(c, argp);
	case TWHEEL_IOC_BATCH:
		return tw_ioctl_batch(c, argp);
	case TWHEEL_IOC_QUERY:
		return tw_ioctl_query(c, argp);
	case TWHEEL_IOC_RING_SETUP:
		return tw_ioctl_ring_setup(c, argp);
	case TWHEEL_IOC_RING_ENTER:
		return arg ? -EINVAL : tw_client_ring_enter(c);
	default:
		return -ENOTTY;
	}
}

/* A read's events go to the caller's buffer; @arg points to its pointer. */
static int tw_copy_events(void *arg, size_t done, const struct twheel_event *ev,
			  unsigned int n)
{
	struct twheel_event __user *buf = *(struct twheel_event __user **)arg + done;

	return copy_to_user(buf, ev, n * sizeof(*ev)) ? -EFAULT : 0;
}

static ssize_t tw_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	struct tw_client *c = file->private_data;
	struct twheel_event __user *ubuf = (struct twheel_event __user *)buf;
	size_t max = count / sizeof(struct twheel_event);
	ssize_t ret;

	if (!max)
		return -EINVAL;

	for (;;) {
		/* A ring file's read moves a wheel left to system calls. */
		tw_client_ring_read(c);
		/*
		 * Held while copying out, never while waiting for events.
		 * Another reader's copy may stall on a page fault for as long
		 * as its buffer's pager likes, so a non-blocking read does not
		 * wait for it.
		 */
		if (file->f_flags & O_NONBLOCK) {
			if (!mutex_trylock(&c->read_mutex))
				return -EAGAIN;
		} else if (mutex_lock_interruptible(&c->read_mutex)) {
			return -ERESTARTSYS;
		}
		ret = tw_client_read(c, max, tw_copy_events, &ubuf);
		mutex_unlock(&c->read_mutex);

		if (ret)
			return ret < 0 ? ret : ret * sizeof(struct twheel_event);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * As tw_poll()'s look: NEED_ENTER and nr_queued rise under
		 * c->lock, each followed by a wake-up of c->wq.
		 */
		if (wait_event_interruptible(c->wq, READ_ONCE(c->nr_queued) ||
					     tw_client_ring_stalled(c)) ||
		    signal_pending(current))
			return -ERESTARTSYS;
		cond_resched();
	}
}

static __poll_t tw_poll(struct file *file, poll_table *wait)
{
	struct tw_client *c = file->private_data;

	/*
	 * The lockless read of nr_queued cannot miss a wakeup.  poll_wait()
	 * adds us to c->wq before we look; every increase of nr_queued is made
	 * under c->lock and followed, after the unlock, by a wake-up of c->wq
	 * (tw_wake()), whose waitqueue lock orders it after our add.
	 * So either we see the new count, or the waker sees us queued and
	 * wakes us to look again.  A stale non-zero only costs a read() that
	 * finds nothing and returns EAGAIN.
	 */
	poll_wait(file, &c->wq, wait);
	return (READ_ONCE(c->nr_queued) ? EPOLLIN | EPOLLRDNORM : 0) |
	       tw_client_ring_poll(c);
}

static int tw_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tw_client *c = file->private_data;
	struct tw_ring *r = tw_client_ring(c);

	/* The rings live until ->release, which no mapping can outlast. */
	return r ? tw_ring_mmap(r, vma) : -ENODEV;
}

static int tw_open(struct inode *inode, struct file *file)
{
	struct tw_client *c = tw_client_create();

	if (IS_ERR(c))
		return PTR_ERR(c);
	file->private_data = c;
	return stream_open(inode, file);
}

static int tw_release(struct inode *inode, struct file *file)
{
	/* No ioctl or read can run any more. */
	tw_client_destroy(file->private_data);
	return 0;
}

static void tw_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct tw_client *c = file->private_data;
	struct twheel_info info;

	tw_client_info(c, &info);
	/* The client= of its trace events (tw_trace.h). */
	seq_printf(m, "client:\t%llu\n", c->serial);
	seq_printf(m, "clockid:\t%u\nresolution_ns:\t%llu\nrange_ns:\t%llu\n",
		   info.clockid, info.resolution_ns, info.range_ns);
	seq_printf(m, "max_timers:\t%llu\npending:\t%llu\nqueued:\t%llu\n",
		   info.max_timers, info.pending, info.queued);
	seq_printf(m, "fired:\t%llu\ncascades:\t%llu\nnext_expiry:\t%llu\n",
		   info.fired, info.cascades, info.next_expiry);
	seq_printf(m, "user_timers:\t%llu\nmax_user_timers:\t%llu\n",
		   info.user_timers, info.max_user_timers);
	seq_printf(m, "wakeups:\t%llu\nmemory:\t%llu\n", info.wakeups,
		   info.memory);
}

static const struct file_operations tw_fops = {
	.owner		= THIS_MODULE,
	.open		= tw_open,
	.release	= tw_release,
	.read		= tw_read,
	.poll		= tw_poll,
	.mmap		= tw_mmap,
	.unlocked_ioctl	= tw_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= tw_show_fdinfo,
};

static struct miscdevice tw_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "timingwheel",
	.fops	= &tw_fops,
	/* Like timerfd, any user may have timers; limits and memcg bound them. */
	.mode	= 0666,
};

static int __init tw_module_init(void)
{
	int ret;

	ret = tw_client_init();
	if (ret)
		return ret;
	ret = misc_register(&tw_misc);
	if (ret)
		tw_client_exit();
	return ret;
}

static void __exit tw_module_exit(void)
{
	misc_deregister(&tw_misc);
	tw_client_exit();
}

module_init(tw_module_init);
module_exit(tw_module_exit);

MODULE_DESCRIPTION("timingwheel: many timers behind one file descriptor");
MODULE_LICENSE("GPL");
/* TW_VERSION comes from the top-level VERSION file, through Kbuild. */
MODULE_VERSION(TW_VERSION);
