// SPDX-License-Identifier: MIT
/*
 * tw_pkgclient: the smallest program on the installed libtimingwheel.
 * scripts/package/packages.sh builds it against the Debian packages with pkg-config,
 * dynamically and statically (tools/build/tw_pkgclient, which
 * runs in the test guests' initramfs too).  It includes <libtimingwheel.h>
 * and the C library's headers, nothing of this tree.
 *
 * It starts one timer 1 ms ahead and reads its expiry.
 * Exit status: 0 the expiry arrived, 2 no device (module not loaded),
 * 1 any other failure.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <libtimingwheel.h>

int main(void)
{
	struct twheel_event ev;
	ssize_t n;
	int fd, ret;

	fd = timingwheel_open(CLOCK_MONOTONIC, 0, 0);
	if (fd == -ENOENT) {
		printf("tw_pkgclient: no %s: %s\n", TIMINGWHEEL_DEVICE,
		       timingwheel_strerror(fd));
		return 2;
	}
	if (fd < 0) {
		fprintf(stderr, "tw_pkgclient: open: %s\n", timingwheel_strerror(fd));
		return 1;
	}
	ret = timingwheel_start_after(fd, 1, 1000000);
	if (ret < 0) {
		fprintf(stderr, "tw_pkgclient: start: %s\n", timingwheel_strerror(ret));
		close(fd);
		return 1;
	}
	n = timingwheel_read(fd, &ev, 1);
	if (n != 1) {
		fprintf(stderr, "tw_pkgclient: read: %s\n",
			timingwheel_strerror(n < 0 ? (int)n : -EIO));
		close(fd);
		return 1;
	}
	printf("tw_pkgclient: timer %llu fired %llu ns after it was due\n",
	       (unsigned long long)ev.id, (unsigned long long)(ev.fired - ev.due));
	close(fd);
	return 0;
}
