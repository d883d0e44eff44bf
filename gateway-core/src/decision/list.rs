//! The decision about the items of a list (NewOrderList, OrderCancelReplaceList,
//! OrderCancelList): each item order entry accepted goes through [`check_after_entry`] like its
//! single counterpart; the shell then writes the accepted ones in exchange batches
//! (`session::batch_entry::exchange_batches`).

use super::{check_after_entry, journal_refusal, Accepted, AccountGate, NotSent, Refusal};
use crate::journal::durability::StorageFault;
use crate::risk::RiskBook;
use crate::session::batch_entry::{AcceptedItem, RefusedItem};

/// The items of a list after the decision: the accepted ones (each place with its risk
/// reservation), and the refused ones in item order, each with its report and its Rejected
/// ListStatus entry.
#[derive(Debug, Default)]
pub struct ListItems {
    /// Items to send.
    pub accepted: Vec<AcceptedItem>,
    /// Items to answer now.
    pub refused: Vec<RefusedItem>,
}

/// Decides every item of a list of `session_id`: `items` as order entry left them (refused
/// ones keep their answer), then the account (`None`: the account is gone, every item is
/// NotApplied) and risk. Stamps answers `utc_ns`.
pub fn decide_list_items(
    items: Vec<Result<AcceptedItem, Box<RefusedItem>>>,
    account: Option<&impl AccountGate>,
    risk: &RiskBook,
    session_id: u64,
    utc_ns: u64,
) -> ListItems {
    let mut out = ListItems {
        accepted: Vec::with_capacity(items.len()),
        refused: Vec::new(),
    };
    for item in items {
        let mut item = match item {
            Ok(a) => a,
            Err(r) => {
                out.refused.push(*r);
                continue;
            }
        };
        let decided = match account {
            Some(acc) => check_after_entry(&Accepted::from(&item), acc, risk, session_id),
            None => Err(Refusal::not_sent(NotSent::Down)),
        };
        match decided {
            Ok(reserved) => {
                item.reserved = reserved;
                out.accepted.push(item);
            }
            Err(refusal) => out
                .refused
                .push(refusal.list_item(&Accepted::from(&item), utc_ns)),
        }
    }
    out
}

/// After the shell journaled the list's ClOrdIDs: every accepted item of new risk is refused
/// (NotApplied naming the fault, its reservation given back to `risk`) when the session's
/// journal now fails (`fault`), and moves to `refused` (answers are stamped `utc_ns`; the
/// refused keep item order among themselves).
pub fn recheck_after_journal(
    items: &mut ListItems,
    fault: Option<StorageFault>,
    risk: &RiskBook,
    utc_ns: u64,
) {
    if fault.is_none() {
        return;
    }
    let mut kept = Vec::with_capacity(items.accepted.len());
    for item in items.accepted.drain(..) {
        match journal_refusal(&item.kind, fault) {
            None => kept.push(item),
            Some(refusal) => {
                if let Some(r) = item.reserved {
                    risk.release(r);
                }
                items
                    .refused
                    .push(refusal.list_item(&Accepted::from(&item), utc_ns));
            }
        }
    }
    items.accepted = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::batch_entry::{refuse_cancel, ItemExtras};
    use crate::tracker::{ReportMsg, RequestKind};
    use codec::sbe::{Category, CxlRejReason, CxlRejResponseTo, Side, Symbol};

    use super::super::TestGate;

    fn cancel_item(cl_ord_id: u64) -> AcceptedItem {
        AcceptedItem {
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            side: Side::Buy,
            root: 1,
            orig_cl_ord_id: 1,
            kind: RequestKind::Cancel { cl_ord_id },
            extras: ItemExtras::Cancel,
            reserved: None,
        }
    }

    #[test]
    fn entry_refusals_keep_their_answer_and_the_rest_meet_the_account_in_item_order() {
        let risk = RiskBook::new(&[], 1, &crate::risk::RiskSettings::default());
        let entry_refused = refuse_cancel(
            3,
            1,
            CxlRejResponseTo::OrderCancelRequest,
            CxlRejReason::UnknownOrder,
            "unknown order",
            5,
        );
        let items = vec![
            Ok(cancel_item(2)),
            Err(Box::new(entry_refused)),
            Ok(cancel_item(4)),
        ];
        let out = decide_list_items(items, Some(&TestGate { up: false }), &risk, 1, 5);
        assert!(out.accepted.is_empty());
        let answers: Vec<(u64, CxlRejReason)> = out
            .refused
            .iter()
            .map(|r| match r.report {
                ReportMsg::CancelReject(c) => (c.cl_ord_id, c.cxl_rej_reason),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            answers,
            [
                (2, CxlRejReason::NotApplied),
                (3, CxlRejReason::UnknownOrder),
                (4, CxlRejReason::NotApplied)
            ]
        );
        let none: Option<&TestGate> = None;
        let out = decide_list_items(vec![Ok(cancel_item(6))], none, &risk, 1, 5);
        assert_eq!(out.refused.len(), 1);
    }
}
