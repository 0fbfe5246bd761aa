#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-ratas: Ratas' own benchmark program (src/test/test_benchmark.cc
# of github.com/jsnell/ratas), unmodified, built twice with Ratas' flags
# (-O3): on Ratas' timer-wheel.h and on tools/bench/tw_ratas.hh, Ratas'
# interface over tw_core (tw_core.c at -O3, with the kernel's
# -fno-strict-aliasing: see tools/bench/Makefile).  For each pair count and range
# setting it prints the user seconds the program reports (the median and
# the minimum of RATAS_REPS runs, interleaved: every configuration once,
# then again) and the instructions callgrind counts (one run each;
# noise-free), tw_core against Ratas, and fails if the checksums
# (total_rx_count) differ.  The minimum is there for a shared host whose
# slow spells are long: there a run takes its time or up to twice it,
# and the median of five can land on either.
#
#   RATAS_DIR=/abs/ratas   a checkout of Ratas; unset, a clone kept in
#                          $TW_CACHE/ratas (fetched when missing; if it
#                          cannot be, the benchmark is skipped, not failed)
#   RATAS_PAIRS="2000 32000"  pair counts (BENCH_PAIR_COUNT)
#   RATAS_REPS=3           timed runs per configuration
#   RATAS_INSTR=0          skip the callgrind counts (minutes at 32,000)
#   RATAS_JOBS=2           callgrind runs at once
#
# Ratas itself never enters this tree.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

pairs=${RATAS_PAIRS:-2000 32000}
reps=${RATAS_REPS:-3}
jobs=${RATAS_JOBS:-2}
url=https://github.com/jsnell/ratas

ratas_dir() {
	local dir=${RATAS_DIR:-$TW_CACHE/ratas}

	if [ -z "${RATAS_DIR:-}" ] && [ ! -f "$dir/src/test/test_benchmark.cc" ]; then
		rm -rf "$dir"
		timeout 120 git clone -q "$url" "$dir" 2>/dev/null || return 1
	fi
	[ -f "$dir/src/test/test_benchmark.cc" ] && [ -f "$dir/src/timer-wheel.h" ] &&
		echo "$dir"
}

if ! dir=$(ratas_dir); then
	tw_log "bench-ratas: no Ratas (RATAS_DIR unset and $url unreachable): skipped"
	exit 0
fi
work=$TW_CACHE/run/bench-ratas${TW_RUN_TAG:+-$TW_RUN_TAG}
out=$work/build
rm -rf "$work" && mkdir -p "$work"
make -s -C "$TW_ROOT/tools/bench" OUTPUT="$out" RATAS_DIR="$dir" ratas-own >&2 ||
	tw_die "bench-ratas: the build failed"
tw_log "bench-ratas: Ratas $(git -C "$dir" rev-parse --short HEAD 2>/dev/null || echo '(no git)') from $dir"

# One run: "impl pairs range user_seconds checksum" on stdout.
run() {
	local impl=$1 n=$2 range=$3 line

	line=$(BENCH_PRINT_TRACE=no BENCH_PAIR_COUNT=$n BENCH_ALLOW_SCHEDULE_IN_RANGE=$range \
		"$out/ratas-own/$impl/test_benchmark" 2>/dev/null | tail -n 1) ||
		tw_die "bench-ratas: $impl failed at $n pairs, range $range"
	IFS=, read -r _ _ _ secs sum <<<"$line"
	echo "$impl $n $range $secs $sum"
}

for ((r = 1; r <= reps; r++)); do
	for n in $pairs; do
		for range in yes no; do
			for impl in ratas tw; do
				run "$impl" "$n" "$range"
			done
		done
	done
done >"$work/times.txt"

# Instructions, from callgrind's totals; RATAS_JOBS runs at once.
instr() {
	local impl=$1 n=$2 range=$3 f=$work/cg.$1.$2.$3

	BENCH_PRINT_TRACE=no BENCH_PAIR_COUNT=$n BENCH_ALLOW_SCHEDULE_IN_RANGE=$range \
		valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$out/ratas-own/$impl/test_benchmark" >/dev/null 2>&1
	sed -n 's/^totals: //p' "$f" >"$f.total"
}
if [ "${RATAS_INSTR:-1}" != 0 ]; then
	tw_need valgrind
	for n in $pairs; do
		for range in yes no; do
			for impl in ratas tw; do
				while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
				instr "$impl" "$n" "$range" &
			done
		done
	done
	wait
fi

# secs IMPL PAIRS RANGE median|min: that statistic of the configuration's runs
secs() {
	awk -v i="$1" -v n="$2" -v r="$3" '$1 == i && $2 == n && $3 == r { print $4 }' \
		"$work/times.txt" | sort -g |
		awk -v s="$4" '{ v[NR] = $1 } END { print s == "min" ? v[1] : v[int((NR + 1) / 2)] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b) printf "%.2f", a / b; else printf "-" }'; }
sums() { awk -v n="$1" -v r="$2" '$2 == n && $3 == r { print $5 }' "$work/times.txt" | sort -u; }
count() { cat "$work/cg.$1.$2.$3.total" 2>/dev/null || echo 0; }
giga() { awk -v x="$1" 'BEGIN { if (x) printf "%.3f G", x / 1e9; else printf "-" }'; }

status=0
echo "== Ratas' own benchmark program: tw_core (tw_ratas.hh) against Ratas (timer-wheel.h), g++ -O3"
echo "   user seconds of $reps runs, the median and the minimum; instructions of one run (callgrind)"
printf '%-7s %-6s %9s %9s %9s %9s %9s %9s  %s\n' pairs range "med: tw" Ratas "min: tw" Ratas \
	"instr: tw" Ratas "tw/Ratas: med, min, instr"
for n in $pairs; do
	for range in yes no; do
		st=$(secs tw "$n" "$range" median) sr=$(secs ratas "$n" "$range" median)
		mt=$(secs tw "$n" "$range" min) mr=$(secs ratas "$n" "$range" min)
		it=$(count tw "$n" "$range") ir=$(count ratas "$n" "$range")
		printf '%-7s %-6s %9.3f %9.3f %9.3f %9.3f %9s %9s  %s, %s, %s\n' "$n" "$range" \
			"$st" "$sr" "$mt" "$mr" "$(giga "$it")" "$(giga "$ir")" \
			"$(ratio "$st" "$sr")" "$(ratio "$mt" "$mr")" "$(ratio "$it" "$ir")"
		if [ "$(sums "$n" "$range" | wc -l)" -ne 1 ]; then
			tw_log "bench-ratas: checksums differ at $n pairs, range $range: $(sums "$n" "$range" | tr '\n' ' ')"
			status=1
		fi
	done
done
[ $status = 0 ] && echo "checksums (total_rx_count): tw_core and Ratas agree in every run"
exit $status
