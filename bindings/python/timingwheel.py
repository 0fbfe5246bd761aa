# SPDX-License-Identifier: MIT
"""timingwheel: /dev/timingwheel for Python and asyncio.

The raw ABI of include/uapi/linux/timingwheel.h through fcntl.ioctl and
struct, with no compiled extension and no libtimingwheel: Python's standard
library only (Debian's python3, 3.11).

Two layers:

``Device``
    one open file of /dev/timingwheel, non-blocking: ``config()``,
    ``info()``, ``start()``, ``stop()``, ``query()``, ``read()``.  Errors
    are ``OSError`` with the errno of Documentation/timingwheel/uapi.rst.

``Wheel``
    a ``Device`` registered with an asyncio loop's ``add_reader()``:
    ``call_later()`` / ``call_at()`` return handles whose ``cancel()``
    stops the timer (TWHEEL_IOC_STOP); ``expire_after()`` a future that
    resolves at the expiry; ``sleep()``; ``periodic()`` an async iterator
    of the expiries of a periodic timer.

Times given to ``Wheel`` are seconds, as asyncio's are (``loop.time()``
is CLOCK_MONOTONIC, the device's default clock); ``Device`` takes
nanoseconds.  A ``Wheel`` names its timers with ids it never reuses, so an
event read after its timer was stopped and started again cannot be taken
for the new timer's.
"""

import asyncio
import collections
import fcntl
import os
import struct
import time

__all__ = [
    "Device", "Wheel", "Event", "Info", "TimerHandle", "Periodic",
    "ioc", "DEVICE", "CLOCK_MONOTONIC", "CLOCK_BOOTTIME",
]

DEVICE = "/dev/timingwheel"
ABI_VERSION = 1
CLOCK_MONOTONIC = 1
CLOCK_BOOTTIME = 7

FEATURE_SLACK = 1 << 0
FEATURE_TIMENS = 1 << 1
FEATURE_BOOTTIME = 1 << 2
FEATURE_MEMORY = 1 << 3

TIMER_ABSTIME = 1 << 0
TIMER_REPLACE = 1 << 1
STOPPED_PENDING = 1
STOPPED_EXPIRED = 2
STATE_PENDING = 1
STATE_EXPIRED = 2
EVENT_PERIODIC = 1 << 0

# The structs, native byte order, as the header lays them out (explicit
# padding: no implicit holes, the same on 32 and 64 bits).
_CONFIG = struct.Struct("=IIQ2Q")          # struct twheel_config, 32 bytes
_SPEC = struct.Struct("=QQQQII")           # struct twheel_timer_spec, 40
_STOP = struct.Struct("=QII")              # struct twheel_stop, 16
_INFO = struct.Struct("=II15Q")            # struct twheel_info, 128
_QUERY = struct.Struct("=QQQQII")          # struct twheel_query, 40
_EVENT = struct.Struct("=QQQQII")          # struct twheel_event, 40

# asm-generic/ioctl.h, which x86, arm64 and UML use.
_IOC_WRITE = 1
_IOC_READ = 2


def ioc(direction, nr, size, magic=0xB9):
    """_IOC(): an ioctl request number of the timingwheel magic."""
    return (direction << 30) | (size << 16) | (magic << 8) | nr


IOC_SET_CONFIG = ioc(_IOC_WRITE, 0x00, _CONFIG.size)
IOC_GET_INFO = ioc(_IOC_READ, 0x01, _INFO.size)
IOC_START = ioc(_IOC_WRITE, 0x02, _SPEC.size)
IOC_STOP = ioc(_IOC_WRITE, 0x03, _STOP.size)
IOC_QUERY = ioc(_IOC_READ | _IOC_WRITE, 0x05, _QUERY.size)

Event = collections.namedtuple("Event", "id due fired overrun flags")
Event.__doc__ = "struct twheel_event: one expiry (times in ns on the clock)."
Info = collections.namedtuple(
    "Info", "clockid abi_version features resolution_ns range_ns max_timers "
    "user_timers max_user_timers pending queued fired cascades wakeups "
    "next_expiry now memory")
Query = collections.namedtuple("Query", "id due remaining interval state")

# One read() takes up to this many events (40 bytes each).
READ_EVENTS = 256


class Device:
    """One open file of /dev/timingwheel: its timers and its events.

    Opened O_RDWR | O_NONBLOCK | O_CLOEXEC.  ``fileno()`` is the descriptor
    to poll; ``close()`` (or ``with``) frees every timer of the file.
    """

    def __init__(self, path=DEVICE, *, clock=None, resolution_ns=0):
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if clock is not None or resolution_ns:
                self.config(clock or CLOCK_MONOTONIC, resolution_ns)
        except BaseException:
            os.close(self.fd)
            raise

    def fileno(self):
        return self.fd

    def close(self):
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def config(self, clock=CLOCK_MONOTONIC, resolution_ns=0):
        """TWHEEL_IOC_SET_CONFIG: before the first timer only (EBUSY)."""
        fcntl.ioctl(self.fd, IOC_SET_CONFIG,
                    _CONFIG.pack(clock, 0, resolution_ns, 0, 0))

    def info(self):
        """TWHEEL_IOC_GET_INFO, as an ``Info``."""
        buf = bytearray(_INFO.size)
        fcntl.ioctl(self.fd, IOC_GET_INFO, buf, True)
        return Info(*_INFO.unpack(buf)[:16])

    def start(self, timer_id, value_ns, interval_ns=0, slack_ns=0, flags=0):
        """TWHEEL_IOC_START: value_ns from now (or absolute, TIMER_ABSTIME)."""
        fcntl.ioctl(self.fd, IOC_START,
                    _SPEC.pack(timer_id, value_ns, interval_ns, slack_ns, flags, 0))

    def stop(self, timer_id):
        """TWHEEL_IOC_STOP: STOPPED_PENDING or STOPPED_EXPIRED; ENOENT if
        there is no such timer (never started, stopped, or its event read)."""
        return fcntl.ioctl(self.fd, IOC_STOP, bytearray(_STOP.pack(timer_id, 0, 0)), True)

    def query(self, timer_id):
        """TWHEEL_IOC_QUERY, as a ``Query``; ENOENT if there is no such timer."""
        buf = bytearray(_QUERY.pack(timer_id, 0, 0, 0, 0, 0))
        fcntl.ioctl(self.fd, IOC_QUERY, buf, True)
        return Query(*_QUERY.unpack(buf)[:5])

    def read(self, max_events=READ_EVENTS):
        """The events waiting, oldest first; [] when none (EAGAIN)."""
        try:
            data = os.read(self.fd, max_events * _EVENT.size)
        except BlockingIOError:
            return []
        return [Event(*f[:5]) for f in _EVENT.iter_unpack(data)]

    @staticmethod
    def now(clock=CLOCK_MONOTONIC):
        """The clock's time in ns, as the device sees it."""
        return time.clock_gettime_ns(clock)


class TimerHandle:
    """A timer started by ``Wheel.call_later()`` or ``call_at()``.

    ``cancel()`` stops it with TWHEEL_IOC_STOP: its callback never runs,
    even if it had expired and its event was waiting to be read.
    """

    __slots__ = ("_wheel", "_id", "_callback", "_args", "_cancelled", "when")

    def __init__(self, wheel, timer_id, when, callback, args):
        self._wheel = wheel
        self._id = timer_id
        self._callback = callback
        self._args = args
        self._cancelled = False
        self.when = when

    def cancel(self):
        """Stop the timer; True if it was stopped before its callback ran."""
        if self._cancelled or self._callback is None:
            return False
        self._cancelled = True
        self._callback = self._args = None
        return self._wheel._stop(self._id)

    def cancelled(self):
        return self._cancelled

    def _fire(self, event):
        callback, args = self._callback, self._args
        self._callback = self._args = None
        if callback is not None:
            callback(*args)

    def _close(self):
        self._cancelled = True
        self._callback = self._args = None


class _FutureTimer:
    """The timer behind ``Wheel.expire_after()``: sets its future."""

    __slots__ = ("_future",)

    def __init__(self, future):
        self._future = future

    def _fire(self, event):
        if not self._future.done():
            self._future.set_result(event)

    def _close(self):
        self._future.cancel()


class Periodic:
    """A periodic timer's expiries, as an async iterator of ``Event``.

    Each event's ``overrun`` counts the periods missed before it was read.
    ``cancel()`` (or leaving ``async with``) stops the timer; an iteration
    waiting then ends (StopAsyncIteration).
    """

    def __init__(self, wheel, timer_id):
        self._wheel = wheel
        self._id = timer_id
        self._events = collections.deque()
        self._waiter = None
        self._stopped = False

    def _fire(self, event):
        self._events.append(event)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def cancel(self):
        """Stop the timer; True if it was running."""
        if self._stopped:
            return False
        self._close()
        return self._wheel._stop(self._id)

    def _close(self):
        self._stopped = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def __aiter__(self):
        return self

    async def __anext__(self):
        while not self._events:
            if self._stopped:
                raise StopAsyncIteration
            self._waiter = self._wheel._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._events.popleft()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.cancel()


class Wheel:
    """A /dev/timingwheel file served by an asyncio event loop.

    The file's descriptor is registered with ``loop.add_reader()``; each
    event read resolves the future, runs the callback or feeds the
    iterator of its timer.  Use one ``Wheel`` for many timers: each costs
    the kernel O(1) to start and stop, and one read brings many expiries.
    Like the loop, a ``Wheel`` is used from the loop's thread only.
    """

    def __init__(self, loop=None, *, path=DEVICE, resolution_ns=0):
        self._loop = loop or asyncio.get_running_loop()
        self.device = Device(path, resolution_ns=resolution_ns)
        self._timers = {}
        self._next_id = 1
        self.resolution_ns = self.device.info().resolution_ns
        self._loop.add_reader(self.device.fileno(), self._on_readable)

    def close(self):
        """Unregister and close the file: its timers go with it.  Their
        futures are cancelled, their iterations end, their callbacks never
        run."""
        if self.device.fd >= 0:
            self._loop.remove_reader(self.device.fileno())
            self.device.close()
        timers, self._timers = self._timers, {}
        for target in timers.values():
            target._close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.close()

    def __len__(self):
        return len(self._timers)

    def _new_id(self):
        timer_id = self._next_id
        self._next_id += 1
        return timer_id

    def _start(self, target, value_ns, interval_ns=0, flags=0):
        timer_id = self._new_id()
        self.device.start(timer_id, max(value_ns, 0), interval_ns, 0, flags)
        self._timers[timer_id] = target
        return timer_id

    def _stop(self, timer_id):
        if self._timers.pop(timer_id, None) is None:
            return False
        try:
            self.device.stop(timer_id)
        except FileNotFoundError:
            # Its last event was read: a read in this loop would have
            # dispatched it, so only a file shared with another reader
            # gets here.
            return False
        return True

    def _on_readable(self):
        while True:
            events = self.device.read()
            for event in events:
                if event.flags & EVENT_PERIODIC:
                    target = self._timers.get(event.id)
                else:
                    target = self._timers.pop(event.id, None)
                if target is None:
                    continue
                # A callback's exception goes to the loop's handler, as
                # asyncio's own callbacks' do, and loses no other event.
                try:
                    target._fire(event)
                except (SystemExit, KeyboardInterrupt):
                    raise
                except BaseException as exc:
                    self._loop.call_exception_handler({
                        "message": "exception in a timingwheel callback",
                        "exception": exc,
                        "handle": target,
                    })
            if len(events) < READ_EVENTS:
                return

    @staticmethod
    def _ns(seconds):
        return int(seconds * 1_000_000_000)

    def call_later(self, delay, callback, *args):
        """Run callback(*args) once delay seconds have passed (never earlier:
        at the next tick of the file's resolution at or after)."""
        handle = TimerHandle(self, 0, self._loop.time() + delay, callback, args)
        handle._id = self._start(handle, self._ns(delay))
        return handle

    def call_at(self, when, callback, *args):
        """Run callback(*args) at loop.time() ``when`` (CLOCK_MONOTONIC)."""
        handle = TimerHandle(self, 0, when, callback, args)
        handle._id = self._start(handle, max(self._ns(when), 1), 0, TIMER_ABSTIME)
        return handle

    def expire_after(self, delay):
        """A future resolving, delay seconds from now, to the timer's
        ``Event``.  Cancelling the future stops the timer."""
        future = self._loop.create_future()
        timer_id = self._start(_FutureTimer(future), self._ns(delay))

        def done(fut):
            if fut.cancelled():
                self._stop(timer_id)
        future.add_done_callback(done)
        return future

    async def sleep(self, delay, result=None):
        """asyncio.sleep() on the device."""
        await self.expire_after(delay)
        return result

    def periodic(self, interval, first=None):
        """A ``Periodic``: expiries every interval seconds, the first after
        ``first`` seconds (default: one interval).  The interval is rounded
        up to a whole number of ticks of the file's resolution, as the
        device requires."""
        res = self.resolution_ns
        interval_ns = max(-(-self._ns(interval) // res), 1) * res
        first_ns = interval_ns if first is None else self._ns(first)
        periodic = Periodic(self, 0)
        periodic._id = self._start(periodic, first_ns, interval_ns)
        return periodic
