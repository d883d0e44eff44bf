//! Where one session's journal records go: an append-only file, or memory when no journal
//! directory is configured.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use codec::frame::SOFH_LEN;
use codec::sbe::{ExecutionReport, Message};

use super::error::JournalError;
use gateway_core::journal::record::{Record, Records};

/// Largest in-memory journal, in bytes; past it the kept records are dropped (messages sent
/// before cannot be retransmitted: RetransmitReject Unavailable) so a long run without a
/// journal directory does not grow without bound.
pub const MEMORY_CAP: usize = 64 << 20;

/// First bytes of every journal file (format version 1).
pub const MAGIC: &[u8; 8] = b"BGWJRNL1";

/// One session's journal storage.
#[derive(Debug)]
pub enum Store {
    /// Records are dropped (a connection not bound to a session yet).
    Discard,
    /// Records kept in memory for the gateway's life (no journal directory configured):
    /// retransmission works, restarts start afresh.
    Memory(Vec<u8>),
    /// Records appended to a file.
    File {
        /// The open file (append mode).
        file: File,
        /// Its path (for messages).
        path: PathBuf,
    },
}

/// What a session's journal says about it at start-up.
#[derive(Debug, Default, Clone)]
pub struct Recovered {
    /// Sequence number of the next application message (last journaled + 1; 1 when empty).
    pub next_seq: u64,
    /// ClOrdID → root ClOrdID of every ClOrdID the session used.
    pub roots: HashMap<u64, u64>,
    /// ListIDs the session used.
    pub list_ids: HashSet<u64>,
    /// The ExecutionReports sent to the session, in sequence order (the state of its orders
    /// as the strategy was told it; crash recovery rebuilds the tracker from them).
    pub reports: Vec<ExecutionReport>,
    /// Root ClOrdIDs no report names (orders in flight when the gateway stopped) → UTC ms of
    /// the last report or clock record journaled before the ClOrdID (0: none): the order was
    /// sent after it, so the exchange's lists from there on (less a margin) show it if it
    /// exists.
    pub unanswered_since_ms: HashMap<u64, u64>,
    /// ClOrdIDs of cancels and replaces (not roots) that no ExecutionReport or
    /// OrderCancelReject names, sorted: accepted (journaled ahead of the write) when the gateway
    /// stopped, their outcome unknown. Crash recovery resolves each, so it gets one answer.
    pub unanswered_amends: Vec<u64>,
}

/// Rebuilds a session's state from its records (the bytes after the magic).
pub fn recover(records: &[u8]) -> (Recovered, usize) {
    let mut r = Recovered {
        next_seq: 1,
        ..Recovered::default()
    };
    let mut it = Records::new(records);
    let mut last_report_ms = 0u64;
    // ClOrdIDs some report (ExecutionReport or OrderCancelReject) names.
    let mut answered: HashSet<u64> = HashSet::new();
    for rec in it.by_ref() {
        match rec {
            Record::Outbound { seq, frame, .. } => {
                r.next_seq = r.next_seq.max(seq.saturating_add(1));
                match frame.get(SOFH_LEN..).map(codec::sbe::decode) {
                    Some(Ok(Message::ExecutionReport(er))) => {
                        let er = er.to_owned();
                        last_report_ms = last_report_ms.max(er.transact_time / 1_000_000);
                        answered.insert(er.cl_ord_id);
                        r.reports.push(er);
                    }
                    Some(Ok(Message::OrderCancelReject(ocr))) => {
                        answered.insert(ocr.to_owned().cl_ord_id);
                    }
                    _ => {}
                }
            }
            Record::ClOrdId { cl_ord_id, root } => {
                r.roots.insert(cl_ord_id, root);
                if cl_ord_id == root {
                    r.unanswered_since_ms.insert(root, last_report_ms);
                }
            }
            Record::ListId(id) => {
                r.list_ids.insert(id);
            }
            Record::Clock(ms) => last_report_ms = last_report_ms.max(ms),
            Record::Unknown(_) => {}
        }
    }
    for er in &r.reports {
        for cl in [er.cl_ord_id, er.orig_cl_ord_id] {
            if let Some(root) = r.roots.get(&cl) {
                r.unanswered_since_ms.remove(root);
            }
        }
        r.unanswered_since_ms.remove(&er.cl_ord_id);
    }
    r.unanswered_amends = r
        .roots
        .iter()
        .filter(|(cl, root)| cl != root && !answered.contains(cl))
        .map(|(cl, _)| *cl)
        .collect();
    r.unanswered_amends.sort_unstable();
    (r, it.valid_len())
}

/// The journal file of session `session_id` in `dir`.
pub fn session_path(dir: &Path, session_id: u64) -> PathBuf {
    dir.join(format!("session-{session_id}.journal"))
}

impl Store {
    /// Opens (or creates) the journal file of `session_id` in `dir` and recovers the session's
    /// state from it. A truncated last record (a crash mid-write) is cut off the file so that
    /// new records follow the last whole one.
    pub fn open_file(dir: &Path, session_id: u64) -> Result<(Store, Recovered), JournalError> {
        let path = session_path(dir, session_id);
        let io = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|source| JournalError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let recovered = if bytes.is_empty() {
            file.write_all(MAGIC).map_err(io)?;
            Recovered {
                next_seq: 1,
                ..Recovered::default()
            }
        } else {
            let Some(records) = bytes.strip_prefix(MAGIC.as_slice()) else {
                return Err(JournalError::NotAJournal(path));
            };
            let (recovered, valid) = recover(records);
            let keep = (MAGIC.len() + valid) as u64;
            if keep < bytes.len() as u64 {
                tracing::warn!(path = %path.display(), dropped = bytes.len() as u64 - keep, "journal: truncated last record ignored");
                file.set_len(keep).map_err(io)?;
            }
            recovered
        };
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok((Store::File { file, path }, recovered))
    }

    /// Appends a clock record (`utc_ms`): the session's records from here on are later.
    pub fn mark_clock(&mut self, utc_ms: u64) -> std::io::Result<()> {
        let mut b = Vec::with_capacity(gateway_core::journal::record::HEADER_LEN + 8);
        gateway_core::journal::record::put_clock(&mut b, utc_ms);
        self.append(&b)
    }

    /// Appends encoded records.
    pub fn append(&mut self, records: &[u8]) -> std::io::Result<()> {
        match self {
            Store::Discard => Ok(()),
            Store::Memory(m) => {
                if m.len() + records.len() > MEMORY_CAP {
                    tracing::warn!(
                        "in-memory journal full: earlier messages can no longer be retransmitted"
                    );
                    m.clear();
                }
                m.extend_from_slice(records);
                Ok(())
            }
            Store::File { file, .. } => file.write_all(records),
        }
    }

    /// True for a journal file.
    pub fn is_file(&self) -> bool {
        matches!(self, Store::File { .. })
    }

    /// True when records are kept (memory or file).
    pub fn keeps(&self) -> bool {
        !matches!(self, Store::Discard)
    }

    /// Calls `f` with every record kept so far (reads the file for a file store).
    pub fn with_records<R>(&mut self, f: impl FnOnce(&[u8]) -> R) -> std::io::Result<R> {
        match self {
            Store::Discard => Ok(f(&[])),
            Store::Memory(m) => Ok(f(m)),
            Store::File { path, .. } => {
                let bytes = std::fs::read(path)?;
                Ok(f(bytes.get(MAGIC.len()..).unwrap_or(&[])))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gateway_core::journal::record::{put_cl_ord_id, put_list_id, put_outbound, Origin};

    #[test]
    fn a_file_journal_round_trips_and_drops_a_truncated_tail() {
        let dir = std::env::temp_dir().join(format!("bgw-journal-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (mut store, rec) = Store::open_file(&dir, 3).unwrap();
        assert_eq!(rec.next_seq, 1);
        let mut b = Vec::new();
        put_outbound(&mut b, 1, Origin::Push, b"one");
        put_cl_ord_id(&mut b, 10, 10);
        put_cl_ord_id(&mut b, 11, 10);
        put_list_id(&mut b, 4);
        put_outbound(&mut b, 2, Origin::Push, b"two");
        store.append(&b).unwrap();
        // A crash in the middle of the next record.
        let mut torn = Vec::new();
        put_outbound(&mut torn, 3, Origin::Push, b"three");
        store.append(&torn[..torn.len() - 2]).unwrap();
        drop(store);

        let (mut store, rec) = Store::open_file(&dir, 3).unwrap();
        assert_eq!(rec.next_seq, 3);
        assert_eq!(rec.roots.get(&11), Some(&10));
        assert_eq!(rec.roots.len(), 2);
        assert!(rec.list_ids.contains(&4));
        // The torn record is gone; new records follow the last whole one.
        let mut more = Vec::new();
        put_outbound(&mut more, 3, Origin::Push, b"three");
        store.append(&more).unwrap();
        let seqs = store
            .with_records(|r| {
                Records::new(r)
                    .filter_map(|x| match x {
                        Record::Outbound { seq, .. } => Some(seq),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap();
        assert_eq!(seqs, [1, 2, 3]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An ExecutionReport frame for `cl` at `ms` (UTC).
    fn er_frame(cl: u64, ms: u64) -> Vec<u8> {
        use codec::sbe::{Category, ExecType, OrdStatus, OrdType, Side, Symbol, Text, TimeInForce};
        let mut f = Vec::new();
        ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: 0,
            order_id: 0,
            exec_id: 0,
            transact_time: ms * 1_000_000,
            price: None,
            order_qty: codec::Decimal::ZERO,
            last_qty: None,
            last_px: None,
            cum_qty: codec::Decimal::ZERO,
            leaves_qty: codec::Decimal::ZERO,
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::EMPTY,
            category: Category::Spot,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type: ExecType::New,
            ord_status: OrdStatus::New,
            ord_rej_reason: None,
            text: Text::new(""),
        }
        .encode_frame(&mut f);
        f
    }

    #[test]
    fn unanswered_orders_are_dated_by_the_last_report_before_them() {
        let mut b = Vec::new();
        put_cl_ord_id(&mut b, 1, 1);
        put_outbound(&mut b, 1, Origin::Reply, &er_frame(1, 5_000));
        put_cl_ord_id(&mut b, 2, 2);
        put_cl_ord_id(&mut b, 3, 3);
        put_outbound(&mut b, 2, Origin::Push, &er_frame(3, 7_000));
        put_cl_ord_id(&mut b, 4, 4);
        put_cl_ord_id(&mut b, 5, 3);
        gateway_core::journal::record::put_clock(&mut b, 9_000);
        put_cl_ord_id(&mut b, 6, 6);
        let (r, _) = recover(&b);
        // 1 and 3 were answered; 2 was used after the report at 5 000 ms, 4 after 7 000 ms,
        // 6 after the gateway opened the journal at 9 000 ms.
        assert_eq!(
            r.unanswered_since_ms,
            [(2, 5_000), (4, 7_000), (6, 9_000)].into()
        );
    }

    /// Issue 10, cause 7: a cancel or replace ClOrdID that no ExecutionReport or
    /// OrderCancelReject names is listed for resolution; answered ones are not.
    #[test]
    fn cancels_and_replaces_without_any_answer_are_listed() {
        use codec::sbe::{CxlRejReason, CxlRejResponseTo, OrdStatus, OrderCancelReject, Text};
        let mut ocr = Vec::new();
        OrderCancelReject {
            cl_ord_id: 5,
            orig_cl_ord_id: 1,
            order_id: 0,
            transact_time: 0,
            exchange_code: 0,
            ord_status: OrdStatus::New,
            cxl_rej_response_to: CxlRejResponseTo::OrderCancelRequest,
            cxl_rej_reason: CxlRejReason::NotApplied,
            text: Text::new("x"),
        }
        .encode_frame(&mut ocr);
        let mut b = Vec::new();
        put_cl_ord_id(&mut b, 1, 1);
        put_outbound(&mut b, 1, Origin::Reply, &er_frame(1, 5_000));
        put_cl_ord_id(&mut b, 3, 1); // answered by an ExecutionReport
        put_outbound(&mut b, 2, Origin::Push, &er_frame(3, 6_000));
        put_cl_ord_id(&mut b, 5, 1); // answered by an OrderCancelReject
        put_outbound(&mut b, 3, Origin::OrderEntry, &ocr);
        put_cl_ord_id(&mut b, 9, 1); // no answer
        put_cl_ord_id(&mut b, 7, 1); // no answer
        let (r, _) = recover(&b);
        assert_eq!(r.unanswered_amends, [7, 9]);
        assert!(r.unanswered_since_ms.is_empty());
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_refused() {
        let dir = std::env::temp_dir().join(format!("bgw-journal-bad-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(session_path(&dir, 1), b"hello").unwrap();
        assert!(matches!(
            Store::open_file(&dir, 1),
            Err(JournalError::NotAJournal(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
