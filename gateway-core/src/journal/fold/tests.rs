use super::*;
use crate::journal::record::{
    put_cl_ord_id, put_clock, put_epoch, put_list_id, put_outbound, put_presence, Origin, Records,
};
use codec::sbe::{
    Category, CxlRejResponseTo, ExecType, OrdType, OrderCancelReject, Side, Symbol, Text,
    TimeInForce,
};
use proptest::prelude::*;

/// An ExecutionReport frame for `cl` (replacing `orig`, 0: none) at `ms` (UTC).
fn er_frame(cl: u64, orig: u64, ms: u64, status: OrdStatus, exec_id: u64) -> Vec<u8> {
    let mut f = Vec::new();
    ExecutionReport {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        order_id: 0,
        exec_id,
        transact_time: ms * 1_000_000,
        price: None,
        order_qty: codec::Decimal::ZERO,
        last_qty: None,
        last_px: None,
        cum_qty: codec::Decimal::ZERO,
        leaves_qty: codec::Decimal::ZERO,
        avg_px: None,
        exchange_code: 0,
        symbol: Symbol::EMPTY,
        category: Category::Spot,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        exec_type: ExecType::New,
        ord_status: status,
        ord_rej_reason: None,
        text: Text::new(""),
    }
    .encode_frame(&mut f);
    f
}

fn ocr_frame(cl: u64, orig: u64, reason: CxlRejReason) -> Vec<u8> {
    let mut f = Vec::new();
    OrderCancelReject {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        order_id: 0,
        transact_time: 0,
        exchange_code: 0,
        ord_status: OrdStatus::New,
        cxl_rej_response_to: CxlRejResponseTo::OrderCancelRequest,
        cxl_rej_reason: reason,
        text: Text::new("x"),
    }
    .encode_frame(&mut f);
    f
}

fn fold(bytes: &[u8]) -> JournalFold {
    let mut f = JournalFold::new();
    for r in Records::new(bytes) {
        f.apply(r);
    }
    f
}

#[test]
fn unanswered_orders_are_dated_by_the_last_report_before_them() {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Reply,
        &er_frame(1, 0, 5_000, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 2, 2);
    put_cl_ord_id(&mut b, 3, 3);
    put_outbound(
        &mut b,
        2,
        Origin::Push,
        &er_frame(3, 0, 7_000, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 4, 4);
    put_cl_ord_id(&mut b, 5, 3);
    put_clock(&mut b, 9_000);
    put_cl_ord_id(&mut b, 6, 6);
    let r = fold(&b).recovered();
    // 1 and 3 were answered; 2 was used after the report at 5 000 ms, 4 after 7 000 ms,
    // 6 after the gateway opened the journal at 9 000 ms.
    assert_eq!(
        r.unanswered_since_ms,
        [(2, 5_000), (4, 7_000), (6, 9_000)].into()
    );
    assert_eq!(r.last_report_ms, 7_000);
    assert_eq!(r.next_seq, 3);
}

/// Issue 10, cause 7: a cancel or replace ClOrdID that no ExecutionReport or
/// OrderCancelReject names is listed for resolution; answered ones are not.
#[test]
fn cancels_and_replaces_without_any_answer_are_listed() {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Reply,
        &er_frame(1, 0, 5_000, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 3, 1); // answered by an ExecutionReport
    put_outbound(
        &mut b,
        2,
        Origin::Push,
        &er_frame(3, 1, 6_000, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 5, 1); // answered by an OrderCancelReject
    put_outbound(
        &mut b,
        3,
        Origin::OrderEntry,
        &ocr_frame(5, 1, CxlRejReason::NotApplied),
    );
    put_cl_ord_id(&mut b, 9, 1); // no answer
    put_cl_ord_id(&mut b, 7, 1); // no answer
    let r = fold(&b).recovered();
    assert_eq!(r.unanswered_amends, [7, 9]);
    assert!(r.unanswered_since_ms.is_empty());
}

#[test]
fn an_ended_order_leaves_the_live_map_but_its_ids_stay_used() {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Reply,
        &er_frame(1, 0, 1, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 2, 2);
    put_outbound(
        &mut b,
        2,
        Origin::Reply,
        &er_frame(2, 0, 2, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 3, 1); // cancel of 1
    put_outbound(
        &mut b,
        3,
        Origin::Push,
        &er_frame(3, 1, 3, OrdStatus::Canceled, 0),
    );
    // A repeated ClOrdID's reject names order 2 and changes nothing.
    let mut dup = er_frame(2, 0, 4, OrdStatus::Rejected, 0);
    {
        let mut er = match codec::sbe::decode(&dup[SOFH_LEN..]).unwrap() {
            Message::ExecutionReport(e) => e.to_owned(),
            _ => unreachable!(),
        };
        er.ord_rej_reason = Some(OrdRejReason::DuplicateOrder);
        dup.clear();
        er.encode_frame(&mut dup);
    }
    put_outbound(&mut b, 4, Origin::OrderEntry, &dup);
    put_list_id(&mut b, 8);
    let f = fold(&b);
    let r = f.recovered();
    // Order 1 ended with its strategy away (no presence record): a held end, its ClOrdIDs
    // and reports kept for a restart.
    assert_eq!(r.roots, [(1, 1), (3, 1), (2, 2)].into());
    assert_eq!(r.held_ends, [1].into());
    assert_eq!(r.reports.len(), 3);
    assert_eq!((f.open_orders(), f.held_ends()), (1, 1));
    // The strategy connects (tail 5 s); once it has been connected for the tail and the
    // margin after the end, the end leaves.
    put_presence(&mut b, true, 10, 5_000);
    put_outbound(
        &mut b,
        5,
        Origin::Push,
        &er_frame(2, 0, 10 + 5_000 + HELD_MARGIN_MS - 1, OrdStatus::New, 0),
    );
    assert_eq!(fold(&b).held_ends(), 1, "not yet");
    put_outbound(
        &mut b,
        6,
        Origin::Push,
        &er_frame(2, 0, 10 + 5_000 + HELD_MARGIN_MS, OrdStatus::New, 0),
    );
    let f = fold(&b);
    let r = f.recovered();
    assert_eq!(r.roots, [(2, 2)].into());
    assert!(r.held_ends.is_empty());
    assert_eq!(r.used.iter_ranges().collect::<Vec<_>>(), [(1, 3)]);
    assert!(r.list_ids.contains(8));
    assert_eq!(r.reports.len(), 3);
    assert!(r.reports.iter().all(|er| er.cl_ord_id == 2));
    assert_eq!((f.open_orders(), f.held_ends()), (1, 0));
    assert_eq!(r.next_seq, 7);
}

#[test]
fn an_ended_order_with_an_unanswered_cancel_is_kept_until_the_answer() {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Reply,
        &er_frame(1, 0, 1, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 2, 1); // cancel, accepted
    put_outbound(
        &mut b,
        2,
        Origin::Push,
        &er_frame(1, 0, 2, OrdStatus::Filled, 7),
    );
    let r = fold(&b).recovered();
    assert_eq!(r.unanswered_amends, [2]);
    assert_eq!(
        r.reports.len(),
        2,
        "the order is rebuilt to answer the cancel"
    );
    put_outbound(
        &mut b,
        3,
        Origin::Reply,
        &ocr_frame(2, 1, CxlRejReason::TooLateToCancel),
    );
    let f = fold(&b);
    assert_eq!(f.open_orders(), 0);
    let r = f.recovered();
    assert!(r.unanswered_amends.is_empty());
    // Ended with its strategy away: held for the next epoch's OrderStatus.
    assert_eq!(r.held_ends, [1].into());
}

/// Issue 37: an end the strategy may not have read survives a checkpoint round trip and a
/// restart (a clock record: the strategy is away again, whatever the presence before), and
/// leaves only once the strategy has been connected for the tail after it.
#[test]
fn an_unread_end_survives_a_checkpoint_and_a_restart() {
    let mut b = Vec::new();
    put_clock(&mut b, 1_000);
    put_presence(&mut b, true, 1_000, 5_000);
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Reply,
        &er_frame(1, 0, 1_100, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 2, 2);
    put_outbound(
        &mut b,
        2,
        Origin::Push,
        &er_frame(2, 0, 1_200, OrdStatus::New, 0),
    );
    // The strategy leaves; order 1 is filled while it is away.
    put_presence(&mut b, false, 1_300, 5_000);
    put_outbound(
        &mut b,
        3,
        Origin::Push,
        &er_frame(1, 0, 1_400, OrdStatus::Filled, 77),
    );
    // Time passes, the strategy still away: still held.
    put_outbound(
        &mut b,
        4,
        Origin::Push,
        &er_frame(2, 0, 60_000, OrdStatus::PartiallyFilled, 78),
    );
    let f = fold(&b);
    assert_eq!((f.open_orders(), f.held_ends()), (1, 1));
    // Checkpoint round trip (a roll), then a restart.
    let mut body = Vec::new();
    f.checkpoint().encode(&mut body);
    let cp = Checkpoint::decode(&body).unwrap();
    assert_eq!(cp.state.held.len(), 1);
    assert_eq!(cp.state.held[0].order.root, 1);
    assert_eq!(cp.state.held[0].end_ms, 1_400);
    let mut g = JournalFold::from_checkpoint(&cp).unwrap();
    assert_eq!(g.checkpoint(), f.checkpoint());
    let mut after = Vec::new();
    put_clock(&mut after, 70_000);
    for r in Records::new(&after) {
        g.apply(r);
    }
    let r = g.recovered();
    assert_eq!(r.held_ends, [1].into());
    assert_eq!(r.roots.get(&1), Some(&1));
    let mine: Vec<_> = r.reports.iter().filter(|er| er.cl_ord_id == 1).collect();
    assert_eq!(mine.len(), 2, "its reports, for the tracker to rebuild it");
    assert_eq!(mine[1].ord_status, OrdStatus::Filled);
    assert_eq!(mine[1].exec_id, 77);
    // The restarted gateway's strategy connects at 80 000: held until 80 000 + tail + margin.
    let mut more = Vec::new();
    put_presence(&mut more, true, 80_000, 5_000);
    put_outbound(
        &mut more,
        5,
        Origin::Push,
        &er_frame(2, 0, 80_000 + 5_000 + HELD_MARGIN_MS - 1, OrdStatus::New, 0),
    );
    for r in Records::new(&more) {
        g.apply(r);
    }
    assert_eq!(g.held_ends(), 1);
    let mut last = Vec::new();
    put_outbound(
        &mut last,
        6,
        Origin::Push,
        &er_frame(2, 0, 80_000 + 5_000 + HELD_MARGIN_MS, OrdStatus::New, 0),
    );
    for r in Records::new(&last) {
        g.apply(r);
    }
    assert_eq!(g.held_ends(), 0);
    assert_eq!(g.recovered().roots.get(&1), None);
    assert!(
        g.recovered().used.contains(1),
        "its ClOrdIDs stay used in the epoch"
    );
}

/// A held end across a rollover: its reports carried (numbered 0), its ClOrdIDs not used in
/// the new epoch but still mapped (the restored order entry and tracker hold it), held again
/// from the time of its OrderStatus; a new order of the new epoch taking its root ends the hold.
#[test]
fn a_held_end_is_carried_over_a_rollover_and_held_again_by_its_order_status() {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 4, 4);
    put_outbound(
        &mut b,
        1,
        Origin::Push,
        &er_frame(4, 0, 2_000, OrdStatus::Canceled, 0),
    );
    put_epoch(&mut b, 1, 3_000);
    let f = fold(&b);
    let r = f.recovered();
    assert_eq!(r.held_ends, [4].into());
    assert!(!r.used.contains(4));
    assert_eq!(r.roots.get(&4), Some(&4));
    assert_eq!(r.root_epochs.get(&4), Some(&0));
    assert!(r.status_due, "its OrderStatus is due in the new epoch");
    // The strategy connects with the new epoch (tail 0), then the new epoch's OrderStatus of
    // the order at 3 500: held from the report, not from its end (2 000).
    put_presence(&mut b, true, 3_000, 0);
    let mut status = er_frame(4, 0, 3_500, OrdStatus::Canceled, 0);
    {
        let mut er = match codec::sbe::decode(&status[SOFH_LEN..]).unwrap() {
            Message::ExecutionReport(e) => e.to_owned(),
            _ => unreachable!(),
        };
        er.exec_type = ExecType::OrderStatus;
        status.clear();
        er.encode_frame(&mut status);
    }
    put_outbound(&mut b, 1, Origin::Reply, &status);
    assert!(!fold(&b).recovered().status_due, "made");
    put_cl_ord_id(&mut b, 5, 5);
    let t = 3_500 + HELD_MARGIN_MS;
    put_outbound(
        &mut b,
        2,
        Origin::Reply,
        &er_frame(5, 0, t - 1, OrdStatus::New, 0),
    );
    assert_eq!(fold(&b).held_ends(), 1, "held from its OrderStatus");
    put_outbound(
        &mut b,
        3,
        Origin::Push,
        &er_frame(5, 0, t, OrdStatus::New, 0),
    );
    assert_eq!(fold(&b).held_ends(), 0);
    // Another history: a new order takes root 4 in the new epoch: the old end's hold ends.
    let mut c = Vec::new();
    put_cl_ord_id(&mut c, 4, 4);
    put_outbound(
        &mut c,
        1,
        Origin::Push,
        &er_frame(4, 0, 2_000, OrdStatus::Canceled, 0),
    );
    put_epoch(&mut c, 1, 3_000);
    put_cl_ord_id(&mut c, 4, 4);
    let r = fold(&c).recovered();
    assert!(r.held_ends.is_empty());
    assert_eq!(r.unanswered_since_ms.keys().collect::<Vec<_>>(), [&4]);
    assert!(r.reports.is_empty());
}

#[test]
fn a_refusal_journaled_before_its_cl_ord_id_does_not_leave_an_order_in_flight() {
    let mut b = Vec::new();
    put_outbound(
        &mut b,
        1,
        Origin::OrderEntry,
        &er_frame(4, 0, 1, OrdStatus::Rejected, 0),
    );
    put_cl_ord_id(&mut b, 4, 4);
    let r = fold(&b).recovered();
    assert!(r.unanswered_since_ms.is_empty() && r.roots.is_empty());
    assert!(r.used.contains(4));
}

/// One generated journal record.
#[derive(Debug, Clone)]
enum Gen {
    New(u64),
    Amend(u64, u64),
    Report(u64, u8, u64),
    Reject(u64, bool),
    List(u64),
    Clock(u64),
    Epoch(u64),
    Presence(bool, u64, u64),
}

fn gen_record() -> impl Strategy<Value = Gen> {
    prop_oneof![
        (1u64..40).prop_map(Gen::New),
        (40u64..80, 1u64..40).prop_map(|(c, r)| Gen::Amend(c, r)),
        (1u64..80, 0u8..5, 0u64..5).prop_map(|(c, s, e)| Gen::Report(c, s, e)),
        (1u64..90, any::<bool>()).prop_map(|(c, d)| Gen::Reject(c, d)),
        (1u64..10).prop_map(Gen::List),
        (0u64..100_000).prop_map(Gen::Clock),
        // Rare: a session rollover.
        (0u64..30).prop_map(Gen::Epoch),
        (any::<bool>(), 0u64..200, 0u64..30).prop_map(|(c, ms, t)| Gen::Presence(c, ms, t)),
    ]
}

fn encode(recs: &[Gen]) -> Vec<u8> {
    let statuses = [
        OrdStatus::New,
        OrdStatus::PartiallyFilled,
        OrdStatus::Filled,
        OrdStatus::Canceled,
        OrdStatus::Rejected,
    ];
    let mut b = Vec::new();
    let (mut seq, mut epoch) = (0, 0);
    for (i, r) in recs.iter().enumerate() {
        match *r {
            Gen::New(c) => put_cl_ord_id(&mut b, c, c),
            Gen::Amend(c, root) => put_cl_ord_id(&mut b, c, root),
            Gen::Report(c, s, e) => {
                seq += 1;
                let f = er_frame(c, 0, i as u64, statuses[usize::from(s)], e);
                put_outbound(&mut b, seq, Origin::Push, &f);
            }
            Gen::Reject(c, dup) => {
                seq += 1;
                let why = if dup {
                    CxlRejReason::DuplicateClOrdID
                } else {
                    CxlRejReason::NotApplied
                };
                put_outbound(&mut b, seq, Origin::Reply, &ocr_frame(c, 0, why));
            }
            Gen::List(id) => put_list_id(&mut b, id),
            Gen::Clock(ms) => put_clock(&mut b, ms),
            Gen::Epoch(0) => {
                epoch += 1;
                seq = 0;
                put_epoch(&mut b, epoch, 1_000 * epoch);
            }
            Gen::Epoch(_) => put_clock(&mut b, 50_000),
            Gen::Presence(connected, ms, tail) => put_presence(&mut b, connected, ms, tail),
        }
    }
    b
}

proptest! {
    /// A checkpoint taken anywhere, encoded and decoded, plus the records after it, folds to
    /// exactly what the whole history folds to.
    #[test]
    fn checkpoint_then_the_rest_equals_the_whole_fold(
        recs in proptest::collection::vec(gen_record(), 0..120),
        cut in 0usize..120,
    ) {
        let bytes = encode(&recs);
        let all = fold(&bytes);
        let boundaries: Vec<usize> = {
            let mut it = Records::new(&bytes);
            let mut v = vec![0];
            while it.next().is_some() {
                v.push(it.valid_len());
            }
            v
        };
        let at = boundaries[cut % boundaries.len()];
        let head = fold(&bytes[..at]);
        let mut body = Vec::new();
        head.checkpoint().encode(&mut body);
        let cp = Checkpoint::decode(&body).unwrap();
        let mut resumed = JournalFold::from_checkpoint(&cp).unwrap();
        for r in Records::new(&bytes[at..]) {
            resumed.apply(r);
        }
        prop_assert_eq!(resumed.checkpoint(), all.checkpoint());
        prop_assert_eq!(resumed.recovered(), all.recovered());
        // A checkpoint record in the stream does the same.
        let mut spliced = bytes[..at].to_vec();
        crate::journal::record::put_checkpoint(&mut spliced, &body);
        spliced.extend_from_slice(&bytes[at..]);
        prop_assert_eq!(fold(&spliced).checkpoint(), all.checkpoint());
    }
}

/// Session rollover: numbering restarts at 1, the ClOrdIDs of the orders not ended stay used
/// (and live) with their epoch, every other ClOrdID and ListID is free again.
#[test]
fn an_epoch_record_restarts_numbering_and_keeps_only_open_orders_ids() {
    let mut b = Vec::new();
    put_clock(&mut b, 500);
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Push,
        &er_frame(1, 0, 1, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 2, 2);
    put_outbound(
        &mut b,
        2,
        Origin::Push,
        &er_frame(2, 0, 2, OrdStatus::Filled, 0),
    );
    put_cl_ord_id(&mut b, 3, 1);
    put_outbound(
        &mut b,
        3,
        Origin::Push,
        &er_frame(3, 1, 3, OrdStatus::New, 0),
    );
    put_list_id(&mut b, 7);
    put_epoch(&mut b, 1, 9_000);
    put_cl_ord_id(&mut b, 2, 2);
    let r = fold(&b).recovered();
    assert_eq!((r.epoch, r.epoch_started_ms, r.next_seq), (1, 9_000, 1));
    assert!(r.used.contains(1) && r.used.contains(3) && r.used.contains(2));
    assert!(r.list_ids.is_empty());
    assert_eq!(r.roots.get(&3), Some(&1));
    assert_eq!(r.roots.get(&2), Some(&2), "a new order of the new epoch");
    assert_eq!(
        r.root_epochs,
        [(1, 0)].into(),
        "order 1 was placed in epoch 0"
    );
    assert_eq!(r.reports.len(), 2, "the carried order's reports");
    // The epoch before it, with its last message's number (EstablishmentAck tells it), also
    // through a checkpoint; a second rollover makes epoch 1 the previous one.
    let previous = Some(crate::session::retransmit::PreviousEpoch {
        epoch: 0,
        last_seq: 3,
    });
    assert_eq!(r.previous_epoch, previous);
    let cp = fold(&b).checkpoint();
    let restarted = JournalFold::from_checkpoint(&cp).unwrap();
    assert_eq!(restarted.recovered().previous_epoch, previous);
    assert_eq!(fold(&[]).recovered().previous_epoch, None);
    put_epoch(&mut b, 4, 9_500);
    assert_eq!(
        fold(&b).recovered().previous_epoch,
        Some(crate::session::retransmit::PreviousEpoch {
            epoch: 1,
            last_seq: 0
        })
    );
    // Epoch 0 started when the journal was first opened.
    let mut b0 = Vec::new();
    put_clock(&mut b0, 500);
    put_clock(&mut b0, 800);
    assert_eq!(fold(&b0).recovered().epoch_started_ms, 500);
}

/// A rollover's OrderStatus PendingNew for an order still in flight answers nothing: the order
/// stays unanswered (dated as before) and a cancel of it stays unanswered too.
#[test]
fn an_order_status_report_answers_no_request() {
    // The same frame as `er_frame`'s, with ExecType OrderStatus.
    let status = |cl, ms| {
        let frame = er_frame(cl, 0, ms, OrdStatus::PendingNew, 0);
        let Some(Ok(Message::ExecutionReport(er))) = frame.get(SOFH_LEN..).map(codec::sbe::decode)
        else {
            unreachable!("er_frame encodes an ExecutionReport");
        };
        let mut er = er.to_owned();
        er.exec_type = ExecType::OrderStatus;
        let mut f = Vec::new();
        er.encode_frame(&mut f);
        f
    };
    let mut b = Vec::new();
    put_outbound(
        &mut b,
        1,
        Origin::Reply,
        &er_frame(9, 0, 5_000, OrdStatus::New, 0),
    );
    put_cl_ord_id(&mut b, 1, 1);
    put_cl_ord_id(&mut b, 2, 1);
    put_epoch(&mut b, 1, 9_000);
    put_outbound(&mut b, 1, Origin::Restart, &status(1, 9_000));
    let r = fold(&b).recovered();
    assert_eq!(r.unanswered_since_ms.get(&1), Some(&5_000));
    assert_eq!(r.unanswered_amends, [2]);
    // A real answer still answers.
    put_outbound(
        &mut b,
        2,
        Origin::Reply,
        &er_frame(1, 0, 9_500, OrdStatus::New, 0),
    );
    assert!(fold(&b).recovered().unanswered_since_ms.is_empty());
}

/// An order resting through many rollovers gets an OrderStatus in each new epoch: the fold
/// keeps its New, its fills and only the last of each run of status reports (a restart
/// rebuilds the same order from them), not one more report per rollover.
#[test]
fn status_reports_of_a_resting_order_do_not_pile_up_over_rollovers() {
    let status = |cl: u64, ms: u64, cum: i64, exec_type: ExecType| {
        let mut f = Vec::new();
        let mut er = codec::sbe::decode(&er_frame(cl, 0, ms, OrdStatus::New, 0)[SOFH_LEN..])
            .map(|m| match m {
                Message::ExecutionReport(er) => er.to_owned(),
                _ => unreachable!(),
            })
            .unwrap();
        er.exec_type = exec_type;
        er.order_id = 77;
        er.cum_qty = codec::Decimal::new(cum, 0).unwrap();
        if cum > 0 {
            er.ord_status = OrdStatus::PartiallyFilled;
            er.avg_px = Some(codec::Decimal::new(10, 0).unwrap());
            er.exec_id = ms;
        }
        er.encode_frame(&mut f);
        f
    };
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(&mut b, 1, Origin::Push, &status(1, 1, 0, ExecType::New));
    let mut seq = 1;
    for epoch in 1..=50u64 {
        put_epoch(&mut b, epoch, 1_000 * epoch);
        seq = 1;
        let cum = if epoch > 20 { 3 } else { 0 };
        put_outbound(
            &mut b,
            seq,
            Origin::Restart,
            &status(1, 10 + epoch, cum, ExecType::OrderStatus),
        );
        if epoch == 20 {
            seq += 1;
            put_outbound(
                &mut b,
                seq,
                Origin::Push,
                &status(1, 500, 3, ExecType::PartialFill),
            );
        }
    }
    let f = fold(&b);
    let r = f.recovered();
    let kinds: Vec<(ExecType, u64)> = r
        .reports
        .iter()
        .map(|er| (er.exec_type, er.transact_time / 1_000_000))
        .collect();
    assert_eq!(
        kinds,
        [
            (ExecType::New, 1),
            (ExecType::OrderStatus, 30),
            (ExecType::PartialFill, 500),
            (ExecType::OrderStatus, 60)
        ],
        "New, the last status before the fill, the fill (its ExecID), the last status"
    );
    assert_eq!(r.reports[3].cum_qty, codec::Decimal::new(3, 0).unwrap());
    assert_eq!(f.checkpoint().state.orders[0].reports.len(), 4);
    let _ = seq;
}

/// A cancel of a held end (its strategy had not read the end) is kept until answered, so a
/// restart resolves it (answered once; found by the deterministic simulation, seed 1695: the
/// cancel was written, the gateway crashed before its answer, and it was never answered); once
/// answered the order is held again.
#[test]
fn a_cancel_of_a_held_end_is_kept_until_answered() {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, 1, 1);
    put_outbound(
        &mut b,
        1,
        Origin::Push,
        &er_frame(1, 0, 10, OrdStatus::Canceled, 0),
    );
    put_cl_ord_id(&mut b, 2, 1); // cancel of 1, sent before the strategy read its end
    let f = fold(&b);
    let r = f.recovered();
    assert_eq!(r.unanswered_amends, [2]);
    assert!(r.held_ends.is_empty(), "an order with a cancel unanswered");
    assert_eq!(r.roots.get(&2), Some(&1));
    assert_eq!(r.reports.len(), 1);
    // A checkpoint keeps it so.
    let mut body = Vec::new();
    f.checkpoint().encode(&mut body);
    let g = JournalFold::from_checkpoint(&Checkpoint::decode(&body).unwrap()).unwrap();
    assert_eq!(g.recovered(), r);
    put_outbound(
        &mut b,
        2,
        Origin::Reply,
        &ocr_frame(2, 1, CxlRejReason::TooLateToCancel),
    );
    let r = fold(&b).recovered();
    assert!(r.unanswered_amends.is_empty());
    assert_eq!(r.held_ends, [1].into());
    assert_eq!(r.roots.get(&2), Some(&1));
}
