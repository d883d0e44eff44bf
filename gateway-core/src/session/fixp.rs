//! The FIXP-style session layer of one strategy connection, without I/O.
//!
//! Implements the subset of FIXP 1.0 (FIX Performance Session Layer) that the strategy link
//! uses: Negotiate → NegotiationResponse, Establish → EstablishmentAck, Sequence as keepalive,
//! Terminate. The server flow is Recoverable (implicitly sequenced) and the client flow
//! Idempotent. The driver feeds decoded messages and timer ticks with the current time in
//! nanoseconds; the state machine answers with [`SessionAction`]s. It never blocks, allocates or
//! reads a clock.
//!
//! Bad input has a defined answer:
//! - a message before the handshake, or a session message in the wrong state → Terminate
//!   (`ProtocolError`) and close;
//! - an application message with an unknown template after establishment → BusinessMessageReject
//!   (`UnsupportedMessageType`), the session stays up;
//! - no inbound message for [`KEEPALIVE_MISSES`] keepalive intervals → Terminate
//!   (`KeepaliveTimeout`) and close.
//!
//! Idempotent client flow (FIXP 1.0 "Idempotent flow"): the strategy's application messages
//! are implicitly numbered from its Establish.NextSeqNo. The expected number survives
//! reconnects (the driver carries it, [`FixpSession::set_next_in_seq`]). An Establish or
//! Sequence whose NextSeqNo is above the expected number means messages were skipped: the
//! gateway answers NotApplied(expected, gap) ([`FixpSession::take_not_applied`]) and continues
//! from the new number. A lower NextSeqNo on Establish restarts the numbering (clients that
//! start at 1 on every connection keep working; ClOrdID uniqueness is the real guard against
//! duplicates). RetransmitRequest is passed to the driver ([`SessionAction::Retransmit`]).
//!
//! A NextSeqNo more than [`MAX_SEQ_GAP`] (`u32::MAX`) above the expected number is not a gap
//! the strategy can have made: no session sends four billion messages, and NotApplied.Count
//! (u32) could not say it in one message (`2^64 - 1` would take 2^32 of them). Such a number is
//! a broken client, so the session ends: Terminate (ProtocolError) on Sequence,
//! EstablishmentReject (Unspecified) on Establish. Nothing is saturated or silently cut.
//!
//! Every BusinessMessageReject names the refused message: RefSeqNum is the implicit inbound
//! sequence number that message used, BusinessRejectRefID its ClOrdID (ListID for the list
//! messages) read raw from the root block ([`reject_ref_id`]) even when another field of the
//! block is invalid, 0 only when the block is too short to hold it.

use codec::sbe::{
    BusinessMessageReject, BusinessRejectReason, EstablishmentAck, EstablishmentReject,
    EstablishmentRejectCode, FlowType, Message, NegotiationReject, NegotiationRejectCode,
    NegotiationResponse, NotApplied, RetransmitRequest, Sequence, Terminate, TerminationCode, Text,
};

/// Inbound silence, in keepalive intervals, after which the session is ended.
pub const KEEPALIVE_MISSES: u64 = 3;

/// Default of [`SessionLimits::handshake_timeout_ms`]: how long a connection may stay without
/// completing Negotiate + Establish, in ms.
pub const DEFAULT_HANDSHAKE_TIMEOUT_MS: u32 = 5_000;

/// Largest skip of inbound sequence numbers the session accepts (one NotApplied's Count);
/// a NextSeqNo further ahead ends the session.
pub const MAX_SEQ_GAP: u64 = u32::MAX as u64;

/// The id a BusinessMessageReject gives for a refused application message: the u64 ClOrdID, or
/// ListID for the list messages, read raw from the root block of `payload` (SBE message header
/// then block, no SOFH). Read at the schema's offset whatever the other fields hold, so a message
/// refused for an invalid Side still names its ClOrdID; 0 when the template has no such field or
/// the block (by its header's blockLength and the bytes present) does not reach it.
pub fn reject_ref_id(payload: &[u8]) -> u64 {
    const HEADER_LEN: usize = codec::sbe::header::HEADER_LEN;
    let (Some(template), Some(&[lo, hi])) = (codec::sbe::template_id(payload), payload.get(..2))
    else {
        return 0;
    };
    let block_len = usize::from(u16::from_le_bytes([lo, hi]));
    let Some(meta) = codec::sbe::MESSAGES
        .iter()
        .find(|m| m.template_id == template)
    else {
        return 0;
    };
    let Some(field) = meta
        .fields
        .iter()
        .find(|f| (f.name == "ClOrdID" || f.name == "ListID") && f.size == 8)
    else {
        return 0;
    };
    if field.offset + 8 > block_len {
        return 0;
    }
    let start = HEADER_LEN + field.offset;
    payload
        .get(start..start + 8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(0, u64::from_le_bytes)
}

/// Limits the gateway applies to every session's handshake (from `[strategy]` in the config).
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// Smallest keepalive interval a strategy may ask for, in ms.
    pub keepalive_min_ms: u32,
    /// Largest keepalive interval a strategy may ask for, in ms.
    pub keepalive_max_ms: u32,
    /// How long a connection may take to complete Negotiate + Establish, in ms; past it the
    /// session is ended (Terminate, "handshake not completed in time").
    pub handshake_timeout_ms: u32,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            keepalive_min_ms: 100,
            keepalive_max_ms: 60_000,
            handshake_timeout_ms: DEFAULT_HANDSHAKE_TIMEOUT_MS,
        }
    }
}

/// Decides whether a Negotiate may open a session (configured id, matching credentials, not
/// already active, the epoch it asks for), and holds the sessions' epochs. Implemented by the
/// engine over the configuration and the sessions' state.
pub trait Authorizer {
    /// Admits session `session_id` presenting `credentials` and SessionVerID `session_ver_id`,
    /// returning the epoch in force (for NegotiationResponse.SessionVerID), or refuses it with
    /// the NegotiationReject code. The epoch follows [`version_asked`]: 0 or the current epoch
    /// resumes it; a higher one ends it and starts that one (session rollover: sequence numbers
    /// from 1 on both flows, a fresh ClOrdID space) before answering; a lower one is refused
    /// (StaleSessionVersion). A refused Negotiate leaves no trace (the session is not marked
    /// active).
    fn authorize(
        &mut self,
        session_id: u64,
        credentials: &str,
        session_ver_id: u64,
    ) -> Result<u32, NegotiationRejectCode>;
}

/// What a Negotiate's SessionVerID asks of a session in epoch `current` (protocol.md, "Epochs
/// and schema versions").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionAsked {
    /// Resume this epoch (SessionVerID 0, or the current one).
    Resume(u32),
    /// End the current epoch and start this one (a higher SessionVerID).
    Start(u32),
    /// Refused: lower than the current epoch (NegotiationReject StaleSessionVersion), or above
    /// the highest epoch (`u32::MAX`).
    Refuse(&'static str),
}

/// The decision about SessionVerID `asked` for a session in epoch `current`.
pub fn version_asked(current: u32, asked: u64) -> VersionAsked {
    match u32::try_from(asked) {
        _ if asked == 0 => VersionAsked::Resume(current),
        Ok(a) if a == current => VersionAsked::Resume(current),
        Ok(a) if a > current => VersionAsked::Start(a),
        Ok(_) => VersionAsked::Refuse("SessionVerID below the session's current epoch"),
        Err(_) => VersionAsked::Refuse("SessionVerID above 4294967295"),
    }
}

/// Where a session stands in the FIXP life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// Connected; waiting for Negotiate.
    AwaitNegotiate,
    /// Negotiated; waiting for Establish.
    Negotiated,
    /// Established: application messages flow.
    Established,
    /// Terminated: the driver closes the connection.
    Terminated,
}

/// A session-layer message the gateway sends (the driver encodes it).
#[derive(Debug, Clone, Copy)]
pub enum SessionReply {
    /// Answer to an accepted Negotiate.
    NegotiationResponse(NegotiationResponse),
    /// Answer to a refused Negotiate (the connection is then closed).
    NegotiationReject(NegotiationReject),
    /// Answer to an accepted Establish.
    EstablishmentAck(EstablishmentAck),
    /// Answer to a refused Establish (the connection is then closed).
    EstablishmentReject(EstablishmentReject),
    /// Keepalive / sequence announcement.
    Sequence(Sequence),
    /// End of session (the connection is then closed).
    Terminate(Terminate),
    /// Refusal of one application message; the session stays up.
    BusinessMessageReject(BusinessMessageReject),
}

impl SessionReply {
    /// Appends the reply as a whole SOFH frame to `buf`.
    pub fn encode_frame(&self, buf: &mut Vec<u8>) {
        match self {
            SessionReply::NegotiationResponse(m) => m.encode_frame(buf),
            SessionReply::NegotiationReject(m) => m.encode_frame(buf),
            SessionReply::EstablishmentAck(m) => m.encode_frame(buf),
            SessionReply::EstablishmentReject(m) => m.encode_frame(buf),
            SessionReply::Sequence(m) => m.encode_frame(buf),
            SessionReply::Terminate(m) => m.encode_frame(buf),
            SessionReply::BusinessMessageReject(m) => m.encode_frame(buf),
        }
    }

    /// The SBE template id of the reply's message.
    pub fn template_id(&self) -> u16 {
        match self {
            SessionReply::NegotiationResponse(_) => NegotiationResponse::TEMPLATE_ID,
            SessionReply::NegotiationReject(_) => NegotiationReject::TEMPLATE_ID,
            SessionReply::EstablishmentAck(_) => EstablishmentAck::TEMPLATE_ID,
            SessionReply::EstablishmentReject(_) => EstablishmentReject::TEMPLATE_ID,
            SessionReply::Sequence(_) => Sequence::TEMPLATE_ID,
            SessionReply::Terminate(_) => Terminate::TEMPLATE_ID,
            SessionReply::BusinessMessageReject(_) => BusinessMessageReject::TEMPLATE_ID,
        }
    }
}

/// What the driver must do after feeding the state machine.
#[derive(Debug)]
pub enum SessionAction<'a> {
    /// Nothing to send.
    None,
    /// Send this reply and keep the connection.
    Send(SessionReply),
    /// Send this reply, then close the connection.
    SendAndClose(SessionReply),
    /// An application message for the order path (only in the Established state).
    Application(Message<'a>),
    /// A RetransmitRequest to answer from the journal (only in the Established state).
    Retransmit(RetransmitRequest),
}

/// One strategy connection's session layer.
#[derive(Debug)]
pub struct FixpSession {
    state: SessionState,
    session_id: u64,
    keepalive_ms: u32,
    connected_at_ns: u64,
    last_inbound_ns: u64,
    limits: SessionLimits,
    /// Implicit sequence number of the strategy's next application message.
    next_in_seq: u64,
    /// NotApplied to send after the current reply (a gap in the strategy's numbering).
    not_applied: Option<NotApplied>,
    /// Implicit sequence number of the last application message received (0 before any).
    last_in_seq: u64,
}

impl FixpSession {
    /// A new connection accepted at `now_ns`.
    pub fn new(now_ns: u64, limits: SessionLimits) -> Self {
        FixpSession {
            state: SessionState::AwaitNegotiate,
            session_id: 0,
            keepalive_ms: 0,
            connected_at_ns: now_ns,
            last_inbound_ns: now_ns,
            limits,
            next_in_seq: 1,
            not_applied: None,
            last_in_seq: 0,
        }
    }

    /// Sets the sequence number expected of the strategy's next application message (the value
    /// the session had when its previous connection ended).
    pub fn set_next_in_seq(&mut self, next: u64) {
        self.next_in_seq = next.max(1);
    }

    /// Sequence number expected of the strategy's next application message.
    pub fn next_in_seq(&self) -> u64 {
        self.next_in_seq
    }

    /// Implicit sequence number of the last application message received on the session (the
    /// RefSeqNum of a BusinessMessageReject for it); 0 before any.
    pub fn last_in_seq(&self) -> u64 {
        self.last_in_seq
    }

    /// The NotApplied the last fed message calls for, if any (send it after the reply).
    pub fn take_not_applied(&mut self) -> Option<NotApplied> {
        self.not_applied.take()
    }

    /// Counts one inbound application message; returns its implicit sequence number.
    fn count_application(&mut self) -> u64 {
        self.last_in_seq = self.next_in_seq;
        self.next_in_seq = self.next_in_seq.saturating_add(1);
        self.last_in_seq
    }

    /// True when `announced` is further ahead of the expected number than one NotApplied can
    /// report ([`MAX_SEQ_GAP`]).
    fn implausible(&self, announced: u64) -> bool {
        announced.saturating_sub(self.next_in_seq) > MAX_SEQ_GAP
    }

    /// Moves the expected inbound number to `announced`; a gap becomes a NotApplied. The caller
    /// has refused gaps above [`MAX_SEQ_GAP`].
    fn on_announced(&mut self, announced: u64, restart_if_lower: bool) {
        let expected = self.next_in_seq;
        if announced > expected {
            let Ok(count) = u32::try_from(announced - expected) else {
                return;
            };
            self.not_applied = Some(NotApplied {
                from_seq_no: expected,
                count,
            });
            self.next_in_seq = announced;
        } else if restart_if_lower {
            self.next_in_seq = announced.max(1);
        }
    }

    /// Current state.
    pub fn state(&self) -> SessionState {
        self.state
    }

    /// The negotiated SessionID (0 before Negotiate).
    pub fn session_id(&self) -> u64 {
        self.session_id
    }

    /// The agreed keepalive interval in ms (0 before Establish).
    pub fn keepalive_ms(&self) -> u32 {
        self.keepalive_ms
    }

    fn terminate(&mut self, code: TerminationCode, reason: &str) -> SessionAction<'static> {
        self.state = SessionState::Terminated;
        SessionAction::SendAndClose(SessionReply::Terminate(Terminate {
            session_id: self.session_id,
            code,
            reason: Text::new(reason),
        }))
    }

    /// Feeds one decoded inbound message received at `now_ns`. `next_out_seq` is the sequence
    /// number the gateway's next application message to this session will carry (reported in
    /// EstablishmentAck).
    pub fn on_message<'a>(
        &mut self,
        now_ns: u64,
        msg: Message<'a>,
        next_out_seq: u64,
        auth: &mut dyn Authorizer,
    ) -> SessionAction<'a> {
        self.last_inbound_ns = now_ns;
        match (self.state, msg) {
            (SessionState::Terminated, _) => SessionAction::None,
            (SessionState::AwaitNegotiate, Message::Negotiate(n)) => {
                let request = n.to_owned();
                self.session_id = request.session_id;
                if request.client_flow != FlowType::Idempotent
                    && request.client_flow != FlowType::Unsequenced
                {
                    self.state = SessionState::Terminated;
                    return SessionAction::SendAndClose(SessionReply::NegotiationReject(
                        NegotiationReject {
                            session_id: request.session_id,
                            request_timestamp: request.timestamp,
                            code: NegotiationRejectCode::FlowTypeNotSupported,
                            reason: Text::new("client flow must be Idempotent or Unsequenced"),
                        },
                    ));
                }
                let admitted = auth.authorize(
                    request.session_id,
                    request.credentials.as_str(),
                    request.session_ver_id,
                );
                match admitted {
                    Ok(epoch) => {
                        self.state = SessionState::Negotiated;
                        SessionAction::Send(SessionReply::NegotiationResponse(
                            NegotiationResponse {
                                session_id: request.session_id,
                                request_timestamp: request.timestamp,
                                server_flow: FlowType::Recoverable,
                                session_ver_id: u64::from(epoch),
                            },
                        ))
                    }
                    Err(code) => {
                        self.state = SessionState::Terminated;
                        let reason = match code {
                            NegotiationRejectCode::Credentials => {
                                "unknown session or bad credentials"
                            }
                            NegotiationRejectCode::DuplicateId => "session already active",
                            NegotiationRejectCode::StaleSessionVersion => {
                                "SessionVerID below the session's epoch (or above 4294967295)"
                            }
                            // Unspecified: the epoch asked for could not start, in practice
                            // because the session's journal is failing
                            // (gateway::engine::epochs::start_epoch).
                            NegotiationRejectCode::Unspecified => {
                                "epoch cannot start now (journal failing): negotiate again"
                            }
                            _ => "negotiation refused",
                        };
                        SessionAction::SendAndClose(SessionReply::NegotiationReject(
                            NegotiationReject {
                                session_id: request.session_id,
                                request_timestamp: request.timestamp,
                                code,
                                reason: Text::new(reason),
                            },
                        ))
                    }
                }
            }
            (SessionState::Negotiated, Message::Establish(e)) => {
                let request = e.to_owned();
                let reject = |code, reason: &str| {
                    SessionAction::SendAndClose(SessionReply::EstablishmentReject(
                        EstablishmentReject {
                            session_id: request.session_id,
                            request_timestamp: request.timestamp,
                            code,
                            reason: Text::new(reason),
                        },
                    ))
                };
                if request.session_id != self.session_id {
                    self.state = SessionState::Terminated;
                    return reject(
                        EstablishmentRejectCode::Unnegotiated,
                        "SessionID differs from Negotiate",
                    );
                }
                if request.keepalive_interval < self.limits.keepalive_min_ms
                    || request.keepalive_interval > self.limits.keepalive_max_ms
                {
                    self.state = SessionState::Terminated;
                    return reject(
                        EstablishmentRejectCode::KeepaliveInterval,
                        "KeepaliveInterval out of range",
                    );
                }
                if self.implausible(request.next_seq_no) {
                    self.state = SessionState::Terminated;
                    return reject(
                        EstablishmentRejectCode::Unspecified,
                        "NextSeqNo more than 2^32-1 ahead of the expected number",
                    );
                }
                self.keepalive_ms = request.keepalive_interval;
                self.state = SessionState::Established;
                self.on_announced(request.next_seq_no, true);
                SessionAction::Send(SessionReply::EstablishmentAck(EstablishmentAck {
                    session_id: self.session_id,
                    request_timestamp: request.timestamp,
                    keepalive_interval: request.keepalive_interval,
                    next_seq_no: next_out_seq,
                    // The writer's to tell, with NextSeqNo, under its lock
                    // (`retransmit::PreviousEpoch::in_ack`).
                    previous_session_ver_id: None,
                    previous_seq_no: 0,
                }))
            }
            (SessionState::Established, Message::Sequence(q)) => {
                if self.implausible(q.next_seq_no()) {
                    return self.terminate(
                        TerminationCode::ProtocolError,
                        "NextSeqNo more than 2^32-1 ahead of the expected number",
                    );
                }
                self.on_announced(q.next_seq_no(), false);
                SessionAction::None
            }
            (SessionState::Established, Message::RetransmitRequest(r)) => {
                SessionAction::Retransmit(r.to_owned())
            }
            (_, Message::Terminate(_)) => {
                self.state = SessionState::Terminated;
                SessionAction::SendAndClose(SessionReply::Terminate(Terminate {
                    session_id: self.session_id,
                    code: TerminationCode::Finished,
                    reason: Text::new("terminated by the strategy"),
                }))
            }
            (SessionState::Established, m) if is_strategy_request(&m) => {
                self.count_application();
                SessionAction::Application(m)
            }
            (SessionState::Established, other) => {
                // Refused, but it was an application message: it used a number.
                let seq = self.count_application();
                SessionAction::Send(SessionReply::BusinessMessageReject(BusinessMessageReject {
                    ref_seq_num: seq,
                    business_reject_ref_id: 0,
                    exchange_code: 0,
                    ref_msg_type: message_template(&other),
                    business_reject_reason: BusinessRejectReason::UnsupportedMessageType,
                    text: Text::new("message not accepted from a strategy"),
                }))
            }
            (SessionState::AwaitNegotiate, _) => {
                self.terminate(TerminationCode::ProtocolError, "message before Negotiate")
            }
            (SessionState::Negotiated, _) => {
                self.terminate(TerminationCode::ProtocolError, "message before Establish")
            }
        }
    }

    /// An inbound frame whose SBE template is unknown or whose block did not decode, given as
    /// its payload (SBE header onwards). Like [`on_undecodable`](Self::on_undecodable), and the
    /// BusinessMessageReject also names the message's ClOrdID / ListID ([`reject_ref_id`]).
    pub fn on_undecodable_payload(
        &mut self,
        now_ns: u64,
        payload: &[u8],
        reason: &str,
    ) -> SessionAction<'static> {
        let template_id = codec::sbe::template_id(payload).unwrap_or(0);
        let mut action = self.on_undecodable(now_ns, template_id, reason);
        if let SessionAction::Send(SessionReply::BusinessMessageReject(r)) = &mut action {
            r.business_reject_ref_id = reject_ref_id(payload);
        }
        action
    }

    /// An inbound frame whose SBE template is unknown or whose block did not decode.
    /// Before establishment this ends the session; afterwards it is answered with
    /// BusinessMessageReject (RefSeqNum = the number the message used, BusinessRejectRefID 0:
    /// use [`on_undecodable_payload`](Self::on_undecodable_payload) to name its ClOrdID) and
    /// the session stays up.
    pub fn on_undecodable(
        &mut self,
        now_ns: u64,
        template_id: u16,
        reason: &str,
    ) -> SessionAction<'static> {
        self.last_inbound_ns = now_ns;
        match self.state {
            SessionState::Established => {
                // Session templates are 1-12; an application message that did not decode
                // still used a number.
                let ref_seq_num = if template_id > NotApplied::TEMPLATE_ID {
                    self.count_application()
                } else {
                    0
                };
                SessionAction::Send(SessionReply::BusinessMessageReject(BusinessMessageReject {
                    ref_seq_num,
                    business_reject_ref_id: 0,
                    exchange_code: 0,
                    ref_msg_type: template_id,
                    business_reject_reason: if template_id_is_known(template_id) {
                        BusinessRejectReason::InvalidField
                    } else {
                        BusinessRejectReason::UnsupportedMessageType
                    },
                    text: Text::new(reason),
                }))
            }
            SessionState::Terminated => SessionAction::None,
            _ => self.terminate(TerminationCode::ProtocolError, reason),
        }
    }

    /// A framing error (oversize frame, wrong encoding type): the byte stream cannot be
    /// resynchronised, so the session ends.
    pub fn on_framing_error(&mut self, reason: &str) -> SessionAction<'static> {
        if self.state == SessionState::Terminated {
            return SessionAction::None;
        }
        self.terminate(TerminationCode::ProtocolError, reason)
    }

    /// Timer tick at `now_ns`; `last_outbound_ns` is when the gateway last wrote to this
    /// session (any message). Returns a Sequence to send when the gateway has been silent for a
    /// keepalive interval, or Terminate when the strategy has been silent for
    /// [`KEEPALIVE_MISSES`] intervals (or never finished the handshake).
    pub fn on_timer(
        &mut self,
        now_ns: u64,
        last_outbound_ns: u64,
        next_out_seq: u64,
    ) -> SessionAction<'static> {
        match self.state {
            SessionState::Terminated => SessionAction::None,
            SessionState::AwaitNegotiate | SessionState::Negotiated => {
                let limit_ns = u64::from(self.limits.handshake_timeout_ms) * 1_000_000;
                if now_ns.saturating_sub(self.connected_at_ns) > limit_ns {
                    self.terminate(
                        TerminationCode::KeepaliveTimeout,
                        "handshake not completed in time",
                    )
                } else {
                    SessionAction::None
                }
            }
            SessionState::Established => {
                let interval_ns = u64::from(self.keepalive_ms) * 1_000_000;
                if now_ns.saturating_sub(self.last_inbound_ns) > interval_ns * KEEPALIVE_MISSES {
                    self.terminate(
                        TerminationCode::KeepaliveTimeout,
                        "keepalive interval missed",
                    )
                } else if now_ns.saturating_sub(last_outbound_ns) >= interval_ns {
                    SessionAction::Send(SessionReply::Sequence(Sequence {
                        next_seq_no: next_out_seq,
                    }))
                } else {
                    SessionAction::None
                }
            }
        }
    }
}

fn template_id_is_known(template_id: u16) -> bool {
    codec::sbe::MESSAGES
        .iter()
        .any(|m| m.template_id == template_id)
}

fn message_template(m: &Message<'_>) -> u16 {
    m.template_id()
}

/// True for the application messages a strategy may send (the gateway's replies and reports
/// are refused when they come from a strategy).
pub fn is_strategy_request(m: &Message<'_>) -> bool {
    matches!(
        m,
        Message::NewOrderSingle(_)
            | Message::OrderCancelRequest(_)
            | Message::OrderCancelReplaceRequest(_)
            | Message::NewOrderList(_)
            | Message::OrderCancelReplaceList(_)
            | Message::OrderCancelList(_)
            | Message::OrderMassCancelRequest(_)
            | Message::OrderMassStatusRequest(_)
            | Message::MovePositions(_)
            | Message::SetLeverage(_)
            | Message::SetHoldMode(_)
            | Message::MaxOpenAvailableRequest(_)
            | Message::AccountSettingsRequest(_)
            | Message::KillSwitchRequest(_)
            | Message::RateBudgetRequest(_)
    )
}

#[cfg(test)]
mod tests;
