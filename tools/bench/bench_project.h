/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_device -H: the host's own costs and the projection of the device's
 * throughput on real hardware from them and the kernel-side figures.
 */
#ifndef _TW_BENCH_PROJECT_H
#define _TW_BENCH_PROJECT_H

/**
 * struct host_costs - what the projection takes from this machine, in ns
 * @arm_ns:     timerfd_settime() arming a pre-created timerfd
 * @disarm_ns:  timerfd_settime() disarming it
 * @ioctl_ns:   a bare ioctl() round trip (/dev/null answers ENOTTY at once)
 * @copy_ns_b:  memcpy per byte, of a batch-sized array in cache
 * @deliver_ns: epoll_wait() + read() per expired timerfd, the hrtimer's own
 *              expiry not included
 */
struct host_costs {
	double	arm_ns;
	double	disarm_ns;
	double	ioctl_ns;
	double	copy_ns_b;
	double	deliver_ns;
};

void host_measure(struct host_costs *h);
void project_print(const char *kbench_path, const struct host_costs *h);

#endif /* _TW_BENCH_PROJECT_H */
