//! The gateway → strategy writer of one session, shared by the io thread (session replies,
//! pre-trade rejects, keepalives) and the tracker thread (ExecutionReports).
//!
//! A session's writer lives from its first establishment for the gateway's life (FIXP
//! recoverable flow): a connection attaches its socket at Establish and detaches it when it
//! ends. Application messages (`Flow::Application`) are numbered from 1 across reconnects and
//! journaled ([`crate::journal`]): with a journal file, each record is appended to the file
//! before its frame is written to the socket (write-ahead: a SIGKILL can never leave the
//! strategy holding a sequence number the journal lacks); without one, records go to an
//! in-memory buffer the journal thread moves to memory. While no socket is attached they are
//! numbered and journaled but not written, and the strategy gets them back with a
//! RetransmitRequest.
//!
//! Both threads write whole SBE frames straight to the socket (the connection's one descriptor,
//! shared with the io thread's reader through an `Arc`, non-blocking). A `parking_lot` mutex (uncontended: ~20 ns) keeps frames whole
//! and numbers them; the journal records are buffered under a second one (lock order: writer,
//! then journal), which the io thread's ClOrdID records take without waiting on a report's
//! socket write. If the kernel buffer is full the rest is kept
//! in a bounded [`Backlog`] flushed on the next write or by [`SessionOut::flush`]. A strategy
//! that lets more than the limit (`[strategy] max_backlog_bytes`, default [`MAX_BACKLOG`]) pile
//! up is cut off: the unsent frames are dropped (they stay journaled: a RetransmitRequest after
//! reconnecting recovers them), a Terminate is queued after the frame it already has part of,
//! and the connection drains for at most [`DRAIN_GRACE_MS`] before it closes
//! ([`SessionOut::is_draining`]). The cut is logged at WARN with the backlog.

mod journaling;
mod retransmit;

use std::io::{ErrorKind, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::Arc;

use codec::sbe::{RetransmitRejectCode, Terminate, TerminationCode, Text};
use gateway_core::session::backlog::Backlog;
use parking_lot::Mutex;

use crate::journal::segments::Roller;
use crate::journal::store::Store;
use gateway_core::journal::durability::{JournalOp, StorageFault};
use gateway_core::journal::record::{self, Origin};
use gateway_core::journal::write_ahead::WriteAhead;
use gateway_core::session::retransmit::PreviousEpoch;

/// Default bytes of unsent frames after which the strategy is considered stuck and cut off
/// (`[strategy] max_backlog_bytes`).
pub const MAX_BACKLOG: usize = 8 << 20;

/// How long a connection cut off for its backlog may take to read the rest of the frame it had
/// part of and the Terminate, in ms, before its socket is closed regardless.
pub const DRAIN_GRACE_MS: u64 = 1_000;

/// The socket of one strategy connection, shared by its reader (the io thread) and the
/// session's writer: one descriptor per connection.
pub type SharedSocket = Arc<TcpStream>;

/// Most messages one RetransmitRequest may ask for (FIXP lets the server bound it; about
/// 2.5 MB of ExecutionReports, well under [`MAX_BACKLOG`]): the core's rule.
pub use gateway_core::session::retransmit::MAX_RETRANSMIT_COUNT;

struct Inner {
    stream: Option<SharedSocket>,
    backlog: Backlog,
    frame: Vec<u8>,
    /// The connection is ending: only the backlog (ending with a Terminate) is still written to
    /// `stream`; frames numbered from now on are journaled only.
    draining: bool,
    /// Why it is draining: cut off for its backlog (true), or a session rollover's Terminate
    /// (false).
    cut_off: bool,
    /// Frames are queued, not written, until [`SessionOut::uncork`] writes them at once (the io
    /// thread works through frames a strategy pipelined: one `send` for their answers).
    corked: bool,
}

/// The journal side, under its own lock: the io thread journals a new order's ClOrdID on the
/// order path and must not wait while the tracker holds the writer's lock across a socket
/// write (a tracker preempted there, by the strategy its write just woke, would stall it).
struct Journal {
    store: Store,
    /// The records encoded and not yet in the store, the storage-fault state and the
    /// committed sequence number (`gateway_core::journal::write_ahead`). With a journal file
    /// (written ahead) its buffer is empty between calls, except while a fault holds appends.
    wa: WriteAhead,
}

/// The shared writer of one strategy session.
pub struct SessionOut {
    session_id: u64,
    inner: Mutex<Inner>,
    journal: Mutex<Journal>,
    keeps: bool,
    /// Records reach the store before their frame reaches the socket (a journal file: what the
    /// strategy was sent survives a SIGKILL, so a restart never numbers a different message
    /// with a sequence number the strategy already has).
    write_ahead: bool,
    /// Sequence number of the next application message; written only under `inner`'s lock
    /// (so frames and numbers stay in step), read without it.
    next_seq: AtomicU64,
    /// Sequence number after the last application message in the journal: what the strategy
    /// may be told (EstablishmentAck, Sequence, the range a RetransmitRequest may ask).
    /// `next_seq` unless a storage fault holds appends (the held messages are numbered from
    /// here on and reach the strategy once the journal takes them).
    committed_seq: AtomicU64,
    /// The journal's failing state for lock-free readers (the io thread's decision, metrics:
    /// `gateway_core::journal::durability::Failing::pack`; 0 while healthy).
    fault: AtomicU16,
    /// Journal errors seen, by `StorageFault::index` (metrics:
    /// `bgw_journal_errors_total`).
    journal_errors: [AtomicU64; StorageFault::ALL.len()],
    /// The session's epoch (session rollover restarts `next_seq` at 1 in a new one).
    epoch: std::sync::atomic::AtomicU32,
    /// The epoch before it and its last message's number (set with `epoch`, under the
    /// writer's lock): EstablishmentAck tells it, a RetransmitRequest may name it.
    previous: Mutex<Option<PreviousEpoch>>,
    last_write_ns: AtomicU64,
    has_backlog: AtomicBool,
    /// True while a socket is attached and healthy.
    attached: AtomicBool,
    /// Most unsent bytes a connection may leave in the backlog (`[strategy]
    /// max_backlog_bytes`).
    max_backlog: usize,
    /// Journal bytes handed to the store (metrics: `bgw_journal_written_bytes_total`).
    journal_written: AtomicU64,
    /// Journal bytes encoded but not yet handed to the store (metrics: the journal's lag).
    journal_pending: AtomicU64,
    /// Root ClOrdIDs of this session's orders the tracker has evicted (ended and past the
    /// retention window), each with whether it had ended before the epoch began, not yet taken
    /// by the session's order entry (see [`SessionOut::note_evicted`]).
    evicted: Mutex<Vec<(u64, bool)>>,
    /// `evicted` is not empty (checked without the lock on every turn of the io thread).
    has_evicted: AtomicBool,
    /// The journal thread's side of a segmented journal (folds the records written, rolls
    /// segments: [`SessionOut::maintain_journal`]); `None` without a journal file. Only the
    /// journal thread locks it.
    roller: Mutex<Option<Roller>>,
}

impl std::fmt::Debug for SessionOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOut")
            .field("session_id", &self.session_id)
            .field("attached", &self.attached.load(Ordering::Relaxed))
            .field("next_seq", &self.next_seq())
            .finish()
    }
}

/// Whether a frame is an application message (sequenced) or a session message (not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// ExecutionReport, OrderCancelReject, BusinessMessageReject...: takes the next sequence
    /// number; journaled with the gateway path that produced it.
    Application(Origin),
    /// Negotiation, establishment, Sequence, Terminate.
    Session,
}

/// What [`SessionOut::retransmit`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetransmitOutcome {
    /// Retransmission and this many original frames were written.
    Sent(u32),
    /// RetransmitReject with this code was written.
    Rejected(RetransmitRejectCode),
}

impl SessionOut {
    /// The writer of one connection that is not bound to a session (before Establish; tests):
    /// `stream` attached, nothing journaled. `stream` should be non-blocking, TCP_NODELAY.
    pub fn new(stream: SharedSocket, now_ns: u64) -> Self {
        let out = SessionOut::detached(0, 1, Store::Discard, now_ns);
        out.attach(stream, now_ns, |_, _| {});
        out
    }

    /// The writer of session `session_id`, no socket attached yet; the next application
    /// message carries `next_seq` and records go to `store`.
    pub fn detached(session_id: u64, next_seq: u64, mut store: Store, now_ns: u64) -> Self {
        let roller = store.take_roller();
        SessionOut {
            roller: Mutex::new(roller),
            session_id,
            keeps: store.keeps(),
            write_ahead: store.is_file(),
            committed_seq: AtomicU64::new(next_seq.max(1)),
            fault: AtomicU16::new(0),
            journal_errors: Default::default(),
            inner: Mutex::new(Inner {
                stream: None,
                backlog: Backlog::new(),
                frame: Vec::with_capacity(512),
                draining: false,
                cut_off: false,
                corked: false,
            }),
            journal: Mutex::new(Journal {
                // A connection's own writer (before Establish) journals nothing.
                wa: WriteAhead::new(next_seq, if store.keeps() { 64 * 1024 } else { 0 }),
                store,
            }),
            next_seq: AtomicU64::new(next_seq.max(1)),
            epoch: std::sync::atomic::AtomicU32::new(0),
            previous: Mutex::new(None),
            last_write_ns: AtomicU64::new(now_ns),
            has_backlog: AtomicBool::new(false),
            attached: AtomicBool::new(false),
            max_backlog: MAX_BACKLOG,
            journal_written: AtomicU64::new(0),
            journal_pending: AtomicU64::new(0),
            evicted: Mutex::new(Vec::new()),
            has_evicted: AtomicBool::new(false),
        }
    }

    /// Sets the most unsent bytes a connection may leave unread before it is cut off
    /// (`[strategy] max_backlog_bytes`; default [`MAX_BACKLOG`]).
    #[must_use]
    pub fn with_max_backlog(mut self, bytes: usize) -> Self {
        self.max_backlog = bytes.max(1);
        self
    }

    /// The tracker evicted the order of root ClOrdID `root` (ended, past the retention
    /// window): the session's order entry releases its ClOrdIDs at its next turn (they stay
    /// used for the epoch, unless `ended_before_epoch`: the rollover reported an order that
    /// had ended before it, see [`gateway_core::tracker::Evicted`]; a cancel or replace naming
    /// them is refused at entry). Called on the tracker thread, off the order path.
    pub fn note_evicted(&self, root: u64, ended_before_epoch: bool) {
        self.evicted.lock().push((root, ended_before_epoch));
        self.has_evicted.store(true, Ordering::Release);
    }

    /// Hands the roots evicted since the last call to `f`, each with whether it had ended
    /// before the epoch began (io thread; one atomic load when there are none).
    pub fn take_evicted(&self, mut f: impl FnMut(u64, bool)) {
        if !self.has_evicted.load(Ordering::Acquire) {
            return;
        }
        let mut roots = self.evicted.lock();
        self.has_evicted.store(false, Ordering::Relaxed);
        for (root, ended_before_epoch) in roots.drain(..) {
            f(root, ended_before_epoch);
        }
    }

    /// Journal bytes handed to the store so far (file or memory), and bytes encoded but not
    /// yet handed to it (waiting for the journal thread; always 0 with a journal file, which is
    /// written ahead). Read without a lock (`Relaxed`), for the metrics endpoint.
    pub fn journal_bytes(&self) -> (u64, u64) {
        (
            self.journal_written.load(Ordering::Relaxed),
            self.journal_pending.load(Ordering::Relaxed),
        )
    }

    /// The session id (0 for a connection writer).
    pub fn session_id(&self) -> u64 {
        self.session_id
    }

    /// Attaches a connection's socket and writes the frame `first` encodes (the
    /// EstablishmentAck, given the sequence number of the next application message) before any
    /// other frame can reach it, under the lock that numbers frames, so the number it announces
    /// is exact. Any backlog of an earlier connection is dropped (the strategy recovers it by
    /// retransmission). Returns false if the socket broke at once.
    pub fn attach(
        &self,
        stream: SharedSocket,
        now_ns: u64,
        first: impl FnOnce(u64, &mut Vec<u8>),
    ) -> bool {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        if let Some(old) = inner.stream.take() {
            let _ = old.shutdown(std::net::Shutdown::Both);
        }
        inner.backlog.clear();
        inner.draining = false;
        inner.cut_off = false;
        inner.corked = false;
        self.has_backlog.store(false, Ordering::Relaxed);
        self.last_write_ns.store(now_ns, Ordering::Relaxed);
        self.attached.store(true, Ordering::Relaxed);
        inner.frame.clear();
        first(self.next_seq(), &mut inner.frame);
        let written = if inner.frame.is_empty() {
            Written::Ok
        } else {
            write_or_queue(
                &stream,
                &mut inner.backlog,
                &inner.frame,
                &self.has_backlog,
                self.max_backlog,
                false,
            )
        };
        inner.stream = Some(stream);
        self.after_write(inner, written)
    }

    /// Detaches the socket if the write broke it, or starts cutting off a strategy whose
    /// backlog went over the limit. True when the frame was written or queued.
    fn after_write(&self, inner: &mut Inner, written: Written) -> bool {
        match written {
            Written::Ok => true,
            Written::Broken => {
                self.detach_locked(inner);
                false
            }
            Written::Overflow => {
                self.start_drain(inner);
                false
            }
        }
    }

    /// The backlog went over the limit: the unsent frames are dropped (journaled: the strategy
    /// gets them back by retransmission), a Terminate is queued after the frame the strategy
    /// has part of, and no other frame reaches this socket. Logged at WARN.
    fn start_drain(&self, inner: &mut Inner) {
        let backlog = inner.backlog.len();
        let dropped = self.cut_off(inner, "unread output over max_backlog_bytes");
        tracing::warn!(
            session = self.session_id,
            backlog_bytes = backlog,
            dropped_bytes = dropped,
            max_backlog_bytes = self.max_backlog,
            next_seq = self.next_seq(),
            "strategy not reading: unsent output over the backlog limit; Terminate queued, the \
             connection closes (the dropped messages stay journaled for RetransmitRequest)"
        );
        self.flush_locked(inner);
    }

    /// Ends the connection: what is queued after the frame the strategy has part of is
    /// dropped (returns its bytes), Terminate (`reason`) is queued, and no other frame reaches
    /// this socket; the connection's end drains it for at most [`DRAIN_GRACE_MS`].
    fn cut_off(&self, inner: &mut Inner, reason: &str) -> usize {
        let dropped = inner.backlog.truncate_after_partial_frame();
        inner.frame.clear();
        Terminate {
            session_id: self.session_id,
            code: TerminationCode::UnspecifiedError,
            reason: Text::new(reason),
        }
        .encode_frame(&mut inner.frame);
        inner.backlog.queue(&inner.frame, 0);
        inner.draining = true;
        inner.cut_off = true;
        self.attached.store(false, Ordering::Relaxed);
        self.has_backlog.store(true, Ordering::Relaxed);
        dropped
    }

    /// Writes what the socket takes of the backlog; a broken socket is detached.
    fn flush_locked(&self, inner: &mut Inner) {
        let ok = match inner.stream.as_deref() {
            Some(s) => flush_backlog(s, &mut inner.backlog, &self.has_backlog),
            None => true,
        };
        if !ok {
            self.detach_locked(inner);
        }
    }

    /// True while the writer ends its connection (cut off for its backlog, or a rollover's
    /// Terminate) and still holds its socket, written out or not: the connection ends
    /// gracefully (`gateway::engine::strategy_conn`), never by a plain close that would reset
    /// it and drop what the strategy had not read yet.
    pub fn is_ending(&self) -> bool {
        let inner = self.inner.lock();
        inner.draining && inner.stream.is_some()
    }

    /// True while a connection cut off for its backlog still has the Terminate (and the rest
    /// of the frame before it) to write; [`SessionOut::flush`] writes what the socket takes.
    pub fn is_draining(&self) -> bool {
        let inner = self.inner.lock();
        inner.draining && inner.stream.is_some() && !inner.backlog.is_empty()
    }

    /// Sequence number of the next application message the strategy can receive or ask for:
    /// the one after the last in the journal (EstablishmentAck, Sequence, RetransmitRequest).
    /// While a storage fault holds appends, the held messages carry the numbers from here on.
    pub fn next_seq(&self) -> u64 {
        self.committed_seq.load(Ordering::Relaxed)
    }

    /// True when records go to a journal file (written ahead; storage faults apply).
    pub fn journal_is_file(&self) -> bool {
        self.write_ahead
    }

    /// The journal's fault while it is failing (`None` while healthy): the decision refuses
    /// new risk ([`gateway_core::decision::WithJournal`]). One atomic load.
    pub fn journal_fault(&self) -> Option<StorageFault> {
        self.journal_state().map(|(f, _)| f)
    }

    /// The journal's fault and the operation that failed, while it is failing.
    pub fn journal_state(&self) -> Option<(StorageFault, JournalOp)> {
        gateway_core::journal::durability::Failing::unpack(self.fault.load(Ordering::Relaxed))
    }

    /// Journal errors seen so far, by `StorageFault::index` (every failed append, roll or
    /// checkpoint, retries included).
    pub fn journal_errors(&self) -> [u64; StorageFault::ALL.len()] {
        std::array::from_fn(|i| self.journal_errors[i].load(Ordering::Relaxed))
    }

    /// Monotonic ns of the last write (for keepalives).
    pub fn last_write_ns(&self) -> u64 {
        self.last_write_ns.load(Ordering::Relaxed)
    }

    /// True when no socket is attached (never attached, closed, or broken); application
    /// messages are then journaled only.
    pub fn is_closed(&self) -> bool {
        !self.attached.load(Ordering::Relaxed)
    }

    /// Detaches and shuts down the attached socket, if any (the connection ended), or the
    /// socket of a connection cut off for its backlog.
    pub fn close(&self) {
        let mut inner = self.inner.lock();
        self.detach_locked(&mut inner);
    }

    /// True while this writer holds `socket` (a connection that attached later replaced it).
    pub fn holds(&self, socket: &SharedSocket) -> bool {
        self.inner
            .lock()
            .stream
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, socket))
    }

    /// Ends a connection cut off for its backlog, if that is what this writer still holds
    /// (a new connection may have attached since): whether the strategy got its Terminate.
    pub fn end_drain(&self) -> Option<bool> {
        let mut inner = self.inner.lock();
        if !inner.draining {
            return None;
        }
        let delivered = inner.backlog.is_empty();
        let cut_off = inner.cut_off;
        self.detach_locked(&mut inner);
        cut_off.then_some(delivered)
    }

    fn detach_locked(&self, inner: &mut Inner) {
        self.attached.store(false, Ordering::Relaxed);
        if let Some(s) = inner.stream.take() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        inner.backlog.clear();
        inner.draining = false;
        inner.cut_off = false;
        inner.corked = false;
        self.has_backlog.store(false, Ordering::Relaxed);
    }

    /// Encodes one frame with `encode` (which appends a whole SOFH frame to the buffer it is
    /// given); an application frame takes the next sequence number and is journaled. Writes it
    /// to the attached socket. Returns false if it was not written (no socket, or it broke).
    pub fn send(&self, flow: Flow, now_ns: u64, encode: impl FnOnce(&mut Vec<u8>)) -> bool {
        if flow == Flow::Session && self.is_closed() {
            return false;
        }
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        inner.frame.clear();
        encode(&mut inner.frame);
        if let Flow::Application(origin) = flow {
            let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
            if self.keeps {
                let mut journal = self.journal.lock();
                record::put_outbound(journal.wa.buf(), seq, origin, &inner.frame);
                if !self.write_ahead(&mut journal, Some(seq)) {
                    // Held (a storage fault): numbered, not written; it reaches the strategy
                    // once the journal takes it ([`SessionOut::journal_turn`]).
                    let held = journal.wa.pending_len();
                    if journal.wa.durability().over_held_cap(held)
                        && inner.stream.is_some()
                        && !inner.draining
                    {
                        self.cut_off(inner, "journal failing: output held over 16 MiB");
                        tracing::warn!(
                            session = self.session_id,
                            held_bytes = held,
                            "journal failing and output held over the cap: the strategy is \
                             disconnected (the held messages reach it after it reconnects, \
                             once the journal takes them)"
                        );
                        drop(journal);
                        self.flush_locked(inner);
                    }
                    return false;
                }
            } else {
                self.committed_seq.store(seq + 1, Ordering::Relaxed);
            }
        }
        if inner.draining {
            return false;
        }
        let Inner {
            stream,
            backlog,
            frame,
            corked,
            ..
        } = inner;
        let Some(s) = stream.as_deref() else {
            return false;
        };
        let written = write_or_queue(
            s,
            backlog,
            frame,
            &self.has_backlog,
            self.max_backlog,
            *corked,
        );
        self.last_write_ns.store(now_ns, Ordering::Relaxed);
        self.after_write(inner, written)
    }

    /// Sets the session's epoch and the one before it as recovered from its journal (before
    /// any frame is sent).
    #[must_use]
    pub fn in_epoch(self, epoch: u32, previous: Option<PreviousEpoch>) -> Self {
        self.epoch.store(epoch, Ordering::Relaxed);
        *self.previous.lock() = previous;
        self
    }

    /// The session's epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// The epoch before the session's epoch and the number of its last message (`None`
    /// before the first rollover).
    pub fn previous_epoch(&self) -> Option<PreviousEpoch> {
        *self.previous.lock()
    }

    /// Session rollover: the epoch ends and `epoch` starts at UTC ms `started_ms`. Under the
    /// writer's lock (no frame is numbered meanwhile): the records pending are handed to the
    /// store, the epoch record is journaled after them, and the next application message is
    /// number 1. A socket still attached is closed (the strategy negotiates the new epoch).
    /// Errors: the journal could not be written (the epoch did not change).
    pub fn start_epoch(&self, epoch: u32, started_ms: u64) -> std::io::Result<()> {
        let mut inner = self.inner.lock();
        self.journal_epoch(epoch, started_ms)?;
        self.detach_locked(&mut inner);
        Ok(())
    }

    /// A scheduled rollover ends the epoch of a connected strategy: Terminate
    /// (SessionRollover, `reason`) is written after every message numbered so far, and the
    /// epoch ends right behind it, under the writer's lock ([`SessionOut::start_epoch`]'s
    /// journal part): a report produced afterwards, while the connection closes, is number 1
    /// of epoch `epoch` and reaches the strategy when it establishes again, never a message of
    /// the old epoch written after its Terminate (a strategy reads the old epoch up to its
    /// Terminate, and may ask for it again with RetransmitRequest.LastSessionVerID). The
    /// connection's end writes the rest of its backlog and the Terminate, then ends gracefully
    /// (`gateway_core::session::epoch_end`). Errors: the journal could not be written
    /// (the Terminate is not sent, the epoch did not change).
    pub fn terminate_for_rollover(
        &self,
        epoch: u32,
        started_ms: u64,
        reason: &str,
    ) -> std::io::Result<()> {
        let mut guard = self.inner.lock();
        self.journal_epoch(epoch, started_ms)?;
        let inner = &mut *guard;
        inner.frame.clear();
        Terminate {
            session_id: self.session_id,
            code: TerminationCode::SessionRollover,
            reason: Text::new(reason),
        }
        .encode_frame(&mut inner.frame);
        let Inner {
            stream,
            backlog,
            frame,
            ..
        } = inner;
        if let Some(s) = stream.as_deref() {
            let _ = write_or_queue(s, backlog, frame, &self.has_backlog, usize::MAX, false);
        }
        inner.draining = true;
        inner.cut_off = false;
        inner.corked = false;
        self.attached.store(false, Ordering::Relaxed);
        self.flush_locked(inner);
        Ok(())
    }

    /// Queues the frames sent from now on instead of writing each (one `send` each on
    /// loopback costs the receiver's TCP processing too: ~6 µs), until [`SessionOut::uncork`].
    /// The io thread corks while it works through frames a strategy pipelined, for at most one
    /// turn (`FRAMES_PER_TURN`), so their answers leave in one write; a report the tracker
    /// sends meanwhile waits for the same write.
    pub fn cork(&self) {
        self.inner.lock().corked = true;
    }

    /// Ends [`SessionOut::cork`]: writes what was queued (what the socket takes; the rest
    /// stays in the backlog).
    pub fn uncork(&self) {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        inner.corked = false;
        if inner.backlog.is_empty() || inner.draining {
            return;
        }
        self.flush_locked(inner);
    }

    /// Tries to write the backlog, if any (also a draining connection's). Cheap when there is
    /// none (one atomic load).
    pub fn flush(&self) {
        if !self.has_backlog.load(Ordering::Relaxed) {
            return;
        }
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        if inner.corked {
            return;
        }
        self.flush_locked(inner);
    }
}

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// Written, or queued within the limit.
    Ok,
    /// The socket broke.
    Broken,
    /// Queued, and the backlog is now over the limit.
    Overflow,
}

/// Writes `frame` now if nothing is queued (queueing what the socket does not take), else
/// queues it and flushes; `corked`: only queues it.
fn write_or_queue(
    stream: &TcpStream,
    backlog: &mut Backlog,
    frame: &[u8],
    has_backlog: &AtomicBool,
    max_backlog: usize,
    corked: bool,
) -> Written {
    let ok = if corked {
        backlog.queue(frame, 0);
        has_backlog.store(true, Ordering::Relaxed);
        true
    } else if backlog.is_empty() {
        match write_some(stream, frame) {
            Ok(n) if n == frame.len() => true,
            Ok(n) => {
                backlog.queue(frame, n);
                has_backlog.store(true, Ordering::Relaxed);
                true
            }
            Err(_) => false,
        }
    } else {
        backlog.queue(frame, 0);
        flush_backlog(stream, backlog, has_backlog)
    };
    if !ok {
        Written::Broken
    } else if backlog.len() > max_backlog {
        Written::Overflow
    } else {
        Written::Ok
    }
}

fn flush_backlog(stream: &TcpStream, backlog: &mut Backlog, has_backlog: &AtomicBool) -> bool {
    match write_some(stream, backlog.pending()) {
        Ok(n) => {
            backlog.consume(n);
            has_backlog.store(!backlog.is_empty(), Ordering::Relaxed);
            true
        }
        Err(_) => false,
    }
}

/// Writes as much of `buf` as the socket takes without blocking.
fn write_some(mut stream: &TcpStream, buf: &[u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while let Some(rest) = buf.get(done..).filter(|r| !r.is_empty()) {
        match stream.write(rest) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(test)]
mod previous_epoch_tests;
#[cfg(test)]
mod storage_fault_tests;
#[cfg(test)]
mod tests;
