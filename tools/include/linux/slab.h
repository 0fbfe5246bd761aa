/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_SLAB_H
#define _TW_SHIM_SLAB_H

#include <stdlib.h>
#include <linux/gfp.h>

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n, size);
}

#define kvmalloc_array	kmalloc_array
#define kfree		free
#define kvfree		free

#endif
