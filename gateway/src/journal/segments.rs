//! Journal segments: a session's journal as a sequence of files, each starting with a
//! checkpoint, so that a restart reads the newest one only and the directory stays bounded.
//!
//! Layout: `<dir>/session-<SessionID>/e<epoch, 10 digits>-s<index, 10 digits>.journal`, each
//! the magic `BGWJRNL1`, a checkpoint record ([`gateway_core::journal::checkpoint`]), then
//! records. Index 0 is the legacy single file `<dir>/session-<SessionID>.journal` (journals of
//! builds before segments; no checkpoint: it folds from empty), moved into the session's
//! directory as `e0000000000-s0000000000.journal` once the first segment is whole. Epoch 0
//! until session rollover exists; an epoch's indexes count from 1.
//!
//! Roll ([`Roller`], on the journal thread): when the current segment holds
//! `[journal] segment_bytes` or more, the journal thread (which folds every record appended,
//! reading the file behind the writers, [`Roller::catch_up`]) writes the new segment's magic
//! and checkpoint and fsyncs it *outside* the session's journal lock; then, under the lock,
//! folds and copies the few records appended since the checkpoint into the new file and hands
//! it to the writers. The lock is held for one small read and one small write (the records of
//! the last millisecond or so, typically under a kilobyte: a few µs) whatever the checkpoint's
//! size (a checkpoint of 10 000 open orders is megabytes: writing and syncing it under the
//! lock would stall every order of the session for milliseconds). The checkpoint records how
//! far into the previous segment it reaches (`prev_len`); the previous segment is never cut.
//!
//! Recovery ([`open`]): the newest segment is usable when its checkpoint record is whole and
//! decodes, and the records the previous segment holds past `prev_len` are the first ones
//! after the checkpoint (the copy under the lock completed, so the writers moved to it). A
//! segment that is not usable (a crash during a roll) held nothing the previous one lacks:
//! it is renamed `<name>.unusable` (out of the layout) and the previous one is used. A torn last record is cut, as before segments.
//!
//! Retention: after a roll, segments beyond the newest `[journal] keep_segments` (at least 2,
//! so the previous segment stays until the new one's checkpoint is on disk) are deleted, or
//! moved to `[journal] archive_dir`/`session-<SessionID>/` when set.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use gateway_core::journal::checkpoint::{Checkpoint, HEAD_LEN};
use gateway_core::journal::fold::{JournalFold, Recovered};
use gateway_core::journal::record::{put_checkpoint, Record, Records, HEADER_LEN, KIND_CHECKPOINT};

use super::error::JournalError;

/// First bytes of every journal file (format version 1).
pub const MAGIC: &[u8; 8] = b"BGWJRNL1";

/// Default `[journal] segment_bytes`: 4 MiB. A restart reads at most that per session, plus a
/// checkpoint: about 7 ms of reading and folding per session on the 2-vCPU machine (measured
/// 16 sessions × 16 MiB: 445 ms of CPU, 478-550 ms of a restart with the sessions on two
/// threads, under load; issue 23's restart goal is 1 s in all).
pub const DEFAULT_SEGMENT_BYTES: u64 = 4 << 20;
/// Default `[journal] keep_segments`: 16 (with 4 MiB segments, the same 64 MiB per session
/// and reach of a RetransmitRequest as 4 segments of 16 MiB).
pub const DEFAULT_KEEP_SEGMENTS: usize = 16;
/// Fewest segments kept (the current one and the one before it).
pub const MIN_KEEP_SEGMENTS: usize = 2;

/// How a session's journal is cut into segments and how many are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentPolicy {
    /// A segment is closed and the next started once it holds this many bytes of records after
    /// its checkpoint (checked by the journal thread every millisecond, so a segment may exceed
    /// it by what a millisecond appends).
    pub segment_bytes: u64,
    /// Segments kept in the journal directory, the current one included (at least
    /// [`MIN_KEEP_SEGMENTS`]).
    pub keep_segments: usize,
    /// Where older segments go instead of being deleted (`None`: deleted).
    pub archive_dir: Option<PathBuf>,
}

impl Default for SegmentPolicy {
    fn default() -> Self {
        SegmentPolicy {
            segment_bytes: DEFAULT_SEGMENT_BYTES,
            keep_segments: DEFAULT_KEEP_SEGMENTS,
            archive_dir: None,
        }
    }
}

/// A segment's place in the session's journal: epoch, then index in the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SegmentId {
    /// Session epoch (0 until rollover exists).
    pub epoch: u64,
    /// Index in the epoch, from 1 (index 0 of epoch 0: the legacy single file).
    pub index: u64,
}

impl SegmentId {
    /// The legacy single file (index 0 of epoch 0): no magic-checked checkpoint, folded from
    /// empty. Every other segment starts with a checkpoint, whatever its epoch.
    pub fn is_legacy(self) -> bool {
        self.epoch == 0 && self.index == 0
    }
}

/// One kept segment, as the writers' store indexes it for retransmission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Which segment.
    pub id: SegmentId,
    /// Its file.
    pub path: PathBuf,
    /// Sequence number of the first outbound message it holds (its checkpoint's next_seq; 1
    /// for the legacy file): the messages it holds are numbered from here up to the next
    /// segment's `first_seq` (exclusive).
    pub first_seq: u64,
}

/// The legacy single journal file of a session (builds before segments).
pub fn legacy_path(dir: &Path, session_id: u64) -> PathBuf {
    dir.join(format!("session-{session_id}.journal"))
}

/// The directory of a session's segments.
pub fn session_dir(dir: &Path, session_id: u64) -> PathBuf {
    dir.join(format!("session-{session_id}"))
}

/// File name of a segment.
pub fn segment_name(id: SegmentId) -> String {
    format!("e{:010}-s{:010}.journal", id.epoch, id.index)
}

fn parse_name(name: &str) -> Option<SegmentId> {
    let rest = name.strip_prefix('e')?.strip_suffix(".journal")?;
    let (e, s) = rest.split_once("-s")?;
    Some(SegmentId {
        epoch: e.parse().ok()?,
        index: s.parse().ok()?,
    })
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |source| JournalError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The segments of a session, oldest first (the legacy file as index 0 of epoch 0 when it is
/// still in its old place).
pub fn list(dir: &Path, session_id: u64) -> std::io::Result<Vec<(SegmentId, PathBuf)>> {
    let sdir = session_dir(dir, session_id);
    let mut out = Vec::new();
    match std::fs::read_dir(&sdir) {
        Ok(entries) => {
            for e in entries {
                let e = e?;
                if let Some(id) = e.file_name().to_str().and_then(parse_name) {
                    out.push((id, e.path()));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let legacy = legacy_path(dir, session_id);
    let zero = SegmentId { epoch: 0, index: 0 };
    if legacy.is_file() && !out.iter().any(|(id, _)| *id == zero) {
        out.push((zero, legacy));
    }
    out.sort();
    Ok(out)
}

/// A new segment's bytes before its records: the magic and the checkpoint record.
fn segment_head(cp: &Checkpoint) -> Vec<u8> {
    let mut body = Vec::new();
    cp.encode(&mut body);
    let mut b = Vec::with_capacity(MAGIC.len() + HEADER_LEN + body.len());
    b.extend_from_slice(MAGIC);
    put_checkpoint(&mut b, &body);
    b
}

/// Creates segment `path` holding the magic and `cp`, synced to disk (data and the directory
/// entry); returns it open for writing at its end and its length.
pub fn create(path: &Path, cp: &Checkpoint) -> std::io::Result<(File, u64)> {
    let head = segment_head(cp);
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    f.write_all(&head)?;
    f.sync_data()?;
    if let Some(parent) = path.parent() {
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    Ok((f, head.len() as u64))
}

/// First sequence number of a segment, from the fixed head of its checkpoint (30 bytes read);
/// `None` when it has none that decodes.
fn first_seq_of(id: SegmentId, path: &Path) -> Option<u64> {
    if id.is_legacy() {
        return Some(1);
    }
    let mut f = File::open(path).ok()?;
    let mut b = vec![0u8; MAGIC.len() + HEADER_LEN + HEAD_LEN];
    f.read_exact(&mut b).ok()?;
    let rec = b.get(MAGIC.len()..)?;
    if !b.starts_with(MAGIC) || rec.first() != Some(&KIND_CHECKPOINT) {
        return None;
    }
    Checkpoint::head(rec.get(HEADER_LEN..)?).ok().map(|h| h.0)
}

/// What [`open`] found: the fold of the newest usable segment, positioned at its end.
struct Newest {
    fold: JournalFold,
    /// Bytes of whole records (magic included).
    valid_end: u64,
    /// Bytes of the magic and the checkpoint record (where the records start).
    head_end: u64,
    /// The file is longer (a torn last record).
    file_len: u64,
}

/// Reads segment `segs[i]` as the newest: `None` when it is not usable (see the module doc).
fn read_newest(segs: &[(SegmentId, PathBuf)], i: usize) -> Result<Option<Newest>, JournalError> {
    let (id, path) = &segs[i];
    let bytes = std::fs::read(path).map_err(io_err(path))?;
    let Some(records) = bytes.strip_prefix(MAGIC.as_slice()) else {
        if id.is_legacy() {
            return Err(JournalError::NotAJournal(path.clone()));
        }
        return Ok(None);
    };
    let mut it = Records::new(records);
    let mut fold = if id.is_legacy() {
        JournalFold::new()
    } else {
        let Some(Record::Checkpoint(body)) = it.next() else {
            return Ok(None);
        };
        let Ok(cp) = Checkpoint::decode(body) else {
            return Ok(None);
        };
        let Ok(fold) = JournalFold::from_checkpoint(&cp) else {
            return Ok(None);
        };
        // The records the previous segment holds past the checkpoint must follow it here.
        if let Some((_, prev)) = i.checked_sub(1).and_then(|p| segs.get(p)) {
            if cp.prev_len > 0 && !tail_copied(prev, cp.prev_len, records, it.valid_len())? {
                return Ok(None);
            }
        }
        fold
    };
    let head_end = (MAGIC.len() + it.valid_len()) as u64;
    for r in it.by_ref() {
        fold.apply(r);
    }
    Ok(Some(Newest {
        fold,
        head_end,
        valid_end: (MAGIC.len() + it.valid_len()) as u64,
        file_len: bytes.len() as u64,
    }))
}

/// True when the whole records of `prev` from byte `from` on are `records[at..]`'s first bytes.
fn tail_copied(prev: &Path, from: u64, records: &[u8], at: usize) -> Result<bool, JournalError> {
    let mut f = File::open(prev).map_err(io_err(prev))?;
    f.seek(SeekFrom::Start(from)).map_err(io_err(prev))?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).map_err(io_err(prev))?;
    let mut it = Records::new(&tail);
    for _ in it.by_ref() {}
    let whole = &tail[..it.valid_len()];
    Ok(records.get(at..).is_some_and(|r| r.starts_with(whole)))
}

/// Opens (or creates) the segmented journal of `session_id` in `dir`: recovers the session's
/// state from the newest usable segment (its checkpoint and the records after it), cuts a
/// torn last record, moves a legacy single file into the layout (a first segment is written
/// with the legacy file's checkpoint), applies the retention. Returns the current segment
/// open for appending, the kept segments (oldest first), the journal thread's [`Roller`]
/// and what was recovered. Errors: I/O, or a legacy file without the magic.
pub fn open(
    dir: &Path,
    session_id: u64,
    policy: &SegmentPolicy,
) -> Result<(File, Vec<SegmentInfo>, Roller, Recovered), JournalError> {
    let sdir = session_dir(dir, session_id);
    std::fs::create_dir_all(&sdir).map_err(io_err(&sdir))?;
    let mut segs = list(dir, session_id).map_err(io_err(&sdir))?;
    let mut newest = None;
    while let Some(i) = segs.len().checked_sub(1) {
        if let Some(n) = read_newest(&segs, i)? {
            newest = Some((n, segs[i].clone()));
            break;
        }
        // Renamed, not deleted: a checkpoint of a later build's version is not usable here
        // either, and its segment is worth keeping for that build.
        let (_, path) = segs.remove(i);
        let mut aside = path.clone().into_os_string();
        aside.push(".unusable");
        tracing::warn!(path = %path.display(), "journal: segment without a usable checkpoint (a crash while rolling) set aside as .unusable; the previous segment holds its records");
        std::fs::rename(&path, &aside).map_err(io_err(&path))?;
    }
    let (fold, current) = match newest {
        Some((n, (id, path))) => {
            if n.file_len > n.valid_end {
                tracing::warn!(path = %path.display(), dropped = n.file_len - n.valid_end, "journal: truncated last record ignored");
                let f = OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(io_err(&path))?;
                f.set_len(n.valid_end).map_err(io_err(&path))?;
            }
            (n.fold, Some((id, path, n.valid_end, n.head_end)))
        }
        None => (JournalFold::new(), None),
    };
    let recovered = fold.recovered();
    // The segment to append to: the newest, unless it is the legacy file or there is none.
    let (id, path, len, head_end, file) = match current {
        Some((id, path, len, head_end)) if !id.is_legacy() => {
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .map_err(io_err(&path))?;
            f.seek(SeekFrom::End(0)).map_err(io_err(&path))?;
            (id, path, len, head_end, f)
        }
        prev => {
            let mut cp = fold.checkpoint();
            cp.prev_len = prev.as_ref().map_or(0, |p| p.2);
            let id = SegmentId { epoch: 0, index: 1 };
            let path = sdir.join(segment_name(id));
            let (f, len) = create(&path, &cp).map_err(io_err(&path))?;
            segs.push((id, path.clone()));
            (id, path, len, len, f)
        }
    };
    // A legacy file in its old place moves into the session's directory.
    let legacy = legacy_path(dir, session_id);
    if let Some(slot) = segs.iter_mut().find(|(_, p)| *p == legacy) {
        let to = sdir.join(segment_name(slot.0));
        std::fs::rename(&legacy, &to).map_err(io_err(&legacy))?;
        slot.1 = to;
    }
    let mut infos: Vec<SegmentInfo> = segs
        .iter()
        .filter_map(|(id, path)| {
            Some(SegmentInfo {
                id: *id,
                path: path.clone(),
                first_seq: first_seq_of(*id, path)?,
            })
        })
        .collect();
    let dropped = trim(&mut infos, policy.keep_segments);
    let reader = File::open(&path).map_err(io_err(&path))?;
    let roller = Roller {
        dir: dir.to_owned(),
        session_id,
        policy: policy.clone(),
        fold,
        current: id,
        reader,
        offset: len,
        head_end,
        buf: Vec::new(),
        seen_written: 0,
    };
    roller.retire(dropped);
    Ok((file, infos, roller, recovered))
}

/// Takes the segments beyond the newest `keep` (at least [`MIN_KEEP_SEGMENTS`]) out of
/// `infos` and returns them, oldest first.
pub fn trim(infos: &mut Vec<SegmentInfo>, keep: usize) -> Vec<SegmentInfo> {
    let keep = keep.max(MIN_KEEP_SEGMENTS);
    let n = infos.len().saturating_sub(keep);
    infos.drain(..n).collect()
}

/// A segment the journal thread has written the head of, to be handed to the writers.
#[derive(Debug)]
pub struct NextSegment {
    /// The file (open for writing at its end).
    pub file: File,
    /// Its index entry.
    pub info: SegmentInfo,
    len: u64,
}

impl NextSegment {
    /// Bytes written to it: its head, and once [`Roller::switch`] has run, the records it
    /// copied.
    pub fn bytes(&self) -> u64 {
        self.len
    }
}

/// The journal thread's side of a session's segmented journal: the fold of every record
/// written so far (read back from the current segment) and the rolling.
#[derive(Debug)]
pub struct Roller {
    dir: PathBuf,
    session_id: u64,
    policy: SegmentPolicy,
    fold: JournalFold,
    current: SegmentId,
    /// The current segment, read-only.
    reader: File,
    /// Bytes of the current segment folded (whole records, magic included).
    offset: u64,
    /// Bytes of the current segment's magic and checkpoint.
    head_end: u64,
    buf: Vec<u8>,
    /// The writers' byte count when last caught up (nothing new: no read).
    pub seen_written: u64,
}

impl Roller {
    /// Folds the records appended to the current segment since the last call; returns their
    /// bytes (whole records only: a record being written is folded next time).
    ///
    /// It stops right after a session rollover's epoch record (a new epoch while the current
    /// segment is the old one's): the roll that follows ([`Roller::full`]) checkpoints there,
    /// so the new epoch's first segment holds every message of the epoch from number 1 (the
    /// records after the epoch record are copied into it) and a RetransmitRequest of the new
    /// epoch finds them all there.
    pub fn catch_up(&mut self) -> std::io::Result<&[u8]> {
        self.fold_appended(true)
    }

    /// Folds the whole records appended since the last call, stopping after a new epoch's
    /// record when `stop_at_epoch`; returns their bytes.
    fn fold_appended(&mut self, stop_at_epoch: bool) -> std::io::Result<&[u8]> {
        self.buf.clear();
        self.reader.seek(SeekFrom::Start(self.offset))?;
        self.reader.read_to_end(&mut self.buf)?;
        let mut it = Records::new(&self.buf);
        let mut n = 0;
        while let Some(r) = it.next() {
            let new_epoch = matches!(r, Record::Epoch { epoch, .. } if epoch != self.current.epoch);
            self.fold.apply(r);
            n = it.valid_len();
            if new_epoch && stop_at_epoch {
                break;
            }
        }
        self.offset += n as u64;
        Ok(&self.buf[..n])
    }

    /// True when the records after the current segment's checkpoint have reached
    /// `segment_bytes` (the checkpoint is not counted: one larger than `segment_bytes`, many
    /// open orders, must not make every segment full at birth), or a session rollover was
    /// folded (the new epoch starts a segment of its own).
    pub fn full(&self) -> bool {
        self.offset.saturating_sub(self.head_end) >= self.policy.segment_bytes
            || u64::from(self.fold.epoch()) != self.current.epoch
    }

    /// The fold so far.
    pub fn fold(&self) -> &JournalFold {
        &self.fold
    }

    /// Writes the next segment's magic and checkpoint (of everything folded so far) and syncs
    /// it: the part of a roll done outside the writers' lock.
    pub fn prepare(&mut self) -> std::io::Result<NextSegment> {
        let mut cp = self.fold.checkpoint();
        cp.prev_len = self.offset;
        // A session rollover folded since the last roll starts the new epoch's first segment.
        let epoch = u64::from(self.fold.epoch());
        let id = if epoch == self.current.epoch {
            SegmentId {
                epoch,
                index: self.current.index + 1,
            }
        } else {
            SegmentId { epoch, index: 1 }
        };
        let sdir = session_dir(&self.dir, self.session_id);
        let path = sdir.join(segment_name(id));
        let (file, len) = create(&path, &cp)?;
        Ok(NextSegment {
            file,
            info: SegmentInfo {
                id,
                path,
                first_seq: cp.next_seq,
            },
            len,
        })
    }

    /// Under the writers' lock: folds the records appended since [`Roller::prepare`] and
    /// copies them into `next`, which becomes the segment this roller reads. The caller then
    /// hands `next` to the writers before releasing the lock.
    pub fn switch(&mut self, next: &mut NextSegment) -> std::io::Result<()> {
        let tail_len = {
            // Everything up to the writers' end: they move to `next` once this returns.
            let tail = self.fold_appended(false)?;
            next.file.write_all(tail)?;
            tail.len() as u64
        };
        self.reader = File::open(&next.info.path)?;
        self.head_end = next.len;
        next.len += tail_len;
        self.offset = next.len;
        self.current = next.info.id;
        Ok(())
    }

    /// Deletes the segments `dropped` (taken out of the writers' index by [`trim`]), or moves
    /// them to the archive directory. Failures are logged (the files stay).
    pub fn retire(&self, dropped: Vec<SegmentInfo>) {
        for seg in dropped {
            let r = match &self.policy.archive_dir {
                None => std::fs::remove_file(&seg.path),
                Some(a) => archive(&seg.path, &session_dir(a, self.session_id)),
            };
            match r {
                Ok(()) => {
                    tracing::debug!(path = %seg.path.display(), archived = self.policy.archive_dir.is_some(), "journal segment retired")
                }
                Err(e) => {
                    tracing::warn!(path = %seg.path.display(), error = %e, "journal segment could not be retired")
                }
            }
        }
    }

    /// Segments to keep.
    pub fn keep_segments(&self) -> usize {
        self.policy.keep_segments
    }
}

/// Moves `path` into directory `to` (created): a rename, or a copy then a delete across file
/// systems.
fn archive(path: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    let name = path.file_name().unwrap_or_default();
    let dest = to.join(name);
    if std::fs::rename(path, &dest).is_ok() {
        return Ok(());
    }
    std::fs::copy(path, &dest)?;
    std::fs::remove_file(path)
}

#[cfg(test)]
mod tests;
