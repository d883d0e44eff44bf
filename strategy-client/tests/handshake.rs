//! The client's handshake against a scripted gateway on a loopback socket: the SessionVerID it
//! sends in Negotiate, the epoch it takes from NegotiationResponse (schema version 1, or absent
//! from a version-0 gateway), and a Terminate with SessionRollover.

#![allow(clippy::unwrap_used)] // test code: a panic is a test failure

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::Duration;

use codec::frame::{peek_frame, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::sbe::{
    self, EstablishmentAck, FlowType, Message, NegotiationReject, NegotiationRejectCode,
    NegotiationResponse, Terminate, TerminationCode, Text, HEADER_LEN,
};
use strategy_client::{ClientError, ClientOptions, Handshake, Received, StrategyClient};

fn options() -> ClientOptions {
    ClientOptions {
        session_id: 9,
        credentials: "secret".into(),
        keepalive_ms: 1000,
        auto_keepalive: false,
        timeout: Duration::from_secs(10),
    }
}

/// Reads one whole frame's payload (after the SOFH header).
fn read_payload(s: &mut TcpStream, buf: &mut Vec<u8>) -> Vec<u8> {
    loop {
        if let Some(len) = peek_frame(buf, DEFAULT_MAX_FRAME_LEN).unwrap() {
            let payload = buf[SOFH_LEN..len].to_vec();
            buf.drain(..len);
            return payload;
        }
        let mut chunk = [0u8; 512];
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "client closed");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// What the scripted gateway answers to Negotiate.
#[derive(Clone, Copy)]
enum Answer {
    /// A version-1 NegotiationResponse with this epoch, then EstablishmentAck, then Terminate
    /// (SessionRollover).
    Epoch(u64),
    /// A version-0 NegotiationResponse (17-byte block, header version 0).
    Version0,
    /// NegotiationReject StaleSessionVersion.
    Stale,
}

/// A one-connection gateway: returns its address and a handle yielding the SessionVerID the
/// client's Negotiate carried.
fn gateway(answer: Answer) -> (SocketAddr, JoinHandle<u64>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = Vec::new();
        let payload = read_payload(&mut s, &mut buf);
        let asked = match sbe::decode(&payload).unwrap() {
            Message::Negotiate(n) => {
                assert_eq!(n.session_id(), 9);
                n.session_ver_id()
            }
            other => panic!("expected Negotiate, got {}", other.name()),
        };
        let mut out = Vec::new();
        let response = NegotiationResponse {
            session_id: 9,
            request_timestamp: 1,
            server_flow: FlowType::Recoverable,
            session_ver_id: match answer {
                Answer::Epoch(e) => e,
                _ => 77,
            },
        };
        match answer {
            Answer::Epoch(_) => response.encode_frame(&mut out),
            Answer::Version0 => {
                // What a gateway of schema version 0 wrote: no SessionVerID.
                response.encode_frame(&mut out);
                let block_end = SOFH_LEN + HEADER_LEN + 17;
                out.truncate(block_end);
                codec::frame::write_sofh(&mut out, block_end);
                out[SOFH_LEN..SOFH_LEN + 2].copy_from_slice(&17u16.to_le_bytes());
                out[SOFH_LEN + 6..SOFH_LEN + 8].copy_from_slice(&0u16.to_le_bytes());
            }
            Answer::Stale => {
                NegotiationReject {
                    session_id: 9,
                    request_timestamp: 1,
                    code: NegotiationRejectCode::StaleSessionVersion,
                    reason: Text::new("epoch 3 is current"),
                }
                .encode_frame(&mut out);
                s.write_all(&out).unwrap();
                return asked;
            }
        }
        s.write_all(&out).unwrap();
        let payload = read_payload(&mut s, &mut buf);
        assert!(matches!(sbe::decode(&payload), Ok(Message::Establish(_))));
        out.clear();
        EstablishmentAck {
            session_id: 9,
            request_timestamp: 1,
            keepalive_interval: 1000,
            next_seq_no: 1,
            previous_session_ver_id: None,
            previous_seq_no: 0,
        }
        .encode_frame(&mut out);
        Terminate {
            session_id: 9,
            code: TerminationCode::SessionRollover,
            reason: Text::new("epoch 4 ended"),
        }
        .encode_frame(&mut out);
        s.write_all(&out).unwrap();
        asked
    });
    (addr, handle)
}

#[test]
fn connect_asks_for_the_current_epoch_and_exposes_the_answer() {
    let (addr, gw) = gateway(Answer::Epoch(4));
    let mut c = StrategyClient::connect(addr, &options()).unwrap();
    assert_eq!(c.session_ver_id(), 4);
    assert_eq!(gw.join().unwrap(), 0, "connect sends SessionVerID 0");
    let msg = c.recv(Duration::from_secs(10)).unwrap().unwrap();
    assert!(msg.is_rollover(), "{msg:?}");
    match msg {
        Received::Terminate(t) => assert_eq!(t.code, TerminationCode::SessionRollover),
        other => panic!("{other:?}"),
    }
}

#[test]
fn connect_with_sends_the_epoch_asked_for() {
    let (addr, gw) = gateway(Answer::Epoch(5));
    let c = StrategyClient::connect_with(
        addr,
        &options(),
        Handshake {
            next_seq_no: 1,
            session_ver_id: 5,
            last_read: None,
        },
    )
    .unwrap();
    assert_eq!(c.session_ver_id(), 5);
    assert_eq!(gw.join().unwrap(), 5);
}

#[test]
fn a_version_0_gateway_answers_no_epoch() {
    let (addr, gw) = gateway(Answer::Version0);
    let c = StrategyClient::connect_at(addr, &options(), 1).unwrap();
    assert_eq!(c.session_ver_id(), 0);
    assert_eq!(gw.join().unwrap(), 0);
}

#[test]
fn a_stale_epoch_is_refused() {
    let (addr, gw) = gateway(Answer::Stale);
    let err = StrategyClient::connect_with(
        addr,
        &options(),
        Handshake {
            session_ver_id: 2,
            ..Handshake::default()
        },
    )
    .unwrap_err();
    match err {
        ClientError::NegotiationRejected(r) => {
            assert_eq!(r.code, NegotiationRejectCode::StaleSessionVersion)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(gw.join().unwrap(), 2);
}

/// An ExecutionReport frame naming ClOrdID `cl`.
fn er(cl: u64, out: &mut Vec<u8>) {
    use codec::sbe::{
        Category, ExecType, ExecutionReport, OrdStatus, OrdType, Side, Symbol, TimeInForce,
    };
    ExecutionReport {
        cl_ord_id: cl,
        orig_cl_ord_id: 0,
        order_id: 0,
        exec_id: 0,
        transact_time: 0,
        price: None,
        order_qty: codec::Decimal::ZERO,
        last_qty: None,
        last_px: None,
        cum_qty: codec::Decimal::ZERO,
        leaves_qty: codec::Decimal::ZERO,
        avg_px: None,
        exchange_code: 0,
        symbol: Symbol::EMPTY,
        category: Category::Spot,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        exec_type: ExecType::New,
        ord_status: OrdStatus::New,
        ord_rej_reason: None,
        text: Text::new(""),
    }
    .encode_frame(out);
}

/// After a rollover the client compares EstablishmentAck.PreviousSeqNo with what it had read
/// of that epoch, asks for the rest (RetransmitRequest LastSessionVerID) and hands it over
/// apart, before the new epoch's messages that arrived meanwhile.
#[test]
fn a_client_short_of_the_previous_epoch_asks_for_the_rest() {
    use codec::sbe::{Retransmission, Sequence};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let gw = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = Vec::new();
        let _negotiate = read_payload(&mut s, &mut buf);
        let mut out = Vec::new();
        NegotiationResponse {
            session_id: 9,
            request_timestamp: 1,
            server_flow: FlowType::Recoverable,
            session_ver_id: 4,
        }
        .encode_frame(&mut out);
        s.write_all(&out).unwrap();
        let _establish = read_payload(&mut s, &mut buf);
        out.clear();
        EstablishmentAck {
            session_id: 9,
            request_timestamp: 1,
            keepalive_interval: 1000,
            next_seq_no: 1,
            previous_session_ver_id: Some(3),
            previous_seq_no: 10,
        }
        .encode_frame(&mut out);
        // The new epoch's message 1 comes before the answer.
        er(401, &mut out);
        s.write_all(&out).unwrap();
        let req = match sbe::decode(&read_payload(&mut s, &mut buf)).unwrap() {
            Message::RetransmitRequest(r) => r.to_owned(),
            other => panic!("expected RetransmitRequest, got {}", other.name()),
        };
        out.clear();
        Retransmission {
            session_id: 9,
            request_timestamp: req.timestamp,
            next_seq_no: req.from_seq_no,
            count: req.count,
            session_ver_id: Some(3),
        }
        .encode_frame(&mut out);
        for n in 0..u64::from(req.count) {
            er(300 + req.from_seq_no + n, &mut out);
        }
        Sequence { next_seq_no: 2 }.encode_frame(&mut out);
        s.write_all(&out).unwrap();
        // A second request, read with recv: epoch 3's message 10 again.
        let again = match sbe::decode(&read_payload(&mut s, &mut buf)).unwrap() {
            Message::RetransmitRequest(r) => r.to_owned(),
            other => panic!("expected RetransmitRequest, got {}", other.name()),
        };
        assert_eq!(
            (again.last_session_ver_id, again.from_seq_no),
            (Some(3), 10)
        );
        out.clear();
        Retransmission {
            session_id: 9,
            request_timestamp: again.timestamp,
            next_seq_no: 10,
            count: 1,
            session_ver_id: Some(3),
        }
        .encode_frame(&mut out);
        er(310, &mut out);
        Sequence { next_seq_no: 2 }.encode_frame(&mut out);
        s.write_all(&out).unwrap();
        req
    });
    let mut c = StrategyClient::connect_with(
        addr,
        &options(),
        Handshake {
            last_read: Some(strategy_client::EpochSeq {
                session_ver_id: 3,
                seq: 7,
            }),
            ..Handshake::default()
        },
    )
    .unwrap();
    assert_eq!(
        c.previous_epoch(),
        Some(strategy_client::EpochSeq {
            session_ver_id: 3,
            seq: 10
        })
    );
    let prev = c.take_previous_epoch().unwrap();
    assert_eq!(prev.session_ver_id, 3);
    assert!(prev.rejected.is_none());
    let got: Vec<(u64, u64)> = prev
        .messages
        .iter()
        .map(|(seq, m)| match m {
            Received::Exec(e) => (*seq, e.cl_ord_id),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got, [(8, 308), (9, 309), (10, 310)]);
    assert!(c.take_previous_epoch().is_none());
    // Then the new epoch's message 1, numbered 1, and the live Sequence.
    match c.recv(Duration::from_secs(5)).unwrap().unwrap() {
        Received::Exec(e) => assert_eq!(e.cl_ord_id, 401),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.last_read().seq, 1);
    assert_eq!(c.last_read().session_ver_id, 4);
    assert!(matches!(
        c.recv(Duration::from_secs(5)).unwrap().unwrap(),
        Received::Sequence(_)
    ));
    assert_eq!(c.next_in_seq(), 2);
    // Another epoch's message read with recv leaves the numbering of epoch 4 alone.
    c.send_retransmit_request_in(Some(3), 10, 1).unwrap();
    let mut got = Vec::new();
    while got.len() < 3 {
        got.push(c.recv(Duration::from_secs(5)).unwrap().unwrap());
    }
    assert!(matches!(&got[0], Received::Retransmission(r) if r.session_ver_id == Some(3)));
    assert!(matches!(&got[1], Received::Exec(e) if e.cl_ord_id == 310));
    assert!(matches!(&got[2], Received::Sequence(_)));
    assert_eq!((c.last_seq(), c.next_in_seq()), (1, 2));
    let req = gw.join().unwrap();
    assert_eq!(
        (req.last_session_ver_id, req.from_seq_no, req.count),
        (Some(3), 8, 3)
    );
}
