//! The private WebSocket as the io thread uses it: one shared write half for every session's
//! trade ops, a reader task that hands every text frame to the tracker, and the text `ping`
//! keepalive plus the silence watch (reference §2.2). When the link fails it is marked down
//! once and its supervisor ([`super::reconnect`]) is woken; the supervisor swaps in a new
//! write half with [`ExchangeLink::replace_sink`], so the `ExchangeLink` itself lives forever.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::exchange::keepalive::{Keepalive, KeepaliveAction};
use crate::exchange::silence::SilenceWatch;
use crate::exchange::ws::{ControlReply, WsSink, WsSource};
use crate::metrics::now_ns;
use crate::tracker::frame_pool::FramePool;
use crate::tracker::port::TrackerTx;
use crate::tracker::TrackerInput;

/// Bitget's service-upgrade notice code: the socket will be dropped soon (reference §1, §2).
pub const UPGRADE_NOTICE_CODE: u32 = 30033;

/// Why the link went down (logged once per event, counted per account).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkDown {
    /// The exchange closed the socket or it failed.
    Closed,
    /// No `pong` within the deadline.
    PongTimeout,
    /// A write failed.
    WriteFailed,
    /// The exchange announced a service upgrade (`30033`): reconnect before it drops us.
    UpgradeNotice,
    /// No frame at all (pushes, replies, `pong`) within the silence timeout.
    Silent,
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
    ping_interval: Duration,
    pong_timeout: Duration,
    silence: Cell<SilenceWatch>,
    silence_timeout: Duration,
    /// Why the current connection failed (`None` while it is healthy).
    failed: Cell<Option<LinkDown>>,
    /// Wakes the supervisor when `failed` is set.
    wake: tokio::sync::Notify,
    /// Buffers for the frames handed to the tracker.
    frames: FramePool,
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
    /// goes down. `silence_timeout`: no frame at all for that long marks the link down.
    pub fn new(
        account: usize,
        sink: WsSink,
        up: Arc<AtomicBool>,
        ping_interval: Duration,
        pong_timeout: Duration,
        silence_timeout: Duration,
    ) -> Self {
        up.store(true, Ordering::Relaxed);
        ExchangeLink {
            account,
            sink: tokio::sync::Mutex::new(sink),
            up,
            out: RefCell::new(BytesMut::with_capacity(64 * 1024)),
            keepalive: RefCell::new(Keepalive::new(ping_interval, pong_timeout, Instant::now())),
            ping_interval,
            pong_timeout,
            silence: Cell::new(SilenceWatch::new(silence_timeout, now_ns())),
            silence_timeout,
            failed: Cell::new(None),
            wake: tokio::sync::Notify::new(),
            frames: FramePool::default(),
        }
    }

    /// True while the socket is usable (for the primary link: also reconciled after a
    /// reconnect).
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Marks the current connection failed (first cause wins) and wakes the supervisor.
    pub(super) fn down(&self, why: LinkDown) {
        if self.failed.get().is_none() {
            self.failed.set(Some(why));
            self.up.store(false, Ordering::Relaxed);
            self.wake.notify_one();
        }
    }

    /// Why the current connection failed, if it has.
    pub(super) fn failed(&self) -> Option<LinkDown> {
        self.failed.get()
    }

    /// Waits until the current connection fails; returns why.
    pub(super) async fn wait_down(&self) -> LinkDown {
        loop {
            if let Some(why) = self.failed.get() {
                return why;
            }
            self.wake.notified().await;
        }
    }

    /// Opens the link for trade ops (after a reconnect; for the primary link once reconciled).
    /// Does nothing if the new connection has already failed.
    pub(super) fn set_up(&self) {
        if self.failed.get().is_none() {
            self.up.store(true, Ordering::Relaxed);
        }
    }

    /// Installs the write half of a new connection (the link stays closed for trade ops until
    /// [`set_up`](Self::set_up)), resets the keepalive and silence timers and clears the
    /// failure; the old write half is closed (bounded by `close_within`).
    pub(super) async fn replace_sink(&self, sink: WsSink, close_within: Duration) {
        let mut old = {
            let mut guard = self.sink.lock().await;
            std::mem::replace(&mut *guard, sink)
        };
        let _ = tokio::time::timeout(close_within, old.close()).await;
        *self.keepalive.borrow_mut() =
            Keepalive::new(self.ping_interval, self.pong_timeout, Instant::now());
        self.silence
            .set(SilenceWatch::new(self.silence_timeout, now_ns()));
        self.failed.set(None);
    }

    /// Closes the current write half (bounded by `within`), e.g. after a `30033` notice or a
    /// silent stream whose socket is still open.
    pub(super) async fn close_sink(&self, within: Duration) {
        let _ = tokio::time::timeout(within, async {
            let _ = self.sink.lock().await.close().await;
        })
        .await;
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
                tracing::warn!(error = %e, "exchange write failed");
                self.down(LinkDown::WriteFailed);
                false
            }
        }
    }

    /// Reads the socket until it closes or the link fails: `pong` feeds the keepalive, a
    /// `30033` notice marks the link down, every other text frame goes to the tracker with its
    /// read time. Every frame feeds the silence watch.
    pub async fn read_loop(&self, mut source: WsSource, early: Vec<Message>, tracker: TrackerTx) {
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
                    tracing::warn!(error = %e, "exchange read failed");
                    break;
                }
            }
            if self.failed.get().is_some() {
                return;
            }
        }
        self.down(LinkDown::Closed);
    }

    fn on_message(&self, m: Message, tracker: &TrackerTx) {
        let t_read_ns = now_ns();
        let mut w = self.silence.get();
        w.on_frame(t_read_ns);
        self.silence.set(w);
        if let Message::Text(t) = m {
            if t.as_str() == "pong" {
                self.keepalive.borrow_mut().on_pong(Instant::now());
                return;
            }
            if is_upgrade_notice(t.as_str()) {
                tracing::warn!(frame = t.as_str(), "exchange service-upgrade notice");
                self.down(LinkDown::UpgradeNotice);
                return;
            }
            // Copied into a pooled buffer, so that the message (and with it the WebSocket
            // library's read buffer) is free again now: see `frame_pool`.
            let _ = tracker.send(TrackerInput::Frame {
                account: self.account,
                text: self.frames.copy(t.as_bytes()),
                t_read_ns,
            });
        }
    }

    /// Sends `ping` on schedule, watches for `pong` and for silence, until the link fails.
    /// Each ping first takes a token with `acquire(now_ns)`, which answers `Err(ready_at_ns)`
    /// when the connection's rate budget has none yet.
    pub async fn keepalive_loop(&self, acquire: impl Fn(u64) -> Result<(), u64>) {
        loop {
            if self.failed.get().is_some() {
                return;
            }
            let Some(quiet_left) = self.silence.get().remaining(now_ns()) else {
                self.down(LinkDown::Silent);
                return;
            };
            let deadline = self
                .keepalive
                .borrow()
                .next_deadline()
                .min(Instant::now() + quiet_left);
            tokio::time::sleep_until(deadline.into()).await;
            if self.failed.get().is_some() {
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
                KeepaliveAction::Wait { .. } => {}
            }
        }
    }
}

/// True for Bitget's `{"event":"error","code":30033,..}` service-upgrade notice. Only frames
/// that start as an error event are parsed (trade-op replies and pushes are not).
pub fn is_upgrade_notice(text: &str) -> bool {
    text.starts_with(r#"{"event":"error""#)
        && !text.contains(r#""id""#)
        && matches!(
            crate::exchange::ws::parse_control(text),
            Ok(ControlReply::Error {
                code: UPGRADE_NOTICE_CODE,
                ..
            })
        )
}

#[cfg(test)]
mod tests {
    use super::is_upgrade_notice;

    #[test]
    fn upgrade_notice_is_recognised_and_nothing_else() {
        assert!(is_upgrade_notice(
            r#"{"event":"error","code":30033,"msg":"The service will be upgraded soon, please reconnect"}"#
        ));
        assert!(is_upgrade_notice(
            r#"{"event":"error","code":"30033","msg":""}"#
        ));
        assert!(!is_upgrade_notice(
            r#"{"event":"error","code":30007,"msg":"over limit"}"#
        ));
        assert!(!is_upgrade_notice(
            r#"{"event":"error","id":"7","code":"40010","msg":"Request timed out"}"#
        ));
        assert!(!is_upgrade_notice(
            r#"{"arg":{"topic":"order"},"data":[{"code":30033}]}"#
        ));
        assert!(!is_upgrade_notice(r#"{"event":"error","code":30033"#));
    }
}
