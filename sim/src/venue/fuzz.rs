//! Property test: any trade request gets a JSON reply, never a panic.

use super::*;
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(vec![
            "",
            "0",
            "-1",
            "0.1",
            "1e5",
            "60000",
            "60000.5",
            "0.0001",
            "0.00000000000000000001",
            "99999999999999999999999",
            "3000",
            "abc",
            "buy",
            "sell",
            "limit",
            "market",
            "gtc",
            "ioc",
            "fok",
            "post_only",
            "long",
            "short",
            "yes",
            "NO",
            "BTCUSDT",
            "ETHUSDT",
            "usdt-futures",
            "spot",
            "USDT-FUTURES",
            "1300000000000000000",
            "dup",
            "a b",
            "cancel_both",
            "none",
            "é",
        ])
        .prop_map(|s| Value::from(s.to_string())),
    ]
}

fn arg() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "symbol",
        "side",
        "orderType",
        "qty",
        "price",
        "timeInForce",
        "posSide",
        "reduceOnly",
        "clientOid",
        "stpMode",
        "orderId",
        "autoCancel",
        "category",
    ]);
    prop_oneof![
        8 => prop::collection::vec((keys, scalar()), 0..12).prop_map(|kv| {
            Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        }),
        1 => scalar(),
    ]
}

fn request() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "place-order",
            "batch-place",
            "modify-order",
            "batch-modify",
            "cancel-order",
            "batch-cancel",
            "nope",
        ]),
        prop::option::of(scalar()),
        prop::option::of(scalar()),
        prop::collection::vec(arg(), 0..4),
    )
        .prop_map(|(topic, category, id, args)| {
            let mut m = serde_json::Map::new();
            m.insert("op".into(), "trade".into());
            m.insert("topic".into(), topic.into());
            if let Some(c) = category {
                m.insert("category".into(), c);
            }
            if let Some(id) = id {
                m.insert("id".into(), id);
            }
            m.insert("args".into(), Value::Array(args));
            Value::Object(m)
        })
}

proptest! {
    /// No request panics, every reply is JSON with an `event`, every push is JSON.
    #[test]
    fn any_trade_request_is_answered(reqs in prop::collection::vec(request(), 1..30)) {
        let mut v = Venue::new(&SimConfig::demo(), Arc::new(Counters::default()), 0);
        for (i, req) in reqs.iter().enumerate() {
            let out = v.handle_trade(AccountId((i % 2) as u32), req, "c", 1000 + i as u64);
            let reply: Value = serde_json::from_str(&out.reply).unwrap();
            prop_assert!(reply["event"] == "trade" || reply["event"] == "error", "{}", out.reply);
            for p in &out.pushes {
                let _: Value = serde_json::from_str(&p.json).unwrap();
            }
        }
    }
}
