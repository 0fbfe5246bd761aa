/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ratas' interface over tw_core: a program written for Ratas
 * (github.com/jsnell/ratas, src/timer-wheel.h) compiles unchanged on this
 * header instead, and runs on the wheel of tw_core.c.  `make bench-ratas`
 * (scripts/bench-ratas.sh) builds Ratas' own benchmark program,
 * src/test/test_benchmark.cc, once on each.
 *
 * What Ratas calls                 what it is here
 *   schedule(e, delta)             tw_modify() at now + delta
 *   schedule_in_range(e, lo, hi)   tw_modify_range() over now + [lo, hi]
 *   advance(delta, max_execute)    tw_advance() to the target, the budget
 *                                  max_execute; a target a budget left
 *                                  unreached is kept, and the next call's
 *                                  delta adds to it, as Ratas' pending ticks
 *   ticks_to_next_event(max)       tw_next_event() bounded by now + max
 *   TimerEventInterface::cancel()  tw_stop(); scheduled_at() keeps the
 *                                  last tick, as Ratas'
 *
 * As Ratas, everything the program calls per timer is inline here; the
 * wheel's inline fast paths are in tw_core.h, the rest in tw_core.c,
 * compiled at the same -O3.  Written from Ratas' interface, not its code.
 */
#ifndef TW_RATAS_HH
#define TW_RATAS_HH

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>

extern "C" {
#include <linux/errno.h>
#include "tw_core.h"
}

typedef uint64_t Tick;

class TimerWheel;

/*
 * The wheel an event is pending on, then the wheel's node, at a fixed
 * offset for the expiry callback: after the vtable pointer, in this order
 * (the bases' order), so that schedule_in_range()'s first test reads the
 * two words it needs side by side, as Ratas reads its own two.
 */
struct TwRatasWheelRef {
	TimerWheel *wheel_ = nullptr;
};

struct TwRatasNode {
	struct tw_timer node_;
};

class TimerEventInterface : private TwRatasWheelRef, private TwRatasNode {
public:
	TimerEventInterface()
	{
		tw_timer_init(&node_);
	}

	virtual ~TimerEventInterface()
	{
		cancel();
	}

	inline void cancel();

	bool active() const
	{
		return tw_timer_pending(&node_);
	}

	Tick scheduled_at() const
	{
		return node_.expires;
	}

private:
	TimerEventInterface(const TimerEventInterface &other) = delete;
	TimerEventInterface &operator=(const TimerEventInterface &other) = delete;
	friend TimerWheel;

	virtual void execute() = 0;

	static TimerEventInterface *of(struct tw_timer *t)
	{
		return static_cast<TimerEventInterface *>(
			reinterpret_cast<TwRatasNode *>(t));
	}
};

template <typename CBType>
class TimerEvent : public TimerEventInterface {
public:
	explicit TimerEvent(const CBType &callback) : callback_(callback) {}

	void execute() override
	{
		callback_();
	}

private:
	TimerEvent(const TimerEvent &other) = delete;
	TimerEvent &operator=(const TimerEvent &other) = delete;
	CBType callback_;
};

template <typename T, void (T::*MFun)()>
class MemberTimerEvent : public TimerEventInterface {
public:
	MemberTimerEvent(T *obj) : obj_(obj) {}

	void execute() override
	{
		(obj_->*MFun)();
	}

private:
	T *obj_;
};

class TimerWheel {
public:
	TimerWheel(Tick now = 0) : target_(now)
	{
		if (tw_init(&w_, nullptr, 0, now))
			abort();
	}

	/* TW_RATAS_STATS=1: where the work went, on stderr, at the end. */
	~TimerWheel()
	{
		if (getenv("TW_RATAS_STATS"))
			fprintf(stderr, "tw_ratas: fired %llu, cascaded %llu (%.3f per timer fired)\n",
				(unsigned long long)w_.nr_fired,
				(unsigned long long)w_.nr_cascades,
				w_.nr_fired ? (double)w_.nr_cascades / w_.nr_fired : 0.0);
	}

	inline bool advance(Tick delta,
			    size_t max_execute = std::numeric_limits<size_t>::max(),
			    int level = 0);
	inline void schedule(TimerEventInterface *event, Tick delta);
	inline void schedule_in_range(TimerEventInterface *event, Tick start,
				      Tick end);

	Tick now() const
	{
		return tw_now(&w_);
	}

	inline Tick ticks_to_next_event(Tick max = std::numeric_limits<Tick>::max(),
					int level = 0);

private:
	/*
	 * Ratas lets an event move from one wheel to another: it leaves the
	 * first, and is scheduled here as a new one.  Out of line, and a
	 * call of their own, so that the common case, an event of this wheel
	 * or a new one, keeps what it loaded in registers.  Defined here:
	 * inline for the linker, not the compiler.
	 */
	__attribute__((__noinline__, __cold__))
	void schedule_moved(TimerEventInterface *event, Tick delta)
	{
		event->cancel();
		schedule(event, delta);
	}

	__attribute__((__noinline__, __cold__))
	void schedule_in_range_moved(TimerEventInterface *event, Tick start,
				     Tick end)
	{
		event->cancel();
		schedule_in_range(event, start, end);
	}

	TimerWheel(const TimerWheel &other) = delete;
	TimerWheel &operator=(const TimerWheel &other) = delete;
	friend TimerEventInterface;

	/*
	 * noexcept: an exception out of execute() would leave tw_advance()
	 * in the middle of a tick, with no way to finish it; it terminates
	 * here instead.  The compiler then keeps nothing for unwinding
	 * around each callback.
	 */
	static void fire(struct tw_timer *t, void *data) noexcept
	{
		TimerEventInterface *e = TimerEventInterface::of(t);

		/*
		 * A fired event belongs to no wheel until it is scheduled
		 * again (schedule_in_range()).
		 */
		e->wheel_ = nullptr;
		e->execute();
	}

	struct tw_wheel w_;
	Tick target_;
};

/*
 * An event has a wheel exactly while it is pending there: fire() and
 * cancel() clear it, schedule() and schedule_in_range() set it.  So one
 * that fired or was stopped never touches the wheel it was last on, which
 * it may outlive, and schedule_in_range() tells a pending event of its
 * wheel by that word alone.
 */
void TimerEventInterface::cancel()
{
	if (wheel_) {
		tw_stop(&wheel_->w_, &node_);
		wheel_ = nullptr;
	}
}


bool TimerWheel::advance(Tick delta, size_t max_execute, int level)
{
	unsigned int budget = max_execute < TW_NO_BUDGET ?
			      (unsigned int)max_execute : TW_NO_BUDGET;

	(void)level;
	/*
	 * Past the wheel's reach, or wrapping to a tick behind now, aborts:
	 * the target is below 2^63, so a sum that wraps has a delta of 2^63
	 * or more.
	 */
	target_ += delta;
	if ((target_ | delta) >= TW_MAX_TICK)
		abort();
	tw_advance(&w_, target_, budget, fire, nullptr);
	return tw_now(&w_) == target_ && !tw_has_due(&w_);
}

/*
 * A tick out of the wheel's range, 2^63 ticks (TW_MAX_TICK), fails
 * (-ERANGE) and aborts: Ratas' levels cover 64 bits, this wheel's do not,
 * and a tick past them must not wrap silently to one behind now.  A delta
 * or an end below 2^63 does not wrap.  Only
 * schedule_in_range() of a pending event already due in its range returns
 * first, whatever its end, as Ratas' does.
 */
void TimerWheel::schedule(TimerEventInterface *event, Tick delta)
{
	if (!event->active())
		event->wheel_ = this;
	else if (event->wheel_ != this)
		return schedule_moved(event, delta);
	if (delta >= TW_MAX_TICK ||
	    tw_modify(&w_, &event->node_, tw_now(&w_) + delta))
		abort();
}

void TimerWheel::schedule_in_range(TimerEventInterface *event, Tick start,
				   Tick end)
{
	Tick now = tw_now(&w_), d = event->node_.expires - now;

	/*
	 * tw_modify_range()'s own first test, a pending timer already due in
	 * the range is left alone, taken here in ticks from now as Ratas
	 * gives the range: what it costs is paid once per call, not per
	 * check of @start and @end.  It reads two words of the event, its
	 * wheel and its tick, side by side after the event's header, as
	 * Ratas' reads its own two, and makes as many tests as Ratas': an
	 * event has a wheel exactly while it is pending there (cancel()), so
	 * one of this wheel due in the range is pending in it.
	 */
	if (event->wheel_ == this && d >= start && d <= end)
		return;
	if (!event->active())
		event->wheel_ = this;
	else if (event->wheel_ != this)
		return schedule_in_range_moved(event, start, end);
	if (end >= TW_MAX_TICK ||
	    tw_modify_range(&w_, &event->node_, now + start, now + end))
		abort();
}

Tick TimerWheel::ticks_to_next_event(Tick max, int level)
{
	Tick now = tw_now(&w_), limit, next, ahead = 0;
	unsigned long idx = tw_slot0(&w_, now);

	(void)level;
	/*
	 * tw_next_event()'s inline case first, in ticks: level 0 has work
	 * later in now's round, and nothing waits.  Bounded by @max, with no
	 * limit to compute and no TW_NO_EVENT to map back; in slots of the
	 * round, as tw_advance() counts them.
	 */
	if (!tw_has_due(&w_))
		ahead = tw_ahead0(&w_, idx);
	if (ahead) {
		next = __ffs64(ahead) - idx;
		return next < max ? next : max;
	}
	/* Any limit will do: no event is past the end of time. */
	if (__builtin_add_overflow(now, max, &limit))
		limit = TW_NO_EVENT;
	next = tw_next_event(&w_, limit);
	return next == TW_NO_EVENT ? max : next - now;
}

#endif /* TW_RATAS_HH */
