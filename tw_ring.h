/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared-memory rings of a timingwheel client: the interface between
 * tw_ring.c, tw_client.c and tw_chardev.c.  See "DOC: Rings" in tw_ring.c.
 */
#ifndef _TW_RING_H
#define _TW_RING_H

#include <linux/poll.h>
#include <linux/types.h>
#include <uapi/linux/timingwheel.h>

struct tw_client;
struct tw_ring;
struct tw_timer;
struct vm_area_struct;

/* Process context, the client's lock not held. */
int tw_ring_size(struct twheel_ring_setup *p);
struct tw_ring *tw_ring_alloc(struct twheel_ring_setup *p, clockid_t clockid,
			      u64 resolution, s64 off);
void tw_ring_free(struct tw_ring *r);
int tw_ring_mmap(struct tw_ring *r, struct vm_area_struct *vma);
u64 tw_ring_memory(const struct tw_ring *r);
u32 tw_ring_capacity(const struct tw_ring *r);
unsigned int tw_ring_nr_sq(const struct tw_ring *r);
void *tw_ring_kaddr(struct tw_ring *r, u64 off);

/* The client's lock held. */
bool tw_ring_begin(struct tw_ring *r, struct tw_client *c, u64 now, u64 tick,
		   unsigned int budget, bool callback);
bool tw_ring_owns(const struct tw_ring *r, const struct tw_timer *node);
void tw_ring_fire(struct tw_ring *r, struct tw_client *c,
		  struct tw_timer *node);
unsigned int tw_ring_end(struct tw_ring *r);
bool tw_ring_publish(struct tw_ring *r, u64 armed_for);
bool tw_ring_stalled(const struct tw_ring *r);
void tw_ring_stall(struct tw_ring *r);
bool tw_rings_supported(void);
bool tw_ring_more(struct tw_ring *r);
bool tw_ring_broken(const struct tw_ring *r);
bool tw_ring_take_break(struct tw_ring *r);
bool tw_ring_held(const struct tw_ring *r);
bool tw_ring_results_held(const struct tw_ring *r);
u64 tw_ring_work_bound(const struct tw_ring *r);
u64 tw_ring_parked(const struct tw_ring *r);
u64 tw_ring_queued(const struct tw_ring *r);

/* Without the lock: poll()'s and read()'s looks, which cannot miss a wakeup. */
__poll_t tw_ring_poll_mask(struct tw_ring *r);
bool tw_ring_wants_enter(const struct tw_ring *r);

#endif /* _TW_RING_H */
