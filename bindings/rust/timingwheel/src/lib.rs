// SPDX-License-Identifier: MIT
//! `/dev/timingwheel` from Rust: many timers behind one file descriptor.
//!
//! * [`Device`]: one open file of the device, on the raw ABI
//!   ([`sys`], include/uapi/linux/timingwheel.h) through `libc::ioctl`;
//!   with [`Device::events`], a blocking iterator of expiries (std only).
//! * With the `mio` feature, [`Device`] is a [`mio::event::Source`].
//! * With the `tokio` feature, [`tokio::Expiries`] is a stream of expiries
//!   on `tokio::io::unix::AsyncFd`, and [`tokio::Wheel`] hands out
//!   [`tokio::Sleep`] futures and [`tokio::Interval`]s, many on one file.
//!
//! Times are nanoseconds on the file's clock (`CLOCK_MONOTONIC` unless
//! [`Device::config`] chose `CLOCK_BOOTTIME`); see
//! Documentation/timingwheel/uapi.rst for every call and error, and
//! Documentation/timingwheel/bindings.rst for this crate.

use std::ffi::CStr;
use std::io;
use std::mem::size_of;
use std::os::unix::io::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

pub mod sys;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use sys::{Event, Info, Query};

/// The device's path.
pub const DEVICE: &CStr = unsafe { CStr::from_bytes_with_nul_unchecked(b"/dev/timingwheel\0") };

/// What [`Device::stop`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It had not fired; it never will.
    Pending,
    /// It had fired; its unread event is withdrawn.
    Expired,
}

/// One open file of `/dev/timingwheel`: a client with its own timers,
/// ids and event queue.  Closing it frees its timers.
#[derive(Debug)]
pub struct Device {
    fd: OwnedFd,
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Device {
    /// Open the device non-blocking (`O_RDWR | O_NONBLOCK | O_CLOEXEC`), as
    /// an event loop wants it.  `ENOENT`: the module is not loaded.
    pub fn open() -> io::Result<Device> {
        Self::open_flags(libc::O_NONBLOCK)
    }

    /// Open the device for blocking reads ([`Device::events`]).
    pub fn open_blocking() -> io::Result<Device> {
        Self::open_flags(0)
    }

    fn open_flags(flags: libc::c_int) -> io::Result<Device> {
        let fd = cvt(unsafe { libc::open(DEVICE.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC | flags) })?;
        Ok(Device {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    unsafe fn ioctl<T>(&self, request: u64, arg: *mut T) -> io::Result<libc::c_int> {
        cvt(libc::ioctl(self.fd.as_raw_fd(), request as _, arg))
    }

    /// `TWHEEL_IOC_SET_CONFIG`: the clock (`libc::CLOCK_MONOTONIC` or
    /// `libc::CLOCK_BOOTTIME`) and tick; before the first timer only.
    pub fn config(&self, clockid: libc::clockid_t, resolution_ns: u64) -> io::Result<()> {
        let mut c = sys::Config {
            clockid: clockid as u32,
            resolution_ns,
            ..Default::default()
        };
        unsafe { self.ioctl(sys::IOC_SET_CONFIG, &mut c) }.map(drop)
    }

    /// `TWHEEL_IOC_GET_INFO`: the file's settings and counters.
    pub fn info(&self) -> io::Result<Info> {
        let mut info = sys::Info::default();
        unsafe { self.ioctl(sys::IOC_GET_INFO, &mut info) }?;
        Ok(info)
    }

    /// `TWHEEL_IOC_START` with a whole spec.
    pub fn start_spec(&self, spec: &sys::TimerSpec) -> io::Result<()> {
        let mut spec = *spec;
        unsafe { self.ioctl(sys::IOC_START, &mut spec) }.map(drop)
    }

    /// Start one-shot timer `id`, due `after` from now (never earlier: at
    /// the first tick at or after).  `EEXIST`: the id is taken.
    pub fn start(&self, id: u64, after: Duration) -> io::Result<()> {
        self.start_spec(&sys::TimerSpec {
            id,
            value: nanos(after),
            ..Default::default()
        })
    }

    /// Start periodic timer `id`: first due `first` from now, then every
    /// `interval` (a whole number of ticks, or `EINVAL`).
    pub fn start_periodic(&self, id: u64, first: Duration, interval: Duration) -> io::Result<()> {
        self.start_spec(&sys::TimerSpec {
            id,
            value: nanos(first),
            interval: nanos(interval),
            ..Default::default()
        })
    }

    /// `TWHEEL_IOC_STOP`.  `ENOENT`: no such timer (never started, stopped,
    /// or its last event read).
    pub fn stop(&self, id: u64) -> io::Result<Stopped> {
        let mut s = sys::Stop {
            id,
            ..Default::default()
        };
        match unsafe { self.ioctl(sys::IOC_STOP, &mut s) }? {
            sys::STOPPED_EXPIRED => Ok(Stopped::Expired),
            _ => Ok(Stopped::Pending),
        }
    }

    /// `TWHEEL_IOC_QUERY`: timer `id`'s state; `ENOENT` if there is none.
    pub fn query(&self, id: u64) -> io::Result<Query> {
        let mut q = sys::Query {
            id,
            ..Default::default()
        };
        unsafe { self.ioctl(sys::IOC_QUERY, &mut q) }?;
        Ok(q)
    }

    /// `read()`: the events waiting, oldest first, into `buf`; the number
    /// read.  On a non-blocking file, `WouldBlock` when there are none.
    pub fn read(&self, buf: &mut [Event]) -> io::Result<usize> {
        let n = unsafe {
            libc::read(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                std::mem::size_of_val(buf),
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize / size_of::<Event>())
    }

    /// A blocking iterator of expiries (std only): each `next()` returns
    /// an event, reading more when none is buffered.  Open the file with
    /// [`Device::open_blocking`]; on a non-blocking one, the iterator ends
    /// when no event waits.
    pub fn events(&self) -> Events<'_> {
        Events {
            dev: self,
            buf: [Event::default(); 64],
            pos: 0,
            len: 0,
        }
    }

    /// The clock's time in ns, as the device sees it.
    pub fn now(clockid: libc::clockid_t) -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        unsafe { libc::clock_gettime(clockid, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}

impl AsRawFd for Device {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl AsFd for Device {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// [`Device::events`]'s iterator.
pub struct Events<'a> {
    dev: &'a Device,
    buf: [Event; 64],
    pos: usize,
    len: usize,
}

impl Iterator for Events<'_> {
    type Item = io::Result<Event>;

    fn next(&mut self) -> Option<io::Result<Event>> {
        while self.pos == self.len {
            match self.dev.read(&mut self.buf) {
                Ok(n) => {
                    self.pos = 0;
                    self.len = n;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        self.pos += 1;
        Some(Ok(self.buf[self.pos - 1]))
    }
}

#[cfg(feature = "mio")]
impl mio::event::Source for Device {
    fn register(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        mio::unix::SourceFd(&self.fd.as_raw_fd()).register(registry, token, interests)
    }

    fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        mio::unix::SourceFd(&self.fd.as_raw_fd()).reregister(registry, token, interests)
    }

    fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
        mio::unix::SourceFd(&self.fd.as_raw_fd()).deregister(registry)
    }
}
