// SPDX-License-Identifier: MIT
/*
 * id_generation: reuse a timer's id safely, with a generation in the id.
 *
 * A program that names its timers by a small slot number (a connection's
 * index, a table entry) reuses the number as soon as the slot is free.  A
 * stop makes the kernel forget the old timer and withdraws its event if it
 * is still queued in the kernel, but an event already read, sitting in the
 * program's own read buffer and not yet handled, is out of the kernel's
 * reach: handled after the slot is reused, it would look like the new
 * timer's expiry.
 *
 * The cure is a generation in the id: the slot in the low 32 bits, a
 * counter the slot bumps at each reuse in the high 32.  An event whose
 * generation is not the slot's current one is for a timer that no longer
 * exists: drop it.  The kernel never reuses or rewrites an id: the event
 * carries exactly the id the timer was started with.
 *
 * This program makes the race happen on purpose and checks the rule: it
 * starts NSLOT timers, lets them all fire, reads the events, handles half,
 * then reuses every slot whose event it has not handled yet (a stop, which
 * finds the timer already read: ENOENT, and a start under the next
 * generation), and handles the rest of the buffer: those events are all
 * stale and must be dropped.  Then the new timers fire, and every one of
 * their events must be taken, once.
 *
 * Exit status: 0 as expected, 1 not, 2 no device.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <libtimingwheel.h>

#define NSLOT		64
#define MS		1000000ULL

/* The id of a slot's timer: the generation above the slot. */
static inline uint64_t tw_id_make(uint32_t slot, uint32_t gen)
{
	return (uint64_t)gen << 32 | slot;
}

static inline uint32_t tw_id_slot(uint64_t id)
{
	return (uint32_t)id;
}

static inline uint32_t tw_id_gen(uint64_t id)
{
	return (uint32_t)(id >> 32);
}

struct slot {
	uint32_t	gen;		/* the generation of the slot's timer */
	int		fired;		/* events taken for it */
};

static struct slot slots[NSLOT];
static int stale;

/* Handle one event: the slot's current timer's, or a stale one, dropped. */
static int handle(const struct twheel_event *ev)
{
	uint32_t s = tw_id_slot(ev->id);

	if (s >= NSLOT)
		return -1;
	if (tw_id_gen(ev->id) != slots[s].gen) {
		stale++;	/* the slot was reused: not this timer's expiry */
		return 0;
	}
	slots[s].fired++;
	return 0;
}

/* Read until @want events have come (waiting up to 2 s), into @ev. */
static ssize_t read_all(int fd, struct twheel_event *ev, size_t want)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < want) {
		if (poll(&p, 1, 2000) <= 0)
			break;
		n = timingwheel_read(fd, ev + got, want - got);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return n;
		got += n;
	}
	return got;
}

int main(void)
{
	struct twheel_event ev[NSLOT];
	ssize_t n, i;
	int fd, ret, s, bad = 0;

	fd = timingwheel_open(TIMINGWHEEL_CLOCK_DEFAULT, 0, O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "id_generation: %s\n", timingwheel_strerror(fd));
		return fd == -ENOENT || fd == -ENODEV ? 2 : 1;
	}
	for (s = 0; s < NSLOT; s++) {
		ret = timingwheel_start_after(fd, tw_id_make(s, 0), MS);
		if (ret)
			goto fail;
	}
	n = read_all(fd, ev, NSLOT);
	if (n != NSLOT) {
		fprintf(stderr, "id_generation: %zd of %d first events\n", n, NSLOT);
		return 1;
	}
	/* Handle half of what was read ... */
	for (i = 0; i < n / 2; i++)
		bad |= handle(&ev[i]);
	/* ... then reuse the slots of the other half, their events still here. */
	for (i = n / 2; i < n; i++) {
		s = tw_id_slot(ev[i].id);
		ret = timingwheel_stop(fd, tw_id_make(s, slots[s].gen));
		if (ret != -ENOENT) {	/* its event was read: the kernel forgot it */
			fprintf(stderr, "id_generation: stop of slot %d: %d\n", s, ret);
			return 1;
		}
		slots[s].gen++;
		ret = timingwheel_start_after(fd, tw_id_make(s, slots[s].gen), 2 * MS);
		if (ret)
			goto fail;
	}
	/* The rest of the buffer: every event is stale now, and dropped. */
	for (i = n / 2; i < n; i++)
		bad |= handle(&ev[i]);
	if (stale != NSLOT - NSLOT / 2) {
		fprintf(stderr, "id_generation: %d stale events dropped, want %d\n", stale,
			NSLOT - NSLOT / 2);
		return 1;
	}
	/* The new timers' events: each taken, once. */
	n = read_all(fd, ev, NSLOT - NSLOT / 2);
	for (i = 0; i < n; i++)
		bad |= handle(&ev[i]);
	for (s = 0; s < NSLOT; s++)
		bad |= slots[s].fired != 1;
	if (bad || n != NSLOT - NSLOT / 2 || stale != NSLOT - NSLOT / 2) {
		fprintf(stderr, "id_generation: wrong: %zd new events, %d stale\n", n, stale);
		return 1;
	}
	printf("id_generation: %d slots, %d reused, %d stale events dropped, each timer once\n",
	       NSLOT, NSLOT - NSLOT / 2, stale);
	close(fd);
	return 0;
fail:
	fprintf(stderr, "id_generation: start: %s\n", timingwheel_strerror(ret));
	return 1;
}
