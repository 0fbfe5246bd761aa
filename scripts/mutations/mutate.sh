#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the tests catch real bugs: apply one planted bug at a time to
# a copy of the tree and require the suite to fail.  The bugs are patches,
# one per file, in scripts/mutations/core (the wheel and the index, judged
# by the KUnit suite under UML) and scripts/mutations/device (the driver and
# libtimingwheel, judged by the e2e suite and tw_libtest under the UML debug
# kernel).  The first line of
# each names the bug.  A patch that no longer applies exactly (no fuzz) is
# itself a failure, so a mutation cannot go stale silently.
#
# A device bug names, in a line of its header, the tests that judge it:
# "Suite: uml T1,T2" (the e2e suite under the UML debug kernel) or "Suite:
# qemu KERNEL T1,T2" (in a QEMU guest of KERNEL, for what UML cannot show,
# such as time namespaces), or "Suite: host ring-sb" (tools/testing/ring-sb
# on this host's two CPUs, x86-64, for a barrier taken out of the rings'
# protocol: neither UML nor the one-CPU guests have a store buffer to race).  One of
# the uml and qemu tests is a test the bug cannot fail,
# so that the verdict can tell a caught bug from a run that never
# happened.  libtimingwheel's own tests and the examples run under UML
# only for a bug outside the module's own files (lib/, the uapi); a line
# "Libtest: C1,C2" names the cases of tw_libtest that catch it, and then
# only those run, without the examples.
# Running only the tests that catch a bug keeps the stage within its time.
#
# Device bugs run two at a time, one a CPU: most of a mutant's time is its
# failing test's wait.  A bug whose catch depends on the guest keeping time
# (a test that judges only the rounds a callback ran in time, a period
# measured against a sleep) says so in a line "Alone: WHY", and runs after
# the others with nothing beside it, as do the qemu and host suites.
#
#   scripts/mutations/mutate.sh core|device
#
# TW_MUTATION=<part of a name> runs only the matching mutations;
# TW_MUTATION_JOBS=N runs N at once (default 2, at least 1).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

kind=${1:-core}
case $kind in
core)
	# KUnit runs no timing: two mutants at once, one a CPU.
	jobs=${TW_MUTATION_JOBS:-2}
	suite() { TW_RUN_TAG=$mtag TW_UML_TIMEOUT=30 "$1/scripts/guest/kunit-uml.sh" normal; }
	# Caught means tests ran and some failed or crashed.
	verdict='Ran [1-9][0-9]* tests: .*(failed|crashed): [1-9][0-9]*.*'
	;;
device)
	# Two at a time, but not those that time (alone(), below).
	jobs=${TW_MUTATION_JOBS:-2}
	# The UML debug kernel: twice as fast as a TCG guest, and KASAN
	# turns a mutant's memory error into a report.
	# The cases of tw_libtest a bug's header names ("Libtest: C1,C2").
	libtest_cases() { sed -n '2,/^---/s/^Libtest: //p' "$1"; }
	suite() {
		local cases
		cases=$(libtest_cases "$2")
		# shellcheck disable=SC2046 # WHERE [KERNEL] TESTS, split on purpose
		set -- "$1" $(sed -n '2,/^---/s/^Suite: //p' "$2")
		# shellcheck disable=SC2046 # TW_EXAMPLES=, or no word at all
		case $2 in
		uml) env TW_RUN_TAG="$mtag" TW_UML_TIMEOUT=300 TW_E2E_ONLY="$3" \
			TW_LIBTEST="$lib" TW_LIBTEST_ONLY="$cases" \
			$([ "$lib" = 1 ] && [ -z "$cases" ] || echo TW_EXAMPLES=) \
			"$1/scripts/guest/uml-e2e.sh" debug ;;
		qemu) TW_RUN_TAG=$mtag TW_E2E_ONLY=$4 "$1/scripts/guest/qemu-run.sh" "$3" e2e ;;
		host) make -s -C "$1/tools" "$3" >/dev/null && "$1/tools/build/tw_ring_sb" -t 20 ;;
		*) echo "no 'Suite: uml|qemu KERNEL TESTS|host ring-sb' line in the header"; return 2 ;;
		esac
	}
	# Caught means the suite ran (some tests passed) and not all passed,
	# or libtimingwheel's tests (lib/ bugs) ran and some failed, or the
	# store-buffering test lost a round.
	verdict='e2e: [1-9][0-9]* of [1-9][0-9]* planned tests passed|libtimingwheel tests on .*: FAILED: .*passed=[0-9]+ failed=[1-9][0-9]*|ring-sb: FAILED: [1-9][0-9]* lost'
	;;
*) tw_die "usage: mutate.sh core|device" ;;
esac

# alone PATCH: whether the bug runs with no other beside it: its header
# says "Alone: WHY", or it is judged in a QEMU guest or by ring-sb, which
# needs both CPUs to itself.
alone() {
	[ "$kind" = device ] &&
		sed -n '2,/^---/p' "$1" | grep -qE '^Alone: .|^Suite: (qemu|host) '
}

tw_need patch
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
# The UML kernel the suites boot, built once before mutants start two at a
# time, so that a kernel that does not build is said once, here, and not by
# every mutant (uml-kernel.sh's lock would hold the second behind the first).
case $kind in
core) "$TW_ROOT/scripts/guest/uml-kernel.sh" normal >/dev/null ;;
device) "$TW_ROOT/scripts/guest/uml-kernel.sh" debug >/dev/null ;;
esac || tw_die "the UML kernel does not build"
# Where mutants are built and run: apart from another run's (TW_RUN_TAG),
# and each job's apart from the other's (the job's slot).
mtag0=mutant${TW_RUN_TAG:+-$TW_RUN_TAG}

# mutant PATCH SLOT: plant one bug in a tree of its own and run its suite;
# succeed only if the suite ran and caught it.  suite() sees $mtag and $lib.
mutant() {
	local m=$1 mtag=$mtag0-$2 name tree ran t0 lib keep
	name=$(sed -n '1s/^Planted bug: //p' "$m")
	tree=$TW_CACHE/run/$mtag
	rm -rf "$tree" && mkdir -p "$tree"
	# A bug in the module or in lib/'s sources reuses the programs built
	# here (make rebuilds what is older than its sources, and the
	# programs depend on libtimingwheel.a); one in tools/ or a header
	# is built from scratch.
	keep=(--exclude build --exclude build32)
	grep -qE '^\+\+\+ b/(tools/|include/|lib/.*\.h)' "$m" || keep=()
	# A bug in the module alone is judged by the e2e tests its header
	# names; libtimingwheel's tests and the examples run for the rest.
	lib=0
	grep -qE '^\+\+\+ b/[^/[:space:]]+/' "$m" && lib=1
	(cd "$TW_ROOT" && rsync -a "${keep[@]}" Kbuild ./*.c ./*.h \
		VERSION lib scripts tools "$tree/" &&
		if [ -d include ]; then rsync -a include "$tree/"; fi)
	# Stale is a patch that needs fuzz or applies at an offset: the code
	# it was written against has moved, and it may no longer plant the bug.
	if ! patch -p1 --fuzz=0 --no-backup-if-mismatch -d "$tree" <"$m" >"$tree.log" 2>&1 ||
		grep -q 'offset' "$tree.log"; then
		tw_log "mutation '$name' does not apply exactly: update $m"
		grep -E 'offset|FAILED' "$tree.log" >&2
		return 1
	fi
	t0=$SECONDS
	if suite "$tree" "$m" >"$tree.log" 2>&1; then
		tw_log "mutation '$name' SURVIVED: the suite did not notice"
		# The seeds its randomised cases drew, to replay the miss.
		grep -E 'seeds drawn|seed [0-9]+' "$tree.log" | sort -u | tail -n 5 |
			sed 's/^\[tw\] //; s/^/[tw]   replay: /' >&2
		return 1
	elif grep -qE 'insmod failed|TW-GUEST .* mode= ' "$tree.log" ||
		! ran=$(grep -m1 -oE "$verdict|the kernel reported a problem" "$tree.log"); then
		# A mutant that does not build or boot, or a guest that never
		# loaded it, proves nothing about the tests; one that crashes
		# the kernel under test was caught.  A guest told no mode prints
		# "TW-GUEST ... mode= " (scripts/guest/markers.txt).
		tw_log "mutation '$name': the suite did not run (log: $tree.log)"
		grep -m1 "no 'Suite" "$tree.log" >&2 || tail -n 5 "$tree.log" >&2
		return 1
	fi
	tw_log "mutation '$name' caught in $((SECONDS - t0)) s: $ran"
}

# Up to $jobs mutants at once, each in a slot of its own; a mutant's lines
# are printed when it ends.
out=$TW_CACHE/run/$mtag0.out
rm -rf "$out" && mkdir -p "$out"
declare -A slot_of=()
failures=0 tried=0
reap() {
	local pid rc=0

	wait -n -p pid || rc=$?
	cat "$out/${slot_of[$pid]}"
	[ $rc -eq 0 ] || failures=$((failures + 1))
	unset "slot_of[$pid]"
}
# Every header is checked before a mutant runs, so that none is left
# running behind a tw_die.
for m in "$TW_ROOT/scripts/mutations/$kind"/*.patch; do
	grep -q '^Planted bug: .' <(head -n 1 "$m") ||
		tw_die "$m does not start with 'Planted bug: '"
done
# Those that share the CPUs first, then those that run alone, one by one.
order=()
for pass in shared alone; do
	for m in "$TW_ROOT/scripts/mutations/$kind"/*.patch; do
		if alone "$m"; then
			[ $pass = alone ] && order+=("$m")
		else
			[ $pass = shared ] && order+=("$m")
		fi
	done
done
for m in "${order[@]}"; do
	name=$(sed -n '1s/^Planted bug: //p' "$m")
	[[ $name == *"${TW_MUTATION:-}"* ]] || continue
	tried=$((tried + 1))
	if alone "$m"; then
		while [ ${#slot_of[@]} -gt 0 ]; do reap; done
	fi
	[ ${#slot_of[@]} -lt "$jobs" ] || reap
	# The lowest slot no running mutant holds.
	for ((slot = 0; slot < jobs; slot++)); do
		[[ " ${slot_of[*]} " == *" $slot "* ]] || break
	done
	mutant "$m" "$slot" >"$out/$slot" 2>&1 &
	slot_of[$!]=$slot
	if alone "$m"; then reap; fi
done
while [ ${#slot_of[@]} -gt 0 ]; do reap; done
[ $tried -gt 0 ] || tw_die "no mutation matches '${TW_MUTATION:-}'"
[ $failures -eq 0 ] || exit 1
tw_log "all $tried mutations caught"
