/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer targets share: their input, read as little-endian
 * numbers, and CHECK, which aborts (the fuzzer then reports the input).
 */
#ifndef _TW_FUZZ_INPUT_H
#define _TW_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

struct input {
	const uint8_t	*p;
	size_t		left;
};

/* @bytes little-endian bytes of input; zeros once it runs out. */
static inline uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

#endif
