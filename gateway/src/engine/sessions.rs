//! Per-SESSION state on the io thread, kept from start-up for the gateway's life (FIXP
//! recoverable flow): the session's writer ([`SessionOut`], numbering and journaling its
//! application messages across reconnects), its order-entry state (ClOrdIDs used), and the
//! strategy's expected inbound sequence number. A connection takes the order-entry state at
//! Establish and gives it back when it ends.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::journal::segments::SegmentPolicy;
use crate::journal::store::{Recovered, Store};
use crate::journal::{JournalError, Registry};
use crate::session::order_entry::OrderEntry;
use crate::session::out::SessionOut;

/// One session's state between and across its connections.
pub(super) struct SessionSlot {
    /// The session's writer (socket attached while a connection is established).
    pub(super) out: Arc<SessionOut>,
    /// Order-entry state while no connection holds it.
    pub(super) entry: Option<OrderEntry>,
    /// Implicit sequence number expected of the strategy's next application message.
    pub(super) next_in_seq: u64,
    /// The journal shows the session was established before a restart (messages or ClOrdIDs).
    pub(super) recovered: bool,
    /// What crash recovery rebuilds the tracker from (taken once at start-up).
    pub(super) restore: Option<Recovered>,
    /// When the session's epoch started, UTC ms (the operator's rollover schedule counts
    /// from it).
    pub(super) epoch_started_ms: u64,
    /// The writer already started this epoch at a scheduled rollover's Terminate; the rest of
    /// the rollover (order entry, inbound numbering, tracker) happens once the connection has
    /// ended ([`super::epochs::roll_if_due`]).
    pub(super) writer_rolled: Option<u32>,
    /// Since when no connection holds the session, UTC ms (its last connection's end, or the
    /// gateway's start): an epoch the schedule ended waits [`AWAY_GRACE_MS`] from here for the
    /// strategy to come back and catch up.
    ///
    /// [`AWAY_GRACE_MS`]: gateway_core::session::rollover::AWAY_GRACE_MS
    pub(super) away_since_ms: u64,
}

/// Opens every granted session's journal (`dir`), or memory journals when `dir` is `None`,
/// and rebuilds each session's outbound sequence number and used ClOrdIDs / ListIDs; each
/// writer cuts off a connection that leaves more than `max_backlog` bytes unread.
/// The returned registry lists the writers for the journal thread.
pub(super) fn open_sessions(
    session_ids: impl Iterator<Item = u64>,
    dir: Option<&Path>,
    policy: &SegmentPolicy,
    max_backlog: usize,
    now_ns: u64,
) -> Result<(HashMap<u64, SessionSlot>, Registry), JournalError> {
    let mut slots = HashMap::new();
    let registry = Registry::default();
    let now_ms = crate::metrics::utc_now_ns() / 1_000_000;
    let ids: Vec<u64> = session_ids.collect();
    let opened = match dir {
        Some(d) => open_files(&ids, d, policy, now_ms)?,
        None => ids
            .iter()
            .map(|_| {
                (
                    Store::memory(),
                    Recovered {
                        next_seq: 1,
                        ..Recovered::default()
                    },
                )
            })
            .collect(),
    };
    for (id, (store, rec)) in ids.into_iter().zip(opened) {
        let recovered = rec.established();
        if recovered {
            tracing::info!(
                session = id,
                next_seq = rec.next_seq,
                cl_ord_ids = rec.used.len(),
                live_cl_ord_ids = rec.roots.len(),
                "session recovered from its journal"
            );
        }
        let out = Arc::new(
            SessionOut::detached(id, rec.next_seq, store, now_ns)
                .with_max_backlog(max_backlog)
                .in_epoch(rec.epoch, rec.previous_epoch),
        );
        let entry = gateway_core::recovery::order_entry(id, &rec);
        // A fresh journal's epoch starts now (its first clock record says so from now on).
        let epoch_started_ms = match rec.epoch_started_ms {
            0 => now_ms,
            ms => ms,
        };
        let restore = recovered.then_some(rec);
        registry.lock().push(Arc::clone(&out));
        slots.insert(
            id,
            SessionSlot {
                out,
                entry: Some(entry),
                next_in_seq: 1,
                recovered,
                restore,
                epoch_started_ms,
                writer_rolled: None,
                away_since_ms: now_ms,
            },
        );
    }
    Ok((slots, registry))
}

/// Opens the journal files of `ids` (in that order) in `dir` and marks each with the clock
/// record `now_ms` (orders journaled from now on were sent after it: crash recovery dates the
/// ones left without a report by it). Each session's journal is its own directory, so they are
/// read and folded on up to [`std::thread::available_parallelism`] threads at once (a restart
/// reads every session's newest segment, up to `segment_bytes` each).
///
/// Errors: the first session's (in `ids` order) whose journal could not be opened.
fn open_files(
    ids: &[u64],
    dir: &Path,
    policy: &SegmentPolicy,
    now_ms: u64,
) -> Result<Vec<(Store, Recovered)>, JournalError> {
    let open_one = |id: u64| -> Result<(Store, Recovered), JournalError> {
        let (mut store, rec) = Store::open_file(dir, id, policy)?;
        store
            .mark_clock(now_ms)
            .map_err(|source| JournalError::Io {
                path: store.path().unwrap_or(dir).to_owned(),
                source,
            })?;
        Ok((store, rec))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(ids.len());
    if threads <= 1 {
        return ids.iter().map(|id| open_one(*id)).collect();
    }
    let per = ids.len().div_ceil(threads);
    let results: Vec<Result<Vec<(Store, Recovered)>, JournalError>> = std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .chunks(per)
            .map(|chunk| s.spawn(move || chunk.iter().map(|id| open_one(*id)).collect()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(JournalError::Io {
                        path: dir.to_owned(),
                        source: std::io::Error::other("journal reader thread panicked"),
                    })
                })
            })
            .collect()
    });
    let mut out = Vec::with_capacity(ids.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}
