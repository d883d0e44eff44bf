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
    conn.ctx.risk.set_kill_switch(only, activate);
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
    if !activate {
        report.transact_time = utc_now_ns();
        out.send(Flow::Application(Origin::MassAction), now_ns(), |buf| {
            report.encode_frame(buf)
        });
        return;
    }
    tokio::task::spawn_local(async move {
        for acc in ctx
            .accounts
            .iter()
            .filter(|a| only.is_none_or(|x| x == a.ix))
        {
            for c in &ctx.categories {
                match cancel_all(
                    &acc.rest,
                    codec::json::Category::from(*c).as_rest_str(),
                    SystemTime::now(),
                )
                .await
                {
                    Ok(o) => {
                        report.total_affected_orders += o.canceled;
                        if report.exchange_code == 0 {
                            report.exchange_code = o.first_error;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(account = %acc.name, error = %e, "kill switch: cancel-all failed");
                        if report.exchange_code == 0 {
                            report.exchange_code = match e {
                                ExchangeError::Rejected { code, .. } => code,
                                _ => 0,
                            };
                            report.text = Text::new("cancel-all failed on some category");
                        }
                    }
                }
            }
        }
        report.transact_time = utc_now_ns();
        out.send(Flow::Application(Origin::MassAction), now_ns(), |buf| {
            report.encode_frame(buf)
        });
    });
}

/// A RateBudgetRequest.
pub(in crate::engine) async fn on_rate_budget(conn: &mut Conn, m: &RateBudgetRequestDecoder<'_>) {
    if let Some(acc) = conn.account_ctx() {
        acc.write_budget_report(&conn.out, m.request_id());
    }
}
