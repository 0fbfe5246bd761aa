// SPDX-License-Identifier: GPL-2.0
/*
 * tw_ratas.hh against a model of Ratas' interface, seeded: random
 * schedule(), schedule_in_range(), cancel(), advance() (with and without a
 * budget) and ticks_to_next_event() calls on a few events and two wheels,
 * events moving between them, some calls made from the events' own
 * callbacks, and one-shot events that delete themselves as they fire; each
 * checked against what Ratas promises:
 *
 *   - an event fires once, at the tick it was scheduled for, never early
 *     and never late (advance() fires everything up to its target);
 *   - schedule_in_range() leaves a pending event already due in its range
 *     alone, and otherwise leaves it pending at a tick in the range;
 *   - active() is true exactly while the event is pending;
 *   - ticks_to_next_event() never reports a tick past a pending event's;
 *   - an event scheduled on another wheel leaves the first (the sanitizers
 *     see a wheel that touches an event after its callback freed it);
 *   - a tick past the wheel's reach (2^63 ticks, where Ratas' levels go on
 *     to 2^64), or wrapping around 2^64, aborts (in a child each).
 *
 * The adapter's own shortcut in schedule_in_range(), which tells a pending
 * event of its wheel from the wheel it holds (fire() and cancel() clear
 * it), and the events that outlive a wheel, are what this is for, on three
 * wheels, one of them now and then remade at its own address: Ratas'
 * benchmark program, the adapter's other user, comes from outside the tree
 * and is not part of make check.  Runs in a second
 * in make -C tools bench-ratas-check; TW_RATAS_SEED replays a run.
 *
 *   tw_ratas_check [steps]
 */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include "tw_ratas.hh"

#define NR_EVENTS	48
#define NR_WHEELS	3

/*
 * What Ratas promises of an event: pending or not, and its tick.  One armed
 * for now itself (a range from 0, outside Ratas' own contract, which wants
 * a tick ahead) is overdue: it fires in the next advance() call, first,
 * at the tick that call starts from.
 */
struct Model {
	bool pending;
	bool overdue;
	Tick due;
	int w;
};

class Unit {
public:
	Unit() : ev_(this) {}
	inline void fire();

	int id_ = 0;
	MemberTimerEvent<Unit, &Unit::fire> ev_;
};

/*
 * The wheels, in storage that outlives the events.  Wheel 2 is now and then
 * destroyed and made again at the same address, its now back at 0, as a
 * program's wheel made in a loop would be.
 */
alignas(TimerWheel) static unsigned char wheel_mem[NR_WHEELS][sizeof(TimerWheel)];

static TimerWheel &W(int w)
{
	return *reinterpret_cast<TimerWheel *>(wheel_mem[w]);
}
static Unit units[NR_EVENTS];
static Model model[NR_EVENTS];
static uint64_t rng_state;
/* Per wheel: now when its running advance() began; a budget left it short. */
static Tick call_start[NR_WHEELS];
static bool short_of_target[NR_WHEELS];
static Tick target[NR_WHEELS];
/* The wheel whose advance() is running, and what it fired so far. */
static int advancing = -1;
static unsigned long fired_in_call;
static unsigned long failures, fired, steps_done, oneshots_live;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A distance of 1 to 2^k ticks, k up to 23: level 0 to level 3. */
static Tick rnd_delta(void)
{
	return 1 + rnd() % (2ULL << (rnd() % 23));
}

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond) && failures++ < 10) {			\
			fprintf(stderr, "tw_ratas_check: step %lu, now %" PRIu64 \
				"/%" PRIu64 "/%" PRIu64 ": ", steps_done, \
				W(0).now(), W(1).now(), W(2).now());	\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

/* Mostly the first wheel; one call in eight moves the event to another. */
static int rnd_wheel(void)
{
	unsigned int r = rnd() % 16;

	return r > 1 ? 0 : r + 1;
}

static void do_schedule(int i)
{
	Tick delta = rnd_delta();
	int w = rnd_wheel();

	W(w).schedule(&units[i].ev_, delta);
	model[i] = { true, false, W(w).now() + delta, w };
	CHECK(units[i].ev_.scheduled_at() == model[i].due,
	      "event %d scheduled for %" PRIu64 ", not %" PRIu64, i,
	      units[i].ev_.scheduled_at(), model[i].due);
}

/*
 * @start may be 0: an event that fired at now is then 0 ticks ahead, and
 * one pending for now itself (overdue, or held back by a budget) stays.
 * An event on the other wheel moves, wherever its tick is.
 */
static void do_schedule_in_range(int i, Tick start)
{
	int w = rnd_wheel();
	Tick now = W(w).now(), end = start + rnd_delta() - 1;
	bool stays = model[i].pending && model[i].w == w &&
		     model[i].due - now >= start && model[i].due - now <= end;
	Tick at;

	W(w).schedule_in_range(&units[i].ev_, start, end);
	at = units[i].ev_.scheduled_at();
	CHECK(units[i].ev_.active(), "event %d not pending after schedule_in_range(%" PRIu64
	      ", %" PRIu64 ") on wheel %d", i, start, end, w);
	if (stays) {
		CHECK(at == model[i].due, "event %d due in [now + %" PRIu64 ", now + %" PRIu64
		      "] at %" PRIu64 " moved to %" PRIu64, i, start, end, model[i].due, at);
		return;
	}
	CHECK(at >= now + start && at <= now + end, "event %d put at %" PRIu64
	      ", out of [now + %" PRIu64 ", now + %" PRIu64 "]", i, at, start, end);
	model[i] = { true, at == now, at, w };
}

static void do_cancel(int i)
{
	units[i].ev_.cancel();
	model[i].pending = false;
}

/*
 * Fired at @now on wheel @w, which began this advance() at @start: an event
 * pending on @w for @now, or overdue there.
 */
/* Fired: counted against the running advance()'s budget, on its wheel. */
static void check_fired(const char *what, int i, const Model &m)
{
	int w = advancing;
	Tick now = w < 0 ? 0 : W(w).now();

	fired++;
	fired_in_call++;
	CHECK(w >= 0 && m.pending && m.w == w &&
	      (m.overdue ? now == call_start[w] : m.due == now),
	      "%s %d fired on wheel %d at %" PRIu64 ", due %" PRIu64 " on wheel %d (%s)",
	      what, i, w, now, m.due, m.w, m.pending ? "pending" : "not pending");
}

/*
 * Fired: the model must have it pending for now.  Now and then the callback
 * arms itself again (from its own tick: start 0 included, or on the other
 * wheel) or cancels another event, as Ratas' callbacks may.
 */
void Unit::fire()
{
	int i = id_;

	check_fired("event", i, model[i]);
	model[i].pending = false;
	switch (rnd() % 8) {
	case 0:
		do_schedule_in_range(i, 0);
		break;
	case 1:
		do_schedule(i);
		break;
	case 2:
		do_cancel(rnd() % NR_EVENTS);
		break;
	}
}

/*
 * An event that frees itself in its callback, as Ratas' users' may, and
 * that the program may also destroy while it is pending: its destructor
 * takes it off the wheel.
 */
#define NR_SHOTS	16

class OneShot;
static OneShot *shots[NR_SHOTS];

class OneShot : public TimerEventInterface {
public:
	OneShot(Tick due, int k) : m_({ true, false, due, 0 }), k_(k) {}

	void execute() override
	{
		check_fired("one-shot", k_, m_);
		shots[k_] = nullptr;
		oneshots_live--;
		delete this;
	}

private:
	Model m_;
	int k_;
};

/* Half of them soon: through the inline advance's loop, most likely. */
static void do_oneshot(void)
{
	Tick delta = rnd() % 2 ? 1 + rnd() % 64 : rnd_delta();
	int k = rnd() % NR_SHOTS;

	if (shots[k])
		return;
	shots[k] = new OneShot(W(0).now() + delta, k);
	W(0).schedule(shots[k], delta);
	oneshots_live++;
}

static void destroy_oneshot(int k)
{
	if (!shots[k])
		return;
	delete shots[k];
	shots[k] = nullptr;
	oneshots_live--;
}

/*
 * Wheel 2 destroyed, its pending events cancelled first, and made again at
 * the same address: events that fired on the old one must not pass for the
 * new one's.
 */
static void remake_wheel2(void)
{
	for (int i = 0; i < NR_EVENTS; i++)
		if (model[i].pending && model[i].w == 2)
			do_cancel(i);
	W(2).~TimerWheel();
	new (wheel_mem[2]) TimerWheel();
	target[2] = 0;
	short_of_target[2] = false;
}

/*
 * After an advance of wheel @w: nothing pending there is due at or before
 * now, but overdue, or, if a budget stopped it short, due at now itself.
 */
static void check_state(int w)
{
	Tick now = W(w).now();

	for (int i = 0; i < NR_EVENTS; i++) {
		CHECK(units[i].ev_.active() == model[i].pending,
		      "event %d active() %d, the model says %d", i,
		      units[i].ev_.active(), model[i].pending);
		if (!model[i].pending || model[i].w != w || model[i].overdue)
			continue;
		CHECK(model[i].due > now || (short_of_target[w] && model[i].due == now),
		      "event %d due %" PRIu64 " still pending on wheel %d", i,
		      model[i].due, w);
	}
}

/* Whether a callback armed an event of wheel @w for now: due next call. */
static bool overdue_on(int w)
{
	for (int i = 0; i < NR_EVENTS; i++)
		if (model[i].pending && model[i].overdue && model[i].w == w)
			return true;
	return false;
}

/*
 * Advance wheel @w by @delta, one call in four with a budget of 0 to 3: it
 * fires no more than its budget, and says it reached its target (its now
 * the target, nothing due) when it did; without a budget, always.
 */
static void do_advance(int w, Tick delta)
{
	size_t budget = rnd() % 4 ? SIZE_MAX : rnd() % 4;
	bool done;

	call_start[w] = W(w).now();
	/* A call a budget stopped short left its target to this one's. */
	target[w] += delta;
	advancing = w;
	fired_in_call = 0;
	done = W(w).advance(delta, budget);
	advancing = -1;
	CHECK(fired_in_call <= budget, "advance() with a budget of %zu fired %lu",
	      budget, fired_in_call);
	CHECK(budget != SIZE_MAX || done || overdue_on(w),
	      "advance() with no budget stopped short");
	CHECK(done ? W(w).now() == target[w] : W(w).now() <= target[w],
	      "advance(%" PRIu64 ") from %" PRIu64 " to %" PRIu64 " says %s at %"
	      PRIu64, delta, call_start[w], target[w], done ? "done" : "short",
	      W(w).now());
	short_of_target[w] = !done;
	check_state(w);
}

/*
 * Two to five events scheduled for one tick: a budget then stops an
 * advance in the middle of it, at its target, now and then.
 */
static void do_burst(int w)
{
	Tick delta = 1 + rnd() % 64, due = W(w).now() + delta;
	int k = 2 + rnd() % 4;

	while (k--) {
		int i = rnd() % NR_EVENTS;

		W(w).schedule(&units[i].ev_, delta);
		model[i] = { true, false, due, w };
	}
}

/*
 * Wheel 1 keeps near wheel 0's now, mostly behind it, so that an event that
 * fired on one is often due ahead of the other's now when it moves.
 */
static Tick rnd_advance(int w)
{
	Tick gap = W(0).now() - W(1).now();

	if (w == 0)
		return rnd_delta();
	/* Wheel 2 moves slowly: its ticks stay in reach of the ranges. */
	if (w == 2)
		return rnd() % 4096;
	if ((int64_t)gap <= 0)
		return rnd() % 64;
	return gap - rnd() % (gap < 4096 ? gap : 4096);
}

static void do_next_event(int w)
{
	Tick max = rnd_delta(), t = W(w).ticks_to_next_event(max);
	Tick now = W(w).now();

	CHECK(t <= max, "ticks_to_next_event(%" PRIu64 ") = %" PRIu64, max, t);
	for (int i = 0; i < NR_EVENTS; i++)
		CHECK(!model[i].pending || model[i].w != w || model[i].due - now >= t,
		      "ticks_to_next_event() = %" PRIu64 " passes event %d, due in %"
		      PRIu64, t, i, model[i].due - now);
	do_advance(w, t);
}

static void step(void)
{
	int i = rnd() % NR_EVENTS, w = rnd() % 4 ? 0 : 1 + rnd() % 2;
	unsigned int op = rnd() % 200;

	if (op >= 100)
		op -= 100;
	else if (op == 0)
		return remake_wheel2();
	else if (op == 1)
		return destroy_oneshot(rnd() % NR_SHOTS);
	if (op < 25)
		do_schedule(i);
	else if (op < 55)
		do_schedule_in_range(i, rnd() % 8 ? rnd_delta() : 0);
	else if (op < 66)
		do_cancel(i);
	else if (op < 68)
		do_oneshot();
	else if (op < 70)
		do_burst(w);
	else if (op < 90)
		do_next_event(w);
	else
		do_advance(w, rnd_advance(w));
}

/*
 * The adapter aborts on a tick past the wheel's reach, 2^63 ticks (Ratas'
 * levels cover 64 bits), or one that wraps around 2^64 to a tick behind
 * now, rather than go on silently.  Each in a child of its own, on a wheel
 * of its own; SIGCHLD as waitpid() needs it, whatever was inherited.
 */
static void check_aborts(void)
{
	static const struct {
		const char *what;
		int kind;
		Tick v;
	} cases[] = {
		{ "advance() wrapping 2^64", 0, ~0ULL },
		{ "advance() past the reach", 0, 1ULL << 63 },
		{ "schedule() past the reach", 1, 1ULL << 63 },
		{ "schedule_in_range() ending past the reach", 2, ~0ULL },
	};
	int st;

	signal(SIGCHLD, SIG_DFL);
	for (const auto &c : cases) {
		pid_t pid = fork();

		if (!pid) {
			TimerWheel w;
			Unit u;

			w.advance(5);
			if (c.kind == 0)
				w.advance(c.v);
			else if (c.kind == 1)
				w.schedule(&u.ev_, c.v);
			else
				w.schedule_in_range(&u.ev_, 1, c.v);
			_exit(0);
		}
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
		      WTERMSIG(st) == SIGABRT, "%s did not abort", c.what);
	}
}

int main(int argc, char **argv)
{
	unsigned long steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 300000;
	const char *s = getenv("TW_RATAS_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);

	rng_state = seed ? seed : 1;
	/* First, so that a crash can be replayed too. */
	fprintf(stderr, "tw_ratas_check: seed %" PRIu64 "\n", seed);
	for (int i = 0; i < NR_EVENTS; i++)
		units[i].id_ = i;
	for (int w = 0; w < NR_WHEELS; w++)
		new (wheel_mem[w]) TimerWheel();
	for (steps_done = 0; steps_done < steps && failures < 10; steps_done++)
		step();
	for (int i = 0; i < NR_EVENTS; i++)
		do_cancel(i);
	/* The one-shots left fire, and free themselves: none leaks. */
	call_start[0] = W(0).now();
	advancing = 0;
	while (oneshots_live && failures < 10 && W(0).advance(1ULL << 24))
		;
	advancing = -1;
	CHECK(!oneshots_live, "%lu one-shots never fired", oneshots_live);
	check_aborts();
	fprintf(stderr, "tw_ratas_check: seed %" PRIu64 ", %lu steps, %lu fired, now %"
		PRIu64 "/%" PRIu64 "/%" PRIu64 ": %s\n", seed, steps_done, fired,
		W(0).now(), W(1).now(), W(2).now(), failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
