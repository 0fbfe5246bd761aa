/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_device -H: the rings' user side on this host (bench_ring.c), and
 * the in-process baselines it is set beside (bench_inproc.c).
 */
#ifndef _TW_BENCH_RING_H
#define _TW_BENCH_RING_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct ring_user - libtimingwheel's side of the rings, ns on this host
 * @pair_ns:       a start (with a clock read) and a stop, each submitted
 *                 alone, with the slot taken and given back: per pair
 * @pair_enters:   ENTERs per pair in that run
 * @batch_ns:      the same, the clock read and a submit per 32 entries
 * @batch_enters:  ENTERs per pair in that run
 * @thread_ns:     as @batch_ns, per thread, with 1 and 2 threads at once,
 *                 each on its own SQ (the slower thread's figure)
 * @thread_enters: ENTERs per pair in those runs
 * @read_ns:       reading one expiry from the CQ, in batches of 64
 */
struct ring_user {
	double	pair_ns;
	double	pair_enters;
	double	batch_ns;
	double	batch_enters;
	double	thread_ns[2];
	double	thread_enters[2];
	double	read_ns;
};

int ring_user_measure(struct ring_user *u);

/* The real calls behind bench_device's -Wl,--wrap=ioctl,--wrap=mmap. */
int __real_ioctl(int fd, unsigned long req, ...);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
int __wrap_ioctl(int fd, unsigned long req, ...);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, long off);

/*
 * The baselines, in process (bench_inproc.c): tw_start() + tw_stop()
 * alone, ns per pair; and a wheel behind one mutex shared by @threads
 * threads, each starting 32 timers (the clock read once) and stopping
 * them, the lock taken per operation, as tokio's driver does: ns per pair
 * per thread (the slower thread's); each < 0 on a failure.
 */
double inproc_core_pair_ns(uint32_t n, unsigned int reps);
double inproc_mutex_pair_ns(unsigned int threads);

#endif /* _TW_BENCH_RING_H */
