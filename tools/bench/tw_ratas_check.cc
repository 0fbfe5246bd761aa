// SPDX-License-Identifier: GPL-2.0
/*
 * tw_ratas.hh against a model of Ratas' interface, seeded: random
 * schedule(), schedule_in_range(), cancel(), advance() and
 * ticks_to_next_event() calls on a few events, some of them made from the
 * events' own callbacks, each checked against what Ratas promises:
 *
 *   - an event fires once, at the tick it was scheduled for, never early
 *     and never late (advance() fires everything up to its target);
 *   - schedule_in_range() leaves a pending event already due in its range
 *     alone, and otherwise leaves it pending at a tick in the range;
 *   - active() is true exactly while the event is pending;
 *   - ticks_to_next_event() never reports a tick past a pending event's.
 *
 * The adapter's own shortcut in schedule_in_range(), which tells a pending
 * event from its tick alone (cancel() sets a stopped one's to 0), is what
 * this is for: Ratas' benchmark program, the adapter's other user, comes
 * from outside the tree and is not part of make check.  Runs in a second
 * in make -C tools bench-ratas-check; TW_RATAS_SEED replays a run.
 *
 *   tw_ratas_check [steps]
 */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "tw_ratas.hh"

#define NR_EVENTS	48

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
};

class Unit {
public:
	Unit() : ev_(this) {}
	inline void fire();

	int id_ = 0;
	MemberTimerEvent<Unit, &Unit::fire> ev_;
};

/* Before the events, so that it outlives them. */
static TimerWheel the_wheel;
static TimerWheel *const wheel = &the_wheel;
static Unit units[NR_EVENTS];
static Model model[NR_EVENTS];
static uint64_t rng_state;
static Tick call_start;	/* now when the running advance() began */
static unsigned long failures, fired, steps_done;

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
			fprintf(stderr, "tw_ratas_check: step %lu, now %" PRIu64 ": ", \
				steps_done, wheel->now());		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

static void do_schedule(int i)
{
	Tick delta = rnd_delta();

	wheel->schedule(&units[i].ev_, delta);
	model[i] = { true, false, wheel->now() + delta };
	CHECK(units[i].ev_.scheduled_at() == model[i].due,
	      "event %d scheduled for %" PRIu64 ", not %" PRIu64, i,
	      units[i].ev_.scheduled_at(), model[i].due);
}

/* @start may be 0: an event that fired at now is then 0 ticks ahead. */
static void do_schedule_in_range(int i, Tick start)
{
	Tick now = wheel->now(), end = start + rnd_delta() - 1;
	bool stays = model[i].pending && model[i].due - now >= start &&
		     model[i].due - now <= end && model[i].due > now;
	Tick at;

	wheel->schedule_in_range(&units[i].ev_, start, end);
	at = units[i].ev_.scheduled_at();
	CHECK(units[i].ev_.active(), "event %d not pending after schedule_in_range(%" PRIu64
	      ", %" PRIu64 ")", i, start, end);
	if (stays)
		CHECK(at == model[i].due, "event %d due in [now + %" PRIu64 ", now + %" PRIu64
		      "] at %" PRIu64 " moved to %" PRIu64, i, start, end, model[i].due, at);
	else
		CHECK(at >= now + start && at <= now + end, "event %d put at %" PRIu64
		      ", out of [now + %" PRIu64 ", now + %" PRIu64 "]", i, at, start, end);
	model[i] = { true, at == now, at };
}

static void do_cancel(int i)
{
	units[i].ev_.cancel();
	model[i].pending = false;
}

/*
 * Fired: the model must have it pending for now.  Now and then the callback
 * arms itself again (from its own tick: start 0 included) or cancels
 * another event, as Ratas' callbacks may.
 */
void Unit::fire()
{
	Tick now = wheel->now();
	int i = id_;

	fired++;
	CHECK(model[i].pending &&
	      (model[i].overdue ? now == call_start : model[i].due == now),
	      "event %d fired at %" PRIu64 ", due %" PRIu64 " (%s)", i, now,
	      model[i].due, model[i].pending ? "pending" : "not pending");
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

/* After an advance: nothing pending is due at or before now, but overdue. */
static void check_state(void)
{
	Tick now = wheel->now();

	for (int i = 0; i < NR_EVENTS; i++) {
		CHECK(units[i].ev_.active() == model[i].pending,
		      "event %d active() %d, the model says %d", i,
		      units[i].ev_.active(), model[i].pending);
		CHECK(!model[i].pending || model[i].due > now || model[i].overdue,
		      "event %d due %" PRIu64 " still pending", i, model[i].due);
	}
}

static void do_next_event(void)
{
	Tick max = rnd_delta(), t = wheel->ticks_to_next_event(max);
	Tick now = wheel->now();

	CHECK(t <= max, "ticks_to_next_event(%" PRIu64 ") = %" PRIu64, max, t);
	for (int i = 0; i < NR_EVENTS; i++)
		CHECK(!model[i].pending || model[i].due - now >= t,
		      "ticks_to_next_event() = %" PRIu64 " passes event %d, due in %"
		      PRIu64, t, i, model[i].due - now);
	call_start = now;
	wheel->advance(t);
	check_state();
}

static void step(void)
{
	int i = rnd() % NR_EVENTS;
	unsigned int op = rnd() % 100;

	if (op < 25)
		do_schedule(i);
	else if (op < 55)
		do_schedule_in_range(i, rnd() % 8 ? rnd_delta() : 0);
	else if (op < 70)
		do_cancel(i);
	else if (op < 90)
		do_next_event();
	else {
		call_start = wheel->now();
		wheel->advance(rnd_delta());
		check_state();
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
	for (steps_done = 0; steps_done < steps && failures < 10; steps_done++)
		step();
	for (int i = 0; i < NR_EVENTS; i++)
		do_cancel(i);
	fprintf(stderr, "tw_ratas_check: seed %" PRIu64 ", %lu steps, %lu fired, now %"
		PRIu64 ": %s\n", seed, steps_done, fired, wheel->now(),
		failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
