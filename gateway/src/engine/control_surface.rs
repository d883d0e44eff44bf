//! The io thread's side of the operator's control surface (`crate::control`): each
//! [`ControlCommand`] the HTTP thread sends is carried out here, on a task of its own, and
//! answered on its oneshot. Nothing here is on the order path: the order path only reads the
//! risk flags these commands set (one atomic load per new order, in
//! `gateway_core::risk::RiskBook::check_new`).
//!
//! - list: the tracker's open orders per account (the same query as an OrderMassStatusRequest),
//!   grouped by session;
//! - kill switch: [`super::ops::control::kill_switch`], the one kill switch an operator
//!   session's KillSwitchRequest pulls too;
//! - drain / resume: the session's drain flag in the risk book; with `cancel_open`, its open
//!   orders are cancelled by [`super::ops::mass::cancel_session_orders`] (the path of cancel
//!   on disconnect: batch-cancels, Canceled ExecutionReports journaled in the session).

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use super::ctx::IoCtx;
use super::ops;
use crate::control::api::{
    AccountSwitchJson, DrainJson, KillSwitchJson, KillSwitchVerb, OpenOrderJson, SessionJson,
    SessionsJson,
};
use crate::control::{ControlCommand, ControlReply, ControlRx, Directory};
use crate::tracker::{OrderFilter, OrderScope, OrderView};

/// Serves the control commands until the HTTP side is gone.
pub(super) async fn serve(ctx: Rc<IoCtx>, mut rx: ControlRx, dir: Arc<Directory>) {
    while let Some(req) = rx.recv().await {
        let ctx = Rc::clone(&ctx);
        let dir = Arc::clone(&dir);
        tokio::task::spawn_local(async move {
            let reply = carry_out(&ctx, &dir, req.command).await;
            ctx.metrics
                .control
                .set_draining(ctx.risk.sessions_draining());
            // The HTTP side may have given up waiting: nothing to do then.
            let _ = req.reply.send(reply);
        });
    }
}

/// The open orders of every account, by SessionID (ordered by ClOrdID).
async fn open_orders_by_session(ctx: &IoCtx) -> BTreeMap<u64, Vec<OrderView>> {
    let mut by_session: BTreeMap<u64, Vec<OrderView>> = BTreeMap::new();
    for acc in &ctx.accounts {
        let filter = OrderFilter {
            scope: OrderScope::Account(acc.ix),
            symbol: None,
            category: None,
            side: None,
        };
        for v in ops::mass::query(ctx, filter, None)
            .await
            .unwrap_or_default()
        {
            by_session.entry(v.session_id).or_default().push(v);
        }
    }
    for list in by_session.values_mut() {
        list.sort_by_key(|v| v.report.cl_ord_id);
    }
    by_session
}

async fn carry_out(ctx: &Rc<IoCtx>, dir: &Directory, command: ControlCommand) -> ControlReply {
    match command {
        ControlCommand::List => {
            let mut orders = open_orders_by_session(ctx).await;
            let active = ctx.active.borrow().clone();
            let sessions = dir
                .sessions
                .iter()
                .map(|s| SessionJson {
                    session_id: s.session_id,
                    name: s.name.clone(),
                    account: dir.account_name(s.account).to_owned(),
                    role: s.role.to_owned(),
                    established: active.contains(&s.session_id),
                    draining: ctx.risk.session_draining(s.session_id),
                    kill_switch: ctx.risk.kill_switch_on(s.account),
                    open_orders: orders
                        .remove(&s.session_id)
                        .unwrap_or_default()
                        .iter()
                        .map(OpenOrderJson::of)
                        .collect(),
                })
                .collect();
            let kill_switch = dir
                .accounts
                .iter()
                .enumerate()
                .map(|(ix, name)| AccountSwitchJson {
                    account: name.clone(),
                    active: ctx.risk.kill_switch_on(ix),
                })
                .collect();
            ControlReply::Sessions(SessionsJson {
                sessions,
                kill_switch,
            })
        }
        ControlCommand::KillSwitch { pull, account } => {
            let done = ops::control::kill_switch(ctx, account, pull).await;
            let active = match account {
                Some(ix) => ctx.risk.kill_switch_on(ix),
                None => (0..dir.accounts.len()).all(|ix| ctx.risk.kill_switch_on(ix)),
            };
            ControlReply::KillSwitch(KillSwitchJson {
                action: if pull {
                    KillSwitchVerb::Pull
                } else {
                    KillSwitchVerb::Release
                },
                scope: account
                    .map_or_else(|| "global".to_owned(), |ix| dir.account_name(ix).to_owned()),
                active,
                canceled: done.canceled,
                errors: done.errors,
            })
        }
        ControlCommand::Drain {
            session_id,
            cancel_open,
        } => {
            ctx.risk.set_draining(session_id, true);
            let open = session_open_orders(ctx, session_id).await;
            if cancel_open && open > 0 {
                cancel_open_orders(ctx, session_id);
            }
            ControlReply::Drain(drain_json(
                dir,
                "drain",
                session_id,
                true,
                cancel_open,
                open,
            ))
        }
        ControlCommand::Resume { session_id } => {
            ctx.risk.set_draining(session_id, false);
            let open = session_open_orders(ctx, session_id).await;
            ControlReply::Drain(drain_json(dir, "resume", session_id, false, false, open))
        }
    }
}

/// Open orders of one session, as the tracker holds them now.
async fn session_open_orders(ctx: &IoCtx, session_id: u64) -> usize {
    let filter = OrderFilter {
        scope: OrderScope::Session(session_id),
        symbol: None,
        category: None,
        side: None,
    };
    ops::mass::query(ctx, filter, None)
        .await
        .map_or(0, |v| v.len())
}

/// Cancels the session's open orders through cancel on disconnect's path (its writer gets
/// the Canceled ExecutionReports).
fn cancel_open_orders(ctx: &Rc<IoCtx>, session_id: u64) {
    let Some(account) = ctx.grants.get(&session_id).map(|g| g.account) else {
        return;
    };
    let Some(out) = ctx
        .sessions
        .borrow()
        .get(&session_id)
        .map(|s| Arc::clone(&s.out))
    else {
        return;
    };
    ops::mass::cancel_session_orders(Rc::clone(ctx), out, account, session_id);
}

fn drain_json(
    dir: &Directory,
    action: &str,
    session_id: u64,
    draining: bool,
    cancel_open: bool,
    open_orders: usize,
) -> DrainJson {
    DrainJson {
        action: action.to_owned(),
        session_id,
        name: dir
            .sessions
            .iter()
            .find(|s| s.session_id == session_id)
            .map(|s| s.name.clone())
            .unwrap_or_default(),
        draining,
        cancel_open,
        open_orders,
    }
}
