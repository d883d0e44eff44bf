use super::*;
use codec::sbe::{self, Establish, Negotiate, NewOrderSingle};

struct AllowOne(u64);
impl Authorizer for AllowOne {
    fn authorize(&mut self, id: u64, creds: &str, ver: u64) -> Result<u32, NegotiationRejectCode> {
        if id != self.0 || creds != "ok" {
            return Err(NegotiationRejectCode::Credentials);
        }
        // This session is in epoch 2.
        match version_asked(2, ver) {
            VersionAsked::Resume(e) | VersionAsked::Start(e) => Ok(e),
            VersionAsked::Refuse(_) => Err(NegotiationRejectCode::StaleSessionVersion),
        }
    }
}

#[test]
fn session_ver_id_resumes_starts_or_is_refused() {
    assert_eq!(version_asked(3, 0), VersionAsked::Resume(3));
    assert_eq!(version_asked(3, 3), VersionAsked::Resume(3));
    assert_eq!(version_asked(3, 9), VersionAsked::Start(9));
    assert!(matches!(version_asked(3, 2), VersionAsked::Refuse(_)));
    assert!(matches!(version_asked(3, 1 << 32), VersionAsked::Refuse(_)));
    let answer = |ver: u64| {
        let mut s = FixpSession::new(0, SessionLimits::default());
        let f = frame(|b| {
            Negotiate {
                session_id: 5,
                timestamp: 1,
                client_flow: FlowType::Idempotent,
                credentials: Text::new("ok"),
                session_ver_id: ver,
            }
            .encode_frame(b)
        });
        feed(&mut s, 0, &f)
    };
    assert!(answer(0).contains("session_ver_id: 2"), "{}", answer(0));
    assert!(answer(7).contains("session_ver_id: 7"), "{}", answer(7));
    assert!(answer(1).contains("StaleSessionVersion"), "{}", answer(1));
}

fn frame(encode: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut v = Vec::new();
    encode(&mut v);
    v
}

fn feed(s: &mut FixpSession, now: u64, bytes: &[u8]) -> String {
    let msg = sbe::decode(&bytes[codec::frame::SOFH_LEN..]).unwrap();
    format!("{:?}", s.on_message(now, msg, 1, &mut AllowOne(5)))
}

fn negotiate(id: u64, creds: &str) -> Vec<u8> {
    frame(|b| {
        Negotiate {
            session_id: id,
            timestamp: 1,
            client_flow: FlowType::Idempotent,
            credentials: Text::new(creds),
            session_ver_id: 0,
        }
        .encode_frame(b)
    })
}

fn establish(id: u64, keepalive: u32) -> Vec<u8> {
    frame(|b| {
        Establish {
            session_id: id,
            timestamp: 2,
            keepalive_interval: keepalive,
            next_seq_no: 1,
        }
        .encode_frame(b)
    })
}

fn an_order() -> Vec<u8> {
    an_order_with(1)
}

/// A market NewOrderSingle with ClOrdID `cl_ord_id`, framed.
fn an_order_with(cl_ord_id: u64) -> Vec<u8> {
    frame(|b| {
        NewOrderSingle {
            cl_ord_id,
            transact_time: 0,
            price: None,
            order_qty: codec::Decimal::ONE,
            symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap(),
            category: codec::sbe::Category::UsdtFutures,
            side: codec::sbe::Side::Buy,
            ord_type: codec::sbe::OrdType::Market,
            time_in_force: codec::sbe::TimeInForce::Ioc,
            pos_side: codec::sbe::PosSide::None,
            reduce_only: codec::sbe::BoolFlag::No,
            stp_mode: codec::sbe::StpMode::Default,
        }
        .encode_frame(b)
    })
}

fn established(now: u64) -> FixpSession {
    let mut s = FixpSession::new(now, SessionLimits::default());
    assert!(feed(&mut s, now, &negotiate(5, "ok")).contains("NegotiationResponse"));
    assert!(feed(&mut s, now, &establish(5, 1000)).contains("EstablishmentAck"));
    assert_eq!(s.state(), SessionState::Established);
    s
}

fn establish_at(id: u64, next: u64) -> Vec<u8> {
    frame(|b| {
        Establish {
            session_id: id,
            timestamp: 2,
            keepalive_interval: 1000,
            next_seq_no: next,
        }
        .encode_frame(b)
    })
}

#[test]
fn idempotent_flow_counts_messages_and_reports_gaps_as_not_applied() {
    let mut s = established(0);
    assert!(s.take_not_applied().is_none());
    assert_eq!(s.next_in_seq(), 1);
    for _ in 0..3 {
        feed(&mut s, 1, &an_order());
    }
    assert_eq!(s.next_in_seq(), 4);
    // The strategy says its next message is 6: 4 and 5 were never applied.
    let seq = frame(|b| Sequence { next_seq_no: 6 }.encode_frame(b));
    feed(&mut s, 2, &seq);
    let gap = s.take_not_applied().unwrap();
    assert_eq!((gap.from_seq_no, gap.count), (4, 2));
    assert!(s.take_not_applied().is_none());
    assert_eq!(s.next_in_seq(), 6);
    // A lower Sequence is only a keepalive.
    let low = frame(|b| Sequence { next_seq_no: 1 }.encode_frame(b));
    feed(&mut s, 3, &low);
    assert!(s.take_not_applied().is_none());
    assert_eq!(s.next_in_seq(), 6);
}

#[test]
fn a_gap_one_not_applied_cannot_hold_ends_the_session() {
    // The largest gap one NotApplied can report is accepted exactly.
    let mut s = established(0);
    let seq = frame(|b| {
        Sequence {
            next_seq_no: 1 + MAX_SEQ_GAP,
        }
        .encode_frame(b)
    });
    assert_eq!(feed(&mut s, 1, &seq), "None");
    let gap = s.take_not_applied().unwrap();
    assert_eq!((gap.from_seq_no, gap.count), (1, u32::MAX));
    assert_eq!(s.next_in_seq(), 1 + MAX_SEQ_GAP);
    // NextSeqNo 2^64-1: a gap of 2^64-2 is no real skip and would not fit a Count; the
    // session ends instead of reporting a saturated (wrong) Count.
    let mut s = established(0);
    let seq = frame(|b| {
        Sequence {
            next_seq_no: u64::MAX,
        }
        .encode_frame(b)
    });
    let out = feed(&mut s, 1, &seq);
    assert!(
        out.contains("SendAndClose(Terminate") && out.contains("ProtocolError"),
        "{out}"
    );
    assert!(s.take_not_applied().is_none());
    assert_eq!(s.state(), SessionState::Terminated);
    // One past the limit also ends it.
    let mut s = established(0);
    let seq = frame(|b| {
        Sequence {
            next_seq_no: 2 + MAX_SEQ_GAP,
        }
        .encode_frame(b)
    });
    assert!(feed(&mut s, 1, &seq).contains("ProtocolError"));
    // On Establish the same number is refused with EstablishmentReject.
    let mut s = FixpSession::new(0, SessionLimits::default());
    feed(&mut s, 0, &negotiate(5, "ok"));
    let out = feed(&mut s, 0, &establish_at(5, u64::MAX));
    assert!(out.contains("SendAndClose(EstablishmentReject"), "{out}");
    assert!(s.take_not_applied().is_none());
    assert_eq!(s.state(), SessionState::Terminated);
}

#[test]
fn business_reject_names_the_refused_message() {
    let mut s = established(0);
    feed(&mut s, 1, &an_order());
    assert_eq!(s.last_in_seq(), 1);
    // NewOrderSingle ClOrdID 777001 with Side 9: does not decode, but names its ClOrdID.
    let mut bytes = an_order_with(777_001);
    let side = codec::sbe::MESSAGES
        .iter()
        .find(|m| m.template_id == NewOrderSingle::TEMPLATE_ID)
        .and_then(|m| m.fields.iter().find(|f| f.name == "Side"))
        .unwrap()
        .offset;
    bytes[codec::frame::SOFH_LEN + 8 + side] = 9;
    let payload = &bytes[codec::frame::SOFH_LEN..];
    let err = sbe::decode(payload).unwrap_err().to_string();
    let out = format!("{:?}", s.on_undecodable_payload(2, payload, &err));
    assert!(
        out.contains("ref_seq_num: 2")
            && out.contains("business_reject_ref_id: 777001")
            && out.contains("InvalidField"),
        "{out}"
    );
    assert_eq!((s.last_in_seq(), s.next_in_seq()), (2, 3));
    // A list message names its ListID.
    let list = frame(|b| {
        sbe::NewOrderList {
            list_id: 4242,
            transact_time: 0,
        }
        .encode_frame([], b)
        .unwrap();
    });
    assert_eq!(reject_ref_id(&list[codec::frame::SOFH_LEN..]), 4242);
    // A block too short for the field names nothing.
    let short = &payload[..8 + 4];
    let mut short = short.to_vec();
    short[0..2].copy_from_slice(&4u16.to_le_bytes());
    assert_eq!(reject_ref_id(&short), 0);
    assert_eq!(reject_ref_id(&[]), 0);
    // A gateway report sent by the strategy: RefSeqNum is its number.
    let report = frame(|b| {
        sbe::RateBudgetReport {
            request_id: 0,
            transact_time: 0,
        }
        .encode_frame([], b)
        .unwrap();
    });
    assert!(feed(&mut s, 3, &report).contains("ref_seq_num: 3"));
}

#[test]
fn re_establishment_continues_or_restarts_the_numbering() {
    // The previous connection ended expecting 5; the strategy resumes at 8: 5..=7 not applied.
    let mut s = FixpSession::new(0, SessionLimits::default());
    s.set_next_in_seq(5);
    feed(&mut s, 0, &negotiate(5, "ok"));
    assert!(feed(&mut s, 0, &establish_at(5, 8)).contains("EstablishmentAck"));
    let gap = s.take_not_applied().unwrap();
    assert_eq!((gap.from_seq_no, gap.count), (5, 3));
    assert_eq!(s.next_in_seq(), 8);
    // Resuming exactly where it stopped: no gap.
    let mut s = FixpSession::new(0, SessionLimits::default());
    s.set_next_in_seq(5);
    feed(&mut s, 0, &negotiate(5, "ok"));
    feed(&mut s, 0, &establish_at(5, 5));
    assert!(s.take_not_applied().is_none());
    // Starting again at 1 restarts the numbering.
    let mut s = FixpSession::new(0, SessionLimits::default());
    s.set_next_in_seq(5);
    feed(&mut s, 0, &negotiate(5, "ok"));
    feed(&mut s, 0, &establish_at(5, 1));
    assert!(s.take_not_applied().is_none());
    assert_eq!(s.next_in_seq(), 1);
}

#[test]
fn retransmit_request_goes_to_the_driver_once_established() {
    let req = frame(|b| {
        RetransmitRequest {
            session_id: 5,
            timestamp: 9,
            from_seq_no: 1,
            count: 2,
            last_session_ver_id: None,
        }
        .encode_frame(b)
    });
    let mut s = FixpSession::new(0, SessionLimits::default());
    feed(&mut s, 0, &negotiate(5, "ok"));
    assert!(feed(&mut s, 0, &req).contains("ProtocolError"));
    let mut s = established(0);
    assert!(feed(&mut s, 1, &req).starts_with("Retransmit(RetransmitRequest"));
    assert_eq!(s.next_in_seq(), 1);
}

#[test]
fn handshake_then_application_messages_pass() {
    let mut s = established(0);
    let order = an_order();
    assert!(feed(&mut s, 1, &order).starts_with("Application(NewOrderSingle"));
}

#[test]
fn bad_credentials_and_wrong_order_are_refused() {
    let mut s = FixpSession::new(0, SessionLimits::default());
    assert!(feed(&mut s, 0, &negotiate(5, "bad")).contains("SendAndClose(NegotiationReject"));
    assert_eq!(s.state(), SessionState::Terminated);

    let mut s = FixpSession::new(0, SessionLimits::default());
    let order = an_order();
    let out = feed(&mut s, 0, &order);
    assert!(
        out.contains("SendAndClose(Terminate") && out.contains("ProtocolError"),
        "{out}"
    );

    let mut s = FixpSession::new(0, SessionLimits::default());
    feed(&mut s, 0, &negotiate(5, "ok"));
    assert!(feed(&mut s, 0, &establish(6, 1000)).contains("Unnegotiated"));
    let mut s = FixpSession::new(0, SessionLimits::default());
    feed(&mut s, 0, &negotiate(5, "ok"));
    assert!(feed(&mut s, 0, &establish(5, 10)).contains("KeepaliveInterval"));
}

#[test]
fn keepalive_sequence_and_timeout() {
    let ms = 1_000_000u64;
    let mut s = established(0);
    // Gateway silent for one interval: Sequence.
    assert!(format!("{:?}", s.on_timer(1000 * ms, 0, 9))
        .contains("Sequence(Sequence { next_seq_no: 9 })"));
    // Strategy silent for three intervals: Terminate.
    assert!(format!("{:?}", s.on_timer(2999 * ms, 2999 * ms, 9)).contains("None"));
    let out = format!("{:?}", s.on_timer(3001 * ms, 3001 * ms, 9));
    assert!(out.contains("KeepaliveTimeout"), "{out}");
    assert_eq!(s.state(), SessionState::Terminated);
}

#[test]
fn handshake_must_complete_in_time() {
    let limit = u64::from(DEFAULT_HANDSHAKE_TIMEOUT_MS) * 1_000_000;
    let mut s = FixpSession::new(0, SessionLimits::default());
    assert!(matches!(s.on_timer(limit, 0, 1), SessionAction::None));
    assert!(format!("{:?}", s.on_timer(limit + 1, 0, 1)).contains("handshake"));
    // Configured: 200 ms.
    let short = SessionLimits {
        handshake_timeout_ms: 200,
        ..SessionLimits::default()
    };
    let mut s = FixpSession::new(0, short);
    assert!(matches!(s.on_timer(200_000_000, 0, 1), SessionAction::None));
    assert!(format!("{:?}", s.on_timer(200_000_001, 0, 1)).contains("handshake"));
}

#[test]
fn undecodable_messages() {
    let mut s = FixpSession::new(0, SessionLimits::default());
    assert!(format!("{:?}", s.on_undecodable(0, 999, "unknown template")).contains("Terminate"));
    let mut s = established(0);
    let out = format!("{:?}", s.on_undecodable(0, 999, "unknown template"));
    assert!(
        out.contains("UnsupportedMessageType") && out.contains("ref_msg_type: 999"),
        "{out}"
    );
    let out = format!("{:?}", s.on_undecodable(0, 101, "invalid Side"));
    assert!(out.contains("InvalidField"), "{out}");
    // A known issue-4 template that does not decode (e.g. a truncated group).
    let out = format!("{:?}", s.on_undecodable(0, 107, "truncated group Orders"));
    assert!(out.contains("InvalidField"), "{out}");
    assert_eq!(s.state(), SessionState::Established);
}

#[test]
fn strategy_requests_pass_and_gateway_reports_are_refused() {
    let mut s = established(0);
    let batch = frame(|b| {
        sbe::NewOrderList {
            list_id: 1,
            transact_time: 0,
        }
        .encode_frame([], b)
        .unwrap();
    });
    let out = feed(&mut s, 1, &batch);
    assert!(out.starts_with("Application(NewOrderList"), "{out}");
    let mass = frame(|b| {
        sbe::OrderMassCancelRequest {
            cl_ord_id: 2,
            transact_time: 0,
            symbol: sbe::Symbol::EMPTY,
            mass_cancel_request_type: sbe::MassCancelRequestType::Account,
            category: None,
            side: None,
        }
        .encode_frame(b)
    });
    let out = feed(&mut s, 2, &mass);
    assert!(
        out.starts_with("Application(OrderMassCancelRequest"),
        "{out}"
    );
    // A gateway-to-strategy report sent by a strategy is refused, the session goes on.
    let report = frame(|b| {
        sbe::RateBudgetReport {
            request_id: 0,
            transact_time: 0,
        }
        .encode_frame([], b)
        .unwrap();
    });
    let out = feed(&mut s, 3, &report);
    assert!(
        out.contains("UnsupportedMessageType") && out.contains("ref_msg_type: 124"),
        "{out}"
    );
    assert_eq!(s.state(), SessionState::Established);
}
