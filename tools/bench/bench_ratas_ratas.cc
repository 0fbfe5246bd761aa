// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ratas' backend on Ratas (github.com/jsnell/ratas), built only when
 * RATAS_DIR names a checkout of it: its timer-wheel.h is included from
 * there, never copied into this tree.  Each timer is a TimerEventInterface
 * whose execute() calls the workload back with the timer's index, the same
 * shape as Ratas' MemberTimerEvent (a vtable and one pointer).
 */
#include <new>

#include "timer-wheel.h"

#include "bench_ratas.h"

namespace {

struct rt_backend;

class rt_event : public TimerEventInterface {
public:
	rt_backend *owner;

private:
	void execute() override;
};

struct rt_backend {
	TimerWheel	wheel;
	rt_event	*ev;
	bk_fire_fn	fire;
	void		*ctx;
};

void rt_event::execute()
{
	owner->fire(owner->ctx, this - owner->ev);
}

rt_backend *rtb(struct bk *b)
{
	return reinterpret_cast<rt_backend *>(b);
}

struct bk *rtb_create(uint32_t nr, bk_fire_fn fire, void *ctx)
{
	rt_backend *r = new rt_backend;

	r->ev = new rt_event[nr];
	for (uint32_t i = 0; i < nr; i++)
		r->ev[i].owner = r;
	r->fire = fire;
	r->ctx = ctx;
	return reinterpret_cast<struct bk *>(r);
}

/* The events first: their destructors cancel them out of the wheel. */
void rtb_destroy(struct bk *b)
{
	delete[] rtb(b)->ev;
	delete rtb(b);
}

uint64_t rtb_now(struct bk *b)
{
	return rtb(b)->wheel.now();
}

void rtb_schedule(struct bk *b, uint32_t id, uint64_t delta)
{
	rtb(b)->wheel.schedule(&rtb(b)->ev[id], delta);
}

void rtb_schedule_in_range(struct bk *b, uint32_t id, uint64_t lo, uint64_t hi)
{
	rtb(b)->wheel.schedule_in_range(&rtb(b)->ev[id], lo, hi);
}

void rtb_cancel(struct bk *b, uint32_t id)
{
	rtb(b)->ev[id].cancel();
}

bool rtb_advance(struct bk *b, uint64_t delta, size_t max_execute)
{
	return rtb(b)->wheel.advance(delta, max_execute);
}

uint64_t rtb_ticks_to_next_event(struct bk *b, uint64_t max)
{
	return rtb(b)->wheel.ticks_to_next_event(max);
}

} // namespace

extern "C" const struct bk_ops bk_ratas_ops = {
	"Ratas",
	"its schedule_in_range()",
	rtb_create,
	rtb_destroy,
	rtb_now,
	rtb_schedule,
	rtb_schedule_in_range,
	rtb_cancel,
	rtb_advance,
	rtb_ticks_to_next_event,
};
