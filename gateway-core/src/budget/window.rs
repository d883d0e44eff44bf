//! One bucket of the rate budget: at most `limit` sends in any window of `window_ns`
//! (a sliding window over the last `limit` send times, kept in a fixed ring). With the window
//! a little longer than a second this is stricter than the venue's token bucket (capacity
//! `limit`, refill `limit`/s) and its fixed per-second frame count, even when the venue sees
//! the sends with some jitter. Sans-I/O: every call takes `now` (monotonic ns).

/// A sliding-window bucket; `limit == 0` means unlimited.
#[derive(Debug, Clone)]
pub struct Window {
    limit: u32,
    window_ns: u64,
    /// Send times, oldest at `head`; `len` of them are valid.
    ring: Box<[u64]>,
    head: usize,
    len: usize,
}

impl Window {
    /// A bucket of `limit` sends per `window_ns` (0 = unlimited).
    pub fn new(limit: u32, window_ns: u64) -> Window {
        Window {
            limit,
            window_ns,
            ring: vec![0; limit as usize].into_boxed_slice(),
            head: 0,
            len: 0,
        }
    }

    /// Sends allowed per window (0 = unlimited).
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Forgets the sends older than the window.
    fn expire(&mut self, now: u64) {
        while self.len > 0 {
            let t = self.ring.get(self.head).copied().unwrap_or(0);
            if t.saturating_add(self.window_ns) > now {
                break;
            }
            self.head = (self.head + 1) % self.ring.len().max(1);
            self.len -= 1;
        }
    }

    /// Tokens left at `now` (`u32::MAX` when unlimited).
    pub fn remaining(&mut self, now: u64) -> u32 {
        if self.limit == 0 {
            return u32::MAX;
        }
        self.expire(now);
        self.limit - self.len as u32
    }

    /// True if a send that must leave `reserve` tokens untouched may go at `now`.
    pub fn can_take(&mut self, now: u64, reserve: u32) -> bool {
        self.limit == 0 || self.remaining(now) > reserve.min(self.limit.saturating_sub(1))
    }

    /// Records a send at `now` (call only after [`Window::can_take`]; a full ring drops its
    /// oldest entry).
    pub fn take(&mut self, now: u64) {
        if self.limit == 0 {
            return;
        }
        self.expire(now);
        let cap = self.ring.len();
        if self.len == cap {
            self.head = (self.head + 1) % cap;
            self.len -= 1;
        }
        let ix = (self.head + self.len) % cap;
        if let Some(slot) = self.ring.get_mut(ix) {
            *slot = now;
        }
        self.len += 1;
    }

    /// The earliest time ≥ `now` at which [`Window::can_take`] with `reserve` holds.
    pub fn ready_at(&mut self, now: u64, reserve: u32) -> u64 {
        if self.can_take(now, reserve) {
            return now;
        }
        // Tokens free up as the oldest sends leave the window; need `len - (limit - reserve - 1)`
        // of them to leave.
        let keep = self.limit.saturating_sub(1).min(reserve);
        let must_leave = self.len - (self.limit - keep - 1) as usize;
        let ix = (self.head + must_leave - 1) % self.ring.len().max(1);
        let t = self.ring.get(ix).copied().unwrap_or(now);
        t.saturating_add(self.window_ns).max(now)
    }

    /// When the bucket is full again (`now` if it is).
    pub fn full_at(&mut self, now: u64) -> u64 {
        if self.limit == 0 {
            return now;
        }
        self.expire(now);
        if self.len == 0 {
            return now;
        }
        let ix = (self.head + self.len - 1) % self.ring.len().max(1);
        let t = self.ring.get(ix).copied().unwrap_or(now);
        t.saturating_add(self.window_ns).max(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn limit_per_window_then_refill_as_sends_leave() {
        let mut w = Window::new(3, S);
        for t in [0, 10, 20] {
            assert!(w.can_take(t, 0));
            w.take(t);
        }
        assert!(!w.can_take(30, 0));
        assert_eq!(w.remaining(30), 0);
        assert_eq!(w.ready_at(30, 0), S);
        assert!(!w.can_take(S - 1, 0));
        assert!(w.can_take(S, 0));
        assert_eq!(w.remaining(S + 10), 2);
        assert_eq!(w.full_at(S + 10), S + 20);
        assert_eq!(w.remaining(S + 20), 3);
        assert_eq!(w.full_at(S + 20), S + 20);
    }

    #[test]
    fn reserve_is_left_for_others() {
        let mut w = Window::new(10, S);
        let mut n = 0;
        while w.can_take(0, 2) {
            w.take(0);
            n += 1;
        }
        assert_eq!(n, 8);
        // The reserve still lets two cancels through.
        assert!(w.can_take(0, 0));
        w.take(0);
        w.take(0);
        assert!(!w.can_take(0, 0));
        // New orders wait until three sends leave; a cancel until one does.
        assert_eq!(w.ready_at(5, 2), S);
        assert_eq!(w.ready_at(5, 0), S);
    }

    #[test]
    fn ready_at_counts_the_sends_that_must_leave() {
        let mut w = Window::new(4, S);
        for t in [0, 100, 200, 300] {
            w.take(t);
        }
        assert_eq!(w.ready_at(400, 0), S);
        assert_eq!(w.ready_at(400, 1), S + 100);
        assert_eq!(w.ready_at(400, 2), S + 200);
        // The reserve never takes the last token: a limit-1 bucket always admits one.
        let mut one = Window::new(1, S);
        assert!(one.can_take(0, 5));
    }

    #[test]
    fn unlimited_never_refuses_and_clock_going_back_is_safe() {
        let mut u = Window::new(0, S);
        for _ in 0..1000 {
            assert!(u.can_take(0, 3));
            u.take(0);
        }
        assert_eq!(u.remaining(0), u32::MAX);
        let mut w = Window::new(2, S);
        w.take(5 * S);
        w.take(5 * S);
        assert!(!w.can_take(S, 0));
        assert_eq!(w.ready_at(S, 0), 6 * S);
        assert!(w.can_take(6 * S, 0));
    }

    #[test]
    fn any_window_holds_at_most_limit_sends() {
        // A greedy sender at 1 ms steps never puts more than `limit` sends in a window.
        let mut w = Window::new(10, S + S / 10);
        let mut sent = Vec::new();
        for ms in 0..5_000u64 {
            let now = ms * 1_000_000;
            if w.can_take(now, 0) {
                w.take(now);
                sent.push(now);
            }
        }
        for (i, t) in sent.iter().enumerate() {
            let within = sent[i..].iter().filter(|u| **u < t + S + S / 10).count();
            assert!(within <= 10);
        }
        assert!(sent.len() >= 40);
    }
}
