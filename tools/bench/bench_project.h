/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_device -H: the host's own costs and the projection of the device's
 * throughput on real hardware from them and the kernel-side figures.
 */
#ifndef _TW_BENCH_PROJECT_H
#define _TW_BENCH_PROJECT_H

#include <stdint.h>

#include "bench_ring.h"

/**
 * struct host_costs - what the projection takes from this machine, in ns
 * @arm_ns:     timerfd_settime() arming a pre-created timerfd
 * @disarm_ns:  timerfd_settime() disarming it
 * @ioctl_ns:   a bare ioctl() round trip (/dev/null answers ENOTTY at once)
 * @copy_ns_b:  memcpy per byte, of a batch-sized array in cache
 * @deliver_ns: epoll_wait() + read() per expired timerfd, the hrtimer's own
 *              expiry not included
 * @inproc_pair_ns: the in-process row's start (a clock read, tw_start(), a
 *              timerfd_settime() if earliest) and stop, per pair
 * @inproc_deferred_pair_ns: as @inproc_pair_ns, each start deferred to the
 *              end of its turn of 32 and placed after one clock read for
 *              the turn, as the rings' prep_start_in() and submit
 * @core_pair_ns: tw_start() + tw_stop() alone, per pair
 * @mutex_ns:   a pair on a wheel behind one mutex, per thread, with 1 and
 *              2 threads
 * @ring:       the rings' user side (bench_ring.c)
 */
struct host_costs {
	double	arm_ns;
	double	disarm_ns;
	double	ioctl_ns;
	double	copy_ns_b;
	double	deliver_ns;
	double	inproc_pair_ns;
	double	inproc_deferred_pair_ns;
	double	core_pair_ns;
	double	mutex_ns[2];
	struct ring_user ring;
};

void host_measure(struct host_costs *h);
void project_print(const char *kbench_path, const struct host_costs *h);

#endif /* _TW_BENCH_PROJECT_H */
