/* SPDX-License-Identifier: GPL-2.0 */
/* static_assert(), as the kernel has it: C11's own. */
#include <assert.h>
