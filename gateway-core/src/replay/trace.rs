//! One order followed through a recording (`gateway-replay --order <clientOid>`): every
//! recorded tracker input that concerns it (its requests as sent, the exchange frames that name
//! it, the exchange states that show it or should have, link and session events) and every
//! report written for it, in the order the tracker saw them. This is how a lost or repeated
//! report found by the soak is explained (issue 10, cause 8).

use std::fmt::Write as _;

use crate::ids::ClientOid;
use codec::sbe::{decode, Message};

use super::{records_of, Record, RecordedInput, ReplayError};

/// The lines of `file` (a recording) that concern order (`session`, `root`) (clientOid
/// `"<session>:<root>"` as the gateway writes it, see [`ClientOid`]), each prefixed with the
/// time the tracker was given (ms since the first input of the order that carries one; `-`
/// for inputs without one and for reports, which follow their input).
///
/// Errors: a bad header or malformed record ([`ReplayError`]).
pub fn order_trace(file: &[u8], session: u64, root: u64) -> Result<Vec<String>, ReplayError> {
    let quoted = format!("\"{}\"", ClientOid::new(session, root).as_str());
    let mut roots = std::collections::HashSet::from([root]);
    let mut t0 = None;
    let mut out = Vec::new();
    for rec in records_of(file)? {
        match rec {
            Record::Input { utc_ns, input } => {
                if let Some(line) = input_line(&input, session, root, &quoted) {
                    // Inputs the driver gave no wall-clock time (0) show `-`.
                    let t = match utc_ns {
                        0 => "-".to_owned(),
                        t => format!("{}", (t - *t0.get_or_insert(t)) / 1_000_000),
                    };
                    out.push(format!("{t:>9} ms  {line}"));
                }
            }
            Record::Report { session_id, frame } if session_id == session => {
                if let Some(line) = report_line(&frame, &mut roots) {
                    out.push(format!("{:>9}     {line}", "-"));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The line for one input, when it concerns the order.
fn input_line(input: &RecordedInput, session: u64, root: u64, quoted: &str) -> Option<String> {
    let mut s = String::new();
    match input {
        RecordedInput::Sent(r) if r.session_id == session && r.root == root => {
            let _ = write!(s, "sent request {}: {:?}", r.req_id, r.kind);
        }
        RecordedInput::SentBatch(b) if b.session_id == session => {
            let item = b.items.iter().find(|i| i.root == root)?;
            let _ = write!(s, "sent in batch {}: {:?}", b.req_id, item.kind);
        }
        RecordedInput::Frame { text, .. } => {
            let text = String::from_utf8_lossy(text);
            if !text.contains(quoted) {
                return None;
            }
            let _ = write!(s, "exchange frame: {text}");
        }
        RecordedInput::ExchangeState { state, .. } => {
            let oid = &quoted[1..quoted.len() - 1];
            let shown: Vec<String> = state
                .orders
                .iter()
                .filter(|o| o.client_oid == oid)
                .map(|o| format!("{:?} cumQty {} qty {}", o.status, o.cum_qty, o.qty))
                .collect();
            let not_found = state.not_found.iter().any(|o| o == oid);
            let _ = write!(
                s,
                "exchange state ({:?}, {} orders): {}",
                state.source,
                state.orders.len(),
                if not_found {
                    "not found".to_owned()
                } else if shown.is_empty() {
                    "does not show it".to_owned()
                } else {
                    shown.join("; ")
                }
            );
        }
        RecordedInput::LinkDown { account, .. } => {
            let _ = write!(s, "link down (account {account})");
        }
        RecordedInput::LinkUp { account, .. } => {
            let _ = write!(s, "link up (account {account})");
        }
        RecordedInput::SessionOpened { session_id, .. } if *session_id == session => {
            s.push_str("session opened");
        }
        RecordedInput::SessionClosed { session_id } if *session_id == session => {
            s.push_str("session closed");
        }
        RecordedInput::Restore { session_id, .. } if *session_id == session => {
            s.push_str("session restored from its journal");
        }
        _ => return None,
    }
    Some(s)
}

/// The line for one report frame of the order's session, when it concerns the order (`roots`:
/// the ClOrdIDs known to be the order's, grown as its reports name new ones).
fn report_line(frame: &[u8], roots: &mut std::collections::HashSet<u64>) -> Option<String> {
    let payload = frame.get(codec::frame::SOFH_LEN..)?;
    match decode(payload).ok()? {
        Message::ExecutionReport(d) => {
            let er = d.to_owned();
            if !roots.contains(&er.cl_ord_id) && !roots.contains(&er.orig_cl_ord_id) {
                return None;
            }
            roots.insert(er.cl_ord_id);
            Some(format!(
                "report ExecutionReport {:?} {:?} ClOrdID {} CumQty {} {}",
                er.exec_type,
                er.ord_status,
                er.cl_ord_id,
                er.cum_qty,
                er.text.as_str()
            ))
        }
        Message::OrderCancelReject(d) => {
            let c = d.to_owned();
            if !roots.contains(&c.orig_cl_ord_id) && !roots.contains(&c.cl_ord_id) {
                return None;
            }
            Some(format!(
                "report OrderCancelReject {:?} ClOrdID {} code {} {}",
                c.cxl_rej_reason,
                c.cl_ord_id,
                c.exchange_code,
                c.text.as_str()
            ))
        }
        _ => None,
    }
}
