//! Session epochs in the tracker (session rollover, issue 23): which epoch each session is
//! in (new orders' clientOids carry it), the epochs of orders carried from earlier ones, and
//! what a rollover reports (OrderStatus of every order still held) before the session's ended
//! orders leave.

use codec::sbe::ExecType;

use super::core::{exec_report, ReportMsg, Tracker};
use super::status_due::STATUS_PER_TICK;
use crate::ids::ClientOid;
use crate::journal::record::Origin;

impl Tracker {
    /// Session `session_id` is in epoch `epoch` (its journal says so at start-up, before its
    /// orders are restored: the restored orders not listed in `order_epochs` are of this epoch;
    /// or a rollover: `started`); `order_epochs` gives the epoch of orders carried over from
    /// earlier epochs (root, epoch), applied as they are registered. Orders placed from now on carry `epoch` in their
    /// clientOid. On a rollover (`started`), every order of the session the tracker holds (open,
    /// or ended within the retention window) is queued for an OrderStatus report, made by the
    /// next ticks ([`Tracker::on_tick`], at most [`STATUS_PER_TICK`] each, stamped then, from
    /// the order's state then), and each ended one is evicted once reported (its ClOrdID is
    /// then free in the new epoch; one that ends after the rollover keeps its ClOrdIDs used
    /// for the epoch, [`super::retention::Evicted`]): the first messages of the new epoch
    /// tell the strategy where its orders stand, including how those ended whose last reports
    /// of the old epoch it may not have received. `_utc_ns` is the input's time (kept for the
    /// recorded input).
    pub fn on_epoch(
        &mut self,
        session_id: u64,
        epoch: u32,
        order_epochs: &[(u64, u32)],
        started: bool,
        _utc_ns: u64,
    ) {
        self.session_epochs.insert(session_id, epoch);
        if !started {
            // At start-up, after the session's orders were restored: those of earlier epochs
            // are listed, the others are of this one.
            let unknown: Vec<(u64, u64)> = self
                .orders()
                .filter(|o| o.session_id == session_id && o.epoch.is_none())
                .map(|o| (o.session_id, o.root))
                .collect();
            for key in unknown {
                if let Some(o) = self.orders_mut().get_mut(&key) {
                    o.epoch = Some(epoch);
                }
            }
        }
        for &(root, e) in order_epochs {
            match self.orders_mut().get_mut(&(session_id, root)) {
                Some(o) => o.epoch = Some(e),
                None => {
                    self.carried_epochs.insert((session_id, root), e);
                }
            }
        }
        if !started {
            return;
        }
        // Every order the tracker still holds, open or ended within the retention window (the
        // strategy may have missed how it ended: the old epoch's last messages cannot be asked
        // for in the new one), by root, queued: each tick reports at most
        // [`STATUS_PER_TICK`] of them (a rollover of 16 sessions holds tens of thousands of
        // orders; reported at once they stalled the tracker thread 150-220 ms). The queued
        // ended ones stay until reported; the others leave now.
        // An order whose end was numbered in the new epoch (its writer had rolled at the
        // Terminate) did not end before it: its ClOrdIDs stay used (a resend of it may come
        // before the strategy reads its end).
        // Nor did one whose end the strategy may not have read before it left (see `unseen`):
        // reported OrderStatus, but its ClOrdIDs stay used, since the strategy may resend it
        // before it reads that report.
        let ended_at: std::collections::HashMap<u64, u64> = self
            .ended
            .fifo
            .iter()
            .filter(|(k, _)| k.0 == session_id)
            .map(|&(k, t)| (k.1, t))
            .collect();
        let now = self.ended.clock_ns;
        let next = &self.ended_in_next_epoch;
        let mut held: Vec<(u64, bool)> = self
            .orders()
            .filter(|o| o.session_id == session_id)
            .map(|o| {
                let t = ended_at.get(&o.root).copied().unwrap_or(now);
                let ended = o.is_terminal()
                    && !next.contains(&(session_id, o.root))
                    && !self.end_unseen_at_rollover(session_id, t);
                (o.root, ended)
            })
            .collect();
        self.ended_in_next_epoch.retain(|k| k.0 != session_id);
        held.sort_unstable();
        for (root, ended) in held {
            self.status_due.push((session_id, root), ended);
        }
        self.retire_session(session_id);
    }

    /// Makes up to [`STATUS_PER_TICK`] of the OrderStatus reports rollovers queued (stamped
    /// `utc_ns`), from each order's state now; an ended order leaves once reported. True when
    /// any was made.
    pub(super) fn report_due_status(&mut self, utc_ns: u64) -> bool {
        if self.status_due.is_empty() {
            return false;
        }
        let origin = self.reports.origin;
        self.reports.origin = Origin::Restart;
        let mut made = false;
        let mut held: Vec<(u64, u64)> = Vec::new();
        for _ in 0..STATUS_PER_TICK {
            let Some((key, ended_before)) = self.status_due.pop() else {
                break;
            };
            let Some(o) = self.order(key.0, key.1) else {
                continue;
            };
            let er = exec_report(o, ExecType::OrderStatus, utc_ns);
            let ended = o.is_terminal();
            self.push_report(key, ReportMsg::Exec(er), 0);
            made = true;
            let now = self.ended.clock_ns;
            if ended && (ended_before || !self.end_may_be_unseen(key.0, now)) {
                // Ended before the rollover and its strategy had read the end (its ClOrdIDs
                // free in the new epoch once it has left), or nothing holds this report for
                // its strategy: it leaves now.
                self.try_evict_as(key, ended_before);
            } else if ended {
                // Its end may be unseen (see `unseen`), or it ended in the new epoch: this
                // OrderStatus is itself an end its strategy may not read (it can leave again,
                // even ask for the next epoch, before these reports reach it: they follow its
                // EstablishmentAck a tick apart). Held from now by the same rule, so that the
                // next rollover reports it again (found by the deterministic simulation: two
                // rollovers 0.4 ms apart lost a Canceled); its ClOrdIDs stay used for the
                // epoch, as a NewOrderSingle naming it may be the strategy's resend of it
                // (see `crate::session::cl_ord_ids`).
                held.push(key);
            }
        }
        if !held.is_empty() {
            // Their end time is now (the report's), once each in the FIFO.
            let now = self.ended.clock_ns;
            self.ended.fifo.retain(|(k, _)| !held.contains(k));
            for key in held {
                self.ended.fifo.push_back((key, now));
            }
        }
        self.reports.origin = origin;
        made
    }
    /// The shell wrote the final report of order (`session_id`, `root`) to a writer in epoch
    /// `writer_epoch`: above the session's epoch here (its writer ended the epoch at a
    /// scheduled rollover's Terminate, and the tracker has not been told yet), the order ended
    /// in the new epoch, and the rollover keeps its ClOrdIDs used ([`Tracker::on_epoch`]).
    pub fn note_end_written(&mut self, session_id: u64, root: u64, writer_epoch: u32) {
        let epoch = self.session_epochs.get(&session_id).copied().unwrap_or(0);
        if writer_epoch > epoch {
            self.ended_in_next_epoch.insert((session_id, root));
        }
    }

    /// The clientOid of order (`session_id`, `root`): the epoch it was placed in (the
    /// session's current one when the order is not known).
    pub(super) fn client_oid_of(&self, session_id: u64, root: u64) -> ClientOid {
        match self.order(session_id, root) {
            Some(o) => o.client_oid(),
            None => ClientOid::in_epoch(
                session_id,
                self.session_epochs.get(&session_id).copied().unwrap_or(0),
                root,
            ),
        }
    }
}
