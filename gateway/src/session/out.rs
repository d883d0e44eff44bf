//! The gateway → strategy half of one connection, shared by the io thread (session replies,
//! pre-trade rejects, keepalives) and the tracker thread (ExecutionReports).
//!
//! Both threads write whole SBE frames straight to the socket (a `dup` of the connection's file
//! descriptor, non-blocking). A `parking_lot` mutex (uncontended: ~20 ns) keeps frames whole
//! and numbers the application messages of the Recoverable flow (FIXP: implicit sequence
//! numbers, announced by Sequence and EstablishmentAck). If the kernel buffer is full the rest is
//! kept in a bounded backlog flushed on the next write or by [`SessionOut::flush`]; a strategy
//! that lets more than [`MAX_BACKLOG`] bytes pile up is cut off.

use std::io::{ErrorKind, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::Mutex;

/// Bytes of unsent frames after which the strategy is considered stuck and disconnected.
pub const MAX_BACKLOG: usize = 8 << 20;

struct Inner {
    stream: TcpStream,
    backlog: Vec<u8>,
    frame: Vec<u8>,
}

/// The shared writer of one strategy connection.
pub struct SessionOut {
    inner: Mutex<Inner>,
    /// Sequence number of the next application message; written only under `inner`'s lock
    /// (so frames and numbers stay in step), read without it.
    next_seq: AtomicU64,
    last_write_ns: AtomicU64,
    has_backlog: AtomicBool,
    closed: AtomicBool,
}

impl std::fmt::Debug for SessionOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOut")
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish()
    }
}

/// Whether a frame is an application message (sequenced) or a session message (not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// ExecutionReport, OrderCancelReject, BusinessMessageReject: takes the next sequence number.
    Application,
    /// Negotiation, establishment, Sequence, Terminate.
    Session,
}

impl SessionOut {
    /// Wraps the write side of a connection (`stream` is usually a `try_clone` of the socket;
    /// it should be non-blocking, with TCP_NODELAY).
    pub fn new(stream: TcpStream, now_ns: u64) -> Self {
        SessionOut {
            inner: Mutex::new(Inner {
                stream,
                backlog: Vec::new(),
                frame: Vec::with_capacity(512),
            }),
            next_seq: AtomicU64::new(1),
            last_write_ns: AtomicU64::new(now_ns),
            has_backlog: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        }
    }

    /// Sequence number the next application message will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq.load(Ordering::Relaxed)
    }

    /// Monotonic ns of the last write (for keepalives).
    pub fn last_write_ns(&self) -> u64 {
        self.last_write_ns.load(Ordering::Relaxed)
    }

    /// True once the connection failed or was closed; writes are then dropped.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Marks the writer closed (the session ended).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
        let inner = self.inner.lock();
        let _ = inner.stream.shutdown(std::net::Shutdown::Both);
    }

    /// Encodes one frame with `encode` (which appends a whole SOFH frame to the buffer it is
    /// given) and writes it. Returns false if the connection is closed or broken.
    pub fn send(&self, flow: Flow, now_ns: u64, encode: impl FnOnce(&mut Vec<u8>)) -> bool {
        if self.is_closed() {
            return false;
        }
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        inner.frame.clear();
        encode(&mut inner.frame);
        if flow == Flow::Application {
            self.next_seq.fetch_add(1, Ordering::Relaxed);
        }
        let ok = if inner.backlog.is_empty() {
            match write_some(&mut inner.stream, &inner.frame) {
                Ok(n) if n == inner.frame.len() => true,
                Ok(n) => {
                    inner.backlog.extend_from_slice(&inner.frame[n..]);
                    self.has_backlog.store(true, Ordering::Relaxed);
                    true
                }
                Err(_) => false,
            }
        } else {
            inner.backlog.extend_from_slice(&inner.frame);
            self.flush_locked(inner)
        };
        self.last_write_ns.store(now_ns, Ordering::Relaxed);
        if !ok || inner.backlog.len() > MAX_BACKLOG {
            self.closed.store(true, Ordering::Relaxed);
            let _ = inner.stream.shutdown(std::net::Shutdown::Both);
            return false;
        }
        true
    }

    /// Tries to write the backlog, if any. Cheap when there is none (one atomic load).
    pub fn flush(&self) {
        if !self.has_backlog.load(Ordering::Relaxed) || self.is_closed() {
            return;
        }
        let mut guard = self.inner.lock();
        if !self.flush_locked(&mut guard) {
            self.closed.store(true, Ordering::Relaxed);
        }
    }

    fn flush_locked(&self, inner: &mut Inner) -> bool {
        match write_some(&mut inner.stream, &inner.backlog) {
            Ok(n) => {
                inner.backlog.drain(..n);
                self.has_backlog
                    .store(!inner.backlog.is_empty(), Ordering::Relaxed);
                true
            }
            Err(_) => false,
        }
    }
}

/// Writes as much of `buf` as the socket takes without blocking.
fn write_some(stream: &mut TcpStream, buf: &[u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match stream.write(&buf[done..]) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}
