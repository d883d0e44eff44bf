//! The control surface's JSON: request bodies (parsed here, never panicking on any input),
//! answers (serde), and the names sessions and accounts are addressed by ([`Directory`]).
//!
//! Identifiers: `session_id` is a JSON number (the configured FIXP SessionID); `ClOrdID` and
//! `OrderID` are decimal strings (u64 values above 2^53 would lose digits as JSON numbers in
//! JavaScript or jq); prices and quantities are exact decimal strings, never floats.

use codec::sbe::ExecutionReport;
use serde::{Deserialize, Serialize};

use crate::ids::ClientOid;
use crate::tracker::OrderView;

/// A configured session as the control surface names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionEntry {
    /// FIXP SessionID.
    pub session_id: u64,
    /// `[[session]] name` (may be empty).
    pub name: String,
    /// Index of its account.
    pub account: usize,
    /// `trading`, `operator` or `drop_copy`.
    pub role: &'static str,
}

/// The configured sessions and accounts (fixed at start-up): how the routes' `{session}` and
/// `"account"` are resolved, and the names the answers carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directory {
    /// Sessions in configuration order.
    pub sessions: Vec<SessionEntry>,
    /// Account names by index.
    pub accounts: Vec<String>,
}

impl Directory {
    /// The session `key` names: its SessionID in decimal, or its configured name (exact).
    pub fn session(&self, key: &str) -> Option<&SessionEntry> {
        if let Ok(id) = key.parse::<u64>() {
            if let Some(s) = self.sessions.iter().find(|s| s.session_id == id) {
                return Some(s);
            }
        }
        self.sessions
            .iter()
            .find(|s| !s.name.is_empty() && s.name == key)
    }

    /// The index of the account named `name`.
    pub fn account(&self, name: &str) -> Option<usize> {
        self.accounts.iter().position(|a| a == name)
    }

    /// The name of account `ix` (`"?"` for an unknown index).
    pub fn account_name(&self, ix: usize) -> &str {
        self.accounts.get(ix).map_or("?", String::as_str)
    }
}

/// `POST /control/kill-switch` body: `{"action": "pull" | "release", "account": "name" | null}`
/// (`account` null or absent: every account, the global switch).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KillSwitchBody {
    /// `pull` or `release`.
    pub action: KillSwitchVerb,
    /// The account's configured name; `None`: global.
    #[serde(default)]
    pub account: Option<String>,
}

/// What a kill-switch request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KillSwitchVerb {
    /// New orders refused in scope, every open order in scope cancelled.
    Pull,
    /// New orders pass again.
    Release,
}

/// `POST /control/sessions/{session}/drain` body: `{"cancel_open": bool}` (an empty body:
/// `false`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrainBody {
    /// Also cancel the session's open orders now.
    #[serde(default)]
    pub cancel_open: bool,
}

/// A request body that is not what the route takes (HTTP 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest(pub String);

/// Parses a JSON body (`empty_ok`: an empty or all-whitespace body is `T::default()`).
///
/// Errors: [`BadRequest`] with serde's message (not JSON, wrong shape, unknown field).
pub fn parse_body<T: for<'de> Deserialize<'de> + Default>(
    body: &[u8],
    empty_ok: bool,
) -> Result<T, BadRequest> {
    if empty_ok && body.trim_ascii().is_empty() {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|e| BadRequest(format!("bad JSON body: {e}")))
}

/// Parses a kill-switch body (see [`KillSwitchBody`]).
///
/// Errors: [`BadRequest`] for anything else.
pub fn parse_kill_switch(body: &[u8]) -> Result<KillSwitchBody, BadRequest> {
    serde_json::from_slice(body).map_err(|e| BadRequest(format!("bad JSON body: {e}")))
}

/// One open order in `GET /control/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenOrderJson {
    /// The order's current ClOrdID (its last accepted request's), decimal string.
    #[serde(rename = "ClOrdID")]
    pub cl_ord_id: String,
    /// Bitget `orderId`, decimal string (`"0"`: not known yet).
    #[serde(rename = "OrderID")]
    pub order_id: String,
    /// The gateway's `clientOid` of the order.
    #[serde(rename = "clientOid")]
    pub client_oid: String,
    /// Symbol.
    #[serde(rename = "Symbol")]
    pub symbol: String,
    /// Category (`usdt-futures`, `spot`, ...).
    #[serde(rename = "Category")]
    pub category: String,
    /// `Buy` or `Sell`.
    #[serde(rename = "Side")]
    pub side: String,
    /// OrdStatus name (`New`, `PartiallyFilled`, `PendingCancel`, ...).
    #[serde(rename = "OrdStatus")]
    pub ord_status: String,
    /// Limit price, exact decimal string; `null` for a market order.
    #[serde(rename = "Price")]
    pub price: Option<String>,
    /// Order quantity, exact decimal string.
    #[serde(rename = "OrderQty")]
    pub order_qty: String,
    /// Filled quantity, exact decimal string.
    #[serde(rename = "CumQty")]
    pub cum_qty: String,
    /// Open quantity, exact decimal string.
    #[serde(rename = "LeavesQty")]
    pub leaves_qty: String,
}

impl OpenOrderJson {
    /// The JSON of a tracker view (see `gateway_core::tracker::mass::OrderView`).
    pub fn of(v: &OrderView) -> OpenOrderJson {
        let r: &ExecutionReport = &v.report;
        OpenOrderJson {
            cl_ord_id: r.cl_ord_id.to_string(),
            order_id: r.order_id.to_string(),
            client_oid: ClientOid::in_epoch(v.session_id, v.epoch, v.root)
                .as_str()
                .to_owned(),
            symbol: r.symbol.as_str().to_owned(),
            category: codec::json::Category::from(r.category)
                .as_rest_str()
                .to_owned(),
            side: format!("{:?}", r.side),
            ord_status: format!("{:?}", r.ord_status),
            price: r.price.map(|p| p.to_string()),
            order_qty: r.order_qty.to_string(),
            cum_qty: r.cum_qty.to_string(),
            leaves_qty: r.leaves_qty.to_string(),
        }
    }
}

/// One session in `GET /control/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionJson {
    /// FIXP SessionID.
    pub session_id: u64,
    /// Configured name (may be empty).
    pub name: String,
    /// Its account's name.
    pub account: String,
    /// `trading`, `operator` or `drop_copy`.
    pub role: String,
    /// A strategy connection holds the session now.
    pub established: bool,
    /// Drained: new orders refused.
    pub draining: bool,
    /// Its account's kill switch is on.
    pub kill_switch: bool,
    /// Its open orders (as the tracker holds them), by ClOrdID.
    pub open_orders: Vec<OpenOrderJson>,
}

/// `GET /control/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionsJson {
    /// Every configured session.
    pub sessions: Vec<SessionJson>,
    /// Kill switch per account name.
    pub kill_switch: Vec<AccountSwitchJson>,
}

/// One account's kill switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountSwitchJson {
    /// Account name.
    pub account: String,
    /// On: new orders refused.
    pub active: bool,
}

/// `POST /control/kill-switch` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KillSwitchJson {
    /// `pull` or `release`.
    pub action: KillSwitchVerb,
    /// `global` or the account's name.
    pub scope: String,
    /// The switch is on in scope now.
    pub active: bool,
    /// Orders the exchange reported cancelled by the cancel-all (0 for a release).
    pub canceled: u32,
    /// Cancel-alls that failed (`account category: error`); empty when all passed.
    pub errors: Vec<String>,
}

/// `POST /control/sessions/{session}/drain` and `/resume` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainJson {
    /// `drain` or `resume`.
    pub action: String,
    /// FIXP SessionID.
    pub session_id: u64,
    /// Configured name.
    pub name: String,
    /// Drained now.
    pub draining: bool,
    /// Open orders are being cancelled (drain with `cancel_open`).
    pub cancel_open: bool,
    /// Open orders of the session when the action was taken.
    pub open_orders: usize,
}

/// Every error answer: `{"error": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorJson {
    /// One line.
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> Directory {
        Directory {
            sessions: vec![
                SessionEntry {
                    session_id: 1,
                    name: "alpha".into(),
                    account: 0,
                    role: "trading",
                },
                SessionEntry {
                    session_id: 7,
                    name: String::new(),
                    account: 1,
                    role: "trading",
                },
            ],
            accounts: vec!["main".into(), "sub".into()],
        }
    }

    #[test]
    fn sessions_and_accounts_resolve_by_id_or_name() {
        let d = dir();
        assert_eq!(d.session("1").map(|s| s.session_id), Some(1));
        assert_eq!(d.session("alpha").map(|s| s.session_id), Some(1));
        assert_eq!(d.session("7").map(|s| s.session_id), Some(7));
        for unknown in ["2", "", "beta", "-1", "99999999999999999999999", "alpha "] {
            assert!(d.session(unknown).is_none(), "{unknown:?}");
        }
        assert_eq!(d.account("sub"), Some(1));
        assert_eq!(d.account("nope"), None);
        assert_eq!(d.account_name(5), "?");
    }

    #[test]
    fn kill_switch_bodies() {
        assert_eq!(
            parse_kill_switch(br#"{"action":"pull","account":"main"}"#),
            Ok(KillSwitchBody {
                action: KillSwitchVerb::Pull,
                account: Some("main".into())
            })
        );
        assert_eq!(
            parse_kill_switch(br#"{"action":"release","account":null}"#).map(|b| b.account),
            Ok(None)
        );
        assert_eq!(
            parse_kill_switch(br#"{"action":"release"}"#).map(|b| b.action),
            Ok(KillSwitchVerb::Release)
        );
        for bad in [
            &b""[..],
            b"{",
            b"null",
            b"[]",
            b"{}",
            br#"{"action":"PULL"}"#,
            br#"{"action":"pull","account":5}"#,
            br#"{"action":"pull","extra":1}"#,
            b"\xff\xfe",
        ] {
            let e = parse_kill_switch(bad).expect_err("refused");
            assert!(e.0.starts_with("bad JSON body"), "{}", e.0);
        }
    }

    #[test]
    fn drain_bodies() {
        assert_eq!(parse_body::<DrainBody>(b"", true), Ok(DrainBody::default()));
        assert_eq!(
            parse_body::<DrainBody>(b" \n", true),
            Ok(DrainBody::default())
        );
        assert_eq!(
            parse_body::<DrainBody>(br#"{"cancel_open":true}"#, true),
            Ok(DrainBody { cancel_open: true })
        );
        assert_eq!(
            parse_body::<DrainBody>(b"{}", true),
            Ok(DrainBody::default())
        );
        for bad in [
            &b"{"[..],
            br#"{"cancel_open":"yes"}"#,
            br#"{"cancelOpen":true}"#,
            b"true",
        ] {
            assert!(parse_body::<DrainBody>(bad, true).is_err(), "{bad:?}");
        }
    }
}
