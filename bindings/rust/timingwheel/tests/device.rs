// SPDX-License-Identifier: MIT
//! The crate's tests, against the real module (/dev/timingwheel): make
//! check builds them on the host and runs them inside the UML debug kernel
//! (scripts/guest/uml-e2e.sh).  They fail, not skip, without the device.

use std::io;
use std::time::{Duration, Instant};

use timingwheel::tokio::{Expiries, Wheel};
use timingwheel::{sys, Device, Stopped};

const MS: u64 = 1_000_000;

fn now() -> u64 {
    Device::now(libc::CLOCK_MONOTONIC)
}

#[test]
fn ioctl_numbers() {
    // As the C compiler computes them from include/uapi/linux/timingwheel.h.
    assert_eq!(sys::IOC_SET_CONFIG, 0x4020_b900);
    assert_eq!(sys::IOC_GET_INFO, 0x8080_b901);
    assert_eq!(sys::IOC_START, 0x4028_b902);
    assert_eq!(sys::IOC_STOP, 0x4010_b903);
    assert_eq!(sys::IOC_QUERY, 0xc028_b905);
}

#[test]
fn start_query_stop() {
    let dev = Device::open().unwrap();
    let info = dev.info().unwrap();
    assert!(info.abi_version >= sys::ABI_VERSION);
    assert_eq!(info.clockid, libc::CLOCK_MONOTONIC as u32);
    dev.start(7, Duration::from_secs(10)).unwrap();
    let q = dev.query(7).unwrap();
    assert_eq!((q.id, q.state), (7, sys::STATE_PENDING));
    assert_eq!(
        dev.start(7, Duration::from_millis(1)).unwrap_err().kind(),
        io::ErrorKind::AlreadyExists
    );
    assert_eq!(dev.stop(7).unwrap(), Stopped::Pending);
    assert_eq!(dev.stop(7).unwrap_err().kind(), io::ErrorKind::NotFound);
    assert_eq!(dev.events().count(), 0);
    dev.start(8, Duration::from_millis(1)).unwrap();
    // Its event, waited for: a fixed sleep can be outlasted by a late softirq.
    let deadline = Instant::now() + Duration::from_secs(3);
    while dev.info().unwrap().queued < 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(dev.info().unwrap().queued, 1);
    assert_eq!(dev.stop(8).unwrap(), Stopped::Expired);
    assert_eq!(dev.info().unwrap().queued, 0);
}

#[test]
fn blocking_iterator_in_order_never_early() {
    let dev = Device::open_blocking().unwrap();
    let t0 = now();
    // Absolute times from one reading: a stall between the starts cannot
    // change their order.
    for (id, ms) in [(1u64, 15u64), (2, 5), (3, 10)] {
        dev.start_spec(&sys::TimerSpec {
            id,
            value: t0 + ms * MS,
            flags: sys::TIMER_ABSTIME,
            ..Default::default()
        })
        .unwrap();
    }
    let events: Vec<_> = dev.events().take(3).map(Result::unwrap).collect();
    assert_eq!(events.iter().map(|e| e.id).collect::<Vec<_>>(), [2, 3, 1]);
    for e in &events {
        let ms = [0, 15, 5, 10][e.id as usize];
        assert!(e.due >= t0 + ms * MS, "{:?} early", e);
        assert!(e.fired >= e.due);
    }
}

#[test]
fn mio_source() {
    let mut dev = Device::open().unwrap();
    let mut poll = mio::Poll::new().unwrap();
    let mut events = mio::Events::with_capacity(4);
    poll.registry()
        .register(&mut dev, mio::Token(5), mio::Interest::READABLE)
        .unwrap();
    poll.poll(&mut events, Some(Duration::from_millis(10))).unwrap();
    assert!(events.is_empty());
    dev.start(42, Duration::from_millis(5)).unwrap();
    let t0 = Instant::now();
    while events.is_empty() && t0.elapsed() < Duration::from_secs(5) {
        poll.poll(&mut events, Some(Duration::from_secs(5))).unwrap();
    }
    let ev = events.iter().next().expect("no readiness");
    assert_eq!(ev.token(), mio::Token(5));
    assert!(ev.is_readable());
    let got: Vec<_> = dev.events().map(Result::unwrap).collect();
    assert_eq!(got.iter().map(|e| e.id).collect::<Vec<_>>(), [42]);
    poll.registry().deregister(&mut dev).unwrap();
}

/// `StreamExt::next()`, which futures-core alone lacks.
struct StreamNext<'a, S>(&'a mut S);

impl<S: futures_core::Stream + Unpin> std::future::Future for StreamNext<'_, S> {
    type Output = Option<S::Item>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut *self.0).poll_next(cx)
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn tokio_expiries_stream() {
    rt().block_on(async {
        let mut ex = Expiries::new(Device::open().unwrap()).unwrap();
        for id in 0..100u64 {
            ex.device()
                .start(id, Duration::from_millis(100 - id / 4))
                .unwrap();
        }
        let mut got = Vec::new();
        while got.len() < 50 {
            let e = tokio::time::timeout(Duration::from_secs(5), ex.next())
                .await
                .expect("lost")
                .unwrap();
            got.push(e);
        }
        // The rest through futures_core::Stream.
        while got.len() < 100 {
            let e = tokio::time::timeout(Duration::from_secs(5), StreamNext(&mut ex))
                .await
                .expect("lost");
            got.push(e.expect("stream ended").unwrap());
        }
        let mut ids: Vec<_> = got.iter().map(|e| e.id).collect();
        assert!(got.windows(2).all(|w| w[0].due <= w[1].due));
        ids.sort_unstable();
        assert_eq!(ids, (0..100).collect::<Vec<_>>());
        assert_eq!(ex.device().info().unwrap().pending, 0);
    });
}

#[test]
fn tokio_sleep() {
    rt().block_on(async {
        let wheel = Wheel::new().unwrap();
        let t0 = now();
        let start = Instant::now();
        let ev = wheel.sleep(Duration::from_millis(20)).unwrap().await.unwrap();
        assert!(start.elapsed() >= Duration::from_millis(20));
        assert!(ev.due >= t0 + 20 * MS);
        // Many at once, from many tasks: every one completes, none early.
        let mut tasks = Vec::new();
        for i in 0..500u64 {
            let t1 = now();
            let s = wheel.sleep(Duration::from_millis(1 + i % 50)).unwrap();
            tasks.push(tokio::spawn(async move { (i, t1, s.await) }));
        }
        for t in tasks {
            let (i, t1, ev) = tokio::time::timeout(Duration::from_secs(5), t)
                .await
                .expect("lost")
                .unwrap();
            let ev = ev.unwrap();
            assert!(ev.due >= t1 + (1 + i % 50) * MS, "{} early: {:?}", i, ev);
            assert!(ev.fired >= ev.due);
        }
        assert_eq!(wheel.device().info().unwrap().pending, 0);
    });
}

#[test]
fn tokio_sleep_dropped_or_reset() {
    rt().block_on(async {
        let wheel = Wheel::new().unwrap();
        let s = wheel.sleep(Duration::from_secs(10)).unwrap();
        assert_eq!(wheel.device().info().unwrap().pending, 1);
        // tokio::select!-style: the timeout wins, the dropped Sleep stops.
        assert!(tokio::time::timeout(Duration::from_millis(10), s).await.is_err());
        assert_eq!(wheel.device().info().unwrap().pending, 0);
        let mut s = wheel.sleep(Duration::from_secs(10)).unwrap();
        s.reset(Duration::from_millis(5)).unwrap();
        let ev = tokio::time::timeout(Duration::from_secs(5), s)
            .await
            .expect("reset lost")
            .unwrap();
        assert!(ev.due < now() + MS);
    });
}

#[test]
fn tokio_interval() {
    rt().block_on(async {
        let wheel = Wheel::new().unwrap();
        let res = wheel.device().info().unwrap().resolution_ns;
        let period = (10 * MS + res - 1) / res * res;
        let mut iv = wheel.interval(Duration::from_millis(10)).unwrap();
        let mut prev: Option<sys::Event> = None;
        for _ in 0..5 {
            let e = tokio::time::timeout(Duration::from_secs(5), iv.tick())
                .await
                .expect("lost")
                .unwrap();
            assert!(e.flags & sys::EVENT_PERIODIC != 0);
            if let Some(p) = prev {
                assert_eq!(e.due - p.due, (p.overrun + 1) * period);
            }
            prev = Some(e);
        }
        drop(iv);
        assert_eq!(wheel.device().info().unwrap().pending, 0);
    });
}
