//! Mark prices for the risk checks: `GET /api/v3/market/tickers?category=..` of every loaded
//! category, polled from the io thread.

use std::rc::Rc;
use std::time::Duration;

use codec::sbe::Symbol;
use codec::Decimal;

use super::ctx::IoCtx;

/// Tickers path (public).
pub const TICKERS_PATH: &str = "/api/v3/market/tickers";

/// Fetches the marks every `period`, forever (errors are logged once per kind and retried).
pub(super) async fn refresh_loop(ctx: Rc<IoCtx>, period: Duration) {
    let mut t = tokio::time::interval(period);
    t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut warned = false;
    loop {
        t.tick().await;
        let Some(account) = ctx.accounts.first() else {
            return;
        };
        for c in &ctx.categories {
            let path = format!(
                "{TICKERS_PATH}?category={}",
                codec::json::Category::from(*c).as_rest_str()
            );
            match account.rest.public_get(&path).await {
                Ok(data) => {
                    for item in data.as_array().into_iter().flatten() {
                        let sym = item["symbol"].as_str().and_then(|s| Symbol::new(s).ok());
                        let mark = item["markPrice"]
                            .as_str()
                            .and_then(|s| Decimal::parse(s.as_bytes()).ok())
                            .filter(|m| m.is_positive());
                        if let (Some(sym), Some(mark)) = (sym, mark) {
                            ctx.risk.set_mark(*c, &sym, mark);
                        }
                    }
                }
                Err(e) if !warned => {
                    warned = true;
                    tracing::warn!(error = %e, "mark prices: tickers request failed");
                }
                Err(_) => {}
            }
        }
    }
}
