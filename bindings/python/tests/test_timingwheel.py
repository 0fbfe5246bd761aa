# SPDX-License-Identifier: MIT
"""The Python binding's tests, against the real module (/dev/timingwheel).

    /usr/bin/python3 -m unittest discover -s bindings/python/tests -t bindings/python

make check runs them inside the UML debug kernel (scripts/guest/uml-e2e.sh);
they fail, not skip, where the device is missing.
"""

import asyncio
import os
import random
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import timingwheel as tw  # noqa: E402

MS = 1_000_000


def wait_queued(dev, n, timeout=3.0):
    """Wait until n events are queued on dev (blocking the loop, if any),
    up to timeout seconds; how many are.  A fixed sleep can be outlasted
    by a late softirq on a slow guest."""
    deadline = time.monotonic() + timeout
    while dev.info().queued < n and time.monotonic() < deadline:
        time.sleep(0.005)
    return dev.info().queued


class Abi(unittest.TestCase):
    def test_ioctl_numbers(self):
        # As the C compiler computes them from include/uapi/linux/timingwheel.h.
        self.assertEqual(tw.IOC_SET_CONFIG, 0x4020B900)
        self.assertEqual(tw.IOC_GET_INFO, 0x8080B901)
        self.assertEqual(tw.IOC_START, 0x4028B902)
        self.assertEqual(tw.IOC_STOP, 0x4010B903)
        self.assertEqual(tw.IOC_QUERY, 0xC028B905)

    def test_missing_device(self):
        with self.assertRaises(FileNotFoundError):
            tw.Device("/dev/timingwheel-nosuch")


class DeviceTest(unittest.TestCase):
    def setUp(self):
        self.dev = tw.Device()

    def tearDown(self):
        self.dev.close()

    def test_info(self):
        info = self.dev.info()
        self.assertGreaterEqual(info.abi_version, tw.ABI_VERSION)
        self.assertEqual(info.clockid, tw.CLOCK_MONOTONIC)
        self.assertEqual(info.pending, 0)
        self.assertGreater(info.range_ns, 0)

    def test_start_query_stop(self):
        self.dev.start(7, 10_000 * MS)
        q = self.dev.query(7)
        self.assertEqual((q.id, q.state), (7, tw.STATE_PENDING))
        self.assertGreater(q.remaining, 0)
        self.assertEqual(self.dev.info().pending, 1)
        with self.assertRaises(FileExistsError):
            self.dev.start(7, MS)
        self.assertEqual(self.dev.stop(7), tw.STOPPED_PENDING)
        with self.assertRaises(FileNotFoundError):
            self.dev.stop(7)
        self.assertEqual(self.dev.read(), [])

    def test_expiry_never_early(self):
        # Absolute times from one reading: a stall between the two starts
        # cannot change their order.
        t0 = tw.Device.now()
        self.dev.start(1, t0 + 5 * MS, flags=tw.TIMER_ABSTIME)
        self.dev.start(2, t0 + 2 * MS, flags=tw.TIMER_ABSTIME)
        events = []
        deadline = time.monotonic() + 5
        while len(events) < 2 and time.monotonic() < deadline:
            time.sleep(0.002)
            events += self.dev.read()
        self.assertEqual([e.id for e in events], [2, 1])
        for e, ms in zip(events, (2, 5)):
            self.assertGreaterEqual(e.due, t0 + ms * MS)
            self.assertGreaterEqual(e.fired, e.due)
            self.assertEqual(e.flags, 0)

    def test_stop_withdraws_expired(self):
        self.dev.start(3, MS)
        self.assertEqual(wait_queued(self.dev, 1), 1)
        self.assertEqual(self.dev.stop(3), tw.STOPPED_EXPIRED)
        self.assertEqual(self.dev.read(), [])


class WheelTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.loop = asyncio.get_running_loop()
        # IsolatedAsyncioTestCase runs the loop in debug mode, which takes a
        # stack trace at every future's creation: seconds for a thousand
        # timers under the UML debug kernel.
        self.loop.set_debug(False)
        self.wheel = tw.Wheel()

    async def asyncTearDown(self):
        self.wheel.close()

    async def test_future_resolves_at_expiry(self):
        t0 = self.loop.time()
        ns0 = tw.Device.now()
        event = await asyncio.wait_for(self.wheel.expire_after(0.02), 5)
        self.assertGreaterEqual(self.loop.time() - t0, 0.02)
        self.assertGreaterEqual(event.due, ns0 + 20 * MS)
        self.assertEqual(len(self.wheel), 0)

    async def test_call_later_order(self):
        got = []
        done = self.loop.create_future()
        base = self.loop.time()
        for ms in (30, 10, 20):
            self.wheel.call_at(base + ms / 1000, got.append, ms)
        # Started later, due later than all three, whatever the stall.
        self.wheel.call_later(0.04, done.set_result, None)
        await asyncio.wait_for(done, 5)
        self.assertEqual(got, [10, 20, 30])

    async def test_call_at(self):
        done = self.loop.create_future()
        when = self.loop.time() + 0.015
        self.wheel.call_at(when, lambda: done.set_result(self.loop.time()))
        self.assertGreaterEqual(await asyncio.wait_for(done, 5), when)

    async def test_cancel_pending(self):
        got = []
        handle = self.wheel.call_later(0.01, got.append, 1)
        self.assertTrue(handle.cancel())
        self.assertTrue(handle.cancelled())
        self.assertFalse(handle.cancel())
        self.assertEqual(self.wheel.device.info().pending, 0)
        await asyncio.sleep(0.03)
        self.assertEqual(got, [])

    async def test_cancel_expired_unread(self):
        # The event waits in the file, unread (the loop is blocked): STOP
        # withdraws it and the callback never runs.
        got = []
        handle = self.wheel.call_later(0.001, got.append, 1)
        self.assertEqual(wait_queued(self.wheel.device, 1), 1)
        self.assertTrue(handle.cancel())
        self.assertEqual(self.wheel.device.info().queued, 0)
        await asyncio.sleep(0.02)
        self.assertEqual(got, [])

    async def test_sleep(self):
        t0 = self.loop.time()
        self.assertEqual(await self.wheel.sleep(0.01, "x"), "x")
        self.assertGreaterEqual(self.loop.time() - t0, 0.01)

    async def test_cancelled_sleep_stops_timer(self):
        task = self.loop.create_task(self.wheel.sleep(10))
        await asyncio.sleep(0.01)
        self.assertEqual(self.wheel.device.info().pending, 1)
        task.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await task
        self.assertEqual(self.wheel.device.info().pending, 0)
        self.assertEqual(len(self.wheel), 0)

    async def test_periodic(self):
        res = self.wheel.resolution_ns
        dues = []
        async with self.wheel.periodic(0.01) as ticks:
            async for event in ticks:
                self.assertTrue(event.flags & tw.EVENT_PERIODIC)
                dues.append((event.due, event.overrun))
                if len(dues) == 5:
                    break
        interval = -(-10 * MS // res) * res
        # The k-th period is due at first + k * interval, whatever was missed.
        for (d0, o0), (d1, _) in zip(dues, dues[1:]):
            self.assertEqual(d1 - d0, (o0 + 1) * interval)
        self.assertEqual(self.wheel.device.info().pending, 0)

    async def test_periodic_cancel_ends_iteration(self):
        ticks = self.wheel.periodic(0.005)
        self.loop.call_later(0.03, ticks.cancel)
        n = 0
        async for _ in ticks:
            n += 1
        self.assertGreaterEqual(n, 1)
        self.assertEqual(self.wheel.device.info().pending, 0)

    async def test_many_no_event_lost(self):
        rng = random.Random(21)
        delays = [rng.randrange(1, 60) / 1000 for _ in range(1000)]
        futures = [self.wheel.expire_after(d) for d in delays]
        cancelled = futures[::7]
        for f in cancelled:
            f.cancel()
        t0 = tw.Device.now()
        kept = [f for f in futures if not f.cancelled()]
        events = await asyncio.wait_for(asyncio.gather(*kept), 10)
        self.assertEqual(len({e.id for e in events}), len(kept))
        for e in events:
            self.assertGreaterEqual(e.fired, e.due)
        self.assertLess(max(e.due for e in events), t0 + 70 * MS)
        info = self.wheel.device.info()
        self.assertEqual((info.pending, info.queued), (0, 0))
        self.assertEqual(len(self.wheel), 0)

    async def test_callback_exception_loses_nothing(self):
        errors = []
        got = []
        self.loop.set_exception_handler(lambda loop, ctx: errors.append(ctx["exception"]))
        done = self.loop.create_future()

        def boom():
            raise ZeroDivisionError

        # All due at the same tick, read by the same read(), in whatever
        # order the tick fires them.
        for i in range(10):
            self.wheel.call_later(0.005, boom)
            self.wheel.call_later(0.005, got.append, i)
        self.wheel.call_later(0.03, done.set_result, None)
        await asyncio.wait_for(done, 5)
        self.assertEqual(sorted(got), list(range(10)))
        self.assertEqual([type(e) for e in errors], [ZeroDivisionError] * 10)

    async def test_close_frees_timers(self):
        handle = self.wheel.call_later(10, print)
        future = self.wheel.expire_after(10)
        ticks = self.wheel.periodic(10)
        for _ in range(10):
            self.wheel.call_later(10, print)
        self.assertEqual(self.wheel.device.info().pending, 13)
        self.wheel.close()
        self.assertTrue(handle.cancelled())
        self.assertTrue(future.cancelled())
        self.assertEqual([ev async for ev in ticks], [])
        with tw.Device() as dev:
            self.assertEqual(dev.info().user_timers, 0)


if __name__ == "__main__":
    unittest.main()
