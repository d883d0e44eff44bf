//! Sans-I/O keepalive for the Bitget WebSocket: send the text frame `ping` at a fixed interval
//! and expect the text frame `pong` within a deadline (reference §2.2: the server drops a
//! connection that sends no `ping` for 2 minutes; 30 s is the recommended interval).
//!
//! The driver calls [`Keepalive::poll`] with the current time whenever it wakes (and at the
//! latest at [`Keepalive::next_deadline`]), sends `ping` when told to, and reports every `pong`
//! with [`Keepalive::on_pong`].

use std::time::{Duration, Instant};

/// The text frame the client sends.
pub const PING: &str = "ping";
/// The text frame the server answers with.
pub const PONG: &str = "pong";
/// Longest ping interval the gateway allows (reference §2.2 recommends ≤ 30 s).
pub const MAX_PING_INTERVAL: Duration = Duration::from_secs(30);

/// What the driver must do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepaliveAction {
    /// Nothing to do before `until`.
    Wait {
        /// The next instant at which [`Keepalive::poll`] has something to decide.
        until: Instant,
    },
    /// Send the text frame [`PING`] now (the state machine counts it as sent at `now`).
    SendPing,
    /// No `pong` arrived within the pong timeout: treat the link as dead and reconnect.
    Dead,
}

/// Ping/pong timing state of one WebSocket connection.
#[derive(Debug, Clone)]
pub struct Keepalive {
    interval: Duration,
    pong_timeout: Duration,
    /// When the last ping was sent (or the connection started, before the first ping).
    last_ping: Instant,
    /// `Some(sent_at)` while a ping is outstanding.
    awaiting_pong: Option<Instant>,
    dead: bool,
}

impl Keepalive {
    /// Starts the timers at `now` (the first ping is due at `now + interval`).
    ///
    /// `interval` is clamped to 1 ms..=[`MAX_PING_INTERVAL`]; `pong_timeout` to at least 1 ms.
    pub fn new(interval: Duration, pong_timeout: Duration, now: Instant) -> Keepalive {
        let min = Duration::from_millis(1);
        Keepalive {
            interval: interval.clamp(min, MAX_PING_INTERVAL),
            pong_timeout: pong_timeout.max(min),
            last_ping: now,
            awaiting_pong: None,
            dead: false,
        }
    }

    /// The ping interval in effect.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// True while a ping has been sent and its `pong` has not arrived.
    pub fn awaiting_pong(&self) -> bool {
        self.awaiting_pong.is_some()
    }

    /// The next instant at which [`poll`](Self::poll) would act: the pong deadline while a ping
    /// is outstanding (or the next ping if it comes first), otherwise the next ping.
    pub fn next_deadline(&self) -> Instant {
        let next_ping = self.last_ping + self.interval;
        match self.awaiting_pong {
            Some(sent) => next_ping.min(sent + self.pong_timeout),
            None => next_ping,
        }
    }

    /// Decides what to do at `now`. Once [`KeepaliveAction::Dead`] is returned it is returned
    /// forever.
    pub fn poll(&mut self, now: Instant) -> KeepaliveAction {
        if self.dead {
            return KeepaliveAction::Dead;
        }
        if let Some(sent) = self.awaiting_pong {
            if now >= sent + self.pong_timeout {
                self.dead = true;
                return KeepaliveAction::Dead;
            }
        }
        if now >= self.last_ping + self.interval {
            self.last_ping = now;
            // An older outstanding ping keeps its (earlier) deadline.
            if self.awaiting_pong.is_none() {
                self.awaiting_pong = Some(now);
            }
            return KeepaliveAction::SendPing;
        }
        KeepaliveAction::Wait {
            until: self.next_deadline(),
        }
    }

    /// Records a `pong` received at `now`: the outstanding ping (if any) is answered. A `pong`
    /// without a ping is harmless and ignored.
    pub fn on_pong(&mut self, _now: Instant) {
        self.awaiting_pong = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn pings_at_interval_and_waits_between() {
        let t0 = Instant::now();
        let mut k = Keepalive::new(ms(20_000), ms(5_000), t0);
        assert_eq!(
            k.poll(t0),
            KeepaliveAction::Wait {
                until: t0 + ms(20_000)
            }
        );
        assert_eq!(
            k.poll(t0 + ms(19_999)),
            KeepaliveAction::Wait {
                until: t0 + ms(20_000)
            }
        );
        assert_eq!(k.poll(t0 + ms(20_000)), KeepaliveAction::SendPing);
        assert!(k.awaiting_pong());
        // Now waiting for the pong deadline.
        assert_eq!(
            k.poll(t0 + ms(20_001)),
            KeepaliveAction::Wait {
                until: t0 + ms(25_000)
            }
        );
        k.on_pong(t0 + ms(20_010));
        assert!(!k.awaiting_pong());
        assert_eq!(
            k.poll(t0 + ms(26_000)),
            KeepaliveAction::Wait {
                until: t0 + ms(40_000)
            }
        );
        assert_eq!(k.poll(t0 + ms(40_000)), KeepaliveAction::SendPing);
    }

    #[test]
    fn missing_pong_is_dead_and_stays_dead() {
        let t0 = Instant::now();
        let mut k = Keepalive::new(ms(10_000), ms(3_000), t0);
        assert_eq!(k.poll(t0 + ms(10_000)), KeepaliveAction::SendPing);
        assert!(matches!(
            k.poll(t0 + ms(12_999)),
            KeepaliveAction::Wait { .. }
        ));
        assert_eq!(k.poll(t0 + ms(13_000)), KeepaliveAction::Dead);
        k.on_pong(t0 + ms(13_001));
        assert_eq!(k.poll(t0 + ms(13_002)), KeepaliveAction::Dead);
    }

    #[test]
    fn pong_timeout_longer_than_interval_keeps_first_deadline() {
        let t0 = Instant::now();
        let mut k = Keepalive::new(ms(1_000), ms(2_500), t0);
        assert_eq!(k.poll(t0 + ms(1_000)), KeepaliveAction::SendPing);
        assert_eq!(k.poll(t0 + ms(2_000)), KeepaliveAction::SendPing);
        assert_eq!(k.next_deadline(), t0 + ms(3_000));
        assert_eq!(k.poll(t0 + ms(3_000)), KeepaliveAction::SendPing);
        // The first ping (sent at 1 s) expires at 3.5 s.
        assert_eq!(k.poll(t0 + ms(3_500)), KeepaliveAction::Dead);
    }

    #[test]
    fn interval_is_clamped_to_30_s() {
        let t0 = Instant::now();
        let mut k = Keepalive::new(Duration::from_secs(120), ms(1_000), t0);
        assert_eq!(k.interval(), MAX_PING_INTERVAL);
        assert_eq!(k.poll(t0 + MAX_PING_INTERVAL), KeepaliveAction::SendPing);
    }

    #[test]
    fn late_wakeup_sends_one_ping_not_many() {
        let t0 = Instant::now();
        let mut k = Keepalive::new(ms(1_000), ms(10_000), t0);
        assert_eq!(k.poll(t0 + ms(5_500)), KeepaliveAction::SendPing);
        assert!(matches!(
            k.poll(t0 + ms(5_500)),
            KeepaliveAction::Wait { .. }
        ));
        assert_eq!(k.next_deadline(), t0 + ms(6_500));
    }
}
