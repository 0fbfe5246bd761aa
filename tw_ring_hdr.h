/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's half of the rings' store-buffering pairs, pure: the shared
 * header's writer and the full barrier after it ("DOC: No system call in
 * the steady state" in tw_ring.c).  No allocation, lock or clock, as
 * tw_core.h: tw_ring.c calls it, and the host's model test
 * (tools/testing/ring-sb) runs it on one CPU against libtimingwheel's
 * submitter on another, so that a barrier dropped on either side fails.
 */
#ifndef _TW_RING_HDR_H
#define _TW_RING_HDR_H

#include <linux/compiler.h>
#include <asm/barrier.h>
#include <uapi/linux/timingwheel.h>

/**
 * struct tw_ring_news - what the header says that changes, under its seq
 * @armed_for: the time the hrtimer fires no later than, on the rings' view; ~0:
 *             idle
 * @wheel_ns:  how far the wheel may have advanced
 * @flags:     TWHEEL_RING_*
 * @broken:    the ring that broke them, or 0
 */
struct tw_ring_news {
	__u64	armed_for;
	__u64	wheel_ns;
	__u32	flags;
	__u32	broken;
};

/**
 * tw_ring_hdr_announce - publish the news, then make a full barrier
 * @h:    the shared header
 * @seq:  the writer's copy of the header's sequence count
 * @news: what to publish
 *
 * The words change under an odd @seq, which a reader's retry loop sees
 * (its acquire load of seq pairs with the first smp_wmb(), its smp_rmb()
 * with the second).  The smp_mb() is the kernel's side of every
 * store-buffering pair: every load the caller makes after this, of an SQ
 * tail or the CQ head, is ordered after these stores, as userspace orders
 * its load of the header after its own store of a tail or a head.
 */
static inline void tw_ring_hdr_announce(struct twheel_ring_hdr *h, __u32 *seq,
					const struct tw_ring_news *news)
{
	WRITE_ONCE(h->seq, ++*seq);
	/* The odd seq before the words: a reader's smp_rmb() pairs. */
	smp_wmb();
	WRITE_ONCE(h->armed_for, news->armed_for);
	WRITE_ONCE(h->wheel_ns, news->wheel_ns);
	WRITE_ONCE(h->flags, news->flags);
	WRITE_ONCE(h->broken, news->broken);
	/* The words before the even seq. */
	smp_wmb();
	WRITE_ONCE(h->seq, ++*seq);
	/* Pairs with the fence after userspace's tail or head store. */
	smp_mb();
}

#endif /* _TW_RING_HDR_H */
