/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_GFP_H
#define _TW_SHIM_GFP_H

/* The kernel's gfp_t, unused here but for its name. */
#define gfp_t		unsigned int
#define GFP_KERNEL	0U

#endif
