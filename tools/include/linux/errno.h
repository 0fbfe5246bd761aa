/* SPDX-License-Identifier: GPL-2.0 */
/* The errno values of the uapi header are the kernel's own. */
#include_next <linux/errno.h>
