//! Session rollover on the io thread: a session's epoch ends and a new one starts, when the
//! strategy asks (Negotiate with a higher SessionVerID, [`start_epoch`] from the authorizer)
//! or by the operator's schedule (`[strategy] rollover`, [`run_schedule`]).
//!
//! A rollover, in order: the session's writer journals the epoch record and numbers from 1
//! ([`SessionOut::start_epoch`]; the journal thread starts the epoch's first segment with a
//! checkpoint), the order entry frees the ClOrdIDs and ListIDs of the ended orders and keeps
//! those of the orders still tracked ([`OrderEntry::new_epoch`]), the inbound numbering starts at
//! 1, and the tracker learns the epoch (new orders' clientOids carry it) and reports each open
//! order OrderStatus as the new epoch's first messages. A session is rolled only while no
//! connection holds it: a connected strategy first gets Terminate (SessionRollover), after which
//! its writer's epoch ends at once ([`SessionOut::terminate_for_rollover`]: nothing of the old
//! epoch is numbered after its Terminate), and the rest of the rollover follows when the
//! connection has ended, without cancel on disconnect (its orders carry into the new epoch).
//! When the schedule ends an epoch is decided with the strategy's presence
//! ([`RolloverSchedule::ends_now`]): a strategy that connects after the boundary (a drop, a
//! restart) first catches up on the old epoch.
//!
//! [`SessionOut::start_epoch`]: crate::session::out::SessionOut::start_epoch
//! [`SessionOut::terminate_for_rollover`]: crate::session::out::SessionOut::terminate_for_rollover
//! [`RolloverSchedule::ends_now`]: gateway_core::session::rollover::RolloverSchedule::ends_now
//! [`OrderEntry::new_epoch`]: crate::session::order_entry::OrderEntry::new_epoch

use std::rc::Rc;
use std::time::Duration;

use codec::sbe::NegotiationRejectCode;
use gateway_core::session::rollover::Presence;

use super::ctx::IoCtx;
use crate::metrics::utc_now_ns;
use crate::tracker::TrackerInput;

/// How often the schedule is checked, and how soon a due session is rolled.
pub(super) const SCHEDULE_CHECK: Duration = Duration::from_secs(1);

/// The epoch session `session_id` is in (0 for an unknown session).
pub(super) fn epoch_of(ctx: &IoCtx, session_id: u64) -> u32 {
    ctx.sessions
        .borrow()
        .get(&session_id)
        .map_or(0, |slot| slot.out.epoch())
}

/// True when the operator's schedule ends the session's epoch now, its strategy being where
/// `presence` says ([`RolloverSchedule::ends_now`]: time to catch up on the old epoch first).
///
/// [`RolloverSchedule::ends_now`]: gateway_core::session::rollover::RolloverSchedule::ends_now
pub(super) fn ends_now(ctx: &IoCtx, session_id: u64, presence: Presence) -> bool {
    let now_ms = utc_now_ns() / 1_000_000;
    ctx.sessions.borrow().get(&session_id).is_some_and(|slot| {
        ctx.rollover
            .ends_now(slot.epoch_started_ms, now_ms, presence)
    })
}

/// Ends session `session_id`'s epoch and starts `epoch` (above the current one), `why` for
/// the log. The session must not be held by a connection (its order entry is in its slot).
/// Errors: the session is unknown or held (`Unspecified`), or its journal could not be
/// written (`Unspecified`; the session stays in its epoch).
pub(super) fn start_epoch(
    ctx: &IoCtx,
    session_id: u64,
    epoch: u32,
    why: &str,
) -> Result<(), NegotiationRejectCode> {
    let now_ms = utc_now_ns() / 1_000_000;
    let mut sessions = ctx.sessions.borrow_mut();
    let Some(slot) = sessions.get_mut(&session_id) else {
        return Err(NegotiationRejectCode::Unspecified);
    };
    let Some(entry) = slot.entry.as_mut() else {
        return Err(NegotiationRejectCode::Unspecified);
    };
    let rolled = slot.writer_rolled.take();
    let from = slot.out.epoch();
    if rolled != Some(epoch) {
        // The orders evicted so far ended in the old epoch: released in it. (When the
        // writer rolled earlier, at a rollover Terminate, the connection released them then;
        // those evicted since may have ended in the new epoch.)
        super::evicted::release_evicted(&slot.out, entry, ctx.record.as_ref(), session_id);
        if let Err(e) = slot.out.start_epoch(epoch, now_ms) {
            // A failing journal is logged once by its writer; the rollover is tried again
            // once it is writable (the schedule checks every second).
            if slot.out.journal_fault().is_none() {
                tracing::error!(session = session_id, from, to = epoch, error = %e, "session rollover failed: journal not writable");
            }
            return Err(NegotiationRejectCode::Unspecified);
        }
    }
    let reserved = entry.new_epoch(epoch);
    slot.next_in_seq = 1;
    slot.epoch_started_ms = now_ms;
    let _ = ctx.tracker_tx.send(TrackerInput::Epoch {
        session_id,
        epoch,
        order_epochs: Vec::new(),
        started: true,
    });
    tracing::info!(
        session = session_id,
        from,
        to = epoch,
        reserved_cl_ord_ids = reserved,
        why,
        "session rollover: new epoch (sequence numbers from 1, ClOrdIDs of ended orders free)"
    );
    Ok(())
}

/// Rolls session `session_id` to the next epoch when no connection holds it and either its
/// writer already started the epoch (a rollover Terminate, [`note_writer_rolled`]) or the
/// schedule ends its epoch with the strategy away ([`ends_now`]).
pub(super) fn roll_if_due(ctx: &IoCtx, session_id: u64) {
    if ctx.active.borrow().contains(&session_id) {
        return;
    }
    let Some((rolled, away_since_ms)) = ctx
        .sessions
        .borrow()
        .get(&session_id)
        .map(|slot| (slot.writer_rolled, slot.away_since_ms))
    else {
        return;
    };
    let away = Presence::Away {
        since_ms: away_since_ms,
    };
    if rolled.is_none() && !ends_now(ctx, session_id, away) {
        return;
    }
    let next = rolled.unwrap_or_else(|| epoch_of(ctx, session_id).wrapping_add(1).max(1));
    let _ = start_epoch(ctx, session_id, next, "scheduled");
}

/// A connection's scheduled-rollover Terminate started epoch `epoch` in session
/// `session_id`'s writer ([`SessionOut::terminate_for_rollover`]); [`roll_if_due`] completes
/// the rollover once the connection has ended.
///
/// [`SessionOut::terminate_for_rollover`]: crate::session::out::SessionOut::terminate_for_rollover
pub(super) fn note_writer_rolled(ctx: &IoCtx, session_id: u64, epoch: u32) {
    if let Some(slot) = ctx.sessions.borrow_mut().get_mut(&session_id) {
        slot.writer_rolled = Some(epoch);
    }
}

/// The operator's schedule: every [`SCHEDULE_CHECK`], each session whose epoch it has ended
/// and that no connection holds is rolled (a connected one is terminated by its connection,
/// which checks [`due`] on its timer, then rolled here). Runs for the io thread's life.
pub(super) async fn run_schedule(ctx: Rc<IoCtx>) {
    if ctx.rollover == gateway_core::session::rollover::RolloverSchedule::Never {
        return;
    }
    let mut tick = tokio::time::interval(SCHEDULE_CHECK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let ids: Vec<u64> = ctx.sessions.borrow().keys().copied().collect();
        for id in ids {
            roll_if_due(&ctx, id);
        }
    }
}
