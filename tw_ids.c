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
 * DOC: Growth and shrinking
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
 * The index shrinks the same way, backwards.  Each remove that leaves the
 * buckets more than TW_IDS_SEG_SIZE (512) above the entries merges the last
 * bucket back into its buddy, the reverse of a split, and moves split (and
 * level) back; so there are never more than entries + 512 buckets, and at
 * most one merge per remove.  A split comes at load 1 and a merge below
 * load 1 - 512 / buckets: an insert and a remove at either boundary undo
 * nothing of each other.  A merge frees nothing by itself.  The caller
 * calls tw_ids_release_seg() under its lock once per hold in which it
 * removed: when the buckets in use no longer reach into the last segment
 * and the entries fit the others with half a segment to spare, that whole
 * segment, empty, is detached and handed back, and the caller frees it
 * after dropping the lock.  The half segment is more than the inserts of a
 * batch chunk ask tw_ids_want_seg() for, so a segment given back is not
 * wanted again before some 200 more entries came.  A hold removes at most
 * a few dozen entries, so one segment per hold keeps pace.  When at most a quarter of
 * the directory is in use, tw_ids_prepare_shrink() allocates one of half
 * the size, without the lock, and tw_ids_commit() swaps it in under it, as
 * for growth; a directory is never shrunk to full, so growth does not
 * follow at once.
 *
 * So an index of n entries holds at most ceil(n / 512) + 1 segments once
 * the caller released what it was handed (for growth, a segment comes only
 * when the entries about to be inserted pass the installed buckets), and a
 * directory of fewer than 4 slots per segment, or TW_IDS_DIR_MIN: emptied,
 * it is back at one segment and a directory of 4, as new.
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
 * take                  find and remove in one hash and one walk; a
 *                       remove or take includes one merge at most, as an
 *                       insert one split
 * release a segment     O(1), under the caller's lock
 * swap a directory      O(segments), under the caller's lock: as rare as
 *                       a doubling or a halving of the directory
 * memory                a pointer per bucket, at most ceil(n / 512) + 1
 *                       segments for n entries (a segment is 4 KiB on
 *                       64-bit, 2 KiB on 32-bit), plus fewer than 4
 *                       directory pointers per segment, or 4; the
 *                       directory doubles when full and halves at a
 *                       quarter; tw_ids_bytes() says how much
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
/* Directory slots of a new index: 2048 ids before it grows; it never has fewer. */
#define TW_IDS_DIR_MIN		4

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

/* Whether the buckets are more than a segment's worth above the entries. */
static bool tw_ids_can_merge(const struct tw_ids *ids)
{
	return ids->nr + TW_IDS_SEG_SIZE < tw_ids_buckets(ids);
}

/*
 * The reverse of tw_ids_split(): the last bucket, split + 2^level after
 * split moves back, joins its buddy split, and the buckets are one fewer.
 */
static void tw_ids_merge(struct tw_ids *ids)
{
	struct tw_id_node **lo, **hi, **tail;

	if (!ids->split) {
		ids->level--;
		ids->split = 1UL << ids->level;
	}
	ids->split--;
	lo = tw_ids_head(ids, ids->split);
	hi = tw_ids_head(ids, ids->split + (1UL << ids->level));
	if (!*hi)
		return;
	for (tail = hi; *tail; tail = &(*tail)->next)
		;
	*tail = *lo;
	*lo = *hi;
	*hi = NULL;
}

/* An entry left: count it, and merge if the buckets are too many now. */
static void tw_ids_removed(struct tw_ids *ids)
{
	ids->nr--;
	if (tw_ids_can_merge(ids))
		tw_ids_merge(ids);
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
 *
 * If that leaves the buckets more than TW_IDS_SEG_SIZE above the entries,
 * the last bucket is merged into its buddy.
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
	tw_ids_removed(ids);
}

/**
 * tw_ids_take - find the entry with id @id and take it out of the index
 * @ids: the index
 * @id:  the id
 *
 * tw_ids_find() and tw_ids_remove() in one walk of one chain, and its
 * merge.
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
	tw_ids_removed(ids);
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
 * tw_ids_smaller_dir - the size of the smaller directory the index wants
 * @ids: the index; the caller may ask without its lock, as a hint:
 *       tw_ids_swap_dir() asks again under it
 *
 * A directory is halved when at most a quarter of it is in use, and never
 * below TW_IDS_DIR_MIN; a halved one is at most half full.
 *
 * Return: half the size of the directory, or 0 if it is not too large.
 */
unsigned int tw_ids_smaller_dir(const struct tw_ids *ids)
{
	if (ids->dir_size <= TW_IDS_DIR_MIN || ids->nr_segs > ids->dir_size / 4)
		return 0;
	return ids->dir_size / 2;
}

/**
 * tw_ids_release_seg - detach the last segment if the index can spare it
 * @ids: the index, under the caller's lock
 *
 * The last segment can be spared when no bucket in use is in it (all its
 * heads are empty) and the entries fit the others with half a segment to
 * spare: more than a batch chunk's inserts ask tw_ids_want_seg() for, so
 * that the next chunk does not want it back at once.  The caller calls this
 * once per hold of its lock in which it removed entries (a few dozen at
 * most), and frees the segment after dropping the lock.
 *
 * Return: the segment, no longer the index's, or NULL.
 */
struct tw_id_seg *tw_ids_release_seg(struct tw_ids *ids)
{
	unsigned long used = (tw_ids_buckets(ids) + TW_IDS_SEG_SIZE - 1) >>
			     TW_IDS_SEG_SHIFT;
	unsigned long keep = ids->nr_segs - 1;
	struct tw_id_seg *seg;

	if (keep < used || ids->nr + TW_IDS_SEG_SIZE / 2 > keep * TW_IDS_SEG_SIZE)
		return NULL;
	seg = ids->dir[keep];
	ids->dir[keep] = NULL;
	ids->nr_segs = keep;
	return seg;
}

/**
 * tw_ids_bytes - the memory the index holds
 * @ids: the index, under the caller's lock
 *
 * Return: the bytes of its segments and of its directory.
 */
size_t tw_ids_bytes(const struct tw_ids *ids)
{
	return ids->nr_segs * sizeof(struct tw_id_seg) +
	       ids->dir_size * sizeof(*ids->dir);
}

/**
 * tw_ids_swap_dir - move the index to a larger directory, or to the
 *                   smaller one it wants
 * @ids:      the index
 * @dir:      the new directory
 * @dir_size: its size: larger than the index's, or tw_ids_smaller_dir()
 *
 * Return: the directory that is no longer in use, for the caller to free:
 * the old one, or @dir itself if it is neither larger nor the smaller one
 * the index wants now.
 */
struct tw_id_seg **tw_ids_swap_dir(struct tw_ids *ids, struct tw_id_seg **dir,
				   unsigned int dir_size)
{
	struct tw_id_seg **old = ids->dir;
	unsigned int i;

	/*
	 * Only the size the index wants now: a preparation made before a
	 * shrink (or a growth) that another call committed meanwhile is stale.
	 */
	if (dir_size > ids->dir_size ?
	    !tw_ids_want_dir(ids) || dir_size != 2 * ids->dir_size :
	    dir_size != tw_ids_smaller_dir(ids))
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
 * tw_ids_prepare_shrink - get the smaller directory the index wants, without
 *                         a lock
 * @ids:  the index; read without the caller's lock, as a hint only:
 *        tw_ids_commit() checks again under it
 * @prep: filled with a smaller directory, or NULLs
 * @gfp:  allocation flags
 *
 * The caller commits @prep with no inserts to come, and unprepares it
 * after its lock, which frees the directory that the index left.  If the
 * allocation fails, the index keeps its directory until a later call.
 */
void tw_ids_prepare_shrink(const struct tw_ids *ids, struct tw_ids_prep *prep,
			   gfp_t gfp)
{
	prep->seg = NULL;
	/* A hint, as above: stale is refused by tw_ids_swap_dir(). */
	prep->dir_size = data_race(tw_ids_smaller_dir(ids));
	prep->dir = prep->dir_size ?
		    kvmalloc_array(prep->dir_size, sizeof(*prep->dir), gfp) : NULL;
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
