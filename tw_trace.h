/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace events of timingwheel (Documentation/timingwheel/tracing.rst):
 * a START, a STOP, a timer firing, an event read, and the hrtimer being
 * programmed.  tw_client.c emits them, and defines them (CREATE_TRACE_POINTS).
 *
 * @client is the client's number (tw_client.serial): unique since the module
 * was loaded, and shown as "client:" in the file's /proc/PID/fdinfo.  Times
 * are ns on the client's clock as the host sees it (no time namespace
 * offset), so that events of different clients compare.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM timingwheel

#if !defined(_TW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TW_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>
#include <uapi/linux/timingwheel.h>

#include "tw_client.h"

#define tw_show_start_flags(flags)					\
	__print_flags(flags, "|",					\
		      { TWHEEL_TIMER_ABSTIME, "ABSTIME" },		\
		      { TWHEEL_TIMER_REPLACE, "REPLACE" })

/**
 * timingwheel_start - a START was applied
 * @c:        the client
 * @op:       the START, @result not yet set
 * @due:      the tick the timer is due at; 0 if its arguments were refused
 * @tick:     the tick it was armed at, later than @due if the slack let it
 *            share a busier one; 0 if the START was refused
 * @interval: its period in ticks
 * @result:   0 or -errno
 */
TRACE_EVENT(timingwheel_start,
	    TP_PROTO(const struct tw_client *c, const struct twheel_op *op,
		     u64 due, u64 tick, u64 interval, int result),
	    TP_ARGS(c, op, due, tick, interval, result),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, id)
			     __field(u64, due)
			     __field(u64, tick)
			     __field(u64, interval)
			     __field(u64, slack)
			     __field(u32, flags)
			     __field(int, result)),

	    TP_fast_assign(__entry->client = c->serial;
			   __entry->id = op->id;
			   __entry->due = due * c->resolution;
			   __entry->tick = tick * c->resolution;
			   __entry->interval = interval * c->resolution;
			   __entry->slack = op->slack;
			   __entry->flags = op->flags;
			   __entry->result = result;),
	    TP_printk("client=%llu id=%llu due=%llu tick=%llu interval=%llu slack=%llu flags=%s result=%d",
		      __entry->client, __entry->id, __entry->due, __entry->tick,
		      __entry->interval, __entry->slack,
		      tw_show_start_flags(__entry->flags), __entry->result)
);

/**
 * timingwheel_stop - a STOP was applied
 * @c:      the client
 * @id:     the timer's id
 * @result: TWHEEL_STOPPED_PENDING, TWHEEL_STOPPED_EXPIRED or -errno
 */
TRACE_EVENT(timingwheel_stop,
	    TP_PROTO(const struct tw_client *c, u64 id, int result),
	    TP_ARGS(c, id, result),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, id)
			     __field(int, result)),

	    TP_fast_assign(__entry->client = c->serial;
			   __entry->id = id;
			   __entry->result = result;),
	    TP_printk("client=%llu id=%llu result=%d",
		      __entry->client, __entry->id, __entry->result)
);

/**
 * timingwheel_fire - the wheel fired a timer: its event is queued
 * @c:     the client
 * @id:    the timer's id
 * @tick:  the tick it was due at
 * @fired: the clock when the wheel fired it, ns
 */
TRACE_EVENT(timingwheel_fire,
	    TP_PROTO(const struct tw_client *c, u64 id, u64 tick, u64 fired),
	    TP_ARGS(c, id, tick, fired),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, id)
			     __field(u64, due)
			     __field(u64, fired)
			     __field(s64, lateness)),

	    TP_fast_assign(__entry->client = c->serial;
			   __entry->id = id;
			   __entry->due = tick * c->resolution;
			   __entry->fired = fired;
			   __entry->lateness = (s64)(fired - __entry->due);),
	    TP_printk("client=%llu id=%llu due=%llu fired=%llu lateness=%lld",
		      __entry->client, __entry->id, __entry->due, __entry->fired,
		      __entry->lateness)
);

/**
 * timingwheel_read - a read() delivered a timer's event
 * @c:        the client
 * @id:       the timer's id
 * @tick:     the tick it was due at
 * @fired:    the clock when it fired, ns
 * @overrun:  periods missed since, for a periodic timer
 * @periodic: whether it is periodic (it is re-armed now)
 * @index:    its place among the events this read() returned, from 0
 */
TRACE_EVENT(timingwheel_read,
	    TP_PROTO(const struct tw_client *c, u64 id, u64 tick, u64 fired,
		     u64 overrun, bool periodic, u64 index),
	    TP_ARGS(c, id, tick, fired, overrun, periodic, index),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, id)
			     __field(u64, due)
			     __field(u64, fired)
			     __field(u64, overrun)
			     __field(u64, index)
			     __field(bool, periodic)),

	    TP_fast_assign(__entry->client = c->serial;
			   __entry->id = id;
			   __entry->due = tick * c->resolution;
			   __entry->fired = fired;
			   __entry->overrun = overrun;
			   __entry->index = index;
			   __entry->periodic = periodic;),
	    TP_printk("client=%llu id=%llu due=%llu fired=%llu overrun=%llu periodic=%d index=%llu",
		      __entry->client, __entry->id, __entry->due, __entry->fired,
		      __entry->overrun, __entry->periodic, __entry->index)
);

/**
 * timingwheel_hrtimer - the client's hrtimer was programmed or cancelled
 * @c:       the client
 * @expires: the absolute expiry it was programmed for, ns; 0 if cancelled
 */
TRACE_EVENT(timingwheel_hrtimer,
	    TP_PROTO(const struct tw_client *c, u64 expires),
	    TP_ARGS(c, expires),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, expires)),

	    TP_fast_assign(__entry->client = c->serial;
			   __entry->expires = expires;),
	    TP_printk("client=%llu expires=%llu%s", __entry->client,
		      __entry->expires, __entry->expires ? "" : " (cancelled)")
);

#endif /* _TW_TRACE_H */

/* Out of tree: Kbuild puts the module's directory on this file's path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tw_trace
#include <trace/define_trace.h>
