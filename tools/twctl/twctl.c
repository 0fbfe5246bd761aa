// SPDX-License-Identifier: GPL-2.0
/*
 * twctl: drive /dev/timingwheel from the command line, on libtimingwheel.
 *
 * One open file is one client, so a whole scenario runs in one invocation:
 * the commands are executed in order on the same file descriptor, and the
 * first one that fails ends the run.  Every command's syntax is checked
 * before the device is opened.  Exit status: 0 all done, 1 an operation
 * failed (or a watch saw an early event), 2 a bad command line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <libtimingwheel.h>

#include "tw_tools.h"

#define NSEC_PER_MSEC	1000000ULL
#define EVENT_BUF	16
#define EXIT_USAGE	2
#define PACKAGING_RST	"/usr/share/doc/timingwheel-dkms/packaging.rst"
#ifndef TW_VERSION
#define TW_VERSION	"unknown"
#endif

struct twctl {
	int		fd;
	clockid_t	clockid;
	bool		dry;		/* checking the syntax only */
	char		**argv;		/* all the command words */
	int		argc;
	int		pos;		/* the next word to take */
	const struct cmd *cmd;		/* the command being parsed */
};

struct cmd {
	const char	*name;
	const char	*args;
	const char	*help;
	int		(*run)(struct twctl *tw);
};

/* A start's or a stop's arguments, for the command or a batch entry. */
struct op_args {
	bool		start;
	uint64_t	id;
	uint64_t	value;
	uint64_t	interval;
	uint64_t	slack;
	unsigned int	flags;
};

static const struct cmd cmds[];
static const size_t ncmds;

static void print_cmd_usage(FILE *f, const struct cmd *c)
{
	fprintf(f, "usage: twctl ... %s%s%s\n", c->name, *c->args ? " " : "", c->args);
}

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: twctl [-r RESOLUTION] [-c monotonic|boottime] COMMAND...\n"
		"       twctl help [COMMAND] | --help | --version\n"
		"Commands, run in order on one open file of %s:\n", TIMINGWHEEL_DEVICE);
	for (i = 0; i < ncmds; i++)
		fprintf(f, "  %s%s%s\n      %s\n", cmds[i].name, *cmds[i].args ? " " : "",
			cmds[i].args, cmds[i].help);
	fprintf(f, "TIME is a number with an optional unit: ns, us, ms or s; without one,\n"
		"milliseconds (\"50\", \"2.5\", \"100us\", \"1s\").  ID is a 64-bit number.\n"
		"-r and -c set the resolution and clock right after open, as config does;\n"
		"a RESOLUTION is in ns unless it has a unit (\"100000\", \"100us\"),\n"
		"from 1us to 1s.  See twctl(1).\n"
		"Exit status: 0 done, 1 an operation failed, 2 a bad command line.\n");
}

/* Report a bad command line: which argument, and why.  Returns EXIT_USAGE. */
static int usage_error(struct twctl *tw, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "twctl: %s%s", tw->cmd ? tw->cmd->name : "", tw->cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (tw->cmd)
		print_cmd_usage(stderr, tw->cmd);
	return EXIT_USAGE;
}

/* Report a failed operation, with what its errno means for the device. */
static int op_error(const char *what, uint64_t id, int err)
{
	fflush(stdout);
	fprintf(stderr, "twctl: %s %llu: %s\n", what, (unsigned long long)id,
		timingwheel_strerror(err));
	return 1;
}

static const char *clock_name(clockid_t clockid)
{
	return clockid == CLOCK_BOOTTIME ? "boottime" : "monotonic";
}

/*
 * What a failed timingwheel_open() means: open(2)'s errors have their own
 * remedies (timingwheel_open(3)), where timingwheel_strerror() must also
 * cover the same errno from a timer call.
 */
static const char *open_error(int err)
{
	switch (-err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "module not loaded: modprobe timingwheel";
	case EACCES:
	case EPERM:
		return "permission denied: see the udev rule and group in packaging.rst ("
		       PACKAGING_RST ")";
	default:
		return timingwheel_strerror(err);
	}
}

/* Signed milliseconds from @base to @t, both ns on the same clock. */
static double rel_ms(uint64_t t, uint64_t base)
{
	return (double)(int64_t)(t - base) / NSEC_PER_MSEC;
}

static int parse_u64(const char *s, uint64_t *val)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*val = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static uint64_t time_unit(const char *s)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "", NSEC_PER_MSEC }, { "ns", 1 }, { "us", 1000 },
		{ "ms", NSEC_PER_MSEC }, { "s", 1000000000ULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(s, units[i].name))
			return units[i].ns;
	return 0;
}

/* A TIME: digits, an optional fraction, an optional unit (@bare without). */
static int parse_time_unit(const char *s, uint64_t *ns, uint64_t bare)
{
	unsigned long long whole;
	double frac = 0;
	uint64_t unit;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	whole = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == '.') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		frac = strtod(end, &end);
	}
	unit = *end ? time_unit(end) : bare;
	if (!unit || whole > UINT64_MAX / unit ||
	    whole * unit > UINT64_MAX - (uint64_t)(frac * unit + 0.5))
		return -1;
	*ns = whole * unit + (uint64_t)(frac * unit + 0.5);
	return 0;
}

static int parse_time(const char *s, uint64_t *ns)
{
	return parse_time_unit(s, ns, NSEC_PER_MSEC);
}

/* A resolution is in ns without a unit, as TWHEEL_IOC_SET_CONFIG takes it. */
static int parse_resolution(const char *s, uint64_t *ns)
{
	return parse_time_unit(s, ns, 1);
}

static bool have_arg(const struct twctl *tw)
{
	return tw->pos < tw->argc;
}

static const struct cmd *find_cmd(const char *name);

/*
 * An optional argument is there when the next word is not a command: that
 * word is then the argument, and a bad one is named, not taken for an
 * unknown command.
 */
static bool have_opt_arg(const struct twctl *tw)
{
	return have_arg(tw) && !find_cmd(tw->argv[tw->pos]);
}

/* What the device accepts, checked here so that the error names the word. */
static bool resolution_ok(uint64_t ns)
{
	return ns >= TWHEEL_MIN_RESOLUTION_NS && ns <= TWHEEL_MAX_RESOLUTION_NS;
}

#define RESOLUTION_RANGE	"from 1000 ns (1us) to 1000000000 ns (1s)"

/* Take the next word as @what, a TIME or an ID; EXIT_USAGE if it is not. */
static int take(struct twctl *tw, const char *what, bool time, uint64_t *val)
{
	const char *s;

	if (!have_arg(tw))
		return usage_error(tw, "missing %s", what);
	s = tw->argv[tw->pos++];
	if (!(time ? parse_time(s, val) : parse_u64(s, val)))
		return 0;
	if (time)
		return usage_error(tw, "%s '%s' is not a time (ms, or ending in ns, us, ms, s)",
				   what, s);
	return usage_error(tw, "%s '%s' is not a number from 0 to 2^64-1", what, s);
}

/*
 * The next word, if it is not a command, as the optional TIME @what:
 * 1 taken, 0 absent, EXIT_USAGE if it is not a TIME.
 */
static int take_opt_time(struct twctl *tw, const char *what, uint64_t *val)
{
	if (!have_opt_arg(tw))
		return 0;
	return take(tw, what, true, val) ?: 1;
}

/* A start's options, before or among its ID, TIME and PERIOD. */
static int parse_start_opt(struct twctl *tw, struct op_args *a)
{
	const char *o = tw->argv[tw->pos++];

	if (!strcmp(o, "--abs"))
		a->flags |= TWHEEL_TIMER_ABSTIME;
	else if (!strcmp(o, "--replace"))
		a->flags |= TWHEEL_TIMER_REPLACE;
	else if (!strcmp(o, "--slack"))
		return take(tw, "--slack TIME", true, &a->slack);
	else if (!strcmp(o, "--interval") || !strcmp(o, "--period"))
		return take(tw, "--interval TIME", true, &a->interval);
	else
		return usage_error(tw, "unknown option '%s'", o);
	return 0;
}

static int parse_start_opts(struct twctl *tw, struct op_args *a)
{
	int ret = 0;

	while (!ret && have_arg(tw) && !strncmp(tw->argv[tw->pos], "--", 2))
		ret = parse_start_opt(tw, a);
	return ret;
}

/* start [OPTIONS] ID TIME [PERIOD] */
static int parse_start(struct twctl *tw, struct op_args *a)
{
	uint64_t period;
	int ret;

	memset(a, 0, sizeof(*a));
	a->start = true;
	ret = parse_start_opts(tw, a);
	if (!ret)
		ret = take(tw, "ID", false, &a->id);
	if (!ret)
		ret = parse_start_opts(tw, a);
	if (!ret)
		ret = take(tw, "TIME", true, &a->value);
	if (!ret && have_opt_arg(tw) && strncmp(tw->argv[tw->pos], "--", 2) &&
	    strcmp(tw->argv[tw->pos], "end")) {
		ret = take(tw, "PERIOD", true, &period);
		if (ret)
			return ret;
		if (a->interval && a->interval != period)
			return usage_error(tw, "PERIOD '%s' and --interval disagree",
					   tw->argv[tw->pos - 1]);
		a->interval = period;
	}
	if (!ret)
		ret = parse_start_opts(tw, a);
	if (!ret && a->slack && a->interval)
		return usage_error(tw, "--slack is for one-shot timers; this one is periodic");
	return ret;
}

static int parse_stop(struct twctl *tw, struct op_args *a)
{
	memset(a, 0, sizeof(*a));
	return take(tw, "ID", false, &a->id);
}

static void print_started(const struct op_args *a)
{
	printf("started %llu due=%s%.3fms", (unsigned long long)a->id,
	       a->flags & TWHEEL_TIMER_ABSTIME ? "@" : "+", rel_ms(a->value, 0));
	if (a->interval)
		printf(" period=%.3fms", rel_ms(a->interval, 0));
	if (a->slack)
		printf(" slack=%.3fms", rel_ms(a->slack, 0));
	printf("%s\n", a->flags & TWHEEL_TIMER_REPLACE ? " (replace)" : "");
}

static const char *stopped_name(int result)
{
	return result == TWHEEL_STOPPED_PENDING ? "pending" :
	       result == TWHEEL_STOPPED_EXPIRED ? "expired (event withdrawn)" :
	       "unknown result";
}

static int cmd_start(struct twctl *tw)
{
	struct op_args a;
	int ret = parse_start(tw, &a);

	if (ret || tw->dry)
		return ret;
	ret = timingwheel_start(tw->fd, a.id, a.value, a.interval, a.slack, a.flags);
	if (ret)
		return op_error("start", a.id, ret);
	print_started(&a);
	return 0;
}

static int cmd_stop(struct twctl *tw)
{
	struct op_args a;
	int ret = parse_stop(tw, &a);

	if (ret || tw->dry)
		return ret;
	ret = timingwheel_stop(tw->fd, a.id);
	if (ret < 0)
		return op_error("stop", a.id, ret);
	printf("stopped %llu: %s\n", (unsigned long long)a.id, stopped_name(ret));
	return 0;
}

static int cmd_query(struct twctl *tw)
{
	struct twheel_query q;
	const char *state;
	uint64_t id;
	int ret = take(tw, "ID", false, &id);

	if (ret || tw->dry)
		return ret;
	ret = timingwheel_query(tw->fd, id, &q);
	if (ret)
		return op_error("query", id, ret);
	state = q.state == TWHEEL_STATE_PENDING ? "pending" :
		q.state == TWHEEL_STATE_EXPIRED ? "expired" : "unknown";
	printf("query %llu: state=%s due=%+.3fms remaining=%.3fms interval=%.3fms\n",
	       q.id, state, rel_ms(q.due, timingwheel_now(tw->clockid)),
	       rel_ms(q.remaining, 0), rel_ms(q.interval, 0));
	return 0;
}

static void print_features(uint64_t features)
{
	static const struct { uint64_t bit; const char *name; } names[] = {
		{ TWHEEL_FEATURE_SLACK, "slack" },
		{ TWHEEL_FEATURE_TIMENS, "timens" },
		{ TWHEEL_FEATURE_BOOTTIME, "boottime" },
		{ TWHEEL_FEATURE_MEMORY, "memory" },
		{ TWHEEL_FEATURE_RINGS, "rings" },
	};
	const char *sep = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(features & names[i].bit))
			continue;
		printf("%s%s", sep, names[i].name);
		sep = ",";
		features &= ~names[i].bit;
	}
	if (features)
		printf("%s0x%llx", sep, (unsigned long long)features);
	else if (!*sep)
		printf("none");
}

static int cmd_info(struct twctl *tw)
{
	struct twheel_info info;
	int ret;

	if (tw->dry)
		return 0;
	ret = timingwheel_info(tw->fd, &info);
	if (ret)
		return op_error("info on fd", tw->fd, ret);
	printf("info: abi_version=%u features=", info.abi_version);
	print_features(info.features);
	printf("\ninfo: clock=%s resolution_ns=%llu range_ns=%llu max_timers=%llu\n",
	       clock_name(info.clockid), info.resolution_ns, info.range_ns, info.max_timers);
	printf("info: user_timers=%llu max_user_timers=%llu wakeups=%llu memory=%llu\n",
	       info.user_timers, info.max_user_timers, info.wakeups, info.memory);
	printf("info: pending=%llu queued=%llu fired=%llu cascades=%llu ",
	       info.pending, info.queued, info.fired, info.cascades);
	if (info.next_expiry)
		printf("next=%+.3fms\n", rel_ms(info.next_expiry, info.now));
	else
		printf("next=none\n");
	return 0;
}

static int parse_clock(struct twctl *tw, const char *s, clockid_t *clockid)
{
	if (!strcmp(s, "monotonic"))
		*clockid = CLOCK_MONOTONIC;
	else if (!strcmp(s, "boottime"))
		*clockid = CLOCK_BOOTTIME;
	else
		return usage_error(tw, "clock '%s' is neither monotonic nor boottime", s);
	return 0;
}

static int do_config(struct twctl *tw, clockid_t clockid, uint64_t res)
{
	int ret = timingwheel_config(tw->fd, clockid, res);

	if (ret) {
		fflush(stdout);
		fprintf(stderr, "twctl: config clock=%s resolution_ns=%llu: %s\n",
			clock_name(clockid), (unsigned long long)res,
			timingwheel_strerror(ret));
		return 1;
	}
	tw->clockid = clockid;
	printf("config: clock=%s resolution_ns=%llu%s\n", clock_name(clockid),
	       (unsigned long long)res, res ? "" : " (unchanged)");
	return 0;
}

/* config monotonic|boottime [RESOLUTION] */
static int cmd_config(struct twctl *tw)
{
	clockid_t clockid = CLOCK_MONOTONIC;
	uint64_t res = 0;
	int ret;

	if (!have_arg(tw))
		return usage_error(tw, "missing CLOCK");
	ret = parse_clock(tw, tw->argv[tw->pos++], &clockid);
	if (ret)
		return ret;
	if (have_opt_arg(tw)) {
		const char *s = tw->argv[tw->pos++];

		if (parse_resolution(s, &res))
			return usage_error(tw, "RESOLUTION '%s' is not a time (%s)", s,
					   "ns, or ending in ns, us, ms, s");
		if (res && !resolution_ok(res))
			return usage_error(tw, "RESOLUTION '%s' is out of range: " RESOLUTION_RANGE,
					   s);
	}
	return tw->dry ? 0 : do_config(tw, clockid, res);
}

/* One batch entry, "start ..." or "stop ID", into @a. */
static int parse_entry(struct twctl *tw, struct op_args *a)
{
	const char *op = tw->argv[tw->pos++];

	if (!strcmp(op, "start"))
		return parse_start(tw, a);
	if (!strcmp(op, "stop"))
		return parse_stop(tw, a);
	return usage_error(tw, "entry '%s' is neither start nor stop (end the batch with 'end')",
			   op);
}

static int queue_entry(struct timingwheel_batch *b, const struct op_args *a)
{
	if (a->start)
		return timingwheel_batch_start(b, a->id, a->value, a->interval,
					       a->slack, a->flags);
	return timingwheel_batch_stop(b, a->id);
}

/* Grow @b's storage as the entries come: twctl's batches have no limit. */
static int batch_add(struct timingwheel_batch *b, const struct op_args *a)
{
	struct twheel_op *ops;
	unsigned int cap;

	if (b->count == b->cap) {
		cap = b->cap ? 2 * b->cap : 64;
		ops = realloc(b->ops, cap * sizeof(*ops));
		if (!ops)
			return -ENOMEM;
		b->ops = ops;
		b->cap = cap;
	}
	return queue_entry(b, a);
}

static void print_results(const struct timingwheel_batch *b)
{
	const struct twheel_op *op;
	unsigned int i;

	for (i = 0; i < b->count; i++) {
		op = &b->ops[i];
		printf("batch %u: %s %llu: ", i, op->op == TWHEEL_OP_START ? "start" : "stop",
		       op->id);
		if (op->result == TIMINGWHEEL_RESULT_NONE)
			printf("not applied\n");
		else if (op->result < 0)
			printf("%s\n", timingwheel_strerror(op->result));
		else
			printf("%s\n", op->op == TWHEEL_OP_START ? "started" :
			       stopped_name(op->result));
	}
}

static int submit(struct timingwheel_batch *b)
{
	unsigned int i, failed = 0;
	int ret = timingwheel_batch_submit(b);

	if (ret < 0)
		return op_error("batch of", b->count, ret);
	print_results(b);
	for (i = 0; i < b->count; i++)
		failed += b->ops[i].result < 0;
	printf("batch: %d of %u entries applied, %u failed\n", ret, b->count, failed);
	return (unsigned int)ret < b->count || failed ? 1 : 0;
}

/* The words of one stdin line, as a command line of their own. */
static int split_line(char *line, char **words, int max)
{
	int n = 0;
	char *w;

	for (w = strtok(line, " \t\n"); w && n < max; w = strtok(NULL, " \t\n"))
		words[n++] = w;
	return w ? -1 : n;
}

/* Entries from stdin, one a line; # starts a comment. */
static int batch_stdin(struct twctl *tw, struct timingwheel_batch *b)
{
	struct twctl sub = { .cmd = tw->cmd };
	char line[512], *words[16];
	struct op_args a;
	int n, ret, lineno = 0;

	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		*strchrnul(line, '#') = 0;
		n = split_line(line, words, ARRAY_SIZE(words));
		if (!n)
			continue;
		if (n < 0)
			return usage_error(tw, "stdin line %d: too many words", lineno);
		sub.argv = words;
		sub.argc = n;
		sub.pos = 0;
		ret = parse_entry(&sub, &a);
		if (!ret && sub.pos < n)
			ret = usage_error(tw, "stdin line %d: '%s' after the entry",
					  lineno, words[sub.pos]);
		if (!ret && batch_add(b, &a))
			return op_error("batch entry", lineno, -ENOMEM);
		if (ret)
			return ret;
	}
	return 0;
}

static int batch_args(struct twctl *tw, struct timingwheel_batch *b)
{
	struct op_args a;
	int ret;

	while (have_arg(tw)) {
		if (!strcmp(tw->argv[tw->pos], "end")) {
			tw->pos++;
			break;
		}
		ret = parse_entry(tw, &a);
		if (ret)
			return ret;
		if (!tw->dry && batch_add(b, &a))
			return op_error("batch entry", b->count, -ENOMEM);
	}
	return 0;
}

/* batch ENTRY... [end] | batch - */
static int cmd_batch(struct twctl *tw)
{
	struct timingwheel_batch b;
	int ret;

	if (!have_arg(tw))
		return usage_error(tw, "missing entries ('-' reads them from stdin)");
	timingwheel_batch_init(&b, tw->fd, NULL, 0);
	if (!strcmp(tw->argv[tw->pos], "-")) {
		tw->pos++;
		ret = tw->dry ? 0 : batch_stdin(tw, &b);
	} else {
		ret = batch_args(tw, &b);
	}
	if (!ret && !tw->dry)
		ret = submit(&b);
	free(b.ops);
	return ret;
}

struct watch_stats {
	uint64_t	count;
	uint64_t	early;
	int64_t		min_ns;
	int64_t		max_ns;
	int64_t		sum_ns;
};

static void print_event(struct watch_stats *st, const struct twheel_event *ev,
			uint64_t start)
{
	int64_t late = (int64_t)(ev->fired - ev->due);

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

/* Read up to @max events that wait; return how many, or -errno. */
static int read_events(struct twctl *tw, struct watch_stats *st, uint64_t max,
		       uint64_t start)
{
	struct twheel_event ev[EVENT_BUF];
	ssize_t n, i;

	n = timingwheel_read(tw->fd, ev, max > EVENT_BUF ? EVENT_BUF : max);
	if (n == -EAGAIN || n == -EINTR)
		return 0;
	for (i = 0; i < n; i++)
		print_event(st, &ev[i], start);
	return n;
}

/* read [MAX]: the events waiting now, without waiting for more. */
static int cmd_read(struct twctl *tw)
{
	struct watch_stats st = { 0 };
	uint64_t max = UINT64_MAX;
	int ret = 0;

	if (have_opt_arg(tw))
		ret = take(tw, "MAX", false, &max);
	if (ret || tw->dry)
		return ret;
	while (st.count < max) {
		ret = read_events(tw, &st, max - st.count, timingwheel_now(tw->clockid));
		if (ret <= 0)
			break;
	}
	if (ret < 0)
		return op_error("read on fd", tw->fd, ret);
	printf("read: events=%llu\n", (unsigned long long)st.count);
	return 0;
}

/* Wait for events until @deadline (0: forever); return >0, 0 on timeout, -errno. */
static int watch_wait(struct twctl *tw, int epfd, uint64_t deadline)
{
	struct epoll_event ee;
	uint64_t now, left;
	int ms = -1, ret;

	for (;;) {
		if (deadline) {
			now = timingwheel_now(tw->clockid);
			if (now >= deadline)
				return 0;
			left = (deadline - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
			ms = left > 60000 ? 60000 : left;
		}
		ret = epoll_wait(epfd, &ee, 1, ms);
		if (ret > 0)
			return ret;
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
}

static void watch_summary(const struct watch_stats *st, uint64_t want)
{
	printf("watch: events=%llu/%llu%s", (unsigned long long)st->count,
	       (unsigned long long)want, st->count < want ? " (timeout)" : "");
	if (st->count)
		printf(" late_us min=%.1f avg=%.1f max=%.1f", st->min_ns / 1000.0,
		       (double)st->sum_ns / st->count / 1000.0, st->max_ns / 1000.0);
	printf(" early=%llu\n", (unsigned long long)st->early);
}

static int watch_loop(struct twctl *tw, int epfd, uint64_t want, uint64_t deadline,
		      struct watch_stats *st, uint64_t start)
{
	int ret = 0;

	while (st->count < want) {
		ret = watch_wait(tw, epfd, deadline);
		if (ret <= 0)
			break;
		ret = read_events(tw, st, want - st->count, start);
		if (ret < 0)
			break;
	}
	return ret < 0 ? ret : 0;
}

/* watch COUNT [TIMEOUT]: wait, with epoll, for COUNT events. */
static int cmd_watch(struct twctl *tw)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct watch_stats st = { 0 };
	uint64_t want, timeout = 0, start, deadline = 0;
	int epfd, ret, timed = 0;

	ret = take(tw, "COUNT", false, &want);
	if (!ret)
		timed = take_opt_time(tw, "TIMEOUT", &timeout);
	if (timed == EXIT_USAGE)
		return timed;
	if (ret || tw->dry)
		return ret;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, tw->fd, &ee))
		return op_error("epoll on fd", tw->fd, -errno);
	start = timingwheel_now(tw->clockid);
	if (timed)
		deadline = start + timeout;
	printf("watch: start_ns=%llu clock=%s\n", (unsigned long long)start,
	       clock_name(tw->clockid));
	ret = watch_loop(tw, epfd, want, deadline, &st, start);
	close(epfd);
	if (ret < 0)
		return op_error("read on fd", tw->fd, ret);
	watch_summary(&st, want);
	if (st.early) {
		fprintf(stderr, "twctl: watch: %llu events fired early\n",
			(unsigned long long)st.early);
		return 1;
	}
	return 0;
}

static int cmd_sleep(struct twctl *tw)
{
	struct timespec ts;
	uint64_t ns;
	int ret = take(tw, "TIME", true, &ns);

	if (ret || tw->dry)
		return ret;
	ts.tv_sec = ns / 1000000000ULL;
	ts.tv_nsec = ns % 1000000000ULL;
	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			return op_error("sleep", ns, -errno);
	return 0;
}

static int cmd_fdinfo(struct twctl *tw)
{
	char path[64], buf[512];
	size_t n;
	FILE *f;

	if (tw->dry)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", tw->fd);
	f = fopen(path, "r");
	if (!f)
		return op_error("fdinfo of fd", tw->fd, -errno);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

/* ring COUNT: the largest COUNT, and the ring's slots. */
#define RING_MAX	1024

/* Start timer @i of the ring demo, due 10 ms + @i ms after @start. */
static int ring_start_one(struct timingwheel_sq *sq, uint64_t start,
			  unsigned int i)
{
	struct twheel_sqe *e;
	uint32_t slot;
	uint16_t gen;
	int ret;

	ret = timingwheel_slot_get(sq, &slot, &gen);
	if (ret)
		return ret;
	while (!(e = timingwheel_get_sqe(sq))) {
		ret = timingwheel_submit(sq);
		if (ret < 0)
			return ret;
	}
	timingwheel_prep_start(e, slot, gen, i, start + (10 + i) * NSEC_PER_MSEC, 0, 0);
	return 0;
}

/* Print the expiries there are; how many, or -1 if one fired early. */
static int ring_reap(struct timingwheel_ring *ring, uint64_t start)
{
	struct twheel_cqe *c[64];
	unsigned int i, n = timingwheel_peek_batch_cqe(ring, c, 64);
	int early = 0;

	for (i = 0; i < n; i++) {
		uint64_t when = start + (10 + c[i]->cookie) * NSEC_PER_MSEC;

		printf("expired slot=%u cookie=%llu late=%.3fms\n", c[i]->slot,
		       (unsigned long long)c[i]->cookie, rel_ms(c[i]->fired, when));
		early |= c[i]->fired < when || !(c[i]->flags & TWHEEL_CQE_EXPIRY);
		timingwheel_slot_put(ring, c[i]->slot);
	}
	timingwheel_cq_advance(ring, n);
	return early ? -1 : (int)n;
}

static int ring_run(struct twctl *tw, struct timingwheel_ring *ring, unsigned int count)
{
	struct timingwheel_sq *sq = timingwheel_ring_sq(ring, 0);
	struct pollfd pfd = { .fd = tw->fd, .events = POLLIN };
	uint64_t start = timingwheel_now(tw->clockid);
	unsigned int i, got = 0;
	int ret = 0;

	for (i = 0; i < count && !ret; i++)
		ret = ring_start_one(sq, start, i);
	if (!ret)
		ret = timingwheel_submit(sq);
	if (ret < 0)
		return op_error("ring start on fd", tw->fd, ret);
	while (got < count) {
		if (poll(&pfd, 1, 2000) <= 0) {
			fprintf(stderr, "twctl: ring: %u of %u expiries, then none\n", got, count);
			return 1;
		}
		ret = ring_reap(ring, start);
		if (ret < 0) {
			fprintf(stderr, "twctl: ring: an event fired early or was an error\n");
			return 1;
		}
		got += ret;
	}
	printf("ring: %u timers, %u fired, %llu RING_ENTER calls\n", count, got,
	       (unsigned long long)ring->enters);
	return 0;
}

/* ring COUNT: COUNT timers 1 ms apart through the shared-memory rings. */
static int cmd_ring(struct twctl *tw)
{
	struct twheel_ring_setup p = {
		.capacity = RING_MAX, .nr_sq = 1, .sq_entries = 256,
		.cq_entries = RING_MAX,
	};
	struct timingwheel_ring ring;
	uint64_t count;
	int ret = take(tw, "COUNT", false, &count);

	if (!ret && (!count || count > RING_MAX))
		return usage_error(tw, "COUNT '%s' is not 1 to %u",
				   tw->argv[tw->pos - 1], RING_MAX);
	if (ret || tw->dry)
		return ret;
	ret = timingwheel_ring_init(tw->fd, &p, &ring);
	if (ret)
		return op_error("ring setup on fd", tw->fd, ret);
	ret = ring_run(tw, &ring, (unsigned int)count);
	timingwheel_ring_exit(&ring);
	return ret;
}

static const struct cmd cmds[] = {
	{ "start", "[--abs] [--replace] [--slack TIME] [--interval TIME] ID TIME [PERIOD]",
	  "start a timer TIME from now (--abs: at TIME on the clock); periodic with\n"
	  "      PERIOD or --interval; --replace re-arms an existing ID; --slack lets a\n"
	  "      one-shot fire up to that much later", cmd_start },
	{ "stop", "ID", "stop a timer", cmd_stop },
	{ "query", "ID", "print a timer's state", cmd_query },
	{ "info", "", "print the ABI version, features, settings and counters", cmd_info },
	{ "config", "monotonic|boottime [RESOLUTION]",
	  "choose the clock and resolution; only before the first start", cmd_config },
	{ "batch", "ENTRY... [end] | batch -",
	  "apply entries ('start ...' or 'stop ID', as the commands) in one\n"
	  "      submission; '-' reads them from stdin, one a line", cmd_batch },
	{ "read", "[MAX]", "read the events waiting now (at most MAX)", cmd_read },
	{ "watch", "COUNT [TIMEOUT]", "wait for COUNT events with epoll (or until TIMEOUT)",
	  cmd_watch },
	{ "sleep", "TIME", "sleep", cmd_sleep },
	{ "fdinfo", "", "print /proc/self/fdinfo of the device's file", cmd_fdinfo },
	{ "ring", "COUNT", "start COUNT timers, 1 ms apart, through the shared-memory rings\n"
	  "      and wait for their expiries; only before any other timer", cmd_ring },
};

static const size_t ncmds = ARRAY_SIZE(cmds);

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < ncmds; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* Check the syntax of all commands (@tw->dry) or run them; the exit code. */
static int run_commands(struct twctl *tw)
{
	const char *name;
	int ret;

	tw->pos = 0;
	tw->cmd = NULL;
	while (have_arg(tw)) {
		name = tw->argv[tw->pos++];
		if (!find_cmd(name) && tw->cmd)
			return usage_error(tw, "extra argument '%s' (not a command either)", name);
		tw->cmd = find_cmd(name);
		if (!tw->cmd)
			return usage_error(tw, "unknown command '%s' (twctl --help lists them)",
					   name);
		ret = tw->cmd->run(tw);
		fflush(stdout);
		if (ret)
			return ret;
	}
	return 0;
}

/* help [COMMAND] */
static int cmd_help(int argc, char **argv)
{
	const struct cmd *c = argc > 1 ? find_cmd(argv[1]) : NULL;

	if (argc > 2) {
		fprintf(stderr, "twctl: help: extra argument '%s' (help takes one COMMAND)\n",
			argv[2]);
		return EXIT_USAGE;
	}
	if (argc > 1 && !c) {
		fprintf(stderr, "twctl: help: unknown command '%s' (twctl --help lists them)\n",
			argv[1]);
		return EXIT_USAGE;
	}
	if (!c) {
		print_usage(stdout);
		return 0;
	}
	print_cmd_usage(stdout, c);
	printf("      %s\n", c->help);
	return 0;
}

static int parse_options(int argc, char **argv, struct twctl *tw, uint64_t *res)
{
	int opt;

	while ((opt = getopt(argc, argv, "+r:c:h")) != -1) {
		if (opt == 'r' && !parse_resolution(optarg, res) && resolution_ok(*res))
			continue;
		if (opt == 'c' && !parse_clock(tw, optarg, &tw->clockid))
			continue;
		if (opt == 'h') {
			print_usage(stdout);
			exit(0);
		}
		if (opt == 'r' && !parse_resolution(optarg, res))
			usage_error(tw, "-r '%s' is out of range: " RESOLUTION_RANGE, optarg);
		else if (opt == 'r')
			usage_error(tw, "-r '%s' is not a resolution (ns, or a TIME with a unit)",
				    optarg);
		if (opt == '?')
			print_usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct twctl tw = { .fd = -1, .clockid = CLOCK_MONOTONIC, .dry = true };
	uint64_t res = 0;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")))
		return cmd_help(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("twctl %s (device ABI %d)\n", TW_VERSION,
		       TWHEEL_ABI_VERSION);
		return 0;
	}
	ret = parse_options(argc, argv, &tw, &res);
	if (ret)
		return ret;
	tw.argv = argv + optind;
	tw.argc = argc - optind;
	if (!tw.argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	ret = run_commands(&tw);
	if (ret)
		return ret;
	tw.dry = false;
	tw.fd = timingwheel_open(tw.clockid, res, O_NONBLOCK | O_CLOEXEC);
	if (tw.fd < 0) {
		fprintf(stderr, "twctl: open %s clock=%s resolution_ns=%llu: %s\n",
			TIMINGWHEEL_DEVICE, clock_name(tw.clockid), (unsigned long long)res,
			open_error(tw.fd));
		return 1;
	}
	return run_commands(&tw);
}
