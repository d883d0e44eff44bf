//! Fuzz harnesses of the gateway's parsers of exchange replies and of the strategy session
//! layer, shared by the cargo-fuzz targets (`fuzz/` at the repository root) and the stable
//! property tests (`gateway/tests/fuzz_stable.rs`). The codec's own harnesses are in
//! [`codec::fuzzing`].
//!
//! Each harness takes arbitrary bytes. Bad input is never a failure: it must be refused with an
//! error or a defined session answer. A harness panics only when the code under test breaks one
//! of its documented properties; that panic is what the fuzzer reports.

use crate::exchange::rest::parse_envelope;
use crate::exchange::rest_history::parse_fill;
use crate::exchange::rest_orders::{parse_open_order, parse_page};
use crate::exchange::ws::parse_control;
use crate::session::fixp::{
    version_asked, Authorizer, FixpSession, SessionAction, SessionLimits, SessionReply,
    SessionState, VersionAsked,
};
use codec::frame::{peek_frame, SOFH_LEN};
use codec::sbe::{
    decode, Establish, FlowType, Message, Negotiate, NegotiationRejectCode, Sequence, Terminate,
    TerminationCode, Text,
};

/// The REST envelope and the order/fill parsers on an arbitrary HTTP status and body.
///
/// Input layout: bytes 0–1 are the HTTP status (big endian, taken modulo 600), the rest is the
/// body. The body goes through [`parse_envelope`]; its `data` (when accepted), and the body
/// itself when it is JSON, go through [`parse_page`] (unfilled-orders / history-orders pages),
/// [`parse_open_order`] (order-info) and [`parse_fill`] on the value and on each `list` item.
///
/// Properties checked: no panic; an accepted envelope came with a 2xx status; every accepted
/// order has a non-empty symbol; every accepted fill has a non-zero execId, orderId and
/// quantity.
///
/// # Panics
/// When one of those properties is broken (a gateway bug).
pub fn rest_envelope(data: &[u8]) {
    let (status, body) = match data {
        [a, b, body @ ..] => (u16::from_be_bytes([*a, *b]) % 600, body),
        _ => return,
    };
    if let Ok(page) = parse_envelope(status, body) {
        assert!(
            (200..300).contains(&status),
            "accepted with status {status}"
        );
        check_page(&page);
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        check_page(&v);
        if let Some(d) = v.get("data") {
            check_page(d);
        }
    }
}

fn check_page(data: &serde_json::Value) {
    if let Ok((orders, _cursor)) = parse_page(data) {
        orders.iter().for_each(check_order);
    }
    if let Ok(o) = parse_open_order(data) {
        check_order(&o);
    }
    check_fill(data);
    if let Some(list) = data.get("list").and_then(serde_json::Value::as_array) {
        list.iter().for_each(check_fill);
    }
}

fn check_order(o: &crate::exchange::rest_orders::OpenOrder) {
    assert!(!o.symbol.as_str().is_empty(), "order without symbol: {o:?}");
}

fn check_fill(v: &serde_json::Value) {
    if let Ok(f) = parse_fill(v) {
        assert!(f.exec_id != 0 && f.order_id != 0, "fill without ids: {f:?}");
        assert!(!f.exec_qty.is_zero(), "fill without quantity: {f:?}");
    }
}

/// The WebSocket control-frame classifier ([`parse_control`]) on arbitrary text (input bytes
/// that are not UTF-8 are converted lossily, as the WebSocket layer never hands them over).
///
/// Properties checked: no panic.
pub fn ws_control(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = parse_control(&text);
}

/// What one [`fixp_session`] run reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixpRun {
    /// The session state after the last event.
    pub state: SessionState,
    /// Application messages passed on to the order path.
    pub applications: u64,
    /// Replies the session sent (including closing ones).
    pub replies: u64,
    /// NotApplied messages the session called for (gaps in the strategy's sequence numbers).
    pub not_applied: u64,
    /// RetransmitRequests passed to the driver.
    pub retransmits: u64,
}

/// Admits session ids 1 and 2 with credentials `"ok"`; id 2 a second time is a duplicate.
struct FuzzAuth {
    admitted_two: bool,
}

impl Authorizer for FuzzAuth {
    fn authorize(
        &mut self,
        session_id: u64,
        credentials: &str,
        session_ver_id: u64,
    ) -> Result<u32, NegotiationRejectCode> {
        // Both sessions are in epoch 1: SessionVerID 0 or 1 resumes, 2.. starts a new one.
        let epoch = match version_asked(1, session_ver_id) {
            VersionAsked::Resume(e) | VersionAsked::Start(e) => e,
            VersionAsked::Refuse(_) => return Err(NegotiationRejectCode::StaleSessionVersion),
        };
        match (session_id, credentials) {
            (2, "ok") if self.admitted_two => Err(NegotiationRejectCode::DuplicateId),
            (2, "ok") => {
                self.admitted_two = true;
                Ok(epoch)
            }
            (1, "ok") => Ok(epoch),
            _ => Err(NegotiationRejectCode::Credentials),
        }
    }
}

/// Reads bytes from the front of the fuzz input; zeros once it is exhausted.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn bytes(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }
}

fn rank(s: SessionState) -> u8 {
    match s {
        SessionState::AwaitNegotiate => 0,
        SessionState::Negotiated => 1,
        SessionState::Established => 2,
        SessionState::Terminated => 3,
    }
}

/// Encodes a session reply as the driver does and checks that it decodes to the same message.
fn check_reply(reply: &SessionReply) {
    let mut out = Vec::new();
    reply.encode_frame(&mut out);
    let template = reply.template_id();
    assert_eq!(
        peek_frame(&out, usize::MAX),
        Ok(Some(out.len())),
        "reply frame"
    );
    let payload = out.get(SOFH_LEN..).unwrap_or(&[]);
    match decode(payload) {
        Ok(m) => assert_eq!(
            m.template_id(),
            template,
            "reply decodes to another template"
        ),
        Err(e) => panic!("session reply {reply:?} does not decode: {e}"),
    }
}

/// The FIXP session state machine ([`FixpSession`]) driven by arbitrary events.
///
/// Input layout: a sequence of events, each one byte `op` then its operands, with the clock
/// advanced by a `u16` number of milliseconds before each event:
/// - `op % 8 == 0`: a raw SBE payload (`u8` length, then the bytes) → [`decode`] →
///   `on_message`, or `on_undecodable_payload` when it does not decode (as the io thread does);
/// - `1`: a Negotiate (session id `u8 % 4`, credentials `"ok"` or not, client flow from a byte);
/// - `2`: an Establish (session id `u8 % 4`, keepalive interval `u32 % 70_000` ms, NextSeqNo
///   `u16`);
/// - `3`: a Sequence (NextSeqNo `u32`); `4`: a Terminate;
/// - `5`: a timer tick (last outbound time = a `u16` ms before now);
/// - `6`: a framing error; `7`: a message of any template built by
///   [`codec::fuzzing::plausible_payload`] from a `u8`-length slice of the input.
///
/// Properties checked: no panic; the state only moves forward (AwaitNegotiate → Negotiated →
/// Established → Terminated); after Terminated every event answers nothing; a close leaves the
/// state Terminated; an application message is only passed on in Established; the session id
/// never changes once negotiated; every reply encodes and decodes to the same template; a
/// RetransmitRequest is only passed on in Established and leaves it so; a NotApplied covers at
/// least one number from 1 on and survives encode → decode.
///
/// Returns what the run reached, for tests of the seeds.
///
/// # Panics
/// When one of those properties is broken (a gateway bug).
pub fn fixp_session(data: &[u8]) -> FixpRun {
    let mut input = Input(data);
    let mut now_ns: u64 = 1_000_000_000;
    let mut s = FixpSession::new(now_ns, SessionLimits::default());
    let mut auth = FuzzAuth {
        admitted_two: false,
    };
    let mut next_out_seq = 1u64;
    let mut negotiated_id = None;
    let mut events = 0;
    let mut run = FixpRun {
        state: s.state(),
        applications: 0,
        replies: 0,
        not_applied: 0,
        retransmits: 0,
    };
    while !input.0.is_empty() && events < 256 {
        events += 1;
        let op = input.u8();
        now_ns = now_ns.saturating_add(u64::from(input.u16()) * 1_000_000);
        let before = s.state();
        let mut msg_buf = Vec::new();
        let action = match op % 8 {
            0 => {
                let n = usize::from(input.u8());
                let payload = input.bytes(n);
                match decode(payload) {
                    Ok(m) => s.on_message(now_ns, m, next_out_seq, &mut auth),
                    Err(e) => s.on_undecodable_payload(now_ns, payload, &e.to_string()),
                }
            }
            5 => {
                let last_out = now_ns.saturating_sub(u64::from(input.u16()) * 1_000_000);
                s.on_timer(now_ns, last_out, next_out_seq)
            }
            6 => s.on_framing_error("fuzz framing error"),
            op => {
                build_message(op, &mut input, now_ns, &mut msg_buf);
                let payload = msg_buf.get(SOFH_LEN..).unwrap_or(&[]);
                match decode(payload) {
                    Ok(m) => s.on_message(now_ns, m, next_out_seq, &mut auth),
                    Err(e) => s.on_undecodable_payload(now_ns, payload, &e.to_string()),
                }
            }
        };
        let after = s.state();
        assert!(s.next_in_seq() >= 1, "next inbound sequence number 0");
        if let Some(na) = s.take_not_applied() {
            assert!(
                na.from_seq_no >= 1 && na.count >= 1,
                "empty NotApplied {na:?}"
            );
            let mut out = Vec::new();
            na.encode_frame(&mut out);
            match out.get(SOFH_LEN..).map(decode) {
                Some(Ok(Message::NotApplied(d))) => assert_eq!(d.to_owned(), na),
                other => panic!("NotApplied {na:?} does not decode: {other:?}"),
            }
            run.not_applied += 1;
        }
        assert!(
            rank(after) >= rank(before),
            "state went back: {before:?} → {after:?}"
        );
        if before == SessionState::Terminated {
            assert!(
                matches!(action, SessionAction::None),
                "answer after Terminated: {action:?}"
            );
        }
        if rank(before) >= 1 && before != SessionState::Terminated {
            assert_eq!(Some(s.session_id()), negotiated_id, "session id changed");
        }
        if after == SessionState::Negotiated && before == SessionState::AwaitNegotiate {
            negotiated_id = Some(s.session_id());
        }
        match &action {
            SessionAction::None => {}
            SessionAction::Send(r) => {
                check_reply(r);
                run.replies += 1;
            }
            SessionAction::SendAndClose(r) => {
                check_reply(r);
                run.replies += 1;
                assert_eq!(after, SessionState::Terminated, "closed but not Terminated");
            }
            SessionAction::Retransmit(r) => {
                assert_eq!(
                    before,
                    SessionState::Established,
                    "retransmit request early"
                );
                assert_eq!(
                    after,
                    SessionState::Established,
                    "retransmit closed the session"
                );
                let mut out = Vec::new();
                r.encode_frame(&mut out);
                match out.get(SOFH_LEN..).map(decode) {
                    Some(Ok(Message::RetransmitRequest(d))) => assert_eq!(d.to_owned(), *r),
                    other => panic!("RetransmitRequest {r:?} does not re-encode: {other:?}"),
                }
                run.retransmits += 1;
            }
            SessionAction::Application(m) => {
                assert_eq!(
                    before,
                    SessionState::Established,
                    "application message early"
                );
                assert!(crate::session::fixp::is_strategy_request(m));
                next_out_seq += 1;
                run.applications += 1;
            }
        }
    }
    run.state = s.state();
    run
}

/// Appends one frame of message `op` (1–4: session messages; 7: any template) built from input
/// bytes.
fn build_message(op: u8, input: &mut Input<'_>, now_ns: u64, out: &mut Vec<u8>) {
    match op {
        1 => {
            let session_id = u64::from(input.u8() % 4);
            let credentials = if input.u8().is_multiple_of(4) {
                "bad"
            } else {
                "ok"
            };
            let client_flow = match input.u8() % 4 {
                0 => FlowType::Recoverable,
                1 => FlowType::Unsequenced,
                _ => FlowType::Idempotent,
            };
            Negotiate {
                session_id,
                timestamp: now_ns,
                client_flow,
                credentials: Text::new(credentials),
                session_ver_id: 0,
            }
            .encode_frame(out)
        }
        2 => Establish {
            session_id: u64::from(input.u8() % 4),
            timestamp: now_ns,
            keepalive_interval: input.u32() % 70_000,
            next_seq_no: u64::from(input.u16()),
        }
        .encode_frame(out),
        3 => Sequence {
            next_seq_no: u64::from(input.u32()),
        }
        .encode_frame(out),
        4 => Terminate {
            session_id: 1,
            code: TerminationCode::Finished,
            reason: Text::new("fuzz"),
        }
        .encode_frame(out),
        _ => {
            // Any template of the schema, mostly valid (see codec::fuzzing::plausible_payload).
            let n = usize::from(input.u8());
            let payload = codec::fuzzing::plausible_payload(input.bytes(n));
            let len = SOFH_LEN + payload.len();
            out.resize(SOFH_LEN, 0);
            codec::frame::write_sofh(out, len);
            out.extend_from_slice(&payload);
        }
    }
}
