// SPDX-License-Identifier: MIT
//! The raw ABI: include/uapi/linux/timingwheel.h, as Rust types.

/// `TWHEEL_ABI_VERSION`: the ABI these types describe.
pub const ABI_VERSION: u32 = 1;

pub const FEATURE_SLACK: u64 = 1 << 0;
pub const FEATURE_TIMENS: u64 = 1 << 1;
pub const FEATURE_BOOTTIME: u64 = 1 << 2;
pub const FEATURE_MEMORY: u64 = 1 << 3;

pub const TIMER_ABSTIME: u32 = 1 << 0;
pub const TIMER_REPLACE: u32 = 1 << 1;

pub const STOPPED_PENDING: i32 = 1;
pub const STOPPED_EXPIRED: i32 = 2;

pub const STATE_PENDING: u32 = 1;
pub const STATE_EXPIRED: u32 = 2;

pub const EVENT_PERIODIC: u32 = 1 << 0;

pub const MIN_RESOLUTION_NS: u64 = 1000;
pub const MAX_RESOLUTION_NS: u64 = 1_000_000_000;

/// `struct twheel_config`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub clockid: u32,
    pub flags: u32,
    pub resolution_ns: u64,
    pub reserved: [u64; 2],
}

/// `struct twheel_timer_spec`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerSpec {
    pub id: u64,
    pub value: u64,
    pub interval: u64,
    pub slack: u64,
    pub flags: u32,
    pub reserved: u32,
}

/// `struct twheel_stop`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stop {
    pub id: u64,
    pub flags: u32,
    pub reserved: u32,
}

/// `struct twheel_info`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub clockid: u32,
    pub abi_version: u32,
    pub features: u64,
    pub resolution_ns: u64,
    pub range_ns: u64,
    pub max_timers: u64,
    pub user_timers: u64,
    pub max_user_timers: u64,
    pub pending: u64,
    pub queued: u64,
    pub fired: u64,
    pub cascades: u64,
    pub wakeups: u64,
    pub next_expiry: u64,
    pub now: u64,
    pub memory: u64,
    pub reserved: u64,
}

/// `struct twheel_query`
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub id: u64,
    pub due: u64,
    pub remaining: u64,
    pub interval: u64,
    pub state: u32,
    pub reserved: u32,
}

/// `struct twheel_event`: one expiry, as `read()` returns it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// The timer's id.
    pub id: u64,
    /// ns on the clock the expiry was due.
    pub due: u64,
    /// ns on the clock the kernel fired it.
    pub fired: u64,
    /// Periodic: periods missed before this read.
    pub overrun: u64,
    /// `EVENT_PERIODIC` for a periodic timer.
    pub flags: u32,
    pub reserved: u32,
}

// asm-generic/ioctl.h's _IOC(), which x86, arm64 and UML use.
const IOC_WRITE: u64 = 1;
const IOC_READ: u64 = 2;
const MAGIC: u64 = 0xB9;

const fn ioc(dir: u64, nr: u64, size: usize) -> u64 {
    (dir << 30) | ((size as u64) << 16) | (MAGIC << 8) | nr
}

pub const IOC_SET_CONFIG: u64 = ioc(IOC_WRITE, 0x00, std::mem::size_of::<Config>());
pub const IOC_GET_INFO: u64 = ioc(IOC_READ, 0x01, std::mem::size_of::<Info>());
pub const IOC_START: u64 = ioc(IOC_WRITE, 0x02, std::mem::size_of::<TimerSpec>());
pub const IOC_STOP: u64 = ioc(IOC_WRITE, 0x03, std::mem::size_of::<Stop>());
pub const IOC_QUERY: u64 = ioc(IOC_READ | IOC_WRITE, 0x05, std::mem::size_of::<Query>());
