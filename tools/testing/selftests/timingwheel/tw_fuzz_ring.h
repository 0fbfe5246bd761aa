/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw_fuzz ring SEED SECONDS: a random client of the rings, through
 * libtimingwheel, whose every event and result is checked against a model
 * of its slots.  Included by tw_fuzz.c, whose rng, step, failures and
 * FAIL() it uses.
 *
 * Small rings (an SQ of 8 or 16, a CQ of 8 to 64) so that full SQs, a full
 * CQ, waiting events and NEED_FLUSH come often.  Starts are due 0 to 20 ms
 * ahead, some in the past, with slack or none; on 3 files in 4 (set up
 * with TWHEEL_RING_SETUP_PERIODIC) a quarter of the starts are periodic,
 * every 200 us to 5 ms.  Every stop asks for its result
 * (TWHEEL_SQE_RESULT), so that each slot's outcome is known before it is
 * taken again.  The promises checked:
 *
 * - never early: an expiry's due is no earlier than the time asked, no
 *   later than it plus the slack and a tick, its fired no earlier than its
 *   due, and it is read no earlier than its due;
 * - never lost, never twice: each start ends in one expiry or one stop;
 *   at the end every slot still armed fires (a periodic one is stopped);
 * - a periodic slot's events keep to its period: each is due on the
 *   period after the last event's and the periods its overrun counted,
 *   which are the periods passed when it was posted (at its fired, unless
 *   it waited for room), no more;
 * - a stop is told the truth: STOPPED_PENDING or STOPPED_EXPIRED and no
 *   expiry, or -ENOENT after its expiry; a stop that timingwheel_stop_won()
 *   called won is never followed by its expiry;
 * - the header's counters: every event and result posted was read, and
 *   the entries that failed are the stops that came too late (-ENOENT).
 *
 * Nothing is timed except the final wait for the slots still armed,
 * bounded at 60 s past the last due time.
 */
#ifndef _TW_FUZZ_RING_H
#define _TW_FUZZ_RING_H

#define RM_SLOTS	64
#define RM_HORIZON_NS	(20 * MS)

enum rm_state { RM_FREE, RM_ARMED, RM_STOPPING };

/**
 * struct rm_slot - the model of one slot
 * @state: enum rm_state
 * @gen:   the generation of its start
 * @when:  the time asked
 * @slack: the slack asked
 * @period: the period of a periodic start, 0 for a one-shot
 * @next:  periodic: the due time of its next event, 0 before the first
 * @won_at: STOPPING: timingwheel_stop_won() said the stop wins against
 *         every expiry due at or after this; 0: not said
 * @fired: STOPPING: its expiry came before the stop's result
 */
struct rm_slot {
	enum rm_state	state;
	uint16_t	gen;
	uint64_t	when;
	uint64_t	slack;
	uint64_t	period;
	uint64_t	next;
	uint64_t	won_at;
	bool		fired;
};

/**
 * struct rm - the ring client and its model
 * @ring:    the library's rings
 * @sq:      the one SQ
 * @res:     the file's resolution
 * @periodic: set up with TWHEEL_RING_SETUP_PERIODIC
 * @slot:    the model, per slot
 * @armed:   slots ARMED or STOPPING
 * @last:    the latest time asked plus slack
 * @read:    events and results read
 * @starts:  starts submitted
 * @periodics: periodic starts among them
 * @stops:   stops submitted
 * @events:  expiries read
 * @late:    stops answered -ENOENT
 */
struct rm {
	struct timingwheel_ring	ring;
	struct timingwheel_sq	*sq;
	uint64_t		res;
	bool			periodic;
	struct rm_slot		slot[RM_SLOTS];
	unsigned int		armed;
	uint64_t		last;
	uint64_t		read;
	uint64_t		starts;
	uint64_t		periodics;
	uint64_t		stops;
	uint64_t		events;
	uint64_t		late;
};

static unsigned int rm_read(struct rm *r);

/* Submit; -EBUSY says results wait for CQ room, which a read makes. */
static void rm_submit(struct rm *r)
{
	int ret = timingwheel_submit(r->sq);

	if (ret < 0 && ret != -EBUSY)
		FAIL("ring submit: %d", ret);
}

/*
 * Make room for an entry: while the SQ is full, read the CQ (results held
 * for its room keep the SQ full) and submit, which enters.  Callers pick
 * their slot after this, since a read may end a slot.
 */
static void rm_room(struct rm *r)
{
	int tries;

	for (tries = 0; tries < 10000; tries++) {
		if (r->sq->tail - __atomic_load_n(&r->sq->ctl->head, __ATOMIC_ACQUIRE) <=
		    r->sq->mask)
			return;
		rm_read(r);
		rm_submit(r);
		if (tries > 100)
			usleep(100);
	}
	FAIL("ring: the SQ stayed full");
	exit(1);
}

/* The entry rm_room() made room for. */
static struct twheel_sqe *rm_sqe(struct rm *r)
{
	struct twheel_sqe *e = timingwheel_get_sqe(r->sq);

	if (!e) {
		FAIL("ring: no entry after room was made");
		exit(1);
	}
	return e;
}

static void rm_expiry(struct rm *r, const struct twheel_cqe *e)
{
	struct rm_slot *s = &r->slot[e->slot % RM_SLOTS];
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	r->events++;
	if (e->slot >= RM_SLOTS || s->state == RM_FREE || s->gen != e->gen ||
	    (s->state == RM_STOPPING && s->fired)) {
		FAIL("ring: expiry of slot %u gen %u not armed (state %d gen %u)",
		     e->slot, e->gen, s->state, s->gen);
		return;
	}
	if ((s->next ? e->due != s->next :
	     e->due < s->when || e->due > s->when + s->slack + r->res) ||
	    e->fired < e->due || now < e->due)
		FAIL("ring: slot %u asked %llu +%llu: due %llu fired %llu read at %llu",
		     e->slot, (unsigned long long)s->when, (unsigned long long)s->slack,
		     (unsigned long long)e->due, (unsigned long long)e->fired,
		     (unsigned long long)now);
	if (e->cookie != e->slot + 1000ULL * e->gen)
		FAIL("ring: slot %u cookie %llu", e->slot, (unsigned long long)e->cookie);
	if (s->won_at && e->due >= s->won_at)
		FAIL("ring: slot %u fired at %llu after its stop was said to win", e->slot,
		     (unsigned long long)e->due);
	if (s->period) {
		/* The periods passed when it was posted: at its fired, or after. */
		uint64_t passed = (e->fired / r->res * r->res - e->due) / s->period;

		if (e->flags & TWHEEL_CQE_WAITED ? e->overrun < passed : e->overrun != passed)
			FAIL("ring: slot %u due %llu fired %llu: overrun %llu, %llu passed",
			     e->slot, (unsigned long long)e->due,
			     (unsigned long long)e->fired, (unsigned long long)e->overrun,
			     (unsigned long long)passed);
		if (e->due + e->overrun * s->period > now)
			FAIL("ring: slot %u overrun %llu past the time", e->slot,
			     (unsigned long long)e->overrun);
		/* Armed again, or it says it ended: not within 60 s. */
		if (!(e->flags & TWHEEL_CQE_PERIODIC))
			FAIL("ring: periodic slot %u not armed again", e->slot);
		s->next = e->due + (e->overrun + 1) * s->period;
		return;
	}
	if (s->state == RM_STOPPING) {
		s->fired = true;
		return;
	}
	s->state = RM_FREE;
	r->armed--;
	timingwheel_slot_put(&r->ring, e->slot);
}

static void rm_result(struct rm *r, const struct twheel_cqe *e)
{
	struct rm_slot *s = &r->slot[e->slot % RM_SLOTS];
	bool gone = e->res == TWHEEL_STOPPED_PENDING || e->res == TWHEEL_STOPPED_EXPIRED;

	if (e->slot >= RM_SLOTS || s->state != RM_STOPPING || s->gen != e->gen) {
		FAIL("ring: result %d of slot %u gen %u not stopping", e->res, e->slot, e->gen);
		return;
	}
	/* A periodic slot is armed, or its event waits, until it is stopped. */
	if (s->period && !gone)
		FAIL("ring: stop of periodic slot %u: result %d", e->slot, e->res);
	else if (!s->period && !(gone && !s->fired) && !(e->res == -ENOENT && s->fired))
		FAIL("ring: stop of slot %u: result %d, expiry %s", e->slot, e->res,
		     s->fired ? "read before it" : "never read");
	r->late += e->res == -ENOENT;
	if (s->won_at && !s->period && e->res != TWHEEL_STOPPED_PENDING)
		FAIL("ring: stop of slot %u said to win: result %d", e->slot, e->res);
	s->state = RM_FREE;
	r->armed--;
	timingwheel_slot_put(&r->ring, e->slot);
}

/* Read what the CQ holds; the number read. */
static unsigned int rm_read(struct rm *r)
{
	struct twheel_cqe *cqe[16];
	unsigned int n, i;
	int ret;

	n = timingwheel_peek_batch_cqe(&r->ring, cqe, 1 + below(16));
	for (i = 0; i < n; i++) {
		if (cqe[i]->flags & TWHEEL_CQE_EXPIRY)
			rm_expiry(r, cqe[i]);
		else if (cqe[i]->flags & TWHEEL_CQE_RESULT)
			rm_result(r, cqe[i]);
		else
			FAIL("ring: an event of flags %#x", cqe[i]->flags);
	}
	ret = timingwheel_cq_advance(&r->ring, n);
	if (ret < 0 && ret != -EBUSY)
		FAIL("ring: cq_advance: %d", ret);
	r->read += n;
	return n;
}

/* Start a free slot: due 0 to 20 ms ahead, now and then in the past. */
static void rm_start(struct rm *r)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	struct rm_slot *s;
	uint32_t slot;
	uint16_t gen;

	rm_room(r);
	if (timingwheel_slot_get(r->sq, &slot, &gen))
		return;
	s = &r->slot[slot];
	if (slot >= RM_SLOTS || s->state != RM_FREE) {
		FAIL("ring: the library gave slot %u, not free", slot);
		return;
	}
	*s = (struct rm_slot) {
		.state = RM_ARMED, .gen = gen,
		.when = below(8) ? now + below(RM_HORIZON_NS) : now - below(RM_HORIZON_NS),
		.slack = below(3) ? 0 : below(5 * MS),
	};
	if (r->periodic && !below(4)) {
		/* Whole ticks, 200 us to 5 ms. */
		s->slack = 0;
		s->period = (200000 + below(4800000)) / r->res * r->res;
		s->period += s->period ? 0 : r->res;
		timingwheel_prep_periodic(rm_sqe(r), slot, gen, slot + 1000ULL * gen,
					  s->when, s->period, 0);
		r->periodics++;
	} else {
		timingwheel_prep_start(rm_sqe(r), slot, gen, slot + 1000ULL * gen,
				       s->when, s->slack, 0);
	}
	r->armed++;
	r->starts++;
	if (s->when + s->slack > r->last)
		r->last = s->when + s->slack;
}

/*
 * Stop an armed slot (a periodic one if @periodic), asking for the result;
 * whether there was one.
 */
static bool rm_stop(struct rm *r, bool periodic)
{
	unsigned int i, k = below(RM_SLOTS);
	struct rm_slot *s;
	uint64_t due;

	rm_room(r);
	for (i = 0; i < RM_SLOTS; i++) {
		s = &r->slot[(k + i) % RM_SLOTS];
		if (s->state != RM_ARMED || (periodic && !s->period))
			continue;
		timingwheel_prep_stop(rm_sqe(r), (k + i) % RM_SLOTS, s->gen,
				      (k + i) % RM_SLOTS + 1000ULL * s->gen,
				      TWHEEL_SQE_RESULT);
		rm_submit(r);
		/* The stop is in the SQ: whether it provably wins. */
		due = s->next ? s->next : s->when;
		s->won_at = timingwheel_stop_won(r->sq, due) ? due : 0;
		s->fired = false;
		s->state = RM_STOPPING;
		r->stops++;
		return true;
	}
	return false;
}

/* Wait for every slot still armed or stopping, 60 s past the last due. */
static void rm_drain(struct rm *r)
{
	uint64_t end = r->last + 60 * SEC;
	struct pollfd pfd = { .fd = r->ring.fd, .events = POLLIN };

	rm_submit(r);
	/* Periodic slots never end by themselves. */
	while (rm_stop(r, true))
		;
	rm_submit(r);
	while (r->armed && clock_ns(CLOCK_MONOTONIC) < end) {
		if (rm_read(r))
			continue;
		if (poll(&pfd, 1, 100) < 0)
			FAIL("ring: poll: %d", errno);
		if (pfd.revents & POLLERR)
			FAIL("ring: EPOLLERR");
		if (timingwheel_ring_enter(&r->ring) < 0 && errno != EBUSY)
			FAIL("ring: enter while draining");
	}
	if (r->armed)
		FAIL("ring: %u slots never fired nor stopped", r->armed);
	/*
	 * The counters are published after the CQ's tail, by the call or
	 * callback that posted; an ENTER takes the lock and publishes them.
	 */
	if (timingwheel_ring_enter(&r->ring) < 0)
		FAIL("ring: the last enter");
	while (rm_read(r))
		;
	if (r->ring.hdr->posted != r->read || r->ring.hdr->errors != r->late)
		FAIL("ring: posted %llu, read %llu, errors %llu, late stops %llu",
		     (unsigned long long)r->ring.hdr->posted, (unsigned long long)r->read,
		     (unsigned long long)r->ring.hdr->errors, (unsigned long long)r->late);
}

static int rm_setup(struct rm *r, int fd)
{
	uint64_t res[] = { TWHEEL_MIN_RESOLUTION_NS, 100000, 1000000 };
	struct twheel_config cfg = { .clockid = CLOCK_MONOTONIC };
	struct twheel_ring_setup p = {
		.capacity = RM_SLOTS, .nr_sq = 1, .sq_entries = 8U << below(2),
		.cq_entries = 8U << below(4),
	};
	int ret;

	r->periodic = below(4) != 0;
	p.flags = r->periodic ? TWHEEL_RING_SETUP_PERIODIC : 0;
	r->res = res[below(3)];
	cfg.resolution_ns = r->res;
	if (tw_ioctl(fd, TWHEEL_IOC_SET_CONFIG, &cfg))
		FAIL("ring: SET_CONFIG");
	ret = timingwheel_ring_init(fd, &p, &r->ring);
	if (ret) {
		FAIL("ring: timingwheel_ring_init: %d", ret);
		return ret;
	}
	r->sq = timingwheel_ring_sq(&r->ring, 0);
	return 0;
}

static int fuzz_ring_model(unsigned int seconds)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + seconds * SEC;
	struct rm *r = calloc(1, sizeof(*r));
	int fd = dev_open();

	if (!r || rm_setup(r, fd))
		return 2;
	for (step = 0; clock_ns(CLOCK_MONOTONIC) < end; step++) {
		switch (below(10)) {
		case 0 ... 3:
			rm_start(r);
			break;
		case 4 ... 5:
			rm_stop(r, false);
			break;
		case 6 ... 7:
			rm_read(r);
			break;
		case 8:
			rm_submit(r);
			break;
		default:
			usleep(below(2000));
		}
	}
	rm_drain(r);
	printf("TW-FUZZ ring seed=%llu steps=%llu starts=%llu periodic=%llu stops=%llu ",
	       seed, step, (unsigned long long)r->starts,
	       (unsigned long long)r->periodics, (unsigned long long)r->stops);
	printf("late=%llu events=%llu failures=%llu\n", (unsigned long long)r->late,
	       (unsigned long long)r->events, failures);
	timingwheel_ring_exit(&r->ring);
	close(fd);
	free(r);
	return failures ? 1 : 0;
}

#endif /* _TW_FUZZ_RING_H */
