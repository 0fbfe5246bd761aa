// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: tw_ids.c against a plain array of entries.  The input
 * drives inserts (of ids from a narrow space, so that they collide, or a
 * wide one), removes, finds, and when the index's memory arrives: through
 * tw_ids_prepare()/tw_ids_commit() as the device does, late, or never.
 * After each step, as the device after each hold of its lock, the index
 * gives back the segment it can spare (freed here, so that ASan sees a
 * segment used after it left) and takes the smaller directory it wants.
 * Any disagreement with the array aborts: a lost or phantom entry, a taken
 * id accepted, a wrong count, an index that lets its chains grow past the
 * overload bound, a drain that misses an entry, or an index that holds
 * more memory than its entries need: more buckets than entries + 512, more
 * segments than ceil(entries / 512) + 1, a directory of 4 or more slots per
 * segment, or anything but the memory of a new index once empty.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "tw_ids.h"

/* Six segments' worth: the directory grows past its first 4 slots. */
#define N	3072

static struct tw_id_node node[N];
static bool in[N];
static unsigned long nr_in, drained;

/* The entry holding @id in the model, or NULL. */
static struct tw_id_node *model_find(uint64_t id)
{
	unsigned int i;

	for (i = 0; i < N; i++)
		if (in[i] && node[i].id == id)
			return &node[i];
	return NULL;
}

static void count(struct tw_id_node *n, void *data)
{
	unsigned int i = n - node;

	(void)data;
	CHECK(i < N && in[i]);
	in[i] = false;
	drained++;
}

static void grow(struct tw_ids *ids, unsigned long more)
{
	struct tw_ids_prep prep;

	tw_ids_prepare(ids, more, &prep, GFP_KERNEL);
	tw_ids_commit(ids, &prep, more);
	tw_ids_unprepare(&prep);
}

/* Insert node @i with @id, as the device would; false if refused. */
static bool insert(struct tw_ids *ids, unsigned int i, uint64_t id, bool withhold)
{
	if (in[i] || tw_ids_overloaded(ids))
		return false;
	if (!withhold)
		grow(ids, 1);
	node[i].id = id;
	if (model_find(id)) {
		CHECK(tw_ids_insert(ids, &node[i]) == model_find(id));
		return false;
	}
	CHECK(!tw_ids_insert(ids, &node[i]));
	in[i] = true;
	nr_in++;
	return true;
}

static void remove_node(struct tw_ids *ids, unsigned int i)
{
	if (!in[i])
		return;
	tw_ids_remove(ids, &node[i]);
	in[i] = false;
	nr_in--;
}

/* After a hold: free what the index spared, swap in a smaller directory. */
static void trim(struct tw_ids *ids)
{
	struct tw_ids_prep prep;
	struct tw_id_seg *seg = tw_ids_release_seg(ids);
	unsigned int b;

	for (b = 0; seg && b < TW_IDS_SEG_SIZE; b++)
		CHECK(!seg->head[b]);
	free(seg);
	tw_ids_prepare_shrink(ids, &prep, GFP_KERNEL);
	tw_ids_commit(ids, &prep, 0);
	tw_ids_unprepare(&prep);
}

/* The memory bound: what the entries need, and a segment to spare. */
static void check_memory(const struct tw_ids *ids)
{
	unsigned long need = (ids->nr + TW_IDS_SEG_SIZE - 1) / TW_IDS_SEG_SIZE;

	CHECK(tw_ids_buckets(ids) <= ids->nr + TW_IDS_SEG_SIZE);
	CHECK(ids->nr_segs <= need + 1);
	CHECK(ids->dir_size < 4 * ids->nr_segs || ids->dir_size == 4);
	CHECK(tw_ids_bytes(ids) == ids->nr_segs * sizeof(struct tw_id_seg) +
				   ids->dir_size * sizeof(void *));
	if (!ids->nr)
		CHECK(ids->nr_segs == 1 && ids->dir_size == 4 &&
		      tw_ids_buckets(ids) == TW_IDS_SEG_SIZE);
}

static void step(struct tw_ids *ids, struct input *inp, bool *withhold)
{
	unsigned int op = take(inp, 1), i = take(inp, 2) % N, j;
	uint64_t id = op & 0x80 ? take(inp, 8) : take(inp, 1);

	switch (op % 8) {
	case 0 ... 2:
		insert(ids, i, id, *withhold);
		break;
	case 3:
		/* A run of ids, so that inputs reach the splits (past 512). */
		for (j = 0; j < 32 * (op >> 3); j++)
			insert(ids, (i + j) % N, id + j, *withhold);
		break;
	case 4:
		remove_node(ids, i);
		break;
	case 5:
		/* Chunks of stops, 32 per hold, so that inputs reach merges. */
		for (j = 0; j < 32 * (op >> 3); j++) {
			remove_node(ids, (i + j) % N);
			if (j % 32 == 31) {
				trim(ids);
				check_memory(ids);
			}
		}
		break;
	case 6:
		CHECK(tw_ids_find(ids, id) == model_find(id));
		if (in[i])
			CHECK(tw_ids_find(ids, node[i].id) == &node[i]);
		break;
	default:
		/* Memory stops coming, or comes back with what waited. */
		*withhold = !*withhold;
		if (!*withhold)
			grow(ids, 1);
	}
	CHECK(ids->nr == nr_in);
	/* The index refuses before chains pass its bound; the model obeys. */
	CHECK(ids->nr <= 4 * tw_ids_buckets(ids));
	trim(ids);
	check_memory(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input inp = { data, size };
	struct tw_ids ids;
	bool withhold = false;
	unsigned int i;

	CHECK(!tw_ids_create(&ids, GFP_KERNEL));
	for (i = 0; i < N; i++)
		in[i] = false;
	nr_in = 0;
	while (inp.left)
		step(&ids, &inp, &withhold);
	for (i = 0; i < N; i++)
		if (in[i])
			CHECK(tw_ids_find(&ids, node[i].id) == &node[i]);
	drained = 0;
	tw_ids_drain(&ids, count, NULL);
	CHECK(drained == nr_in && ids.nr == 0);
	tw_ids_destroy(&ids);
	return 0;
}
