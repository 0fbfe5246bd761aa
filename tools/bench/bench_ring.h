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
 * enum rb_mode - how a pair is written
 * @RB_EACH:       a clock read per start, a submit per entry: one timer
 *                 an event-loop turn
 * @RB_LOOP:       a clock read per start, as the in-process row, and a
 *                 submit per 32 entries: an event loop's turn
 * @RB_STAMPED:    timingwheel_prep_start_in() each, a submit per 32
 *                 entries: the library reads the clock once per submit,
 *                 after the batch's entries, so no start is early
 * @RB_MODES:      their number
 */
enum rb_mode { RB_EACH, RB_LOOP, RB_STAMPED, RB_MODES };

/**
 * struct ring_user - libtimingwheel's side of the rings, ns on this host
 * @ns:            per mode, a start and a stop with the slot taken and
 *                 given back: per pair
 * @enters:        per mode, ENTERs per pair
 * @thread_ns:     as @ns[RB_STAMPED], per thread, with 1 and 2 threads
 *                 at once, each on its own SQ (the slower thread's figure)
 * @thread_enters: ENTERs per pair in those runs
 * @read_ns:       reading one expiry from the CQ, in batches of 64
 */
struct ring_user {
	double	ns[RB_MODES];
	double	enters[RB_MODES];
	double	thread_ns[2];
	double	thread_enters[2];
	double	read_ns;
};

int ring_user_measure(struct ring_user *u);

/*
 * bench_device -T: the same pairs as @thread_ns, on the rings of the
 * device open on @fd, with 1 and 2 threads: ns per pair per thread, and
 * ENTERs per pair, each the kernel's work included; 0, or -1 on a failure.
 */
int ring_threads_device(int fd, double ns[2], double enters[2]);

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
