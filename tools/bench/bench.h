/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_device's two halves: the device and timerfd side (bench_device.c,
 * built against the uapi header) and the in-process wheel (bench_inproc.c,
 * tw_core.c behind one timerfd, built against the userspace shim).  Only
 * standard C types cross between them.
 */
#ifndef _TW_BENCH_H
#define _TW_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
/* How long an expiry waiter waits for the next one before giving up. */
#define LAT_WAIT_MS	5000

/**
 * struct lat_run - one side's view of a lateness pattern
 * @due:    in: the due times, ns on CLOCK_MONOTONIC, one per timer
 * @n:      in: the number of timers
 * @late:   out: observed - due of each expiry delivered, in delivery order
 * @got:    out: expiries delivered
 * @early:  out: expiries observed before they were due
 * @behind: out: expiries the side could not keep up with (see bench_device.c)
 */
struct lat_run {
	const uint64_t	*due;
	uint32_t	n;
	int64_t		*late;
	uint32_t	got;
	uint64_t	early;
	uint64_t	behind;
};

uint64_t bench_now_ns(void);

/*
 * bench_threads(): @n threads, each running @fn(@args[i]) once per
 * repetition, all starting together; the best repetition's time in ns,
 * a repetition's being its slowest thread's; < 0 if a thread or a
 * repetition failed (bench_inproc.c).
 */
#define BENCH_MAX_THREADS	4
#define BENCH_MAX_REPS		8
typedef int (*bench_rep_fn)(void *arg);
double bench_threads(unsigned int n, unsigned int reps, bench_rep_fn fn,
		     void *const args[]);

/*
 * Time a thread of bench_threads() spent on work that is not the measured
 * side's, left out of its repetition: bench_ring.c's mock of the kernel's
 * ENTER, whose real cost the projection adds from the kernel's figures.
 * The thread adds to it; bench_threads() clears it before each repetition.
 */
extern __thread uint64_t bench_excluded_ns;

/* The in-process wheel (bench_inproc.c); each returns < 0 on a failure. */
double inproc_startstop_rate(uint32_t n, uint64_t ahead_ns, unsigned int reps,
			     bool deferred);
int inproc_lateness(struct lat_run *run, uint64_t res_ns);
size_t inproc_timer_bytes(void);
size_t inproc_wheel_bytes(void);

#endif /* _TW_BENCH_H */
