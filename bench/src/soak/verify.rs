//! The end-of-run comparison: every order as the strategy saw it (from the gateway's reports)
//! against the simulator's own record (REST `history-orders` and `unfilled-orders`).

use std::collections::HashMap;

use codec::sbe::{Category, OrdStatus};
use codec::Decimal;
use gateway::exchange::rest::RestClient;
use gateway::exchange::rest_history::{history_orders, order_info, parse_fill, FILLS_PATH};
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
    /// Orders whose fills as reported (Σ LastQty, each ExecID once) differ from the exchange's
    /// `cumExecQty`.
    pub fills_different: u64,
    /// Σ LastQty over every fill the strategies were told of.
    pub filled_reported: Decimal,
    /// Σ `execQty` over the account's fills at the exchange (`/api/v3/trade/fills`).
    pub filled_at_exchange: Decimal,
    /// Fills the exchange lists for the account.
    pub exchange_fills: u64,
    /// Descriptions of the first differences.
    pub examples: Vec<String>,
}

impl Verdict {
    /// Keeps the description `f` gives while fewer than 10 are kept.
    fn example(&mut self, f: impl FnOnce() -> String) {
        if self.examples.len() < 10 {
            self.examples.push(f());
        }
    }

    /// Every order's fills and the account's total agree.
    pub fn fills_equal(&self) -> bool {
        self.fills_different == 0 && self.filled_reported == self.filled_at_exchange
    }
}

/// Σ `execQty` and the number of the account's fills since `since_ms`, every page (newest first,
/// the cursor is the last fill id of a page).
pub async fn account_fills(rest: &RestClient, since_ms: u64) -> Result<(Decimal, u64), String> {
    let (mut sum, mut n) = (Decimal::ZERO, 0u64);
    let mut cursor = String::new();
    loop {
        let mut query = format!("startTime={since_ms}&limit=100");
        if !cursor.is_empty() {
            query.push_str("&cursor=");
            query.push_str(&cursor);
        }
        let data = rest
            .signed_get(FILLS_PATH, &query, std::time::SystemTime::now())
            .await
            .map_err(|e| format!("fills: {e}"))?;
        let list = data
            .get("list")
            .and_then(|l| l.as_array())
            .ok_or("fills: no list")?;
        for v in list {
            let f = parse_fill(v).map_err(|e| format!("fills: {e}"))?;
            sum = sum.checked_add(f.exec_qty).ok_or("fills: sum overflow")?;
            n += 1;
        }
        let next = data
            .get("cursor")
            .and_then(|c| c.as_str())
            .unwrap_or("")
            .to_owned();
        if list.len() < 100 || next.is_empty() || next == cursor {
            return Ok((sum, n));
        }
        cursor = next;
    }
}

/// The clientOids order `root` of session `session` may have at the exchange: one per epoch
/// its NewOrderSingle was sent in (`s:r` in epoch 0, `s:e:r` in epoch `e`), first send first.
pub fn client_oids(session: u64, root: u64, m: &OrderModel) -> Vec<ClientOid> {
    let mut out: Vec<ClientOid> = m
        .sent_epochs
        .iter()
        .map(|e| ClientOid::in_epoch(session, epoch_u32(*e), root))
        .collect();
    if out.is_empty() {
        out.push(ClientOid::new(session, root));
    }
    out
}

/// An epoch (SessionVerID) as clientOids carry it (modulo [`gateway::ids::EPOCH_LIMIT`]).
pub fn epoch_u32(epoch: u64) -> u32 {
    (epoch % u64::from(gateway::ids::EPOCH_LIMIT)) as u32
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
            let oids = client_oids(*session, *root, m);
            // Refused orders are expected to be absent; the lists cover the recent ones.
            if m.status != OrdStatus::Rejected
                && !oids.iter().any(|oid| venue.contains_key(oid.as_str()))
            {
                for oid in &oids {
                    if let Some(o) = order_info(rest, oid.as_str())
                        .await
                        .map_err(|e| format!("order-info: {e}"))?
                    {
                        venue.insert(o.client_oid.clone(), o);
                    }
                }
            }
        }
    }
    let mut v = Verdict::default();
    let mut seen = 0u64;
    for (session, orders) in models {
        for (root, m) in orders {
            v.orders += 1;
            let oids = client_oids(*session, *root, m);
            // The clientOid of the epoch the gateway placed the order in (another one present
            // too would be the order placed twice: an orphan below).
            let found = oids
                .iter()
                .find_map(|oid| venue.get(oid.as_str()).map(|x| (*oid, x)));
            let oid = found.map_or(oids[0], |(oid, _)| oid);
            match found.map(|(_, x)| x) {
                Some(x) => {
                    seen += 1;
                    v.at_exchange += 1;
                    let status = x.status;
                    if m.filled_qty != x.cum_qty {
                        v.fills_different += 1;
                        v.example(|| {
                            format!(
                                "{}: exchange cumExecQty {} / fills reported Σ LastQty {}",
                                oid.as_str(),
                                x.cum_qty,
                                m.filled_qty
                            )
                        });
                    }
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
                        v.example(|| {
                            format!(
                                "{}: exchange {:?} cum {} / strategy {:?} cum {} (answered {}, new {})",
                                oid.as_str(),
                                status,
                                x.cum_qty,
                                m.status,
                                m.cum_qty,
                                m.answered,
                                m.got_new
                            )
                        });
                    }
                }
                None => {
                    if !m.filled_qty.is_zero() {
                        v.fills_different += 1;
                    }
                    if m.status == OrdStatus::Rejected {
                        v.refused_not_at_exchange += 1;
                    } else {
                        v.different += 1;
                        v.example(|| {
                            format!(
                                "{}: not at the exchange / strategy {:?} cum {}",
                                oid.as_str(),
                                m.status,
                                m.cum_qty
                            )
                        });
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
    for orders in models.values() {
        for m in orders.values() {
            v.filled_reported = v
                .filled_reported
                .checked_add(m.filled_qty)
                .ok_or("filled quantity overflow")?;
        }
    }
    let (sum, n) = account_fills(rest, since_ms).await?;
    v.filled_at_exchange = sum;
    v.exchange_fills = n;
    Ok(v)
}
