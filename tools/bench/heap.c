// SPDX-License-Identifier: GPL-2.0
/* Binary min-heap of timers: see heap.h. */

#include <errno.h>
#include <stdlib.h>

#include "heap.h"

static inline void heap_place(struct heap *h, uint32_t i, struct heap_timer *t)
{
	h->v[i] = t;
	t->idx = i;
}

static void heap_sift_up(struct heap *h, uint32_t i)
{
	struct heap_timer *t = h->v[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (h->v[parent]->expires <= t->expires)
			break;
		heap_place(h, i, h->v[parent]);
		i = parent;
	}
	heap_place(h, i, t);
}

static void heap_sift_down(struct heap *h, uint32_t i)
{
	struct heap_timer *t = h->v[i];

	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= h->n)
			break;
		if (child + 1 < h->n &&
		    h->v[child + 1]->expires < h->v[child]->expires)
			child++;
		if (t->expires <= h->v[child]->expires)
			break;
		heap_place(h, i, h->v[child]);
		i = child;
	}
	heap_place(h, i, t);
}

int heap_init(struct heap *h, uint32_t cap)
{
	h->v = calloc(cap, sizeof(*h->v));
	h->n = 0;
	h->cap = cap;
	return h->v ? 0 : -ENOMEM;
}

void heap_free(struct heap *h)
{
	free(h->v);
	h->v = NULL;
}

int heap_start(struct heap *h, struct heap_timer *t, uint64_t expires)
{
	if (t->idx != HEAP_NONE)
		return -EBUSY;
	if (h->n == h->cap)
		return -ENOSPC;
	t->expires = expires;
	heap_place(h, h->n++, t);
	heap_sift_up(h, t->idx);
	return 0;
}

/* Move the timer in place: the best a heap can do for "push it later". */
int heap_modify(struct heap *h, struct heap_timer *t, uint64_t expires)
{
	uint64_t old = t->expires;

	if (t->idx == HEAP_NONE)
		return heap_start(h, t, expires);
	t->expires = expires;
	if (expires < old)
		heap_sift_up(h, t->idx);
	else
		heap_sift_down(h, t->idx);
	return 0;
}

/* Move the last timer into the hole at @i and restore the order. */
static void heap_fill_hole(struct heap *h, uint32_t i)
{
	heap_place(h, i, h->v[h->n]);
	if (i > 0 && h->v[(i - 1) / 2]->expires > h->v[i]->expires)
		heap_sift_up(h, i);
	else
		heap_sift_down(h, i);
}

bool heap_stop(struct heap *h, struct heap_timer *t)
{
	uint32_t i = t->idx;

	if (i == HEAP_NONE)
		return false;
	t->idx = HEAP_NONE;
	if (i != --h->n)
		heap_fill_hole(h, i);
	return true;
}

unsigned int heap_advance(struct heap *h, uint64_t now, heap_expire_fn fn,
			  void *data)
{
	unsigned int fired = 0;

	while (h->n && h->v[0]->expires <= now) {
		struct heap_timer *t = h->v[0];

		heap_stop(h, t);
		fired++;
		fn(t, data);
	}
	return fired;
}
