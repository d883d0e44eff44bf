//! Strategy lists (NewOrderList, OrderCancelReplaceList, OrderCancelList) in the tracker: the
//! exchange batches in flight, their per-item replies, and the ListStatus of each list.
//!
//! Each item of a batch reply (matched by clientOid, else by position) is applied like the
//! reply of its single op ([`Tracker::apply_reply`]). An `event:"error"` reply refuses every
//! item of the batch, except the outcome-unknown codes, which leave the items to the order
//! channel (their entries say Accepted with the code). A list's ListStatus is released once the
//! io thread said it is done ([`ListDone`]) and every batch it wrote has its reply.

use std::collections::HashMap;

use codec::json::TradeReply;
use codec::sbe::{ItemStatus, ListStatusEntry, OrdRejReason, Text};

use super::core::{Tracker, OUTCOME_UNKNOWN_CODES};
use super::request::{BatchItem, ListDone, RequestKind, SentBatch};
use crate::ids::{parse_request_id, ClientOid};
use crate::metrics::Leg;

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
struct BatchInFlight {
    session_id: u64,
    list_id: u64,
    items: Vec<BatchItem>,
    t_written_ns: u64,
}

#[derive(Debug, Default)]
struct OpenList {
    entries: Vec<ListStatusEntry>,
    answered: u32,
    /// Set by [`ListDone`]: (batches written, template id).
    done: Option<(u32, u16)>,
}

/// The tracker's list state.
#[derive(Debug, Default)]
pub(super) struct Lists {
    in_flight: HashMap<u64, BatchInFlight>,
    open: HashMap<(u64, u64), OpenList>,
    out: Vec<ListReport>,
}

fn item_cl_ord_id(kind: &RequestKind) -> u64 {
    match kind {
        RequestKind::New(n) => n.cl_ord_id,
        RequestKind::Replace { cl_ord_id, .. } | RequestKind::Cancel { cl_ord_id } => *cl_ord_id,
    }
}

impl Lists {
    /// Releases the list's ListStatus when it is complete.
    fn release_if_complete(&mut self, key: (u64, u64)) {
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

impl Tracker {
    /// An exchange batch of a list was written.
    pub fn on_sent_batch(&mut self, batch: SentBatch) {
        for item in &batch.items {
            self.register(batch.session_id, item.root, item.kind, batch.t_written_ns);
        }
        self.lists
            .open
            .entry((batch.session_id, batch.list_id))
            .or_default();
        self.lists.in_flight.insert(
            batch.req_id,
            BatchInFlight {
                session_id: batch.session_id,
                list_id: batch.list_id,
                items: batch.items,
                t_written_ns: batch.t_written_ns,
            },
        );
    }

    /// The io thread is done with a list.
    pub fn on_list_done(&mut self, done: ListDone) {
        let key = (done.session_id, done.list_id);
        let list = self.lists.open.entry(key).or_default();
        list.entries.extend(done.refused);
        list.done = Some((done.batches_sent, done.ref_msg_type));
        self.lists.release_if_complete(key);
    }

    /// Lists completed since the last drain.
    pub fn drain_list_reports(&mut self) -> std::vec::Drain<'_, ListReport> {
        self.lists.out.drain(..)
    }

    /// Lists not answered yet.
    pub fn open_lists(&self) -> usize {
        self.lists.open.len()
    }

    fn take_batch(&mut self, t_read_ns: u64, id: &str) -> Option<BatchInFlight> {
        let batch = parse_request_id(id).and_then(|id| self.lists.in_flight.remove(&id))?;
        self.legs.record(
            Leg::ExchangeReply,
            t_read_ns.saturating_sub(batch.t_written_ns),
        );
        Some(batch)
    }

    /// A `trade` reply; false when it is not the reply of a batch in flight.
    pub(super) fn on_batch_reply(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        reply: &TradeReply<'_>,
    ) -> bool {
        let Some(batch) = self.take_batch(t_read_ns, reply.id) else {
            return false;
        };
        let mut answered = vec![false; batch.items.len()];
        let mut entries = Vec::with_capacity(batch.items.len());
        for (pos, r) in reply.items.iter().enumerate() {
            let by_oid = ClientOid::parse(r.client_oid).and_then(|(s, root)| {
                (s == batch.session_id)
                    .then(|| {
                        (0..batch.items.len()).find(|&i| {
                            !answered.get(i).copied().unwrap_or(true)
                                && batch.items.get(i).is_some_and(|it| it.root == root)
                        })
                    })
                    .flatten()
            });
            let ix = by_oid.or_else(|| (!answered.get(pos).copied().unwrap_or(true)).then_some(pos));
            let (Some(ix), Some(item)) = (ix, ix.and_then(|i| batch.items.get(i))) else {
                self.stats.unknown_replies += 1;
                continue;
            };
            if let Some(a) = answered.get_mut(ix) {
                *a = true;
            }
            let code = if r.code.0 != 0 { r.code.0 } else { reply.code.0 };
            let msg = if r.code.0 != 0 { r.msg } else { reply.msg };
            entries.push(self.apply_item(t_read_ns, utc_ns, batch.session_id, item, code, msg, r.order_id));
        }
        // Items the reply does not mention: a whole-batch code, else left to the order channel.
        for (item, _) in batch.items.iter().zip(&answered).filter(|(_, a)| !**a) {
            let (code, msg) = if reply.code.0 != 0 {
                (reply.code.0, reply.msg)
            } else {
                (OUTCOME_UNKNOWN_CODES[0], "no result for this item in the batch reply")
            };
            entries.push(self.apply_item(t_read_ns, utc_ns, batch.session_id, item, code, msg, ""));
        }
        self.finish_batch(&batch, entries);
        true
    }

    /// An `event:"error"` reply; false when it is not for a batch in flight.
    pub(super) fn on_batch_error(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        id: &str,
        code: u32,
        msg: &str,
    ) -> bool {
        let Some(batch) = self.take_batch(t_read_ns, id) else {
            return false;
        };
        let entries = batch
            .items
            .iter()
            .map(|item| self.apply_item(t_read_ns, utc_ns, batch.session_id, item, code, msg, ""))
            .collect();
        self.finish_batch(&batch, entries);
        true
    }

    fn finish_batch(&mut self, batch: &BatchInFlight, entries: Vec<ListStatusEntry>) {
        let key = (batch.session_id, batch.list_id);
        let list = self.lists.open.entry(key).or_default();
        list.entries.extend(entries);
        list.answered += 1;
        self.lists.release_if_complete(key);
    }

    /// Applies one item's result like its single op's reply and returns its ListStatus entry.
    #[allow(clippy::too_many_arguments)]
    fn apply_item(
        &mut self,
        t_read_ns: u64,
        utc_ns: u64,
        session_id: u64,
        item: &BatchItem,
        code: u32,
        msg: &str,
        order_id: &str,
    ) -> ListStatusEntry {
        let unknown_outcome = OUTCOME_UNKNOWN_CODES.contains(&code);
        let order_id = if unknown_outcome {
            self.stats.outcome_unknown += 1;
            self.order(session_id, item.root).map_or(0, |o| o.order_id)
        } else {
            self.apply_reply(
                t_read_ns, utc_ns, session_id, item.root, item.kind, code, msg, order_id,
            )
            .unwrap_or(0)
        };
        let rejected = code != 0 && !unknown_outcome;
        ListStatusEntry {
            cl_ord_id: item_cl_ord_id(&item.kind),
            order_id,
            exchange_code: code,
            item_status: if rejected {
                ItemStatus::Rejected
            } else {
                ItemStatus::Accepted
            },
            ord_rej_reason: rejected.then_some(OrdRejReason::ExchangeReject),
            text: Text::new(msg),
        }
    }
}
