//! Per-SESSION state on the io thread, kept from start-up for the gateway's life (FIXP
//! recoverable flow): the session's writer ([`SessionOut`], numbering and journaling its
//! application messages across reconnects), its order-entry state (ClOrdIDs used), and the
//! strategy's expected inbound sequence number. A connection takes the order-entry state at
//! Establish and gives it back when it ends.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

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
    /// What crash recovery rebuilds the tracker from: every ClOrdID → root, and the
    /// ExecutionReports sent, in order (taken once at start-up).
    pub(super) restore: Option<(HashMap<u64, u64>, Vec<codec::sbe::ExecutionReport>)>,
}

/// Opens every granted session's journal (`dir`), or memory journals when `dir` is `None`,
/// and rebuilds each session's outbound sequence number and used ClOrdIDs / ListIDs.
/// The returned registry lists the writers for the journal thread.
pub(super) fn open_sessions(
    session_ids: impl Iterator<Item = u64>,
    dir: Option<&Path>,
    now_ns: u64,
) -> Result<(HashMap<u64, SessionSlot>, Registry), JournalError> {
    let mut slots = HashMap::new();
    let registry = Registry::default();
    for id in session_ids {
        let (store, rec) = match dir {
            Some(d) => Store::open_file(d, id)?,
            None => (
                Store::Memory(Vec::new()),
                Recovered {
                    next_seq: 1,
                    ..Recovered::default()
                },
            ),
        };
        let recovered = rec.next_seq > 1 || !rec.roots.is_empty();
        if recovered {
            tracing::info!(
                session_id = id,
                next_seq = rec.next_seq,
                cl_ord_ids = rec.roots.len(),
                "session recovered from its journal"
            );
        }
        let out = Arc::new(SessionOut::detached(id, rec.next_seq, store, now_ns));
        let restore = recovered.then(|| (rec.roots.clone(), rec.reports));
        registry.lock().push(Arc::clone(&out));
        slots.insert(
            id,
            SessionSlot {
                out,
                entry: Some(OrderEntry::restore(id, rec.roots, rec.list_ids)),
                next_in_seq: 1,
                recovered,
                restore,
            },
        );
    }
    Ok((slots, registry))
}
