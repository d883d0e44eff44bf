//! Strategy lists (NewOrderList, OrderCancelReplaceList, OrderCancelList) in the tracker: the
//! exchange batches in flight, their per-item replies, and the ListStatus of each list.
//!
//! Each item of a batch reply (matched by clientOid, else by position) is applied like the
//! reply of its single op ([`Tracker::apply_reply`]). An `event:"error"` reply refuses every
//! item of the batch, except the outcome-unknown codes, which leave the items to the order
//! channel (their entries say Accepted with the code). A list's ListStatus is released once the
//! io thread said it is done ([`ListDone`]) and every batch it wrote has its reply.

use codec::json::TradeReply;
use codec::sbe::{ItemStatus, ListStatusEntry, OrdRejReason, Text};

use super::core::{Tracker, OUTCOME_UNKNOWN_CODES};
use super::request::{BatchItem, ListDone, SentBatch};
use super::resolve::UnknownCause;
use crate::ids::{parse_request_id, ClientOid};
use crate::metrics::Leg;

pub use super::list_state::ListReport;
use super::list_state::{item_cl_ord_id, list_template, BatchInFlight, OpenList};

impl Tracker {
    /// An exchange batch of a list was written.
    pub fn on_sent_batch(&mut self, batch: SentBatch) {
        for item in &batch.items {
            self.register(batch.session_id, item.root, item.kind, batch.t_written_ns);
            self.note_reply_due((batch.session_id, item.root), true);
        }
        let list = self
            .lists
            .open
            .get_or_insert((batch.session_id, batch.list_id), OpenList::default());
        list.t_last_ns = batch.t_written_ns.max(1);
        if list.implied_msg_type == 0 {
            list.implied_msg_type = batch.items.first().map_or(0, |i| list_template(&i.kind));
        }
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
        // Its batches were written but it is not open: released without its ListDone
        // (`Lists::release_stale`), which comes late; what it adds (the refused items) goes
        // out at once rather than waiting for batches answered already.
        let released = done.batches_sent > 0
            && !self.lists.open.contains_key(&key)
            && !self
                .lists
                .in_flight
                .values()
                .any(|b| (b.session_id, b.list_id) == key);
        let list = self.lists.open.get_or_insert(key, OpenList::default());
        if released {
            list.answered = done.batches_sent;
        }
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
        if self.lists.in_flight.is_empty() {
            return None;
        }
        let batch = parse_request_id(id).and_then(|id| self.lists.in_flight.remove(&id))?;
        for item in &batch.items {
            self.note_reply_due((batch.session_id, item.root), false);
        }
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
            let ix =
                by_oid.or_else(|| (!answered.get(pos).copied().unwrap_or(true)).then_some(pos));
            let (Some(ix), Some(item)) = (ix, ix.and_then(|i| batch.items.get(i))) else {
                self.stats.unknown_replies += 1;
                continue;
            };
            if let Some(a) = answered.get_mut(ix) {
                *a = true;
            }
            let code = if r.code.0 != 0 {
                r.code.0
            } else {
                reply.code.0
            };
            let msg = if r.code.0 != 0 { r.msg } else { reply.msg };
            entries.push(self.apply_item(
                t_read_ns,
                utc_ns,
                batch.session_id,
                item,
                code,
                msg,
                r.order_id,
            ));
        }
        // Items the reply does not mention: a whole-batch code, else left to the order channel.
        for (item, _) in batch.items.iter().zip(&answered).filter(|(_, a)| !**a) {
            let (code, msg) = if reply.code.0 != 0 {
                (reply.code.0, reply.msg)
            } else {
                (
                    OUTCOME_UNKNOWN_CODES[0],
                    "no result for this item in the batch reply",
                )
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

    /// Ends the batches in flight that `expired(account, t_written_ns)` selects: their items'
    /// outcomes are unknown (queued for resolution) and their ListStatus entries say Accepted
    /// with code 40010.
    pub(super) fn expire_batches(
        &mut self,
        expired: impl Fn(usize, u64) -> bool,
        cause: UnknownCause,
    ) {
        if self.lists.in_flight.is_empty() {
            return;
        }
        let ids: Vec<u64> = self
            .lists
            .in_flight
            .iter()
            .filter(|(_, b)| expired(self.account_of(b.session_id), b.t_written_ns))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(batch) = self.lists.in_flight.remove(&id) else {
                continue;
            };
            let mut entries = Vec::with_capacity(batch.items.len());
            for item in &batch.items {
                self.note_reply_due((batch.session_id, item.root), false);
                self.mark_unknown(batch.session_id, item.root, item.kind, cause);
                entries.push(ListStatusEntry {
                    cl_ord_id: item_cl_ord_id(&item.kind),
                    order_id: self.order_id_of((batch.session_id, item.root)),
                    exchange_code: OUTCOME_UNKNOWN_CODES[0],
                    item_status: ItemStatus::Accepted,
                    ord_rej_reason: None,
                    text: Text::new("outcome unknown: querying the exchange"),
                });
            }
            self.finish_batch(&batch, entries);
        }
    }

    fn finish_batch(&mut self, batch: &BatchInFlight, entries: Vec<ListStatusEntry>) {
        let key = (batch.session_id, batch.list_id);
        let list = self.lists.open.get_or_insert(key, OpenList::default());
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
            self.mark_unknown(session_id, item.root, item.kind, UnknownCause::Code(code));
            self.order_id_of((session_id, item.root))
        } else {
            if code == 0 {
                self.watch_reply(session_id, item.root, item.kind, t_read_ns);
            }
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

#[cfg(test)]
mod tests {
    use codec::json::JsonParser;
    use codec::sbe::{Category, ItemStatus, OrdType, Side, Symbol, TimeInForce};

    use super::super::core::{ReportMsg, Tracker};
    use super::super::request::{BatchItem, ListDone, NewOrder, RequestKind, SentBatch};
    use crate::ids::ClientOid;

    const S: u64 = 7;

    fn new_item(cl: u64) -> BatchItem {
        BatchItem {
            root: cl,
            kind: RequestKind::New(NewOrder {
                cl_ord_id: cl,
                category: Category::UsdtFutures,
                symbol: Symbol::new("BTCUSDT").unwrap(),
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: TimeInForce::Gtc,
                price: Some("100".parse().unwrap()),
                qty: "1".parse().unwrap(),
            }),
        }
    }

    fn sent(t: &mut Tracker, req_id: u64, list_id: u64, cls: &[u64]) {
        t.on_sent_batch(SentBatch {
            req_id,
            session_id: S,
            list_id,
            items: cls.iter().map(|&cl| new_item(cl)).collect(),
            t_written_ns: 1,
        });
    }

    fn frame(t: &mut Tracker, p: &mut JsonParser, json: &str) -> Vec<ReportMsg> {
        let inbound = p.parse(json.as_bytes()).unwrap();
        t.on_inbound(10, 5, &inbound);
        t.drain_reports().map(|r| r.msg).collect()
    }

    fn done(t: &mut Tracker, list_id: u64, batches_sent: u32) {
        t.on_list_done(ListDone {
            session_id: S,
            list_id,
            ref_msg_type: 107,
            batches_sent,
            refused: Vec::new(),
        });
    }

    #[test]
    fn items_match_by_client_oid_and_the_list_waits_for_every_batch() {
        let (mut t, mut p) = (Tracker::new(), JsonParser::new());
        sent(&mut t, 1, 9, &[11, 12]);
        sent(&mut t, 2, 9, &[13]);
        done(&mut t, 9, 2);
        let oid = |cl| ClientOid::new(S, cl).as_str().to_string();
        // Reply items in reverse order: matched by clientOid.
        let reply = format!(
            r#"{{"event":"trade","id":"1","topic":"batch-place","args":[{{"orderId":"","clientOid":"{}","code":"25227","msg":"no position"}},{{"orderId":"501","clientOid":"{}","code":"0","msg":"Success"}}],"code":"0","msg":"success"}}"#,
            oid(12),
            oid(11)
        );
        let reports = frame(&mut t, &mut p, &reply);
        assert_eq!(reports.len(), 2);
        assert!(
            t.drain_list_reports().next().is_none(),
            "batch 2 still open"
        );
        // The second batch refused as a whole.
        let reports = frame(
            &mut t,
            &mut p,
            r#"{"event":"error","id":"2","code":"40017","msg":"bad"}"#,
        );
        assert!(
            matches!(reports[..], [ReportMsg::Exec(er)] if er.cl_ord_id == 13 && er.exchange_code == 40017)
        );
        let lists: Vec<_> = t.drain_list_reports().collect();
        assert_eq!(lists.len(), 1);
        let e = &lists[0].entries;
        assert_eq!(e.len(), 3);
        let by = |cl| e.iter().find(|x| x.cl_ord_id == cl).unwrap();
        assert_eq!(by(11).item_status, ItemStatus::Accepted);
        assert_eq!(by(11).order_id, 501);
        assert_eq!(
            (by(12).item_status, by(12).exchange_code),
            (ItemStatus::Rejected, 25227)
        );
        assert_eq!(by(13).item_status, ItemStatus::Rejected);
        assert_eq!(t.open_lists(), 0);
    }

    /// A list whose ListDone never comes is released as it stands once the io thread has been
    /// silent for two reply timeouts after its last batch was answered, and leaves the
    /// tracker; a ListDone coming after that goes out alone at once.
    #[test]
    fn a_list_without_its_list_done_is_released_after_the_timeout() {
        let (mut t, mut p) = (Tracker::new(), JsonParser::new());
        let reply_ns = super::super::unknown::DEFAULT_REPLY_TIMEOUT_MS * 1_000_000;
        sent(&mut t, 1, 9, &[11]);
        let oid = ClientOid::new(S, 11).as_str().to_string();
        let reply = format!(
            r#"{{"event":"trade","id":"1","topic":"batch-place","args":[{{"orderId":"501","clientOid":"{oid}","code":"0","msg":"Success"}}],"code":"0","msg":"success"}}"#
        );
        frame(&mut t, &mut p, &reply);
        t.on_tick(2 * reply_ns, 5);
        assert_eq!(
            t.open_lists(),
            1,
            "not yet: the io thread may still write a batch"
        );
        assert!(t.drain_list_reports().next().is_none());
        t.on_tick(2 * reply_ns + 1_000_000_000, 5);
        let lists: Vec<_> = t.drain_list_reports().collect();
        assert_eq!(t.open_lists(), 0, "released: it no longer stays for ever");
        assert_eq!(lists.len(), 1);
        assert_eq!(lists[0].ref_msg_type, 107, "implied by its place batch");
        assert_eq!(lists[0].entries.len(), 1);
        assert_eq!(lists[0].entries[0].order_id, 501);
        // The ListDone, late: what it holds goes out at once, nothing stays open.
        t.on_list_done(ListDone {
            session_id: S,
            list_id: 9,
            ref_msg_type: 107,
            batches_sent: 1,
            refused: vec![codec::sbe::ListStatusEntry {
                cl_ord_id: 12,
                order_id: 0,
                exchange_code: 0,
                item_status: ItemStatus::Rejected,
                ord_rej_reason: None,
                text: codec::sbe::Text::new("risk"),
            }],
        });
        let late: Vec<_> = t.drain_list_reports().collect();
        assert_eq!((late.len(), late[0].entries.len()), (1, 1));
        assert_eq!(t.open_lists(), 0);
    }

    #[test]
    fn outcome_unknown_batch_leaves_items_open() {
        let (mut t, mut p) = (Tracker::new(), JsonParser::new());
        sent(&mut t, 1, 9, &[11]);
        done(&mut t, 9, 1);
        let reports = frame(
            &mut t,
            &mut p,
            r#"{"event":"error","id":"1","code":"40010","msg":"timeout"}"#,
        );
        assert!(reports.is_empty());
        let lists: Vec<_> = t.drain_list_reports().collect();
        assert_eq!(lists[0].entries[0].item_status, ItemStatus::Accepted);
        assert_eq!(lists[0].entries[0].exchange_code, 40010);
        assert!(t.order(S, 11).is_some_and(|o| !o.is_terminal()));
    }
}
