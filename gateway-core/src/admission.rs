//! Strategy-port admission, without I/O: whether an accepted connection is served or closed at
//! once ([`admit`]), how long the accept loop pauses after an accept error ([`AcceptBackoff`]),
//! when a repeated event is worth a log line ([`LogEvery`]), and when the memory a burst of
//! connections freed is given back to the operating system ([`TrimAfterBurst`]).
//!
//! The shell (`gateway`'s io thread) owns the listener, counts the open connections and passes
//! every time in as `now_ns` (monotonic nanoseconds). Nothing here is on the order path: these
//! run once per accept.

use std::sync::atomic::{AtomicU64, Ordering};

/// First pause after an accept error, in ms.
pub const ACCEPT_BACKOFF_MIN_MS: u64 = 1;
/// Longest pause between accept attempts while accept keeps failing, in ms.
pub const ACCEPT_BACKOFF_MAX_MS: u64 = 1_000;
/// At most one log line per this interval for a repeated event (accept errors, refused
/// connections), in ms.
pub const LOG_INTERVAL_MS: u64 = 1_000;

/// How many strategy connections the gateway serves at once (`[strategy]` section).
///
/// Each connection holds one descriptor (its reader and its writer share the socket) and a
/// 4 KiB read buffer until it is an established session that sends fast. The defaults stay
/// far under the usual soft limit of 1024 descriptors, with room for the exchange links, the
/// journal files and the metrics endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionLimits {
    /// Most strategy connections open at once, authenticated or not. Default 256.
    pub max_connections: usize,
    /// Most strategy connections open at once that have not completed Establish. Default 64.
    pub max_unauthenticated: usize,
}

impl Default for AdmissionLimits {
    fn default() -> Self {
        AdmissionLimits {
            max_connections: 256,
            max_unauthenticated: 64,
        }
    }
}

/// What to do with a connection just accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Serve it.
    Admit,
    /// Serve it and close the connection that has waited longest without completing
    /// Establish: a limit is reached, and connections that never authenticate must not keep a
    /// real strategy (whose handshake takes a millisecond) out. To keep a new session out an
    /// attacker would have to open `max_unauthenticated` connections within its handshake.
    AdmitEvictingOldest,
    /// Close it at once, unanswered: `max_connections` connections are open and all of them
    /// are established sessions.
    Refuse,
}

/// Decides on a connection just accepted, given the connections already open (`open`, of
/// which `unauthenticated` have not completed Establish). The new connection counts as
/// unauthenticated. Over a limit, the oldest unauthenticated connection makes room
/// ([`Admission::AdmitEvictingOldest`]); only when there is none is the new one refused.
pub fn admit(limits: AdmissionLimits, open: usize, unauthenticated: usize) -> Admission {
    let full = open >= limits.max_connections || unauthenticated >= limits.max_unauthenticated;
    if !full {
        Admission::Admit
    } else if unauthenticated > 0 && limits.max_unauthenticated > 0 {
        Admission::AdmitEvictingOldest
    } else {
        Admission::Refuse
    }
}

/// The accept loop's pause after an error (EMFILE, ENFILE, ENOBUFS, ENOMEM or any other):
/// [`ACCEPT_BACKOFF_MIN_MS`] doubling per consecutive error up to a ceiling, back to the
/// minimum after a successful accept (as tokio's and mini-redis' accept loops do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptBackoff {
    min_ms: u64,
    max_ms: u64,
    next_ms: u64,
}

impl Default for AcceptBackoff {
    fn default() -> Self {
        AcceptBackoff::new(ACCEPT_BACKOFF_MIN_MS, ACCEPT_BACKOFF_MAX_MS)
    }
}

impl AcceptBackoff {
    /// A backoff from `min_ms` (at least 1) doubling up to `max_ms` (at least `min_ms`), in ms.
    pub fn new(min_ms: u64, max_ms: u64) -> AcceptBackoff {
        let min_ms = min_ms.max(1);
        AcceptBackoff {
            min_ms,
            max_ms: max_ms.max(min_ms),
            next_ms: min_ms,
        }
    }

    /// An accept failed: how long to pause before the next attempt, in ms.
    pub fn on_error(&mut self) -> u64 {
        let pause = self.next_ms;
        self.next_ms = self.next_ms.saturating_mul(2).min(self.max_ms);
        pause
    }

    /// An accept succeeded: the next error pauses the minimum again.
    pub fn on_success(&mut self) {
        self.next_ms = self.min_ms;
    }
}

/// Rate limit of one repeated log line: at most one line per interval, each carrying how many
/// events happened since the previous line (itself included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEvery {
    interval_ns: u64,
    last_ns: Option<u64>,
    pending: u64,
}

impl LogEvery {
    /// At most one line per `interval_ms` (ms).
    pub fn new(interval_ms: u64) -> LogEvery {
        LogEvery {
            interval_ns: interval_ms.saturating_mul(1_000_000),
            last_ns: None,
            pending: 0,
        }
    }

    /// One event at `now_ns`: `Some(count)` when a line is due, `count` being the events since
    /// the last line, this one included; `None` when it is only counted.
    pub fn event(&mut self, now_ns: u64) -> Option<u64> {
        self.pending = self.pending.saturating_add(1);
        self.due(now_ns)
    }

    /// Events counted but not yet logged, if a line is due at `now_ns` (`None` otherwise):
    /// for a last line once the events stop.
    pub fn flush(&mut self, now_ns: u64) -> Option<u64> {
        if self.pending == 0 {
            return None;
        }
        self.due(now_ns)
    }

    fn due(&mut self, now_ns: u64) -> Option<u64> {
        let due = match self.last_ns {
            None => true,
            Some(last) => now_ns.saturating_sub(last) >= self.interval_ns,
        };
        if !due {
            return None;
        }
        self.last_ns = Some(now_ns);
        Some(std::mem::take(&mut self.pending))
    }
}

/// What the accept loop counts (gateway lifetime; read from any thread, `Relaxed`).
#[derive(Debug, Default)]
pub struct AdmissionCounters {
    refused: AtomicU64,
    accept_errors: AtomicU64,
    open: AtomicU64,
    limit: AtomicU64,
}

impl AdmissionCounters {
    /// Admission closed a connection: accepted and closed at once, or the oldest
    /// unauthenticated one closed to make room ([`Admission::AdmitEvictingOldest`]).
    pub fn count_refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// An accept failed.
    pub fn count_accept_error(&self) {
        self.accept_errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Connections admission closed so far (refused or evicted).
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Accept errors so far.
    pub fn accept_errors(&self) -> u64 {
        self.accept_errors.load(Ordering::Relaxed)
    }

    /// Publishes the strategy connections open now and the limit (`max_connections`).
    pub fn set_open(&self, open: usize, limit: usize) {
        let n = |v: usize| u64::try_from(v).unwrap_or(u64::MAX);
        self.open.store(n(open), Ordering::Relaxed);
        self.limit.store(n(limit), Ordering::Relaxed);
    }

    /// Strategy connections open and the limit, as last published.
    pub fn open(&self) -> (u64, u64) {
        (
            self.open.load(Ordering::Relaxed),
            self.limit.load(Ordering::Relaxed),
        )
    }
}

/// Connections that must have ended since the last trim before another is worth it.
pub const TRIM_MIN_CLOSED: u64 = 64;
/// How long no connection may have ended before the trim (the burst is over), in ms.
pub const TRIM_QUIET_MS: u64 = 1_000;

/// Decides when to give freed memory back to the operating system after a burst of
/// connections ended (glibc keeps what a thread freed in that thread's arena: without a trim,
/// the gateway's resident size stays at the peak number of connections it ever held).
///
/// Due once at least [`TRIM_MIN_CLOSED`] connections ended since the last trim and none
/// ended for [`TRIM_QUIET_MS`]: never during a burst, never for the ordinary coming and going
/// of sessions.
#[derive(Debug, Clone, Default)]
pub struct TrimAfterBurst {
    seen_closed: u64,
    pending: u64,
    last_close_ns: u64,
}

impl TrimAfterBurst {
    /// Given the connections ended so far (a running total) and the time, whether to trim
    /// now; true at most once per burst.
    pub fn poll(&mut self, closed_total: u64, now_ns: u64) -> bool {
        if closed_total != self.seen_closed {
            self.pending = self
                .pending
                .saturating_add(closed_total.saturating_sub(self.seen_closed));
            self.seen_closed = closed_total;
            self.last_close_ns = now_ns;
            return false;
        }
        let quiet = now_ns.saturating_sub(self.last_close_ns) >= TRIM_QUIET_MS * 1_000_000;
        if self.pending >= TRIM_MIN_CLOSED && quiet {
            self.pending = 0;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn admission_limits_both_counts() {
        let l = AdmissionLimits {
            max_connections: 3,
            max_unauthenticated: 2,
        };
        assert_eq!(admit(l, 0, 0), Admission::Admit);
        assert_eq!(admit(l, 1, 1), Admission::Admit);
        assert_eq!(admit(l, 2, 1), Admission::Admit);
        // Unauthenticated places taken: the oldest of them makes room.
        assert_eq!(admit(l, 2, 2), Admission::AdmitEvictingOldest);
        // All places taken, some by unauthenticated connections: the same.
        assert_eq!(admit(l, 3, 2), Admission::AdmitEvictingOldest);
        assert_eq!(admit(l, 3, 1), Admission::AdmitEvictingOldest);
        // All places taken by established sessions: refused.
        assert_eq!(admit(l, 3, 0), Admission::Refuse);
        let none = AdmissionLimits {
            max_connections: 0,
            max_unauthenticated: 0,
        };
        assert_eq!(admit(none, 0, 0), Admission::Refuse);
    }

    #[test]
    fn default_limits_fit_1024_descriptors() {
        let l = AdmissionLimits::default();
        assert!(l.max_unauthenticated <= l.max_connections);
        // One descriptor per connection (reader and writer share the socket), 128 for the
        // exchange links, journal files, metrics endpoint and the process itself.
        assert!(l.max_connections + 128 <= 1024);
    }

    #[test]
    fn backoff_doubles_to_the_ceiling_and_resets() {
        let mut b = AcceptBackoff::default();
        let pauses: Vec<u64> = (0..12).map(|_| b.on_error()).collect();
        assert_eq!(pauses, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000]);
        b.on_success();
        assert_eq!(b.on_error(), 1);
        assert_eq!(b.on_error(), 2);
    }

    #[test]
    fn backoff_bounds_are_sane() {
        let mut b = AcceptBackoff::new(0, 0);
        assert_eq!(b.on_error(), 1);
        assert_eq!(b.on_error(), 1);
        let mut b = AcceptBackoff::new(5, u64::MAX);
        for _ in 0..100 {
            b.on_error();
        }
        assert_eq!(b.on_error(), u64::MAX);
    }

    #[test]
    fn errors_of_one_second_of_backoff_are_few() {
        // A second of failing accepts with the default backoff: 10 attempts, not millions.
        let mut b = AcceptBackoff::default();
        let (mut t, mut n) = (0u64, 0u32);
        while t < 1_000 {
            t += b.on_error();
            n += 1;
        }
        assert_eq!(n, 10);
    }

    #[test]
    fn log_every_counts_between_lines() {
        let mut l = LogEvery::new(1_000);
        assert_eq!(l.event(10 * MS), Some(1), "the first event is logged");
        assert_eq!(l.event(11 * MS), None);
        assert_eq!(l.event(500 * MS), None);
        assert_eq!(l.flush(900 * MS), None, "not due yet");
        assert_eq!(l.event(1_010 * MS), Some(3));
        assert_eq!(l.flush(5_000 * MS), None, "nothing pending");
        assert_eq!(l.event(1_020 * MS), None);
        assert_eq!(l.flush(2_010 * MS), Some(1));
        assert_eq!(l.event(2_020 * MS), None, "flush started an interval");
    }

    #[test]
    fn a_storm_of_events_makes_one_line_per_interval() {
        let mut l = LogEvery::new(1_000);
        let mut lines = 0;
        let mut total = 0;
        // 1.6 million events over 10 s.
        for i in 0..1_600_000u64 {
            if let Some(n) = l.event(i * 6_250) {
                lines += 1;
                total += n;
            }
        }
        assert!(lines <= 11, "{lines} lines");
        total += l.flush(u64::MAX).unwrap_or(0);
        assert_eq!(total, 1_600_000);
    }

    #[test]
    fn counters_count() {
        let c = AdmissionCounters::default();
        c.count_refused();
        c.count_accept_error();
        c.count_accept_error();
        assert_eq!((c.refused(), c.accept_errors()), (1, 2));
    }

    #[test]
    fn memory_is_trimmed_once_after_a_burst_not_during_it_nor_for_a_few_sessions() {
        const MS: u64 = 1_000_000;
        let mut t = TrimAfterBurst::default();
        // A few sessions come and go: never.
        assert!(!t.poll(3, 0));
        assert!(!t.poll(3, 10_000 * MS));
        // A burst of closes, polled every 200 ms: not while it goes on.
        let mut now = 10_000 * MS;
        for closed in (100..=2_000).step_by(100) {
            now += 200 * MS;
            assert!(!t.poll(closed, now), "during the burst");
        }
        // Quiet for less than TRIM_QUIET_MS: not yet; then once.
        assert!(!t.poll(2_000, now + 999 * MS));
        assert!(t.poll(2_000, now + TRIM_QUIET_MS * MS));
        assert!(!t.poll(2_000, now + 5_000 * MS), "once per burst");
    }
}
