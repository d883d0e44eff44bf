//! Sans-I/O silence watch for the private WebSocket: a stream that stays open but delivers no
//! frame at all (pushes, replies and `pong` included) for `timeout` is dead even though the
//! socket looks fine. Times are monotonic nanoseconds (`crate::metrics::now_ns`), the same reading
//! the read loop already takes per frame.

use std::time::Duration;

/// When the last frame arrived and how long silence is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SilenceWatch {
    timeout_ns: u64,
    last_ns: u64,
}

impl SilenceWatch {
    /// Starts at `now_ns` (as if a frame had just arrived); `timeout` at least 1 ms.
    pub fn new(timeout: Duration, now_ns: u64) -> SilenceWatch {
        SilenceWatch {
            timeout_ns: u64::try_from(timeout.as_nanos())
                .unwrap_or(u64::MAX)
                .max(1_000_000),
            last_ns: now_ns,
        }
    }

    /// Records a frame read at `now_ns`.
    pub fn on_frame(&mut self, now_ns: u64) {
        self.last_ns = self.last_ns.max(now_ns);
    }

    /// `None` when the stream has been silent for the timeout at `now_ns`, else how long until
    /// it would be.
    pub fn remaining(&self, now_ns: u64) -> Option<Duration> {
        let silent_for = now_ns.saturating_sub(self.last_ns);
        (silent_for < self.timeout_ns).then(|| Duration::from_nanos(self.timeout_ns - silent_for))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn frames_push_the_deadline_back() {
        let mut w = SilenceWatch::new(Duration::from_millis(1_000), 0);
        assert_eq!(w.remaining(0), Some(Duration::from_millis(1_000)));
        assert_eq!(w.remaining(999 * MS), Some(Duration::from_millis(1)));
        w.on_frame(900 * MS);
        assert_eq!(w.remaining(1_000 * MS), Some(Duration::from_millis(900)));
        assert_eq!(w.remaining(1_900 * MS), None);
        assert_eq!(w.remaining(5_000 * MS), None);
    }

    #[test]
    fn an_older_reading_does_not_move_the_deadline_back() {
        let mut w = SilenceWatch::new(Duration::from_millis(100), 500 * MS);
        w.on_frame(400 * MS);
        assert_eq!(w.remaining(550 * MS), Some(Duration::from_millis(50)));
        // Readings before the start never count as silence.
        assert_eq!(w.remaining(0), Some(Duration::from_millis(100)));
    }

    #[test]
    fn zero_timeout_is_one_millisecond() {
        let w = SilenceWatch::new(Duration::ZERO, 0);
        assert_eq!(w.remaining(0), Some(Duration::from_millis(1)));
        assert_eq!(w.remaining(MS), None);
    }
}
