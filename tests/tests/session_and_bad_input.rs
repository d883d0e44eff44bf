//! The session layer and bad input, end to end: every case gets a defined answer, never a
//! crash, and the gateway keeps serving other sessions.

use std::time::Duration;

use codec::frame::SOFH_LEN;
use codec::sbe::{
    BusinessRejectReason, EstablishmentRejectCode, ExecType, FlowType, Negotiate,
    NegotiationRejectCode, OrdRejReason, OrdType, Side, TerminationCode, Text, TimeInForce,
};
use e2e::{btc_order, credentials, Harness, WAIT};
use strategy_client::{ClientError, ClientOptions, Received, StrategyClient};

fn opts(session_id: u64, creds: &str, keepalive_ms: u32) -> ClientOptions {
    ClientOptions {
        session_id,
        credentials: creds.to_string(),
        keepalive_ms,
        auto_keepalive: true,
        timeout: WAIT,
    }
}

fn expect_terminate(c: &mut StrategyClient) -> codec::sbe::Terminate {
    loop {
        match c.recv(WAIT) {
            Ok(Some(Received::Terminate(t))) => return t,
            Ok(Some(Received::Sequence(_))) => continue,
            other => panic!("expected Terminate, got {other:?}"),
        }
    }
}

#[test]
fn wrong_credentials_and_duplicate_sessions_are_rejected() {
    let h = Harness::quiet();
    let addr = h.gateway().strategy_addr();
    match StrategyClient::connect(addr, &opts(1, "nope", 1000)) {
        Err(ClientError::NegotiationRejected(r)) => {
            assert_eq!(r.code, NegotiationRejectCode::Credentials)
        }
        other => panic!("expected NegotiationReject, got {other:?}"),
    }
    match StrategyClient::connect(addr, &opts(99, "secret-99", 1000)) {
        Err(ClientError::NegotiationRejected(r)) => {
            assert_eq!(r.code, NegotiationRejectCode::Credentials)
        }
        other => panic!("expected NegotiationReject, got {other:?}"),
    }
    let _first = h.client(3);
    match StrategyClient::connect(addr, &opts(3, &credentials(3), 1000)) {
        Err(ClientError::NegotiationRejected(r)) => {
            assert_eq!(r.code, NegotiationRejectCode::DuplicateId)
        }
        other => panic!("expected DuplicateId, got {other:?}"),
    }
    match StrategyClient::connect(addr, &opts(4, &credentials(4), 1)) {
        Err(ClientError::EstablishmentRejected(r)) => {
            assert_eq!(r.code, EstablishmentRejectCode::KeepaliveInterval)
        }
        other => panic!("expected EstablishmentReject, got {other:?}"),
    }
}

#[test]
fn missed_keepalives_end_the_session() {
    let h = Harness::quiet();
    let mut o = opts(1, &credentials(1), 100);
    o.auto_keepalive = false;
    let mut c = StrategyClient::connect(h.gateway().strategy_addr(), &o).unwrap();
    let t = expect_terminate(&mut c);
    assert_eq!(t.code, TerminationCode::KeepaliveTimeout);
    // The session id is free again.
    let _again = h.client(1);
}

#[test]
fn application_message_before_the_handshake_terminates() {
    let h = Harness::quiet();
    let mut c = StrategyClient::connect_raw(h.gateway().strategy_addr()).unwrap();
    c.send_new_order(&btc_order(
        1,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    ))
    .unwrap();
    let t = expect_terminate(&mut c);
    assert_eq!(t.code, TerminationCode::ProtocolError);
    assert!(
        t.reason.as_str().contains("Negotiate"),
        "{}",
        t.reason.as_str()
    );
}

#[test]
fn oversize_and_badly_encoded_frames_terminate() {
    let h = Harness::quiet();
    let addr = h.gateway().strategy_addr();
    // Declared length far above the maximum: refused before reading the body.
    let mut c = StrategyClient::connect(addr, &opts(1, &credentials(1), 1000)).unwrap();
    c.send_raw(&[0x00, 0x10, 0x00, 0x00, 0xEB, 0x50]).unwrap();
    assert_eq!(
        expect_terminate(&mut c).code,
        TerminationCode::ProtocolError
    );
    // Wrong encoding type.
    let mut c = StrategyClient::connect(addr, &opts(2, &credentials(2), 1000)).unwrap();
    c.send_raw(&[
        0x00, 0x00, 0x00, 0x10, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ])
    .unwrap();
    assert_eq!(
        expect_terminate(&mut c).code,
        TerminationCode::ProtocolError
    );
}

#[test]
fn unknown_template_and_invalid_fields_get_business_rejects() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    // Unknown template 999 with an empty block.
    let mut frame = vec![0u8; SOFH_LEN + 8];
    codec::frame::write_sofh(&mut frame, SOFH_LEN + 8);
    frame[SOFH_LEN + 2..SOFH_LEN + 4].copy_from_slice(&999u16.to_le_bytes());
    frame[SOFH_LEN + 4..SOFH_LEN + 6].copy_from_slice(&codec::sbe::SCHEMA_ID.to_le_bytes());
    frame[SOFH_LEN + 6..SOFH_LEN + 8].copy_from_slice(&codec::sbe::SCHEMA_VERSION.to_le_bytes());
    s.c.send_raw(&frame).unwrap();
    match s.next_message() {
        Received::BusinessReject(r) => {
            assert_eq!(r.ref_msg_type, 999);
            assert_eq!(
                r.business_reject_reason,
                BusinessRejectReason::UnsupportedMessageType
            );
        }
        other => panic!("expected BusinessMessageReject, got {other:?}"),
    }
    // A NewOrderSingle with an invalid Side value.
    s.c.send_raw(&e2e::order_frame_with_side_byte(5, 77))
        .unwrap();
    match s.next_message() {
        Received::BusinessReject(r) => {
            assert_eq!(r.ref_msg_type, codec::sbe::NewOrderSingle::TEMPLATE_ID);
            assert_eq!(r.business_reject_reason, BusinessRejectReason::InvalidField);
        }
        other => panic!("expected BusinessMessageReject, got {other:?}"),
    }
    // Invalid decimals: a Price exponent outside −18..=18, and a null (absent) OrderQty.
    let field = |name: &str| {
        codec::sbe::NEW_ORDER_SINGLE_FIELDS
            .iter()
            .find(|f| f.name == name)
            .map(|f| SOFH_LEN + 8 + f.offset)
            .unwrap()
    };
    let mut bad_exponent = Vec::new();
    btc_order(
        6,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    )
    .encode_frame(&mut bad_exponent);
    bad_exponent[field("Price") + 8] = 40;
    let mut null_qty = Vec::new();
    btc_order(
        7,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    )
    .encode_frame(&mut null_qty);
    let q = field("OrderQty");
    null_qty[q..q + 8].copy_from_slice(&i64::MIN.to_le_bytes());
    for bytes in [bad_exponent, null_qty] {
        s.c.send_raw(&bytes).unwrap();
        match s.next_message() {
            Received::BusinessReject(r) => {
                assert_eq!(r.ref_msg_type, codec::sbe::NewOrderSingle::TEMPLATE_ID);
                assert_eq!(r.business_reject_reason, BusinessRejectReason::InvalidField);
            }
            other => panic!("expected BusinessMessageReject, got {other:?}"),
        }
    }
    // The session still works.
    s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    assert_eq!(s.exec().exec_type, ExecType::New);
}

#[test]
fn negotiate_with_unsupported_flow_is_rejected() {
    let h = Harness::quiet();
    let mut c = StrategyClient::connect_raw(h.gateway().strategy_addr()).unwrap();
    c.send_frame(|b| {
        Negotiate {
            session_id: 1,
            timestamp: 0,
            client_flow: FlowType::Recoverable,
            credentials: Text::new(&credentials(1)),
            session_ver_id: 0,
        }
        .encode_frame(b)
    })
    .unwrap();
    assert!(
        matches!(c.recv(WAIT), Ok(Some(Received::Other(3)))),
        "NegotiationReject"
    );
}

#[test]
fn wrong_exchange_secret_fails_the_login() {
    let (_rt, sim) = e2e::start_sim(e2e::quiet_sim_config());
    match e2e::start_with_bad_secret(&sim) {
        Err(gateway::engine::GatewayError::Exchange(
            gateway::exchange::error::ExchangeError::LoginRejected { code, .. },
        )) => {
            // A wrong secret is a wrong signature: 30015 (reference §1.4).
            assert_eq!(code, 30015);
        }
        other => panic!("expected LoginRejected, got {other:?}"),
    }
}

#[test]
fn closed_exchange_socket_answers_not_applied() {
    let mut h = Harness::quiet();
    let mut s = h.client(1);
    assert!(h.gateway().exchange_connected());
    h.stop_sim();
    let deadline = std::time::Instant::now() + WAIT;
    while h.gateway().exchange_connected() {
        assert!(
            std::time::Instant::now() < deadline,
            "the gateway never saw the close"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let er = s.exec();
    assert_eq!(er.cl_ord_id, cl);
    assert_eq!(er.exec_type, ExecType::Rejected);
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::NotApplied));
}

/// Issue 23: a refused Negotiate (here a SessionVerID beyond the highest epoch) leaves no
/// trace: the session connects right after, in the epoch in force (0), and again after that
/// connection closed.
#[test]
fn a_refused_negotiate_leaves_no_trace() {
    use strategy_client::Handshake;
    let h = Harness::quiet();
    let addr = h.gateway().strategy_addr();
    let ask = |ver: u64| {
        StrategyClient::connect_with(
            addr,
            &opts(2, &credentials(2), 1000),
            Handshake {
                session_ver_id: ver,
                ..Handshake::default()
            },
        )
    };
    match ask(1 << 32) {
        Err(ClientError::NegotiationRejected(r)) => {
            assert_eq!(r.code, NegotiationRejectCode::StaleSessionVersion)
        }
        other => panic!("expected NegotiationReject, got {other:?}"),
    }
    for _ in 0..2 {
        let c = ask(0).expect("the session is not left active by the refusal");
        assert_eq!(c.session_ver_id(), 0);
        drop(c);
        std::thread::sleep(Duration::from_millis(50));
    }
}
