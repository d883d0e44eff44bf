//! The state of strategy lists and their exchange batches (below the tracker core; the
//! tracker's handling of them is in `lists.rs`).

use std::collections::HashMap;

use codec::sbe::ListStatusEntry;

use super::request::{BatchItem, RequestKind};

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
}

/// The tracker's list state.
#[derive(Debug, Default)]
pub(super) struct Lists {
    pub(super) in_flight: HashMap<u64, BatchInFlight>,
    pub(super) open: HashMap<(u64, u64), OpenList>,
    pub(super) out: Vec<ListReport>,
}

pub(super) fn item_cl_ord_id(kind: &RequestKind) -> u64 {
    match kind {
        RequestKind::New(n) => n.cl_ord_id,
        RequestKind::Replace { cl_ord_id, .. } | RequestKind::Cancel { cl_ord_id } => *cl_ord_id,
    }
}

impl Lists {
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
