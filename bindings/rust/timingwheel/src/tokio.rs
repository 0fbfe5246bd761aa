// SPDX-License-Identifier: MIT
//! The device under tokio, through `tokio::io::unix::AsyncFd`.
//!
//! * [`Expiries`]: the file's events, one by one, as a stream
//!   ([`Expiries::next`], [`Expiries::poll_next`], and with the `stream`
//!   feature `futures_core::Stream`); the caller starts and stops timers
//!   on [`Expiries::device`] and tells them apart by id.
//! * [`Wheel`]: many timers on one file, each a future: [`Sleep`] (as
//!   `tokio::time::Sleep`, dropping it stops the timer) and [`Interval`].
//!   A task of the runtime reads the file and hands each event to its
//!   timer; [`Wheel::new`] must be called within a runtime with I/O
//!   enabled (`enable_io()`, or `#[tokio::main]`).

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use ::tokio::io::unix::AsyncFd;
use ::tokio::task::JoinHandle;

use crate::{sys, Device, Event};

/// The events of one file, as a stream.
pub struct Expiries {
    fd: AsyncFd<Device>,
    buf: Vec<Event>,
    pos: usize,
}

impl Expiries {
    /// Watch `dev` (opened non-blocking, [`Device::open`]); within a
    /// runtime with I/O enabled.
    pub fn new(dev: Device) -> io::Result<Expiries> {
        Ok(Expiries {
            fd: AsyncFd::new(dev)?,
            buf: Vec::new(),
            pos: 0,
        })
    }

    /// The file, to start and stop timers on.
    pub fn device(&self) -> &Device {
        self.fd.get_ref()
    }

    /// The next event: `Ready` with one if any waits, else `Pending` and
    /// `cx` woken when one comes.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        loop {
            if self.pos < self.buf.len() {
                self.pos += 1;
                return Poll::Ready(Ok(self.buf[self.pos - 1]));
            }
            let mut guard = match self.fd.poll_read_ready(cx) {
                Poll::Ready(Ok(guard)) => guard,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            self.buf.resize(256, Event::default());
            let buf = &mut self.buf;
            match guard.try_io(|fd| fd.get_ref().read(buf)) {
                Ok(Ok(n)) => {
                    self.buf.truncate(n);
                    self.pos = 0;
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => self.buf.clear(),
                Ok(Err(e)) => {
                    self.buf.clear();
                    return Poll::Ready(Err(e));
                }
                // EAGAIN: readiness cleared, poll again to wait.
                Err(_) => self.buf.clear(),
            }
        }
    }

    /// The next event, waiting for it.
    #[allow(clippy::should_implement_trait)] // as tokio_stream::StreamExt::next
    pub fn next(&mut self) -> Next<'_> {
        Next { expiries: self }
    }
}

#[cfg(feature = "stream")]
impl futures_core::Stream for Expiries {
    type Item = io::Result<Event>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Event>>> {
        Expiries::poll_next(self.get_mut(), cx).map(Some)
    }
}

/// [`Expiries::next`]'s future.
pub struct Next<'a> {
    expiries: &'a mut Expiries,
}

impl Future for Next<'_> {
    type Output = io::Result<Event>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        self.get_mut().expiries.poll_next(cx)
    }
}

#[derive(Default)]
struct Slot {
    events: VecDeque<Event>,
    waker: Option<Waker>,
}

struct Slots {
    map: HashMap<u64, Slot>,
    /// The reader's error, or the wheel's end: every timer fails with it.
    failed: Option<(io::ErrorKind, String)>,
}

struct Shared {
    fd: AsyncFd<Device>,
    slots: Mutex<Slots>,
    next_id: AtomicU64,
    resolution_ns: u64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Read what waits and hand each event to its timer; under the lock,
    /// so that a stop or reset never races an event read but not yet
    /// handed over.  Events of timers already dropped are ignored: ids
    /// are never reused.
    fn read_and_dispatch(&self, buf: &mut [Event]) -> io::Result<usize> {
        let mut slots = self.lock();
        let n = self.fd.get_ref().read(buf)?;
        for ev in &buf[..n] {
            if let Some(slot) = slots.map.get_mut(&ev.id) {
                slot.events.push_back(*ev);
                if let Some(w) = slot.waker.take() {
                    w.wake();
                }
            }
        }
        Ok(n)
    }

    fn fail(&self, kind: io::ErrorKind, why: String) {
        let mut slots = self.lock();
        slots.failed.get_or_insert((kind, why));
        for slot in slots.map.values_mut() {
            if let Some(w) = slot.waker.take() {
                w.wake();
            }
        }
    }

    fn start(&self, value: Duration, interval_ns: u64) -> io::Result<u64> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut slots = self.lock();
        self.fd.get_ref().start_spec(&sys::TimerSpec {
            id,
            value: crate::nanos(value),
            interval: interval_ns,
            ..Default::default()
        })?;
        slots.map.insert(id, Slot::default());
        Ok(id)
    }

    fn poll_slot(&self, id: u64, oneshot: bool, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        let mut guard = self.lock();
        let slots = &mut *guard;
        let slot = match slots.map.get_mut(&id) {
            Some(slot) => slot,
            None => {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::Other,
                    "timer polled after its end",
                )))
            }
        };
        if let Some(ev) = slot.events.pop_front() {
            if oneshot {
                slots.map.remove(&id);
            }
            return Poll::Ready(Ok(ev));
        }
        if let Some((kind, why)) = &slots.failed {
            return Poll::Ready(Err(io::Error::new(*kind, why.clone())));
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// The timer's future was dropped: stop it, unless its last event was
    /// read.  Under the lock: no event of it can be read and not handed.
    fn release(&self, id: u64) {
        let mut slots = self.lock();
        if slots.map.remove(&id).is_some() {
            let _ = self.fd.get_ref().stop(id);
        }
    }
}

/// Many timers on one file of the device, each a future.
pub struct Wheel {
    shared: Arc<Shared>,
    reader: JoinHandle<()>,
}

impl Wheel {
    /// Open the device and start reading it; within a runtime with I/O.
    pub fn new() -> io::Result<Wheel> {
        Wheel::from_device(Device::open()?)
    }

    /// Serve the timers of `dev` (opened non-blocking, configured as
    /// wanted, with no timer of its own yet).
    pub fn from_device(dev: Device) -> io::Result<Wheel> {
        let resolution_ns = dev.info()?.resolution_ns;
        let shared = Arc::new(Shared {
            fd: AsyncFd::new(dev)?,
            slots: Mutex::new(Slots {
                map: HashMap::new(),
                failed: None,
            }),
            next_id: AtomicU64::new(1),
            resolution_ns,
        });
        let reader = ::tokio::spawn(read_loop(Arc::clone(&shared)));
        Ok(Wheel { shared, reader })
    }

    /// The file, for [`Device::info`] and the like.
    pub fn device(&self) -> &Device {
        self.shared.fd.get_ref()
    }

    /// A future that completes with the timer's event once `after` has
    /// passed (never earlier: at the first tick at or after).
    pub fn sleep(&self, after: Duration) -> io::Result<Sleep> {
        let id = self.shared.start(after, 0)?;
        Ok(Sleep {
            shared: Arc::clone(&self.shared),
            id,
        })
    }

    /// A periodic timer: [`Interval::tick`] completes every `period`
    /// (rounded up to a whole number of ticks), the first after one period.
    pub fn interval(&self, period: Duration) -> io::Result<Interval> {
        let res = self.shared.resolution_ns;
        let ticks = ((crate::nanos(period) + res - 1) / res).max(1);
        let id = self
            .shared
            .start(Duration::from_nanos(ticks * res), ticks * res)?;
        Ok(Interval {
            shared: Arc::clone(&self.shared),
            id,
        })
    }
}

impl Drop for Wheel {
    fn drop(&mut self) {
        self.reader.abort();
        self.shared.fail(
            io::ErrorKind::Other,
            "the timingwheel::tokio::Wheel was dropped".into(),
        );
    }
}

async fn read_loop(shared: Arc<Shared>) {
    let mut buf = vec![Event::default(); 256];
    loop {
        let mut guard = match shared.fd.readable().await {
            Ok(guard) => guard,
            Err(e) => return shared.fail(e.kind(), e.to_string()),
        };
        match guard.try_io(|_| shared.read_and_dispatch(&mut buf)) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(Err(e)) => return shared.fail(e.kind(), e.to_string()),
            Err(_would_block) => {}
        }
    }
}

/// A one-shot timer as a future (as `tokio::time::Sleep`): completes with
/// its event; dropped before, it stops the timer (`TWHEEL_IOC_STOP`).
pub struct Sleep {
    shared: Arc<Shared>,
    id: u64,
}

impl Sleep {
    /// The id the timer has on the file.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Re-arm to `after` from now (`TWHEEL_TIMER_REPLACE`), as
    /// `tokio::time::Sleep::reset`; an expiry not yet seen is withdrawn.
    pub fn reset(&mut self, after: Duration) -> io::Result<()> {
        let mut slots = self.shared.lock();
        let spec = sys::TimerSpec {
            id: self.id,
            value: crate::nanos(after),
            flags: sys::TIMER_REPLACE,
            ..Default::default()
        };
        loop {
            match self.shared.fd.get_ref().start_spec(&spec) {
                // A read copying the event right now: retry (uapi.rst).
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => std::thread::yield_now(),
                r => break r,
            }
        }?;
        slots.map.entry(self.id).or_default().events.clear();
        Ok(())
    }
}

impl Future for Sleep {
    type Output = io::Result<Event>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        self.shared.poll_slot(self.id, true, cx)
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.shared.release(self.id);
    }
}

/// A periodic timer ([`Wheel::interval`]); dropping it stops the timer.
pub struct Interval {
    shared: Arc<Shared>,
    id: u64,
}

impl Interval {
    /// The next expiry; its `overrun` counts the periods missed before.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        self.shared.poll_slot(self.id, false, cx)
    }

    /// Wait for the next expiry.
    pub fn tick(&mut self) -> Tick<'_> {
        Tick { interval: self }
    }
}

#[cfg(feature = "stream")]
impl futures_core::Stream for Interval {
    type Item = io::Result<Event>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Event>>> {
        self.get_mut().poll_tick(cx).map(Some)
    }
}

/// [`Interval::tick`]'s future.
pub struct Tick<'a> {
    interval: &'a mut Interval,
}

impl Future for Tick<'_> {
    type Output = io::Result<Event>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<Event>> {
        self.get_mut().interval.poll_tick(cx)
    }
}

impl Drop for Interval {
    fn drop(&mut self) {
        self.shared.release(self.id);
    }
}
