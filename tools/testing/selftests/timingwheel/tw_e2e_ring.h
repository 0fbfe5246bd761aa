/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw_e2e's tests of the shared-memory rings (rings.rst), on the raw ABI:
 * setup and mmap() errors, starts, stops and results through an SQ,
 * expiries through the CQ, a full CQ, corrupt indices, no system call in
 * the steady state, close and fork while mapped, a thread scribbling the
 * rings while the kernel drains them.  Included by tw_e2e.c,
 * whose helpers it uses.
 */
#ifndef _TW_E2E_RING_H
#define _TW_E2E_RING_H

/* A ring file's setup and mapping, which every later check needs. */
static bool ring_ok(struct __test_metadata *_metadata, int ret)
{
	EXPECT_TRUE(ret == 0) TH_LOG("ring setup: %d", ret);
	return ret == 0;
}

/* A ring file as a test maps it: the header, SQ 0 and the CQ. */
struct tring {
	int fd;
	struct twheel_ring_setup p;
	struct twheel_ring_hdr *hdr;
	struct twheel_ring_ctl *sq;
	struct twheel_sqe *sqes;
	struct twheel_ring_ctl *cq;
	struct twheel_cqe *cqes;
	uint32_t sq_tail;
	uint32_t cq_head;
	unsigned int enters;
};

static int ring_setup(int fd, struct twheel_ring_setup *p)
{
	return tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, p);
}

static void *ring_map(int fd, uint64_t off, size_t len, int prot)
{
	void *m = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)off);

	return m == MAP_FAILED ? NULL : m;
}

/*
 * Open a ring file, its tick @res ns (0: the default), set it up with
 * @nr_sq SQs and map the header, SQ 0 and the CQ; 0, or -errno of the
 * configuration or the setup.
 */
static int tring_open_nr(struct tring *r, uint64_t res, uint32_t nr_sq,
			 uint32_t capacity, uint32_t sq_entries,
			 uint32_t cq_entries, uint32_t flags)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = tw_open(0);
	ret = res ? set_config(r->fd, CLOCK_MONOTONIC, res) : 0;
	if (ret)
		return ret;
	r->p.flags = flags;
	r->p.capacity = capacity;
	r->p.nr_sq = nr_sq;
	r->p.sq_entries = sq_entries;
	r->p.cq_entries = cq_entries;
	ret = ring_setup(r->fd, &r->p);
	if (ret)
		return ret;
	r->hdr = ring_map(r->fd, TWHEEL_OFF_RING_HDR, r->p.hdr_bytes, PROT_READ);
	r->sq = ring_map(r->fd, TWHEEL_OFF_SQ(0), r->p.sq_bytes,
			 PROT_READ | PROT_WRITE);
	r->cq = ring_map(r->fd, TWHEEL_OFF_CQ, r->p.cq_bytes,
			 PROT_READ | PROT_WRITE);
	if (!r->hdr || !r->sq || !r->cq)
		return -errno;
	r->sqes = (struct twheel_sqe *)(r->sq + 1);
	r->cqes = (struct twheel_cqe *)(r->cq + 1);
	return 0;
}

static int tring_open_res(struct tring *r, uint64_t res, uint32_t capacity,
			  uint32_t sq_entries, uint32_t cq_entries,
			  uint32_t flags)
{
	return tring_open_nr(r, res, 1, capacity, sq_entries, cq_entries, flags);
}

static int tring_open_flags(struct tring *r, uint32_t capacity,
			    uint32_t sq_entries, uint32_t cq_entries,
			    uint32_t flags)
{
	return tring_open_res(r, 0, capacity, sq_entries, cq_entries, flags);
}

static int tring_open(struct tring *r, uint32_t capacity, uint32_t sq_entries,
		      uint32_t cq_entries)
{
	return tring_open_flags(r, capacity, sq_entries, cq_entries, 0);
}

static void tring_close(struct tring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->p.hdr_bytes);
	if (r->sq)
		munmap(r->sq, r->p.sq_bytes);
	if (r->cq)
		munmap(r->cq, r->p.cq_bytes);
	close(r->fd);
}

static int ring_enter(int fd)
{
	return tw_ioctl(fd, TWHEEL_IOC_RING_ENTER, NULL);
}

/* The next free SQE, or NULL if the SQ is full. */
static struct twheel_sqe *tring_sqe(struct tring *r)
{
	uint32_t head = __atomic_load_n(&r->sq->head, __ATOMIC_ACQUIRE);
	struct twheel_sqe *e;

	if (r->sq_tail - head >= r->p.sq_entries)
		return NULL;
	e = &r->sqes[r->sq_tail++ & (r->p.sq_entries - 1)];
	memset(e, 0, sizeof(*e));
	return e;
}

/* The header's armed_for, torn-free on a 32-bit process too. */
static uint64_t tring_armed_for(const struct tring *r)
{
	uint32_t s1, s2;
	uint64_t v;

	do {
		s1 = __atomic_load_n(&r->hdr->seq, __ATOMIC_ACQUIRE);
		v = __atomic_load_n(&r->hdr->armed_for, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&r->hdr->seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
	return v;
}

/* Wait up to 3 s until @n events wait for CQ room; how many do. */
static uint64_t tring_wait_waiting(struct tring *r, uint64_t n)
{
	uint64_t end = now_ns() + 3000 * MS, w;

	while ((w = __atomic_load_n(&r->hdr->waiting, __ATOMIC_ACQUIRE)) < n &&
	       now_ns() < end)
		sleep_ms(5);
	return w;
}

/*
 * Publish the entries written, then the store-buffering check: enter only
 * if a start is due before the hrtimer, or a flag asks for it.
 */
static int tring_submit(struct tring *r, uint64_t earliest)
{
	uint32_t flags;

	__atomic_store_n(&r->sq->tail, r->sq_tail, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED);
	if (earliest < tring_armed_for(r) ||
	    (flags & (TWHEEL_RING_NEED_ENTER | TWHEEL_RING_NEED_FLUSH))) {
		r->enters++;
		return ring_enter(r->fd);
	}
	return 0;
}

static void tring_start(struct tring *r, uint32_t slot, uint16_t gen,
			uint64_t cookie, uint64_t when, uint8_t flags)
{
	struct twheel_sqe *e = tring_sqe(r);

	if (!e)
		return;
	e->op = TWHEEL_SQE_START;
	e->flags = flags;
	e->slot = slot;
	e->gen = gen;
	e->cookie = cookie;
	e->when = when;
}

static void tring_stop(struct tring *r, uint32_t slot, uint16_t gen,
		       uint64_t cookie, uint8_t flags)
{
	struct twheel_sqe *e = tring_sqe(r);

	if (!e)
		return;
	e->op = TWHEEL_SQE_STOP;
	e->flags = flags;
	e->slot = slot;
	e->gen = gen;
	e->cookie = cookie;
}

/* Take up to @n events from the CQ, waiting up to @timeout_ms for them. */
static unsigned int tring_reap(struct tring *r, struct twheel_cqe *out,
			       unsigned int n, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * MS;
	unsigned int got = 0;
	uint32_t tail, flags;

	while (got < n) {
		tail = __atomic_load_n(&r->cq->tail, __ATOMIC_ACQUIRE);
		while (r->cq_head != tail && got < n)
			out[got++] = r->cqes[r->cq_head++ & (r->p.cq_entries - 1)];
		__atomic_store_n(&r->cq->head, r->cq_head, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		flags = __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED);
		if (flags & (TWHEEL_RING_NEED_FLUSH | TWHEEL_RING_NEED_ENTER |
			     TWHEEL_RING_NEED_ARM)) {
			r->enters++;
			ring_enter(r->fd);
		}
		if (got == n || now_ns() >= end)
			break;
		if (r->cq_head == __atomic_load_n(&r->cq->tail, __ATOMIC_ACQUIRE)) {
			struct pollfd pf = { .fd = r->fd, .events = POLLIN };

			poll(&pf, 1, 20);
		}
	}
	return got;
}

static void bad_setup(struct __test_metadata *_metadata, int fd,
		      struct twheel_ring_setup *p, const char *what)
{
	EXPECT_TRUE(ring_setup(fd, p) == -EINVAL) TH_LOG("%s", what);
}

static void t_ring_setup_errors(struct __test_metadata *_metadata)
{
	struct twheel_ring_setup ok = {
		.capacity = 100, .nr_sq = 2, .sq_entries = 64, .cq_entries = 256,
	}, p;
	unsigned long old = read_param(MAX_TIMERS_PARAM);
	int fd = tw_open(0), fd2 = tw_open(0);

	EXPECT_TRUE(!!(info(fd).features & TWHEEL_FEATURE_RINGS));
	EXPECT_TRUE(ring_enter(fd) == -ENODEV);
	EXPECT_TRUE(!ring_map(fd, TWHEEL_OFF_RING_HDR, 4096, PROT_READ) &&
		    errno == ENODEV);
	p = ok, p.capacity = 0, bad_setup(_metadata, fd, &p, "capacity 0");
	p = ok, p.capacity = TWHEEL_RING_MAX_CAPACITY + 1;
	bad_setup(_metadata, fd, &p, "capacity past the most");
	p = ok, p.nr_sq = 0, bad_setup(_metadata, fd, &p, "no SQ");
	p = ok, p.nr_sq = TWHEEL_RING_MAX_SQ + 1, bad_setup(_metadata, fd, &p, "65 SQs");
	p = ok, p.sq_entries = 4, bad_setup(_metadata, fd, &p, "SQ of 4");
	p = ok, p.sq_entries = 48, bad_setup(_metadata, fd, &p, "SQ of 48");
	p = ok, p.sq_entries = TWHEEL_RING_MAX_SQ_ENTRIES * 2;
	bad_setup(_metadata, fd, &p, "SQ of 65536");
	p = ok, p.cq_entries = 0, bad_setup(_metadata, fd, &p, "CQ of 0");
	p = ok, p.cq_entries = 100, bad_setup(_metadata, fd, &p, "CQ of 100");
	/* 100 slots and 128 entries: a CQ of more than 256 is refused. */
	p = ok, p.cq_entries = 512, bad_setup(_metadata, fd, &p, "CQ of 512");
	p = ok, p.flags = 2, bad_setup(_metadata, fd, &p, "flags");
	p = ok, p.__reserved[1] = 1, bad_setup(_metadata, fd, &p, "reserved");
	write_param(MAX_TIMERS_PARAM, 99);
	p = ok;
	EXPECT_TRUE(ring_setup(fd, &p) == -ENOSPC);
	write_param(MAX_TIMERS_PARAM, old);

	EXPECT_TRUE(start(fd2, 1, 60000 * MS, 0, 0) == 0);
	p = ok;
	EXPECT_TRUE(ring_setup(fd2, &p) == -EBUSY);
	/* Refused before anything is charged: EBUSY, not the limit's ENOSPC. */
	write_param(MAX_TIMERS_PARAM, 99);
	p = ok;
	EXPECT_TRUE(ring_setup(fd2, &p) == -EBUSY);
	write_param(MAX_TIMERS_PARAM, old);

	p = ok;
	EXPECT_TRUE(ring_setup(fd, &p) == 0);
	EXPECT_TRUE(p.hdr_bytes == 4096 && p.sq_bytes == 128 + 32 * 64 &&
		    p.cq_bytes == 128 + 48 * 256)
		TH_LOG("%u %u %u", p.hdr_bytes, p.sq_bytes, p.cq_bytes);
	/* 40 B a slot, 4 a held result, 7 pages and their pointers, 4096. */
	EXPECT_TRUE(p.memory == 100 * 40 + 2 * 64 * 4 + 7 * (4096 + 8) + 4096)
		TH_LOG("memory %llu", (unsigned long long)p.memory);
	EXPECT_TRUE(p.timers == (p.memory + 63) / 64);
	EXPECT_TRUE(info(fd).memory >= p.memory);
	EXPECT_TRUE(ring_setup(fd, &p) == -EEXIST);
	/* Its 100 slots count against max_timers, with its id timers. */
	write_param(MAX_TIMERS_PARAM, 102);
	EXPECT_TRUE(start(fd, 1, 60000 * MS, 0, 0) == 0);
	EXPECT_TRUE(start(fd, 2, 60000 * MS, 0, 0) == 0);
	EXPECT_TRUE(start(fd, 3, 60000 * MS, 0, 0) == -ENOSPC);
	write_param(MAX_TIMERS_PARAM, old);
	EXPECT_TRUE(set_config(fd, CLOCK_MONOTONIC, 0) == -EBUSY);
	EXPECT_TRUE(tw_ioctl(fd, TWHEEL_IOC_RING_ENTER, (void *)1) == -EINVAL);
	EXPECT_TRUE(ring_enter(fd) == 0);
	close(fd);
	close(fd2);
}

/* Ring memory counts against max_user_timers: 64 B a timer, not capacity. */
static void t_ring_limit(struct __test_metadata *_metadata)
{
	unsigned long old = read_param(MAX_USER_TIMERS_PARAM);
	struct twheel_ring_setup p = {
		.capacity = 1, .nr_sq = 64, .sq_entries = 32768, .cq_entries = 8,
	};
	int fd = tw_open(0);
	uint64_t before = info(fd).user_timers;

	write_param(MAX_USER_TIMERS_PARAM, before + 1000000);
	EXPECT_TRUE(ring_setup(fd, &p) == -ENOSPC)
		TH_LOG("1 slot, 64 SQs of 32768, in 1,000,000 timers");
	EXPECT_TRUE(info(fd).user_timers == before);
	write_param(MAX_USER_TIMERS_PARAM, old);
	p.nr_sq = 1;
	p.sq_entries = 8;
	EXPECT_TRUE(ring_setup(fd, &p) == 0);
	EXPECT_TRUE(info(fd).user_timers == before + p.timers);
	close(fd);
	fd = tw_open(0);
	EXPECT_TRUE(info(fd).user_timers == before);
	close(fd);
}

/* A file opened read-only maps the header; an SQ it cannot write. */
static void t_ring_map_rdonly(struct __test_metadata *_metadata)
{
	struct twheel_ring_setup p = {
		.capacity = 16, .nr_sq = 1, .sq_entries = 8, .cq_entries = 32,
	};
	const struct twheel_ring_hdr *h;
	struct twheel_ring_ctl *cq;
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);

	EXPECT_TRUE(fd >= 0 && ring_setup(fd, &p) == 0);
	h = ring_map(fd, TWHEEL_OFF_RING_HDR, p.hdr_bytes, PROT_READ);
	EXPECT_TRUE(h && h->capacity == 16) TH_LOG("errno %d", errno);
	cq = ring_map(fd, TWHEEL_OFF_CQ, p.cq_bytes, PROT_READ);
	EXPECT_TRUE(cq && cq->head == 0) TH_LOG("errno %d", errno);
	EXPECT_TRUE(!ring_map(fd, TWHEEL_OFF_SQ(0), p.sq_bytes, PROT_READ | PROT_WRITE) &&
		    errno == EACCES);
	if (h)
		munmap((void *)h, p.hdr_bytes);
	if (cq)
		munmap(cq, p.cq_bytes);
	close(fd);
}

static void t_ring_mmap_errors(struct __test_metadata *_metadata)
{
	struct tring r;
	void *m;

	EXPECT_TRUE(tring_open(&r, 16, 8, 32) == 0);
	EXPECT_TRUE(!ring_map(r.fd, 4096, 4096, PROT_READ) && errno == EINVAL);
	EXPECT_TRUE(!ring_map(r.fd, TWHEEL_OFF_SQ(1), 4096, PROT_READ) &&
		    errno == EINVAL);
	EXPECT_TRUE(!ring_map(r.fd, TWHEEL_OFF_CQ, 2 * 4096, PROT_READ) &&
		    errno == EINVAL);
	EXPECT_TRUE(!ring_map(r.fd, TWHEEL_OFF_RING_HDR, 4096,
			      PROT_READ | PROT_WRITE) && errno == EACCES);
	EXPECT_TRUE(!ring_map(r.fd, TWHEEL_OFF_CQ, 4096, PROT_READ | PROT_EXEC) &&
		    errno == EACCES);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, r.fd, TWHEEL_OFF_CQ);
	EXPECT_TRUE(m == MAP_FAILED && errno == EINVAL);
	EXPECT_TRUE(mprotect(r.hdr, 4096, PROT_READ | PROT_WRITE) == -1 &&
		    errno == EACCES);
	EXPECT_TRUE(mremap(r.cq, 4096, 8192, MREMAP_MAYMOVE) == MAP_FAILED);
	EXPECT_TRUE(r.hdr->capacity == 16 && r.hdr->sq_entries == 8 &&
		    r.hdr->cq_entries == 32 && r.hdr->armed_for == UINT64_MAX &&
		    r.hdr->resolution_ns == RES_NS);
	tring_close(&r);
	t_ring_map_rdonly(_metadata);
}

static void t_ring_start_expiry(struct __test_metadata *_metadata)
{
	struct twheel_cqe ev[4];
	uint64_t t0 = now_ns(), when = t0 + 200 * MS;
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, 16, 8, 32)))
		return;
	tring_start(&r, 3, 7, 0xc00c1e, when, 0);
	tring_start(&r, 4, 1, 0xbeef, when + 10 * MS, 0);
	/* The hrtimer is idle: the first start enters. */
	EXPECT_TRUE(tring_submit(&r, when) == 0 && r.enters == 1);
	EXPECT_BEFORE(when, tring_armed_for(&r) <= tick_up(when, RES_NS) &&
		      info(r.fd).pending == 2);
	EXPECT_TRUE(tring_reap(&r, ev, 2, 5000) == 2);
	EXPECT_TRUE(ev[0].cookie == 0xc00c1e && ev[0].slot == 3 && ev[0].gen == 7 &&
		    ev[0].flags == TWHEEL_CQE_EXPIRY && ev[0].due == tick_up(when, RES_NS) &&
		    ev[0].fired >= ev[0].due && now_ns() >= ev[0].due)
		TH_LOG("cookie %llx slot %u due %llu fired %llu",
		       (unsigned long long)ev[0].cookie, ev[0].slot,
		       (unsigned long long)ev[0].due, (unsigned long long)ev[0].fired);
	EXPECT_TRUE(ev[1].cookie == 0xbeef && ev[1].due >= when + 10 * MS);
	/* Fired slots are free: started again without REPLACE. */
	tring_start(&r, 3, 8, 1, now_ns() + 10 * MS, TWHEEL_SQE_RESULT);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	EXPECT_TRUE(tring_reap(&r, ev, 2, 5000) == 2);
	EXPECT_TRUE(ev[0].flags == TWHEEL_CQE_RESULT && ev[0].res == 0 &&
		    ev[1].flags == TWHEEL_CQE_EXPIRY && ev[1].gen == 8);
	EXPECT_TRUE(r.hdr->posted == 4 && r.hdr->errors == 0);
	tring_close(&r);
}

/* Each errno and result of an entry, in one ENTER, on a file of @cap slots. */
static void stop_and_results(struct __test_metadata *_metadata, uint32_t cap)
{
	uint64_t far = now_ns() + 60000 * MS;
	struct twheel_cqe ev[9];
	struct twheel_sqe *e;
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, cap, 16, 32)))
		return;
	tring_start(&r, 1, 5, 11, far, 0);
	tring_start(&r, 1, 5, 12, far, 0);			/* EEXIST */
	tring_start(&r, 1, 5, 13, far + MS, TWHEEL_SQE_REPLACE | TWHEEL_SQE_RESULT);
	tring_stop(&r, 1, 4, 14, 0);				/* ENOENT: stale gen */
	tring_stop(&r, 1, 5, 15, TWHEEL_SQE_RESULT);		/* PENDING */
	tring_stop(&r, 1, 5, 16, 0);				/* ENOENT: free */
	tring_start(&r, cap, 0, 17, far, 0);			/* EINVAL: slot */
	e = tring_sqe(&r);
	e->op = 9;						/* EINVAL: op */
	e->cookie = 18;
	tring_start(&r, 2, 0, 19, far, TWHEEL_SQE_PERIODIC);	/* EOPNOTSUPP */
	tring_stop(&r, cap, 0, 20, 0);				/* EINVAL: slot */
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	EXPECT_TRUE(tring_reap(&r, ev, 9, 5000) == 9);
	EXPECT_TRUE(ev[0].cookie == 12 && ev[0].res == -EEXIST);
	EXPECT_TRUE(ev[1].cookie == 13 && ev[1].res == 0);
	EXPECT_TRUE(ev[2].cookie == 14 && ev[2].res == -ENOENT);
	EXPECT_TRUE(ev[3].cookie == 15 && ev[3].res == TWHEEL_STOPPED_PENDING);
	EXPECT_TRUE(ev[4].cookie == 16 && ev[4].res == -ENOENT);
	EXPECT_TRUE(ev[5].cookie == 17 && ev[5].res == -EINVAL);
	EXPECT_TRUE(ev[6].cookie == 18 && ev[6].res == -EINVAL &&
		    ev[6].flags == TWHEEL_CQE_RESULT && ev[6].sq == 0);
	EXPECT_TRUE(ev[7].cookie == 19 && ev[7].res == -EOPNOTSUPP);
	EXPECT_TRUE(ev[8].cookie == 20 && ev[8].res == -EINVAL);
	EXPECT_TRUE(r.hdr->errors == 7) TH_LOG("errors %llu",
					       (unsigned long long)r.hdr->errors);
	EXPECT_TRUE(info(r.fd).pending == 0);
	tring_close(&r);
}

/*
 * Each result of ten entries in one ENTER, on a file of 16 slots and on
 * one of 16,384, whose apply loop prefetches the slots of entries eight
 * ahead (tw_ring.c's TW_RING_PREFETCH_SLOTS): the loop with and without.
 */
static void t_ring_stop_and_results(struct __test_metadata *_metadata)
{
	stop_and_results(_metadata, 16);
	stop_and_results(_metadata, 16384);
}

static void tring_periodic(struct tring *r, uint32_t slot, uint64_t cookie,
			   uint64_t first, uint64_t period, uint8_t flags)
{
	tring_start(r, slot, 1, cookie, first, TWHEEL_SQE_PERIODIC | flags);
	r->sqes[(r->sq_tail - 1) & (r->p.sq_entries - 1)].arg = period;
}

/*
 * Each event of periodic slot @slot among @ev: on the period after the
 * last one and the periods its overrun counted, never early; its overrun
 * the periods passed when it was posted (its fired, unless it waited),
 * no more.  Returns how many.
 */
static unsigned int periodic_check(struct __test_metadata *_metadata,
				   const struct twheel_cqe *ev, unsigned int n,
				   uint32_t slot, uint64_t first, uint64_t period)
{
	uint64_t due = first;
	unsigned int i, got = 0;

	for (i = 0; i < n; i++) {
		if (ev[i].slot != slot || !(ev[i].flags & TWHEEL_CQE_EXPIRY))
			continue;
		EXPECT_TRUE(ev[i].due == due && ev[i].fired >= ev[i].due &&
			    (ev[i].flags & TWHEEL_CQE_PERIODIC))
			TH_LOG("event %u: due %llu, not %llu; fired %llu", got,
			       (unsigned long long)ev[i].due, (unsigned long long)due,
			       (unsigned long long)ev[i].fired);
		EXPECT_TRUE(ev[i].flags & TWHEEL_CQE_WAITED ?
			    ev[i].overrun >= (ev[i].fired / RES_NS * RES_NS - ev[i].due) / period :
			    ev[i].overrun == (ev[i].fired / RES_NS * RES_NS - ev[i].due) / period)
			TH_LOG("event %u: overrun %llu, fired %llu", got,
			       (unsigned long long)ev[i].overrun,
			       (unsigned long long)ev[i].fired);
		EXPECT_TRUE(ev[i].due + ev[i].overrun * period <= now_ns());
		due = ev[i].due + (ev[i].overrun + 1) * period;
		got++;
	}
	return got;
}

/*
 * Periodic slots: every period once, on its tick, or counted in the next
 * event's overrun; one event at most waits for room per slot; a stop ends
 * it; the period's errors; 8 B more a slot.
 */
static void t_ring_periodic(struct __test_metadata *_metadata)
{
	uint64_t first = tick_up(now_ns() + 20 * MS, RES_NS), p = 10 * MS;
	struct twheel_cqe ev[64];
	unsigned int got = 0, i;
	struct tring r, plain;

	if (!ring_ok(_metadata, tring_open(&plain, 16, 16, 8)) ||
	    !ring_ok(_metadata, tring_open_flags(&r, 16, 16, 8,
						 TWHEEL_RING_SETUP_PERIODIC)))
		return;
	EXPECT_TRUE(r.p.memory == plain.p.memory + 16 * 8);
	tring_close(&plain);
	tring_periodic(&r, 0, 100, first, p, 0);
	tring_periodic(&r, 1, 101, first, 0, 0);			/* EINVAL */
	tring_periodic(&r, 1, 102, first, RES_NS + 1, 0);		/* EINVAL */
	tring_periodic(&r, 1, 103, first, p, 0);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	got = tring_reap(&r, ev, 8, 5000);
	EXPECT_TRUE(got == 8);
	EXPECT_TRUE(ev[0].cookie == 101 && ev[0].res == -EINVAL);
	EXPECT_TRUE(ev[1].cookie == 102 && ev[1].res == -EINVAL);
	EXPECT_TRUE(periodic_check(_metadata, ev + 2, got - 2, 0, first, p) ==
		    (got - 2) / 2);
	EXPECT_TRUE(periodic_check(_metadata, ev + 2, got - 2, 1, first, p) ==
		    (got - 2) / 2);
	tring_stop(&r, 0, 1, 104, TWHEEL_SQE_RESULT);
	tring_stop(&r, 1, 1, 105, TWHEEL_SQE_RESULT);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	/* Each stop's result, and nothing after: the stops ended them. */
	got = tring_reap(&r, ev, 64, 100);
	for (i = 0; i < got; i++)
		EXPECT_TRUE(ev[i].flags & TWHEEL_CQE_RESULT ?
			    ev[i].res == TWHEEL_STOPPED_PENDING :
			    ev[i].due < now_ns());
	EXPECT_TRUE(tring_reap(&r, ev, 64, 60) == 0 && info(r.fd).pending == 0);
	EXPECT_TRUE(r.hdr->errors == 2);
	tring_close(&r);
}

/*
 * A periodic slot whose event waits for CQ room is not armed meanwhile:
 * one event, its overrun counting the periods passed.
 */
static void t_ring_periodic_waits(struct __test_metadata *_metadata)
{
	uint64_t t0 = now_ns(), first = tick_up(t0 + 10 * MS, RES_NS), p = 2 * MS, slept;
	struct twheel_cqe ev[16];
	unsigned int i;
	struct tring r;

	if (!ring_ok(_metadata, tring_open_flags(&r, 16, 16, 8,
						 TWHEEL_RING_SETUP_PERIODIC)))
		return;
	for (i = 1; i <= 8; i++)
		tring_start(&r, i, 1, i, t0, 0);
	tring_periodic(&r, 0, 100, first, p, 0);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	sleep_ms(100);
	tring_wait_waiting(&r, 1);
	slept = now_ns();
	EXPECT_TRUE(r.hdr->waiting == 1 && info(r.fd).pending == 0)
		TH_LOG("waiting %llu", (unsigned long long)r.hdr->waiting);
	EXPECT_TRUE(tring_reap(&r, ev, 10, 5000) == 10);
	/* Posted after the sleep: the periods until then at least. */
	EXPECT_TRUE(ev[8].slot == 0 && (ev[8].flags & TWHEEL_CQE_WAITED) &&
		    ev[8].due == first && ev[8].overrun + 1 >= (slept - first) / p)
		TH_LOG("overrun %llu", (unsigned long long)ev[8].overrun);
	EXPECT_TRUE(periodic_check(_metadata, ev + 8, 2, 0, first, p) == 2);
	EXPECT_TRUE(r.hdr->posted >= 10 && r.hdr->waited == 1);
	tring_close(&r);
}

/*
 * A periodic slot whose expiry the callback posted waits for a system call
 * to be armed again: with none, one event however many periods pass; the
 * next call arms it, and its next event counts the periods passed.
 */
static void t_ring_periodic_parks(struct __test_metadata *_metadata)
{
	uint64_t first, p = 2 * MS, slept;
	struct twheel_cqe ev[3];
	uint32_t tail, tail2;
	struct tring r;
	unsigned int n;

	if (!ring_ok(_metadata, tring_open_flags(&r, 16, 16, 8,
						 TWHEEL_RING_SETUP_PERIODIC)))
		return;
	first = tick_up(now_ns() + 20 * MS, RES_NS);
	tring_periodic(&r, 0, 100, first, p, 0);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	/*
	 * No system call of the file meanwhile: only callbacks run.  One
	 * event, or two if a slow guest's ENTER fired the first, then no more;
	 * the first waited for (up to 5 s: a late softirq), then 100 ms more.
	 */
	for (n = 0; n < 500; n++) {
		if (__atomic_load_n(&r.cq->tail, __ATOMIC_ACQUIRE))
			break;
		sleep_ms(10);
	}
	sleep_ms(100);
	tail = __atomic_load_n(&r.cq->tail, __ATOMIC_ACQUIRE);
	sleep_ms(100);
	tail2 = __atomic_load_n(&r.cq->tail, __ATOMIC_ACQUIRE);
	slept = now_ns();
	EXPECT_TRUE(tail >= 1 && tail <= 2 && tail2 == tail)
		TH_LOG("%u then %u events without a system call", tail, tail2);
	EXPECT_TRUE(!!(r.hdr->flags & TWHEEL_RING_NEED_ARM));
	EXPECT_FALSE(!!(r.hdr->flags & TWHEEL_RING_NEED_FLUSH));
	/* Parked, out of the wheel, it is still pending: GET_INFO arms none. */
	EXPECT_TRUE(info(r.fd).pending == 1);
	n = tail + 1;
	EXPECT_TRUE(tring_reap(&r, ev, n, 5000) == n);
	EXPECT_TRUE(periodic_check(_metadata, ev, n, 0, first, p) == n);
	/* Armed again only now: the periods slept through are its overrun. */
	EXPECT_TRUE(ev[n - 1].overrun + 2 >= (slept - first) / p / 2 &&
		    !(ev[n - 1].flags & TWHEEL_CQE_WAITED))
		TH_LOG("overrun %llu", (unsigned long long)ev[n - 1].overrun);
	tring_close(&r);
}

/* A CQ of 8 against 100 expiries: each once, in order, none early. */
static void t_ring_cq_full_waits(struct __test_metadata *_metadata)
{
	uint64_t when = now_ns() + 20 * MS, last_due = 0;
	struct twheel_cqe ev[100];
	unsigned int i, got = 0, waited = 0, seen[100] = { 0 };
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, 128, 128, 8)))
		return;
	for (i = 0; i < 100; i++)
		tring_start(&r, i, 1, i, when + (i / 10) * MS, 0);
	EXPECT_TRUE(tring_submit(&r, when) == 0);
	tring_wait_waiting(&r, 92);
	EXPECT_TRUE(info(r.fd).queued == 92 && r.hdr->waiting == 92)
		TH_LOG("queued %llu", (unsigned long long)info(r.fd).queued);
	while (got < 100) {
		unsigned int n = tring_reap(&r, ev + got, 100 - got, 2000);

		if (!n)
			break;
		got += n;
	}
	EXPECT_TRUE(got == 100) TH_LOG("got %u", got);
	for (i = 0; i < got; i++) {
		EXPECT_TRUE(ev[i].cookie < 100 && !seen[ev[i].cookie]++);
		EXPECT_TRUE(ev[i].due >= last_due && ev[i].fired >= ev[i].due);
		last_due = ev[i].due;
		waited += !!(ev[i].flags & TWHEEL_CQE_WAITED);
	}
	EXPECT_TRUE(waited == 92 && r.hdr->waited == 92 && r.hdr->posted == 100 &&
		    r.hdr->waiting == 0);
	tring_close(&r);
}

/*
 * A start past the wheel's reach (a 1 us tick reaches about 8.9 years) is
 * refused with ERANGE and changes nothing: a free slot stays free, an
 * armed one keeps its time, one whose event waits for CQ room keeps it.
 */
static void t_ring_start_erange(struct __test_metadata *_metadata)
{
	uint64_t soon = now_ns() + 5 * MS, far = now_ns() + (1ULL << 61);
	struct twheel_cqe ev[16];
	unsigned int i, got, expiries = 0, seen = 0;
	struct tring r;

	if (!ring_ok(_metadata, tring_open_res(&r, 1000, 16, 16, 8, 0)))
		return;
	/* Ten expiries for eight CQ entries: slots 8 and 9 wait. */
	for (i = 0; i < 10; i++)
		tring_start(&r, i, 1, i, soon + i * 1000, 0);
	tring_start(&r, 10, 1, 10, soon + 1000 * MS, 0);
	EXPECT_TRUE(tring_submit(&r, soon) == 0);
	EXPECT_TRUE(tring_wait_waiting(&r, 2) >= 2);
	/* Until slot 10 fires too. */
	EXPECT_BEFORE(soon + 1000 * MS, r.hdr->waiting == 2);
	tring_start(&r, 9, 1, 109, far, TWHEEL_SQE_REPLACE);	/* waiting */
	tring_start(&r, 10, 1, 110, far, TWHEEL_SQE_REPLACE);	/* armed */
	tring_start(&r, 11, 1, 111, far, 0);			/* free */
	tring_stop(&r, 11, 1, 211, 0);				/* ENOENT */
	/* The CQ is full: the results wait for room too. */
	EXPECT_TRUE(tring_submit(&r, 0) == -EBUSY);
	got = tring_reap(&r, ev, 16, 3000);
	EXPECT_TRUE(got == 15) TH_LOG("got %u", got);
	for (i = 0; i < got; i++) {
		if (ev[i].flags & TWHEEL_CQE_EXPIRY) {
			expiries++;
			seen |= 1U << (ev[i].cookie & 15);
			continue;
		}
		EXPECT_TRUE(ev[i].res == (ev[i].cookie == 211 ? -ENOENT : -ERANGE))
			TH_LOG("cookie %llu res %d",
			       (unsigned long long)ev[i].cookie, ev[i].res);
	}
	EXPECT_TRUE(expiries == 11 && seen == 0x7ff) TH_LOG("seen %#x", seen);
	EXPECT_TRUE(info(r.fd).pending == 0 && r.hdr->waiting == 0);
	tring_close(&r);
}

/*
 * A start with slack fires at the roundest tick of its range, not at its
 * first: four timers asked for a millisecond apart, each with 1000 ms of
 * slack, all reach x, a multiple of 1024 ms, and no other multiple of it,
 * so they share that tick (the default tick is 1 ms).
 */
static void t_ring_slack_coalesces(struct __test_metadata *_metadata)
{
	uint64_t x = ((now_ns() / MS + 200) / 1024 + 1) * 1024 * MS, when;
	struct twheel_cqe ev[4];
	unsigned int i, got;
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, 8, 8, 8)))
		return;
	for (i = 0; i < 4; i++) {
		tring_start(&r, i, 1, i, x - (100 + i) * MS, 0);
		r.sqes[(r.sq_tail - 1) & (r.p.sq_entries - 1)].arg = 1000 * MS;
	}
	EXPECT_TRUE(tring_submit(&r, x - 103 * MS) == 0);
	got = tring_reap(&r, ev, 4, 3000);
	EXPECT_TRUE(got == 4) TH_LOG("got %u", got);
	for (i = 0; i < got; i++) {
		when = x - (100 + ev[i].cookie) * MS;
		EXPECT_TRUE(ev[i].due == x && ev[i].fired >= x)
			TH_LOG("due %llu, the round tick %llu, asked %llu",
			       (unsigned long long)ev[i].due,
			       (unsigned long long)x, (unsigned long long)when);
	}
	tring_close(&r);
}

/*
 * Whether the clock is still before @deadline, a start's due time just
 * submitted; if not, a guest stalled past it, the submit's ENTER may have
 * fired the timer itself, and the test says the callback's part was not
 * judged.
 */
static bool tring_before(struct __test_metadata *_metadata, uint64_t deadline)
{
	if (now_ns() < deadline)
		return true;
	TH_LOG("a stall to the due time: the callback's part not judged");
	return false;
}

/*
 * Wait, with no system call, until a callback posted @n events or set
 * NEED_ENTER; 5 s at most.  Return the CQ's tail.
 */
static uint32_t tring_quiet_wait(struct tring *r, uint32_t n)
{
	uint64_t end = now_ns() + 5000 * MS;
	uint32_t tail;

	do {
		sleep_ms(10);
		tail = __atomic_load_n(&r->cq->tail, __ATOMIC_ACQUIRE);
	} while (tail < n && !(__atomic_load_n(&r->hdr->flags, __ATOMIC_ACQUIRE) &
			       TWHEEL_RING_NEED_ENTER) && now_ns() < end);
	return tail;
}

/* A blocking read() of one event, given up after 10 s (EINTR). */
static ssize_t read_one_within(int fd, struct twheel_event *ev)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	ssize_t n;

	sigaction(SIGALRM, &sa, NULL);
	alarm(10);
	n = read(fd, ev, sizeof(*ev));
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	return n;
}

/*
 * A user whose softirq budget (ring_budget) is below one callback's least
 * reservation: the callback does nothing but set NEED_ENTER and NEED_FLUSH
 * and leave the hrtimer idle, and the expiry comes with the file's next
 * system call, not early: an ENTER, or a blocking read() of an id timer,
 * which must not sleep through the stall.  With the budget back, a
 * callback posts it.  Due times are 300 ms ahead, far more than a slow
 * guest's system call takes, and checked not passed after each submit;
 * at 5 ms a tick that is level 0, so no cascade's callback stalls first.
 */
static void t_ring_softirq_budget(struct __test_metadata *_metadata)
{
	unsigned long old = read_param(RING_BUDGET_PARAM);
	struct twheel_cqe ev[1];
	struct twheel_event iev;
	struct tring r;
	uint64_t when;
	uint32_t tail;
	bool judged;

	if (!ring_ok(_metadata, tring_open_res(&r, 5 * MS, 16, 8, 32, 0)))
		return;
	write_param(RING_BUDGET_PARAM, 8);
	when = now_ns() + 300 * MS;
	tring_start(&r, 0, 1, 0xb0, when, 0);
	EXPECT_TRUE(tring_submit(&r, when) == 0 && r.enters == 1);
	/* Judged if the hrtimer, not the ENTER, came to the due time. */
	judged = tring_before(_metadata, when);
	tail = tring_quiet_wait(&r, 1);
	EXPECT_TRUE(!judged || (tail == 0 && (r.hdr->flags & TWHEEL_RING_NEED_ENTER) &&
				(r.hdr->flags & TWHEEL_RING_NEED_FLUSH) &&
				tring_armed_for(&r) == UINT64_MAX))
		TH_LOG("tail %u flags %#x", tail, r.hdr->flags);
	EXPECT_TRUE(tring_reap(&r, ev, 1, 5000) == 1 && (!judged || r.enters == 2));
	EXPECT_TRUE(ev[0].cookie == 0xb0 && ev[0].due >= when && ev[0].fired >= ev[0].due);
	/* An id timer of the stalled file, waited for by a blocking read(). */
	when = now_ns() + 300 * MS;
	EXPECT_TRUE(start(r.fd, 77, when, 0, TWHEEL_TIMER_ABSTIME) == 0);
	EXPECT_TRUE(read_one_within(r.fd, &iev) == sizeof(iev) && iev.id == 77 &&
		    iev.due >= when && iev.fired >= iev.due)
		TH_LOG("flags %#x", r.hdr->flags);
	write_param(RING_BUDGET_PARAM, old);
	when = now_ns() + 300 * MS;
	tring_start(&r, 1, 1, 0xb1, when, 0);
	EXPECT_TRUE(tring_submit(&r, when) == 0);
	tring_before(_metadata, when);
	tail = tring_quiet_wait(&r, 2);
	EXPECT_TRUE(tail == 2 && !(r.hdr->flags & TWHEEL_RING_NEED_ENTER))
		TH_LOG("tail %u flags %#x", tail, r.hdr->flags);
	/*
	 * An expiry_batch whose two per callback are more than the bucket
	 * ever holds: the reservation is cut to what it grants, and a
	 * callback still posts.
	 */
	old = read_param(EXPIRY_BATCH_PARAM);
	write_param(EXPIRY_BATCH_PARAM, 1UL << 24);
	when = now_ns() + 300 * MS;
	tring_start(&r, 2, 1, 0xb2, when, 0);
	EXPECT_TRUE(tring_submit(&r, when) == 0);
	tring_before(_metadata, when);
	tail = tring_quiet_wait(&r, 3);
	EXPECT_TRUE(tail == 3 && !(r.hdr->flags & TWHEEL_RING_NEED_ENTER))
		TH_LOG("expiry_batch 2^24: tail %u flags %#x", tail, r.hdr->flags);
	write_param(EXPIRY_BATCH_PARAM, old);
	tring_close(&r);
}

/* Stops of timers not yet due win; nothing enters after the first start. */
static void t_ring_no_syscall_steady(struct __test_metadata *_metadata)
{
	uint64_t anchor = now_ns() + 200 * MS, when = anchor + 200 * MS, done;
	struct twheel_cqe ev[64];
	unsigned int i, got;
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, 256, 256, 256)))
		return;
	tring_start(&r, 0, 1, 1000, anchor, 0);
	EXPECT_TRUE(tring_submit(&r, anchor) == 0 && r.enters == 1);
	/* 24 entries: within what one callback applies (TW_CHUNK). */
	for (i = 1; i <= 16; i++)
		tring_start(&r, i, 1, i, when, 0);
	EXPECT_TRUE(tring_submit(&r, when) == 0);
	for (i = 1; i <= 16; i += 2)
		tring_stop(&r, i, 1, i, 0);
	EXPECT_TRUE(tring_submit(&r, UINT64_MAX) == 0);
	/*
	 * With no ENTER if the anchor still held the hrtimer; the stops won
	 * if they came before the timers' due time.  A guest may stall past
	 * either: then the test says what it could not judge.
	 */
	done = now_ns();
	if (done >= anchor)
		TH_LOG("a stall of %llu ms: not all judged",
		       (unsigned long long)(done + 200 * MS - anchor) / MS);
	EXPECT_TRUE(done >= anchor || r.enters == 1) TH_LOG("enters %u", r.enters);
	/* The 9 awaited up to 5 s (a late softirq), then 200 ms for more. */
	sleep_ms(600);
	got = tring_reap(&r, ev, 9, 5000);
	got += tring_reap(&r, ev + got, 64 - got, 200);
	EXPECT_TRUE(done >= when || got == 9) TH_LOG("got %u", got);
	/* A stop that came too late fails (ENOENT), and says so. */
	for (i = 1; i < got; i++)
		EXPECT_TRUE(ev[i].flags == TWHEEL_CQE_EXPIRY ?
			    ev[i].due >= when && (done >= when || ev[i].cookie % 2 == 0) :
			    done >= when && ev[i].res == -ENOENT);
	EXPECT_TRUE(ev[0].cookie == 1000);
	EXPECT_TRUE(done >= anchor || r.enters == 1) TH_LOG("enters %u", r.enters);
	tring_close(&r);
}

/*
 * A stop written before its timer's due time, with no system call, wins:
 * the callback that would fire the timer applies the stop first.  The
 * wheel_ns read after the stop's tail store proves it in advance.
 */
static void t_ring_stop_before_due_wins(struct __test_metadata *_metadata)
{
	struct twheel_cqe ev[4];
	unsigned int round, fired = 0;
	uint64_t when, wheel;
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, 16, 16, 16)))
		return;
	for (round = 0; round < 5; round++) {
		when = now_ns() + 200 * MS;
		tring_start(&r, 1, round, 100 + round, when, 0);
		tring_start(&r, 2, round, 200 + round, when, 0);
		EXPECT_TRUE(tring_submit(&r, when) == 0);
		/* The hrtimer is armed for them: the stop needs no call. */
		sleep_ms(20);
		tring_stop(&r, 1, round, 0, 0);
		r.enters = 0;
		EXPECT_TRUE(tring_submit(&r, UINT64_MAX) == 0 && r.enters == 0);
		wheel = __atomic_load_n(&r.hdr->wheel_ns, __ATOMIC_RELAXED);
		if (wheel >= when) {
			/* A guest stalled to the due time: either may fire. */
			TH_LOG("round %u not judged: wheel_ns %llu, due %llu", round,
			       (unsigned long long)wheel, (unsigned long long)when);
			tring_reap(&r, ev, 4, 500);	/* and the stop's ENOENT */
			continue;
		}
		EXPECT_TRUE(tring_reap(&r, ev, 1, 5000) == 1);
		EXPECT_TRUE(ev[0].cookie == 200 + round && ev[0].due >= when)
			TH_LOG("round %u: cookie %llu", round,
			       (unsigned long long)ev[0].cookie);
		fired += tring_reap(&r, ev, 4, 100);
	}
	EXPECT_TRUE(fired == 0) TH_LOG("%u stopped timers fired", fired);
	tring_close(&r);
}

/* Corrupt indices break the rings; the ioctls keep working. */
static void t_ring_corrupt_broken(struct __test_metadata *_metadata)
{
	struct pollfd pf;
	struct twheel_event e;
	struct tring r;
	int ret;

	if (!ring_ok(_metadata, tring_open(&r, 16, 8, 32)))
		return;
	tring_start(&r, 1, 1, 1, now_ns() + 50 * MS, 0);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	__atomic_store_n(&r.sq->tail, r.sq_tail + 9, __ATOMIC_RELEASE);
	ret = ring_enter(r.fd);
	EXPECT_TRUE(ret == -EBADFD) TH_LOG("enter %d flags %u", ret, r.hdr->flags);
	EXPECT_TRUE((r.hdr->flags & TWHEEL_RING_BROKEN) &&
		    r.hdr->broken == TWHEEL_BROKEN_SQ);
	pf.fd = r.fd;
	pf.events = POLLIN;
	EXPECT_TRUE(poll(&pf, 1, 0) == 1 && (pf.revents & POLLERR));
	EXPECT_TRUE(start(r.fd, 7, 10 * MS, 0, 0) == 0);
	EXPECT_TRUE(read_events(r.fd, &e, 1, 5000) == 1 && e.id == 7);
	tring_close(&r);

	if (!ring_ok(_metadata, tring_open(&r, 16, 8, 8)))
		return;
	__atomic_store_n(&r.cq->head, 100, __ATOMIC_RELEASE);
	tring_start(&r, 1, 1, 1, now_ns(), 0);
	EXPECT_TRUE(tring_submit(&r, 0) == -EBADFD);
	EXPECT_TRUE(r.hdr->broken == TWHEEL_BROKEN_CQ);
	tring_close(&r);
}

/*
 * The rings break in the middle of an ENTER: SQ 0's entries are applied
 * (a fresh file's round starts at SQ 0), then SQ 1's tail is no honest
 * value.  What was applied stays: the slots fire onto the waiting list,
 * never into the CQ, the periodic one not armed again, and the rest stay
 * pending ("The broken state").
 */
static void t_ring_broken_mid_enter(struct __test_metadata *_metadata)
{
	uint64_t t0 = now_ns(), end = t0 + 3000 * MS;
	struct twheel_ring_ctl *sq1;
	struct twheel_info i;
	struct tring r;

	if (!ring_ok(_metadata, tring_open_nr(&r, 0, 2, 16, 8, 8,
					      TWHEEL_RING_SETUP_PERIODIC)))
		return;
	sq1 = ring_map(r.fd, TWHEEL_OFF_SQ(1), r.p.sq_bytes,
		       PROT_READ | PROT_WRITE);
	if (!ring_ok(_metadata, sq1 ? 0 : -errno))
		goto out;
	tring_start(&r, 1, 1, 11, t0 + 20 * MS, 0);
	tring_periodic(&r, 2, 12, t0 + 20 * MS, 5 * MS, 0);
	tring_start(&r, 3, 1, 13, t0 + 3600000 * MS, 0);
	__atomic_store_n(&r.sq->tail, r.sq_tail, __ATOMIC_RELEASE);
	__atomic_store_n(&sq1->tail, r.p.sq_entries + 1, __ATOMIC_RELEASE);
	EXPECT_TRUE(ring_enter(r.fd) == -EBADFD);
	EXPECT_TRUE(r.hdr->broken == (TWHEEL_BROKEN_SQ | 1));
	/* All three applied: pending, or fired already on a slow guest. */
	i = info(r.fd);
	EXPECT_TRUE(i.pending + i.queued == 3);
	while ((i = info(r.fd)).queued < 2 && now_ns() < end)
		sleep_ms(5);
	/* Five periods more: the periodic slot still waits, not armed. */
	sleep_ms(25);
	i = info(r.fd);
	EXPECT_TRUE(i.queued == 2 && i.pending == 1)
		TH_LOG("queued %llu pending %llu", (unsigned long long)i.queued,
		       (unsigned long long)i.pending);
	/* The header's counters froze at the break; the CQ tail did not. */
	EXPECT_TRUE(__atomic_load_n(&r.cq->tail, __ATOMIC_ACQUIRE) == 0);
	EXPECT_TRUE(ring_enter(r.fd) == -EBADFD);
	munmap(sq1, r.p.sq_bytes);
out:
	tring_close(&r);
}

/* Publish the entries written and enter; the ENTER's result. */
static int tring_enter_all(struct tring *r)
{
	__atomic_store_n(&r->sq->tail, r->sq_tail, __ATOMIC_RELEASE);
	return ring_enter(r->fd);
}

struct ring_poller {
	int		fd;
	short		events;
	pid_t		tid;
	int		ret;
	short		revents;
	uint64_t	slept;
};

/* One poll() of the file for its events, up to 3 s, and how long it took. */
static void *ring_poller(void *arg)
{
	struct ring_poller *p = arg;
	struct pollfd pf = { .fd = p->fd, .events = p->events };
	uint64_t t0 = now_ns();

	__atomic_store_n(&p->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	p->ret = poll(&pf, 1, 3000);
	p->revents = pf.revents;
	p->slept = now_ns() - t0;
	return NULL;
}

/* Start a poller on @fd for @events in *@th, and wait until it sleeps. */
static void ring_poller_start(struct __test_metadata *_metadata,
			      struct ring_poller *p, pthread_t *th, int fd,
			      short events)
{
	*p = (struct ring_poller){ .fd = fd, .events = events };
	EXPECT_TRUE(pthread_create(th, NULL, ring_poller, p) == 0);
	EXPECT_TRUE(wait_sleeping(&p->tid));
}

/*
 * Whether a poller asleep in another thread was woken to POLLERR: a poll()
 * that times out looks once more and sees it too, so it must end well
 * before its timeout.
 */
static bool ring_poller_erred(struct __test_metadata *_metadata, pthread_t th,
			      struct ring_poller *p)
{
	bool woken;

	pthread_join(th, NULL);
	woken = p->ret == 1 && (p->revents & POLLERR) && p->slept < 2500 * MS;
	EXPECT_TRUE(woken)
		TH_LOG("poll %d revents %#x after %llu ms", p->ret, p->revents,
		       (unsigned long long)(p->slept / MS));
	return woken;
}

/*
 * A break in the publish after an ioctl's own work: STOP's catch-up applies
 * a chunk of SQ 0 (its round starts there), and only looks at SQ 1 once
 * its budget is spent; the publish then finds SQ 1's tail and breaks.
 */
static void t_ring_break_by_ioctl(struct __test_metadata *_metadata)
{
	struct ring_poller p;
	struct twheel_ring_ctl *sq1;
	struct tring r;
	pthread_t th;
	int k;

	if (!ring_ok(_metadata, tring_open_nr(&r, 0, 2, 64, 64, 128, 0)))
		return;
	sq1 = ring_map(r.fd, TWHEEL_OFF_SQ(1), r.p.sq_bytes,
		       PROT_READ | PROT_WRITE);
	if (!ring_ok(_metadata, sq1 ? 0 : -errno))
		goto out;
	ring_poller_start(_metadata, &p, &th, r.fd, POLLIN);
	/* The poll()'s round was SQ 0's, this one SQ 1's: the next is SQ 0's. */
	EXPECT_TRUE(ring_enter(r.fd) == 0);
	for (k = 0; k < 40; k++)
		tring_start(&r, k, 1, k, now_ns() + 3600000 * MS, 0);
	__atomic_store_n(&r.sq->tail, r.sq_tail, __ATOMIC_RELEASE);
	__atomic_store_n(&sq1->tail, 0x80000000u, __ATOMIC_RELEASE);
	EXPECT_TRUE(stop(r.fd, 1) == -ENOENT);
	if (ring_poller_erred(_metadata, th, &p))
		EXPECT_TRUE(r.hdr->broken == (TWHEEL_BROKEN_SQ | 1));
	munmap(sq1, r.p.sq_bytes);
out:
	tring_close(&r);
}

/*
 * A break from an ENTER wakes a poller asleep for @events, though it posts
 * nothing; with @events 0 only a wake-up whose key holds EPOLLERR reaches
 * it (pollwake() filters on the key).
 */
static void t_ring_break_by_enter(struct __test_metadata *_metadata,
				  short events)
{
	struct ring_poller p;
	struct tring r;
	pthread_t th;

	if (!ring_ok(_metadata, tring_open(&r, 16, 8, 8)))
		return;
	ring_poller_start(_metadata, &p, &th, r.fd, events);
	__atomic_store_n(&r.sq->tail, r.sq_tail + 9, __ATOMIC_RELEASE);
	EXPECT_TRUE(ring_enter(r.fd) == -EBADFD);
	if (!ring_poller_erred(_metadata, th, &p))
		TH_LOG("a poller asleep for events %#x", events);
	tring_close(&r);
}

/*
 * A break wakes a thread asleep in poll(), though it posts nothing: from
 * an ENTER, for POLLIN and for errors alone; from an hrtimer callback that
 * breaks after a stop and so fires nothing; from a STOP's publish.  The
 * callback's round starts at SQ 0: the ENTER's round started at SQ 0, the
 * poll()'s at SQ 1, one SQ further a round.
 */
static void t_ring_break_wakes_poller(struct __test_metadata *_metadata)
{
	struct ring_poller p = { 0 };
	struct twheel_ring_ctl *sq1;
	struct twheel_info i;
	struct tring r;
	pthread_t th;
	uint64_t due;

	t_ring_break_by_enter(_metadata, POLLIN);
	t_ring_break_by_enter(_metadata, 0);
	if (!ring_ok(_metadata, tring_open_nr(&r, 0, 2, 16, 8, 8, 0)))
		return;
	sq1 = ring_map(r.fd, TWHEEL_OFF_SQ(1), r.p.sq_bytes,
		       PROT_READ | PROT_WRITE);
	if (!ring_ok(_metadata, sq1 ? 0 : -errno))
		goto out;
	due = now_ns() + 1000 * MS;
	tring_start(&r, 1, 1, 21, due, 0);
	EXPECT_TRUE(tring_enter_all(&r) == 0);
	ring_poller_start(_metadata, &p, &th, r.fd, POLLIN);
	tring_stop(&r, 1, 1, 21, 0);
	__atomic_store_n(&r.sq->tail, r.sq_tail, __ATOMIC_RELEASE);
	__atomic_store_n(&sq1->tail, r.p.sq_entries + 1, __ATOMIC_RELEASE);
	/* A guest too slow to get here before the due time proves nothing. */
	if (now_ns() + 100 * MS < due && ring_poller_erred(_metadata, th, &p)) {
		i = info(r.fd);
		EXPECT_TRUE(r.hdr->broken == (TWHEEL_BROKEN_SQ | 1) &&
			    i.pending == 0 && i.queued == 0)
			TH_LOG("broken %#x pending %llu queued %llu", r.hdr->broken,
			       (unsigned long long)i.pending,
			       (unsigned long long)i.queued);
	} else {
		TH_LOG("too slow to judge the callback's break");
		pthread_join(th, NULL);
	}
	munmap(sq1, r.p.sq_bytes);
out:
	tring_close(&r);
	t_ring_break_by_ioctl(_metadata);
}

/*
 * With the CQ full of results, the SQ filled with 1 to sq_entries silent
 * starts, then as many silent stops: each ENTER applies them all, hands
 * the SQ back (its head at its tail) and returns 0, not EBUSY, whatever
 * the fill against the kernel's chunk (TW_RING_CHUNK, 128, while it is no
 * larger than the SQ).  An SQ whose last entry took a chunk's last unit
 * once kept its head back, as if results were held.
 */
static void t_ring_full_cq_hands_back(struct __test_metadata *_metadata)
{
	uint64_t far = now_ns() + 3600000 * MS;
	unsigned int n, k;
	int ret = 0;
	struct tring r;

	if (!ring_ok(_metadata, tring_open(&r, 256, 256, 8)))
		return;
	for (k = 0; k < 8; k++)
		tring_stop(&r, k, 1, 100 + k, 0);	/* ENOENT: the CQ fills */
	EXPECT_TRUE(tring_enter_all(&r) == 0);
	EXPECT_TRUE(__atomic_load_n(&r.cq->tail, __ATOMIC_ACQUIRE) == 8);
	for (n = 1; n <= r.p.sq_entries; n++) {
		for (k = 0; k < n; k++)
			tring_start(&r, k, 1, k, far, 0);
		ret = tring_enter_all(&r);
		if (ret || __atomic_load_n(&r.sq->head, __ATOMIC_ACQUIRE) != r.sq_tail)
			break;
		for (k = 0; k < n; k++)
			tring_stop(&r, k, 1, k, 0);
		ret = tring_enter_all(&r);
		if (ret || __atomic_load_n(&r.sq->head, __ATOMIC_ACQUIRE) != r.sq_tail)
			break;
	}
	EXPECT_TRUE(n > r.p.sq_entries)
		TH_LOG("a fill of %u: ENTER %d, head %u, tail %u", n, ret,
		       __atomic_load_n(&r.sq->head, __ATOMIC_ACQUIRE), r.sq_tail);
	EXPECT_TRUE(info(r.fd).pending == 0);
	EXPECT_TRUE(__atomic_load_n(&r.cq->tail, __ATOMIC_ACQUIRE) == 8);
	tring_close(&r);
}

/* The file, timers and pages live until the last mapping goes. */
static void t_ring_close_while_mapped(struct __test_metadata *_metadata)
{
	struct tring r;
	pid_t pid;
	int st;

	if (!ring_ok(_metadata, tring_open(&r, 16, 8, 32)))
		return;
	tring_start(&r, 2, 1, 42, now_ns() + 20 * MS, 0);
	EXPECT_TRUE(tring_submit(&r, 0) == 0);
	pid = fork();
	if (!pid) {
		struct twheel_cqe ev;

		close(r.fd);
		/* The child's copy of the mapping still gets the event. */
		_exit(tring_reap(&r, &ev, 1, 5000) == 1 && ev.cookie == 42 ? 0 : 1);
	}
	close(r.fd);
	EXPECT_TRUE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0);
	EXPECT_TRUE(r.hdr->posted == 1 && r.hdr->capacity == 16);
	munmap(r.hdr, r.p.hdr_bytes);
	munmap(r.sq, r.p.sq_bytes);
	munmap(r.cq, r.p.cq_bytes);
}

/**
 * struct scribble - a thread writing over a ring file's shared memory
 * @r:    the ring file
 * @stop: set to end it
 * @wild: set to write indices anywhere, not only where an honest
 *        program could
 * @rng:  its random state
 * @n:    writes made
 */
struct scribble {
	struct tring	*r;
	int		stop;
	int		wild;
	uint64_t	rng;
	uint64_t	n;
};

/*
 * Entries of random words or random starts and stops, of slots one in five
 * beyond the capacity, SQ tails and CQ heads within what an honest program
 * could write, and once @wild, now and then anywhere.
 */
static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	struct tring *r = s->r;
	uint32_t head, tail, wild;
	uint64_t v, *w;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		v = xorshift64s(&s->rng);
		wild = v % 64 || !__atomic_load_n(&s->wild, __ATOMIC_RELAXED) ? 0 : v >> 32;
		w = (uint64_t *)&r->sqes[(v >> 8) % r->p.sq_entries];
		switch (v % 5) {
		case 0:
			w[(v >> 12) % 4] = xorshift64s(&s->rng);
			break;
		case 1:
			r->sqes[(v >> 8) % r->p.sq_entries] = (struct twheel_sqe) {
				.op = 1 + (v >> 20) % 2,
				.slot = (v >> 24) % (r->p.capacity * 5 / 4),
				.gen = (v >> 32) % 3, .when = now_ns() + (v >> 44) % (50 * MS),
			};
			break;
		case 2:
			/* An honest tail moves on, within the room it has. */
			head = __atomic_load_n(&r->sq->head, __ATOMIC_ACQUIRE);
			tail = r->sq->tail;
			if (tail - head <= r->p.sq_entries)
				tail += (v >> 40) % (r->p.sq_entries - (tail - head) + 1);
			__atomic_store_n(&r->sq->tail, wild ? wild : tail, __ATOMIC_RELEASE);
			break;
		case 3:
			/* An honest head moves on, up to the tail. */
			tail = __atomic_load_n(&r->cq->tail, __ATOMIC_ACQUIRE);
			head = r->cq->head;
			if (tail - head <= r->p.cq_entries)
				head += (v >> 40) % (tail - head + 1);
			__atomic_store_n(&r->cq->head, wild ? wild : head, __ATOMIC_RELEASE);
			break;
		default:
			usleep(10);
		}
		s->n++;
	}
	return NULL;
}

/*
 * One file's rings drained for @ms while @s writes over them, with
 * @capacity slots and SQ entries: honest indices never break them, wild
 * ones may; any call gets a documented answer.
 */
static void scribble_file(struct __test_metadata *_metadata,
			  struct scribble *s, uint32_t capacity,
			  uint32_t sq_entries, uint64_t ms)
{
	uint64_t end = now_ns() + ms * MS;
	struct twheel_event ev;
	unsigned long calls = 0;
	struct tring r;
	pthread_t th;
	int ret;

	if (!ring_ok(_metadata, tring_open(&r, capacity, sq_entries, 16)))
		return;
	s->r = &r;
	s->stop = 0;
	s->wild = 0;
	s->n = 0;
	EXPECT_TRUE(pthread_create(&th, NULL, scribbler, s) == 0);
	while (now_ns() < end) {
		struct pollfd p = { .fd = r.fd, .events = POLLIN };

		if (now_ns() > end - ms * MS / 5)
			__atomic_store_n(&s->wild, 1, __ATOMIC_RELAXED);

		ret = ring_enter(r.fd);
		EXPECT_TRUE(ret == 0 || ret == -EBUSY || ret == -EBADFD)
			TH_LOG("RING_ENTER: %d", ret);
		/* Honest indices never break the rings, whatever the entries say. */
		if (!s->wild)
			EXPECT_TRUE(ret != -EBADFD && !(r.hdr->flags & TWHEEL_RING_BROKEN))
				TH_LOG("broken by honest indices: %#x", r.hdr->broken);
		poll(&p, 1, 0);
		calls++;
	}
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	TH_LOG("%u slots: %llu writes, %lu calls, %llu posted, %llu errors, %s",
	       capacity, (unsigned long long)s->n, calls,
	       (unsigned long long)r.hdr->posted,
	       (unsigned long long)r.hdr->errors,
	       r.hdr->flags & TWHEEL_RING_BROKEN ? "broken" : "not broken");
	/* Whatever the rings' state, the file's id timers work. */
	EXPECT_TRUE(start(r.fd, 7, 10 * MS, 0, 0) == 0);
	EXPECT_TRUE(read_events(r.fd, &ev, 1, 5000) == 1 && ev.id == 7);
	tring_close(&r);
}

/*
 * The kernel drains what a scribbler writes: no crash, only documented
 * answers.  Its writes come from a seed, printed, that TW_SCRIBBLE_SEED
 * replays (their timing against the kernel's reads is the run's own).
 * Two files, half a second each: one of 64 slots, and one of 16,384 with
 * SQs of 64 entries, on which the kernel prefetches the slots entries
 * name ahead of applying them (tw_ring.c's TW_RING_PREFETCH_SLOTS).
 */
static void t_ring_scribbler(struct __test_metadata *_metadata)
{
	const char *env = getenv("TW_SCRIBBLE_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : now_ns();
	struct scribble s = { .rng = seed | 1 };

	TH_LOG("scribbler seed %llu (TW_SCRIBBLE_SEED)", (unsigned long long)seed);
	scribble_file(_metadata, &s, 64, 8, 500);
	scribble_file(_metadata, &s, 16384, 64, 500);
}

#endif /* _TW_E2E_RING_H */
