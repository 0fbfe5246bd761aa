/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's hlist, as tw_core.c uses it, for userspace builds. */
#ifndef _TW_SHIM_LIST_H
#define _TW_SHIM_LIST_H

#include <stddef.h>

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

/* Only declared: tw_core.h lends a timer's link to its caller. */
struct list_head {
	struct list_head *next, *prev;
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define hlist_entry(ptr, type, member) container_of(ptr, type, member)

#define INIT_HLIST_HEAD(h) ((h)->first = NULL)

static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline int hlist_unhashed(const struct hlist_node *n)
{
	return !n->pprev;
}

static inline int hlist_empty(const struct hlist_head *h)
{
	return !h->first;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	n->next = first;
	if (first)
		first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void __hlist_del(struct hlist_node *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
}

static inline void hlist_del(struct hlist_node *n)
{
	__hlist_del(n);
	n->next = NULL;
	n->pprev = NULL;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		INIT_HLIST_NODE(n);
	}
}

static inline void hlist_move_list(struct hlist_head *old,
				   struct hlist_head *to)
{
	to->first = old->first;
	if (to->first)
		to->first->pprev = &to->first;
	old->first = NULL;
}

#endif
