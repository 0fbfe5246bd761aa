#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel style and static checks: checkpatch.pl --strict over every C file
# and header, then a W=1 and sparse build against each kernel that must
# print nothing but kbuild's own progress lines.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tw_need_kbuild
tw_need sparse
src=$(tw_kernel_source 6.12)
status=0

mapfile -t files < <(cd "$TW_ROOT" && git ls-files -co --exclude-standard '*.c' '*.h' |
	grep -v '^tools/testing/fuzz/\|^lib/')
mapfile -t fuzzers < <(cd "$TW_ROOT" && git ls-files -co --exclude-standard 'tools/testing/fuzz/*.[ch]')
mapfile -t libfiles < <(cd "$TW_ROOT" && git ls-files -co --exclude-standard 'lib/*.[ch]')
tw_log "checkpatch --strict on $((${#files[@]} + ${#fuzzers[@]} + ${#libfiles[@]})) files"
# libFuzzer names its entry point LLVMFuzzerTestOneInput: no CamelCase check there.
# libtimingwheel's API is userspace C: uint64_t, not u64, is its contract.
# checkpatch [OPTION...] -- FILE...: a perl a CPU at once, each given a
# slice of the files (about a second a file), four slices a CPU so that
# the big files even out; fails if any finds something.
checkpatch() {
	local opts=() n
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	[ $# -gt 0 ] || return 0
	n=$(( ($# + 4 * $(nproc) - 1) / (4 * $(nproc)) ))
	printf '%s\0' "$@" | xargs -0 -P "$(nproc)" -n "$n" perl "$src/scripts/checkpatch.pl" \
		--no-tree --strict --terse --show-types "${opts[@]}" -f
}
if (cd "$TW_ROOT" && checkpatch -- "${files[@]}" &&
	checkpatch --ignore CAMELCASE -- "${fuzzers[@]}" &&
	checkpatch --ignore PREFER_KERNEL_TYPES -- "${libfiles[@]}") >"$TW_CACHE/checkpatch.log" 2>&1; then
	tw_log "checkpatch: clean"
else
	grep -E 'ERROR|WARNING|CHECK' "$TW_CACHE/checkpatch.log" >&2
	tw_log "checkpatch: findings above"
	status=1
fi

# The examples in the ABI document, each a whole program, must compile,
# warning-free, against the uapi header: a reader copies them first.
example=$TW_CACHE/run/uapi-example
rm -f "$example"-*.c
awk -v out="$example" '/^\.\. code-block:: c$/ { on = 1; n++; next }
     on && /^[^ \t]/ && NF { on = 0; next }
     on { sub(/^  /, ""); print > (out "-" n ".c") }' \
	"$TW_ROOT/Documentation/timingwheel/uapi.rst"
examples=("$example"-*.c)
for c in "${examples[@]}"; do
	if [ -f "$c" ] && gcc -Wall -Wextra -Werror -I"$TW_ROOT/include/uapi" -o "${c%.c}" "$c"; then
		tw_log "example $(basename "$c") of Documentation/timingwheel/uapi.rst compiles cleanly"
	else
		tw_log "example $(basename "$c") of Documentation/timingwheel/uapi.rst does not compile"
		status=1
	fi
done
[ ${#examples[@]} -ge 2 ] || { tw_log "uapi.rst: fewer than two examples found"; status=1; }

# The documentation: Sphinx with the kernel's kernel-doc extension, warnings
# as errors, so a kernel-doc:: directive naming nothing fails.
"$TW_ROOT/scripts/docs.sh" || status=1

# libtimingwheel: warning-free, 64- and 32-bit; every function the header
# declares is exported under LIBTIMINGWHEEL_1 and has a manual page.
tw_need_m32
if make -s -C "$TW_ROOT/lib" clean >/dev/null &&
	make -s -C "$TW_ROOT/lib" all lib32 CFLAGS="-O2 -g -Wall -Wextra -Werror" >/dev/null; then
	tw_log "libtimingwheel builds cleanly, 64- and 32-bit"
else
	tw_log "libtimingwheel does not build cleanly"
	status=1
fi
# What the library decides without the device (lib/tests/tw_hosttest.c),
# 64- and 32-bit: bad arguments, CLOCK_REALTIME among them, fail with
# EINVAL before the open, and strerror names an open's remedies.  A host
# whose kernel runs no 32-bit programs builds the 32-bit test and runs
# only the 64-bit one; the QEMU guests still run the 32-bit library.
if tw_runs_m32; then
	run32=1 bits="64- and 32-bit"
else
	run32=0 bits="64-bit; 32-bit built, not run: this host's kernel runs no 32-bit programs"
fi
if make -s -C "$TW_ROOT/lib" test TW_RUN32=$run32 CFLAGS="-O2 -g -Wall -Wextra -Werror" \
	>"$TW_CACHE/run/lib-hosttest.log" 2>&1; then
	tw_log "libtimingwheel host test (no device needed): passed, $bits"
else
	grep -v '^ok ' "$TW_CACHE/run/lib-hosttest.log" >&2
	tw_log "libtimingwheel host test: failed"
	status=1
fi
# The rings' store-buffering pairs on this host's two CPUs: the kernel's
# tw_ring_hdr.h against libtimingwheel (tools/testing/ring-sb).  A lost
# round is a bug, never bad luck; one CPU cannot race and is skipped, as
# is an architecture without its barrier shim (x86-64 only so far).
sb_log=$TW_CACHE/run/ring-sb${TW_RUN_TAG:+-$TW_RUN_TAG}.log
if [ ! -d "$TW_ROOT/tools/testing/ring-sb/arch/$(uname -m)" ]; then
	tw_log "ring-sb: SKIP: no barrier shim for $(uname -m)"
elif make -s -C "$TW_ROOT/tools" ring-sb CFLAGS="-O2 -g -Wall -Wextra -Werror" >"$sb_log" 2>&1 &&
	"$TW_ROOT/tools/build/tw_ring_sb" -t "${TW_SB_SECONDS:-3}" >>"$sb_log" 2>&1; then
	tw_log "$(grep -m1 '^ring-sb: PASS' "$sb_log")"
elif grep -q '^ring-sb: SKIP' "$sb_log"; then
	tw_log "$(grep -m1 '^ring-sb: SKIP' "$sb_log")"
else
	cat "$sb_log" >&2
	tw_log "the rings' store-buffering test: failed"
	status=1
fi
# twctl's command line and manual page, no device needed, and the examples
# of tools/examples, warning-free (tools/Makefile: twctl-test, examples).
tw_need man-db
if make -s -C "$TW_ROOT/tools" twctl-test examples CFLAGS="-O2 -g -Wall -Wextra -Werror" \
	>"$TW_CACHE/run/twctl-test${TW_RUN_TAG:+-$TW_RUN_TAG}.log" 2>&1; then
	tw_log "twctl test and the examples (tools/examples): passed, warning-free"
else
	grep -v '^ok ' "$TW_CACHE/run/twctl-test${TW_RUN_TAG:+-$TW_RUN_TAG}.log" >&2
	tw_log "twctl test or the examples: failed"
	status=1
fi
mapfile -t libfns < <(sed -n 's/^[a-z].*[ *]\(timingwheel_[a-z_]*\)(.*/\1/p' "$TW_ROOT/lib/libtimingwheel.h")
exported=$(nm -D --defined-only "$TW_ROOT/lib/libtimingwheel.so.1.0.0" 2>/dev/null)
for fn in "${libfns[@]}"; do
	grep -q " $fn@@LIBTIMINGWHEEL_1$" <<<"$exported" ||
		{ tw_log "libtimingwheel: $fn is not exported as LIBTIMINGWHEEL_1"; status=1; }
	[ -f "$TW_ROOT/lib/man/$fn.3" ] ||
		{ tw_log "libtimingwheel: $fn has no manual page"; status=1; }
done
if [ "$(grep -c ' T ' <<<"$exported")" -ne "${#libfns[@]}" ]; then
	tw_log "libtimingwheel exports other symbols than the ${#libfns[@]} its header declares"
	status=1
fi
tw_log "libtimingwheel: ${#libfns[@]} functions checked for export and manual page"

# Under shellcheck: the scripts of scripts/, package, guest, verdict,
# mutations and bindings, but not yet guest-init.sh or selftest-harness.sh
# (lib.sh is checked where the others source it).
tw_need shellcheck
if (cd "$TW_ROOT" && shellcheck -x -e SC1091 scripts/package/*.sh scripts/mutations/*.sh bindings/*.sh \
	scripts/{check,bench-device,bench-ratas,demo,docs,fuzz-core,lint}.sh \
	scripts/guest/{qemu-run,uml-e2e,uml-kernel,uml-kbench,debian-kernel,guest-demo,kunit-uml}.sh \
	scripts/verdict/{e2e-verdict,kunit-verdict,kunit-count,check-console}.sh) >&2; then
	tw_log "shellcheck of the scripts under it: clean"
else
	tw_log "shellcheck of the scripts under it: findings above"
	status=1
fi

# lint_build NAME KDIR [MAKE ARGS...]: W=1 and sparse builds against one
# tree, of every module: TW_KBENCH=1 adds the kernel-side benchmark's.  The
# objects of the last clean build are kept (tw_keep_module): kbuild
# compiles, and sparse (C=1) checks, what changed since and what includes
# it.  A build that is not clean starts empty the next time, so that no
# object kept from it can hide a warning.
lint_build() {
	local name=$1 kdir=$2 stage=$TW_CACHE/run/lint-$1
	shift 2
	set -- "$@" W=1 C=1 TW_KBENCH=1
	tw_keep_module "$kdir" "$stage" "$@"
	if ! make -j"$(nproc)" -C "$kdir" "$@" M="$stage" modules >"$stage.log" 2>&1 ||
		grep -vE '^\s*(CC|LD|MODPOST|CHECK|AR|LDS|BTF|Skipping)\b|^make(\[[0-9]+\])?: (Entering|Leaving)' \
			"$stage.log" | grep -q .; then
		cat "$stage.log" >&2
		rm -rf "$stage"
		tw_log "W=1 + sparse build against $name: not clean"
		return 1
	fi
	tw_module_clean "$kdir" "$stage" "$@"
	tw_log "W=1 + sparse build against $name: clean ($(grep -c '^\s*CHECK' "$stage.log") files checked, the rest as at the last clean build)"
}

lint_build uml-6.12 "$("$TW_ROOT/scripts/guest/uml-kernel.sh" normal)" ARCH=um || status=1
for k in "${TW_KERNELS[@]}"; do
	if ! out=$("$TW_ROOT/scripts/guest/debian-kernel.sh" "$k"); then
		tw_log "W=1 + sparse build against $k: no kernel to build against"
		status=1
		continue
	fi
	read -r ver kdir _ <<<"$out"
	lint_build "$ver" "$kdir" || status=1
done
exit $status
