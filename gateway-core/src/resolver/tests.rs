//! Unit tests of the resolver's decisions: times are inputs (monotonic ns, UTC ms), queries
//! come out as values, answers go in as values.

use codec::sbe::{Category, OrdStatus, OrdType, Side, Symbol, TimeInForce};
use codec::Decimal;

use super::{
    Answer, Query, QueryKind, Resolver, GATHER_MS, MAX_ATTEMPTS, QUERY_INTERVAL_MS,
    RETRY_BACKOFF_MS, SWEEP_MIN,
};
use crate::ids::ClientOid;
use crate::rest_objects::{ExchangeFill, OpenOrder, MAX_LOOKBACK_MS, MAX_PAGES, PAGE_LIMIT};
use crate::tracker::unknown::{SINCE_MARGIN_KNOWN_OFFSET_MS, SINCE_MARGIN_MS};
use crate::tracker::{ExchangeState, ResolveRequest, StateSource, UnknownCause};

const MS: u64 = 1_000_000;
const GATHER: u64 = GATHER_MS * MS;
const INTERVAL: u64 = QUERY_INTERVAL_MS * MS;
const GRACE_MS: u64 = 6_000;
const GRACE: u64 = GRACE_MS * MS;
/// Gateway UTC ms at monotonic 0.
const UTC0: u64 = 1_800_000_000_000;
/// A write time, UTC ms.
const WRITTEN: u64 = UTC0 - 5_000;

fn utc(now_ns: u64) -> u64 {
    UTC0 + now_ns / MS
}

fn oid(n: u64) -> ClientOid {
    ClientOid::new(7, n)
}

fn req(account: usize, n: u64, place: bool, written_ms: u64) -> ResolveRequest {
    ResolveRequest {
        account,
        client_oid: oid(n),
        cause: UnknownCause::LinkDown,
        place,
        written_ms,
    }
}

fn place(n: u64) -> ResolveRequest {
    req(0, n, true, WRITTEN)
}

fn order(n: u64, cum_qty: &str) -> OpenOrder {
    OpenOrder {
        order_id: 1_000 + n,
        client_oid: oid(n).as_str().to_owned(),
        category: Category::UsdtFutures,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        price: Some("100".parse().unwrap()),
        qty: "1".parse().unwrap(),
        cum_qty: cum_qty.parse().unwrap(),
        avg_px: None,
        status: OrdStatus::New,
        cum_value: Decimal::ZERO,
        cancel_reason: String::new(),
        updated_time_ms: WRITTEN + 1,
    }
}

fn fill(order_id: u64, exec_id: u64) -> ExchangeFill {
    ExchangeFill {
        exec_id,
        order_id,
        client_oid: String::new(),
        category: Category::UsdtFutures,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        side: Side::Buy,
        exec_price: "100".parse().unwrap(),
        exec_qty: "0.5".parse().unwrap(),
        exec_value: Decimal::ZERO,
        exec_time_ms: WRITTEN + 1,
    }
}

fn resolver(accounts: usize) -> Resolver {
    Resolver::new(
        vec![vec![Category::UsdtFutures, Category::Spot]; accounts],
        GRACE_MS,
    )
}

fn poll(r: &mut Resolver, now: u64) -> Option<Query> {
    r.poll(now, utc(now))
}

fn answer(r: &mut Resolver, account: usize, a: Answer, now: u64) -> Option<ExchangeState> {
    r.on_answer(account, a, now, utc(now))
}

fn info(account: usize, n: u64) -> Query {
    Query {
        account,
        kind: QueryKind::OrderInfo { client_oid: oid(n) },
    }
}

/// Polls at `next_wake_ns` until a query comes (at most `steps` wakes); the query and its time.
fn next_query(r: &mut Resolver, steps: usize) -> (Query, u64) {
    for _ in 0..steps {
        let t = r.next_wake_ns().expect("a wake-up");
        if let Some(q) = poll(r, t) {
            return (q, t);
        }
    }
    panic!("no query within {steps} wake-ups");
}

#[test]
fn fewer_than_sweep_min_are_queried_one_by_one_after_gathering_and_paced() {
    let mut r = resolver(1);
    for n in 1..SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    assert_eq!(poll(&mut r, 0), None, "gathering first");
    assert_eq!(r.next_wake_ns(), Some(GATHER));
    assert_eq!(poll(&mut r, GATHER - 1), None);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    assert_eq!(poll(&mut r, GATHER), None, "one query out at a time");
    let state = answer(&mut r, 0, Answer::Order(Some(order(1, "0"))), GATHER + MS).unwrap();
    assert_eq!(state.orders, vec![order(1, "0")]);
    assert!(state.fills.is_empty() && state.not_found.is_empty());
    assert_eq!(state.source, StateSource::Resolution);
    assert_eq!(poll(&mut r, GATHER + MS), None, "paced");
    assert_eq!(r.next_wake_ns(), Some(GATHER + INTERVAL));
    assert_eq!(poll(&mut r, GATHER + INTERVAL), Some(info(0, 2)));
}

#[test]
fn sweep_min_due_at_once_lists_the_account_and_settles_them_with_one_state() {
    let mut r = resolver(1);
    // 1, 2 listed (2 filled); 3 a cancel not listed (the lists cannot vouch: one by one);
    // 4 a place not listed (asked again after the grace period).
    r.push(place(1), 0);
    r.push(place(2), 0);
    r.push(req(0, 3, false, WRITTEN - 1_000), 0);
    r.push(place(4), 0);
    let t = GATHER;
    assert_eq!(
        poll(&mut r, t).map(|q| q.kind),
        Some(QueryKind::ServerTime),
        "no offset bound yet"
    );
    // The exchange's clock is 700 ms ahead.
    assert_eq!(
        answer(&mut r, 0, Answer::ServerTime(utc(t + MS) + 700), t + MS),
        None
    );
    let since = WRITTEN - 1_000 + 700 - SINCE_MARGIN_KNOWN_OFFSET_MS;
    let (q, t1) = next_query(&mut r, 1);
    assert_eq!(t1, t + INTERVAL);
    assert_eq!(
        q.kind,
        QueryKind::HistoryOrders {
            category: Category::UsdtFutures,
            since_ms: since
        }
    );
    assert_eq!(
        answer(&mut r, 0, Answer::Orders(vec![order(1, "0")]), t1),
        None
    );
    let (q, t2) = next_query(&mut r, 1);
    assert_eq!(
        (q.kind, t2),
        (
            QueryKind::HistoryOrders {
                category: Category::Spot,
                since_ms: since
            },
            t1 + INTERVAL
        )
    );
    assert_eq!(answer(&mut r, 0, Answer::Orders(Vec::new()), t2), None);
    let (q, t3) = next_query(&mut r, 1);
    assert_eq!(q.kind, QueryKind::OpenOrders);
    assert_eq!(
        answer(&mut r, 0, Answer::Orders(vec![order(2, "0.5")]), t3),
        None
    );
    let (q, t4) = next_query(&mut r, 1);
    assert_eq!(
        q.kind,
        QueryKind::Fills {
            category: None,
            order_id: None,
            since_ms: since
        }
    );
    let state = answer(
        &mut r,
        0,
        Answer::Fills(vec![fill(1_002, 1), fill(9_999, 2)]),
        t4,
    )
    .expect("one state for the sweep");
    assert_eq!(state.orders, vec![order(1, "0"), order(2, "0.5")]);
    assert_eq!(
        state.fills,
        vec![fill(1_002, 1)],
        "only the found orders' fills"
    );
    assert!(state.not_found.is_empty());
    // Then the cancel on its own; the place waits for the grace period.
    let (q, t5) = next_query(&mut r, 1);
    assert_eq!((q, t5), (info(0, 3), t4 + INTERVAL));
    let state = answer(&mut r, 0, Answer::Order(None), t5).unwrap();
    assert_eq!(state.not_found, vec![oid(3).as_str().to_owned()]);
    assert_eq!(r.pending(), 1);
    assert_eq!(r.next_wake_ns(), Some(t4 + GRACE));
    let (q, t6) = next_query(&mut r, 2);
    assert_eq!((q, t6), (info(0, 4), t4 + GRACE + GATHER));
    let state = answer(&mut r, 0, Answer::Order(None), t6).unwrap();
    assert_eq!(state.not_found, vec![oid(4).as_str().to_owned()]);
    assert_eq!(r.pending(), 0);
    assert_eq!(r.next_wake_ns(), None);
}

#[test]
fn without_an_offset_bound_the_lists_start_the_tolerated_skew_before_the_write() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    assert_eq!(
        poll(&mut r, GATHER).map(|q| q.kind),
        Some(QueryKind::ServerTime)
    );
    assert_eq!(
        answer(&mut r, 0, Answer::Failed("timeout".into()), GATHER),
        None
    );
    let (q, _) = next_query(&mut r, 1);
    assert_eq!(
        q.kind,
        QueryKind::HistoryOrders {
            category: Category::UsdtFutures,
            since_ms: WRITTEN - SINCE_MARGIN_MS
        }
    );
}

#[test]
fn a_place_listed_nowhere_is_asked_again_after_grace_then_not_found() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    let mut t = GATHER;
    let mut kinds = Vec::new();
    loop {
        let q = poll(&mut r, t).map(|q| q.kind);
        let Some(kind) = q else {
            t = r.next_wake_ns().unwrap();
            continue;
        };
        kinds.push(kind);
        let a = match kind {
            QueryKind::ServerTime => Answer::ServerTime(utc(t)),
            QueryKind::Fills { .. } => Answer::Fills(Vec::new()),
            _ => Answer::Orders(Vec::new()),
        };
        if let Some(state) = answer(&mut r, 0, a, t) {
            panic!("nothing settled yet: {state:?}");
        }
        if matches!(kind, QueryKind::Fills { .. }) {
            break;
        }
    }
    assert_eq!(
        kinds.len(),
        5,
        "server time, 2 histories, open, fills: {kinds:?}"
    );
    // All four wait for the grace period, then a second sweep (the bound is known now).
    assert_eq!(r.next_wake_ns(), Some(t + GRACE));
    let (q, t2) = next_query(&mut r, 2);
    assert_eq!(t2, t + GRACE + GATHER);
    assert!(matches!(q.kind, QueryKind::HistoryOrders { .. }), "{q:?}");
    answer(&mut r, 0, Answer::Orders(Vec::new()), t2);
    let (_, t3) = next_query(&mut r, 1);
    answer(&mut r, 0, Answer::Orders(Vec::new()), t3);
    let (_, t4) = next_query(&mut r, 1);
    answer(&mut r, 0, Answer::Orders(Vec::new()), t4);
    let (_, t5) = next_query(&mut r, 1);
    let state = answer(&mut r, 0, Answer::Fills(Vec::new()), t5).unwrap();
    let want: Vec<String> = (1..=4).map(|n| oid(n).as_str().to_owned()).collect();
    assert_eq!(state.not_found, want);
    assert!(state.orders.is_empty());
    assert_eq!(r.pending(), 0);
}

#[test]
fn a_place_not_found_by_order_info_is_asked_once_more_after_grace_then_not_found() {
    let mut r = resolver(1);
    r.push(place(1), 0);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    let t = GATHER + 3 * MS;
    assert_eq!(answer(&mut r, 0, Answer::Order(None), t), None, "not yet");
    assert_eq!(r.pending(), 1);
    assert_eq!(r.next_wake_ns(), Some(t + GRACE));
    assert_eq!(poll(&mut r, t + GRACE - 1), None);
    assert_eq!(poll(&mut r, t + GRACE), None, "gathering");
    assert_eq!(poll(&mut r, t + GRACE + GATHER), Some(info(0, 1)));
    let state = answer(&mut r, 0, Answer::Order(None), t + GRACE + GATHER).unwrap();
    assert_eq!(state.not_found, vec![oid(1).as_str().to_owned()]);
    assert!(state.orders.is_empty());
    assert_eq!(r.pending(), 0);
}

#[test]
fn a_cancel_not_found_is_settled_at_once() {
    let mut r = resolver(1);
    r.push(req(0, 1, false, WRITTEN), 0);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    let state = answer(&mut r, 0, Answer::Order(None), GATHER).unwrap();
    assert_eq!(state.not_found, vec![oid(1).as_str().to_owned()]);
}

#[test]
fn two_requests_for_one_order_are_merged_into_one_query_a_place_if_either_was() {
    let mut r = resolver(1);
    r.push(req(0, 1, false, WRITTEN), 0);
    r.push(req(0, 1, true, WRITTEN - 10), 0);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    assert_eq!(
        answer(&mut r, 0, Answer::Order(None), GATHER),
        None,
        "a place: asked again"
    );
    assert_eq!(r.pending(), 1, "one entry for both");
    let (q, t) = next_query(&mut r, 2);
    assert_eq!(q, info(0, 1));
    assert!(answer(&mut r, 0, Answer::Order(None), t).is_some());
    assert_eq!((r.pending(), r.next_wake_ns()), (0, None));
}

#[test]
fn requests_merged_by_order_count_once_towards_the_sweep() {
    let mut r = resolver(1);
    for n in 1..SWEEP_MIN as u64 {
        r.push(place(n), 0);
        r.push(req(0, n, false, WRITTEN), 0);
    }
    assert_eq!(
        poll(&mut r, GATHER),
        Some(info(0, 1)),
        "3 orders: one by one"
    );
}

#[test]
fn a_merged_sweep_lists_from_the_oldest_write() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    r.push(req(0, 2, false, WRITTEN - 4_000), 0);
    assert_eq!(
        poll(&mut r, GATHER).map(|q| q.kind),
        Some(QueryKind::ServerTime)
    );
    answer(&mut r, 0, Answer::ServerTime(utc(GATHER)), GATHER);
    let (q, _) = next_query(&mut r, 1);
    assert_eq!(
        q.kind,
        QueryKind::HistoryOrders {
            category: Category::UsdtFutures,
            since_ms: WRITTEN - 4_000 - SINCE_MARGIN_KNOWN_OFFSET_MS
        }
    );
}

#[test]
fn a_found_order_with_executed_quantity_has_its_fills_asked() {
    let mut r = resolver(1);
    r.push(place(1), 0);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    assert_eq!(
        answer(&mut r, 0, Answer::Order(Some(order(1, "0.5"))), GATHER),
        None
    );
    let (q, t) = next_query(&mut r, 1);
    assert_eq!(t, GATHER + INTERVAL, "paced");
    assert_eq!(
        q.kind,
        QueryKind::Fills {
            category: Some(Category::UsdtFutures),
            order_id: Some(1_001),
            since_ms: utc(GATHER) - MAX_LOOKBACK_MS
        }
    );
    let state = answer(&mut r, 0, Answer::Fills(vec![fill(1_001, 9)]), t).unwrap();
    assert_eq!(
        (state.orders, state.fills),
        (vec![order(1, "0.5")], vec![fill(1_001, 9)])
    );
    // A failed fills query still settles the order, without fills.
    r.push(place(2), t);
    let (q, t2) = next_query(&mut r, 3);
    assert_eq!((q, t2), (info(0, 2), t + INTERVAL), "gathered, then paced");
    let t = t2;
    answer(&mut r, 0, Answer::Order(Some(order(2, "1"))), t);
    let (_, t) = next_query(&mut r, 1);
    let state = answer(&mut r, 0, Answer::Failed("timeout".into()), t).unwrap();
    assert_eq!(
        (state.orders, state.fills),
        (vec![order(2, "1")], Vec::new())
    );
}

#[test]
fn a_failed_query_is_retried_with_growing_backoff_and_given_up_after_max_attempts() {
    let mut r = resolver(1);
    r.push(place(1), 0);
    let mut t = GATHER;
    assert_eq!(poll(&mut r, t), Some(info(0, 1)));
    for attempt in 1..MAX_ATTEMPTS as u64 {
        assert_eq!(answer(&mut r, 0, Answer::Failed("503".into()), t), None);
        let due = t + attempt * RETRY_BACKOFF_MS * MS;
        assert_eq!(r.next_wake_ns(), Some(due), "attempt {attempt}");
        assert_eq!(poll(&mut r, due - 1), None);
        let (q, at) = next_query(&mut r, 2);
        assert_eq!((q, at), (info(0, 1), due + GATHER));
        t = at;
    }
    assert_eq!(answer(&mut r, 0, Answer::Failed("503".into()), t), None);
    assert_eq!((r.pending(), r.next_wake_ns()), (0, None), "given up");
}

#[test]
fn an_answer_of_another_kind_counts_as_a_failure() {
    let mut r = resolver(1);
    r.push(place(1), 0);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    assert_eq!(answer(&mut r, 0, Answer::Fills(Vec::new()), GATHER), None);
    assert_eq!(r.next_wake_ns(), Some(GATHER + RETRY_BACKOFF_MS * MS));
    assert_eq!(
        answer(&mut r, 0, Answer::Order(None), GATHER),
        None,
        "nothing out"
    );
}

#[test]
fn each_account_is_paced_on_its_own() {
    let mut r = resolver(2);
    for a in 0..2 {
        r.push(req(a, 1, true, WRITTEN), 0);
        r.push(req(a, 2, true, WRITTEN), 0);
    }
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    assert_eq!(
        poll(&mut r, GATHER),
        Some(info(1, 1)),
        "account 1 does not wait for 0"
    );
    assert_eq!(poll(&mut r, GATHER), None);
    let t = GATHER + 2 * MS;
    answer(&mut r, 0, Answer::Order(Some(order(1, "0"))), t);
    answer(&mut r, 1, Answer::Order(Some(order(1, "0"))), t);
    assert_eq!(poll(&mut r, t), None);
    assert_eq!(r.next_wake_ns(), Some(GATHER + INTERVAL));
    assert_eq!(poll(&mut r, GATHER + INTERVAL), Some(info(0, 2)));
    assert_eq!(poll(&mut r, GATHER + INTERVAL), Some(info(1, 2)));
}

#[test]
fn a_slow_answer_frees_the_next_slot_at_once() {
    let mut r = resolver(1);
    r.push(place(1), 0);
    r.push(place(2), 0);
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    let late = GATHER + 3 * INTERVAL;
    answer(&mut r, 0, Answer::Order(Some(order(1, "0"))), late);
    assert_eq!(poll(&mut r, late), Some(info(0, 2)));
}

#[test]
fn requests_arriving_within_the_gather_window_join_it() {
    let mut r = resolver(1);
    r.push(place(1), 0);
    assert_eq!(poll(&mut r, 0), None);
    for n in 2..=SWEEP_MIN as u64 {
        r.push(place(n), GATHER - 1);
    }
    assert_eq!(
        r.next_wake_ns(),
        Some(GATHER),
        "the window is not restarted"
    );
    assert_eq!(
        poll(&mut r, GATHER).map(|q| q.kind),
        Some(QueryKind::ServerTime)
    );
}

#[test]
fn lists_cut_at_the_pagers_limit_leave_unlisted_orders_to_single_queries() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    assert_eq!(
        poll(&mut r, GATHER).map(|q| q.kind),
        Some(QueryKind::ServerTime)
    );
    answer(&mut r, 0, Answer::ServerTime(utc(GATHER)), GATHER);
    let full: Vec<OpenOrder> = (0..(MAX_PAGES * PAGE_LIMIT) as u64)
        .map(|i| order(100_000 + i, "0"))
        .collect();
    let (_, t) = next_query(&mut r, 1);
    answer(&mut r, 0, Answer::Orders(full), t);
    let (_, t) = next_query(&mut r, 1);
    answer(&mut r, 0, Answer::Orders(vec![order(1, "0")]), t);
    let (_, t) = next_query(&mut r, 1);
    answer(&mut r, 0, Answer::Orders(Vec::new()), t);
    let (q, t) = next_query(&mut r, 1);
    assert!(matches!(q.kind, QueryKind::Fills { order_id: None, .. }));
    let state = answer(&mut r, 0, Answer::Fills(Vec::new()), t).unwrap();
    assert_eq!(state.orders, vec![order(1, "0")]);
    assert!(
        state.not_found.is_empty(),
        "a cut list cannot say never created"
    );
    for n in 2..=SWEEP_MIN as u64 {
        let (q, t) = next_query(&mut r, 1);
        assert_eq!(q, info(0, n));
        answer(&mut r, 0, Answer::Order(Some(order(n, "0"))), t).unwrap();
    }
    assert_eq!(r.pending(), 0);
}

#[test]
fn a_cut_fills_list_asks_the_fills_of_each_found_order_that_has_any() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    poll(&mut r, GATHER).unwrap();
    answer(&mut r, 0, Answer::ServerTime(utc(GATHER)), GATHER);
    for _ in 0..2 {
        let (_, t) = next_query(&mut r, 1);
        answer(&mut r, 0, Answer::Orders(Vec::new()), t);
    }
    let (_, t) = next_query(&mut r, 1);
    let found = vec![order(1, "0"), order(2, "0.5"), order(3, "0"), order(4, "1")];
    answer(&mut r, 0, Answer::Orders(found.clone()), t);
    let (_, t) = next_query(&mut r, 1);
    let many: Vec<ExchangeFill> = (0..(MAX_PAGES * PAGE_LIMIT) as u64)
        .map(|i| fill(1_002, i + 1))
        .collect();
    assert_eq!(
        answer(&mut r, 0, Answer::Fills(many), t),
        None,
        "fills of 2 and 4 next"
    );
    let (q, t) = next_query(&mut r, 1);
    assert!(
        matches!(
            q.kind,
            QueryKind::Fills {
                order_id: Some(1_002),
                ..
            }
        ),
        "{q:?}"
    );
    assert_eq!(
        answer(&mut r, 0, Answer::Fills(vec![fill(1_002, 1)]), t),
        None
    );
    let (q, t) = next_query(&mut r, 1);
    assert!(
        matches!(
            q.kind,
            QueryKind::Fills {
                order_id: Some(1_004),
                ..
            }
        ),
        "{q:?}"
    );
    let state = answer(&mut r, 0, Answer::Fills(vec![fill(1_004, 2)]), t).unwrap();
    assert_eq!(state.orders, found);
    assert_eq!(state.fills, vec![fill(1_002, 1), fill(1_004, 2)]);
}

#[test]
fn a_failed_listing_retries_the_sweep_then_goes_one_by_one() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(place(n), 0);
    }
    r.push(req(0, 9, true, 0), 0);
    poll(&mut r, GATHER).unwrap();
    answer(&mut r, 0, Answer::ServerTime(utc(GATHER)), GATHER);
    for failure in 1..=MAX_ATTEMPTS / 2 {
        let (q, t) = next_query(&mut r, 2);
        assert!(
            matches!(q.kind, QueryKind::HistoryOrders { .. }),
            "{failure}: {q:?}"
        );
        assert_eq!(answer(&mut r, 0, Answer::Failed("503".into()), t), None);
        if failure == 1 {
            // The request of unknown write time was single from the start: after the sweep.
            let (q, at) = next_query(&mut r, 1);
            assert_eq!(q, info(0, 9));
            answer(&mut r, 0, Answer::Order(Some(order(9, "0"))), at);
        }
        assert_eq!(
            r.next_wake_ns(),
            Some(t + RETRY_BACKOFF_MS * MS),
            "{failure}"
        );
    }
    for n in 1..=SWEEP_MIN as u64 {
        let (q, at) = next_query(&mut r, 2);
        assert_eq!(
            q,
            info(0, n),
            "one by one after {} failures",
            MAX_ATTEMPTS / 2
        );
        answer(&mut r, 0, Answer::Order(Some(order(n, "0"))), at).unwrap();
    }
}

#[test]
fn requests_of_unknown_write_time_are_never_swept() {
    let mut r = resolver(1);
    for n in 1..=SWEEP_MIN as u64 {
        r.push(req(0, n, true, 0), 0);
    }
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
}

#[test]
fn a_request_for_an_unknown_account_is_dropped() {
    let mut r = resolver(1);
    r.push(req(3, 1, true, WRITTEN), 0);
    assert_eq!((r.pending(), r.next_wake_ns()), (0, None));
    assert_eq!(answer(&mut r, 3, Answer::Order(None), 0), None);
}

#[test]
fn the_figures_docs_behaviour_md_states_hold() {
    // "when four or more are due at once ... lists the account instead"; "Queries are paced
    // at 10/s per account (half the 20/s/UID quota)"; a place not found "again after
    // 2 × push_deadline_ms" is the shell's grace.
    assert_eq!(SWEEP_MIN, 4);
    assert_eq!(1_000 / QUERY_INTERVAL_MS, 10);
    assert_eq!((GATHER_MS, RETRY_BACKOFF_MS, MAX_ATTEMPTS), (10, 250, 10));
}

#[test]
fn a_late_poll_keeps_the_accounts_slots_where_they_were() {
    let mut r = resolver(1);
    for n in 1..=3 {
        r.push(place(n), 0);
    }
    assert_eq!(poll(&mut r, GATHER), Some(info(0, 1)));
    answer(&mut r, 0, Answer::Order(Some(order(1, "0"))), GATHER + MS);
    // The driver wakes 50 ms after the slot: the query goes then, the next slot stays one
    // interval after the missed one.
    let late = GATHER + INTERVAL + 50 * MS;
    assert_eq!(poll(&mut r, late), Some(info(0, 2)));
    answer(&mut r, 0, Answer::Order(Some(order(2, "0"))), late + MS);
    assert_eq!(r.next_wake_ns(), Some(GATHER + 2 * INTERVAL));
}
