/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_GFP_H
#define _TW_SHIM_GFP_H

typedef unsigned int gfp_t;
#define GFP_KERNEL	0U

#endif
