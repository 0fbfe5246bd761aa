#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test guests' initramfs.  The kernel command line's tw.mode=
# picks what runs: e2e (the tests), demo (twctl) or bench (bench_device).
# Markers (TW-...) on the console tell the host what happened.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mode=$(sed -n 's/.*tw\.mode=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
echo "TW-GUEST $(uname -r) mode=$mode cpus=$(grep -c ^processor /proc/cpuinfo)"

if insmod /timingwheel.ko; then
	echo "TW-INSMOD-OK $(ls -l /dev/timingwheel)"
else
	echo "TW-INSMOD-FAILED"
fi

# From here on the console shows warnings and worse only, so that routine
# kernel messages cannot land inside the test output; reports still show.
echo 5 >/proc/sys/kernel/printk

case $mode in
e2e)
	timeout 600 /bin/tw_e2e >/tmp/e2e.log 2>&1
	rc=$?
	cat /tmp/e2e.log
	echo "TW-RESULT rc=$rc"
	# The same suite from a 32-bit process, through compat_ioctl.
	timeout 600 /bin/tw_e2e32 >/tmp/compat32.log 2>&1
	rc=$?
	sed 's/^/compat32: /' /tmp/compat32.log
	echo "TW-COMPAT32 rc=$rc"
	# The module must stay while a file is open, and go once it is closed.
	exec 3</dev/timingwheel
	rmmod timingwheel 2>/dev/null && echo "TW-RMMOD-WHILE-OPEN-SUCCEEDED"
	exec 3<&-
	;;
demo)
	sh /demo.sh
	echo "TW-RESULT rc=$?"
	;;
bench)
	/bin/bench_device
	echo "TW-RESULT rc=$?"
	;;
esac

rmmod timingwheel && echo "TW-RMMOD-OK"
echo "TW-DONE"
poweroff -f
