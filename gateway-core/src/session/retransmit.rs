//! Which RetransmitRequests the recoverable flow answers (FIXP 1.0 "Retransmission"): the rule
//! the shell's writer (`gateway::session::out::SessionOut::retransmit`) applies before it reads
//! the journal ([`answerable`]), and the simulator's gateway (`dst`) applies to the epoch in
//! force ([`requested_range`]).
//!
//! Retransmission across one rollover (schema version 2; CME iLink 3 "Retransmission":
//! RetransmitRequest `LastUUID`, EstablishmentAck `PreviousUUID` / `PreviousSeqNo`): a request
//! whose `LastSessionVerID` names the epoch before the one in force ([`PreviousEpoch`], what
//! EstablishmentAck reports) asks for that epoch's messages `1 ..= last_seq`; a null
//! `LastSessionVerID` (or the epoch in force) the current epoch's. Any other epoch is refused
//! OutOfRange: one rollover back, no further. Whether the previous epoch's messages are still
//! kept is the journal's to say (RetransmitReject Unavailable).

use codec::sbe::{EstablishmentAck, RetransmitRejectCode, RetransmitRequest};
use serde::{Deserialize, Serialize};

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

/// The epoch before the one in force: its number and the sequence number of its last
/// application message (0: it had none). EstablishmentAck `PreviousSessionVerID` /
/// `PreviousSeqNo` (CME iLink 3 `PreviousUUID` / `PreviousSeqNo`); journaled through the
/// checkpoint so that a restart still knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviousEpoch {
    /// The epoch's number (FIXP session version). Usually the current one minus 1; lower after a
    /// strategy-asked rollover that skipped numbers.
    pub epoch: u32,
    /// Sequence number of its last application message (0: none was numbered).
    pub last_seq: u64,
}

impl PreviousEpoch {
    /// `ack` telling `previous` (or no previous epoch: null and 0): EstablishmentAck
    /// `PreviousSessionVerID` and `PreviousSeqNo`.
    pub fn in_ack(previous: Option<PreviousEpoch>, ack: EstablishmentAck) -> EstablishmentAck {
        EstablishmentAck {
            previous_session_ver_id: previous.map(|p| u64::from(p.epoch)),
            previous_seq_no: previous.map_or(0, |p| p.last_seq),
            ..ack
        }
    }
}

/// What a session's outbound flow holds for retransmission: the epoch in force, the number its
/// next application message will carry, and the epoch before it, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// The epoch in force.
    pub epoch: u32,
    /// Sequence number of the epoch's next application message.
    pub next_seq: u64,
    /// The epoch before it (`None`: the session never rolled over, or a restart found no
    /// record of it).
    pub previous: Option<PreviousEpoch>,
}

/// A RetransmitRequest the rule answers: the epoch whose messages `from .. end` (end
/// exclusive) are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    /// The epoch the messages belong to (Retransmission `SessionVerID`).
    pub epoch: u32,
    /// First sequence number asked for.
    pub from: u64,
    /// One past the last sequence number asked for.
    pub end: u64,
    /// True when `epoch` is the previous epoch (read from its journal segments).
    pub previous: bool,
}

/// The epoch and range a RetransmitRequest `req` of session `session_id` asks for, given what
/// the flow holds (`reach`), or why it is refused, with the RetransmitReject's reason text
/// (≤ 64 bytes): [`requested_range`]'s refusals, applied to the epoch named, and OutOfRange
/// for a `LastSessionVerID` that is neither the epoch in force nor the previous one (one
/// rollover back, no further). A null `LastSessionVerID` (a sender of schema version below 2)
/// names the epoch in force.
pub fn answerable(
    req: &RetransmitRequest,
    session_id: u64,
    reach: &Reach,
) -> Result<Asked, (RetransmitRejectCode, &'static str)> {
    let current = u64::from(reach.epoch);
    let (epoch, next, previous) = match (req.last_session_ver_id, reach.previous) {
        (None, _) => (reach.epoch, reach.next_seq, false),
        (Some(e), _) if e == current => (reach.epoch, reach.next_seq, false),
        (Some(e), Some(p)) if e == u64::from(p.epoch) => {
            (p.epoch, p.last_seq.saturating_add(1), true)
        }
        (Some(_), _) => {
            // Another session, or a Count the rule refuses anyway, is told first.
            requested_range(req, session_id, u64::MAX)?;
            return Err((
                RetransmitRejectCode::OutOfRange,
                "LastSessionVerID is neither this epoch nor the previous one",
            ));
        }
    };
    let (from, end) = requested_range(req, session_id, next)?;
    Ok(Asked {
        epoch,
        from,
        end,
        previous,
    })
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
            last_session_ver_id: None,
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

#[cfg(test)]
mod epoch_tests {
    use super::*;

    fn req(epoch: Option<u64>, from: u64, count: u32) -> RetransmitRequest {
        RetransmitRequest {
            session_id: 7,
            timestamp: 0,
            from_seq_no: from,
            count,
            last_session_ver_id: epoch,
        }
    }

    /// Epoch 3 in force with 4 messages sent (next 5); epoch 1 before it (a strategy-asked
    /// rollover skipped 2) ended with message 20.
    const REACH: Reach = Reach {
        epoch: 3,
        next_seq: 5,
        previous: Some(PreviousEpoch {
            epoch: 1,
            last_seq: 20,
        }),
    };

    #[test]
    fn the_epoch_in_force_is_the_default_and_may_be_named() {
        let asked = Ok(Asked {
            epoch: 3,
            from: 2,
            end: 5,
            previous: false,
        });
        assert_eq!(answerable(&req(None, 2, 3), 7, &REACH), asked);
        assert_eq!(answerable(&req(Some(3), 2, 3), 7, &REACH), asked);
        // Its range is its own: message 20 was the previous epoch's.
        assert_eq!(
            answerable(&req(None, 20, 1), 7, &REACH).map_err(|e| e.0),
            Err(RetransmitRejectCode::OutOfRange)
        );
    }

    #[test]
    fn the_previous_epoch_is_answered_up_to_its_last_message() {
        assert_eq!(
            answerable(&req(Some(1), 18, 3), 7, &REACH),
            Ok(Asked {
                epoch: 1,
                from: 18,
                end: 21,
                previous: true,
            })
        );
        let code = |r: &RetransmitRequest, reach: &Reach| answerable(r, 7, reach).map_err(|e| e.0);
        // Past its last message, or from 0.
        assert_eq!(
            code(&req(Some(1), 18, 4), &REACH),
            Err(RetransmitRejectCode::OutOfRange)
        );
        assert_eq!(
            code(&req(Some(1), 0, 1), &REACH),
            Err(RetransmitRejectCode::OutOfRange)
        );
        // An epoch that had no message: nothing to ask for.
        let empty = Reach {
            previous: Some(PreviousEpoch {
                epoch: 2,
                last_seq: 0,
            }),
            ..REACH
        };
        assert_eq!(
            code(&req(Some(2), 1, 1), &empty),
            Err(RetransmitRejectCode::OutOfRange)
        );
        // The per-request limit holds there too.
        assert_eq!(
            code(&req(Some(1), 1, MAX_RETRANSMIT_COUNT + 1), &REACH),
            Err(RetransmitRejectCode::RequestLimitExceeded)
        );
    }

    #[test]
    fn any_other_epoch_is_out_of_range_and_another_session_invalid() {
        let code = |r: &RetransmitRequest, reach: &Reach| answerable(r, 7, reach).map_err(|e| e.0);
        // Two rollovers back, the skipped epoch 2, a later one, the largest value.
        for e in [0, 2, 4, u64::MAX - 1] {
            assert_eq!(
                code(&req(Some(e), 1, 1), &REACH),
                Err(RetransmitRejectCode::OutOfRange),
                "{e}"
            );
        }
        // No previous epoch (never rolled over): only the epoch in force.
        let first = Reach {
            previous: None,
            ..REACH
        };
        assert_eq!(
            code(&req(Some(2), 1, 1), &first),
            Err(RetransmitRejectCode::OutOfRange)
        );
        let mut other = req(Some(1), 1, 1);
        other.session_id = 8;
        assert_eq!(
            code(&other, &REACH),
            Err(RetransmitRejectCode::InvalidSession)
        );
        other.last_session_ver_id = Some(9);
        assert_eq!(
            code(&other, &REACH),
            Err(RetransmitRejectCode::InvalidSession)
        );
    }
}
