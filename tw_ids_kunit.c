// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the id index in tw_ids.c.
 *
 * The unit cases pin down find, insert, remove, take and drain, the
 * splits that grow the index one bucket at a time, the merges that shrink
 * it back and the segments and directories it gives back, and what happens
 * when the caller withholds the memory a split needs.  The model case replays a random mix
 * of inserts and removes against a plain array, with segments and
 * directories handed in late and sometimes not at all, and checks after
 * every step that the index holds exactly the model's ids and that every
 * entry sits in the bucket its hash names.
 *
 * Like the wheel, the index is linked into this module directly.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "tw_ids.c"

static unsigned long long ids_seed;
module_param(ids_seed, ullong, 0444);
MODULE_PARM_DESC(ids_seed, "seed of the index's model case (0: pick one)");

struct tw_ids_fixture {
	struct tw_ids		ids;
	struct tw_id_node	*nodes;
	unsigned int		nr_nodes;
};

/* A fixed key, so that a failure replays; 32-bit values fit any kernel. */
static const hsiphash_key_t tw_ids_test_key = { { 0x01234567UL, 0x89abcdefUL } };

static struct tw_id_seg *tw_ids_test_seg(struct kunit *test)
{
	struct tw_id_seg *seg = kunit_kzalloc(test, sizeof(*seg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, seg);
	return seg;
}

/* An index with a directory of @dir_size slots, and @n spare nodes. */
static struct tw_ids_fixture *tw_ids_fixture_new(struct kunit *test,
						 unsigned int dir_size,
						 unsigned int n)
{
	struct tw_ids_fixture *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	struct tw_id_seg **dir;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	dir = kunit_kcalloc(test, dir_size, sizeof(*dir), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dir);
	fx->nodes = kunit_kcalloc(test, n, sizeof(*fx->nodes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx->nodes);
	fx->nr_nodes = n;
	tw_ids_init(&fx->ids, dir, dir_size, tw_ids_test_seg(test), &tw_ids_test_key);
	return fx;
}

/* Install segments (and a directory) until the index wants no more. */
static void tw_ids_feed(struct kunit *test, struct tw_ids *ids,
			unsigned long more)
{
	while (tw_ids_want_seg(ids, more)) {
		if (tw_ids_want_dir(ids)) {
			unsigned int size = 2 * ids->dir_size;
			struct tw_id_seg **dir;

			dir = kunit_kcalloc(test, size, sizeof(*dir), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, dir);
			tw_ids_swap_dir(ids, dir, size);
		}
		KUNIT_ASSERT_TRUE(test, tw_ids_add_seg(ids, tw_ids_test_seg(test), more));
	}
}

/* Every entry sits in the bucket its hash names, and the count is right. */
static void tw_ids_check_buckets(struct kunit *test, const struct tw_ids *ids)
{
	unsigned long b, count = 0;

	for (b = 0; b < tw_ids_buckets(ids); b++) {
		struct tw_id_node *node;

		for (node = *tw_ids_head(ids, b); node; node = node->next) {
			KUNIT_ASSERT_EQ_MSG(test, tw_ids_bucket_of(ids, tw_ids_hash(ids, node->id)),
					    b, "id %llu in the wrong bucket", node->id);
			count++;
		}
	}
	KUNIT_ASSERT_EQ(test, count, ids->nr);
}

/*
 * What the device does after a hold that removed: take back the segment the
 * index can spare, which must be empty, and hand in the smaller directory it
 * wants.  Return whether a segment came back.
 */
static bool tw_ids_trim(struct kunit *test, struct tw_ids *ids)
{
	struct tw_id_seg *seg = tw_ids_release_seg(ids), **dir;
	unsigned int size = tw_ids_smaller_dir(ids);

	if (seg)
		KUNIT_ASSERT_NULL(test, memchr_inv(seg, 0, sizeof(*seg)));
	if (size) {
		dir = kunit_kcalloc(test, size, sizeof(*dir), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, dir);
		KUNIT_ASSERT_PTR_NE(test, tw_ids_swap_dir(ids, dir, size), dir);
		KUNIT_ASSERT_EQ(test, ids->dir_size, size);
	}
	return seg;
}

/* The buckets of @nr_buckets, as level and split say. */
static void tw_ids_check_shape(struct kunit *test, const struct tw_ids *ids,
			       unsigned long nr_buckets)
{
	KUNIT_ASSERT_EQ(test, tw_ids_buckets(ids), nr_buckets);
	KUNIT_ASSERT_EQ(test, 1UL << ids->level, rounddown_pow_of_two(nr_buckets));
	KUNIT_ASSERT_EQ(test, ids->split, nr_buckets - (1UL << ids->level));
}

static void tw_ids_test_find_insert_remove(struct kunit *test)
{
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, 3);
	struct tw_ids *ids = &fx->ids;
	struct tw_id_node *a = &fx->nodes[0], *b = &fx->nodes[1], *dup = &fx->nodes[2];

	KUNIT_EXPECT_NULL(test, tw_ids_find(ids, 0));
	a->id = 0;
	b->id = U64_MAX;
	dup->id = 0;
	KUNIT_EXPECT_NULL(test, tw_ids_insert(ids, a));
	KUNIT_EXPECT_NULL(test, tw_ids_insert(ids, b));
	/* A taken id is refused and the holder is named. */
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_insert(ids, dup), a);
	KUNIT_EXPECT_EQ(test, ids->nr, 2UL);
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_find(ids, 0), a);
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_find(ids, U64_MAX), b);
	KUNIT_EXPECT_NULL(test, tw_ids_find(ids, 1));

	tw_ids_remove(ids, a);
	KUNIT_EXPECT_NULL(test, tw_ids_find(ids, 0));
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_find(ids, U64_MAX), b);
	KUNIT_EXPECT_EQ(test, ids->nr, 1UL);
	/* Once removed, the id is free again. */
	KUNIT_EXPECT_NULL(test, tw_ids_insert(ids, dup));
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_find(ids, 0), dup);
	tw_ids_check_buckets(test, ids);
}

/*
 * Take finds an entry and removes it in one walk, wherever it is in its
 * chain: with one segment and three entries per bucket, the chains are long.
 */
static void tw_ids_test_take(struct kunit *test)
{
	const unsigned int n = 3 * TW_IDS_SEG_SIZE;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, n);
	struct tw_ids *ids = &fx->ids;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		fx->nodes[i].id = (u64)i * 7919;
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
	}
	KUNIT_EXPECT_NULL(test, tw_ids_take(ids, 1));
	KUNIT_EXPECT_EQ(test, ids->nr, (unsigned long)n);
	/* Every 7th, round and round: from the heads, middles and tails. */
	for (j = 0; j < n; j++) {
		i = (j * 7) % n;
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_take(ids, fx->nodes[i].id),
				    &fx->nodes[i]);
		KUNIT_ASSERT_NULL(test, fx->nodes[i].next);
		KUNIT_ASSERT_NULL(test, tw_ids_find(ids, fx->nodes[i].id));
		KUNIT_ASSERT_NULL(test, tw_ids_take(ids, fx->nodes[i].id));
		KUNIT_ASSERT_EQ(test, ids->nr, (unsigned long)(n - j - 1));
		if (j % 256 == 0)
			tw_ids_check_buckets(test, ids);
	}
	tw_ids_check_buckets(test, ids);
	/* Once taken, the id is free again. */
	KUNIT_EXPECT_NULL(test, tw_ids_insert(ids, &fx->nodes[0]));
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_find(ids, 0), &fx->nodes[0]);
}

/* Ids that differ only in their top bits still spread over the buckets. */
static void tw_ids_test_top_bits_spread(struct kunit *test)
{
	const unsigned int n = TW_IDS_SEG_SIZE;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, n);
	struct tw_ids *ids = &fx->ids;
	unsigned long b, longest = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		fx->nodes[i].id = (u64)i << 52;
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
	}
	for (b = 0; b < tw_ids_buckets(ids); b++) {
		struct tw_id_node *node;
		unsigned long len = 0;

		for (node = *tw_ids_head(ids, b); node; node = node->next)
			len++;
		longest = max(longest, len);
	}
	/* 512 balls in 512 bins: a chain of 12 has odds below 1e-6. */
	KUNIT_EXPECT_LT(test, longest, 12UL);
}

static void tw_ids_test_splits_grow_one_bucket_per_insert(struct kunit *test)
{
	const unsigned int n = 3 * TW_IDS_SEG_SIZE;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, n);
	struct tw_ids *ids = &fx->ids;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, tw_ids_buckets(ids), TW_IDS_SEG_SIZE);
	for (i = 0; i < n; i++) {
		tw_ids_feed(test, ids, 1);
		fx->nodes[i].id = i;
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
		/* The load never passes one entry per bucket. */
		KUNIT_ASSERT_EQ(test, tw_ids_buckets(ids),
				max_t(unsigned long, i + 1, TW_IDS_SEG_SIZE));
	}
	/* 3 segments: level 10 with split 512, through a grown directory. */
	KUNIT_EXPECT_EQ(test, ids->level, TW_IDS_SEG_SHIFT + 1);
	KUNIT_EXPECT_EQ(test, ids->split, TW_IDS_SEG_SIZE);
	KUNIT_EXPECT_EQ(test, ids->nr_segs, 3U);
	KUNIT_EXPECT_GE(test, ids->dir_size, 3U);
	tw_ids_check_buckets(test, ids);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_find(ids, i), &fx->nodes[i]);
}

/*
 * Without segments the index stays correct and reports its overload; each
 * segment handed in then brings the splits that waited for it.
 */
static void tw_ids_test_withheld_segments(struct kunit *test)
{
	const unsigned int n = TW_IDS_MAX_LOAD * TW_IDS_SEG_SIZE;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, n);
	struct tw_ids *ids = &fx->ids;
	struct tw_id_seg **dir;
	unsigned int i;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_FALSE(test, tw_ids_overloaded(ids));
		fx->nodes[i].id = i * 7919ULL;
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
	}
	KUNIT_EXPECT_TRUE(test, tw_ids_overloaded(ids));
	KUNIT_EXPECT_EQ(test, tw_ids_buckets(ids), TW_IDS_SEG_SIZE);
	KUNIT_EXPECT_TRUE(test, tw_ids_want_seg(ids, 0));
	/* A full directory refuses a segment, and a smaller one is not taken. */
	KUNIT_EXPECT_FALSE(test, tw_ids_add_seg(ids, tw_ids_test_seg(test), 0));
	dir = kunit_kcalloc(test, 1, sizeof(*dir), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dir);
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_swap_dir(ids, dir, 1), dir);
	tw_ids_check_buckets(test, ids);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_find(ids, i * 7919ULL), &fx->nodes[i]);

	/*
	 * Each segment splits every bucket it brings, at once; a full
	 * directory takes one twice its size.
	 */
	for (i = 2; i <= TW_IDS_MAX_LOAD; i++) {
		if (tw_ids_want_dir(ids)) {
			unsigned int size = 2 * ids->dir_size;

			dir = kunit_kcalloc(test, size, sizeof(*dir), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, dir);
			KUNIT_ASSERT_PTR_NE(test, tw_ids_swap_dir(ids, dir, size), dir);
		}
		KUNIT_ASSERT_TRUE(test, tw_ids_add_seg(ids, tw_ids_test_seg(test), 0));
		KUNIT_EXPECT_EQ(test, tw_ids_buckets(ids), i * TW_IDS_SEG_SIZE);
		KUNIT_EXPECT_FALSE(test, tw_ids_overloaded(ids));
	}
	/* Enough: one more is not wanted. */
	KUNIT_EXPECT_FALSE(test, tw_ids_add_seg(ids, tw_ids_test_seg(test), 0));
	tw_ids_check_buckets(test, ids);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_find(ids, i * 7919ULL), &fx->nodes[i]);
}

static void tw_ids_count(struct tw_id_node *node, void *data)
{
	(*(unsigned long *)data)++;
	node->next = NULL;
}

static void tw_ids_test_drain(struct kunit *test)
{
	const unsigned int n = 2 * TW_IDS_SEG_SIZE + 5;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, n);
	struct tw_ids *ids = &fx->ids;
	unsigned long seen = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		tw_ids_feed(test, ids, 1);
		fx->nodes[i].id = i;
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
	}
	tw_ids_drain(ids, tw_ids_count, &seen);
	KUNIT_EXPECT_EQ(test, seen, (unsigned long)n);
	KUNIT_EXPECT_EQ(test, ids->nr, 0UL);
	KUNIT_EXPECT_NULL(test, tw_ids_find(ids, 0));
	tw_ids_check_buckets(test, ids);
}

static u64 tw_ids_xorshift(u64 s)
{
	s ^= s << 13;
	s ^= s >> 7;
	return s ^ (s << 17);
}

/*
 * The model's remove, by tw_ids_take() or tw_ids_remove(): merges keep the
 * buckets within a segment of the entries, and the index gives back what
 * it can spare.
 */
static void tw_ids_model_remove(struct kunit *test, struct tw_ids *ids,
				struct tw_id_node *node, bool take)
{
	if (take)
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_take(ids, node->id), node);
	else
		tw_ids_remove(ids, node);
	KUNIT_ASSERT_LE(test, tw_ids_buckets(ids), ids->nr + TW_IDS_SEG_SIZE);
	tw_ids_trim(test, ids);
}

/* What the model says holds node i's id: it, its pair, or none. */
static struct tw_id_node *tw_ids_model_holder(struct tw_ids_fixture *fx,
					      const bool *present, unsigned int i)
{
	unsigned int partner = i < 2000 ? i + 4000 : i >= 4000 ? i - 4000 : i;

	return present[i] ? &fx->nodes[i] :
	       present[partner] ? &fx->nodes[partner] : NULL;
}

/*
 * The model: present[i] says whether node i (id ids_of[i]) is in the index.
 * Segments arrive only on some steps, so the index runs overloaded at times;
 * after each remove the index gives back what it can spare.
 */
static void tw_ids_test_model(struct kunit *test)
{
	const unsigned int n = 6000, steps = 200000;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, 1, n);
	struct tw_ids *ids = &fx->ids;
	unsigned long nr = 0;
	unsigned int i, step;
	bool *present;
	u64 seed = ids_seed ?: get_random_u64(), s = seed;

	kunit_info(test, "ids_seed %llu", seed);
	present = kunit_kcalloc(test, n, sizeof(*present), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, present);
	/* Pairs of nodes share an id: the second of a pair must be refused. */
	for (i = 0; i < n; i++)
		fx->nodes[i].id = ((u64)(i % 4000) << 40) | (i % 4000);

	for (step = 0; step < steps; step++) {
		struct tw_id_node *found, *holder;

		s = tw_ids_xorshift(s);
		i = s % n;
		/* Segments come late, so the index runs overloaded at times. */
		if (s % 2048 == 0)
			tw_ids_feed(test, ids, 1);
		found = tw_ids_find(ids, fx->nodes[i].id);
		holder = tw_ids_model_holder(fx, present, i);
		KUNIT_ASSERT_PTR_EQ_MSG(test, found, holder, "ids_seed %llu step %u",
					seed, step);
		if (present[i]) {
			/* Half the removals find the entry themselves. */
			tw_ids_model_remove(test, ids, &fx->nodes[i], s & BIT(20));
			present[i] = false;
			nr--;
		} else {
			struct tw_id_node *old = tw_ids_insert(ids, &fx->nodes[i]);

			/* The node of the same id, if one is in, must block it. */
			KUNIT_ASSERT_PTR_EQ_MSG(test, old, holder, "ids_seed %llu step %u",
						seed, step);
			if (!old) {
				present[i] = true;
				nr++;
			}
		}
		KUNIT_ASSERT_EQ_MSG(test, ids->nr, nr, "ids_seed %llu step %u", seed, step);
		if (step % 4096 == 0)
			tw_ids_check_buckets(test, ids);
	}
	tw_ids_check_buckets(test, ids);
	for (i = 0; i < n; i++)
		if (present[i])
			KUNIT_ASSERT_PTR_EQ(test, tw_ids_find(ids, fx->nodes[i].id),
					    &fx->nodes[i]);
}

/* The id of node @i of a cycle: never 0, which marks a node that is out. */
static u64 tw_ids_cycle_id(unsigned int i)
{
	return i * 7919ULL + 1;
}

/*
 * Fill nodes [@from, @n) (a segment at a time, as the device would), then
 * remove in a scattered order until @down_to are left.  Each merge undoes a
 * split: at every step the buckets are exactly max(512, entries) going up
 * and max(512, min(peak, entries + 512)) going down, every entry is where
 * its hash says, and the segments held never pass what the entries need
 * plus one.  Return the segments given back.
 */
static unsigned int tw_ids_cycle(struct kunit *test, struct tw_ids_fixture *fx,
				 unsigned int from, unsigned int n,
				 unsigned int down_to)
{
	struct tw_ids *ids = &fx->ids;
	unsigned long peak, want;
	unsigned int i, j, back = 0;

	for (i = from; i < n; i++) {
		tw_ids_feed(test, ids, 1);
		fx->nodes[i].id = tw_ids_cycle_id(i);
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
		tw_ids_check_shape(test, ids, max_t(unsigned long, ids->nr,
						    TW_IDS_SEG_SIZE));
	}
	tw_ids_check_buckets(test, ids);
	peak = tw_ids_buckets(ids);
	/* 7 is prime to n: every entry, from all over the buckets. */
	for (j = 0; ids->nr > down_to; j++) {
		i = (j * 7) % n;
		if (!fx->nodes[i].id)
			continue;
		if (j & 1)
			tw_ids_remove(ids, &fx->nodes[i]);
		else
			KUNIT_ASSERT_PTR_EQ(test, tw_ids_take(ids, fx->nodes[i].id),
					    &fx->nodes[i]);
		fx->nodes[i].id = 0;
		back += tw_ids_trim(test, ids);
		want = max_t(unsigned long, TW_IDS_SEG_SIZE,
			     min(peak, ids->nr + TW_IDS_SEG_SIZE));
		tw_ids_check_shape(test, ids, want);
		KUNIT_ASSERT_LE(test, (unsigned long)ids->nr_segs,
				DIV_ROUND_UP(ids->nr, TW_IDS_SEG_SIZE) + 1);
		if (j % 64 == 0)
			tw_ids_check_buckets(test, ids);
	}
	tw_ids_check_buckets(test, ids);
	return back;
}

/* Every node in is found, and the ids of those out are not. */
static void tw_ids_check_cycle(struct kunit *test, struct tw_ids_fixture *fx,
			       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_find(&fx->ids, tw_ids_cycle_id(i)),
				    fx->nodes[i].id ? &fx->nodes[i] : NULL);
}

/*
 * Grow, shrink, grow again and drain by removes: merges restore the states
 * the splits went through, the segments come back to the caller empty, and
 * the emptied index is as small as a new one.
 */
static void tw_ids_test_grow_shrink_grow(struct kunit *test)
{
	const unsigned int n = 5 * TW_IDS_SEG_SIZE + 101;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, TW_IDS_DIR_MIN, n);
	struct tw_ids *ids = &fx->ids;
	unsigned int i, back, peak_segs;

	tw_ids_cycle(test, fx, 0, n, 300);
	tw_ids_check_cycle(test, fx, n);
	KUNIT_EXPECT_EQ(test, ids->nr_segs, 2U);
	/* Refill the gaps, then drain to nothing. */
	for (i = 0; i < n; i++) {
		if (fx->nodes[i].id)
			continue;
		tw_ids_feed(test, ids, 1);
		fx->nodes[i].id = tw_ids_cycle_id(i);
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, &fx->nodes[i]));
	}
	tw_ids_check_shape(test, ids, n);
	tw_ids_check_cycle(test, fx, n);
	peak_segs = ids->nr_segs;
	KUNIT_EXPECT_GE(test, ids->dir_size, 2 * TW_IDS_DIR_MIN);
	back = tw_ids_cycle(test, fx, n, n, 0);
	KUNIT_EXPECT_EQ(test, back, peak_segs - 1);
	/* As new: one segment, the smallest directory, 512 buckets. */
	KUNIT_EXPECT_EQ(test, ids->nr_segs, 1U);
	KUNIT_EXPECT_EQ(test, ids->dir_size, TW_IDS_DIR_MIN);
	KUNIT_EXPECT_EQ(test, tw_ids_bytes(ids),
			sizeof(struct tw_id_seg) + TW_IDS_DIR_MIN * sizeof(void *));
	tw_ids_check_shape(test, ids, TW_IDS_SEG_SIZE);
	/* And it grows again. */
	tw_ids_cycle(test, fx, 0, 2 * TW_IDS_SEG_SIZE, 2 * TW_IDS_SEG_SIZE);
	tw_ids_check_cycle(test, fx, n);
}

/*
 * A boundary crossed back and forth: a segment was just given back, and
 * no insert wants it again, no remove merges what an insert split.
 */
static void tw_ids_test_no_thrash(struct kunit *test)
{
	const unsigned int n = 2 * TW_IDS_SEG_SIZE + 1;
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, TW_IDS_DIR_MIN, n);
	struct tw_ids *ids = &fx->ids;
	struct tw_id_node *node;
	unsigned int i;
	u64 id;

	KUNIT_EXPECT_EQ(test, tw_ids_cycle(test, fx, 0, n, TW_IDS_SEG_SIZE), 1U);
	KUNIT_EXPECT_EQ(test, ids->nr_segs, 2U);
	tw_ids_check_shape(test, ids, 2 * TW_IDS_SEG_SIZE);
	/* One of the nodes that are out goes in and out again. */
	for (i = 0; fx->nodes[i].id; i++)
		;
	node = &fx->nodes[i];
	id = tw_ids_cycle_id(i);
	for (i = 0; i < 1000; i++) {
		node->id = id;
		KUNIT_ASSERT_NULL(test, tw_ids_insert(ids, node));
		KUNIT_ASSERT_FALSE(test, tw_ids_trim(test, ids));
		KUNIT_ASSERT_PTR_EQ(test, tw_ids_take(ids, id), node);
		KUNIT_ASSERT_FALSE(test, tw_ids_trim(test, ids));
		KUNIT_ASSERT_FALSE(test, tw_ids_want_seg(ids, TW_IDS_SEG_SIZE / 2));
		tw_ids_check_shape(test, ids, 2 * TW_IDS_SEG_SIZE);
	}
	node->id = 0;
	tw_ids_check_buckets(test, ids);
}

/*
 * A directory prepared before another call changed the index is stale:
 * the index takes only the size it wants when the swap is made.
 */
static void tw_ids_test_stale_dir(struct kunit *test)
{
	struct tw_ids_fixture *fx = tw_ids_fixture_new(test, TW_IDS_DIR_MIN, 1);
	struct tw_ids *ids = &fx->ids;
	unsigned int size = ids->dir_size;
	struct tw_id_seg **dir;

	dir = kunit_kcalloc(test, 4 * size, sizeof(*dir), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dir);
	/* Not full: no larger directory, of any size, is taken. */
	KUNIT_ASSERT_FALSE(test, tw_ids_want_dir(ids));
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_swap_dir(ids, dir, 2 * size), dir);
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_swap_dir(ids, dir, 4 * size), dir);
	/* At its smallest: no smaller one either. */
	KUNIT_EXPECT_EQ(test, tw_ids_smaller_dir(ids), 0U);
	KUNIT_EXPECT_PTR_EQ(test, tw_ids_swap_dir(ids, dir, size / 2), dir);
	KUNIT_EXPECT_EQ(test, ids->dir_size, size);
	KUNIT_EXPECT_PTR_NE(test, ids->dir, dir);
	tw_ids_check_buckets(test, ids);
}

static struct kunit_case tw_ids_cases[] = {
	KUNIT_CASE(tw_ids_test_find_insert_remove),
	KUNIT_CASE(tw_ids_test_take),
	KUNIT_CASE(tw_ids_test_top_bits_spread),
	KUNIT_CASE(tw_ids_test_splits_grow_one_bucket_per_insert),
	KUNIT_CASE(tw_ids_test_withheld_segments),
	KUNIT_CASE(tw_ids_test_drain),
	KUNIT_CASE(tw_ids_test_grow_shrink_grow),
	KUNIT_CASE(tw_ids_test_no_thrash),
	KUNIT_CASE(tw_ids_test_stale_dir),
	KUNIT_CASE(tw_ids_test_model),
	{}
};

static struct kunit_suite tw_ids_suite = {
	.name = "timingwheel-ids",
	.test_cases = tw_ids_cases,
};

kunit_test_suite(tw_ids_suite);
