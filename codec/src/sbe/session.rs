//! FIXP session messages (templates 1–8): Negotiate → Establish → Sequence (keepalive) →
//! Terminate, after the FIX Performance Session Layer (FIXP 1.1), as SBE 1.0 blocks.
//!
//! Times are `u64` UTC nanoseconds since the Unix epoch; `KeepaliveInterval` is in ms.

use crate::sbe::types::{
    EstablishmentRejectCode, FlowType, NegotiationRejectCode, TerminationCode, Text,
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
