#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of every test guest: the QEMU guests' busybox initramfs, and the
# UML kernels, whose root is the host's own / (read-only, through hostfs).
# The kernel command line says what to do:
#
#   tw.mode=e2e|demo|bench|threads|kbench|textpoke   what runs (e2e:
#                            tw_e2e, tw_libtest, the bindings' tests where
#                            staged, then tw_fuzz if asked; threads:
#                            bench_device -T; kbench:
#                            timingwheel_kbench.ko; textpoke: trace events
#                            toggled for tw.fuzz seconds)
#   tw.dir=DIR               where timingwheel.ko and bin/ are (default /)
#   tw.fuzz=SECONDS          e2e: run each fuzzer this long (default 0: not);
#                            textpoke: how long
#   tw.seed=N                the fuzzers' seed (default 0: they pick one)
#   tw.only=T1,T2,...        e2e: run only these tests of tw_e2e
#   tw.libonly=C1,C2,...     e2e: run only these cases of tw_libtest
#   tw.kbench=P=V,...        kbench: timingwheel_kbench.ko's parameters
#
# Markers (TW-...) on the console tell the host what happened: each is
# listed, with who reads it and what it means, in scripts/guest/markers.txt,
# which the harness self-test keeps in step with this file.
# A QEMU guest's /bin holds busybox and the sh link to it; UML has the host's.
[ -e /bin/mount ] || /bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
# Under UML /tmp is the host's, read-only; a tmpfs over it in here only.
mount -t tmpfs tmpfs /tmp
arg() { sed -n "s/.* tw\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
mode=$(arg mode)
dir=$(arg dir)
dir=${dir:-/}
fuzz=$(arg fuzz)
seed=$(arg seed)
only=
for t in $(arg only | tr , ' '); do only="$only -t $t"; done
libonly=$(arg libonly | tr , ' ')
echo "TW-GUEST $(uname -r) mode=$mode cpus=$(grep -c ^processor /proc/cpuinfo)"

if insmod "$dir/timingwheel.ko"; then
	echo "TW-INSMOD-OK $(ls -l /dev/timingwheel)"
else
	echo "TW-INSMOD-FAILED"
fi

# From here on the console shows warnings and worse only, so that routine
# kernel messages cannot land inside the test output; reports still show.
echo 5 >/proc/sys/kernel/printk

# The module's parameters as loaded, put back after each program: a test
# that lowered a limit and died before it restored it must not leave the
# programs after it running under that limit.
params=/sys/module/timingwheel/parameters
mkdir -p /tmp/params
for p in "$params"/*; do [ -r "$p" ] && cat "$p" >"/tmp/params/${p##*/}"; done 2>/dev/null
params_restore() {
	for p in /tmp/params/*; do
		[ -f "$p" ] || continue
		cmp -s "$p" "$params/${p##*/}" 2>/dev/null ||
			cat "$p" >"$params/${p##*/}" 2>/dev/null
	done
}

# run_fuzz BITS SUFFIX: both fuzzers as a BITS-bit process.
run_fuzz() {
	for f in ioctl model stress ring; do
		timeout $((fuzz * 3 + 120)) "$dir/bin/tw_fuzz$2" $f "${seed:-0}" "$fuzz" \
			>/tmp/fuzz.log 2>&1
		echo "TW-FUZZ-RC $1 $f rc=$?"
		sed "s/^/fuzz$1: /" /tmp/fuzz.log
	done
}

case $mode in
e2e)
	timeout 600 "$dir/bin/tw_e2e" $only >/tmp/e2e.log 2>&1
	rc=$?
	params_restore
	cat /tmp/e2e.log
	echo "TW-RESULT rc=$rc"
	# libtimingwheel's own tests, against the module, where the host put
	# them (a planted bug in the module alone is judged without them).
	if [ -x "$dir/bin/tw_libtest" ]; then
		# shellcheck disable=SC2086 # case names, split on purpose
		timeout 300 "$dir/bin/tw_libtest" $libonly >/tmp/libtest.log 2>&1
		rc=$?
		params_restore
		sed 's/^/libtest: /' /tmp/libtest.log
		echo "TW-LIBTEST rc=$rc"
	fi
	# The examples of tools/examples that the host put here: each checks
	# its own result.
	for ex in "$dir"/bin/example_*; do
		[ -x "$ex" ] || continue
		timeout 120 "$ex" >/tmp/example.log 2>&1
		rc=$?
		params_restore
		sed "s/^/example: /" /tmp/example.log
		echo "TW-EXAMPLE ${ex##*/example_} rc=$rc"
	done
	# The client that scripts/package/packages.sh built against the installed
	# packages (pkg-config, static), when the host built one.
	if [ -x "$dir/bin/tw_pkgclient" ]; then
		timeout 60 "$dir/bin/tw_pkgclient"
		echo "TW-PKGCLIENT rc=$?"
	fi
	# The bindings' tests (bindings/), where the host staged them (UML,
	# whose root is the host's: its python3, its cargo-built binaries).
	if [ -d "$dir/bindings" ]; then
		timeout 300 /usr/bin/python3 -B -m unittest discover -v \
			-s "$dir/bindings/python/tests" >/tmp/bind.log 2>&1
		rc=$?
		sed 's/^/python: /' /tmp/bind.log
		echo "TW-PYTHON rc=$rc"
		rc=0
		: >/tmp/bind.log
		for t in "$dir"/bindings/rust/*; do
			timeout 300 "$t" >>/tmp/bind.log 2>&1 || rc=1
		done
		sed 's/^/rust: /' /tmp/bind.log
		echo "TW-RUST rc=$rc"
	fi
	# The same suite from a 32-bit process, through compat_ioctl, where
	# the kernel runs 32-bit programs (UML does not).
	if [ -x "$dir/bin/tw_e2e32" ]; then
		timeout 600 "$dir/bin/tw_e2e32" $only >/tmp/compat32.log 2>&1
		rc=$?
		params_restore
		sed 's/^/compat32: /' /tmp/compat32.log
		echo "TW-COMPAT32 rc=$rc"
	fi
	if [ "${fuzz:-0}" -gt 0 ]; then
		run_fuzz 64 ""
		[ -x "$dir/bin/tw_fuzz32" ] && run_fuzz 32 32
	fi
	# The module must stay while a file is open, and go once it is closed.
	exec 3</dev/timingwheel
	rmmod timingwheel 2>/dev/null && echo "TW-RMMOD-WHILE-OPEN-SUCCEEDED"
	exec 3<&-
	;;
textpoke)
	# Live-patch kernel text as fast as a shell can: each toggle of the
	# module's trace events flips static keys, the sched_switch probe of
	# the command-line recorder among them, while busy loops on every
	# vCPU run the patched scheduler (scripts/guest/qemu-run.sh, why).
	t=/sys/kernel/tracing
	[ -d $t/events ] || mount -t tracefs nodev $t
	for c in 1 2 3 4; do (while :; do usleep 100; done) & done
	end=$(($(date +%s) + ${fuzz:-30}))
	n=0
	while [ "$(date +%s)" -lt $end ]; do
		echo 1 >$t/events/timingwheel/enable
		echo 0 >$t/events/timingwheel/enable
		n=$((n + 1))
	done
	kill $(jobs -p)
	echo "TW-TEXTPOKE toggles=$n"
	[ $n -gt 0 ]
	echo "TW-RESULT rc=$?"
	;;
demo)
	PATH=$dir/bin:$PATH sh "$dir/demo.sh"
	echo "TW-RESULT rc=$?"
	;;
bench)
	"$dir/bin/bench_device"
	echo "TW-RESULT rc=$?"
	;;
threads)
	"$dir/bin/bench_device" -T
	echo "TW-RESULT rc=$?"
	;;
kbench)
	# The kernel-side benchmark runs at load; its lines are in the log.
	# shellcheck disable=SC2046 # one word per parameter
	insmod "$dir/timingwheel_kbench.ko" $(arg kbench | tr , ' ')
	rc=$?
	dmesg | sed -n 's/^.*\(KBENCH[- ].*\)$/TW-\1/p'
	rmmod timingwheel_kbench
	echo "TW-RESULT rc=$rc"
	;;
esac

rmmod timingwheel && echo "TW-RMMOD-OK"
echo "TW-DONE"
poweroff -f
