//! The session journal: every application message the gateway sends a strategy session, and
//! every ClOrdID / ListID the session used, appended to the session's current segment file.
//!
//! Used for FIXP recoverable-flow retransmission (RetransmitRequest → the original frames) and
//! to restart with the same outbound sequence numbers and the same set of used ClOrdIDs.
//!
//! Files ([`segments`]): `<[journal] dir>/session-<SessionID>/e<epoch>-s<index>.journal`, each
//! the 8-byte magic `BGWJRNL1`, a checkpoint record, then records `kind u8 | len u32 LE |
//! body` ([`record`]): outbound frame (seq + SOFH frame), accepted ClOrdID (ClOrdID → root),
//! accepted ListID, clock. The journal thread folds the records as they are written
//! ([`gateway_core::journal::fold`]) and rolls to a new segment, starting with the checkpoint
//! of that fold, every `[journal] segment_bytes`; a restart reads the newest segment only.
//!
//! Write path: the writer of a session ([`crate::session::out::SessionOut`]) encodes records
//! under the lock it already holds to number and write the frame, and with a journal file
//! appends them to the file (one `write(2)` into the page cache, 1.0-1.2 µs for 300
//! bytes on the 2-vCPU reference machine) *before* the frame goes to the socket. Nothing on the order path fsyncs.
//!
//! Storage faults (a full disk, EIO, EROFS, a short write) are a state of the session, not a
//! log line: records are held and messages not sent until the journal takes them again, new
//! risk is refused meanwhile (`gateway_core::journal::durability`, [`SessionOut::journal_turn`]).
//!
//! Durability: a message the strategy received is in the file (the OS page cache), so it
//! survives the gateway's SIGKILL, and a restarted gateway never gives a sequence number the
//! strategy already holds to a different message (it did when records reached the file up to
//! [`FLUSH_PERIOD`] after their frame reached the socket: the soak's repeated and lost reports
//! after a restart, issue 10). It is not fsynced, so a power loss or kernel crash may lose the
//! last seconds. A record cut short by a crash is dropped at start-up.
//! With no directory configured the journal lives in memory (retransmission works up to
//! [`store::MEMORY_CAP`] bytes per session, a restart starts every session afresh).

pub mod error;
pub use gateway_core::journal::record;
pub mod segments;
pub mod store;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::session::out::SessionOut;

/// How often the journal thread moves buffered records to an in-memory journal (a journal file
/// is written ahead by the writer itself), folds the records written to journal files and rolls
/// full segments, and retries a failing journal when its backoff is due
/// ([`SessionOut::journal_turn`]).
pub const FLUSH_PERIOD: Duration = Duration::from_millis(1);

pub use error::JournalError;

/// The sessions whose buffered records the journal thread writes.
pub type Registry = Arc<Mutex<Vec<Arc<SessionOut>>>>;

/// The journal thread (`bgw-journal`): moves buffered records to in-memory journals, folds
/// and rolls journal files, until stopped.
#[derive(Debug)]
pub struct JournalThread {
    stop: Arc<AtomicBool>,
    join: Option<std::thread::JoinHandle<()>>,
    registry: Registry,
}

impl JournalThread {
    /// Starts the thread over `registry`.
    pub fn start(registry: Registry) -> std::io::Result<JournalThread> {
        let stop = Arc::new(AtomicBool::new(false));
        let (s, r) = (Arc::clone(&stop), Arc::clone(&registry));
        let join = std::thread::Builder::new()
            .name("bgw-journal".into())
            .spawn(move || {
                let mut outs = Vec::new();
                while !s.load(Ordering::Relaxed) {
                    std::thread::sleep(FLUSH_PERIOD);
                    flush_all(&r, &mut outs);
                }
            })?;
        Ok(JournalThread {
            stop,
            join: Some(join),
            registry,
        })
    }

    /// Stops the thread after a last flush of every session.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
        flush_all(&self.registry, &mut Vec::new());
    }
}

fn flush_all(registry: &Registry, outs: &mut Vec<Arc<SessionOut>>) {
    outs.clear();
    outs.extend(registry.lock().iter().cloned());
    let now = crate::metrics::now_ns();
    for out in outs.drain(..) {
        out.journal_turn(now);
    }
}
