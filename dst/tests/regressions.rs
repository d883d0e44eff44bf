//! Minimal failing seeds of bugs the deterministic simulation found or was shown to find
//! (issue 25 item 6), each run with its shape and asserted clean: if one of these bugs comes
//! back, its seed fails here at once, whatever the long sweeps happen to draw. Each case names
//! the bug, the commit that fixed it and what fires when it is back; the shape is the smallest
//! found (`--orders`, `--sessions`, `--window`). Replay one with
//! `cargo run --release -p dst -- --seed S --orders O --sessions N --window W --trace`.

use dst::{run, RunConfig};

/// Runs `seed` with `orders` NewOrderSingles on `sessions` sessions of window `window` (either
/// 0: drawn from the seed, as a sweep without `--sessions` / `--window` does), faults drawn
/// from the seed as in a sweep, and asserts no invariant broke.
fn assert_clean(seed: u64, orders: u64, sessions: usize, window: usize) {
    let r = run(RunConfig {
        seed,
        orders_per_session: orders,
        sessions,
        window,
        faults: true,
        keep_trace: false,
        storage_faults: false,
        legacy_journal_errors: false,
    });
    if sessions != 0 {
        assert_eq!(r.sessions, sessions);
    }
    if window != 0 {
        assert_eq!(r.window, window);
    }
    let mut shape_args = String::new();
    if sessions != 0 {
        shape_args.push_str(&format!(" --sessions {sessions}"));
    }
    if window != 0 {
        shape_args.push_str(&format!(" --window {window}"));
    }
    assert!(r.orders >= 1, "seed {seed}: no order sent");
    let shown: Vec<String> = r.violations.0.iter().map(ToString::to_string).collect();
    assert!(
        shown.is_empty(),
        "seed {seed} (replay: cargo run --release -p dst -- --seed {seed} --orders \
         {orders}{shape_args} --trace):\n{}",
        shown.join("\n")
    );
}

/// Issue 10 cause 8, fixed in 583d158: a second cancel overwrote the first's pending slot
/// (every unanswered cancel is now kept, oldest first). Seed 2555 (1 session, window 2,
/// 2 orders; link drops): cancels 2 and 3 of order 1 are both lost in a link drop (outcome
/// unknown), the reconciliation shows the order still open; cancel 3 gets OrderCancelReject
/// NotApplied and, with one slot, cancel 2 is never answered: `liveness: unanswered`
/// (cancel/replace sent at 2.296 ms) and `liveness: order not closed` (the wind-down never
/// cancels an order with a cancel in flight).
#[test]
fn issue10_cause8_second_cancel_overwrote_the_first_seed_2555() {
    assert_clean(2555, 2, 1, 2);
}

/// Issue 10 cause 10, fixed in eb399f0: a modify to the values the order already had was
/// settled as shown (a modify still pending after the exchange's state was applied now gets
/// OrderCancelReject NotApplied). Seed 5073 (1 session, window 2, 2 orders, one fault: a
/// `40010` reply to an op the venue processed): a modify asks for order 1's own price and
/// quantity, the venue refuses it (25571) and the gateway reads `40010`; the resolution's
/// state shows those values and the modify is settled as "Replaced comes with the update",
/// which never comes: `liveness: unanswered` (cancel/replace sent at 1.476 ms) and
/// `liveness: order not closed`. (Seed 4600, found first, no longer draws that schedule since
/// the faults of the side stream were added.)
#[test]
fn issue10_cause10_modify_to_the_order_s_own_values_seed_5073() {
    assert_clean(5073, 2, 1, 2);
}

/// Issue 10 cause 10 (as above), window 1: seed 5073 again (1 session, 2 orders); the
/// unanswered modify holds the window's only slot, so the fault phase runs to its limit
/// (300 s simulated, hundreds of link drops) before the same `liveness: unanswered`.
#[test]
fn issue10_cause10_modify_to_the_order_s_own_values_window_1_seed_5073() {
    assert_clean(5073, 2, 1, 1);
}

/// Liveness gap 1 of issue 25, fixed in 90e27c4: a mass cancel whose `batch-cancel` reply
/// never comes was never reported (the tracker's watchdog now ends its chunks at the reply
/// timeout, outcome unknown). Seed 4898 (1 session, window drawn: 16, 2 orders; one reply
/// lost): the OrderMassCancelRequest's op is applied, its reply never sent: `liveness:
/// unanswered` (OrderMassCancelRequest sent at 2.322 ms). (Seed 18160, found first, no longer
/// draws that schedule since the faults of the side stream were added.)
#[test]
fn liveness_gap1_mass_cancel_without_reply_seed_4898() {
    assert_clean(4898, 2, 1, 0);
}

/// Liveness gap 2 of issue 25, fixed in this issue (`MassCancel::answers_strategy`): cancel on
/// disconnect wrote an OrderMassCancelReport with ClOrdID 0 into the session's recoverable
/// flow, which the strategy read on its return as the answer to no request. Seed 13984
/// (1 session, window 1, 1 order; one strategy drop, 28 events): `answer to no request:
/// OrderMassCancelReport ClOrdID 0` at 148.678 ms.
#[test]
fn liveness_gap2_cancel_on_disconnect_reports_to_no_one_seed_13984() {
    assert_clean(13984, 1, 1, 1);
}

/// Found by the simulation once it rolled sessions over and crashed the gateway (issue 25),
/// fixed with it (`Recovered::established` counts an epoch after the first): a session rolled
/// over with nothing sent in its new epoch yet did not count as established after a restart,
/// so the restart's reconciliation (started for the other session) took its orders of the
/// earlier epoch, ended and reported long before, for orders the journal did not know, and
/// reported each again from New: `report after terminal` (New, then Fill, for Filled orders).
/// Seed 712 (2 sessions, window drawn: 2, 10 orders each; two rollovers, two crashes).
#[test]
fn rollover_then_crash_reported_ended_orders_again_seed_712() {
    assert_clean(712, 10, 2, 0);
}

/// Found by the simulation once strategies asked for rollovers (issue 25), fixed with it
/// (`Tracker::report_due_status`): a rollover reports each order whose end its strategy may
/// not have seen (OrderStatus), then evicted it at once; but those reports follow the
/// EstablishmentAck a tick apart, and a strategy that left again (here: asked for the next
/// epoch 0.4 ms after establishing, quiet, its ack saying NextSeqNo 1) never read them, and
/// the next epoch no longer knew the order: an order cancelled by self-trade prevention while
/// its strategy was away stayed New for it for ever (`liveness: order not closed`). The
/// OrderStatus is now held like any end its strategy may not have seen, and reported again.
/// Seed 204191 (2 sessions, window 12 drawn, 40 orders each; two rollovers).
#[test]
fn a_rollover_s_status_report_unread_before_the_next_rollover_seed_204191() {
    assert_clean(204191, 40, 0, 0);
}

/// Found by the first 10⁶-seed run (issue 25), fixed with it (`ClockOffset`, `CLOCK_STEP_MS`):
/// the resolver's bound of the exchange's clock offset kept samples taken before forward steps
/// of the gateway's clock (0.1-2 s each, more than the 2 s margin in all), so a sweep listed
/// the exchange's orders from after a place's creation, did not see it, and settled it
/// Rejected (not applied) while the venue had filled it: `OrdStatus differs from the venue's`
/// (venue Filled, strategy Rejected), `CumQty differs`. A step now drops the bound.
/// Seed 990591 (3 sessions, window 3, 40 orders each; 6 clock jumps, 3 crashes).
#[test]
fn a_clock_step_kept_a_stale_offset_bound_seed_990591() {
    assert_clean(990591, 40, 0, 0);
}

/// Issue 37 item 3, "Rollover after a crash" (`docs/behaviour.md`), fixed by the journal's
/// held ends (the fold keeps the ended orders whose end the strategy may not have read, and a
/// restart rebuilds them in the tracker): an order ends while its strategy is away (here:
/// cancelled by self-trade prevention right after the strategy's Terminate), the gateway
/// crashes, and the strategy then asks for a new epoch (Negotiate with the next SessionVerID)
/// without having read the end. The checkpoint kept only the orders not ended, so the
/// restored tracker did not know the order and the new epoch's OrderStatus reports left it
/// out: `liveness: order not closed` (session 102 order 1). Seed 208121 (3 sessions, window
/// 5, 40 orders each; one rollover, one crash); until then kept out of the sweeps by a fence
/// (`RunConfig::fence_rollover_gaps`, `--no-fence`), now removed.
#[test]
fn issue37_rollover_after_a_crash_reports_an_end_the_strategy_had_not_read_seed_208121() {
    assert_clean(208121, 40, 0, 0);
    let r = run(RunConfig::new(208121));
    assert_eq!((r.sessions, r.window), (3, 5), "the shape of the failure");
}

/// Issue 37, found by the first sweep without the fence: a cancel of an order that had ended
/// (the strategy sent it before reading the end) was written, then the gateway crashed before
/// its answer. The journal kept the order as a held end but not the cancel, and the restarted
/// order entry knew the order (held), so the strategy's resend got OrderCancelReject
/// DuplicateClOrdID and the cancel was never answered: `liveness: unanswered` (session 101
/// order 12, cancel sent at 96.283 ms). A cancel or replace of a held end is now kept until
/// answered (a restart resolves it). Seed 1695 (3 sessions, window 5, 40 orders each; one crash).
#[test]
fn issue37_a_cancel_of_a_held_end_cut_off_by_a_crash_is_answered_seed_1695() {
    assert_clean(1695, 40, 0, 0);
}

/// Issue 37, found by the first sweep without the fence: a strategy asked for a new epoch,
/// the tracker began making the epoch's OrderStatus reports (a tick's worth at a time) and the
/// gateway crashed before it had made the one of an order that ended unread while the strategy
/// was away (session 102 order 20); the restart restored the epoch, not the reports still due,
/// and the strategy held the order New for ever: `liveness: order not closed`. The journal now
/// knows which OrderStatus reports of the epoch are still due (`Recovered::status_due`) and the
/// restart has the tracker make them again. Seed 7886 (3 sessions, window 8, 40 orders each;
/// two rollovers, one crash); also seeds 9213, 16766, 19605, 31189.
#[test]
fn issue37_a_crash_while_a_rollover_reports_its_orders_seed_7886() {
    for seed in [7886, 9213, 16766, 19605, 31189] {
        assert_clean(seed, 40, 0, 0);
    }
}
