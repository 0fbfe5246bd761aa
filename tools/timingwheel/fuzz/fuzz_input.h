/* SPDX-License-Identifier: GPL-2.0 */
/* A fuzzer's input, read as little-endian numbers. */
#ifndef _TW_FUZZ_INPUT_H
#define _TW_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

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
