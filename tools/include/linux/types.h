/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: just enough of the kernel's types, lists and bitops for
 * tw_core.c to compile unchanged in a benchmark or a fuzzer.
 */
#ifndef _TW_SHIM_TYPES_H
#define _TW_SHIM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/cdefs.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

/*
 * The kernel's, from <linux/compiler_types.h>, which it includes
 * everywhere; glibc's spelling of the attribute, from <sys/cdefs.h>.
 */
#ifndef noinline
#define noinline __attribute_noinline__
#endif

#endif
