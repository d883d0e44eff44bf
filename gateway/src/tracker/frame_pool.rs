//! Reused buffers for exchange frames on their way from the io thread to the tracker.
//!
//! The io thread copies each text frame of the private WebSocket into a [`FrameBuf`] taken
//! from the [`FramePool`]; the tracker reads it, and dropping it sends the buffer back. A frame
//! therefore costs one copy and no allocation in steady state, and the WebSocket library's
//! read buffer is free again as soon as the frame is copied (holding its payload until the
//! tracker was done made it allocate a new read buffer every few dozen frames).
//!
//! Both ends are crossbeam array queues: taking and returning never allocate and never block.
//! A pool that is empty (more frames in flight than it holds) hands out a new buffer; a
//! buffer that finds the pool full is freed.

use crossbeam_channel::{Receiver, Sender};

/// How many buffers the pool holds (frames waiting for the tracker beyond this get new ones).
pub const FRAME_POOL_BUFFERS: usize = 512;
/// Initial capacity of each pooled buffer, bytes (a buffer grows to the largest frame it has
/// carried and keeps that size).
pub const FRAME_BUF_BYTES: usize = 1024;

/// The pool: cheap to clone (both ends are shared queues).
#[derive(Debug, Clone)]
pub struct FramePool {
    free: Receiver<Vec<u8>>,
    home: Sender<Vec<u8>>,
}

impl Default for FramePool {
    fn default() -> Self {
        FramePool::new(FRAME_POOL_BUFFERS, FRAME_BUF_BYTES)
    }
}

impl FramePool {
    /// A pool of `buffers` buffers of `bytes` capacity each, allocated now.
    pub fn new(buffers: usize, bytes: usize) -> Self {
        let (home, free) = crossbeam_channel::bounded(buffers.max(1));
        for _ in 0..buffers {
            let _ = home.try_send(Vec::with_capacity(bytes));
        }
        FramePool { free, home }
    }

    /// A pooled copy of `bytes`.
    pub fn copy(&self, bytes: &[u8]) -> FrameBuf {
        let mut buf = self.free.try_recv().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(bytes);
        FrameBuf {
            buf,
            home: self.home.clone(),
        }
    }
}

/// One frame's bytes; dropping it returns the buffer to its pool.
pub struct FrameBuf {
    buf: Vec<u8>,
    home: Sender<Vec<u8>>,
}

impl std::ops::Deref for FrameBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf
    }
}

impl std::fmt::Debug for FrameBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FrameBuf({})", String::from_utf8_lossy(&self.buf))
    }
}

impl Drop for FrameBuf {
    fn drop(&mut self) {
        let _ = self.home.try_send(std::mem::take(&mut self.buf));
    }
}

#[cfg(test)]
mod tests {
    use super::FramePool;

    #[test]
    fn a_buffer_goes_back_to_its_pool_and_is_reused() {
        let pool = FramePool::new(1, 16);
        let first = pool.copy(b"{\"a\":1}");
        assert_eq!(&*first, b"{\"a\":1}");
        let ptr = first.as_ptr();
        // The pool is empty while the only buffer is out: a new one is made.
        let second = pool.copy(b"xy");
        assert_ne!(second.as_ptr(), ptr);
        drop(first);
        drop(second); // the pool is full again: this one is freed
        let third = pool.copy(b"z");
        assert_eq!(third.as_ptr(), ptr, "the returned buffer is reused");
        assert_eq!(&*third, b"z");
    }
}
