//! A session's journal as in-memory segments, written and recovered with the core's own formats
//! (`gateway_core::journal`: records, checkpoint, fold), the way the shell's
//! `gateway::journal` writes its files: every record appended *before* the frame it journals
//! goes to the socket (write-ahead), the fold kept up to date as records are written, and a
//! new segment started with the checkpoint of that fold once the current one holds
//! `roll_bytes` of records. A crash keeps what was appended (the page cache survives the
//! process) and may leave a torn record at the end (a write cut short); a restart reads the
//! newest segment only (its checkpoint, then the records after it, cutting a torn tail), as
//! `gateway::journal::segments::open` does.
//!
//! What is not simulated: the files themselves (the shell's segment roll protocol, retention
//! and directory handling are tested in `gateway/src/journal/segments/tests.rs`).

use gateway_core::journal::checkpoint::Checkpoint;
use gateway_core::journal::durability::StorageFault;
use gateway_core::journal::fold::{JournalFold, Recovered};
use gateway_core::journal::record::{self, Origin, Record, Records};
use gateway_core::journal::write_ahead::{AppendFailed, RecordSink};

use crate::rng::SimRng;

/// One session's journal.
#[derive(Debug, Clone)]
pub struct SimJournal {
    /// Record bytes of each segment, oldest first; every one but the first starts with a
    /// checkpoint record.
    segments: Vec<Vec<u8>>,
    /// The fold of every record written (the shell's journal thread keeps the same).
    fold: JournalFold,
    /// Bytes of records after which a segment is rolled.
    roll_bytes: usize,
    /// Where the records of the current segment start (after its checkpoint).
    records_start: usize,
    /// Application frames by sequence number − 1, read back from the records for
    /// retransmission (rebuilt from the segments at recovery).
    frames: Vec<Vec<u8>>,
    /// Segments rolled.
    pub rolls: u64,
    /// Appends still to fail (a storage fault: the disk full or failing), with the fault and
    /// whether a failing append writes its first whole record (a write cut short).
    failing: Option<(u32, StorageFault, bool)>,
}

/// What recovery found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryNote {
    /// Bytes of a torn last record cut off.
    pub torn_bytes: usize,
    /// The newest segment started with a checkpoint (not the first segment).
    pub from_checkpoint: bool,
    /// The session's epoch and next sequence number, as recovered.
    pub epoch: u32,
    /// Sequence number of the next application message, as recovered.
    pub next_seq: u64,
}

impl SimJournal {
    /// An empty journal rolling every `roll_bytes` of records.
    pub fn new(roll_bytes: usize) -> SimJournal {
        SimJournal {
            segments: vec![Vec::new()],
            fold: JournalFold::new(),
            roll_bytes: roll_bytes.max(64),
            records_start: 0,
            frames: Vec::new(),
            rolls: 0,
            failing: None,
        }
    }

    fn current(&mut self) -> &mut Vec<u8> {
        if self.segments.is_empty() {
            self.segments.push(Vec::new());
        }
        let last = self.segments.len() - 1;
        &mut self.segments[last]
    }

    /// Appends encoded records (whole ones), folds them in, and rolls when the segment is full.
    fn append(&mut self, bytes: &[u8]) {
        self.current().extend_from_slice(bytes);
        for rec in Records::new(bytes) {
            self.fold.apply(rec);
        }
        let len = self.segments.last().map_or(0, Vec::len);
        if len.saturating_sub(self.records_start) >= self.roll_bytes {
            self.roll();
        }
    }

    /// Starts a new segment with the checkpoint of everything folded.
    fn roll(&mut self) {
        let cp = self.fold.checkpoint();
        let mut body = Vec::new();
        cp.encode(&mut body);
        let mut seg = Vec::with_capacity(body.len() + record::HEADER_LEN + self.roll_bytes);
        record::put_checkpoint(&mut seg, &body);
        self.records_start = seg.len();
        self.segments.push(seg);
        self.rolls += 1;
    }

    /// The next `appends` appends fail with `fault` (`partial`: each writes its first whole
    /// record when it holds more than one, a write cut short), as a full or failing disk.
    pub fn fail(&mut self, appends: u32, fault: StorageFault, partial: bool) {
        self.failing = (appends > 0).then_some((appends, fault, partial));
    }

    /// True while appends are set to fail.
    pub fn is_failing(&self) -> bool {
        self.failing.is_some()
    }

    /// Appends whole records and keeps the application frames among them for
    /// retransmission.
    fn append_records(&mut self, records: &[u8]) {
        self.append(records);
        for rec in Records::new(records) {
            if let Record::Outbound { seq, frame, .. } = rec {
                self.keep_frame(seq, frame);
            }
        }
    }

    /// Journals application frame `seq` (written by `origin`): the tests' shortcut (the
    /// gateway model writes through the write-ahead rule, `RecordSink`).
    #[cfg(test)]
    pub fn outbound(&mut self, seq: u64, origin: Origin, frame: &[u8]) {
        let mut b = Vec::with_capacity(frame.len() + 16);
        record::put_outbound(&mut b, seq, origin, frame);
        self.append(&b);
        self.keep_frame(seq, frame);
    }

    fn keep_frame(&mut self, seq: u64, frame: &[u8]) {
        let Some(ix) = usize::try_from(seq).ok().and_then(|s| s.checked_sub(1)) else {
            return;
        };
        if self.frames.len() <= ix {
            self.frames.resize(ix + 1, Vec::new());
        }
        self.frames[ix] = frame.to_vec();
    }

    /// Journals the ClOrdIDs (ClOrdID, root) and ListIDs a request used (tests).
    #[cfg(test)]
    pub fn ids(&mut self, cl_ord_ids: &[(u64, u64)], list_ids: &[u64]) {
        let mut b = Vec::new();
        for &(cl, root) in cl_ord_ids {
            record::put_cl_ord_id(&mut b, cl, root);
        }
        for &id in list_ids {
            record::put_list_id(&mut b, id);
        }
        self.append(&b);
    }

    /// Journals an epoch record (epoch `epoch` starts at `utc_ms`: numbering from 1) and starts
    /// a new segment with the checkpoint of the new epoch, as the shell's journal thread does.
    pub fn epoch(&mut self, epoch: u32, utc_ms: u64) {
        let mut b = Vec::new();
        record::put_epoch(&mut b, u64::from(epoch), utc_ms);
        self.append(&b);
        self.frames.clear();
        self.roll();
    }

    /// Journals a clock record (the gateway opened the journal at `utc_ms`).
    pub fn clock(&mut self, utc_ms: u64) {
        let mut b = Vec::new();
        record::put_clock(&mut b, utc_ms);
        self.append(&b);
    }

    /// The frame journaled as `seq` (empty when none).
    pub fn frame(&self, seq: u64) -> Option<&[u8]> {
        let ix = usize::try_from(seq.checked_sub(1)?).ok()?;
        self.frames
            .get(ix)
            .map(Vec::as_slice)
            .filter(|f| !f.is_empty())
    }

    /// Sequence number of the next application message, as journaled.
    pub fn next_seq(&self) -> u64 {
        self.fold.next_seq()
    }

    /// The process died: what was appended stays; with `torn`, the last write was cut short
    /// (a record header and part of its body after the last whole record).
    pub fn crash(&mut self, rng: &mut SimRng, torn: bool) {
        if torn {
            let body = rng.between(1, 40) as usize;
            let cut = rng.between(1, (record::HEADER_LEN + body - 1) as u64) as usize;
            let mut b = Vec::new();
            record::put_outbound(&mut b, u64::MAX, Origin::Push, &vec![0xAB; body]);
            b.truncate(cut);
            self.current().extend_from_slice(&b);
        }
        // Nothing else survives: the fold and the frames are rebuilt from the bytes.
        self.fold = JournalFold::new();
        self.frames.clear();
    }

    /// A restart opens the journal: the newest segment read (its checkpoint, then the records
    /// after it; a torn tail cut off so that new records follow the last whole one), the
    /// frames kept for retransmission read back from every segment. Returns what a restart
    /// needs ([`Recovered`]) and what it found.
    pub fn recover(&mut self) -> (Recovered, RecoveryNote) {
        let mut note = RecoveryNote::default();
        let last = self.segments.len().saturating_sub(1);
        let (fold, valid, start) = {
            let seg = self.segments.get(last).map_or(&[][..], Vec::as_slice);
            let mut it = Records::new(seg);
            let mut fold = JournalFold::new();
            let mut start = 0;
            if last > 0 {
                if let Some(Record::Checkpoint(body)) = it.next() {
                    if let Some(f) = Checkpoint::decode(body)
                        .ok()
                        .and_then(|cp| JournalFold::from_checkpoint(&cp).ok())
                    {
                        fold = f;
                        note.from_checkpoint = true;
                    }
                    start = it.valid_len();
                }
            }
            for rec in it.by_ref() {
                fold.apply(rec);
            }
            (fold, it.valid_len(), start)
        };
        if let Some(seg) = self.segments.get_mut(last) {
            note.torn_bytes = seg.len() - valid;
            seg.truncate(valid);
        }
        self.fold = fold;
        self.records_start = start;
        self.frames.clear();
        let segments = std::mem::take(&mut self.segments);
        for seg in &segments {
            for rec in Records::new(seg) {
                match rec {
                    Record::Outbound { seq, frame, .. } => self.keep_frame(seq, frame),
                    // Old epochs are not retransmitted: their numbers start again.
                    Record::Epoch { .. } => self.frames.clear(),
                    _ => {}
                }
            }
        }
        self.segments = segments;
        let rec = self.fold.recovered();
        note.epoch = rec.epoch;
        note.next_seq = rec.next_seq;
        (rec, note)
    }
}

/// The simulated disk under the core's write-ahead rule
/// (`gateway_core::journal::write_ahead`), as the shell's `Store` is under its writer: appends
/// fail while [`SimJournal::fail`] says so.
impl RecordSink for SimJournal {
    type Error = StorageFault;

    fn append(&mut self, records: &[u8]) -> Result<(), AppendFailed<StorageFault>> {
        let Some((left, fault, partial)) = self.failing else {
            self.append_records(records);
            return Ok(());
        };
        self.failing = (left > 1).then_some((left - 1, fault, partial));
        let mut committed = 0;
        if partial {
            let mut it = Records::new(records);
            if it.next().is_some() && it.valid_len() < records.len() {
                committed = it.valid_len();
            }
        }
        self.append_records(&records[..committed]);
        Err(AppendFailed {
            committed,
            fault,
            error: fault,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: u8) -> Vec<u8> {
        vec![n; 20]
    }

    /// Recovery from the newest segment (checkpoint + records) gives what folding every record
    /// gives, a torn tail is cut off, and every frame can still be retransmitted.
    #[test]
    fn a_crash_keeps_what_was_appended_and_recovery_reads_the_newest_segment() {
        let mut j = SimJournal::new(64);
        let mut whole = JournalFold::new();
        let mut all = Vec::new();
        for seq in 1..=40u64 {
            j.ids(&[(seq, seq)], &[]);
            record::put_cl_ord_id(&mut all, seq, seq);
            j.outbound(seq, Origin::OrderEntry, &frame(seq as u8));
            record::put_outbound(&mut all, seq, Origin::OrderEntry, &frame(seq as u8));
        }
        for rec in Records::new(&all) {
            whole.apply(rec);
        }
        assert!(j.rolls > 5, "rolled {} times", j.rolls);
        let mut rng = SimRng::new(7);
        j.crash(&mut rng, true);
        assert_eq!(j.frame(3), None, "nothing but the bytes survives");
        let (rec, note) = j.recover();
        assert!(note.from_checkpoint);
        assert!(note.torn_bytes > 0);
        assert_eq!(rec, whole.recovered());
        assert_eq!(rec.next_seq, 41);
        assert_eq!(j.frame(1), Some(&frame(1)[..]));
        assert_eq!(j.frame(40), Some(&frame(40)[..]));
        // New records follow the last whole one.
        j.outbound(41, Origin::Reply, &frame(41));
        let (rec, note) = j.recover();
        assert_eq!((rec.next_seq, note.torn_bytes), (42, 0));
    }
}
