//! The whole decision about one single-order message (NewOrderSingle, OrderCancelRequest,
//! OrderCancelReplaceRequest): order entry, then [`check_after_entry`], in one call that says
//! either "write this op" or "answer with this report". The shell journals the fresh ClOrdIDs
//! ([`OrderEntry::take_fresh`]) whatever the verdict, then acts on it.

use codec::sbe::Message;

use super::{check_after_entry, journal_refusal, Accepted, AccountGate, Refusal};
use crate::journal::durability::StorageFault;
use crate::pretrade::InstrumentTable;
use crate::risk::{Reserved, RiskBook};
use crate::session::order_entry::{EntryOutcome, OrderEntry};
use crate::tracker::{ReportMsg, RequestKind};
use crate::types::TradeOp;

/// What to do with a single-order message.
#[derive(Debug)]
pub enum Verdict {
    /// Write the op now in the JSON buffer, under the rate budget of `op`; once written, tell
    /// the tracker (root, kind). If it is not written, answer with
    /// [`super::not_sent`] (which gives `reserved` back).
    Send {
        /// The rate-budget class of the op.
        op: TradeOp,
        /// The order's root ClOrdID.
        root: u64,
        /// What is asked.
        kind: RequestKind,
        /// A place's risk reservation.
        reserved: Option<Reserved>,
    },
    /// Nothing is written; answer with `report`.
    Answer {
        /// The answer (ExecutionReport Rejected or OrderCancelReject).
        report: ReportMsg,
        /// The refusal after order entry, if that is where it was refused (recorded for
        /// replay; `None` when order entry refused it).
        refusal: Option<Refusal>,
    },
}

/// The decision and what order entry said (the outcome is recorded for replay).
#[derive(Debug)]
pub struct Decided {
    /// Order entry's outcome.
    pub outcome: EntryOutcome,
    /// What to do.
    pub verdict: Verdict,
}

/// Decides `msg` of `session_id` (request id `req_id`, wall clock `utc_ns`): order entry
/// (duplicate ClOrdID, the order it names, instrument rules, the op's JSON into `json`), then
/// the account and risk. `None` for a message that is not a single order.
#[allow(clippy::too_many_arguments)]
pub fn decide_single(
    entry: &mut OrderEntry,
    msg: &Message<'_>,
    instruments: &InstrumentTable,
    account: &impl AccountGate,
    risk: &RiskBook,
    session_id: u64,
    req_id: u64,
    json: &mut Vec<u8>,
    utc_ns: u64,
) -> Option<Decided> {
    let (op, outcome) = entry.on_single(msg, instruments, req_id, json, utc_ns)?;
    // The order's identity was checked first: a repeated ClOrdID is answered DuplicateOrder
    // whatever the link's state (a NotApplied for it would contradict the order it names).
    let verdict = match &outcome {
        EntryOutcome::Reject(report) => Verdict::Answer {
            report: *report,
            refusal: None,
        },
        EntryOutcome::Send { root, kind } => {
            let req = Accepted::of_message(msg, kind)?;
            match check_after_entry(&req, account, risk, session_id) {
                Ok(reserved) => Verdict::Send {
                    op,
                    root: *root,
                    kind: *kind,
                    reserved,
                },
                Err(refusal) => Verdict::Answer {
                    report: refusal.report(&req, utc_ns),
                    refusal: Some(refusal),
                },
            }
        }
    };
    Some(Decided { outcome, verdict })
}

/// After the shell journaled the request's ClOrdIDs: a [`Verdict::Send`] of new risk becomes
/// an answer (NotApplied naming the fault, its risk reservation given back to `risk`) when
/// the session's journal now fails (`fault`: that append may be the one that failed);
/// anything else is returned as it is.
pub fn recheck_after_journal(
    verdict: Verdict,
    msg: &Message<'_>,
    fault: Option<StorageFault>,
    risk: &RiskBook,
    utc_ns: u64,
) -> Verdict {
    let Verdict::Send { kind, reserved, .. } = &verdict else {
        return verdict;
    };
    let (Some(refusal), Some(req)) = (
        journal_refusal(kind, fault),
        Accepted::of_message(msg, kind),
    ) else {
        return verdict;
    };
    if let Some(r) = reserved {
        risk.release(*r);
    }
    Verdict::Answer {
        report: refusal.report(&req, utc_ns),
        refusal: Some(refusal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pretrade::InstrumentRules;
    use codec::sbe::{
        BoolFlag, Category, NewOrderSingle, OrdRejReason, OrdType, PosSide, Side, StpMode, Symbol,
        TimeInForce,
    };

    use super::super::TestGate;

    fn d(s: &str) -> codec::Decimal {
        s.parse().unwrap()
    }

    fn order_frame(cl_ord_id: u64) -> Vec<u8> {
        let mut b = Vec::new();
        NewOrderSingle {
            cl_ord_id,
            transact_time: 0,
            price: Some(d("100")),
            order_qty: d("1"),
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::Default,
        }
        .encode_frame(&mut b);
        b
    }

    fn table() -> InstrumentTable {
        InstrumentTable::new([InstrumentRules {
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            tick: d("0.1"),
            lot: d("0.001"),
            min_qty: d("0.001"),
            max_qty: None,
            min_notional: d("0"),
            online: true,
        }])
    }

    fn decide(entry: &mut OrderEntry, frame: &[u8], up: bool, risk: &RiskBook) -> Decided {
        let msg = codec::sbe::decode(&frame[codec::frame::SOFH_LEN..]).unwrap();
        let mut json = Vec::new();
        decide_single(
            entry,
            &msg,
            &table(),
            &TestGate { up },
            risk,
            1,
            9,
            &mut json,
            5,
        )
        .unwrap()
    }

    #[test]
    fn a_place_is_sent_with_its_reservation_and_refused_while_down_then_a_repeat_is_a_duplicate() {
        let grant = crate::types::SessionGrant {
            session_id: 1,
            ..Default::default()
        };
        let risk = RiskBook::new(&[grant], 1, &crate::risk::RiskSettings::default());
        let mut entry = OrderEntry::new(1);
        let d1 = decide(&mut entry, &order_frame(7), true, &risk);
        assert!(
            matches!(
                d1.verdict,
                Verdict::Send {
                    op: TradeOp::Place,
                    root: 7,
                    reserved: Some(_),
                    ..
                }
            ),
            "{d1:?}"
        );
        let d2 = decide(&mut entry, &order_frame(8), false, &risk);
        let Verdict::Answer {
            report: ReportMsg::Exec(er),
            refusal: Some(r),
        } = d2.verdict
        else {
            panic!("{d2:?}")
        };
        assert_eq!(
            (er.cl_ord_id, er.ord_rej_reason),
            (8, Some(OrdRejReason::NotApplied))
        );
        assert_eq!(r.ord, OrdRejReason::NotApplied);
        // ClOrdID 7 was used: DuplicateOrder, whatever the link's state, refused by order entry.
        let d3 = decide(&mut entry, &order_frame(7), false, &risk);
        let Verdict::Answer {
            report: ReportMsg::Exec(er),
            refusal: None,
        } = d3.verdict
        else {
            panic!("{d3:?}")
        };
        assert_eq!(er.ord_rej_reason, Some(OrdRejReason::DuplicateOrder));
    }
}
