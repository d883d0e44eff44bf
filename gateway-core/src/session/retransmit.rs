//! Which RetransmitRequests the recoverable flow answers (FIXP 1.0 "Retransmission"): the rule
//! the shell's writer (`gateway::session::out::SessionOut::retransmit`) applies before it reads
//! the journal, and the simulator's gateway (`dst`) applies the same way.

use codec::sbe::{RetransmitRejectCode, RetransmitRequest};

/// Most messages one RetransmitRequest may ask for.
pub const MAX_RETRANSMIT_COUNT: u32 = 10_000;

/// The range `from .. end` (end exclusive) a RetransmitRequest `req` of session `session_id`
/// asks for when the next application message will be numbered `next_seq`, or why it is
/// refused, with the RetransmitReject's reason text (≤ 64 bytes): another SessionID
/// (InvalidSession), a Count above [`MAX_RETRANSMIT_COUNT`] (RequestLimitExceeded), a Count or
/// FromSeqNo of 0, or a range not wholly among the messages sent (OutOfRange). Whether the
/// messages are still kept is the journal's to say (Unavailable).
pub fn requested_range(
    req: &RetransmitRequest,
    session_id: u64,
    next_seq: u64,
) -> Result<(u64, u64), (RetransmitRejectCode, &'static str)> {
    if req.session_id != session_id {
        return Err((
            RetransmitRejectCode::InvalidSession,
            "SessionID is not this session's",
        ));
    }
    if req.count > MAX_RETRANSMIT_COUNT {
        return Err((
            RetransmitRejectCode::RequestLimitExceeded,
            "Count above the per-request limit (10000)",
        ));
    }
    let end = req.from_seq_no.saturating_add(u64::from(req.count));
    if req.count == 0 || req.from_seq_no == 0 || end > next_seq {
        return Err((
            RetransmitRejectCode::OutOfRange,
            "range not within the messages sent",
        ));
    }
    Ok((req.from_seq_no, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(session_id: u64, from: u64, count: u32) -> RetransmitRequest {
        RetransmitRequest {
            session_id,
            timestamp: 0,
            from_seq_no: from,
            count,
        }
    }

    #[test]
    fn a_range_within_the_messages_sent_is_answered_and_nothing_else() {
        assert_eq!(requested_range(&req(7, 1, 10), 7, 11), Ok((1, 11)));
        assert_eq!(requested_range(&req(7, 10, 1), 7, 11), Ok((10, 11)));
        let code = |r: &RetransmitRequest, next| requested_range(r, 7, next).map_err(|e| e.0);
        assert_eq!(
            code(&req(8, 1, 1), 11),
            Err(RetransmitRejectCode::InvalidSession)
        );
        assert_eq!(
            code(&req(7, 1, MAX_RETRANSMIT_COUNT + 1), u64::MAX),
            Err(RetransmitRejectCode::RequestLimitExceeded)
        );
        for (from, count) in [(0, 1), (1, 0), (10, 2), (11, 1), (u64::MAX, 1)] {
            assert_eq!(
                code(&req(7, from, count), 11),
                Err(RetransmitRejectCode::OutOfRange),
                "{from} {count}"
            );
        }
    }
}
