//! The order channel's status sequence over real TLS sockets (issue 13 item 3).
//!
//! Source: reference §4.2 "Status sequence" (best-practices page [P]): "rejected at entry ⇒
//! non-zero `code` in the reply and **no** order push; immediate full fill `new → filled`;
//! multi-fill `new → partially_filled → … → filled`; IOC/FOK/post-only killed by engine ⇒ single
//! cancelled push with reason"; a resting order is `live` [L]. `new_before_fill = false` keeps
//! the earlier behaviour (match pushes only), so that a client can be tested against both.
#![allow(clippy::unwrap_used)]

mod common;

use common::{item, place, topic, Client};
use serde_json::Value;
use sim::SimHandle;

async fn start(new_before_fill: bool) -> SimHandle {
    let mut cfg = common::config(true);
    cfg.new_before_fill = new_before_fill;
    sim::Sim::start(cfg).await.unwrap()
}

/// Sends `req`, checks its reply is a success, and returns the `orderStatus` of every `order`
/// push of that order up to its first push of status `until` (the fill pushes are checked to
/// come after the `new` push).
async fn statuses(c: &mut Client, req: &str, until: &str) -> Vec<String> {
    c.send(req).await;
    let reply = c.recv().await;
    assert_eq!(reply["code"], "0", "the trade reply comes first: {reply}");
    let order_id = reply["args"][0]["orderId"].as_str().unwrap().to_string();
    let mut seen = Vec::new();
    loop {
        let v: Value = c.recv().await;
        let d = item(&v);
        if d["orderId"] != order_id.as_str() {
            continue;
        }
        match topic(&v) {
            "fill" => assert!(
                !seen.is_empty(),
                "a fill push never comes before the order's first order push: {v}"
            ),
            "order" => {
                let s = d["orderStatus"].as_str().unwrap().to_string();
                if s == "new" {
                    assert_eq!(d["cumExecQty"], "0", "`new` carries nothing traded: {v}");
                }
                let done = s == until;
                seen.push(s);
                if done {
                    return seen;
                }
            }
            _ => {}
        }
    }
}

/// Reference §4.2: "immediate full fill `new → filled`".
#[tokio::test]
async fn an_order_filled_on_entry_is_pushed_new_then_filled() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let s = statuses(
        &mut c,
        &place("1", "BTCUSDT", "buy", None, "0.1", "gtc", "full-1"),
        "filled",
    )
    .await;
    assert_eq!(s, ["new", "filled"]);
    h.shutdown().await;
}

/// Reference §4.2: "multi-fill `new → partially_filled → … → filled`" (two ask levels of 0.5).
#[tokio::test]
async fn an_order_filled_by_several_matches_is_pushed_new_partially_filled_filled() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let s = statuses(
        &mut c,
        &place(
            "1",
            "BTCUSDT",
            "buy",
            Some("60001"),
            "0.8",
            "gtc",
            "multi-1",
        ),
        "filled",
    )
    .await;
    assert_eq!(s, ["new", "partially_filled", "filled"]);
    h.shutdown().await;
}

/// Reference §4.2: a resting order is `live` [L]; "IOC partial ⇒ `partially_filled →
/// cancelled`" preceded by `new` (it traded on entry); killed IOC / FOK / post-only ⇒ a single
/// `cancelled` push, no `new` (nothing entered matching).
#[tokio::test]
async fn resting_and_killed_orders_get_no_new_push() {
    let h = start(true).await;
    let mut c = Client::ready(&h, "a").await;
    let rest = statuses(
        &mut c,
        &place("1", "BTCUSDT", "buy", Some("59000"), "0.1", "gtc", "rest-1"),
        "live",
    )
    .await;
    assert_eq!(rest, ["live"]);
    let fok = statuses(
        &mut c,
        &place(
            "2",
            "BTCUSDT",
            "buy",
            Some("60000.5"),
            "0.8",
            "fok",
            "fok-1",
        ),
        "cancelled",
    )
    .await;
    assert_eq!(fok, ["cancelled"], "FOK not fully fillable");
    let post = statuses(
        &mut c,
        &place(
            "3",
            "BTCUSDT",
            "buy",
            Some("60000.5"),
            "0.1",
            "post_only",
            "po-1",
        ),
        "cancelled",
    )
    .await;
    assert_eq!(post, ["cancelled"], "post-only that would take");
    let ioc_none = statuses(
        &mut c,
        &place("4", "BTCUSDT", "buy", Some("59500"), "0.1", "ioc", "ioc-0"),
        "cancelled",
    )
    .await;
    assert_eq!(ioc_none, ["cancelled"], "IOC without a match");
    let ioc_part = statuses(
        &mut c,
        &place(
            "5",
            "BTCUSDT",
            "buy",
            Some("60000.5"),
            "0.8",
            "ioc",
            "ioc-1",
        ),
        "cancelled",
    )
    .await;
    assert_eq!(ioc_part, ["new", "partially_filled", "cancelled"]);
    h.shutdown().await;
}

/// `new_before_fill = false`: the simulator's earlier sequence, match pushes only.
#[tokio::test]
async fn without_new_before_fill_only_the_match_pushes_are_sent() {
    let h = start(false).await;
    let mut c = Client::ready(&h, "a").await;
    let s = statuses(
        &mut c,
        &place(
            "1",
            "BTCUSDT",
            "buy",
            Some("60001"),
            "0.8",
            "gtc",
            "multi-1",
        ),
        "filled",
    )
    .await;
    assert_eq!(s, ["partially_filled", "filled"]);
    h.shutdown().await;
}
