/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The id index of a timingwheel client: the interface.  See tw_ids.c.
 *
 * Like the wheel, the index takes no lock: the caller embeds a struct
 * tw_id_node in its object and serialises every call on one index.  The
 * index owns its memory, but allocates and frees only in the calls made for
 * that (create, prepare, unprepare, destroy), which the caller makes outside
 * its lock; a segment it no longer uses it hands back to the caller
 * (tw_ids_release_seg()), to be freed after the lock.
 */
#ifndef _TW_IDS_H
#define _TW_IDS_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/siphash.h>
#include <linux/types.h>

/* A segment of bucket heads is one page on 64-bit. */
#define TW_IDS_SEG_SHIFT	9
#define TW_IDS_SEG_SIZE		BIT(TW_IDS_SEG_SHIFT)

/**
 * struct tw_id_node - an index entry, embedded in the caller's object
 * @next: the next entry in the same bucket
 * @id:   the key, set by the caller before tw_ids_insert()
 */
struct tw_id_node {
	struct tw_id_node	*next;
	u64			id;
};

/**
 * struct tw_id_seg - a segment of bucket heads, zeroed by its allocator
 * @head: the buckets
 */
struct tw_id_seg {
	struct tw_id_node	*head[TW_IDS_SEG_SIZE];
};

/**
 * struct tw_ids_prep - memory got for an index before its caller's lock
 * @seg:      a zeroed segment, or NULL
 * @dir:      a larger directory, or the smaller one of
 *            tw_ids_prepare_shrink(), or NULL; after tw_ids_commit(), the
 *            one the index no longer uses
 * @dir_size: the size of @dir
 */
struct tw_ids_prep {
	struct tw_id_seg	*seg;
	struct tw_id_seg	**dir;
	unsigned int		dir_size;
};

/**
 * struct tw_ids - a linear-hashing table of u64 ids
 * @dir:      segment pointers; @nr_segs of its @dir_size slots are in use
 * @dir_size: slots in @dir
 * @nr_segs:  segments installed
 * @level:    the buckets below @split use @level + 1 hash bits, the rest @level
 * @split:    the next bucket to split in two
 * @nr:       entries in the index
 * @key:      the keyed hash's key, so that callers cannot aim at one bucket
 */
struct tw_ids {
	struct tw_id_seg	**dir;
	unsigned int		dir_size;
	unsigned int		nr_segs;
	unsigned int		level;
	unsigned long		split;
	unsigned long		nr;
	hsiphash_key_t		key;
};

void tw_ids_init(struct tw_ids *ids, struct tw_id_seg **dir,
		 unsigned int dir_size, struct tw_id_seg *seg,
		 const hsiphash_key_t *key);
struct tw_id_node *tw_ids_find(const struct tw_ids *ids, u64 id);
struct tw_id_node *tw_ids_insert(struct tw_ids *ids, struct tw_id_node *node);
void tw_ids_remove(struct tw_ids *ids, struct tw_id_node *node);
struct tw_id_node *tw_ids_take(struct tw_ids *ids, u64 id);

bool tw_ids_want_seg(const struct tw_ids *ids, unsigned long more);
bool tw_ids_want_dir(const struct tw_ids *ids);
bool tw_ids_add_seg(struct tw_ids *ids, struct tw_id_seg *seg,
		    unsigned long more);
bool tw_ids_overloaded(const struct tw_ids *ids);
struct tw_id_seg **tw_ids_swap_dir(struct tw_ids *ids, struct tw_id_seg **dir,
				   unsigned int dir_size);
unsigned int tw_ids_smaller_dir(const struct tw_ids *ids);
struct tw_id_seg *tw_ids_release_seg(struct tw_ids *ids);
size_t tw_ids_bytes(const struct tw_ids *ids);

void tw_ids_drain(struct tw_ids *ids,
		  void (*fn)(struct tw_id_node *node, void *data), void *data);

int tw_ids_create(struct tw_ids *ids, gfp_t gfp);
void tw_ids_destroy(struct tw_ids *ids);
void tw_ids_prepare(const struct tw_ids *ids, unsigned long more,
		    struct tw_ids_prep *prep, gfp_t gfp);
void tw_ids_prepare_shrink(const struct tw_ids *ids, struct tw_ids_prep *prep,
			   gfp_t gfp);
void tw_ids_commit(struct tw_ids *ids, struct tw_ids_prep *prep,
		   unsigned long more);
void tw_ids_unprepare(struct tw_ids_prep *prep);

/* The buckets in use. */
static inline unsigned long tw_ids_buckets(const struct tw_ids *ids)
{
	return (1UL << ids->level) + ids->split;
}

#endif /* _TW_IDS_H */
