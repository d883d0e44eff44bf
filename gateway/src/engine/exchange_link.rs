//! The private WebSocket as the io thread uses it: one shared write half for every session's
//! trade ops, a reader task that hands every text frame to the tracker, and the text `ping`
//! keepalive (reference §2.2).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use crossbeam_channel::Sender;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::exchange::keepalive::{Keepalive, KeepaliveAction};
use crate::exchange::ws::{WsSink, WsSource};
use crate::metrics::now_ns;
use crate::tracker::TrackerInput;

/// Why the link went down (logged once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkDown {
    /// The exchange closed the socket or it failed.
    Closed,
    /// No `pong` within the deadline.
    PongTimeout,
    /// A write failed.
    WriteFailed,
}

/// The shared private WebSocket of the io thread (single-threaded: `Cell`/`RefCell` and an
/// async mutex for the write half, which is held across the write's `await`).
pub struct ExchangeLink {
    /// Index of the account the connection belongs to (tagged on every frame to the tracker).
    account: usize,
    sink: tokio::sync::Mutex<WsSink>,
    /// Shared with [`crate::engine::Gateway::exchange_connected`].
    up: Arc<AtomicBool>,
    out: RefCell<BytesMut>,
    keepalive: RefCell<Keepalive>,
}

impl std::fmt::Debug for ExchangeLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExchangeLink")
            .field("up", &self.is_up())
            .finish()
    }
}

impl ExchangeLink {
    /// Wraps a logged-in, subscribed write half; `up` is set now and cleared when the link
    /// goes down.
    pub fn new(
        account: usize,
        sink: WsSink,
        up: Arc<AtomicBool>,
        ping_interval: Duration,
        pong_timeout: Duration,
    ) -> Self {
        up.store(true, Ordering::Relaxed);
        ExchangeLink {
            account,
            sink: tokio::sync::Mutex::new(sink),
            up,
            out: RefCell::new(BytesMut::with_capacity(64 * 1024)),
            keepalive: RefCell::new(Keepalive::new(ping_interval, pong_timeout, Instant::now())),
        }
    }

    /// True while the socket is usable.
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    fn down(&self, why: LinkDown) {
        if self.up.swap(false, Ordering::Relaxed) {
            tracing::error!(
                ?why,
                "exchange link down: new requests are answered NotApplied"
            );
        }
    }

    /// Writes one text frame. The payload is copied into a reused `BytesMut` region and frozen
    /// (tungstenite needs an owned payload; the region is reclaimed once written, so the steady
    /// state allocates nothing). Returns false (and marks the link down) if the write fails.
    pub async fn send_text(&self, json: &[u8]) -> bool {
        if !self.is_up() {
            return false;
        }
        let payload = {
            let mut out = self.out.borrow_mut();
            out.reserve(json.len());
            out.extend_from_slice(json);
            out.split().freeze()
        };
        let Ok(text) = Utf8Bytes::try_from(payload) else {
            return false;
        };
        let mut sink = self.sink.lock().await;
        match sink.send(Message::Text(text)).await {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(error = %e, "exchange write failed");
                self.down(LinkDown::WriteFailed);
                false
            }
        }
    }

    /// Reads the socket until it closes: `pong` feeds the keepalive, every other text frame goes
    /// to the tracker with its read time.
    pub async fn read_loop(
        &self,
        mut source: WsSource,
        early: Vec<Message>,
        tracker: Sender<TrackerInput>,
    ) {
        for m in early {
            self.on_message(m, &tracker);
        }
        while let Some(m) = source.next().await {
            match m {
                Ok(Message::Close(frame)) => {
                    tracing::warn!(?frame, "exchange sent Close");
                    break;
                }
                Ok(m) => self.on_message(m, &tracker),
                Err(e) => {
                    tracing::error!(error = %e, "exchange read failed");
                    break;
                }
            }
            if !self.is_up() {
                break;
            }
        }
        self.down(LinkDown::Closed);
        let _ = self.sink.lock().await.close().await;
    }

    fn on_message(&self, m: Message, tracker: &Sender<TrackerInput>) {
        if let Message::Text(t) = m {
            let t_read_ns = now_ns();
            if t.as_str() == "pong" {
                self.keepalive.borrow_mut().on_pong(Instant::now());
                return;
            }
            let _ = tracker.send(TrackerInput::Frame {
                account: self.account,
                text: t.into(),
                t_read_ns,
            });
        }
    }

    /// Sends `ping` on schedule and watches for `pong`, until the link goes down. Each ping
    /// first takes a token with `acquire(now_ns)`, which answers `Err(ready_at_ns)` when the
    /// connection's rate budget has none yet.
    pub async fn keepalive_loop(&self, acquire: impl Fn(u64) -> Result<(), u64>) {
        loop {
            let deadline = self.keepalive.borrow().next_deadline();
            tokio::time::sleep_until(deadline.into()).await;
            if !self.is_up() {
                return;
            }
            let action = self.keepalive.borrow_mut().poll(Instant::now());
            match action {
                KeepaliveAction::SendPing => {
                    loop {
                        let now = now_ns();
                        match acquire(now) {
                            Ok(()) => break,
                            Err(at) => {
                                let wait = at.saturating_sub(now).max(100_000);
                                tokio::time::sleep(Duration::from_nanos(wait)).await;
                            }
                        }
                    }
                    let mut sink = self.sink.lock().await;
                    if sink.send(Message::text("ping")).await.is_err() {
                        self.down(LinkDown::WriteFailed);
                        return;
                    }
                }
                KeepaliveAction::Dead => {
                    self.down(LinkDown::PongTimeout);
                    return;
                }
                _ => {}
            }
        }
    }
}
