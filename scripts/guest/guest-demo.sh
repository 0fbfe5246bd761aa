#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demonstration `make demo` runs: a user's first minutes with the device.
set -e
echo "== one client: five one-shot timers, one periodic, one stopped"
twctl start 1 50 start 2 120 start 3 200 start 4 300 start 5 450 \
	start 6 100 100 start 7 250 stop 7 info \
	watch 10 2000 info fdinfo
echo "== 40 timers due within 200 ms, watched with epoll"
set --
i=0
while [ $i -lt 40 ]; do
	set -- "$@" start $((1000 + i)) $((5 + i * 5))
	i=$((i + 1))
done
twctl "$@" watch 40 3000 info
echo "== CLOCK_BOOTTIME at 100 us, slack, replace, query and a batch"
twctl config boottime 100us start --slack 20ms 1 30ms \
	start 2 1s start --replace 2 60ms query 2 \
	batch start 3 10ms start --interval 25ms 4 25ms stop 2 end \
	watch 4 2000 sleep 20 read info
echo "== a batch from stdin"
printf 'start 10 5ms\nstart 11 10ms # a comment\nstop 10\n' | twctl batch - watch 1 1000
echo "== shared-memory rings: 200 timers 1 ms apart, started with stores, not calls"
twctl ring 200 info
