//! The Bitget UTA JSON codec against the shared golden frames (`shared/fixtures/bitget-uta/`,
//! reference `bitget-uta-v3.md` §1.3, §3, §4, §5): every reply, push and control event the
//! parser covers, the request writers against the request fixtures, and wire variants.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use codec::json::*;
use codec::Decimal;

/// The fixtures folder: `$CARGO_MANIFEST_DIR/../../shared/fixtures/bitget-uta` when the shared
/// folder sits beside the checkout, else `$BGW_SHARED_DIR/fixtures/bitget-uta`.
fn fixtures_dir() -> PathBuf {
    let beside = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/bitget-uta/"
    ));
    if beside.is_dir() {
        return beside;
    }
    if let Some(dir) = std::env::var_os("BGW_SHARED_DIR") {
        let p = PathBuf::from(dir).join("fixtures/bitget-uta");
        if p.is_dir() {
            return p;
        }
    }
    panic!(
        "fixtures not found: neither {} nor $BGW_SHARED_DIR/fixtures/bitget-uta exists (export BGW_SHARED_DIR=/work/shared)",
        beside.display()
    );
}

fn fixture(name: &str) -> Vec<u8> {
    let p = fixtures_dir().join(name);
    let mut b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    while b.last().is_some_and(u8::is_ascii_whitespace) {
        b.pop();
    }
    b
}

fn json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(bytes)))
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

// ---------------------------------------------------------------- writers vs request fixtures

#[test]
fn place_order_request_matches_fixture() {
    let mut out = Vec::new();
    let o = PlaceOrder {
        symbol: "BTCUSDT",
        side: Side::Buy,
        order_type: OrderType::Limit,
        qty: d("0.0002"),
        price: Some(d("32000")),
        time_in_force: Some(TimeInForce::Gtc),
        pos_side: Some(PosSide::Long),
        reduce_only: None,
        client_oid: "s1:00000000001",
        stp_mode: Some(StpMode::CancelMaker),
    };
    write_place_order(&mut out, "1750034396082", Category::UsdtFutures, &o);
    assert_eq!(json(&out), json(&fixture("ws_place_order_request.json")));
}

#[test]
fn modify_order_request_matches_fixture() {
    let mut out = Vec::new();
    let m = ModifyOrder {
        symbol: "BTCUSDT",
        order_id: Some("1354237910666666666"),
        client_oid: Some("135423791666666666"),
        qty: Some(d("2")),
        price: Some(d("5")),
        auto_cancel: true,
    };
    write_modify_order(
        &mut out,
        "ae5ea6df-215f-4750-a700-d487d03ac020",
        Category::UsdtFutures,
        &m,
    );
    assert_eq!(json(&out), json(&fixture("ws_modify_order_request.json")));
}

#[test]
fn login_request_matches_fixture() {
    let mut out = Vec::new();
    write_login(
        &mut out,
        "bg_test_key",
        "test-pass",
        "1700000000",
        "QKXMEacdjBcrVZaxWVJypn62KNrQGzBErbiQtYn6KO8=",
    );
    assert_eq!(json(&out), json(&fixture("ws_login_request.json")));
}

#[test]
fn subscribe_request_matches_fixture() {
    let mut out = Vec::new();
    write_subscribe(
        &mut out,
        false,
        &[SubscribeArg {
            inst_type: "UTA",
            topic: "order",
            symbol: None,
        }],
    );
    assert_eq!(
        json(&out),
        json(&fixture("ws_subscribe_order_request.json"))
    );
}

// ---------------------------------------------------------------- control events

#[test]
fn login_ok() {
    let mut p = JsonParser::new();
    assert_eq!(
        p.parse(&fixture("ws_login_ok.json")).unwrap(),
        Inbound::Login {
            code: Code(0),
            msg: ""
        }
    );
}

#[test]
fn login_error() {
    let mut p = JsonParser::new();
    assert_eq!(
        p.parse(&fixture("ws_login_error.json")).unwrap(),
        Inbound::Error {
            id: None,
            code: Code(30005),
            msg: "login failed"
        }
    );
}

#[test]
fn subscribe_ack() {
    let mut p = JsonParser::new();
    assert_eq!(
        p.parse(&fixture("ws_subscribe_ack.json")).unwrap(),
        Inbound::Subscribed {
            unsubscribe: false,
            inst_type: "UTA",
            topic: "order",
            symbol: None
        }
    );
}

#[test]
fn pong() {
    let mut p = JsonParser::new();
    assert_eq!(p.parse(b"pong").unwrap(), Inbound::Pong);
}

// ---------------------------------------------------------------- trade replies

fn trade(p: &mut JsonParser, frame: &[u8]) -> TradeReply<'static> {
    // Copy out of the parser's borrow with leaked strings, so several replies can be compared.
    match p.parse(frame).unwrap() {
        Inbound::Trade(t) => TradeReply {
            id: leak(t.id),
            topic: leak(t.topic),
            code: t.code,
            msg: leak(t.msg),
            items: t
                .items
                .iter()
                .map(|i| TradeItem {
                    order_id: leak(i.order_id),
                    client_oid: leak(i.client_oid),
                    code: i.code,
                    msg: leak(i.msg),
                })
                .collect(),
        },
        other => panic!("not a trade reply: {other:?}"),
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

#[test]
fn place_order_reply() {
    let mut p = JsonParser::new();
    let t = trade(&mut p, &fixture("ws_place_order_ok.json"));
    assert_eq!(t.id, "P:3wAC11XFkEwAAQAAAAAA");
    assert_eq!(t.topic, "place-order");
    assert_eq!(t.code, Code(0));
    assert_eq!(t.msg, "Success");
    assert_eq!(
        t.items.as_slice(),
        &[TradeItem {
            order_id: "1396067064152686608",
            client_oid: "3wAC11XFkEwAAQAAAAAA",
            code: Code(0),
            msg: ""
        }]
    );
}

#[test]
fn cancel_and_modify_replies() {
    let mut p = JsonParser::new();
    let t = trade(&mut p, &fixture("ws_cancel_order_ok.json"));
    assert_eq!(
        (t.id, t.topic, t.code),
        ("1750034870205", "cancel-order", Code(0))
    );
    assert_eq!(t.items.len(), 1);
    assert_eq!(t.items[0].order_id, "1396067064152686608");
    assert_eq!(t.items[0].client_oid, "3wAC11XFkEwAAQAAAAAA");

    let t = trade(&mut p, &fixture("ws_modify_order_ok.json"));
    assert_eq!(
        (t.id, t.topic, t.code, t.msg),
        (
            "ae5ea6df-215f-4750-a700-d487d03ac020",
            "modify-order",
            Code(0),
            "Success"
        )
    );
    assert_eq!(t.items[0].order_id, "1354237910666666666");
    assert_eq!(t.items[0].client_oid, "135423791666666666");
}

#[test]
fn batch_replies_carry_per_item_codes() {
    let mut p = JsonParser::new();
    let t = trade(&mut p, &fixture("ws_batch_place_ok.json"));
    assert_eq!(
        (t.id, t.topic, t.code),
        ("1750035029506", "batch-place", Code(0))
    );
    assert_eq!(
        t.items.as_slice(),
        &[
            TradeItem {
                order_id: "1300000000000000001",
                client_oid: "s1:00000000002",
                code: Code(0),
                msg: "Success"
            },
            TradeItem {
                order_id: "",
                client_oid: "s1:00000000003",
                code: Code(25202),
                msg: "Insufficient balance"
            },
        ]
    );

    let t = trade(&mut p, &fixture("ws_batch_cancel_partial.json"));
    assert_eq!(t.topic, "batch-cancel");
    assert_eq!(t.items.len(), 2);
    assert_eq!(
        (t.items[0].order_id, t.items[0].code),
        ("1300000000000000001", Code(0))
    );
    assert_eq!(
        (
            t.items[1].order_id,
            t.items[1].client_oid,
            t.items[1].code,
            t.items[1].msg
        ),
        (
            "1300000000000000009",
            "s1:00000000009",
            Code(25204),
            "Order does not exist"
        )
    );

    let t = trade(&mut p, &fixture("ws_batch_modify_partial.json"));
    assert_eq!(t.topic, "batch-modify");
    assert_eq!(t.items[0].code, Code(25571));
    assert_eq!(t.items[0].order_id, "1354237913333333333");
    assert_eq!(
        t.items[0].msg,
        "The modification price and qty is the same as the original value."
    );
    assert_eq!(
        (t.items[1].code, t.items[1].client_oid),
        (Code(0), "1354240301222222222")
    );
}

#[test]
fn trade_errors() {
    let mut p = JsonParser::new();
    assert_eq!(
        p.parse(&fixture("ws_trade_error_category.json")).unwrap(),
        Inbound::Error {
            id: Some("IQAC76UdfkwAAQAAAAAA"),
            code: Code(41101),
            msg: "Param category=USDT-FUTURES error"
        }
    );
    assert_eq!(
        p.parse(&fixture("ws_trade_error_margin.json")).unwrap(),
        Inbound::Error {
            id: Some("IwACRLKjfkwAAQAAAAAA"),
            code: Code(25203),
            msg: "Insufficient margin"
        }
    );
    assert_eq!(
        p.parse(&fixture("ws_trade_error_unknown_outcome.json"))
            .unwrap(),
        Inbound::Error {
            id: Some("1666268894074"),
            code: Code(40010),
            msg: "Request timed out"
        }
    );
}

// ---------------------------------------------------------------- pushes

#[test]
fn order_push_live() {
    let mut p = JsonParser::new();
    let Inbound::Orders { ts_ms, orders } = p.parse(&fixture("ws_push_order_live.json")).unwrap()
    else {
        panic!("not an order push")
    };
    assert_eq!(ts_ms, 1758180740327);
    assert_eq!(
        orders.as_slice(),
        &[OrderPush {
            category: Some(Category::UsdtFutures),
            symbol: "BTCUSDT",
            order_id: "1352473539865894955",
            client_oid: "FQACwTnAXTQAAQAAAAAA",
            price: Some(d("32000")),
            qty: d("0.0002"),
            side: Side::Buy,
            order_type: OrderType::Limit,
            time_in_force: Some(TimeInForce::Gtc),
            order_status: OrderStatus::Live,
            cancel_reason: "",
            cum_exec_qty: Decimal::ZERO,
            cum_exec_value: Decimal::ZERO,
            avg_price: Decimal::ZERO,
            hold_side: Some(PosSide::Long),
            created_time_ms: 1758180740324,
            updated_time_ms: 1758180740324,
            reduce_only: false,
        }]
    );
}

#[test]
fn order_push_filled_market() {
    let mut p = JsonParser::new();
    let Inbound::Orders { ts_ms, orders } = p.parse(&fixture("ws_push_order_filled.json")).unwrap()
    else {
        panic!("not an order push")
    };
    assert_eq!(ts_ms, 1742367838124);
    assert_eq!(orders.len(), 1);
    let o = &orders[0];
    assert_eq!(o.order_id, "1288888888888888888");
    assert_eq!(o.client_oid, "s1:00000000004");
    assert_eq!(o.price, None, "market order: price \"\"");
    assert_eq!(o.qty, d("0.001"));
    assert_eq!(o.order_type, OrderType::Market);
    assert_eq!(o.order_status, OrderStatus::Filled);
    assert_eq!(o.cum_exec_qty, d("0.001"));
    assert_eq!(o.cum_exec_value, d("83.1315"));
    assert_eq!(o.avg_price, d("83131.5"));
    assert_eq!(
        (o.avg_price.mantissa(), o.avg_price.exponent()),
        (831315, -1)
    );
    assert_eq!(o.cancel_reason, "");
    assert_eq!(
        (o.created_time_ms, o.updated_time_ms),
        (1742367838101, 1742367838115)
    );
}

#[test]
fn order_push_cancelled_post_only() {
    let mut p = JsonParser::new();
    let Inbound::Orders { orders, .. } = p
        .parse(&fixture("ws_push_order_cancelled_post_only.json"))
        .unwrap()
    else {
        panic!("not an order push")
    };
    let o = &orders[0];
    assert_eq!(o.category, Some(Category::Spot));
    assert_eq!(o.symbol, "ETHUSDT");
    assert_eq!(o.order_id, "1352473539865894999");
    assert_eq!(o.client_oid, "s2:0000000000a");
    assert_eq!(o.price, Some(d("2500.1")));
    assert_eq!(o.qty, d("0.5"));
    assert_eq!(o.time_in_force, Some(TimeInForce::PostOnly));
    assert_eq!(o.order_status, OrderStatus::Cancelled);
    assert_eq!(o.cancel_reason, "post_only_fill_cancel");
    assert_eq!(o.hold_side, None);
    assert!(!o.reduce_only);
}

#[test]
fn fill_push() {
    let mut p = JsonParser::new();
    let Inbound::Fills { ts_ms, fills } = p.parse(&fixture("ws_push_fill.json")).unwrap() else {
        panic!("not a fill push")
    };
    assert_eq!(ts_ms, 1758185294056);
    assert_eq!(
        fills.as_slice(),
        &[FillPush {
            order_id: "1352492639547711500",
            client_oid: "TQACZE92YDQAAQAAAAAA",
            exec_id: "1352492639559331841",
            category: Some(Category::UsdtFutures),
            symbol: "BTCUSDT",
            side: Side::Sell,
            exec_price: d("117066.1"),
            exec_qty: d("0.0002"),
            exec_value: d("23.4132"),
            trade_scope: "taker",
            fee: Some(d("0.00819462")),
            fee_coin: "USDT",
            exec_time_ms: 1758185294046,
        }]
    );
}

#[test]
fn position_push() {
    let mut p = JsonParser::new();
    let Inbound::Positions { ts_ms, positions } =
        p.parse(&fixture("ws_push_position.json")).unwrap()
    else {
        panic!("not a position push")
    };
    assert_eq!(ts_ms, 1758186381497);
    let expected = PositionPush {
        category: None,
        symbol: "BTCUSDT",
        margin_coin: "USDT",
        pos_side: Some(PosSide::Short),
        hold_mode: Some(HoldMode::Hedge),
        size: d("0.0002"),
        avg_price: Some(d("117066.1")),
        unrealised_pnl: Some(d("-0.01122")),
        cur_realised_pnl: Some(d("0")),
        leverage: Some(d("10")),
        mark_price: Some(d("117122.2")),
        liq_price: Some(d("3271394.4")),
        updated_time_ms: 1758185294053,
    };
    assert_eq!(positions.as_slice(), &[expected]);
    assert_eq!(
        positions[0].category_or_inferred(),
        Some(Category::UsdtFutures)
    );
    let with = |coin: &str| PositionPush {
        margin_coin: Box::leak(coin.to_owned().into_boxed_str()),
        ..expected
    };
    assert_eq!(
        with("USDC").category_or_inferred(),
        Some(Category::UsdcFutures)
    );
    assert_eq!(
        with("BTC").category_or_inferred(),
        Some(Category::CoinFutures)
    );
    assert_eq!(with("").category_or_inferred(), None);
    let explicit = PositionPush {
        category: Some(Category::UsdcFutures),
        ..expected
    };
    assert_eq!(explicit.category_or_inferred(), Some(Category::UsdcFutures));
    // A closed position: size "0"; a push without size is refused.
    let closed = replace(
        &fixture("ws_push_position.json"),
        "\"size\":\"0.0002\"",
        "\"size\":\"0\"",
    );
    let mut p2 = JsonParser::new();
    let Inbound::Positions { positions, .. } = p2.parse(&closed).unwrap() else {
        panic!("not a position push")
    };
    assert_eq!(positions[0].size, d("0"));
    let no_size = replace(
        &fixture("ws_push_position.json"),
        "\"size\":\"0.0002\",",
        "",
    );
    assert!(matches!(
        JsonParser::new().parse(&no_size),
        Err(JsonError::MissingField("size"))
    ));
}

#[test]
fn account_push() {
    let mut p = JsonParser::new();
    let Inbound::Account {
        ts_ms,
        unrealised_pnl,
        coins,
    } = p.parse(&fixture("ws_push_account.json")).unwrap()
    else {
        panic!("not an account push")
    };
    assert_eq!(ts_ms, 1758113442410);
    assert_eq!(unrealised_pnl, Some(d("0")));
    assert_eq!(
        coins.as_slice(),
        &[CoinPush {
            coin: "USDT",
            balance: d("99.97860095"),
            locked: d("0"),
            equity: d("99.97860095"),
            available: d("99.97860095"),
        }]
    );
    let bad = replace(
        &fixture("ws_push_account.json"),
        "\"locked\":\"0\"",
        "\"locked\":\"x\"",
    );
    assert!(matches!(
        JsonParser::new().parse(&bad),
        Err(JsonError::InvalidDecimal {
            field: "locked",
            ..
        })
    ));
}

#[test]
fn other_pushes_report_their_topic() {
    let mut p = JsonParser::new();
    assert_eq!(
        p.parse(&fixture("ws_push_books_update.json")).unwrap(),
        Inbound::OtherPush { topic: "books" }
    );
}

// ---------------------------------------------------------------- wire variants

fn replace(frame: &[u8], from: &str, to: &str) -> Vec<u8> {
    let s = std::str::from_utf8(frame).unwrap();
    assert!(s.contains(from), "{from} not in {s}");
    s.replacen(from, to, 1).into_bytes()
}

#[test]
fn code_as_number_or_string() {
    let mut p = JsonParser::new();
    for (frame, code) in [
        (&br#"{"event":"login","code":"0","msg":""}"#[..], 0),
        (br#"{"event":"login","code":"00000"}"#, 0),
        (br#"{"event":"login","code":""}"#, 0),
        (br#"{"event":"login","code":0}"#, 0),
        (br#"{"event":"error","code":"30005","msg":"error"}"#, 30005),
        (
            br#"{"event":"error","code":30015,"msg":"Invalid sign"}"#,
            30015,
        ),
    ] {
        match p.parse(frame).unwrap() {
            Inbound::Login { code: c, .. } | Inbound::Error { code: c, .. } => {
                assert_eq!(c, Code(code))
            }
            other => panic!("{other:?}"),
        }
    }
    let place = fixture("ws_place_order_ok.json");
    let numeric = replace(&place, r#""code":"0""#, r#""code":0"#);
    assert_eq!(trade(&mut p, &numeric).code, Code(0));
    let batch = fixture("ws_batch_place_ok.json");
    let numeric = replace(&batch, r#""code":"25202""#, r#""code":25202"#);
    assert_eq!(trade(&mut p, &numeric).items[1].code, Code(25202));
    for bad in [
        &br#"{"event":"login","code":"ok"}"#[..],
        br#"{"event":"login","code":-1}"#,
        br#"{"event":"login","code":1.5}"#,
        br#"{"event":"login","code":"99999999999"}"#,
        br#"{"event":"login","code":true}"#,
    ] {
        assert!(p.parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn success_capitalisation_and_unknown_fields() {
    let mut p = JsonParser::new();
    let f = fixture("ws_place_order_ok.json");
    let lower = replace(&f, r#""msg":"Success""#, r#""msg":"success""#);
    assert_eq!(trade(&mut p, &lower).msg, "success");
    let extra = replace(
        &f,
        r#""event":"trade","#,
        r#""event":"trade","rateLimit":[{"limit":"10","remaining":"9"}],"x":{"y":[1,2.5,null,true]},"#,
    );
    let extra = replace(
        &extra,
        r#""cTime":"1768574246443""#,
        r#""cTime":"1768574246443","receiveTime":17685742464430,"pushTime":{"a":1}"#,
    );
    let t = trade(&mut p, &extra);
    assert_eq!(t.items[0].order_id, "1396067064152686608");

    let push = fixture("ws_push_fill.json");
    let extra = replace(
        &push,
        r#""execPnl":"0","#,
        r#""execPnl":"0","newField":{"k":["v"]},"isRPI":"no","#,
    );
    let Inbound::Fills { fills, .. } = p.parse(&extra).unwrap() else {
        panic!()
    };
    assert_eq!(fills[0].exec_id, "1352492639559331841");
}

#[test]
fn fill_category_in_either_case() {
    let mut p = JsonParser::new();
    let f = fixture("ws_push_fill.json");
    let lower = replace(
        &f,
        r#""category":"USDT-FUTURES""#,
        r#""category":"usdt-futures""#,
    );
    for frame in [f, lower] {
        let Inbound::Fills { fills, .. } = p.parse(&frame).unwrap() else {
            panic!()
        };
        assert_eq!(fills[0].category, Some(Category::UsdtFutures));
    }
}

#[test]
fn numeric_ids_become_digit_text() {
    let mut p = JsonParser::new();
    let f = fixture("ws_trade_error_margin.json");
    let numeric = replace(
        &f,
        r#""id":"IwACRLKjfkwAAQAAAAAA""#,
        r#""id":1666268894071"#,
    );
    assert_eq!(
        p.parse(&numeric).unwrap(),
        Inbound::Error {
            id: Some("1666268894071"),
            code: Code(25203),
            msg: "Insufficient margin"
        }
    );
    let f = fixture("ws_place_order_ok.json");
    let numeric = replace(&f, r#""id":"P:3wAC11XFkEwAAQAAAAAA""#, r#""id":42"#);
    let numeric = replace(
        &numeric,
        r#""orderId":"1396067064152686608""#,
        r#""orderId":1396067064152686608"#,
    );
    let t = trade(&mut p, &numeric);
    assert_eq!((t.id, t.items[0].order_id), ("42", "1396067064152686608"));

    let f = fixture("ws_push_fill.json");
    let numeric = replace(
        &f,
        r#""orderId":"1352492639547711500""#,
        r#""orderId":1352492639547711500"#,
    );
    let numeric = replace(
        &numeric,
        r#""execId":"1352492639559331841""#,
        r#""execId":1352492639559331841"#,
    );
    let numeric = replace(
        &numeric,
        r#""execTime":"1758185294046""#,
        r#""execTime":1758185294046"#,
    );
    let Inbound::Fills { ts_ms, fills } = p.parse(&numeric).unwrap() else {
        panic!()
    };
    assert_eq!(ts_ms, 1758185294056);
    assert_eq!(fills[0].order_id, "1352492639547711500");
    assert_eq!(fills[0].exec_id, "1352492639559331841");
    assert_eq!(fills[0].exec_time_ms, 1758185294046);
}

#[test]
fn escaped_strings_are_unescaped() {
    let mut p = JsonParser::new();
    let frame =
        br#"{"event":"error","id":"a\"b\\c\u0041","code":"25203","msg":"line\nbreak \u00e9"}"#;
    assert_eq!(
        p.parse(frame).unwrap(),
        Inbound::Error {
            id: Some("a\"b\\cA"),
            code: Code(25203),
            msg: "line\nbreak é"
        }
    );
}

#[test]
fn other_and_malformed_frames() {
    let mut p = JsonParser::new();
    for other in [
        &b"{}"[..],
        b"[]",
        b"[1,2]",
        b"1",
        b"\"x\"",
        b"null",
        br#"{"event":"notice","msg":"x"}"#,
        br#"{"foo":1}"#,
    ] {
        assert_eq!(
            p.parse(other).unwrap(),
            Inbound::Other,
            "{}",
            String::from_utf8_lossy(other)
        );
    }
    for bad in [
        &b""[..],
        b"ping",
        b"{",
        b"{\"event\":}",
        b"{\"event\":\"login\",\"code\":0",
        b"\xff\xfe",
        br#"{"event":"login"}"#,
        br#"{"event":"trade","topic":"place-order","code":"0"}"#,
        br#"{"event":"subscribe"}"#,
        br#"{"event":1}"#,
        br#"{"arg":{"instType":"UTA","topic":"order"},"data":[{"symbol":"BTCUSDT","orderId":"1","qty":"x","side":"buy","orderType":"limit","orderStatus":"live"}]}"#,
        br#"{"arg":{"instType":"UTA","topic":"order"},"data":[{"symbol":"BTCUSDT","orderId":"1","qty":"1","side":"hold","orderType":"limit","orderStatus":"live"}]}"#,
        br#"{"arg":{"instType":"UTA","topic":"order"},"data":[{"symbol":"BTCUSDT","orderId":"1","qty":"1","side":"buy","orderType":"limit"}]}"#,
        br#"{"arg":{"instType":"UTA","topic":"order"},"data":[{"symbol":"BTCUSDT","orderId":"1","qty":1.5,"side":"buy","orderType":"limit","orderStatus":"live"}]}"#,
        br#"{"arg":{"instType":"UTA","topic":"fill"},"data":[{"orderId":"1","execId":"2","symbol":"BTCUSDT","side":"buy","execPrice":"1","execQty":"1","execTime":"12a"}]}"#,
        br#"{"arg":{"instType":"UTA","topic":"fill"},"data":[{"orderId":-1,"execId":"2","symbol":"BTCUSDT","side":"buy","execPrice":"1","execQty":"1"}]}"#,
    ] {
        assert!(p.parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
    // Deep nesting is refused, not a stack overflow.
    let deep = format!("{{\"x\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(p.parse(deep.as_bytes()).is_err());
    // The parser still works after errors.
    assert_eq!(
        p.parse(&fixture("ws_login_ok.json")).unwrap(),
        Inbound::Login {
            code: Code(0),
            msg: ""
        }
    );
}

#[test]
fn truncations_of_every_fixture_never_panic() {
    let mut p = JsonParser::new();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let f = std::fs::read(&path).unwrap();
            for n in 0..f.len() {
                let _ = p.parse(&f[..n]);
            }
            // And every single-byte corruption.
            let mut g = f.clone();
            for i in 0..g.len() {
                let saved = g[i];
                for b in [b'"', b'{', b'}', b'\\', b'0', b'x', 0] {
                    g[i] = b;
                    let _ = p.parse(&g);
                }
                g[i] = saved;
            }
        }
    }
}

#[test]
fn subscribe_variants() {
    let mut p = JsonParser::new();
    assert_eq!(
        p.parse(br#"{"event":"unsubscribe","arg":{"instType":"usdt-futures","topic":"ticker","symbol":"BTCUSDT"},"code":"","msg":""}"#)
            .unwrap(),
        Inbound::Subscribed {
            unsubscribe: true,
            inst_type: "usdt-futures",
            topic: "ticker",
            symbol: Some("BTCUSDT")
        }
    );
    assert_eq!(
        p.parse(br#"{"event":"subscribe","arg":{"instType":"UTA","topic":"orders"},"code":30001,"msg":"no such channel"}"#)
            .unwrap(),
        Inbound::Error {
            id: None,
            code: Code(30001),
            msg: "no such channel"
        }
    );
}

#[test]
fn many_items_spill_past_inline_capacity() {
    let mut p = JsonParser::new();
    let mut frame = String::from(r#"{"event":"trade","id":"b1","topic":"batch-cancel","args":["#);
    for i in 0..20 {
        if i > 0 {
            frame.push(',');
        }
        frame.push_str(&format!(
            r#"{{"code":"0","msg":"Success","orderId":{},"clientOid":"c{i}"}}"#,
            1000 + i
        ));
    }
    frame.push_str(r#"],"code":"0","msg":"Success","ts":"1"}"#);
    let t = trade(&mut p, frame.as_bytes());
    assert_eq!(t.items.len(), 20);
    for (i, it) in t.items.iter().enumerate() {
        assert_eq!(it.order_id, (1000 + i).to_string());
        assert_eq!(it.client_oid, format!("c{i}"));
    }
}
