//! Where one session's journal records go: segment files ([`super::segments`]), or memory
//! when no journal directory is configured.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::JournalError;
use super::segments::{self, NextSegment, Roller, SegmentInfo, SegmentPolicy};
use gateway_core::journal::durability::StorageFault;
use gateway_core::journal::fold::JournalFold;
use gateway_core::journal::record::Records;
use gateway_core::journal::write_ahead::AppendFailed;

pub use gateway_core::journal::fold::Recovered;

/// Largest in-memory journal, in bytes; past it the kept records are dropped (messages sent
/// before cannot be retransmitted: RetransmitReject Unavailable) so a long run without a
/// journal directory does not grow without bound. It holds at most the epoch in force and the
/// one before it (a rollover drops the records of the epoch before the previous one).
pub const MEMORY_CAP: usize = 64 << 20;

pub use super::segments::MAGIC;

/// One session's journal storage.
#[derive(Debug)]
pub enum Store {
    /// Records are dropped (a connection not bound to a session yet).
    Discard,
    /// Records kept in memory for the gateway's life (no journal directory configured):
    /// retransmission works (the epoch in force and the previous one), restarts start afresh.
    Memory {
        /// The records, oldest first: the previous epoch's (from its epoch record, or from the
        /// session's start) and the current one's (from its epoch record).
        records: Vec<u8>,
        /// True while `records` start at the session's start (epoch 0, no record dropped by
        /// [`MEMORY_CAP`]): the records before the first epoch record are epoch 0's.
        whole: bool,
        /// Where the epoch in force's records start in `records` (its epoch record; 0 for the
        /// first epoch): a rollover drops the records before it.
        current: usize,
    },
    /// Records appended to the current segment file of a segmented journal.
    File(Box<SegmentedFile>),
}

/// An append that failed: the whole records written before the error stay in the file
/// (`committed` bytes of the records given); the rest is cut from it.
#[derive(Debug)]
pub struct Partial {
    /// Bytes of whole records written (a prefix of what was given).
    pub committed: usize,
    /// The OS error (`WriteZero` for a `write` that took nothing).
    pub error: std::io::Error,
}

impl From<Partial> for std::io::Error {
    fn from(p: Partial) -> Self {
        p.error
    }
}

/// The writers' side of a segmented journal.
#[derive(Debug)]
pub struct SegmentedFile {
    /// The current segment, open for writing at its end.
    file: File,
    /// Bytes of whole records in the current segment (where the next append starts).
    len: u64,
    /// An append failed partway and the bytes past `len` could not be cut: the next append
    /// cuts them first.
    torn: bool,
    /// Kept segments, oldest first; the last is the current one.
    segments: Vec<SegmentInfo>,
    /// The journal thread's side, until [`Store::take_roller`] takes it.
    roller: Option<Roller>,
}

/// Which files hold the messages a RetransmitRequest asks for.
#[derive(Debug)]
pub enum Plan {
    /// The in-memory records (read under the journal lock).
    Memory,
    /// These segment files, oldest first, each with whether its first record belongs to the
    /// epoch asked for (otherwise that epoch's messages start after its epoch record there).
    Files(Vec<(PathBuf, bool)>),
    /// Messages before this sequence number are no longer kept (retention); `None`: none of
    /// the epoch's (its segments were all retired).
    Gone(Option<u64>),
}

/// Rebuilds a session's state from its records (the bytes after the magic, from an empty
/// state): the fold of every record ([`JournalFold`]), and the bytes of whole records.
pub fn recover(records: &[u8]) -> (Recovered, usize) {
    let mut fold = JournalFold::new();
    let mut it = Records::new(records);
    for rec in it.by_ref() {
        fold.apply(rec);
    }
    (fold.recovered(), it.valid_len())
}

impl Store {
    /// Opens (or creates) the segmented journal of `session_id` in `dir` and recovers the
    /// session's state from its newest usable segment ([`segments::open`]: checkpoint, then
    /// the records after it; a torn last record is cut off so that new records follow the
    /// last whole one; a legacy single file is read and moved into the layout).
    pub fn open_file(
        dir: &Path,
        session_id: u64,
        policy: &SegmentPolicy,
    ) -> Result<(Store, Recovered), JournalError> {
        let (file, segments, roller, recovered) = segments::open(dir, session_id, policy)?;
        let len = file
            .metadata()
            .map_err(|source| JournalError::Io {
                path: segments.last().map(|s| s.path.clone()).unwrap_or_default(),
                source,
            })?
            .len();
        Ok((
            Store::File(Box::new(SegmentedFile {
                file,
                len,
                torn: false,
                segments,
                roller: Some(roller),
            })),
            recovered,
        ))
    }

    /// Appends a clock record (`utc_ms`): the session's records from here on are later.
    pub fn mark_clock(&mut self, utc_ms: u64) -> std::io::Result<()> {
        let mut b = Vec::with_capacity(gateway_core::journal::record::HEADER_LEN + 8);
        gateway_core::journal::record::put_clock(&mut b, utc_ms);
        Ok(self.append(&b)?)
    }

    /// Appends encoded records (whole ones). Errors: [`Partial`], the whole records written
    /// before the error and the OS error; the file then ends after those (a record cut
    /// short is cut off, now or before the next append), so a restart, the journal thread's
    /// fold and the next append all see whole records only.
    pub fn append(&mut self, records: &[u8]) -> Result<(), Partial> {
        match self {
            Store::Discard => Ok(()),
            Store::Memory {
                records: m,
                whole,
                current,
            } => {
                if m.len() + records.len() > MEMORY_CAP {
                    tracing::warn!(
                        "in-memory journal full: earlier messages can no longer be retransmitted"
                    );
                    m.clear();
                    *whole = false;
                    *current = 0;
                }
                m.extend_from_slice(records);
                Ok(())
            }
            Store::File(f) => f.append(records),
        }
    }

    /// True for a journal file.
    pub fn is_file(&self) -> bool {
        matches!(self, Store::File(_))
    }

    /// True when records are kept (memory or file).
    pub fn keeps(&self) -> bool {
        !matches!(self, Store::Discard)
    }

    /// The current segment's path (`None` without a journal file).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Store::File(f) => f.segments.last().map(|s| s.path.as_path()),
            _ => None,
        }
    }

    /// The kept segments, oldest first (empty without a journal file).
    pub fn segments(&self) -> &[SegmentInfo] {
        match self {
            Store::File(f) => &f.segments,
            _ => &[],
        }
    }

    /// Takes the journal thread's side of a segmented journal (once).
    pub fn take_roller(&mut self) -> Option<Roller> {
        match self {
            Store::File(f) => f.roller.take(),
            _ => None,
        }
    }

    /// Makes `next` the current segment (the writers append to it from now on); returns the
    /// segments beyond the newest `keep`, taken out of the index (the caller retires them
    /// outside the lock).
    pub fn switch_segment(&mut self, next: NextSegment, keep: usize) -> Vec<SegmentInfo> {
        match self {
            Store::File(f) => {
                f.len = next.bytes();
                f.torn = false;
                f.file = next.file;
                f.segments.push(next.info);
                segments::trim(&mut f.segments, keep)
            }
            _ => Vec::new(),
        }
    }

    /// An in-memory journal (no directory): the records kept since the session started.
    pub fn memory() -> Store {
        Store::Memory {
            records: Vec::new(),
            whole: true,
            current: 0,
        }
    }

    /// Where the messages `from .. end` of epoch `epoch` (the current one, or the previous
    /// one while its segments are kept) are: the segments of that epoch, and the segment
    /// holding its epoch record when the epoch's messages start there: the last segment of an
    /// earlier epoch when the epoch has none of its own (the current one's rollover not rolled
    /// yet; an epoch whose record and the next epoch's both came before a restart), or the one
    /// before the epoch's first segment when that does not start at 1 (a restart between the
    /// epoch record and the roll). The reader takes only the frames between the epoch's record
    /// (or the start of a segment of its own) and the next epoch record (see
    /// `SessionOut::retransmit`). [`Plan::Gone`] when the first message asked for is before
    /// the oldest kept (retention), or nothing of the epoch is kept.
    pub fn plan(&self, epoch: u32, from: u64, end: u64) -> Plan {
        let Store::File(f) = self else {
            return Plan::Memory;
        };
        let own = |s: &SegmentInfo| s.id.epoch == u64::from(epoch);
        let opener = match f.segments.iter().position(own) {
            None => f
                .segments
                .iter()
                .rposition(|s| s.id.epoch < u64::from(epoch)),
            Some(i) if f.segments[i].first_seq > 1 => i.checked_sub(1),
            Some(_) => None,
        };
        let segs: Vec<&SegmentInfo> = f
            .segments
            .iter()
            .enumerate()
            .filter(|(i, s)| own(s) || Some(*i) == opener)
            .map(|(_, s)| s)
            .collect();
        let first_seq = |s: &SegmentInfo| {
            if s.id.epoch == u64::from(epoch) {
                s.first_seq
            } else {
                1
            }
        };
        let Some(first) = segs.first().map(|s| first_seq(s)) else {
            // Nothing of the epoch is kept (its segments retired).
            return Plan::Gone(None);
        };
        if from < first {
            return Plan::Gone(Some(first));
        }
        Plan::Files(
            segs.iter()
                .enumerate()
                .filter(|(i, s)| {
                    let hi = segs.get(i + 1).map_or(u64::MAX, |n| first_seq(n));
                    first_seq(s) < end && from < hi
                })
                .map(|(_, s)| (s.path.clone(), own(s)))
                .collect(),
        )
    }

    /// Session rollover: appends the epoch record (epoch `epoch` starts at UTC ms
    /// `started_ms`). An in-memory journal forgets the epoch before the one ending (it keeps
    /// the ending one: a RetransmitRequest may name it, one rollover back); a segmented one
    /// keeps its segments (retention) and the journal thread starts the new epoch's first
    /// segment at its next turn.
    pub fn start_epoch(&mut self, epoch: u32, started_ms: u64) -> std::io::Result<()> {
        if let Store::Memory {
            records,
            whole,
            current,
        } = self
        {
            // The ending epoch's records stay (from its epoch record), the ones before go; the
            // new epoch's record is appended next.
            records.drain(..*current);
            *whole = *whole && *current == 0;
            *current = records.len();
        }
        let mut b = Vec::with_capacity(gateway_core::journal::record::HEADER_LEN + 16);
        gateway_core::journal::record::put_epoch(&mut b, u64::from(epoch), started_ms);
        Ok(self.append(&b)?)
    }

    /// Calls `f` with every record kept in memory and whether they start at the session's
    /// start (epoch 0); nothing for a file store (see [`Store::plan`]).
    pub fn with_records<R>(&mut self, f: impl FnOnce(&[u8], bool) -> R) -> R {
        match self {
            Store::Memory { records, whole, .. } => f(records, *whole),
            _ => f(&[], false),
        }
    }
}

impl gateway_core::journal::write_ahead::RecordSink for Store {
    type Error = std::io::Error;

    /// [`Store::append`], its error classified ([`StorageFault::of`]).
    fn append(&mut self, records: &[u8]) -> Result<(), AppendFailed<std::io::Error>> {
        Store::append(self, records).map_err(|p| AppendFailed {
            committed: p.committed,
            fault: StorageFault::of(&p.error),
            error: p.error,
        })
    }
}

impl SegmentedFile {
    /// Appends `records` at `len` (see [`Store::append`]): `write` until all is taken; on an
    /// error, keeps the whole records written and cuts the rest.
    fn append(&mut self, records: &[u8]) -> Result<(), Partial> {
        if self.torn {
            self.cut().map_err(|error| Partial {
                committed: 0,
                error,
            })?;
        }
        let mut done = 0;
        let error = loop {
            let Some(rest) = records.get(done..).filter(|r| !r.is_empty()) else {
                self.len += done as u64;
                return Ok(());
            };
            match self.file.write(rest) {
                Ok(0) => break std::io::ErrorKind::WriteZero.into(),
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break e,
            }
        };
        let mut whole = Records::new(&records[..done]);
        for _ in whole.by_ref() {}
        let committed = whole.valid_len();
        self.len += committed as u64;
        if committed < done && self.cut().is_err() {
            self.torn = true;
        }
        Err(Partial { committed, error })
    }

    /// Cuts the file at `len` and writes from there on.
    fn cut(&mut self) -> std::io::Result<()> {
        self.file.set_len(self.len)?;
        self.file.seek(SeekFrom::Start(self.len))?;
        self.torn = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::sbe::ExecutionReport;
    use gateway_core::journal::record::{put_cl_ord_id, put_list_id, put_outbound, Origin, Record};

    /// Outbound sequence numbers in the current segment of `store`.
    fn current_seqs(store: &Store) -> Vec<u64> {
        let bytes = std::fs::read(store.path().unwrap()).unwrap();
        Records::new(&bytes[MAGIC.len()..])
            .filter_map(|x| match x {
                Record::Outbound { seq, .. } => Some(seq),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_file_journal_round_trips_and_drops_a_truncated_tail() {
        let dir = std::env::temp_dir().join(format!("bgw-journal-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let policy = SegmentPolicy::default();
        let (mut store, rec) = Store::open_file(&dir, 3, &policy).unwrap();
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

        let (mut store, rec) = Store::open_file(&dir, 3, &policy).unwrap();
        assert_eq!(rec.next_seq, 3);
        assert_eq!(rec.roots.get(&11), Some(&10));
        assert_eq!(rec.roots.len(), 2);
        assert!(rec.list_ids.contains(4));
        assert!(rec.used.contains(10) && rec.used.contains(11));
        // The torn record is gone; new records follow the last whole one.
        let mut more = Vec::new();
        put_outbound(&mut more, 3, Origin::Push, b"three");
        store.append(&more).unwrap();
        assert_eq!(current_seqs(&store), [1, 2, 3]);
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
        std::fs::write(segments::legacy_path(&dir, 1), b"hello").unwrap();
        assert!(matches!(
            Store::open_file(&dir, 1, &SegmentPolicy::default()),
            Err(JournalError::NotAJournal(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
