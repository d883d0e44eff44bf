//! The journal fold: a session's journal records folded, one at a time, into what a restart
//! needs ([`Recovered`]), and into the [`Checkpoint`] that starts the next segment. One
//! implementation for both: recovery is `from_checkpoint(newest segment's checkpoint)` then
//! [`JournalFold::apply`] over the records after it; a roll is [`JournalFold::checkpoint`] of
//! the fold the journal thread keeps up to date. So a checkpoint plus the records after it
//! give exactly what folding the whole history gives (tested below over generated histories).
//!
//! What is kept, all bounded by the orders not ended (not by the history):
//! - the next outbound sequence number;
//! - the ClOrdIDs and ListIDs used in the epoch ([`UsedIds`]: ranges);
//! - per order not ended: its ClOrdIDs, the ExecutionReports it was sent (the tracker's
//!   `restore_session` rebuilds it from them, exec ids included, so a duplicated fill stays
//!   recognised; a status report that a later one supersedes is dropped, so an order resting
//!   through many rollovers does not pile them up), whether any report named it yet (and
//!   since when it waits), and its cancel / replace ClOrdIDs not answered yet.
//!
//! An order ends with an ExecutionReport whose OrdStatus is final (Filled, Canceled,
//! Rejected) and no cancel / replace of it still unanswered; it then leaves the orders not
//! ended (its ClOrdIDs stay in `used`) for the **held ends**: the ended orders whose end the
//! strategy may not have read (issue 37), kept, reports and all, so that a restart rebuilds
//! them in the tracker (ended) and the next epoch's OrderStatus reports them, as a tracker
//! that did not restart does (`tracker::unseen`). The fold follows the strategy's presence
//! from the journal's presence records (connected / connection ended, with the tracker's
//! `unseen_tail_ms`) and clock records (a restart: away): an end leaves the held ends once the
//! strategy has been connected for the tail after it (after the later of the end and the
//! connection) plus [`HELD_MARGIN_MS`], measured by the newest time the journal told (reports'
//! TransactTime, clock, presence and epoch records); while the strategy is away nothing
//! leaves. An OrderStatus of a held order (the next epoch's, a mass status') holds it again
//! from its time, as the tracker does. A ClOrdID of a held order used again (a later epoch's
//! new request: the gateway had released it) ends the hold. So the held ends are bounded as
//! the tracker's unseen hold is: the orders that ended while the strategy was away, and those
//! of the last `unseen_tail_ms` + [`HELD_MARGIN_MS`] while it is connected. A cancel or replace accepted for a held end is kept until it is
//! answered (the order back among the orders not ended, ended with a cancel unanswered: a
//! restart resolves it); one for an order that had ended and left the held ends (the order
//! entry knows it until the tracker evicts it) is not kept: the tracker answers it at once, and
//! a crash in that window leaves it unanswered (documented in `docs/behaviour.md`). ExecutionReports answering a repeated ClOrdID (DuplicateOrder) and
//! OrderCancelRejects for a repeated one (DuplicateClOrdID) name another request's ClOrdID and
//! change nothing. A report or OrderCancelReject that precedes the record of the ClOrdID it
//! answers (journals written before batch refusals were journaled ahead of their reports)
//! is remembered for the next [`EARLY_CAP`] such ClOrdIDs, so the ClOrdID is not taken for an
//! order in flight.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use codec::frame::SOFH_LEN;
use codec::sbe::{CxlRejReason, ExecType, ExecutionReport, Message, OrdRejReason, OrdStatus};

use super::checkpoint::{
    Checkpoint, CheckpointError, CheckpointState, HeldEnd, SavedOrder, SavedPresence, SavedReport,
};
use super::record::Record;
use crate::session::retransmit::PreviousEpoch;
use crate::session::used_ids::UsedIds;

/// Most ClOrdIDs answered before their own record the fold remembers (oldest forgotten).
pub const EARLY_CAP: usize = 1024;

/// Ms an end is held beyond the strategy's unseen tail: the presence records are written by
/// the io thread and the reports by the tracker thread (and dated by their own clock reads),
/// so the journal's order of the two can differ from the tracker's by this much at most; the
/// fold errs on the side of holding.
pub const HELD_MARGIN_MS: u64 = 1_000;

/// What a session's journal says about it at start-up (or at any point of the fold).
///
/// Shapes for the users: the order entry takes `roots` (live map) and `used` / `list_ids`
/// (the epoch's ids, [`UsedIds`]); the tracker's `Restore` takes `roots`, `reports`,
/// `unanswered_since_ms` and `unanswered_amends`; crash reconciliation starts from
/// `last_report_ms`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Recovered {
    /// Sequence number of the next application message (last journaled + 1; 1 when empty).
    pub next_seq: u64,
    /// ClOrdID → root ClOrdID of every ClOrdID of an order not ended (the live map: a cancel
    /// or replace may still name them).
    pub roots: HashMap<u64, u64>,
    /// Every ClOrdID the session used in the epoch (ended orders' included): never accepted
    /// again for a new request.
    pub used: UsedIds,
    /// ListIDs the session used in the epoch.
    pub list_ids: UsedIds,
    /// The ExecutionReports sent for the orders not ended, in sequence order (the state of
    /// those orders as the strategy was told it; crash recovery rebuilds the tracker from
    /// them).
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
    /// UTC ms of the last ExecutionReport journaled (its TransactTime; 0: none), ended orders'
    /// included: reconciliation after a restart looks for changes from there.
    pub last_report_ms: u64,
    /// The session's epoch (0 until its first rollover).
    pub epoch: u32,
    /// When the epoch started, UTC ms (epoch 0: the first time the journal was opened; 0 for
    /// an empty journal).
    pub epoch_started_ms: u64,
    /// The epoch before this one and the number of its last message (EstablishmentAck
    /// `PreviousSessionVerID` / `PreviousSeqNo`; a RetransmitRequest may name it). `None`
    /// before the first rollover, or for a journal whose newest checkpoint is of a version
    /// before 3 (its segments, if kept, are then not answered).
    pub previous_epoch: Option<PreviousEpoch>,
    /// Root ClOrdID → epoch it was placed in, for the orders not ended and the held ends of
    /// earlier epochs (carried over a rollover; their clientOid names that epoch). Orders of
    /// the current epoch are not listed.
    pub root_epochs: HashMap<u64, u32>,
    /// Roots of the held ends: ended orders whose end the strategy may not have read. Their
    /// ClOrdIDs are in `roots` and their reports in `reports` (the tracker rebuilds them ended
    /// and holds them for the next epoch's OrderStatus); the restart's reconciliation counts
    /// them ended ([`crate::recovery::EndedBeforeRestart`]).
    pub held_ends: HashSet<u64>,
    /// True when the epoch's rollover had OrderStatus reports still to make (the gateway
    /// stopped while the tracker made them, a tick's worth at a time): after restoring the
    /// orders the restart has the tracker report the session's orders OrderStatus again
    /// (`Tracker::on_epoch` with `started`), so that an end the strategy had not read is not
    /// left out of the new epoch.
    pub status_due: bool,
}

impl Recovered {
    /// True when the journal shows the session was established before the restart (messages
    /// sent or ClOrdIDs used in its epoch, or an epoch after the first): its orders are
    /// restored, and the restart's reconciliation leaves out those that ended before it.
    ///
    /// A session rolled over with nothing sent in its new epoch yet (next number 1, no
    /// ClOrdID of a live order carried) counts: without it the reconciliation took the
    /// session's orders of earlier epochs, ended and reported, for orders the journal did not
    /// know and reported them again from New (found by the deterministic simulation: a
    /// rollover, then a crash before the new epoch's first message).
    pub fn established(&self) -> bool {
        self.next_seq > 1 || !self.used.is_empty() || self.epoch > 0
    }

    /// The session's epoch as the tracker must know it before its orders are restored, when
    /// it is not the first: `(epoch, (root, epoch) of the orders carried from earlier epochs,
    /// by root)`. `None` for a session still in epoch 0 with no order carried.
    pub fn epoch_step(&self) -> Option<(u32, Vec<(u64, u32)>)> {
        if self.epoch == 0 && self.root_epochs.is_empty() {
            return None;
        }
        let mut order_epochs: Vec<(u64, u32)> =
            self.root_epochs.iter().map(|(r, e)| (*r, *e)).collect();
        order_epochs.sort_unstable();
        Some((self.epoch, order_epochs))
    }
}

/// One order not ended.
#[derive(Debug, Clone, Default)]
struct Open {
    /// Epoch the order was placed in.
    epoch: u32,
    cl_ord_ids: Vec<u64>,
    reports: Vec<(u64, ExecutionReport)>,
    since_ms: Option<u64>,
    amends: Vec<u64>,
    ended: bool,
}

/// The strategy's presence as the journal tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// Away (the connection ended, the gateway restarted, or nothing known): ends are held.
    Away,
    /// Connected (established) since UTC ms `since_ms`, with the tracker's unseen tail
    /// `tail_ms`.
    Connected { since_ms: u64, tail_ms: u64 },
}

/// A held end: an ended order and when it ended (or was last told by an OrderStatus).
#[derive(Debug, Clone)]
struct Held {
    order: Open,
    end_ms: u64,
}

/// The incremental fold of one session's journal records.
#[derive(Debug, Clone)]
pub struct JournalFold {
    next_seq: u64,
    used: UsedIds,
    list_ids: UsedIds,
    /// ClOrdID → root of the orders in `orders`.
    live: HashMap<u64, u64>,
    orders: HashMap<u64, Open>,
    last_report_ms: u64,
    last_mark_ms: u64,
    /// ClOrdIDs answered (final ER or OrderCancelReject) before their own record, oldest
    /// first, at most [`EARLY_CAP`].
    early: VecDeque<u64>,
    early_set: HashSet<u64>,
    epoch: u32,
    epoch_started_ms: u64,
    /// Held ends by root.
    held: HashMap<u64, Held>,
    /// ClOrdID → root of the held ends.
    held_live: HashMap<u64, u64>,
    /// (end ms, root) of the held ends, oldest first: the order they leave in.
    held_by_end: BTreeSet<(u64, u64)>,
    presence: Presence,
    /// The newest UTC ms the journal told.
    now_ms: u64,
    /// Roots (orders not ended and held ends) of the epoch's rollover with no OrderStatus
    /// journaled in the epoch yet.
    status_due: BTreeSet<u64>,
    /// The epoch before this one and its last message's number.
    previous: Option<PreviousEpoch>,
}

impl Default for JournalFold {
    fn default() -> Self {
        JournalFold::new()
    }
}

fn is_final(s: OrdStatus) -> bool {
    matches!(
        s,
        OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
    )
}

/// True when status report `new`, following `last` in an order's reports, makes `last`
/// useless to a restart: both are OrderStatus reports of an order not ended, and `new` carries
/// everything the tracker's `restore_session` takes from `last` (OrderID, CumQty not lower,
/// AvgPx, acknowledged: not PendingNew unless `last` was). Folding `[.., last, new]` and `[.., new]` then rebuilds the same order, so the fold
/// keeps only `new`. Without this, every order carried over a session rollover (each gets an
/// OrderStatus in the new epoch) or asked for by OrderMassStatusRequest kept one more report
/// each time: an order resting for days held one per rollover, in memory and in every
/// checkpoint (measured: ~4 MiB more heap per rollover with 10 000 orders resting).
fn supersedes(new: &ExecutionReport, last: &ExecutionReport) -> bool {
    new.exec_type == ExecType::OrderStatus
        && last.exec_type == ExecType::OrderStatus
        && !is_final(new.ord_status)
        && !is_final(last.ord_status)
        && new.cum_qty >= last.cum_qty
        && (new.ord_status != OrdStatus::PendingNew || last.ord_status == OrdStatus::PendingNew)
        && (new.order_id != 0 || last.order_id == 0)
        && (new.avg_px.is_some() || last.avg_px.is_none())
}

impl JournalFold {
    /// The fold of an empty journal.
    pub fn new() -> Self {
        JournalFold {
            next_seq: 1,
            used: UsedIds::new(),
            list_ids: UsedIds::new(),
            live: HashMap::new(),
            orders: HashMap::new(),
            last_report_ms: 0,
            last_mark_ms: 0,
            early: VecDeque::new(),
            early_set: HashSet::new(),
            epoch: 0,
            epoch_started_ms: 0,
            held: HashMap::new(),
            held_live: HashMap::new(),
            held_by_end: BTreeSet::new(),
            presence: Presence::Away,
            now_ms: 0,
            status_due: BTreeSet::new(),
            previous: None,
        }
    }

    /// The epoch folded so far.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The fold a checkpoint holds. Errors: a saved report that is not an ExecutionReport
    /// frame ([`CheckpointError::Report`]).
    pub fn from_checkpoint(cp: &Checkpoint) -> Result<JournalFold, CheckpointError> {
        let s = &cp.state;
        let mut f = JournalFold {
            next_seq: cp.next_seq.max(1),
            used: s.used.clone(),
            list_ids: s.list_ids.clone(),
            last_report_ms: s.last_report_ms,
            last_mark_ms: s.last_mark_ms,
            epoch: u32::try_from(cp.epoch).unwrap_or(u32::MAX),
            epoch_started_ms: s.epoch_started_ms,
            ..JournalFold::new()
        };
        for o in &s.orders {
            for &cl in &o.cl_ord_ids {
                f.live.insert(cl, o.root);
            }
            f.orders.insert(o.root, open_of(o)?);
        }
        for h in &s.held {
            let order = open_of(&h.order)?;
            for &cl in &order.cl_ord_ids {
                f.held_live.insert(cl, h.order.root);
            }
            f.held_by_end.insert((h.end_ms, h.order.root));
            f.held.insert(
                h.order.root,
                Held {
                    order,
                    end_ms: h.end_ms,
                },
            );
        }
        f.presence = if s.presence.connected {
            Presence::Connected {
                since_ms: s.presence.since_ms,
                tail_ms: s.presence.tail_ms,
            }
        } else {
            Presence::Away
        };
        f.now_ms = s.now_ms;
        f.status_due = s.status_due.iter().copied().collect();
        f.previous = s.previous_epoch;
        for &cl in &s.early {
            f.note_early(cl);
        }
        Ok(f)
    }

    /// The checkpoint of everything folded so far (`prev_len` and `epoch` 0: the shell sets
    /// them). Orders by root ascending, so equal folds give equal checkpoints.
    pub fn checkpoint(&self) -> Checkpoint {
        let mut roots: Vec<u64> = self.orders.keys().copied().collect();
        roots.sort_unstable();
        let orders = roots
            .iter()
            .filter_map(|root| Some(saved(*root, self.orders.get(root)?)))
            .collect();
        let held = self
            .held_by_end
            .iter()
            .filter_map(|(end_ms, root)| {
                Some(HeldEnd {
                    order: saved(*root, &self.held.get(root)?.order),
                    end_ms: *end_ms,
                })
            })
            .collect();
        let presence = match self.presence {
            Presence::Away => SavedPresence::default(),
            Presence::Connected { since_ms, tail_ms } => SavedPresence {
                connected: true,
                since_ms,
                tail_ms,
            },
        };
        Checkpoint {
            next_seq: self.next_seq,
            prev_len: 0,
            epoch: u64::from(self.epoch),
            state: CheckpointState {
                epoch_started_ms: self.epoch_started_ms,
                used: self.used.clone(),
                list_ids: self.list_ids.clone(),
                last_report_ms: self.last_report_ms,
                last_mark_ms: self.last_mark_ms,
                orders,
                early: self.early.iter().copied().collect(),
                held,
                status_due: self.status_due.iter().copied().collect(),
                presence,
                now_ms: self.now_ms,
                previous_epoch: self.previous,
            },
        }
    }

    /// Sequence number of the next application message.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Orders not ended (what a checkpoint holds per order).
    pub fn open_orders(&self) -> usize {
        self.orders.len()
    }

    /// Held ends: ended orders whose end the strategy may not have read (a checkpoint holds
    /// them too).
    pub fn held_ends(&self) -> usize {
        self.held.len()
    }

    /// Folds one record in. A checkpoint record replaces the fold with its content (one that
    /// does not decode is skipped: the fold already holds what it would).
    pub fn apply(&mut self, rec: Record<'_>) {
        match rec {
            Record::Outbound { seq, frame, .. } => {
                self.next_seq = self.next_seq.max(seq.saturating_add(1));
                match frame.get(SOFH_LEN..).map(codec::sbe::decode) {
                    Some(Ok(Message::ExecutionReport(er))) => self.on_report(seq, er.to_owned()),
                    Some(Ok(Message::OrderCancelReject(ocr))) => {
                        let ocr = ocr.to_owned();
                        if ocr.cxl_rej_reason != CxlRejReason::DuplicateClOrdID {
                            self.on_answer(ocr.cl_ord_id);
                        }
                    }
                    _ => {}
                }
            }
            Record::ClOrdId { cl_ord_id, root } => self.on_cl_ord_id(cl_ord_id, root),
            Record::ListId(id) => {
                self.list_ids.insert(id);
            }
            Record::Clock(ms) => {
                self.last_mark_ms = self.last_mark_ms.max(ms);
                if self.epoch_started_ms == 0 {
                    self.epoch_started_ms = ms;
                }
                // The gateway (re)opened the journal: the strategy is not connected.
                self.presence = Presence::Away;
                self.now_ms = self.now_ms.max(ms);
            }
            Record::Epoch { epoch, started_ms } => {
                self.now_ms = self.now_ms.max(started_ms);
                self.on_epoch(epoch, started_ms);
            }
            Record::Presence {
                connected,
                ms,
                tail_ms,
            } => {
                self.now_ms = self.now_ms.max(ms);
                self.presence = if connected {
                    Presence::Connected {
                        since_ms: ms,
                        tail_ms,
                    }
                } else {
                    Presence::Away
                };
            }
            Record::Checkpoint(body) => {
                if let Ok(f) =
                    Checkpoint::decode(body).and_then(|cp| JournalFold::from_checkpoint(&cp))
                {
                    *self = f;
                }
                return;
            }
            Record::Unknown(_) => {}
        }
        self.release_seen();
    }

    /// Drops the held ends the strategy has had time to read: connected for its tail (plus
    /// [`HELD_MARGIN_MS`]) after the later of the end and the connection.
    fn release_seen(&mut self) {
        let Presence::Connected { since_ms, tail_ms } = self.presence else {
            return;
        };
        while let Some(&(end_ms, root)) = self.held_by_end.first() {
            let seen_at = end_ms
                .max(since_ms)
                .saturating_add(tail_ms)
                .saturating_add(HELD_MARGIN_MS);
            if self.now_ms < seen_at {
                break;
            }
            self.drop_held(root);
        }
    }

    /// Ends the hold of held end `root`.
    fn drop_held(&mut self, root: u64) {
        if let Some(h) = self.held.remove(&root) {
            self.held_by_end.remove(&(h.end_ms, root));
            self.status_due.remove(&root);
            for cl in h.order.cl_ord_ids {
                self.held_live.remove(&cl);
            }
        }
    }

    /// Holds held end `root` again from `ms` (an OrderStatus told its end again).
    fn hold_again(&mut self, root: u64, ms: u64) {
        if let Some(h) = self.held.get_mut(&root) {
            if ms > h.end_ms {
                self.held_by_end.remove(&(h.end_ms, root));
                h.end_ms = ms;
                self.held_by_end.insert((ms, root));
            }
        }
    }

    /// A new epoch: outbound numbering from 1, the ClOrdIDs of the orders not ended stay used
    /// (reserved until they end), every other ClOrdID and ListID is free again. The orders
    /// carried keep their reports (numbered in the old epoch: they sort before the new ones).
    fn on_epoch(&mut self, epoch: u64, started_ms: u64) {
        self.previous = Some(PreviousEpoch {
            epoch: self.epoch,
            last_seq: self.next_seq.saturating_sub(1),
        });
        self.epoch = u32::try_from(epoch).unwrap_or(u32::MAX);
        self.epoch_started_ms = started_ms;
        self.next_seq = 1;
        self.used = self.live.keys().copied().collect();
        self.list_ids = UsedIds::new();
        self.early.clear();
        self.early_set.clear();
        // The rollover reports every order held OrderStatus (the tracker's ticks make them):
        // due until journaled.
        self.status_due = self
            .orders
            .keys()
            .chain(self.held.keys())
            .copied()
            .collect();
        let held = self.held.values_mut().map(|h| &mut h.order);
        for o in self.orders.values_mut().chain(held) {
            for r in &mut o.reports {
                r.0 = 0;
            }
        }
    }

    fn note_early(&mut self, cl: u64) {
        if self.early_set.insert(cl) {
            self.early.push_back(cl);
            if self.early.len() > EARLY_CAP {
                if let Some(old) = self.early.pop_front() {
                    self.early_set.remove(&old);
                }
            }
        }
    }

    fn take_early(&mut self, cl: u64) -> bool {
        if self.early_set.remove(&cl) {
            self.early.retain(|c| *c != cl);
            true
        } else {
            false
        }
    }

    fn on_cl_ord_id(&mut self, cl: u64, root: u64) {
        if !self.used.insert(cl) {
            return;
        }
        if let Some(&held) = self.held_live.get(&cl) {
            // A ClOrdID of a held end used again (a later epoch): the gateway released the
            // order, so its strategy had read its end.
            self.drop_held(held);
        }
        let answered = self.take_early(cl);
        if cl == root {
            if answered {
                return;
            }
            let (since, epoch) = (self.last_mark_ms, self.epoch);
            let o = self.orders.entry(root).or_insert_with(|| Open {
                since_ms: Some(since),
                epoch,
                ..Open::default()
            });
            o.cl_ord_ids.push(cl);
            self.live.insert(cl, root);
        } else if let Some(o) = self.orders.get_mut(&root) {
            o.cl_ord_ids.push(cl);
            if !answered {
                o.amends.push(cl);
            }
            self.live.insert(cl, root);
        } else if let Some(h) = self.held.get_mut(&root) {
            // A cancel or replace of a held end (sent by a strategy that had not read the end):
            // the order is kept as one ended with a cancel unanswered until it is answered, so
            // that a crash before the answer leaves it resolved (answered once) after the
            // restart, then held again.
            h.order.cl_ord_ids.push(cl);
            self.held_live.insert(cl, root);
            if answered {
                return;
            }
            let end_ms = h.end_ms;
            if let Some(h) = self.held.remove(&root) {
                self.held_by_end.remove(&(end_ms, root));
                let mut o = h.order;
                for c in &o.cl_ord_ids {
                    self.held_live.remove(c);
                    self.live.insert(*c, root);
                }
                o.amends.push(cl);
                o.ended = true;
                self.orders.insert(root, o);
            }
        }
    }

    fn on_report(&mut self, seq: u64, er: ExecutionReport) {
        let ms = er.transact_time / 1_000_000;
        self.last_report_ms = self.last_report_ms.max(ms);
        self.last_mark_ms = self.last_mark_ms.max(ms);
        self.now_ms = self.now_ms.max(ms);
        if er.ord_rej_reason == Some(OrdRejReason::DuplicateOrder) {
            return;
        }
        if !self.live.contains_key(&er.cl_ord_id) && !self.live.contains_key(&er.orig_cl_ord_id) {
            let held = self
                .held_live
                .get(&er.cl_ord_id)
                .or_else(|| self.held_live.get(&er.orig_cl_ord_id))
                .copied();
            if let Some(root) = held {
                // A held end told again (an OrderStatus: the next epoch's, a mass status'):
                // held from now, as the tracker holds it.
                self.hold_again(root, self.now_ms);
                if er.exec_type == ExecType::OrderStatus {
                    self.status_due.remove(&root);
                }
                return;
            }
        }
        let root = self
            .live
            .get(&er.cl_ord_id)
            .or_else(|| self.live.get(&er.orig_cl_ord_id))
            .copied()
            .unwrap_or(er.cl_ord_id);
        let fin = is_final(er.ord_status);
        let o = match self.orders.get_mut(&root) {
            Some(o) => o,
            None if fin => {
                if !self.used.contains(er.cl_ord_id) {
                    self.note_early(er.cl_ord_id);
                }
                return;
            }
            // Known only from reports (not journaled as used: e.g. a drop-copy session).
            None => self.orders.entry(root).or_insert_with(|| Open {
                epoch: self.epoch,
                ..Open::default()
            }),
        };
        if er.exec_type == ExecType::OrderStatus {
            self.status_due.remove(&root);
        }
        // An OrderStatus report (a rollover's, a mass status') tells the state as the gateway
        // knew it and answers no request: an order still in flight then stays unanswered.
        if er.exec_type != ExecType::OrderStatus {
            o.since_ms = None;
            o.amends.retain(|c| *c != er.cl_ord_id);
        }
        match o.reports.as_mut_slice() {
            [_, .., last] if supersedes(&er, &last.1) => *last = (seq, er),
            _ => o.reports.push((seq, er)),
        }
        o.ended |= fin;
        if o.ended && o.amends.is_empty() {
            self.end(root);
        }
    }

    fn on_answer(&mut self, cl: u64) {
        let Some(&root) = self.live.get(&cl) else {
            if !self.used.contains(cl) {
                self.note_early(cl);
            }
            return;
        };
        if let Some(o) = self.orders.get_mut(&root) {
            o.amends.retain(|c| *c != cl);
            if o.ended && o.amends.is_empty() {
                self.end(root);
            }
        }
    }

    /// Order `root` ended: it leaves the orders not ended for the held ends (its strategy may
    /// not have read its end yet).
    fn end(&mut self, root: u64) {
        if let Some(o) = self.orders.remove(&root) {
            for cl in &o.cl_ord_ids {
                self.live.remove(cl);
            }
            // A root used again in a later epoch replaces the old epoch's held end.
            self.drop_held(root);
            for &cl in &o.cl_ord_ids {
                self.held_live.insert(cl, root);
            }
            let end_ms = self.now_ms;
            self.held_by_end.insert((end_ms, root));
            self.held.insert(root, Held { order: o, end_ms });
        }
    }

    /// What a restart needs, as folded so far.
    pub fn recovered(&self) -> Recovered {
        // In sequence order; the reports of orders carried over a rollover (numbered 0 in the
        // new epoch) first, by root, each order's in the order sent (a stable sort).
        let held = self.held.iter().map(|(root, h)| (root, &h.order));
        let mut reports: Vec<(u64, u64, ExecutionReport)> = self
            .orders
            .iter()
            .chain(held.clone())
            .flat_map(|(root, o)| o.reports.iter().map(|(seq, er)| (*seq, *root, *er)))
            .collect();
        reports.sort_by_key(|(seq, root, _)| (*seq, if *seq == 0 { *root } else { 0 }));
        let mut unanswered_amends: Vec<u64> = self
            .orders
            .values()
            .flat_map(|o| o.amends.iter().copied())
            .collect();
        unanswered_amends.sort_unstable();
        let mut roots = self.live.clone();
        roots.extend(self.held_live.iter().map(|(c, r)| (*c, *r)));
        Recovered {
            next_seq: self.next_seq,
            roots,
            used: self.used.clone(),
            list_ids: self.list_ids.clone(),
            reports: reports.into_iter().map(|(_, _, er)| er).collect(),
            unanswered_since_ms: self
                .orders
                .iter()
                .filter_map(|(root, o)| o.since_ms.map(|ms| (*root, ms)))
                .collect(),
            unanswered_amends,
            last_report_ms: self.last_report_ms,
            epoch: self.epoch,
            epoch_started_ms: self.epoch_started_ms,
            previous_epoch: self.previous,
            root_epochs: self
                .orders
                .iter()
                .chain(held)
                .filter(|(_, o)| o.epoch != self.epoch)
                .map(|(root, o)| (*root, o.epoch))
                .collect(),
            held_ends: self.held.keys().copied().collect(),
            status_due: !self.status_due.is_empty(),
        }
    }
}

/// The fold's order of a saved one. Errors: a saved report that is not an ExecutionReport
/// frame ([`CheckpointError::Report`]).
fn open_of(o: &SavedOrder) -> Result<Open, CheckpointError> {
    let mut reports = Vec::with_capacity(o.reports.len());
    for r in &o.reports {
        match r.frame.get(SOFH_LEN..).map(codec::sbe::decode) {
            Some(Ok(Message::ExecutionReport(er))) => reports.push((r.seq, er.to_owned())),
            _ => return Err(CheckpointError::Report),
        }
    }
    Ok(Open {
        epoch: o.epoch,
        cl_ord_ids: o.cl_ord_ids.clone(),
        reports,
        since_ms: o.unanswered_since_ms,
        amends: o.amends.clone(),
        ended: o.ended,
    })
}

/// The checkpoint's form of order `o` (root `root`): its reports as frames.
fn saved(root: u64, o: &Open) -> SavedOrder {
    SavedOrder {
        root,
        epoch: o.epoch,
        cl_ord_ids: o.cl_ord_ids.clone(),
        reports: o
            .reports
            .iter()
            .map(|(seq, er)| {
                let mut frame = Vec::with_capacity(ExecutionReport::FRAME_LEN);
                er.encode_frame(&mut frame);
                SavedReport { seq: *seq, frame }
            })
            .collect(),
        unanswered_since_ms: o.since_ms,
        amends: o.amends.clone(),
        ended: o.ended,
    }
}

#[cfg(test)]
mod tests;
