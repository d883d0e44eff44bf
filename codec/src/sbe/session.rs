//! FIXP session messages (templates 1–12): Negotiate → Establish → Sequence (keepalive) →
//! Terminate, plus retransmission (RetransmitRequest, Retransmission, RetransmitReject) and
//! NotApplied, after the FIX Performance Session Layer (FIXP 1.0/1.1), as SBE 1.0 blocks.
//!
//! Times are `u64` UTC nanoseconds since the Unix epoch; `KeepaliveInterval` is in ms.

use crate::sbe::types::{
    EstablishmentRejectCode, FlowType, NegotiationRejectCode, RetransmitRejectCode,
    TerminationCode, Text,
};

sbe_message! {
    /// Negotiate (template 1, strategy → gateway): opens a session and presents credentials
    /// (FIXP Negotiate).
    pub struct Negotiate (template 1, decoder NegotiateDecoder, fields NEGOTIATE_FIELDS) {
        /// Session id chosen by the strategy, stable across reconnects.
        session_id: u64 = "SessionID" @ 0,
        /// Send time, UTC ns since the Unix epoch.
        timestamp: u64 = "Timestamp" @ 8,
        /// Flow type of the strategy → gateway direction (Idempotent expected).
        client_flow: FlowType = "ClientFlow" @ 16,
        /// Strategy credentials (token), UTF-8, ≤ 64 bytes.
        credentials: Text = "Credentials" @ 17,
        /// Epoch (FIXP session version) the strategy asks for: 0 = whichever is current (a
        /// strategy that does not track epochs; also what a version-0 sender's Negotiate, which
        /// lacks the field, reads as); the current one = resume it; a higher one = end the
        /// current epoch and start that one (rollover); a lower one is refused with
        /// NegotiationReject `StaleSessionVersion`. Schema version 1.
        session_ver_id: u64 = "SessionVerID" @ 81 since 1,
    }
}

sbe_message! {
    /// NegotiationResponse (template 2, gateway → strategy): the session is negotiated
    /// (FIXP NegotiationResponse).
    pub struct NegotiationResponse (template 2, decoder NegotiationResponseDecoder, fields NEGOTIATION_RESPONSE_FIELDS) {
        /// Session id of the Negotiate.
        session_id: u64 = "SessionID" @ 0,
        /// `Timestamp` of the Negotiate answered, UTC ns.
        request_timestamp: u64 = "RequestTimestamp" @ 8,
        /// Flow type of the gateway → strategy direction (Recoverable).
        server_flow: FlowType = "ServerFlow" @ 16,
        /// Epoch (FIXP session version) in force after this Negotiate, 1 and up; 0 when a
        /// version-0 gateway sent the message (the field absent). Schema version 1.
        session_ver_id: u64 = "SessionVerID" @ 17 since 1,
    }
}

sbe_message! {
    /// NegotiationReject (template 3, gateway → strategy): the Negotiate was refused
    /// (FIXP NegotiationReject).
    pub struct NegotiationReject (template 3, decoder NegotiationRejectDecoder, fields NEGOTIATION_REJECT_FIELDS) {
        /// Session id of the Negotiate.
        session_id: u64 = "SessionID" @ 0,
        /// `Timestamp` of the Negotiate answered, UTC ns.
        request_timestamp: u64 = "RequestTimestamp" @ 8,
        /// Why it was refused.
        code: NegotiationRejectCode = "Code" @ 16,
        /// Human-readable reason, UTF-8, ≤ 64 bytes.
        reason: Text = "Reason" @ 17,
    }
}

sbe_message! {
    /// Establish (template 4, strategy → gateway): starts or resumes the negotiated session
    /// (FIXP Establish).
    pub struct Establish (template 4, decoder EstablishDecoder, fields ESTABLISH_FIELDS) {
        /// Session id of the Negotiate.
        session_id: u64 = "SessionID" @ 0,
        /// Send time, UTC ns.
        timestamp: u64 = "Timestamp" @ 8,
        /// Longest silence the strategy allows before a Sequence keepalive, in ms.
        keepalive_interval: u32 = "KeepaliveInterval" @ 16,
        /// Next sequence number the strategy will send.
        next_seq_no: u64 = "NextSeqNo" @ 20,
    }
}

sbe_message! {
    /// EstablishmentAck (template 5, gateway → strategy): the session is established
    /// (FIXP EstablishmentAck).
    pub struct EstablishmentAck (template 5, decoder EstablishmentAckDecoder, fields ESTABLISHMENT_ACK_FIELDS) {
        /// Session id of the Establish.
        session_id: u64 = "SessionID" @ 0,
        /// `Timestamp` of the Establish answered, UTC ns.
        request_timestamp: u64 = "RequestTimestamp" @ 8,
        /// Keepalive interval the gateway will use, in ms.
        keepalive_interval: u32 = "KeepaliveInterval" @ 16,
        /// Next sequence number the gateway will send.
        next_seq_no: u64 = "NextSeqNo" @ 20,
        /// The epoch (FIXP session version) before the one in force, `None` (null 2^64 − 1)
        /// when there was none, or from a sender of schema version below 2 (CME iLink 3
        /// EstablishmentAck `PreviousUUID`). A RetransmitRequest naming it in
        /// `LastSessionVerID` is answered from that epoch's journal while it is kept.
        /// Schema version 2.
        previous_session_ver_id: Option<u64> = "PreviousSessionVerID" @ 28 since 2,
        /// Sequence number of the last application message of the previous epoch (0 when it
        /// had none, or from a sender of schema version below 2; CME iLink 3 EstablishmentAck
        /// `PreviousSeqNo`): a strategy that read fewer of that epoch asks for the rest with
        /// RetransmitRequest `LastSessionVerID` = `PreviousSessionVerID`. Schema version 2.
        previous_seq_no: u64 = "PreviousSeqNo" @ 36 since 2,
    }
}

sbe_message! {
    /// EstablishmentReject (template 6, gateway → strategy): the Establish was refused
    /// (FIXP EstablishmentReject).
    pub struct EstablishmentReject (template 6, decoder EstablishmentRejectDecoder, fields ESTABLISHMENT_REJECT_FIELDS) {
        /// Session id of the Establish.
        session_id: u64 = "SessionID" @ 0,
        /// `Timestamp` of the Establish answered, UTC ns.
        request_timestamp: u64 = "RequestTimestamp" @ 8,
        /// Why it was refused.
        code: EstablishmentRejectCode = "Code" @ 16,
        /// Human-readable reason, UTF-8, ≤ 64 bytes.
        reason: Text = "Reason" @ 17,
    }
}

sbe_message! {
    /// Sequence (template 7, both ways): keepalive and next sequence number of a sequenced
    /// flow (FIXP Sequence).
    pub struct Sequence (template 7, decoder SequenceDecoder, fields SEQUENCE_FIELDS) {
        /// Sequence number of the next application message of the sender.
        next_seq_no: u64 = "NextSeqNo" @ 0,
    }
}

sbe_message! {
    /// Terminate (template 8, both ways): ends the session (FIXP Terminate).
    pub struct Terminate (template 8, decoder TerminateDecoder, fields TERMINATE_FIELDS) {
        /// Session id.
        session_id: u64 = "SessionID" @ 0,
        /// Why the session ends.
        code: TerminationCode = "Code" @ 8,
        /// Human-readable reason, UTF-8, ≤ 64 bytes.
        reason: Text = "Reason" @ 9,
    }
}

sbe_message! {
    /// RetransmitRequest (template 9, strategy → gateway): asks for the gateway's application
    /// messages `FromSeqNo .. FromSeqNo + Count` again (FIXP 1.0 "Retransmission").
    pub struct RetransmitRequest (template 9, decoder RetransmitRequestDecoder, fields RETRANSMIT_REQUEST_FIELDS) {
        /// Session id.
        session_id: u64 = "SessionID" @ 0,
        /// Send time, UTC ns.
        timestamp: u64 = "Timestamp" @ 8,
        /// Sequence number of the first message asked for.
        from_seq_no: u64 = "FromSeqNo" @ 16,
        /// Number of messages asked for.
        count: u32 = "Count" @ 24,
        /// The epoch (FIXP session version) the messages belong to: `None` (null 2^64 − 1, or
        /// absent from a sender of schema version below 2) = the epoch in force; the previous
        /// epoch (EstablishmentAck `PreviousSessionVerID`) = its messages, while its journal
        /// segments are kept (CME iLink 3 RetransmitRequest `LastUUID`). Schema version 2.
        last_session_ver_id: Option<u64> = "LastSessionVerID" @ 28 since 2,
    }
}

sbe_message! {
    /// Retransmission (template 10, gateway → strategy): the next `Count` application messages
    /// are resent originals numbered from `NextSeqNo` (FIXP 1.0 "Retransmission"); a Sequence
    /// announcing the live sequence number follows them.
    pub struct Retransmission (template 10, decoder RetransmissionDecoder, fields RETRANSMISSION_FIELDS) {
        /// Session id.
        session_id: u64 = "SessionID" @ 0,
        /// `Timestamp` of the RetransmitRequest answered, UTC ns.
        request_timestamp: u64 = "RequestTimestamp" @ 8,
        /// Sequence number of the first resent message.
        next_seq_no: u64 = "NextSeqNo" @ 16,
        /// Number of resent messages that follow.
        count: u32 = "Count" @ 24,
        /// The epoch (FIXP session version) the resent messages belong to (the request's
        /// `LastSessionVerID`, or the epoch in force); `None` from a sender of schema version
        /// below 2. Schema version 2.
        session_ver_id: Option<u64> = "SessionVerID" @ 28 since 2,
    }
}

sbe_message! {
    /// RetransmitReject (template 11, gateway → strategy): the RetransmitRequest was refused
    /// (FIXP 1.0 "Retransmission").
    pub struct RetransmitReject (template 11, decoder RetransmitRejectDecoder, fields RETRANSMIT_REJECT_FIELDS) {
        /// Session id.
        session_id: u64 = "SessionID" @ 0,
        /// `Timestamp` of the RetransmitRequest answered, UTC ns.
        request_timestamp: u64 = "RequestTimestamp" @ 8,
        /// Why it was refused.
        code: RetransmitRejectCode = "Code" @ 16,
        /// Human-readable reason, UTF-8, ≤ 64 bytes.
        reason: Text = "Reason" @ 17,
    }
}

sbe_message! {
    /// NotApplied (template 12, gateway → strategy): the strategy's idempotent flow skipped
    /// sequence numbers `FromSeqNo .. FromSeqNo + Count`; those messages were not applied
    /// (FIXP 1.0 "Idempotent flow").
    pub struct NotApplied (template 12, decoder NotAppliedDecoder, fields NOT_APPLIED_FIELDS) {
        /// First sequence number not applied.
        from_seq_no: u64 = "FromSeqNo" @ 0,
        /// Number of sequence numbers not applied.
        count: u32 = "Count" @ 8,
    }
}
