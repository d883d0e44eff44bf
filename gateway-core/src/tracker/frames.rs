//! The SBE frames the tracker thread writes for its reports, shared by the driver and the
//! replay harness (`gateway::replay`) so both encode the same bytes.

use codec::sbe::{BoolFlag, ListStatus};

use super::core::ReportMsg;
use super::lists::ListReport;

/// Appends the frame of one report (ExecutionReport, OrderCancelReject or
/// OrderMassCancelReport).
pub fn encode_report(msg: &ReportMsg, buf: &mut Vec<u8>) {
    match msg {
        ReportMsg::Exec(er) => er.encode_frame(buf),
        ReportMsg::CancelReject(r) => r.encode_frame(buf),
        ReportMsg::MassCancel(r) => r.encode_frame(buf),
    }
}

/// Number of ListStatus frames a list's entries take ([`ListStatus::MAX_ENTRIES_PER_FRAME`]
/// entries each, at least one frame).
pub fn list_status_frame_count(list: &ListReport) -> usize {
    let per_frame = ListStatus::MAX_ENTRIES_PER_FRAME.max(1);
    list.entries.len().div_ceil(per_frame).max(1)
}

/// Appends ListStatus frame `n` of `frames` (LastFragment = Yes on the last one); `utc_ns` is
/// TransactTime.
pub fn encode_list_status(
    list: &ListReport,
    utc_ns: u64,
    n: usize,
    frames: usize,
    buf: &mut Vec<u8>,
) {
    let per_frame = ListStatus::MAX_ENTRIES_PER_FRAME.max(1);
    let part = list
        .entries
        .get(n * per_frame..((n + 1) * per_frame).min(list.entries.len()))
        .unwrap_or(&[]);
    let msg = ListStatus {
        list_id: list.list_id,
        transact_time: utc_ns,
        ref_msg_type: list.ref_msg_type,
        last_fragment: if n + 1 == frames {
            BoolFlag::Yes
        } else {
            BoolFlag::No
        },
    };
    let _ = msg.encode_frame(part.iter().copied(), buf);
}
