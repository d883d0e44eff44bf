//! SetLeverage, SetHoldMode, MaxOpenAvailableRequest and AccountSettingsRequest: one signed
//! REST call each with the session account's key, made in a task on the io thread, answered
//! by AccountRequestReport.

use std::future::Future;
use std::rc::Rc;
use std::sync::Arc;
use std::time::SystemTime;

use codec::sbe::{
    AccountRequestReport, AccountRequestType, AccountSettingsRequestDecoder, Category, HoldMode,
    ItemStatus, MaxOpenAvailableRequestDecoder, PosSide, SetHoldModeDecoder, SetLeverageDecoder,
    Symbol, Text,
};

use crate::engine::conn::Conn;
use crate::engine::ctx::IoCtx;
use crate::exchange::ExchangeError;
use crate::metrics::{now_ns, utc_now_ns};
use crate::session::out::Flow;
use gateway_core::journal::record::Origin;

fn non_empty(s: &Symbol) -> Option<&str> {
    Some(s.as_str()).filter(|s| !s.is_empty())
}

/// A report of `kind` for request `id` with nothing filled in yet (accepted).
fn base(
    id: u64,
    kind: AccountRequestType,
    symbol: Symbol,
    category: Option<Category>,
) -> AccountRequestReport {
    AccountRequestReport {
        request_id: id,
        transact_time: 0,
        exchange_code: 0,
        account_request_type: kind,
        request_status: ItemStatus::Accepted,
        hold_mode: None,
        leverage: None,
        available: None,
        max_buy_open: None,
        max_sell_open: None,
        symbol,
        category,
        text: Text::EMPTY,
    }
}

/// Runs `call` with the session account's REST client in a task; on success `fill` completes
/// the report, on failure it carries the exchange code and message.
fn spawn_request<T, F, Fut>(
    conn: &Conn,
    report: AccountRequestReport,
    call: F,
    fill: impl FnOnce(&mut AccountRequestReport, T) + 'static,
) where
    T: 'static,
    F: FnOnce(Rc<IoCtx>, usize) -> Fut + 'static,
    Fut: Future<Output = Result<T, ExchangeError>> + 'static,
{
    let ctx = Rc::clone(&conn.ctx);
    let out = Arc::clone(&conn.out);
    let account = conn.account;
    tokio::task::spawn_local(async move {
        let mut rep = report;
        match call(ctx, account).await {
            Ok(v) => fill(&mut rep, v),
            Err(e) => {
                rep.request_status = ItemStatus::Rejected;
                match e {
                    ExchangeError::Rejected { code, msg, .. } => {
                        rep.exchange_code = code;
                        rep.text = Text::new(&msg);
                    }
                    other => rep.text = Text::new(&other.to_string()),
                }
            }
        }
        rep.transact_time = utc_now_ns();
        out.send(Flow::Application(Origin::OrderEntry), now_ns(), |buf| {
            rep.encode_frame(buf)
        });
    });
}

fn no_account() -> ExchangeError {
    ExchangeError::Protocol("session account not configured".into())
}

/// A SetLeverage request (operator sessions only).
pub(in crate::engine) async fn on_set_leverage(conn: &mut Conn, m: &SetLeverageDecoder<'_>) {
    let (symbol, coin, category, leverage) = (m.symbol(), m.coin(), m.category(), m.leverage());
    let pos_side = match m.pos_side() {
        PosSide::Long => Some("long"),
        PosSide::Short => Some("short"),
        PosSide::None => None,
    };
    let rep = base(
        m.request_id(),
        AccountRequestType::SetLeverage,
        symbol,
        Some(category),
    );
    spawn_request(
        conn,
        rep,
        move |ctx, ix| async move {
            let acc = ctx.accounts.get(ix).ok_or_else(no_account)?;
            acc.rest
                .set_leverage(
                    codec::json::Category::from(category).as_rest_str(),
                    non_empty(&symbol),
                    non_empty(&coin),
                    leverage,
                    pos_side,
                    SystemTime::now(),
                )
                .await
        },
        move |rep, ()| rep.leverage = Some(leverage),
    );
}

/// A SetHoldMode request (operator sessions only).
pub(in crate::engine) async fn on_set_hold_mode(conn: &mut Conn, m: &SetHoldModeDecoder<'_>) {
    let mode = m.hold_mode();
    let rep = base(
        m.request_id(),
        AccountRequestType::SetHoldMode,
        Symbol::default(),
        None,
    );
    spawn_request(
        conn,
        rep,
        move |ctx, ix| async move {
            let acc = ctx.accounts.get(ix).ok_or_else(no_account)?;
            acc.rest
                .set_hold_mode(
                    codec::json::HoldMode::from(mode).as_str(),
                    SystemTime::now(),
                )
                .await
        },
        move |rep, ()| rep.hold_mode = Some(mode),
    );
}

/// A MaxOpenAvailableRequest.
pub(in crate::engine) async fn on_max_open_available(
    conn: &mut Conn,
    m: &MaxOpenAvailableRequestDecoder<'_>,
) {
    let (symbol, category, price, qty) = (m.symbol(), m.category(), m.price(), m.order_qty());
    let side = codec::json::Side::from(m.side()).as_str();
    let ord_type = codec::json::OrderType::from(m.ord_type()).as_str();
    let rep = base(
        m.request_id(),
        AccountRequestType::MaxOpenAvailable,
        symbol,
        Some(category),
    );
    spawn_request(
        conn,
        rep,
        move |ctx, ix| async move {
            let acc = ctx.accounts.get(ix).ok_or_else(no_account)?;
            acc.rest
                .max_open_available(
                    codec::json::Category::from(category).as_rest_str(),
                    symbol.as_str(),
                    ord_type,
                    side,
                    price,
                    qty,
                    SystemTime::now(),
                )
                .await
        },
        |rep, mo| {
            rep.available = mo.available;
            rep.max_buy_open = mo.max_buy_open;
            rep.max_sell_open = mo.max_sell_open;
        },
    );
}

/// An AccountSettingsRequest.
pub(in crate::engine) async fn on_account_settings(
    conn: &mut Conn,
    m: &AccountSettingsRequestDecoder<'_>,
) {
    let (symbol, category) = (m.symbol(), m.category());
    let rep = base(
        m.request_id(),
        AccountRequestType::AccountSettings,
        symbol,
        category,
    );
    spawn_request(
        conn,
        rep,
        |ctx, ix| async move {
            let acc = ctx.accounts.get(ix).ok_or_else(no_account)?;
            acc.rest.account_settings(SystemTime::now()).await
        },
        move |rep, s| {
            rep.hold_mode = match s.hold_mode.as_str() {
                "one_way_mode" => Some(HoldMode::OneWay),
                "hedge_mode" => Some(HoldMode::Hedge),
                _ => None,
            };
            if let (Some(sym), Some(cat)) = (non_empty(&symbol), category) {
                rep.leverage = s.leverage_of(codec::json::Category::from(cat).as_rest_str(), sym);
            }
        },
    );
}
