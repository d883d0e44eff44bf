//! Public depth channels on `/v3/ws/public` (reference §3.3): `books1`, `books5`, `books15`,
//! `books50` get a snapshot of their depth right after the subscription ack and then a new
//! snapshot whenever their top levels change; `books` gets a full-depth snapshot (up to
//! [`FULL_DEPTH`] levels a side) and then `"action":"update"` pushes carrying only the changed
//! levels (`["price","0"]` removes a level), each with `pseq` = the `seq` of the previous push
//! of that subscription. `seq` comes from one counter of the simulator and increases.
//! Changes are published right after every state change (trade op, REST order, liquidity
//! refresh), so the depth always reflects real trading. `checksum` is always 0: the reference
//! does not give the algorithm (its §3.3 and open gap 8).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::matching::{Book, Side};
use crate::render::push_json_str;

/// Levels a side of the `books` channel carries ("full depth").
pub const FULL_DEPTH: usize = 1000;

/// Levels of a public depth topic.
pub(crate) fn book_levels(topic: &str) -> Option<usize> {
    match topic {
        "books1" => Some(1),
        "books5" => Some(5),
        "books15" => Some(15),
        "books50" => Some(50),
        "books" => Some(FULL_DEPTH),
        _ => None,
    }
}

/// One public depth subscription.
#[derive(Debug, Clone)]
pub(crate) struct BookSub {
    pub(crate) book: usize,
    pub(crate) levels: usize,
    pub(crate) inst_type: String,
    pub(crate) topic: String,
    pub(crate) symbol: String,
    /// What was sent so far.
    pub(crate) state: DepthState,
}

/// What a depth subscription has been sent so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct DepthState {
    sent: bool,
    asks: Vec<(i64, i64)>,
    bids: Vec<(i64, i64)>,
    seq: u64,
}

/// Changed levels between two sides (best first): new or changed sizes, and size 0 for levels
/// that are gone; ordered like the side (asks ascending, bids descending).
fn diff(old: &[(i64, i64)], new: &[(i64, i64)], side: Side) -> Vec<(i64, i64)> {
    let mut m: BTreeMap<i64, i64> = old.iter().map(|(p, _)| (*p, 0)).collect();
    for (p, q) in new {
        m.insert(*p, *q);
    }
    let was: BTreeMap<i64, i64> = old.iter().copied().collect();
    let mut out: Vec<(i64, i64)> = m
        .into_iter()
        .filter(|(p, q)| was.get(p) != Some(q))
        .collect();
    if side == Side::Buy {
        out.reverse();
    }
    out
}

fn side_json(out: &mut String, book: &Book, levels: &[(i64, i64)]) {
    out.push('[');
    for (i, (p, q)) in levels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "[\"{}\",\"{}\"]", book.price_dec(*p), book.qty_dec(*q));
    }
    out.push(']');
}

/// One depth push, shaped like `ws_push_books_update.json`.
#[allow(clippy::too_many_arguments)]
fn frame(
    book: &Book,
    action: &str,
    sub: &BookSub,
    asks: &[(i64, i64)],
    bids: &[(i64, i64)],
    pseq: u64,
    seq: u64,
    ts_ms: u64,
) -> String {
    let mut s = String::with_capacity(200 + (asks.len() + bids.len()) * 30);
    let _ = write!(s, "{{\"action\":\"{action}\",\"arg\":{{\"instType\":");
    push_json_str(&mut s, &sub.inst_type);
    s.push_str(",\"topic\":");
    push_json_str(&mut s, &sub.topic);
    s.push_str(",\"symbol\":");
    push_json_str(&mut s, &sub.symbol);
    s.push_str("},\"data\":[{\"a\":");
    side_json(&mut s, book, asks);
    s.push_str(",\"b\":");
    side_json(&mut s, book, bids);
    let _ = write!(
        s,
        ",\"checksum\":0,\"pseq\":{pseq},\"seq\":{seq},\"ts\":\"{ts_ms}\"}}],\"ts\":{ts_ms}}}"
    );
    s
}

/// The next frame of one subscription for `book`: a snapshot if none was sent yet (and, for
/// the fixed-level topics, whenever the levels changed), else the changed levels (`books`);
/// `None` when there is nothing new. `seq` is the feed's sequence number, advanced per frame.
pub(crate) fn next_frame(
    sub: &mut BookSub,
    book: &Book,
    seq: &mut u64,
    now_ms: u64,
) -> Option<String> {
    let asks = book.depth(Side::Sell, sub.levels);
    let bids = book.depth(Side::Buy, sub.levels);
    let st = &sub.state;
    let text = if !st.sent || (sub.topic != "books" && (asks != st.asks || bids != st.bids)) {
        *seq += 1;
        frame(book, "snapshot", sub, &asks, &bids, st.seq, *seq, now_ms)
    } else if sub.topic == "books" {
        let da = diff(&st.asks, &asks, Side::Sell);
        let db = diff(&st.bids, &bids, Side::Buy);
        if da.is_empty() && db.is_empty() {
            return None;
        }
        *seq += 1;
        frame(book, "update", sub, &da, &db, st.seq, *seq, now_ms)
    } else {
        return None;
    };
    let st = &mut sub.state;
    st.sent = true;
    st.seq = *seq;
    st.asks = asks;
    st.bids = bids;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_reports_changes_and_removals_in_side_order() {
        let old = [(10, 1), (11, 2), (12, 3)];
        let new = [(10, 1), (12, 4), (13, 5)];
        assert_eq!(
            diff(&old, &new, Side::Sell),
            vec![(11, 0), (12, 4), (13, 5)]
        );
        let old_b = [(12, 3), (11, 2)];
        let new_b = [(13, 1), (11, 2)];
        assert_eq!(diff(&old_b, &new_b, Side::Buy), vec![(13, 1), (12, 0)]);
        assert!(diff(&new, &new, Side::Sell).is_empty());
    }
}
