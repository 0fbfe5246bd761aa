#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fail if a kernel console log shows that something went wrong in the kernel:
# an oops, a BUG or WARNING, a KASAN, lockdep, debugobjects or list-debug
# report, a hung task.  Prints the offending lines.
#
#   scripts/verdict/check-console.sh LOG
set -u
log=${1:?usage: check-console.sh LOG}
[ -s "$log" ] || { echo "[tw] console log $log is empty" >&2; exit 1; }

pattern='BUG:|WARNING:|Oops|Call Trace|KASAN|UBSAN|kernel BUG|general protection|'
pattern+='possible recursive locking|possible circular locking|inconsistent lock state|'
pattern+='suspicious RCU usage|lockdep|ODEBUG:|list_add corruption|list_del corruption|'
pattern+='hung_task|blocked for more than|detected stall|Kernel panic|segfault at|kmemleak'

if grep -nE "$pattern" "$log" >&2; then
	echo "[tw] the kernel reported a problem in $log (lines above)" >&2
	exit 1
fi
exit 0
