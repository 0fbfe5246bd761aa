// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: The id index
 *
 * Each open file of /dev/timingwheel finds its timers by the 64-bit ids its
 * caller chose.  This is that index: a linear-hashing table (Litwin, 1980).
 * Like the wheel it takes no lock, and it is only ever used under the
 * client's spinlock.  The caller embeds a &struct tw_id_node (a next pointer
 * and the id) in its timer.  The index owns its memory, but only the calls
 * made for that allocate, and the caller makes them outside its lock:
 * tw_ids_create(), tw_ids_destroy(), and for growth tw_ids_prepare() (no
 * lock), tw_ids_commit() (under it) and tw_ids_unprepare() (after it), the
 * way radix_tree_preload() splits an insert.  Every other call is pure, and
 * the device never touches the index's fields.
 *
 * Why not rhashtable: a client's index is only ever touched under the
 * client's spinlock, so rhashtable's RCU walks, bucket bit-locks, atomic
 * element count and deferred resize worker are cost without benefit, and
 * under a profile of the batch ioctl they were a third of its time.
 */

/**
 * DOC: Layout
 *
 * Bucket heads live in page-sized segments of TW_IDS_SEG_SIZE (512) heads,
 * reached through a directory of segment pointers, so the table grows one
 * segment at a time and never moves a head.  With 2^level + split buckets in
 * use, an id whose hash h has (h mod 2^level) below split lives in bucket
 * h mod 2^(level + 1), any other in bucket h mod 2^level.  A new index has
 * one segment (512 buckets, 4 KiB on 64-bit) and a directory of four.
 */

/**
 * DOC: Growth
 *
 * Each insert that leaves more entries than buckets splits one bucket:
 * bucket split's entries are shared out between it and bucket
 * split + 2^level, by one more bit of their hash, and split moves on.  That
 * is the whole cost of growing; there is no rehash of the table, ever, so an
 * insert holds the caller's lock for a walk of its own chain and of the one
 * it splits, whatever the number of entries.  While memory can be had, the
 * load (entries per bucket) stays at most 1.
 *
 * The index's core never allocates.  When a split needs a segment that is
 * not installed, the split waits and the load rises until one is added.
 * Before the device takes its lock for a batch chunk that starts timers,
 * tw_ids_prepare() asks tw_ids_want_seg() whether those inserts would
 * outgrow the installed segments; if so it allocates a zeroed segment (and,
 * when the directory is full, a directory twice as large) with the caller's
 * flags, and tw_ids_commit() installs them under the lock.  The question is
 * asked without the lock, as a hint; the handover asks again under it.  A
 * segment brings all the splits that waited for it, at most one per bucket
 * in it, and the load is back at 1.  At TW_IDS_MAX_LOAD (4) entries per
 * bucket tw_ids_overloaded() tells the caller to refuse inserts, rather
 * than let a chain walk under its lock grow without bound.
 *
 * The index never shrinks: after a mass removal it keeps its buckets until
 * tw_ids_destroy(), so that the next mass insert does not pay for the
 * growth again.
 */

/**
 * DOC: Hash
 *
 * The ids are chosen by an unprivileged caller, and a chain walk runs under
 * a spinlock with bottom halves off, so the hash is keyed: hsiphash with a
 * random key per index.  Without the key, a caller cannot choose ids that
 * share a bucket; ids that differ only in their top bits (i << 52) spread
 * like any others.
 */

/**
 * DOC: Costs
 *
 * ====================  ==================================================
 * find, insert, remove  O(1) expected: one keyed hash and a chain of about
 *                       one entry; insert includes its share of growth
 * take                  find and remove in one hash and one walk
 * memory                a pointer per bucket, about one bucket per entry
 *                       (a segment is 4 KiB on 64-bit, 2 KiB on 32-bit),
 *                       plus a directory pointer per 512 buckets; the
 *                       directory doubles when full
 * drain, destroy        O(buckets + entries)
 * ====================  ==================================================
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "tw_ids.h"

/* The hash has 32 bits, and unsigned long may have no more. */
#define TW_IDS_MAX_LEVEL	31
/* tw_ids_overloaded() from this many entries per bucket on. */
#define TW_IDS_MAX_LOAD		4

static u32 tw_ids_hash(const struct tw_ids *ids, u64 id)
{
	return hsiphash_2u32(lower_32_bits(id), upper_32_bits(id), &ids->key);
}

static unsigned long tw_ids_bucket_of(const struct tw_ids *ids, u32 hash)
{
	unsigned long b = hash & ((1UL << ids->level) - 1);

	return b < ids->split ? hash & ((2UL << ids->level) - 1) : b;
}

static struct tw_id_node **tw_ids_head(const struct tw_ids *ids,
				       unsigned long bucket)
{
	return &ids->dir[bucket >> TW_IDS_SEG_SHIFT]->head[bucket & (TW_IDS_SEG_SIZE - 1)];
}

static struct tw_id_node **tw_ids_head_of(const struct tw_ids *ids, u64 id)
{
	return tw_ids_head(ids, tw_ids_bucket_of(ids, tw_ids_hash(ids, id)));
}

/**
 * tw_ids_init - set up an empty index
 * @ids:      the index
 * @dir:      a directory of @dir_size (at least 1) segment pointers
 * @dir_size: its size
 * @seg:      the first segment, zeroed
 * @key:      the hash key, random per index
 */
void tw_ids_init(struct tw_ids *ids, struct tw_id_seg **dir,
		 unsigned int dir_size, struct tw_id_seg *seg,
		 const hsiphash_key_t *key)
{
	ids->dir = dir;
	ids->dir_size = dir_size;
	ids->dir[0] = seg;
	ids->nr_segs = 1;
	ids->level = TW_IDS_SEG_SHIFT;
	ids->split = 0;
	ids->nr = 0;
	ids->key = *key;
}

/**
 * tw_ids_find - the entry with id @id
 * @ids: the index
 * @id:  the id
 *
 * Return: the entry, or NULL if there is none.
 */
struct tw_id_node *tw_ids_find(const struct tw_ids *ids, u64 id)
{
	struct tw_id_node *node = *tw_ids_head_of(ids, id);

	while (node && node->id != id)
		node = node->next;
	return node;
}

/* Whether the next split has somewhere to put its upper half. */
static bool tw_ids_can_split(const struct tw_ids *ids)
{
	return ids->level < TW_IDS_MAX_LEVEL &&
	       tw_ids_buckets(ids) < ids->nr_segs * TW_IDS_SEG_SIZE;
}

/* Share bucket @split out between itself and bucket @split + 2^@level. */
static void tw_ids_split(struct tw_ids *ids)
{
	unsigned long low = ids->split, high = low + (1UL << ids->level);
	struct tw_id_node **lo = tw_ids_head(ids, low);
	struct tw_id_node **hi = tw_ids_head(ids, high);
	struct tw_id_node *node = *lo, *next;

	*lo = NULL;
	for (; node; node = next) {
		struct tw_id_node **to;

		next = node->next;
		to = (tw_ids_hash(ids, node->id) & BIT(ids->level)) ? hi : lo;
		node->next = *to;
		*to = node;
	}
	if (++ids->split == 1UL << ids->level) {
		ids->level++;
		ids->split = 0;
	}
}

/**
 * tw_ids_insert - add @node unless its id is taken
 * @ids:  the index
 * @node: the new entry, its @id set
 *
 * Return: NULL when @node was added, else the entry that holds its id.
 */
struct tw_id_node *tw_ids_insert(struct tw_ids *ids, struct tw_id_node *node)
{
	struct tw_id_node **head = tw_ids_head_of(ids, node->id);
	struct tw_id_node *old;

	for (old = *head; old; old = old->next)
		if (old->id == node->id)
			return old;
	node->next = *head;
	*head = node;
	ids->nr++;
	if (ids->nr > tw_ids_buckets(ids) && tw_ids_can_split(ids))
		tw_ids_split(ids);
	return NULL;
}

/**
 * tw_ids_remove - take @node out of the index
 * @ids:  the index
 * @node: an entry of @ids
 */
void tw_ids_remove(struct tw_ids *ids, struct tw_id_node *node)
{
	struct tw_id_node **link = tw_ids_head_of(ids, node->id);

	while (*link != node) {
		if (WARN_ON_ONCE(!*link))
			return;
		link = &(*link)->next;
	}
	*link = node->next;
	node->next = NULL;
	ids->nr--;
}

/**
 * tw_ids_take - find the entry with id @id and take it out of the index
 * @ids: the index
 * @id:  the id
 *
 * tw_ids_find() and tw_ids_remove() in one walk of one chain.
 *
 * Return: the entry, no longer in the index, or NULL if there is none.
 */
struct tw_id_node *tw_ids_take(struct tw_ids *ids, u64 id)
{
	struct tw_id_node **link = tw_ids_head_of(ids, id);
	struct tw_id_node *node;

	while ((node = *link) && node->id != id)
		link = &node->next;
	if (!node)
		return NULL;
	*link = node->next;
	node->next = NULL;
	ids->nr--;
	return node;
}

/**
 * tw_ids_want_seg - whether @more entries would outgrow the segments
 * @ids:  the index
 * @more: entries about to be inserted
 *
 * The caller may ask without holding its lock, as a hint: tw_ids_add_seg()
 * decides under the lock.
 *
 * Return: true if inserting @more entries would need a segment that is not
 * installed (and the index can still grow).
 */
bool tw_ids_want_seg(const struct tw_ids *ids, unsigned long more)
{
	return ids->nr + more > ids->nr_segs * TW_IDS_SEG_SIZE &&
	       ids->level < TW_IDS_MAX_LEVEL;
}

/*
 * Whether the chains have grown long because segments were withheld: the
 * caller should refuse inserts until it can hand some in, so that no walk
 * under its lock gets long.
 */
bool tw_ids_overloaded(const struct tw_ids *ids)
{
	return ids->nr >= TW_IDS_MAX_LOAD * tw_ids_buckets(ids);
}

/* Whether the directory is full, so that tw_ids_add_seg() would refuse. */
bool tw_ids_want_dir(const struct tw_ids *ids)
{
	return ids->nr_segs == ids->dir_size;
}

/**
 * tw_ids_add_seg - install a zeroed segment if the index wants one
 * @ids:  the index
 * @seg:  the segment
 * @more: entries about to be inserted, as given to tw_ids_want_seg()
 *
 * Splits that waited for the segment are done now, at most one per bucket
 * of the segment.
 *
 * Return: true if @seg now belongs to the index; false if it was not
 * wanted any more or the directory is full, and the caller keeps it.
 */
bool tw_ids_add_seg(struct tw_ids *ids, struct tw_id_seg *seg,
		    unsigned long more)
{
	if (!tw_ids_want_seg(ids, more) || tw_ids_want_dir(ids))
		return false;
	ids->dir[ids->nr_segs++] = seg;
	while (ids->nr > tw_ids_buckets(ids) && tw_ids_can_split(ids))
		tw_ids_split(ids);
	return true;
}

/**
 * tw_ids_swap_dir - move the index to a larger directory
 * @ids:      the index
 * @dir:      the new directory
 * @dir_size: its size
 *
 * Return: the directory that is no longer in use, for the caller to free:
 * the old one, or @dir itself if it is not larger.
 */
struct tw_id_seg **tw_ids_swap_dir(struct tw_ids *ids, struct tw_id_seg **dir,
				   unsigned int dir_size)
{
	struct tw_id_seg **old = ids->dir;
	unsigned int i;

	if (dir_size <= ids->dir_size)
		return dir;
	for (i = 0; i < ids->nr_segs; i++)
		dir[i] = old[i];
	ids->dir = dir;
	ids->dir_size = dir_size;
	return old;
}

/**
 * tw_ids_drain - empty the index, handing each entry to @fn
 * @ids:  the index
 * @fn:   called once per entry, which it may free
 * @data: passed to @fn
 *
 * The segments and the directory stay; the caller frees them.
 */
void tw_ids_drain(struct tw_ids *ids,
		  void (*fn)(struct tw_id_node *node, void *data), void *data)
{
	unsigned long b, buckets = tw_ids_buckets(ids);

	for (b = 0; b < buckets; b++) {
		struct tw_id_node **head = tw_ids_head(ids, b);
		struct tw_id_node *node = *head, *next;

		*head = NULL;
		for (; node; node = next) {
			next = node->next;
			fn(node, data);
		}
	}
	ids->nr = 0;
}

/* Memory: the only part of the index that allocates. */

/* Directory slots of a new index: 2048 ids before it grows. */
#define TW_IDS_DIR_MIN		4

/**
 * tw_ids_create - allocate an empty index with a random key
 * @ids: the index
 * @gfp: allocation flags
 *
 * Return: 0 or -ENOMEM.
 */
int tw_ids_create(struct tw_ids *ids, gfp_t gfp)
{
	struct tw_id_seg **dir, *seg;
	hsiphash_key_t key;

	dir = kmalloc_array(TW_IDS_DIR_MIN, sizeof(*dir), gfp);
	seg = kzalloc(sizeof(*seg), gfp);
	if (!dir || !seg) {
		kfree(dir);
		kfree(seg);
		return -ENOMEM;
	}
	get_random_bytes(&key, sizeof(key));
	tw_ids_init(ids, dir, TW_IDS_DIR_MIN, seg, &key);
	return 0;
}

/**
 * tw_ids_destroy - free an index's memory
 * @ids: the index, drained (tw_ids_drain()) or never filled
 */
void tw_ids_destroy(struct tw_ids *ids)
{
	unsigned int i;

	WARN_ON_ONCE(ids->nr);
	for (i = 0; i < ids->nr_segs; i++)
		kfree(ids->dir[i]);
	kvfree(ids->dir);
	ids->dir = NULL;
	ids->nr_segs = 0;
}

/**
 * tw_ids_prepare - get the memory @more inserts may need, without a lock
 * @ids:  the index; read without the caller's lock, as a hint only:
 *        tw_ids_commit() checks again under it
 * @more: inserts about to be made
 * @prep: filled with a segment and a larger directory, or NULLs
 * @gfp:  allocation flags
 *
 * If an allocation fails, nothing fails with it: the chains just get
 * longer until a later call finds memory (tw_ids_overloaded() bounds them).
 */
void tw_ids_prepare(const struct tw_ids *ids, unsigned long more,
		    struct tw_ids_prep *prep, gfp_t gfp)
{
	prep->seg = NULL;
	prep->dir = NULL;
	prep->dir_size = 0;
	/* A hint: tw_ids_commit() asks again under the lock. */
	if (!more || !data_race(tw_ids_want_seg(ids, more)))
		return;
	prep->seg = kzalloc(sizeof(*prep->seg), gfp);
	/* A hint: tw_ids_swap_dir() refuses a directory that is not larger. */
	if (data_race(tw_ids_want_dir(ids))) {
		/* Stale is harmless, as above. */
		prep->dir_size = 2 * data_race(ids->dir_size);
		prep->dir = kvmalloc_array(prep->dir_size, sizeof(*prep->dir), gfp);
	}
}

/**
 * tw_ids_commit - install what tw_ids_prepare() got, if still wanted
 * @ids:  the index, under the caller's lock
 * @prep: what was prepared; what the index took is cleared from it
 * @more: as given to tw_ids_prepare()
 */
void tw_ids_commit(struct tw_ids *ids, struct tw_ids_prep *prep,
		   unsigned long more)
{
	if (prep->dir)
		prep->dir = tw_ids_swap_dir(ids, prep->dir, prep->dir_size);
	if (prep->seg && tw_ids_add_seg(ids, prep->seg, more))
		prep->seg = NULL;
}

/**
 * tw_ids_unprepare - free what tw_ids_commit() left, after the lock
 * @prep: what was prepared
 */
void tw_ids_unprepare(struct tw_ids_prep *prep)
{
	kvfree(prep->dir);
	kfree(prep->seg);
}
