//! The REST queries reconciliation relies on (order-info by clientOid, history-orders, fills),
//! against the real simulator over TLS.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use codec::sbe::{ExecType, OrdStatus, Side, TimeInForce};
use e2e::{d, master_account_credentials, Harness};
use gateway::exchange::rest_history::{fills, history_orders, order_info};
use gateway::ids::ClientOid;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn order_info_history_and_fills_describe_what_the_strategy_saw() {
    let h = Harness::quiet();
    let start = now_ms() - 1000;
    let mut maker = h.client(1);
    let mut taker = h.client(2);
    let m = maker.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.003");
    let m_new = maker.exec();
    assert_eq!(m_new.exec_type, ExecType::New);
    let t = taker.limit(Side::Buy, TimeInForce::Ioc, "60000", "0.001");
    assert_eq!(taker.exec().exec_type, ExecType::New);
    let t_fill = taker.exec();
    assert_eq!(t_fill.exec_type, ExecType::Fill);
    assert_eq!(maker.exec().exec_type, ExecType::PartialFill);

    let rest = h.rest_client(master_account_credentials());
    let maker_oid = ClientOid::new(1, m);
    let open =
        h.rt.block_on(order_info(&rest, maker_oid.as_str()))
            .unwrap()
            .expect("maker order known");
    assert_eq!(open.order_id, m_new.order_id);
    assert_eq!(open.status, OrdStatus::PartiallyFilled);
    assert_eq!(open.cum_qty, d("0.001"));
    assert_eq!(open.cum_value, d("60"));

    let unknown =
        h.rt.block_on(order_info(&rest, ClientOid::new(1, 999_999).as_str()))
            .unwrap();
    assert!(unknown.is_none(), "an unknown clientOid is Ok(None)");

    let finished =
        h.rt.block_on(history_orders(
            &rest,
            codec::sbe::Category::UsdtFutures,
            start,
        ))
        .unwrap();
    let taker_oid = ClientOid::new(2, t);
    let th = finished
        .iter()
        .find(|o| o.client_oid == taker_oid.as_str())
        .expect("taker order in history");
    assert_eq!(th.status, OrdStatus::Filled);
    assert_eq!(th.cum_qty, d("0.001"));
    assert!(th.updated_time_ms >= start);

    let all = h.rt.block_on(fills(&rest, None, start, None)).unwrap();
    let mine: Vec<_> = all
        .iter()
        .filter(|f| f.client_oid == taker_oid.as_str())
        .collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].exec_id, t_fill.exec_id);
    assert_eq!(mine[0].exec_qty, d("0.001"));
    assert_eq!(mine[0].exec_price, d("60000"));
    let by_order =
        h.rt.block_on(fills(&rest, None, start, Some(m_new.order_id)))
            .unwrap();
    assert_eq!(by_order.len(), 1);
    assert_eq!(by_order[0].client_oid, maker_oid.as_str());
}
