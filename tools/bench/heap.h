/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A binary min-heap of timers (Varghese & Lauck scheme 3), the baseline the
 * wheel is measured against.  Each timer remembers its index so that stop is
 * O(log n) rather than a search; the heap owns an array of pointers sized
 * at creation and never allocates afterwards.
 */
#ifndef _TW_HEAP_H
#define _TW_HEAP_H

#include <stdbool.h>
#include <stdint.h>

struct heap_timer {
	uint64_t	expires;
	uint32_t	idx;		/* position in the heap, or HEAP_NONE */
};

#define HEAP_NONE	UINT32_MAX

struct heap {
	struct heap_timer	**v;
	uint32_t		n;
	uint32_t		cap;
};

typedef void (*heap_expire_fn)(struct heap_timer *t, void *data);

int heap_init(struct heap *h, uint32_t cap);
void heap_free(struct heap *h);
int heap_start(struct heap *h, struct heap_timer *t, uint64_t expires);
int heap_modify(struct heap *h, struct heap_timer *t, uint64_t expires);
bool heap_stop(struct heap *h, struct heap_timer *t);
unsigned int heap_advance(struct heap *h, uint64_t now, heap_expire_fn fn,
			  void *data);

#endif /* _TW_HEAP_H */
