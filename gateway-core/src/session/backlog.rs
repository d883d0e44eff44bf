//! The unsent output of one strategy connection: the bytes of whole SOFH frames the kernel did
//! not take yet, in order, with the position of the first frame boundary still to be sent.
//!
//! The writer (`gateway::session::out`) queues here what a non-blocking `write` left over and
//! hands [`Backlog::pending`] to the next `write`. Sent bytes are dropped from the front in O(1)
//! (an offset; the buffer is compacted only once the sent part is the larger half), so a reader
//! that lags by megabytes costs each write what it sends, not a move of the whole backlog.
//!
//! Knowing where the next frame starts lets a writer give up on a reader that does not read
//! ([`Backlog::truncate_after_partial_frame`]): it keeps only the rest of the frame the strategy
//! already has a part of, so a Terminate queued after it still arrives as a whole frame.

use codec::frame::MIN_FRAME_LEN;

/// A buffer above this capacity is given back to the allocator once emptied (bytes): a burst
/// for one slow reader does not stay allocated for the session's life.
pub const KEEP_CAPACITY: usize = 64 * 1024;

/// Unsent bytes of whole SOFH frames (the first possibly already partly sent).
#[derive(Debug, Default)]
pub struct Backlog {
    buf: Vec<u8>,
    /// Bytes of `buf` already sent.
    head: usize,
    /// Index in `buf` (≥ `head`) where the first frame not yet partly sent begins.
    boundary: usize,
}

impl Backlog {
    /// An empty backlog (allocates nothing).
    pub const fn new() -> Self {
        Backlog {
            buf: Vec::new(),
            head: 0,
            boundary: 0,
        }
    }

    /// Unsent bytes.
    pub fn len(&self) -> usize {
        self.buf.len() - self.head
    }

    /// Nothing is waiting to be sent.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes to send next, in order.
    pub fn pending(&self) -> &[u8] {
        self.buf.get(self.head..).unwrap_or(&[])
    }

    /// Queues `frames` (one or more whole SOFH frames, back to back) of which the first
    /// `written` bytes were sent already (`written` is 0 unless the backlog was empty: nothing
    /// may overtake queued bytes).
    pub fn queue(&mut self, frames: &[u8], written: usize) {
        let written = written.min(frames.len());
        if self.is_empty() {
            self.clear();
            // Where the first whole frame after the sent part starts.
            let mut pos = 0usize;
            while pos < written {
                pos = pos.saturating_add(frame_len_at(frames, pos));
            }
            self.buf
                .extend_from_slice(frames.get(written..).unwrap_or(&[]));
            self.boundary = pos.min(frames.len()) - written;
        } else {
            if self.head > 0 && self.head >= self.buf.len() / 2 {
                self.compact();
            }
            self.buf.extend_from_slice(frames);
        }
    }

    /// Drops the first `n` bytes of [`Backlog::pending`] (they were sent).
    pub fn consume(&mut self, n: usize) {
        self.head = self.head.saturating_add(n).min(self.buf.len());
        while self.boundary < self.head {
            self.boundary = self
                .boundary
                .saturating_add(frame_len_at(&self.buf, self.boundary));
        }
        if self.head == self.buf.len() {
            self.clear();
        }
    }

    /// Drops every unsent frame but the rest of the one already partly sent (none if the
    /// backlog starts at a frame boundary); returns the bytes dropped.
    pub fn truncate_after_partial_frame(&mut self) -> usize {
        let keep = self.boundary.min(self.buf.len());
        let dropped = self.buf.len() - keep;
        self.buf.truncate(keep);
        if self.head == self.buf.len() {
            self.clear();
        }
        dropped
    }

    /// Empties the backlog; a large buffer is freed.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.head = 0;
        self.boundary = 0;
        if self.buf.capacity() > KEEP_CAPACITY {
            self.buf = Vec::new();
        }
    }

    fn compact(&mut self) {
        self.buf.drain(..self.head);
        self.boundary -= self.head;
        self.head = 0;
    }
}

/// Length of the SOFH frame starting at `buf[pos..]`; the rest of `buf` when its header is not
/// there or not a frame's (never 0, so a walk always ends).
fn frame_len_at(buf: &[u8], pos: usize) -> usize {
    let rest = buf.len().saturating_sub(pos).max(1);
    match buf.get(pos..).and_then(|b| b.first_chunk::<4>()) {
        Some(h) => match usize::try_from(u32::from_be_bytes(*h)) {
            Ok(len) if len >= MIN_FRAME_LEN => len,
            _ => rest,
        },
        None => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::frame::{peek_frame, write_sofh, SOFH_LEN};

    /// A SOFH frame of `len` bytes whose payload bytes are all `tag`.
    fn frame(len: usize, tag: u8) -> Vec<u8> {
        let mut f = vec![tag; len];
        write_sofh(&mut f, len);
        f
    }

    fn frames(list: &[(usize, u8)]) -> Vec<u8> {
        list.iter().flat_map(|&(l, t)| frame(l, t)).collect()
    }

    /// Every frame of `bytes` parses and the tags are `tags`.
    fn tags_of(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut b = bytes;
        while let Ok(Some(len)) = peek_frame(b, 1 << 20) {
            out.push(b[SOFH_LEN]);
            b = &b[len..];
        }
        assert!(b.is_empty(), "{} bytes left that are not a frame", b.len());
        out
    }

    #[test]
    fn sent_bytes_leave_from_the_front_in_order() {
        let mut q = Backlog::new();
        q.queue(&frame(20, 1), 5);
        q.queue(&frame(30, 2), 0);
        assert_eq!(q.len(), 15 + 30);
        q.consume(10);
        assert_eq!(q.pending()[..5], frame(20, 1)[15..]);
        q.consume(35);
        assert!(q.is_empty());
        assert_eq!(q.pending(), b"");
    }

    #[test]
    fn a_slow_reader_is_cut_after_the_frame_it_has_part_of() {
        let mut q = Backlog::new();
        // A block of three frames of which 25 bytes (the first frame and 5 of the second) went.
        let block = frames(&[(20, 1), (30, 2), (40, 3)]);
        q.queue(&block, 25);
        q.queue(&frame(50, 4), 0);
        assert_eq!(q.truncate_after_partial_frame(), 40 + 50);
        assert_eq!(q.pending(), &block[25..50]);
        // A Terminate queued now is whole after what the strategy already has.
        q.queue(&frame(16, 9), 0);
        let mut seen = block[..25].to_vec();
        seen.extend_from_slice(q.pending());
        assert_eq!(tags_of(&seen), [1, 2, 9]);
    }

    #[test]
    fn at_a_boundary_nothing_partial_is_kept() {
        let mut q = Backlog::new();
        q.queue(&frames(&[(20, 1), (30, 2)]), 20);
        assert_eq!(q.truncate_after_partial_frame(), 30);
        assert!(q.is_empty());
        q.queue(&frames(&[(20, 1), (30, 2)]), 0);
        q.consume(20);
        assert_eq!(q.truncate_after_partial_frame(), 30);
        assert!(q.is_empty());
    }

    #[test]
    fn the_boundary_follows_consumption_across_frames() {
        let mut q = Backlog::new();
        q.queue(&frames(&[(20, 1), (30, 2), (40, 3), (50, 4)]), 0);
        // 20 + 30 + 10 bytes sent: the strategy has part of frame 3.
        q.consume(60);
        assert_eq!(q.truncate_after_partial_frame(), 50);
        assert_eq!(q.len(), 30);
        q.consume(30);
        assert!(q.is_empty());
    }

    #[test]
    fn compaction_keeps_content_and_large_buffers_are_freed() {
        let mut q = Backlog::new();
        let mut sent = Vec::new();
        let mut all = Vec::new();
        for i in 0..10_000u32 {
            let f = frame(20 + (i % 7) as usize, (i % 251) as u8);
            all.extend_from_slice(&f);
            q.queue(&f, 0);
            if i % 3 == 0 {
                // Less than is queued: the backlog grows while its front leaves.
                let n = q.len().min(37);
                sent.extend_from_slice(&q.pending()[..n]);
                q.consume(n);
            }
        }
        sent.extend_from_slice(q.pending());
        assert_eq!(sent, all);
        assert!(q.buf.capacity() > KEEP_CAPACITY);
        let n = q.len();
        q.consume(n);
        assert!(q.is_empty());
        assert_eq!(q.buf.capacity(), 0, "a large buffer is freed once empty");
    }

    #[test]
    fn garbage_lengths_cannot_loop() {
        let mut q = Backlog::new();
        q.queue(&[0u8; 10], 3);
        q.consume(2);
        assert_eq!(q.truncate_after_partial_frame(), 0);
        assert_eq!(q.len(), 5);
    }
}
