//! The per-connection send-path part of the faults: frames held back (delays, the reorder
//! window) and pushes dropped or written twice.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use super::model::ConnFaults;

/// Frames a connection holds back, with the time each is due.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    delayed: BTreeMap<(Instant, u64), String>,
    seq: u64,
    /// A push waiting for the next one (reorder), and when it must go out anyway.
    held: Option<(Instant, String)>,
}

impl Outbox {
    fn delay(&mut self, due: Instant, frame: String) {
        self.seq += 1;
        self.delayed.insert((due, self.seq), frame);
    }

    /// Applies the push faults to one push; returns the frames to write now.
    pub(crate) fn on_push(&mut self, f: ConnFaults, push: String, now: Instant) -> Vec<String> {
        if f.paused || f.silent {
            return Vec::new();
        }
        let mut ready = Vec::with_capacity(2);
        let copies = if f.duplicate { 2 } else { 1 };
        for _ in 0..copies {
            let frame = push.clone();
            if f.reorder_window_ms > 0 {
                match self.held.take() {
                    Some((_, held)) => {
                        ready.push(frame);
                        ready.push(held);
                    }
                    None => {
                        self.held = Some((now + Duration::from_millis(f.reorder_window_ms), frame));
                    }
                }
            } else {
                ready.push(frame);
            }
        }
        self.delay_or_now(f.push_delay_ms, ready, now)
    }

    /// Applies the reply delay to the frames answering one request; returns those to write now.
    pub(crate) fn on_reply(
        &mut self,
        f: ConnFaults,
        frames: Vec<String>,
        now: Instant,
    ) -> Vec<String> {
        if f.silent {
            return Vec::new();
        }
        self.delay_or_now(f.reply_delay_ms, frames, now)
    }

    fn delay_or_now(&mut self, ms: u64, frames: Vec<String>, now: Instant) -> Vec<String> {
        if ms == 0 {
            return frames;
        }
        let due = now + Duration::from_millis(ms);
        for frame in frames {
            self.delay(due, frame);
        }
        Vec::new()
    }

    /// When the next held frame is due.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        let d = self.delayed.keys().next().map(|k| k.0);
        let h = self.held.as_ref().map(|h| h.0);
        match (d, h) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The frames due at `now`, in order.
    pub(crate) fn take_due(&mut self, now: Instant) -> Vec<String> {
        let mut out = Vec::new();
        if self.held.as_ref().is_some_and(|h| h.0 <= now) {
            if let Some((_, f)) = self.held.take() {
                out.push(f);
            }
        }
        while let Some(entry) = self.delayed.first_entry() {
            if entry.key().0 > now {
                break;
            }
            out.push(entry.remove());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reorder_swaps_pairs_and_flushes_a_lone_push() {
        let mut o = Outbox::default();
        let f = ConnFaults {
            reorder_window_ms: 100,
            ..ConnFaults::default()
        };
        let t = Instant::now();
        assert!(o.on_push(f, "a".into(), t).is_empty());
        assert_eq!(o.on_push(f, "b".into(), t), vec!["b", "a"]);
        assert!(o.on_push(f, "c".into(), t).is_empty());
        assert!(o.take_due(t).is_empty());
        let due = o.next_due().unwrap();
        assert_eq!(o.take_due(due), vec!["c"]);
        assert_eq!(o.next_due(), None);
    }

    #[test]
    fn pause_drops_duplicate_doubles_delay_holds() {
        let mut o = Outbox::default();
        let t = Instant::now();
        let paused = ConnFaults {
            paused: true,
            ..ConnFaults::default()
        };
        assert!(o.on_push(paused, "x".into(), t).is_empty());
        assert_eq!(o.next_due(), None);
        let dup = ConnFaults {
            duplicate: true,
            ..ConnFaults::default()
        };
        assert_eq!(o.on_push(dup, "y".into(), t), vec!["y", "y"]);
        let slow = ConnFaults {
            push_delay_ms: 50,
            ..ConnFaults::default()
        };
        assert!(o.on_push(slow, "z".into(), t).is_empty());
        assert!(o.on_reply(slow, vec!["r".into()], t) == vec!["r"]);
        assert_eq!(o.take_due(t + Duration::from_millis(50)), vec!["z"]);
        let silent = ConnFaults {
            silent: true,
            ..ConnFaults::default()
        };
        assert!(o.on_push(silent, "p".into(), t).is_empty());
        assert!(o.on_reply(silent, vec!["pong".into()], t).is_empty());
        assert_eq!(o.next_due(), None);
    }
}
