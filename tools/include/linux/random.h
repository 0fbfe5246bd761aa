/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_RANDOM_H
#define _TW_SHIM_RANDOM_H

#include <string.h>

/* Replayable: a fuzzer's input, not the machine, decides everything. */
static inline void get_random_bytes(void *buf, size_t n)
{
	memset(buf, 0x5a, n);
}

#endif
