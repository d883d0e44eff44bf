//! MovePositions: the move-positions rules checked before sending ([`crate::moves`]), then
//! `POST /api/v3/account/move-positions` with the session account's key, answered by
//! MovePositionsReport. Runs in a task on the io thread so the session keeps reading.

use std::rc::Rc;
use std::sync::Arc;
use std::time::SystemTime;

use codec::sbe::{
    Category, ItemStatus, MovePositionsDecoder, MovePositionsRejectReason, MovePositionsReport,
    MovePositionsReportEntry, Side, Symbol, Text,
};
use codec::Decimal;

use crate::engine::conn::Conn;
use crate::engine::ctx::IoCtx;
use crate::exchange::rest_account::{move_body, MoveItem, MoveReply};
use crate::exchange::ExchangeError;
use crate::metrics::{now_ns, utc_now_ns};
use crate::moves::{
    check_header, check_items, check_mmr, reason_of_code, MoveHeader, MoveRefusal, SourcePosition,
};
use crate::session::out::{Flow, SessionOut};
use gateway_core::journal::record::Origin;

/// The UID of account `ix`, learnt once from its settings (`None`: unknown or not numeric).
async fn account_uid(ctx: &IoCtx, ix: usize) -> Option<u64> {
    if let Some(Some(uid)) = ctx.moves.uids.borrow().get(ix) {
        return Some(*uid);
    }
    let acc = ctx.accounts.get(ix)?;
    let uid = match acc.rest.account_settings(SystemTime::now()).await {
        Ok(s) => s.uid.parse::<u64>().ok(),
        Err(e) => {
            tracing::warn!(account = %acc.name, error = %e, "account settings for the UID failed");
            None
        }
    };
    let mut uids = ctx.moves.uids.borrow_mut();
    if uids.len() <= ix {
        uids.resize(ix + 1, None);
    }
    if let Some(slot) = uids.get_mut(ix) {
        *slot = uid;
    }
    uid
}

/// A MovePositions request, copied out of the frame.
struct MoveReq {
    id: u64,
    from_uid: u64,
    to_uid: u64,
    category: Category,
    items: Vec<(String, Side, Decimal)>,
}

/// A MovePositions request (operator sessions only).
pub(in crate::engine) async fn on_move_positions(conn: &mut Conn, m: &MovePositionsDecoder<'_>) {
    let req = MoveReq {
        id: m.move_positions_id(),
        from_uid: m.from_uid(),
        to_uid: m.to_uid(),
        category: m.category(),
        items: m
            .positions()
            .iter()
            .map(|e| (e.symbol().as_str().to_owned(), e.side(), e.quantity()))
            .collect(),
    };
    let ctx = Rc::clone(&conn.ctx);
    let out = Arc::clone(&conn.out);
    let account = conn.account;
    tokio::task::spawn_local(async move {
        let (report, results) = run(&ctx, account, &req).await;
        write(&out, &report, results);
    });
}

fn write(out: &SessionOut, report: &MovePositionsReport, results: Vec<MovePositionsReportEntry>) {
    out.send(Flow::Application(Origin::OrderEntry), now_ns(), |buf| {
        // At most 10 entries of 106 bytes: always fits the frame.
        let _ = report.encode_frame(results, buf);
    });
}

fn report(id: u64) -> MovePositionsReport {
    MovePositionsReport {
        move_positions_id: id,
        transact_time: utc_now_ns(),
        exchange_code: 0,
        request_status: ItemStatus::Accepted,
        move_reject_reason: None,
        text: Text::EMPTY,
    }
}

fn refused(
    id: u64,
    reason: MovePositionsRejectReason,
    code: u32,
    text: &str,
) -> MovePositionsReport {
    MovePositionsReport {
        exchange_code: code,
        request_status: ItemStatus::Rejected,
        move_reject_reason: Some(reason),
        text: Text::new(text),
        ..report(id)
    }
}

/// Checks every rule, sends when they pass, and builds the report.
async fn run(
    ctx: &IoCtx,
    account: usize,
    req: &MoveReq,
) -> (MovePositionsReport, Vec<MovePositionsReportEntry>) {
    let now_ms = ctx.moves.settings.clock.now_ms();
    let refusal = |r: MoveRefusal| (refused(req.id, r.reason(), 0, &r.to_string()), Vec::new());
    let mut known = ctx.moves.settings.extra_uids.clone();
    let mut source_account = None;
    for ix in 0..ctx.accounts.len() {
        if let Some(uid) = account_uid(ctx, ix).await {
            known.push(uid);
            if uid == req.from_uid {
                source_account = Some(ix);
            }
        }
    }
    let header = MoveHeader {
        key_is_master: ctx.moves.settings.masters.contains(&account),
        category: req.category,
        from_uid: req.from_uid,
        to_uid: req.to_uid,
        items: req.items.len(),
        known_uids: &known,
    };
    if let Err(r) = check_header(&header, now_ms) {
        return refusal(r);
    }
    if let Err(r) = ctx.moves.pacer.borrow_mut().begin(account, now_ms) {
        return refusal(r);
    }
    let out = checked_send(ctx, account, source_account, req).await;
    let moved = matches!(&out, Ok(reply) if item_results(req, reply).1 > 0);
    // The venue admitted it (item results, or its source-MMR refusal `25012`): the next
    // request waits a minute whatever it moved.
    let admitted = matches!(
        &out,
        Ok(_)
            | Err(Outcome::Exchange(ExchangeError::Rejected {
                code: 25012,
                ..
            }))
    );
    ctx.moves
        .pacer
        .borrow_mut()
        .end(account, now_ms, admitted, moved);
    match out {
        Ok(reply) => {
            let (entries, n_moved) = item_results(req, &reply);
            let rep = if n_moved > 0 {
                report(req.id)
            } else {
                // Nothing moved: the first item's code tells why.
                let code = entries
                    .iter()
                    .map(|e| e.close_exchange_code.max(e.open_exchange_code))
                    .find(|c| *c != 0)
                    .unwrap_or(0);
                refused(req.id, reason_of_code(code), code, "no position moved")
            };
            (rep, entries)
        }
        Err(Outcome::Refused(r)) => refusal(r),
        Err(Outcome::Exchange(ExchangeError::Rejected { code, msg, .. })) => (
            refused(req.id, reason_of_code(code), code, &msg),
            Vec::new(),
        ),
        Err(Outcome::Exchange(e)) => (
            refused(req.id, MovePositionsRejectReason::Other, 0, &e.to_string()),
            Vec::new(),
        ),
    }
}

enum Outcome {
    Refused(MoveRefusal),
    Exchange(ExchangeError),
}

/// The source-account rules (MMR, positions, cross margin) when the source is one of the
/// gateway's accounts, then the move itself.
async fn checked_send(
    ctx: &IoCtx,
    account: usize,
    source: Option<usize>,
    req: &MoveReq,
) -> Result<MoveReply, Outcome> {
    let category = codec::json::Category::from(req.category).as_rest_str();
    if let Some(src) = source.and_then(|ix| ctx.accounts.get(ix)) {
        let mmr = src
            .rest
            .account_mmr(SystemTime::now())
            .await
            .map_err(Outcome::Exchange)?;
        check_mmr(mmr).map_err(Outcome::Refused)?;
        let positions: Vec<SourcePosition> = src
            .rest
            .current_positions(category, None, SystemTime::now())
            .await
            .map_err(Outcome::Exchange)?
            .into_iter()
            .map(|p| SourcePosition {
                symbol: p.symbol,
                pos_side: p.pos_side,
                size: p.total,
                margin_mode: p.margin_mode,
            })
            .collect();
        check_items(&req.items, &positions).map_err(Outcome::Refused)?;
    }
    let items: Vec<MoveItem> = req
        .items
        .iter()
        .map(|(symbol, side, qty)| MoveItem {
            symbol: symbol.clone(),
            side: codec::json::Side::from(*side).as_str(),
            qty: *qty,
        })
        .collect();
    let body = move_body(req.from_uid, req.to_uid, category, &items);
    let Some(acc) = ctx.accounts.get(account) else {
        return Err(Outcome::Refused(MoveRefusal::NotMaster));
    };
    acc.rest
        .move_positions(&body, SystemTime::now())
        .await
        .map_err(Outcome::Exchange)
}

/// Per-item results of a reply, and how many items moved.
fn item_results(req: &MoveReq, reply: &MoveReply) -> (Vec<MovePositionsReportEntry>, usize) {
    let mut moved = 0;
    let entries = req
        .items
        .iter()
        .enumerate()
        .map(|(i, (symbol, side, _))| {
            let close = reply.close.get(i);
            let open = reply.open.get(i);
            let ok = matches!((close, open), (Some(c), Some(o)) if c.code == 0 && o.code == 0);
            if ok {
                moved += 1;
            }
            let text = [close, open]
                .into_iter()
                .flatten()
                .map(|r| r.msg.as_str())
                .find(|m| !m.is_empty())
                .unwrap_or(if ok { "" } else { "no result for the item" });
            MovePositionsReportEntry {
                symbol: Symbol::new(symbol).unwrap_or_default(),
                side: *side,
                close_order_id: close.map_or(0, |c| c.order_id),
                close_exchange_code: close.map_or(0, |c| c.code),
                open_order_id: open.map_or(0, |o| o.order_id),
                open_exchange_code: open.map_or(0, |o| o.code),
                item_status: if ok {
                    ItemStatus::Accepted
                } else {
                    ItemStatus::Rejected
                },
                text: Text::new(text),
            }
        })
        .collect();
    (entries, moved)
}
