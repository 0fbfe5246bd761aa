// SPDX-License-Identifier: GPL-2.0
/*
 * twctl: drive /dev/timingwheel from the command line.
 *
 * One open file is one client, so a whole scenario runs in one invocation:
 * the commands are executed in order on the same file descriptor, and the
 * first one that fails ends the run with a non-zero exit status.
 *
 * Build: gcc -static -O2 -Wall -Wextra -I ../../include/uapi twctl.c -o twctl
 */
#define _GNU_SOURCE
#define __SANE_USERSPACE_TYPES__	/* __u64 is unsigned long long everywhere */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/timingwheel.h>

#define NSEC_PER_MSEC	1000000LL
#define EVENT_BUF	16
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct twctl {
	int		fd;
	clockid_t	clockid;
	char		**argv;		/* the current command's arguments */
	int		argc;
};

struct cmd {
	const char	*name;
	int		nargs;		/* required arguments */
	int		nopt;		/* optional numeric arguments after them */
	int		(*run)(struct twctl *tw);
};

static void print_usage(FILE *f)
{
	fprintf(f, "Usage: twctl [-d DEVICE] [-r RESOLUTION_NS] [-c monotonic|boottime]\n"
		"             COMMAND...\n"
		"commands, run in order on one open file:\n"
		"  start ID DELAY_MS [PERIOD_MS]  start a timer (periodic with PERIOD_MS)\n"
		"  stop ID                        stop a timer\n"
		"  query ID                       print a timer's state\n"
		"  info                           print the client's settings and counters\n"
		"  watch COUNT [TIMEOUT_MS]       read COUNT events (or until the timeout)\n"
		"  sleep MS                       sleep\n"
		"  fdinfo                         print /proc/self/fdinfo of the device\n"
		"-r or -c sets TWHEEL_IOC_SET_CONFIG right after open; times may have decimals.\n");
}

static const char *clock_name(clockid_t clockid)
{
	return clockid == CLOCK_BOOTTIME ? "boottime" : "monotonic";
}

static __u64 now_ns(const struct twctl *tw)
{
	struct timespec ts;

	clock_gettime(tw->clockid, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Signed milliseconds from @base to @t, both ns on the same clock. */
static double rel_ms(__u64 t, __u64 base)
{
	return (double)(__s64)(t - base) / NSEC_PER_MSEC;
}

static int parse_u64(const char *s, __u64 *val)
{
	char *end;

	errno = 0;
	*val = strtoull(s, &end, 0);
	if (!errno && (end == s || *end || *s == '-'))
		errno = EINVAL;
	return errno ? -1 : 0;
}

/* Milliseconds, possibly with decimals, to nanoseconds. */
static int parse_ms(const char *s, __u64 *ns)
{
	char *end;
	double ms = strtod(s, &end);

	if (end == s || *end || !(ms >= 0 && ms <= 1.8e13)) {
		errno = EINVAL;
		return -1;
	}
	*ns = (__u64)(ms * NSEC_PER_MSEC + 0.5);
	return 0;
}

static int cmd_start(struct twctl *tw)
{
	struct twheel_timer_spec spec = { 0 };

	if (parse_u64(tw->argv[0], &spec.id) || parse_ms(tw->argv[1], &spec.value) ||
	    (tw->argc > 2 && parse_ms(tw->argv[2], &spec.interval)))
		return -1;
	if (ioctl(tw->fd, TWHEEL_IOC_START, &spec))
		return -1;
	if (tw->argc > 2)
		printf("started %llu due=+%s ms period=%s ms\n", spec.id, tw->argv[1], tw->argv[2]);
	else
		printf("started %llu due=+%s ms\n", spec.id, tw->argv[1]);
	return 0;
}

static int cmd_stop(struct twctl *tw)
{
	struct twheel_stop stop = { 0 };
	int result;

	if (parse_u64(tw->argv[0], &stop.id))
		return -1;
	result = ioctl(tw->fd, TWHEEL_IOC_STOP, &stop);
	if (result < 0)
		return -1;
	printf("stopped %llu: %s\n", stop.id,
	       result == TWHEEL_STOPPED_PENDING ? "pending" :
	       result == TWHEEL_STOPPED_EXPIRED ? "expired (event withdrawn)" : "unknown result");
	return 0;
}

static int cmd_query(struct twctl *tw)
{
	struct twheel_query q = { 0 };
	const char *state;

	if (parse_u64(tw->argv[0], &q.id) || ioctl(tw->fd, TWHEEL_IOC_QUERY, &q))
		return -1;
	state = q.state == TWHEEL_STATE_PENDING ? "pending" :
		q.state == TWHEEL_STATE_EXPIRED ? "expired" : "unknown";
	printf("query %llu: state=%s due=%+.3fms remaining=%.3fms interval=%.3fms\n",
	       q.id, state, rel_ms(q.due, now_ns(tw)), rel_ms(q.remaining, 0),
	       rel_ms(q.interval, 0));
	return 0;
}

static int cmd_info(struct twctl *tw)
{
	struct twheel_info info;

	if (ioctl(tw->fd, TWHEEL_IOC_GET_INFO, &info))
		return -1;
	printf("info: clock=%s resolution_ns=%llu range_ns=%llu max_timers=%llu\n",
	       clock_name(info.clockid), info.resolution_ns, info.range_ns, info.max_timers);
	printf("info: pending=%llu queued=%llu fired=%llu cascades=%llu ",
	       info.pending, info.queued, info.fired, info.cascades);
	if (info.next_expiry)
		printf("next=%+.3fms\n", rel_ms(info.next_expiry, info.now));
	else
		printf("next=none\n");
	return 0;
}

struct watch_stats {
	__u64		count;
	__u64		early;
	__s64		min_ns;
	__s64		max_ns;
	__s64		sum_ns;
};

static void watch_event(struct watch_stats *st, const struct twheel_event *ev, __u64 start)
{
	__s64 late = (__s64)(ev->fired - ev->due);

	printf("event id=%llu due=%+.3fms fired=%+.3fms late=%.1fus overrun=%llu periodic=%d\n",
	       ev->id, rel_ms(ev->due, start), rel_ms(ev->fired, start), late / 1000.0,
	       ev->overrun, !!(ev->flags & TWHEEL_EVENT_PERIODIC));
	if (!st->count || late < st->min_ns)
		st->min_ns = late;
	if (!st->count || late > st->max_ns)
		st->max_ns = late;
	st->sum_ns += late;
	st->early += late < 0;
	st->count++;
}

/* Wait for events until @deadline (0: forever); return >0, 0 on timeout, -1. */
static int watch_wait(struct twctl *tw, int epfd, __u64 deadline)
{
	struct epoll_event ee;
	__u64 now, left;
	int ms = -1, ret;

	for (;;) {
		if (deadline) {
			now = now_ns(tw);
			if (now >= deadline)
				return 0;
			left = (deadline - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
			ms = left > 60000 ? 60000 : left;
		}
		ret = epoll_wait(epfd, &ee, 1, ms);
		if (ret > 0 || (ret < 0 && errno != EINTR))
			return ret;
	}
}

/* Read up to @max events; return how many, or -1. */
static int watch_read(struct twctl *tw, struct watch_stats *st, __u64 max, __u64 start)
{
	struct twheel_event ev[EVENT_BUF];
	ssize_t n;
	int i;

	if (max > EVENT_BUF)
		max = EVENT_BUF;
	n = read(tw->fd, ev, max * sizeof(ev[0]));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n % sizeof(ev[0])) {
		errno = EIO;
		return -1;
	}
	for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
		watch_event(st, &ev[i], start);
	return i;
}

static void watch_summary(const struct watch_stats *st, __u64 want)
{
	printf("watch: events=%llu/%llu%s", st->count, want, st->count < want ? " (timeout)" : "");
	if (st->count)
		printf(" late_us min=%.1f avg=%.1f max=%.1f", st->min_ns / 1000.0,
		       (double)st->sum_ns / st->count / 1000.0, st->max_ns / 1000.0);
	printf(" early=%llu\n", st->early);
}

static int cmd_watch(struct twctl *tw)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct watch_stats st = { 0 };
	__u64 want, timeout = 0, start, deadline = 0;
	int epfd, ret = 0;

	if (parse_u64(tw->argv[0], &want) || (tw->argc > 1 && parse_ms(tw->argv[1], &timeout)))
		return -1;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, tw->fd, &ee))
		return -1;
	start = now_ns(tw);
	if (tw->argc > 1)
		deadline = start + timeout;
	printf("watch: start_ns=%llu clock=%s\n", start, clock_name(tw->clockid));
	while (st.count < want) {
		ret = watch_wait(tw, epfd, deadline);
		if (ret <= 0)
			break;
		ret = watch_read(tw, &st, want - st.count, start);
		if (ret < 0)
			break;
	}
	close(epfd);
	if (ret < 0)
		return -1;
	watch_summary(&st, want);
	if (st.early) {
		fprintf(stderr, "twctl: watch: %llu events fired early\n", st.early);
		return 1;
	}
	return 0;
}

static int cmd_sleep(struct twctl *tw)
{
	struct timespec ts;
	__u64 ns;

	if (parse_ms(tw->argv[0], &ns))
		return -1;
	ts.tv_sec = ns / 1000000000ULL;
	ts.tv_nsec = ns % 1000000000ULL;
	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			return -1;
	return 0;
}

static int cmd_fdinfo(struct twctl *tw)
{
	char path[64], buf[512];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", tw->fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

static const struct cmd cmds[] = {
	{ "start",	2, 1, cmd_start },
	{ "stop",	1, 0, cmd_stop },
	{ "query",	1, 0, cmd_query },
	{ "info",	0, 0, cmd_info },
	{ "watch",	1, 1, cmd_watch },
	{ "sleep",	1, 0, cmd_sleep },
	{ "fdinfo",	0, 0, cmd_fdinfo },
};

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* Print "twctl: WORDS...: strerror(errno)" for a failed command. */
static void report(char **words, int n)
{
	int err = errno, i;

	fflush(stdout);
	fprintf(stderr, "twctl:");
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", words[i]);
	fprintf(stderr, ": %s\n", strerror(err));
}

/* Check the syntax of all commands (@tw NULL) or run them; return the exit code. */
static int run_commands(struct twctl *tw, char **argv, int argc)
{
	const struct cmd *c;
	int i, n, ret;
	__u64 ns;

	for (i = 0; i < argc; i += 1 + n) {
		c = find_cmd(argv[i]);
		if (!c || i + c->nargs >= argc) {
			fprintf(stderr, "twctl: %s '%s'\n",
				c ? "missing arguments to" : "unknown command", argv[i]);
			return 2;
		}
		/* Optional arguments are numbers; no command name is one. */
		for (n = c->nargs; n < c->nargs + c->nopt && i + 1 + n < argc; n++)
			if (parse_ms(argv[i + 1 + n], &ns))
				break;
		if (!tw)
			continue;
		tw->argv = argv + i + 1;
		tw->argc = n;
		ret = c->run(tw);
		fflush(stdout);
		if (ret < 0)
			report(argv + i, 1 + n);
		if (ret)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct twctl tw = { .fd = -1, .clockid = CLOCK_MONOTONIC };
	struct twheel_config cfg = { .clockid = CLOCK_MONOTONIC };
	const char *dev = "/dev/timingwheel";
	bool set_config = false;
	int opt;

	while ((opt = getopt(argc, argv, "+d:r:c:h")) != -1) {
		if (opt == 'd') {
			dev = optarg;
		} else if (opt == 'r' && !parse_u64(optarg, &cfg.resolution_ns)) {
			set_config = true;
		} else if (opt == 'c' && (!strcmp(optarg, "monotonic") ||
					  !strcmp(optarg, "boottime"))) {
			cfg.clockid = optarg[0] == 'b' ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
			set_config = true;
		} else {
			print_usage(opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc || run_commands(NULL, argv + optind, argc - optind)) {
		print_usage(stderr);
		return 2;
	}
	tw.clockid = cfg.clockid;
	tw.fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (tw.fd < 0) {
		fprintf(stderr, "twctl: open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (set_config && ioctl(tw.fd, TWHEEL_IOC_SET_CONFIG, &cfg)) {
		fprintf(stderr, "twctl: set config clock=%s resolution_ns=%llu: %s\n",
			clock_name(cfg.clockid), cfg.resolution_ns, strerror(errno));
		return 1;
	}
	return run_commands(&tw, argv + optind, argc - optind);
}
