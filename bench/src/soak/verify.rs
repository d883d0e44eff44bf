//! The end-of-run comparison: every order as the strategy saw it (from the gateway's reports)
//! against the simulator's own record (REST `history-orders` and `unfilled-orders`).

use std::collections::HashMap;

use codec::sbe::{Category, OrdStatus};
use gateway::exchange::rest::RestClient;
use gateway::exchange::rest_history::{history_orders, order_info};
use gateway::exchange::rest_orders::{unfilled_orders, OpenOrder};
use gateway::ids::ClientOid;

use super::session::OrderModel;

/// The comparison's counts.
#[derive(Debug, Default, Clone)]
pub struct Verdict {
    /// Orders the strategies sent.
    pub orders: u64,
    /// Orders the exchange has (placed through the gateway).
    pub at_exchange: u64,
    /// Orders whose final state (OrdStatus, CumQty) is the same at the strategy and the exchange.
    pub equal: u64,
    /// Orders refused before reaching the exchange (NotApplied, pre-trade) and absent there.
    pub refused_not_at_exchange: u64,
    /// Orders whose state differs (first few described in `examples`).
    pub different: u64,
    /// Orders at the exchange, placed by a soak session, that the strategy never heard of.
    pub orphans: u64,
    /// Orders where the exchange shows more than the strategy was told (missed reports).
    pub reports_missing: u64,
    /// Descriptions of the first differences.
    pub examples: Vec<String>,
}

/// Compares the strategies' models (`session id → root ClOrdID → model`) with the exchange.
pub async fn compare(
    rest: &RestClient,
    categories: &[Category],
    since_ms: u64,
    models: &HashMap<u64, HashMap<u64, OrderModel>>,
) -> Result<Verdict, String> {
    let mut venue: HashMap<String, OpenOrder> = HashMap::new();
    for c in categories {
        for o in history_orders(rest, *c, since_ms)
            .await
            .map_err(|e| format!("history-orders: {e}"))?
        {
            venue.insert(o.client_oid.clone(), o);
        }
    }
    for o in unfilled_orders(rest, None, None)
        .await
        .map_err(|e| format!("unfilled-orders: {e}"))?
    {
        venue.insert(o.client_oid.clone(), o);
    }
    // The list queries stop at 10 000 orders per category (100 pages): ask for the rest one by
    // one.
    for (session, orders) in models {
        for (root, m) in orders {
            let oid = ClientOid::new(*session, *root);
            // Refused orders are expected to be absent; the lists cover the recent ones.
            if m.status != OrdStatus::Rejected && !venue.contains_key(oid.as_str()) {
                if let Some(o) = order_info(rest, oid.as_str())
                    .await
                    .map_err(|e| format!("order-info: {e}"))?
                {
                    venue.insert(o.client_oid.clone(), o);
                }
            }
        }
    }
    let mut v = Verdict::default();
    let mut seen = 0u64;
    for (session, orders) in models {
        for (root, m) in orders {
            v.orders += 1;
            let oid = ClientOid::new(*session, *root);
            match venue.get(oid.as_str()) {
                Some(x) => {
                    seen += 1;
                    v.at_exchange += 1;
                    let status = x.status;
                    if status == m.status && x.cum_qty == m.cum_qty {
                        v.equal += 1;
                    } else {
                        v.different += 1;
                        if x.cum_qty > m.cum_qty
                            || (matches!(status, OrdStatus::Filled | OrdStatus::Canceled)
                                && !m.terminal())
                        {
                            v.reports_missing += 1;
                        }
                        if v.examples.len() < 10 {
                            v.examples.push(format!(
                                "{}: exchange {:?} cum {} / strategy {:?} cum {} (answered {}, new {})",
                                oid.as_str(),
                                status,
                                x.cum_qty,
                                m.status,
                                m.cum_qty,
                                m.answered,
                                m.got_new
                            ));
                        }
                    }
                }
                None => {
                    if m.status == OrdStatus::Rejected {
                        v.refused_not_at_exchange += 1;
                    } else {
                        v.different += 1;
                        if v.examples.len() < 10 {
                            v.examples.push(format!(
                                "{}: not at the exchange / strategy {:?} cum {}",
                                oid.as_str(),
                                m.status,
                                m.cum_qty
                            ));
                        }
                    }
                }
            }
        }
    }
    let ours = venue
        .keys()
        .filter(|c| ClientOid::parse(c).is_some_and(|(s, _)| models.contains_key(&s)))
        .count() as u64;
    v.orphans = ours.saturating_sub(seen);
    Ok(v)
}
