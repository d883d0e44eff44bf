//! Session epochs in the tracker (session rollover, issue 23): which epoch each session is
//! in (new orders' clientOids carry it), the epochs of orders carried from earlier ones, and
//! what a rollover reports (OrderStatus of every order still held) before the session's ended
//! orders leave.

use codec::sbe::ExecType;

use super::core::{exec_report, ReportMsg, Tracker};
use super::order::Order;
use crate::ids::ClientOid;
use crate::journal::record::Origin;

impl Tracker {
    /// Session `session_id` is in epoch `epoch` (its journal says so at start-up, before its
    /// orders are restored: the restored orders not listed in `order_epochs` are of this epoch;
    /// or a rollover: `started`); `order_epochs` gives the epoch of orders carried over from
    /// earlier epochs (root, epoch), applied as they are registered. Orders placed from now on carry `epoch` in their
    /// clientOid. On a rollover (`started`), every order of the session the tracker holds (open,
    /// or ended within the retention window) is reported OrderStatus (stamped `utc_ns`), then
    /// the ended ones are evicted (their ClOrdIDs are free in the new epoch): the first messages
    /// of the new epoch tell the strategy where its orders stand, including how those ended
    /// whose last reports of the old epoch it may not have received.
    pub fn on_epoch(
        &mut self,
        session_id: u64,
        epoch: u32,
        order_epochs: &[(u64, u32)],
        started: bool,
        utc_ns: u64,
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
        // for in the new one), by root; then the ended ones leave.
        self.reports.origin = Origin::Restart;
        let mut held: Vec<&Order> = self
            .orders()
            .filter(|o| o.session_id == session_id)
            .collect();
        held.sort_by_key(|o| o.root);
        let reports: Vec<(u64, ReportMsg)> = held
            .into_iter()
            .map(|o| {
                let er = exec_report(o, ExecType::OrderStatus, utc_ns);
                (o.root, ReportMsg::Exec(er))
            })
            .collect();
        for (root, msg) in reports {
            self.push_report((session_id, root), msg, 0);
        }
        self.retire_session(session_id);
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
