/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_BUG_H
#define _TW_SHIM_BUG_H

#include <stdlib.h>

/* In userspace a broken invariant is a crash, which a fuzzer reports. */
#define WARN_ON_ONCE(cond)	({ if (cond) abort(); 0; })

#endif
