/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_LIMITS_H
#define _TW_SHIM_LIMITS_H

#include_next <linux/limits.h>
#include <limits.h>
#include <stdint.h>

#define U32_MAX UINT32_MAX
#define U64_MAX UINT64_MAX

#endif
