//! Sans-I/O tests of the REST trade core: random bodies never panic nor corrupt the venue.

use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::config::SimConfig;
use crate::venue::Counters;

fn venue() -> Venue {
    let mut cfg = SimConfig::demo();
    cfg.id_base = Some(1_300_000_000_000_000_000);
    Venue::new(&cfg, Arc::new(Counters::default()), 0)
}

const KINDS: [PostKind; 7] = [
    PostKind::Place,
    PostKind::Modify,
    PostKind::Cancel,
    PostKind::PlaceBatch,
    PostKind::BatchModify,
    PostKind::CancelBatch,
    PostKind::CancelSymbol,
];

const NOW: u64 = 1_700_000_000_000;

/// Number of open orders of account 0 (all categories), via the unfilled-orders query.
fn open_count(v: &Venue) -> usize {
    let data: Value =
        serde_json::from_str(&v.unfilled_orders(AccountId(0), None, None, 100, None)).unwrap();
    data["list"].as_array().unwrap().len()
}

fn field() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        r#""category":"USDT-FUTURES""#,
        r#""category":"SPOT""#,
        r#""category":"usdt-futures""#,
        r#""category":7"#,
        r#""symbol":"BTCUSDT""#,
        r#""symbol":"ETHUSDT""#,
        r#""symbol":"NOPE""#,
        r#""side":"buy""#,
        r#""side":"sell""#,
        r#""side":"BUY""#,
        r#""orderType":"limit""#,
        r#""orderType":"market""#,
        r#""price":"50000""#,
        r#""price":"2000""#,
        r#""price":"abc""#,
        r#""price":"1e400""#,
        r#""price":-1"#,
        r#""qty":"0.01""#,
        r#""qty":"0.001""#,
        r#""qty":"99999999999999999999999999""#,
        r#""qty":null"#,
        r#""clientOid":"c1""#,
        r#""clientOid":"bad oid""#,
        r#""orderId":"1300000000000000001""#,
        r#""orderId":"x""#,
        r#""autoCancel":"yes""#,
        r#""timeInForce":"ioc""#,
        r#""reduceOnly":"maybe""#,
    ])
    .prop_map(str::to_string)
}

fn object() -> impl Strategy<Value = String> {
    prop::collection::vec(field(), 0..8).prop_map(|f| format!("{{{}}}", f.join(",")))
}

fn body() -> impl Strategy<Value = String> {
    prop_oneof![
        object(),
        prop::collection::vec(object(), 0..25).prop_map(|o| format!("[{}]", o.join(","))),
        ".{0,64}",
        Just("[".to_string()),
        Just("null".to_string()),
        Just("[[],{},1]".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bodies_get_a_coded_reply_and_keep_the_indexes_consistent(
        reqs in prop::collection::vec((0usize..7, body()), 1..12)
    ) {
        let mut v = venue();
        for (k, body) in &reqs {
            let kind = KINDS[*k];
            let (reply, outcome) = post_core(&mut v, AccountId(0), kind, body, NOW);
            match reply {
                RestReply::Ok(data) => {
                    let parsed: Value = serde_json::from_str(&data).unwrap();
                    prop_assert!(parsed.is_object() || parsed.is_array());
                }
                RestReply::Err(status, code, _) => {
                    prop_assert!(status == 400 || status == 404, "{status}");
                    prop_assert!(code >= 25000, "{code}");
                }
            }
            for p in &outcome.pushes {
                prop_assert!(serde_json::from_str::<Value>(&p.json).is_ok());
            }
        }
        // The open-order index agrees with the books: cancel-symbol finds exactly the listed
        // orders, and afterwards nothing is open.
        let open = open_count(&v);
        let mut out = TradeOutcome::default();
        let mut cancelled = 0;
        for c in [Category::UsdtFutures, Category::Spot] {
            let r = v.cancel_symbol(AccountId(0), c, None, NOW, &mut out).unwrap();
            prop_assert!(r.iter().all(|r| r.error.is_none()));
            cancelled += r.len();
        }
        prop_assert_eq!(open, cancelled);
        prop_assert_eq!(open_count(&v), 0);
    }

    #[test]
    fn random_queries_never_panic(q in "[a-zA-Z=&%0-9-]{0,80}", hist in any::<bool>()) {
        let v = venue();
        let kind = if hist { QueryKind::History } else { QueryKind::Fills };
        match query_core(&v, AccountId(0), kind, &q, NOW) {
            RestReply::Ok(data) => prop_assert!(serde_json::from_str::<Value>(&data).is_ok()),
            RestReply::Err(_, code, _) => prop_assert_eq!(code, 40017),
        }
    }
}

#[test]
fn batch_reply_has_a_code_per_item_in_request_order() {
    let mut v = venue();
    let body = r#"[{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"a"},{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"a"}]"#;
    let (reply, out) = post_core(&mut v, AccountId(0), PostKind::PlaceBatch, body, NOW);
    let RestReply::Ok(data) = reply else {
        panic!("{reply:?}")
    };
    let data: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(data[0]["code"], "00000");
    assert_eq!(data[1]["code"], "25212");
    assert_eq!(out.pushes.len(), 1);
}

#[test]
fn query_windows() {
    let v = venue();
    let bad = |q: &str| query_core(&v, AccountId(0), QueryKind::History, q, NOW);
    assert!(matches!(
        bad("symbol=BTCUSDT"),
        RestReply::Err(400, 40017, _)
    ));
    assert!(matches!(bad("category=SPOT"), RestReply::Ok(_)));
    let span31 = format!("category=SPOT&startTime={}", NOW - 31 * DAY_MS);
    assert!(matches!(bad(&span31), RestReply::Err(400, 40017, _)));
    let old = format!(
        "category=SPOT&startTime={}&endTime={}",
        NOW - 91 * DAY_MS,
        NOW - 90 * DAY_MS
    );
    assert!(matches!(bad(&old), RestReply::Err(400, 40017, _)));
    let ok = format!("category=SPOT&startTime={}", NOW - 30 * DAY_MS);
    assert!(matches!(bad(&ok), RestReply::Ok(_)));
    assert!(matches!(
        query_core(&v, AccountId(0), QueryKind::Fills, "", NOW),
        RestReply::Ok(_)
    ));
}
