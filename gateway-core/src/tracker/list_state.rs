//! The state of strategy lists and their exchange batches (below the tracker core; the
//! tracker's handling of them is in `lists.rs`).

use codec::sbe::ListStatusEntry;

use super::request::{BatchItem, RequestKind};
use crate::key_table::KeyTable;

/// Exchange batches in flight, and strategy lists open, the tracker's tables hold before they
/// first grow (allocated at start; each list and batch enters and leaves them, so a
/// [`KeyTable`]: no rehash under that churn).
pub const INITIAL_LISTS: usize = 1 << 8;

/// The results of one strategy list, ready to be written as ListStatus messages.
#[derive(Debug, Clone)]
pub struct ListReport {
    /// Destination session.
    pub session_id: u64,
    /// The strategy's ListID.
    pub list_id: u64,
    /// Template id of the list answered.
    pub ref_msg_type: u16,
    /// One entry per item (refused ones first, then per exchange batch in reply order).
    pub entries: Vec<ListStatusEntry>,
}

#[derive(Debug)]
pub(super) struct BatchInFlight {
    pub(super) session_id: u64,
    pub(super) list_id: u64,
    pub(super) items: Vec<BatchItem>,
    pub(super) t_written_ns: u64,
}

#[derive(Debug, Default)]
pub(super) struct OpenList {
    pub(super) entries: Vec<ListStatusEntry>,
    pub(super) answered: u32,
    /// Set by [`ListDone`]: (batches written, template id).
    pub(super) done: Option<(u32, u16)>,
    /// When its latest exchange batch was written (monotonic ns; 0: none written yet).
    pub(super) t_last_ns: u64,
    /// The template id its batches' requests imply (107, 108 or 109; 0: none written yet),
    /// for a ListStatus released without its [`ListDone`].
    pub(super) implied_msg_type: u16,
}

/// The list template a request of an exchange batch belongs to: NewOrderList (place),
/// OrderCancelReplaceList (modify), OrderCancelList (cancel).
pub(super) fn list_template(kind: &RequestKind) -> u16 {
    match kind {
        RequestKind::New(_) => codec::sbe::NewOrderList::TEMPLATE_ID,
        RequestKind::Replace { .. } => codec::sbe::OrderCancelReplaceList::TEMPLATE_ID,
        RequestKind::Cancel { .. } => codec::sbe::OrderCancelList::TEMPLATE_ID,
    }
}

/// The tracker's list state.
#[derive(Debug, Default)]
pub(super) struct Lists {
    /// Request id → exchange batch awaiting its reply.
    pub(super) in_flight: KeyTable<BatchInFlight, u64>,
    /// (SessionID, ListID) → list not answered yet.
    pub(super) open: KeyTable<OpenList>,
    pub(super) out: Vec<ListReport>,
}

pub(super) fn item_cl_ord_id(kind: &RequestKind) -> u64 {
    match kind {
        RequestKind::New(n) => n.cl_ord_id,
        RequestKind::Replace { cl_ord_id, .. } | RequestKind::Cancel { cl_ord_id } => *cl_ord_id,
    }
}

impl Lists {
    /// Empty, with room for `n` batches in flight and `n` open lists.
    pub(super) fn with_capacity(n: usize) -> Self {
        Lists {
            in_flight: KeyTable::with_capacity(n),
            open: KeyTable::with_capacity(n),
            out: Vec::new(),
        }
    }

    /// Lists whose [`ListDone`] has not come `timeout_ns` after their latest batch was
    /// written (`now_ns` monotonic) and none of whose batches is still in flight (those end at
    /// the reply timeout first): each is released as it stands, its template implied by its
    /// batches, so that no list is held for ever when the io thread never says it is done
    /// (a defect: it sends ListDone right after a list's last batch). Ascending (session,
    /// ListID). Returns how many.
    pub(super) fn release_stale(&mut self, now_ns: u64, timeout_ns: u64) -> usize {
        if self.open.is_empty() {
            return 0;
        }
        let in_flight = &self.in_flight;
        let mut stale: Vec<(u64, u64)> = self
            .open
            .iter()
            .filter(|(key, l)| {
                l.done.is_none()
                    && l.t_last_ns != 0
                    && now_ns.saturating_sub(l.t_last_ns) >= timeout_ns
                    && !in_flight
                        .values()
                        .any(|b| (b.session_id, b.list_id) == **key)
            })
            .map(|(key, _)| *key)
            .collect();
        stale.sort_unstable();
        for key in &stale {
            if let Some(list) = self.open.get_mut(key) {
                list.done = Some((list.answered, list.implied_msg_type));
                tracing::warn!(
                    session = key.0,
                    list_id = key.1,
                    "list released without the io thread's ListDone"
                );
            }
            self.release_if_complete(*key);
        }
        stale.len()
    }

    /// Releases the list's ListStatus when it is complete.
    pub(super) fn release_if_complete(&mut self, key: (u64, u64)) {
        let complete = self
            .open
            .get(&key)
            .is_some_and(|l| matches!(l.done, Some((sent, _)) if l.answered >= sent));
        if !complete {
            return;
        }
        if let Some(list) = self.open.remove(&key) {
            self.out.push(ListReport {
                session_id: key.0,
                list_id: key.1,
                ref_msg_type: list.done.map_or(0, |(_, t)| t),
                entries: list.entries,
            });
        }
    }
}
