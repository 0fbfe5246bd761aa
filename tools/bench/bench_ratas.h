/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backend interface of bench_ratas: the operations Ratas' benchmark
 * workload needs from a timer structure, in Ratas' terms (relative deltas,
 * advance by a delta with a bound on the callbacks run).  bench_ratas.c
 * drives every backend through it; bench_ratas_ratas.cc implements it on
 * Ratas itself, so the workload code is the same for every structure.
 */
#ifndef _TW_BENCH_RATAS_H
#define _TW_BENCH_RATAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bk;

/* Called for each timer that fires, with the id it was created with. */
typedef void (*bk_fire_fn)(void *ctx, uint32_t id);

/**
 * struct bk_ops - one timer structure, as the workload sees it
 * @name:       short name for the table
 * @range_note: how it implements schedule_in_range, for the table's legend
 * @create:     a structure at tick 0 with timers 0..@nr - 1, none pending
 * @destroy:    free it and its timers
 * @now:        the current tick; inside @fire, the tick being expired
 * @schedule:   start timer @id, or move it if pending, to now + @delta
 *              (@delta > 0)
 * @schedule_in_range: the same, anywhere in [now + @lo, now + @hi]
 * @cancel:     stop timer @id if pending
 * @advance:    move the clock @delta ticks on, firing what is due but at
 *              most @max_execute timers; false if that bound cut it short,
 *              and the next call (any @delta, 0 included) resumes
 * @ticks_to_next_event: ticks to the next tick at which @advance has work,
 *              a lower bound, at most @max; 0 while an advance is unfinished
 *
 * Every call on one structure comes from one thread; @fire may call
 * everything but @advance.
 */
struct bk_ops {
	const char	*name;
	const char	*range_note;
	struct bk	*(*create)(uint32_t nr, bk_fire_fn fire, void *ctx);
	void		(*destroy)(struct bk *b);
	uint64_t	(*now)(struct bk *b);
	void		(*schedule)(struct bk *b, uint32_t id, uint64_t delta);
	void		(*schedule_in_range)(struct bk *b, uint32_t id,
					     uint64_t lo, uint64_t hi);
	void		(*cancel)(struct bk *b, uint32_t id);
	bool		(*advance)(struct bk *b, uint64_t delta,
				   size_t max_execute);
	uint64_t	(*ticks_to_next_event)(struct bk *b, uint64_t max);
};

/* Ratas, when bench_ratas is built with RATAS_DIR (bench_ratas_ratas.cc). */
extern const struct bk_ops bk_ratas_ops;

#ifdef __cplusplus
}
#endif

#endif /* _TW_BENCH_RATAS_H */
