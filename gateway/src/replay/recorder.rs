//! The recording side: the tracker thread copies each record into a buffer and hands it to a
//! writer thread (buffered file writes, flushed whenever the queue is empty).

use std::io::Write;
use std::path::Path;
use std::thread::JoinHandle;

use crossbeam_channel::Sender;

use crate::session::order_entry::{EntryOutcome, OrderEntry};
use gateway_core::replay::{Record, RecordedInput, MAGIC, VERSION};

/// Writes a recording (format in [`crate::replay`]). Dropping it flushes and closes the file
/// once every [`RecordTx`] is gone too.
#[derive(Debug)]
pub struct Recorder {
    tx: Option<RecordTx>,
    join: Option<JoinHandle<()>>,
}

/// A second writer into the same recording, for the io thread's order-entry records (its
/// records keep their order; the file closes when the [`Recorder`] and every `RecordTx` are
/// dropped).
#[derive(Debug, Clone)]
pub struct RecordTx {
    tx: Sender<Vec<u8>>,
}

impl RecordTx {
    /// Encodes `rec` (length prefix and postcard body) and hands it to the writer thread.
    fn send(&self, rec: &Record) {
        let mut buf = Vec::with_capacity(128);
        if rec.encode(&mut buf) {
            let _ = self.tx.send(buf);
        }
    }

    /// Records the instrument rules order entry checks against.
    pub fn instruments(&self, table: &crate::pretrade::InstrumentTable) {
        self.send(&Record::instruments(table));
    }

    /// Records that session `session_id` was established with a fresh order-entry state.
    pub fn entry_reset(&self, session_id: u64) {
        self.send(&Record::EntryReset { session_id });
    }

    /// Records that session `session_id` was established with the order-entry state it already
    /// had (`entry`: the live ClOrdIDs, and the ClOrdIDs and ListIDs used in the epoch).
    pub fn entry_state(&self, session_id: u64, entry: &OrderEntry) {
        self.send(&Record::EntryEpochState {
            session_id,
            epoch: entry.cl_ord_ids().epoch(),
            live: entry.cl_ord_ids().live_sorted(),
            used: entry.cl_ord_ids().used().clone(),
            list_ids: entry.list_ids().clone(),
        });
    }

    /// Records that session `session_id`'s order entry released the ClOrdIDs of root `root`
    /// (the tracker evicted the order; `ended_before_epoch`: it had ended before the epoch
    /// began, its ClOrdIDs free).
    pub fn entry_release(&self, session_id: u64, root: u64, ended_before_epoch: bool) {
        if ended_before_epoch {
            self.send(&Record::EntryReleaseEndedBeforeEpoch { session_id, root });
        } else {
            self.send(&Record::EntryRelease { session_id, root });
        }
    }

    /// Records one single-order message through order entry and the decision: the message,
    /// the request id and UTC time (ns) it was given, order entry's outcome (with the trade-op
    /// JSON in `json`), and the refusal after order entry if there was one (account, risk,
    /// rate budget, write; see [`Record::order_entry`]).
    #[allow(clippy::too_many_arguments)]
    pub fn order_entry(
        &self,
        session_id: u64,
        req_id: u64,
        utc_ns: u64,
        msg: &codec::sbe::Message<'_>,
        outcome: &EntryOutcome,
        json: &[u8],
        refusal: Option<&gateway_core::decision::Refusal>,
    ) {
        if let Some(rec) =
            Record::order_entry(session_id, req_id, utc_ns, msg, outcome, json, refusal)
        {
            self.send(&rec);
        }
    }
}

impl Recorder {
    /// Creates (truncates) `path`, writes the header and starts the writer thread.
    /// Errors: the file cannot be created or the thread cannot start.
    pub fn create(path: &Path) -> std::io::Result<Recorder> {
        let file = std::fs::File::create(path)?;
        let mut w = std::io::BufWriter::with_capacity(64 << 10, file);
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.flush()?;
        let (tx, rx) = crossbeam_channel::unbounded::<Vec<u8>>();
        let join = std::thread::Builder::new()
            .name("bgw-record".into())
            .spawn(move || {
                let mut failed = false;
                loop {
                    let rec = match rx.try_recv() {
                        Ok(rec) => rec,
                        Err(crossbeam_channel::TryRecvError::Empty) => {
                            if !failed && w.flush().is_err() {
                                failed = true;
                            }
                            match rx.recv() {
                                Ok(rec) => rec,
                                Err(_) => break,
                            }
                        }
                        Err(crossbeam_channel::TryRecvError::Disconnected) => break,
                    };
                    if !failed && w.write_all(&rec).is_err() {
                        failed = true;
                        tracing::warn!("record: write failed; recording stopped");
                    }
                }
                let _ = w.flush();
            })?;
        Ok(Recorder {
            tx: Some(RecordTx { tx }),
            join: Some(join),
        })
    }

    /// Another writer into this recording (for the io thread).
    pub fn tx(&self) -> Option<RecordTx> {
        self.tx.clone()
    }

    fn send(&self, rec: &Record) {
        if let Some(tx) = &self.tx {
            tx.send(rec);
        }
    }

    /// Records an input (in its recorded form) the tracker is about to handle with the wall
    /// clock `utc_ns` the driver passes to the core.
    pub fn input(&self, input: RecordedInput, utc_ns: u64) {
        self.send(&Record::Input { utc_ns, input });
    }

    /// Records a frame written to session `session_id`; `encode` appends the frame.
    pub fn report(&self, session_id: u64, encode: impl FnOnce(&mut Vec<u8>)) {
        let mut frame = Vec::with_capacity(256);
        encode(&mut frame);
        self.send(&Record::Report { session_id, frame });
    }

    /// Records one order of an open-orders answer; `encode` appends its frame.
    pub fn open_order(&self, session_id: u64, root: u64, encode: impl FnOnce(&mut Vec<u8>)) {
        let mut frame = Vec::with_capacity(256);
        encode(&mut frame);
        self.send(&Record::OpenOrder {
            session_id,
            root,
            frame,
        });
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(join) = self.join.take() {
            let _ = join.join();
        }
    }
}
