//! Operator controls: KillSwitchRequest (cancel everything in scope, refuse new orders until
//! released) and RateBudgetRequest (the account's token buckets as RateBudgetReport).

use std::rc::Rc;
use std::sync::Arc;
use std::time::SystemTime;

use codec::sbe::{
    BoolFlag, ItemStatus, KillSwitchAction, KillSwitchReport, KillSwitchRequestDecoder,
    KillSwitchScope, RateBudgetRequestDecoder, Text,
};

use crate::engine::conn::Conn;
use crate::engine::ctx::IoCtx;
use crate::exchange::error::ExchangeError;
use crate::exchange::rest_cancel_all::cancel_all;
use crate::metrics::{now_ns, utc_now_ns};
use crate::session::out::Flow;
use gateway_core::journal::record::Origin;

/// A KillSwitchRequest (operator sessions only). Activate: the accounts in scope refuse new
/// orders from now on (KillSwitch), then every open order of theirs is canceled per loaded
/// category (`cancel-symbol-order`), answered when done. Release: new orders pass again.
pub(in crate::engine) async fn on_kill_switch(conn: &mut Conn, m: &KillSwitchRequestDecoder<'_>) {
    let scope = m.kill_switch_scope();
    let action = m.kill_switch_action();
    let request_id = m.request_id();
    let only = match scope {
        KillSwitchScope::Gateway => None,
        _ => Some(conn.account),
    };
    let activate = action == KillSwitchAction::Activate;
    tracing::warn!(
        session = conn.fixp.session_id(),
        ?scope,
        ?action,
        "kill switch"
    );
    let ctx = Rc::clone(&conn.ctx);
    let out = Arc::clone(&conn.out);
    let mut report = KillSwitchReport {
        request_id,
        transact_time: 0,
        total_affected_orders: 0,
        active: if activate {
            BoolFlag::Yes
        } else {
            BoolFlag::No
        },
        request_status: ItemStatus::Accepted,
        kill_switch_scope: scope,
        kill_switch_action: action,
        exchange_code: 0,
        text: Text::new(""),
    };
    // The flags change now, before this connection's next frame is read.
    let cancels = kill_switch(&ctx, only, activate);
    if !activate {
        report.transact_time = utc_now_ns();
        out.send(Flow::Application(Origin::MassAction), now_ns(), |buf| {
            report.encode_frame(buf)
        });
        return;
    }
    tokio::task::spawn_local(async move {
        let done = cancels.await;
        report.total_affected_orders = done.canceled;
        report.exchange_code = done.first_code;
        if done.calls_failed {
            report.text = Text::new("cancel-all failed on some category");
        }
        report.transact_time = utc_now_ns();
        out.send(Flow::Application(Origin::MassAction), now_ns(), |buf| {
            report.encode_frame(buf)
        });
    });
}

/// What [`kill_switch`] did.
#[derive(Debug, Default)]
pub(in crate::engine) struct KillSwitchDone {
    /// Orders the exchange reported cancelled (0 for a release).
    pub(in crate::engine) canceled: u32,
    /// The first Bitget code of a failed cancel-all or cancelled item (0: none).
    pub(in crate::engine) first_code: u32,
    /// Cancel-alls that failed, or cancelled some items not: `account category: why`.
    pub(in crate::engine) errors: Vec<String>,
    /// Some cancel-all call failed as a whole (not only some of its items).
    pub(in crate::engine) calls_failed: bool,
}

/// The kill switch, for every path that pulls or releases it (an operator session's
/// KillSwitchRequest, the control surface): the accounts in scope (`only`: one account index;
/// `None`: all) refuse new orders from now on (risk's KillSwitch) or pass them again
/// (`!activate`); an activation then cancels every open order of theirs per loaded category
/// (`cancel-symbol-order`, the orders the gateway did not place included), one REST call
/// after the other. The flags change when this is called; the cancel-alls run when the
/// returned future is awaited (its [`KillSwitchDone`]). The Canceled ExecutionReports reach
/// the sessions from the order pushes as for any cancel (journaled there).
pub(in crate::engine) fn kill_switch(
    ctx: &Rc<IoCtx>,
    only: Option<usize>,
    activate: bool,
) -> impl std::future::Future<Output = KillSwitchDone> + 'static {
    ctx.risk.set_kill_switch(only, activate);
    for acc in ctx
        .accounts
        .iter()
        .filter(|a| only.is_none_or(|x| x == a.ix))
    {
        ctx.metrics.control.set_kill_switch(acc.ix, activate);
    }
    let ctx = Rc::clone(ctx);
    async move {
        if activate {
            cancel_all_in_scope(&ctx, only).await
        } else {
            KillSwitchDone::default()
        }
    }
}

/// The cancel-alls of an activated kill switch (see [`kill_switch`]).
async fn cancel_all_in_scope(ctx: &IoCtx, only: Option<usize>) -> KillSwitchDone {
    let mut done = KillSwitchDone::default();
    for acc in ctx
        .accounts
        .iter()
        .filter(|a| only.is_none_or(|x| x == a.ix))
    {
        for c in &ctx.categories {
            let category = codec::json::Category::from(*c).as_rest_str();
            match cancel_all(&acc.rest, category, SystemTime::now()).await {
                Ok(o) => {
                    done.canceled += o.canceled;
                    if o.first_error != 0 {
                        if done.first_code == 0 {
                            done.first_code = o.first_error;
                        }
                        done.errors.push(format!(
                            "{} {category}: some orders not cancelled (code {})",
                            acc.name, o.first_error
                        ));
                    }
                }
                Err(e) => {
                    tracing::warn!(account = %acc.name, category, error = %e, "kill switch: cancel-all failed");
                    if done.first_code == 0 {
                        done.first_code = match e {
                            ExchangeError::Rejected { code, .. } => code,
                            _ => 0,
                        };
                    }
                    done.errors.push(format!("{} {category}: {e}", acc.name));
                    done.calls_failed = true;
                }
            }
        }
    }
    done
}

/// A RateBudgetRequest.
pub(in crate::engine) async fn on_rate_budget(conn: &mut Conn, m: &RateBudgetRequestDecoder<'_>) {
    if let Some(acc) = conn.account_ctx() {
        acc.write_budget_report(&conn.out, m.request_id());
    }
}
