//! Hands the orders the tracker evicted to a session's order entry (io thread), which releases
//! their ClOrdIDs (`gateway_core::session::cl_ord_ids`): at each application message (lazily:
//! one atomic load when there are none) and right before the session's writer starts a new
//! epoch, so that the orders evicted in the old epoch are released in it (their ClOrdIDs then
//! free in the new one) rather than at the new epoch's first message, where an order carried
//! over keeps its ClOrdIDs used ([`gateway_core::tracker::Evicted`]).

use crate::replay::RecordTx;
use crate::session::order_entry::OrderEntry;
use crate::session::out::SessionOut;

/// Releases in `entry` every order of session `session_id` the tracker evicted since the last
/// call (noted in `out`), recording each release when recording is on.
pub(super) fn release_evicted(
    out: &SessionOut,
    entry: &mut OrderEntry,
    record: Option<&RecordTx>,
    session_id: u64,
) {
    out.take_evicted(|root, ended_before_epoch| {
        if ended_before_epoch {
            entry.release_ended_before_epoch(root);
        } else {
            entry.release(root);
        }
        if let Some(rec) = record {
            rec.entry_release(session_id, root, ended_before_epoch);
        }
    });
}
