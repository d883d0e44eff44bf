//! SBE codec behaviour: round trips of every message through SOFH framing, golden bytes,
//! rejections of malformed frames and payloads.

#![allow(clippy::unwrap_used)] // test code: a panic is a test failure

use codec::frame::{peek_frame, FrameError, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::sbe::*;
use codec::Decimal;

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn sym(s: &str) -> Symbol {
    Symbol::new(s).unwrap()
}

fn nos() -> NewOrderSingle {
    NewOrderSingle {
        cl_ord_id: 42,
        transact_time: 0x0123_4567_89AB_CDEF,
        price: Some(dec("117066.1")),
        order_qty: dec("0.0002"),
        symbol: sym("BTCUSDT"),
        category: Category::UsdtFutures,
        side: Side::Sell,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::PostOnly,
        pos_side: PosSide::Short,
        reduce_only: BoolFlag::Yes,
        stp_mode: StpMode::CancelTaker,
    }
}

fn er() -> ExecutionReport {
    ExecutionReport {
        cl_ord_id: u64::MAX,
        orig_cl_ord_id: 7,
        order_id: 1_354_237_910_666_666_666,
        exec_id: 99,
        transact_time: 1_763_798_400_123_456_789,
        price: None,
        order_qty: dec("1.5"),
        last_qty: Some(dec("0.5")),
        last_px: Some(dec("-0.00819462")),
        cum_qty: dec("0.5"),
        leaves_qty: dec("1.0"),
        avg_px: Some(Decimal::new(i64::MAX, -18).unwrap()),
        exchange_code: 45110,
        symbol: sym("0123456789ABCDEF"),
        category: Category::Spot,
        side: Side::Buy,
        ord_type: OrdType::Market,
        time_in_force: TimeInForce::Ioc,
        exec_type: ExecType::PartialFill,
        ord_status: OrdStatus::PartiallyFilled,
        ord_rej_reason: None,
        text: Text::new("less than the minimum amount 5 USDT — ünïcödé"),
    }
}

/// encode_frame → peek_frame → decode; returns the frame.
fn frame_of(encode: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = vec![0xAA]; // something before: encode_frame appends
    encode(&mut out);
    let frame = out.split_off(1);
    assert_eq!(out, [0xAA]);
    let len = peek_frame(&frame, DEFAULT_MAX_FRAME_LEN).unwrap().unwrap();
    assert_eq!(len, frame.len());
    frame
}

macro_rules! round_trip {
    ($value:expr, $Variant:ident) => {{
        let value = $value;
        let frame = frame_of(|out| value.encode_frame(out));
        assert_eq!(frame.len(), $Variant::FRAME_LEN);
        let payload = &frame[SOFH_LEN..];
        assert_eq!(template_id(payload), Some($Variant::TEMPLATE_ID));
        match decode(payload).unwrap() {
            Message::$Variant(d) => assert_eq!(d.to_owned(), value),
            other => panic!("decoded as {}", other.name()),
        }
        // `encode` into a dirty slice writes the same bytes.
        let mut buf = [0x5Au8; 300];
        let n = value.encode(&mut buf);
        assert_eq!(n, $Variant::ENCODED_LEN);
        assert_eq!(&buf[..n], payload);
    }};
}

#[test]
fn every_message_round_trips() {
    round_trip!(
        Negotiate {
            session_id: 1,
            timestamp: 2,
            client_flow: FlowType::Idempotent,
            credentials: Text::new("token-abc"),
            session_ver_id: 3,
        },
        Negotiate
    );
    round_trip!(
        NegotiationResponse {
            session_id: 1,
            request_timestamp: 2,
            server_flow: FlowType::Recoverable,
            session_ver_id: u64::MAX,
        },
        NegotiationResponse
    );
    round_trip!(
        NegotiationReject {
            session_id: 1,
            request_timestamp: 2,
            code: NegotiationRejectCode::DuplicateId,
            reason: Text::new("session 1 is in use"),
        },
        NegotiationReject
    );
    round_trip!(
        Establish {
            session_id: 1,
            timestamp: 3,
            keepalive_interval: 1000,
            next_seq_no: 17,
        },
        Establish
    );
    round_trip!(
        EstablishmentAck {
            session_id: 1,
            request_timestamp: 3,
            keepalive_interval: u32::MAX,
            next_seq_no: u64::MAX,
            previous_session_ver_id: Some(0),
            previous_seq_no: 41,
        },
        EstablishmentAck
    );
    round_trip!(
        EstablishmentReject {
            session_id: 1,
            request_timestamp: 3,
            code: EstablishmentRejectCode::Credentials,
            reason: Text::EMPTY,
        },
        EstablishmentReject
    );
    round_trip!(Sequence { next_seq_no: 5 }, Sequence);
    round_trip!(
        Terminate {
            session_id: 1,
            code: TerminationCode::KeepaliveTimeout,
            reason: Text::new(&"x".repeat(64)),
        },
        Terminate
    );
    round_trip!(
        RetransmitRequest {
            session_id: 1,
            timestamp: 4,
            from_seq_no: 10,
            count: 5,
            last_session_ver_id: Some(u64::MAX - 1),
        },
        RetransmitRequest
    );
    round_trip!(
        Retransmission {
            session_id: 1,
            request_timestamp: 4,
            next_seq_no: 10,
            count: u32::MAX,
            session_ver_id: None,
        },
        Retransmission
    );
    round_trip!(
        RetransmitReject {
            session_id: 1,
            request_timestamp: 4,
            code: RetransmitRejectCode::OutOfRange,
            reason: Text::new("FromSeqNo beyond the last message sent"),
        },
        RetransmitReject
    );
    round_trip!(
        NotApplied {
            from_seq_no: 7,
            count: 3,
        },
        NotApplied
    );
    round_trip!(nos(), NewOrderSingle);
    round_trip!(
        NewOrderSingle {
            price: None,
            ord_type: OrdType::Market,
            ..nos()
        },
        NewOrderSingle
    );
    round_trip!(
        OrderCancelRequest {
            cl_ord_id: 43,
            orig_cl_ord_id: 42,
            transact_time: 9,
            symbol: sym("ETHUSDT"),
            category: Category::CoinFutures,
            side: Side::Buy,
        },
        OrderCancelRequest
    );
    round_trip!(
        OrderCancelReplaceRequest {
            cl_ord_id: 44,
            orig_cl_ord_id: 42,
            transact_time: 10,
            price: Some(dec("117000")),
            order_qty: None,
            symbol: sym("BTCUSDT"),
            category: Category::UsdcFutures,
            side: Side::Sell,
            auto_cancel: BoolFlag::No,
        },
        OrderCancelReplaceRequest
    );
    round_trip!(er(), ExecutionReport);
    round_trip!(
        ExecutionReport {
            exec_type: ExecType::Rejected,
            ord_status: OrdStatus::Rejected,
            ord_rej_reason: Some(OrdRejReason::NotApplied),
            ..er()
        },
        ExecutionReport
    );
    round_trip!(
        OrderCancelReject {
            cl_ord_id: 45,
            orig_cl_ord_id: 42,
            order_id: 0,
            transact_time: 11,
            exchange_code: 25204,
            ord_status: OrdStatus::Filled,
            cxl_rej_response_to: CxlRejResponseTo::OrderCancelReplaceRequest,
            cxl_rej_reason: CxlRejReason::TooLateToCancel,
            text: Text::new("Order does not exist"),
        },
        OrderCancelReject
    );
    round_trip!(
        BusinessMessageReject {
            ref_seq_num: 12,
            business_reject_ref_id: 46,
            exchange_code: 0,
            ref_msg_type: 999,
            business_reject_reason: BusinessRejectReason::UnsupportedMessageType,
            text: Text::new("unknown template 999"),
        },
        BusinessMessageReject
    );
}

#[test]
fn decoder_getters_read_the_fields() {
    let mut out = Vec::new();
    er().encode_frame(&mut out);
    let Ok(Message::ExecutionReport(d)) = decode(&out[SOFH_LEN..]) else {
        panic!("not an ExecutionReport");
    };
    assert_eq!(d.cl_ord_id(), u64::MAX);
    assert_eq!(d.order_id(), 1_354_237_910_666_666_666);
    assert_eq!(d.price(), None);
    assert_eq!(d.last_px().unwrap().to_string(), "-0.00819462");
    assert_eq!(d.exchange_code(), 45110);
    assert_eq!(d.symbol().as_str(), "0123456789ABCDEF");
    assert_eq!(d.exec_type(), ExecType::PartialFill);
    assert_eq!(d.ord_rej_reason(), None);
    assert_eq!(
        d.text().as_str(),
        "less than the minimum amount 5 USDT — ünïcödé"
    );
    assert_eq!(d.block().len(), ExecutionReport::BLOCK_LENGTH as usize);
}

/// NewOrderSingle frame, computed by hand from the schema (all little endian except SOFH).
const NOS_GOLDEN: [u8; 71] = [
    // SOFH: length 71 (BE), encoding 0xEB50 (BE)
    0x00, 0x00, 0x00, 0x47, 0xEB, 0x50,
    // header: blockLength 57, templateId 101, schemaId 1, version 2
    0x39, 0x00, 0x65, 0x00, 0x01, 0x00, 0x02, 0x00, // @0 ClOrdID 42
    0x2A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // @8 TransactTime 0x0123456789ABCDEF
    0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01,
    // @16 Price 117066.1 = 1170661 (0x11DCE5) x 10^-1
    0xE5, 0xDC, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF,
    // @25 OrderQty 0.0002 = 2 x 10^-4
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFC,
    // @34 Symbol "BTCUSDT" NUL-padded to 16
    b'B', b'T', b'C', b'U', b'S', b'D', b'T', 0, 0, 0, 0, 0, 0, 0, 0, 0,
    // @50 Category UsdtFutures, Side Sell, OrdType Limit, TimeInForce PostOnly,
    // PosSide Short, ReduceOnly Yes, StpMode CancelTaker
    3, 2, 2, 8, 2, 1, 2,
];

#[test]
fn golden_new_order_single() {
    let mut out = Vec::new();
    nos().encode_frame(&mut out);
    assert_eq!(out, NOS_GOLDEN);
    match decode(&NOS_GOLDEN[SOFH_LEN..]) {
        Ok(Message::NewOrderSingle(d)) => {
            assert_eq!(d.to_owned(), nos());
            // Same scale, not just the same value.
            assert_eq!(d.price().unwrap().mantissa(), 1_170_661);
            assert_eq!(d.price().unwrap().exponent(), -1);
        }
        other => panic!("{other:?}"),
    }
}

fn nos_payload() -> Vec<u8> {
    NOS_GOLDEN[SOFH_LEN..].to_vec()
}

#[test]
fn rejects_truncated() {
    let p = nos_payload();
    for cut in 0..p.len() {
        match decode(&p[..cut]) {
            Err(DecodeError::Truncated { needed, len }) => {
                assert_eq!(len, cut);
                assert_eq!(
                    needed,
                    if cut < HEADER_LEN {
                        HEADER_LEN
                    } else {
                        p.len()
                    }
                );
            }
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    assert_eq!(template_id(&p[..3]), None);
    assert_eq!(template_id(&p[..4]), Some(101));
}

#[test]
fn frame_errors() {
    // Oversize: checked from the first 4 bytes, before anything else.
    assert_eq!(
        peek_frame(&NOS_GOLDEN[..4], 70),
        Err(FrameError::TooLong { len: 71, max: 70 })
    );
    assert_eq!(peek_frame(&NOS_GOLDEN, 71), Ok(Some(71)));
    let mut bad = NOS_GOLDEN;
    bad[4] = 0x50;
    bad[5] = 0xEB;
    assert_eq!(
        peek_frame(&bad, DEFAULT_MAX_FRAME_LEN),
        Err(FrameError::BadEncodingType(0x50EB))
    );
    let mut short = NOS_GOLDEN;
    short[3] = 13;
    assert_eq!(
        peek_frame(&short, DEFAULT_MAX_FRAME_LEN),
        Err(FrameError::TooShort { len: 13 })
    );
    assert_eq!(
        peek_frame(&NOS_GOLDEN[..70], DEFAULT_MAX_FRAME_LEN),
        Ok(None)
    );
}

#[test]
fn rejects_unknown_template() {
    let mut p = nos_payload();
    p[2..4].copy_from_slice(&999u16.to_le_bytes());
    assert_eq!(decode(&p).unwrap_err(), DecodeError::UnknownTemplate(999));
    assert_eq!(template_id(&p), Some(999));
}

#[test]
fn rejects_wrong_schema() {
    let mut p = nos_payload();
    p[4] = 2;
    p[6] = 3;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::WrongSchema { id: 2, version: 3 }
    );
    // The template id is still readable for the reject.
    assert_eq!(template_id(&p), Some(101));
}

#[test]
fn rejects_invalid_enum() {
    let block = HEADER_LEN;
    for (offset, field, value) in [
        (50, "Category", 0u8),
        (51, "Side", 3),
        (52, "OrdType", 0),
        (53, "TimeInForce", 2),
        (54, "PosSide", 3),
        (55, "ReduceOnly", 2),
        (56, "StpMode", 255),
    ] {
        let mut p = nos_payload();
        p[block + offset] = value;
        assert_eq!(
            decode(&p).unwrap_err(),
            DecodeError::InvalidEnum { field, value },
            "{field}"
        );
    }
    // Char enums: a digit that is not a listed value.
    let mut out = Vec::new();
    er().encode_frame(&mut out);
    let mut p = out[SOFH_LEN..].to_vec();
    p[HEADER_LEN + 127] = b'3';
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidEnum {
            field: "ExecType",
            value: b'3'
        }
    );
    // Optional enum: 255 is null, anything else unlisted is refused.
    p[HEADER_LEN + 127] = b'8';
    p[HEADER_LEN + 129] = 254;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidEnum {
            field: "OrdRejReason",
            value: 254
        }
    );
}

#[test]
fn rejects_short_block_and_accepts_a_longer_one() {
    let mut p = nos_payload();
    p[0] = 56;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::BlockTooShort {
            template_id: 101,
            block_length: 56,
            min: 57
        }
    );
    // A newer version with 3 more bytes in the block (SBE extension): the known prefix is read.
    let mut p = nos_payload();
    p[0] = 60;
    p[6] = 1;
    p.extend_from_slice(&[9, 9, 9]);
    match decode(&p) {
        Ok(Message::NewOrderSingle(d)) => assert_eq!(d.to_owned(), nos()),
        other => panic!("{other:?}"),
    }
    // ... but the announced block must be there.
    p.pop();
    assert!(matches!(
        decode(&p),
        Err(DecodeError::Truncated {
            needed: 68,
            len: 67
        })
    ));
}

fn negotiate() -> Negotiate {
    Negotiate {
        session_id: 7,
        timestamp: 1_763_798_400_000_000_000,
        client_flow: FlowType::Idempotent,
        credentials: Text::new("secret"),
        session_ver_id: 0x0102_0304_0506_0708,
    }
}

/// A Negotiate as a schema-version-0 sender writes it: an 81-byte block (no SessionVerID) and
/// version 0 in the header.
fn negotiate_v0() -> Vec<u8> {
    let mut buf = [0u8; Negotiate::ENCODED_LEN];
    negotiate().encode(&mut buf);
    let mut p = buf[..HEADER_LEN + 81].to_vec();
    p[0..2].copy_from_slice(&81u16.to_le_bytes());
    p[6..8].copy_from_slice(&0u16.to_le_bytes());
    p
}

#[test]
fn versioned_fields_have_their_since_version_and_min_block_length() {
    assert_eq!(SCHEMA_VERSION, 2);
    assert_eq!(Negotiate::BLOCK_LENGTH, 89);
    assert_eq!(Negotiate::MIN_BLOCK_LENGTH, 81);
    assert_eq!(NegotiationResponse::BLOCK_LENGTH, 25);
    assert_eq!(NegotiationResponse::MIN_BLOCK_LENGTH, 17);
    let since = |fields: &[FieldMeta]| -> Vec<(&str, u16)> {
        fields.iter().map(|f| (f.name, f.since_version)).collect()
    };
    assert_eq!(
        since(NEGOTIATE_FIELDS),
        [
            ("SessionID", 0),
            ("Timestamp", 0),
            ("ClientFlow", 0),
            ("Credentials", 0),
            ("SessionVerID", 1)
        ]
    );
    assert_eq!(NEGOTIATION_RESPONSE_FIELDS[3].since_version, 1);
    // Messages without versioned fields: the whole block is required, as before, and their
    // decoder stays one thin pointer (a wider one slowed `decode` of the order messages).
    assert_eq!(
        NewOrderSingle::MIN_BLOCK_LENGTH,
        NewOrderSingle::BLOCK_LENGTH
    );
    let word = std::mem::size_of::<usize>();
    assert_eq!(std::mem::size_of::<NewOrderSingleDecoder>(), word);
    assert_eq!(std::mem::size_of::<ExecutionReportDecoder>(), word);
    assert_eq!(std::mem::size_of::<NegotiateDecoder>(), 3 * word);
    for m in MESSAGES {
        let first_versioned = m.fields.iter().find(|f| f.since_version > 0);
        assert_eq!(
            m.min_block_length as usize,
            first_versioned.map_or(m.block_length as usize, |f| f.offset),
            "{}",
            m.name
        );
    }
}

#[test]
fn the_encoder_writes_the_schema_version_and_the_whole_block() {
    let mut out = Vec::new();
    negotiate().encode_frame(&mut out);
    let p = &out[SOFH_LEN..];
    let header = MessageHeader::read(p).unwrap();
    assert_eq!(
        header,
        MessageHeader {
            block_length: 89,
            template_id: 1,
            schema_id: SCHEMA_ID,
            version: 2
        }
    );
    assert_eq!(p.len(), HEADER_LEN + 89);
    assert_eq!(
        &p[HEADER_LEN + 81..],
        0x0102_0304_0506_0708u64.to_le_bytes()
    );
    match decode(p) {
        Ok(Message::Negotiate(d)) => {
            assert_eq!(d.session_ver_id(), 0x0102_0304_0506_0708);
            assert_eq!(d.block().len(), 89);
            assert_eq!(d.to_owned(), negotiate());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_version_0_negotiate_decodes_with_session_ver_id_0() {
    let p = negotiate_v0();
    match decode(&p) {
        Ok(Message::Negotiate(d)) => {
            assert_eq!(d.session_ver_id(), 0);
            assert_eq!(d.block().len(), 81);
            assert_eq!(
                d.to_owned(),
                Negotiate {
                    session_ver_id: 0,
                    ..negotiate()
                }
            );
        }
        other => panic!("{other:?}"),
    }
    // The same for NegotiationResponse from a version-0 gateway (17-byte block).
    let resp = NegotiationResponse {
        session_id: 7,
        request_timestamp: 9,
        server_flow: FlowType::Recoverable,
        session_ver_id: 4,
    };
    let mut buf = [0u8; NegotiationResponse::ENCODED_LEN];
    resp.encode(&mut buf);
    let mut p = buf[..HEADER_LEN + 17].to_vec();
    p[0] = 17;
    p[6] = 0;
    match decode(&p) {
        Ok(Message::NegotiationResponse(d)) => assert_eq!(
            d.to_owned(),
            NegotiationResponse {
                session_ver_id: 0,
                ..resp
            }
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_versioned_field_is_read_only_when_the_sender_version_has_it() {
    // Version 0 in the header but the whole block: the field is not part of version 0, absent.
    let mut out = Vec::new();
    negotiate().encode_frame(&mut out);
    let mut p = out[SOFH_LEN..].to_vec();
    p[6] = 0;
    match decode(&p) {
        Ok(Message::Negotiate(d)) => {
            assert_eq!(d.session_ver_id(), 0);
            assert_eq!(d.block().len(), 81);
            assert_eq!(d.credentials().as_str(), "secret");
        }
        other => panic!("{other:?}"),
    }
    // Version 1 but a block that stops inside the field (no sender writes that): absent.
    let mut p = out[SOFH_LEN..SOFH_LEN + HEADER_LEN + 85].to_vec();
    p[0] = 85;
    match decode(&p) {
        Ok(Message::Negotiate(d)) => assert_eq!(d.session_ver_id(), 0),
        other => panic!("{other:?}"),
    }
    // A newer sender (version 3, a longer block): the known fields are read, the tail skipped.
    let mut p = out[SOFH_LEN..].to_vec();
    p[0] = 95;
    p[6] = 3;
    p.extend_from_slice(&[0xEE; 6]);
    match decode(&p) {
        Ok(Message::Negotiate(d)) => {
            assert_eq!(d.to_owned(), negotiate());
            assert_eq!(d.block().len(), 89);
        }
        other => panic!("{other:?}"),
    }
}

/// `payload` (header and block) as a sender of schema `version` writes it: the block cut to
/// `block` bytes and both in the header.
fn as_older_sender(payload: &[u8], version: u16, block: u16) -> Vec<u8> {
    let mut p = payload[..HEADER_LEN + usize::from(block)].to_vec();
    p[0..2].copy_from_slice(&block.to_le_bytes());
    p[6..8].copy_from_slice(&version.to_le_bytes());
    p
}

/// Schema version 2 (retransmission across one rollover): the new optional fields read as
/// their null (`None`, the epoch in force / no previous epoch) and PreviousSeqNo as 0 from a
/// version-1 sender, and a version-2 message read by the rule as a version-1 receiver would
/// (the version-1 prefix of its block) keeps every version-1 field.
#[test]
fn version_2_fields_are_absent_from_a_version_1_sender_and_skipped_by_a_version_1_reader() {
    assert_eq!(EstablishmentAck::BLOCK_LENGTH, 44);
    assert_eq!(EstablishmentAck::MIN_BLOCK_LENGTH, 28);
    assert_eq!(RetransmitRequest::BLOCK_LENGTH, 36);
    assert_eq!(RetransmitRequest::MIN_BLOCK_LENGTH, 28);
    assert_eq!(Retransmission::BLOCK_LENGTH, 36);
    assert_eq!(Retransmission::MIN_BLOCK_LENGTH, 28);
    let ack = EstablishmentAck {
        session_id: 7,
        request_timestamp: 9,
        keepalive_interval: 1_000,
        next_seq_no: 3,
        previous_session_ver_id: Some(0),
        previous_seq_no: 12,
    };
    let req = RetransmitRequest {
        session_id: 7,
        timestamp: 9,
        from_seq_no: 10,
        count: 3,
        last_session_ver_id: Some(4),
    };
    let retx = Retransmission {
        session_id: 7,
        request_timestamp: 9,
        next_seq_no: 10,
        count: 3,
        session_ver_id: Some(4),
    };
    let payload = |encode: &dyn Fn(&mut Vec<u8>)| frame_of(encode)[SOFH_LEN..].to_vec();
    let (ack_p, req_p, retx_p) = (
        payload(&|b| ack.encode_frame(b)),
        payload(&|b| req.encode_frame(b)),
        payload(&|b| retx.encode_frame(b)),
    );
    // Epoch 0 is a value, not the null: it survives the wire.
    match decode(&ack_p) {
        Ok(Message::EstablishmentAck(d)) => assert_eq!(d.to_owned(), ack),
        other => panic!("{other:?}"),
    }
    for version in [0, 1] {
        match decode(&as_older_sender(&ack_p, version, 28)) {
            Ok(Message::EstablishmentAck(d)) => assert_eq!(
                d.to_owned(),
                EstablishmentAck {
                    previous_session_ver_id: None,
                    previous_seq_no: 0,
                    ..ack
                }
            ),
            other => panic!("{other:?}"),
        }
        match decode(&as_older_sender(&req_p, version, 28)) {
            Ok(Message::RetransmitRequest(d)) => assert_eq!(
                d.to_owned(),
                RetransmitRequest {
                    last_session_ver_id: None,
                    ..req
                }
            ),
            other => panic!("{other:?}"),
        }
        match decode(&as_older_sender(&retx_p, version, 28)) {
            Ok(Message::Retransmission(d)) => assert_eq!(
                d.to_owned(),
                Retransmission {
                    session_ver_id: None,
                    ..retx
                }
            ),
            other => panic!("{other:?}"),
        }
    }
    // The whole version-2 block under a version-1 header: the fields are not version 1's.
    let mut v1_header = req_p.clone();
    v1_header[6] = 1;
    match decode(&v1_header) {
        Ok(Message::RetransmitRequest(d)) => assert_eq!(d.last_session_ver_id(), None),
        other => panic!("{other:?}"),
    }
    // The null on the wire is 2^64 - 1.
    let none = payload(&|b| {
        RetransmitRequest {
            last_session_ver_id: None,
            ..req
        }
        .encode_frame(b)
    });
    assert_eq!(&none[HEADER_LEN + 28..], u64::MAX.to_le_bytes());
}

#[test]
fn a_block_shorter_than_the_version_0_fields_is_refused() {
    let mut p = negotiate_v0();
    p[0] = 80;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::BlockTooShort {
            template_id: 1,
            block_length: 80,
            min: 81
        }
    );
    // An 81-byte block announced but fewer bytes sent.
    let p = negotiate_v0();
    assert_eq!(
        decode(&p[..p.len() - 1]).unwrap_err(),
        DecodeError::Truncated {
            needed: HEADER_LEN + 81,
            len: HEADER_LEN + 80
        }
    );
    // A version-0 block is still validated: its fields are all present.
    let mut p = negotiate_v0();
    p[HEADER_LEN + 16] = 9;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidEnum {
            field: "ClientFlow",
            value: 9
        }
    );
}

#[test]
fn rejects_invalid_text_and_decimals() {
    let mut p = nos_payload();
    p[HEADER_LEN + 34] = 0xC3; // not ASCII
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidText { field: "Symbol" }
    );
    // Bytes after the first NUL are padding and are not checked.
    let mut p = nos_payload();
    p[HEADER_LEN + 34 + 10] = 0xFF;
    assert!(decode(&p).is_ok());

    let mut out = Vec::new();
    er().encode_frame(&mut out);
    let mut p = out[SOFH_LEN..].to_vec();
    p[HEADER_LEN + 130] = 0xFF; // not UTF-8
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidText { field: "Text" }
    );

    let mut p = nos_payload();
    p[HEADER_LEN + 24] = 19; // Price exponent 19
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidDecimal { field: "Price" }
    );
    let mut p = nos_payload();
    p[HEADER_LEN + 25..HEADER_LEN + 33].copy_from_slice(&i64::MIN.to_le_bytes());
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::MissingValue { field: "OrderQty" }
    );
    // A null optional Price ignores its exponent.
    let mut p = nos_payload();
    p[HEADER_LEN + 16..HEADER_LEN + 24].copy_from_slice(&i64::MIN.to_le_bytes());
    match decode(&p) {
        Ok(Message::NewOrderSingle(d)) => assert_eq!(d.price(), None),
        other => panic!("{other:?}"),
    }
}

#[test]
fn encode_frame_appends_consecutive_frames() {
    let mut out = Vec::new();
    nos().encode_frame(&mut out);
    Sequence { next_seq_no: 1 }.encode_frame(&mut out);
    let first = peek_frame(&out, DEFAULT_MAX_FRAME_LEN).unwrap().unwrap();
    assert_eq!(first, NewOrderSingle::FRAME_LEN);
    let rest = &out[first..];
    let second = peek_frame(rest, DEFAULT_MAX_FRAME_LEN).unwrap().unwrap();
    assert_eq!(second, rest.len());
    assert!(matches!(
        decode(&rest[SOFH_LEN..]),
        Ok(Message::Sequence(d)) if d.next_seq_no() == 1
    ));
}

#[test]
#[should_panic]
fn encode_into_a_short_slice_panics() {
    let mut buf = [0u8; 20];
    nos().encode(&mut buf);
}

// ---------------------------------------------------------------------------------------------
// Issue 4: fixed-block messages 111–124 and the messages with a repeating group.
// ---------------------------------------------------------------------------------------------

#[test]
fn issue4_fixed_messages_round_trip() {
    round_trip!(
        OrderMassCancelRequest {
            cl_ord_id: 9,
            transact_time: 10,
            symbol: sym("ETHUSDT"),
            mass_cancel_request_type: MassCancelRequestType::Side,
            category: Some(Category::UsdtFutures),
            side: Some(Side::Buy),
        },
        OrderMassCancelRequest
    );
    round_trip!(
        OrderMassCancelRequest {
            cl_ord_id: 9,
            transact_time: 10,
            symbol: Symbol::EMPTY,
            mass_cancel_request_type: MassCancelRequestType::Account,
            category: None,
            side: None,
        },
        OrderMassCancelRequest
    );
    round_trip!(
        OrderMassCancelReport {
            cl_ord_id: 9,
            transact_time: 11,
            total_affected_orders: 17,
            exchange_code: 0,
            mass_cancel_request_type: MassCancelRequestType::Session,
            mass_cancel_response: MassCancelResponse::Session,
            mass_cancel_reject_reason: None,
            text: Text::new(""),
        },
        OrderMassCancelReport
    );
    round_trip!(
        OrderMassCancelReport {
            cl_ord_id: 9,
            transact_time: 11,
            total_affected_orders: 0,
            exchange_code: 40034,
            mass_cancel_request_type: MassCancelRequestType::Symbol,
            mass_cancel_response: MassCancelResponse::Rejected,
            mass_cancel_reject_reason: Some(MassCancelRejectReason::ExchangeReject),
            text: Text::new("param error"),
        },
        OrderMassCancelReport
    );
    round_trip!(
        OrderMassStatusRequest {
            mass_status_req_id: 5,
            transact_time: 6,
            symbol: sym("BTCUSDT"),
            mass_status_req_type: MassStatusReqType::Symbol,
            category: Some(Category::Spot),
            refresh_from_exchange: BoolFlag::Yes,
        },
        OrderMassStatusRequest
    );
    round_trip!(
        OrderMassStatusEnd {
            mass_status_req_id: 5,
            transact_time: 7,
            tot_num_reports: 3,
            exchange_code: 0,
            request_status: ItemStatus::Accepted,
            text: Text::new(""),
        },
        OrderMassStatusEnd
    );
    round_trip!(
        SetLeverage {
            request_id: 1,
            transact_time: 2,
            symbol: sym("BTCUSDT"),
            coin: Symbol::EMPTY,
            leverage: dec("12.5"),
            category: Category::UsdtFutures,
            pos_side: PosSide::Long,
        },
        SetLeverage
    );
    round_trip!(
        SetHoldMode {
            request_id: 1,
            transact_time: 2,
            hold_mode: HoldMode::Hedge,
        },
        SetHoldMode
    );
    round_trip!(
        MaxOpenAvailableRequest {
            request_id: 3,
            transact_time: 4,
            price: Some(dec("65000.5")),
            order_qty: None,
            symbol: sym("BTCUSDT"),
            category: Category::UsdcFutures,
            side: Side::Sell,
            ord_type: OrdType::Limit,
        },
        MaxOpenAvailableRequest
    );
    round_trip!(
        AccountSettingsRequest {
            request_id: 3,
            transact_time: 4,
            symbol: Symbol::EMPTY,
            category: None,
        },
        AccountSettingsRequest
    );
    round_trip!(
        AccountRequestReport {
            request_id: 3,
            transact_time: 5,
            exchange_code: 0,
            account_request_type: AccountRequestType::MaxOpenAvailable,
            request_status: ItemStatus::Accepted,
            hold_mode: Some(HoldMode::OneWay),
            leverage: None,
            available: Some(dec("99.97860095")),
            max_buy_open: Some(dec("0.0152")),
            max_sell_open: Some(dec("0.0151")),
            symbol: sym("BTCUSDT"),
            category: Some(Category::UsdtFutures),
            text: Text::new(""),
        },
        AccountRequestReport
    );
    round_trip!(
        PositionReport {
            pos_req_id: 0,
            transact_time: 1_758_186_381_497_000_000,
            symbol: sym("BTCUSDT"),
            category: Category::UsdtFutures,
            pos_side: PosSide::Short,
            hold_mode: Some(HoldMode::Hedge),
            position_size: dec("0.0002"),
            avg_px: Some(dec("117066.1")),
            unrealised_pnl: Some(dec("-0.01122")),
            realised_pnl: Some(dec("0")),
            leverage: Some(dec("10")),
            mark_price: Some(dec("117122.2")),
            liquidation_price: None,
        },
        PositionReport
    );
    round_trip!(
        AccountBalanceReport {
            transact_time: 1,
            coin: sym("USDT"),
            equity: dec("99.97860095"),
            balance: dec("99.97860095"),
            available: dec("99.97860095"),
            locked: dec("0"),
            unrealised_pnl: None,
        },
        AccountBalanceReport
    );
    round_trip!(
        KillSwitchRequest {
            request_id: 31,
            transact_time: 2,
            kill_switch_scope: KillSwitchScope::Account,
            kill_switch_action: KillSwitchAction::Activate,
        },
        KillSwitchRequest
    );
    round_trip!(
        KillSwitchReport {
            request_id: 31,
            transact_time: 3,
            total_affected_orders: 17,
            active: BoolFlag::Yes,
            request_status: ItemStatus::Accepted,
            kill_switch_scope: KillSwitchScope::Gateway,
            kill_switch_action: KillSwitchAction::Release,
            exchange_code: 0,
            text: Text::new("kill switch released"),
        },
        KillSwitchReport
    );
    round_trip!(
        RateBudgetRequest {
            request_id: 5,
            transact_time: 6,
        },
        RateBudgetRequest
    );
    let mut status = er();
    status.exec_type = ExecType::OrderStatus;
    status.ord_status = OrdStatus::New;
    round_trip!(status, ExecutionReport);
}

fn nol_entry(i: u64) -> NewOrderListEntry {
    NewOrderListEntry {
        cl_ord_id: 1000 + i,
        price: if i.is_multiple_of(2) {
            Some(dec("117066.1"))
        } else {
            None
        },
        order_qty: dec("0.0002"),
        symbol: sym("BTCUSDT"),
        category: Category::UsdtFutures,
        side: if i.is_multiple_of(2) {
            Side::Buy
        } else {
            Side::Sell
        },
        ord_type: if i.is_multiple_of(2) {
            OrdType::Limit
        } else {
            OrdType::Market
        },
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::Default,
    }
}

fn list_status_entry(i: u64) -> ListStatusEntry {
    ListStatusEntry {
        cl_ord_id: 1000 + i,
        order_id: if i == 7 { 0 } else { 1_354_237_910_000 + i },
        exchange_code: if i == 7 { 45110 } else { 0 },
        item_status: if i == 7 {
            ItemStatus::Rejected
        } else {
            ItemStatus::Accepted
        },
        ord_rej_reason: if i == 7 {
            Some(OrdRejReason::ExchangeReject)
        } else {
            None
        },
        text: Text::new(if i == 7 {
            "less than the minimum amount 5 USDT"
        } else {
            ""
        }),
    }
}

/// encode_frame(root, entries) → peek_frame → decode; checks root and entries; returns the
/// frame.
macro_rules! group_round_trip {
    ($root:expr, $Variant:ident, $group:ident, $entries:expr) => {{
        let root = $root;
        let entries: Vec<_> = $entries;
        let frame = frame_of(|out| {
            root.encode_frame(entries.iter().copied(), out).unwrap();
        });
        let entry_len = $Variant::GROUPS[0].block_length as usize;
        assert_eq!(
            frame.len(),
            SOFH_LEN + HEADER_LEN + $Variant::BLOCK_LENGTH as usize + 4 + entries.len() * entry_len
        );
        let payload = &frame[SOFH_LEN..];
        match decode(payload).unwrap() {
            Message::$Variant(d) => {
                assert_eq!(d.to_owned(), root);
                let g = d.$group();
                assert_eq!(g.len(), entries.len());
                assert_eq!(g.is_empty(), entries.is_empty());
                assert_eq!(g.iter().len(), entries.len());
                let got: Vec<_> = g.iter().map(|e| e.to_owned()).collect();
                assert_eq!(got, entries);
                assert_eq!(g.to_vec(), entries);
                assert!(g.get(entries.len()).is_none());
            }
            other => panic!("decoded as {}", other.name()),
        }
        frame
    }};
}

#[test]
fn group_messages_round_trip() {
    let root = NewOrderList {
        list_id: 77,
        transact_time: 1,
    };
    for n in [0u64, 1, 3, 20, 45] {
        group_round_trip!(root, NewOrderList, orders, (0..n).map(nol_entry).collect());
    }
    group_round_trip!(
        OrderCancelReplaceList {
            list_id: 78,
            transact_time: 2
        },
        OrderCancelReplaceList,
        orders,
        (0..25u64)
            .map(|i| OrderCancelReplaceListEntry {
                cl_ord_id: 2000 + i,
                orig_cl_ord_id: 1000 + i,
                price: Some(dec("117000")),
                order_qty: if i == 3 { None } else { Some(dec("0.001")) },
                symbol: sym("BTCUSDT"),
                category: Category::UsdtFutures,
                side: Side::Buy,
                auto_cancel: BoolFlag::Yes,
            })
            .collect()
    );
    group_round_trip!(
        OrderCancelList {
            list_id: 79,
            transact_time: 3
        },
        OrderCancelList,
        orders,
        (0..45u64)
            .map(|i| OrderCancelListEntry {
                cl_ord_id: 3000 + i,
                orig_cl_ord_id: 1000 + i,
                symbol: sym("ETHUSDT"),
                category: Category::Spot,
                side: Side::Sell,
            })
            .collect()
    );
    group_round_trip!(
        ListStatus {
            list_id: 77,
            transact_time: 4,
            ref_msg_type: NewOrderList::TEMPLATE_ID,
            last_fragment: BoolFlag::Yes,
        },
        ListStatus,
        orders,
        (0..45u64).map(list_status_entry).collect()
    );
    group_round_trip!(
        MovePositions {
            move_positions_id: 5,
            transact_time: 6,
            from_uid: 1_111_111_111,
            to_uid: 2_222_222_222,
            category: Category::UsdtFutures,
        },
        MovePositions,
        positions,
        (0..10u64)
            .map(|i| MovePositionsEntry {
                symbol: sym(if i.is_multiple_of(2) {
                    "BTCUSDT"
                } else {
                    "ETHUSDT"
                }),
                side: Side::Buy,
                quantity: Decimal::new(i as i64 + 1, -3).unwrap(),
            })
            .collect()
    );
    group_round_trip!(
        MovePositionsReport {
            move_positions_id: 5,
            transact_time: 7,
            exchange_code: 0,
            request_status: ItemStatus::Accepted,
            move_reject_reason: None,
            text: Text::new(""),
        },
        MovePositionsReport,
        results,
        vec![
            MovePositionsReportEntry {
                symbol: sym("BTCUSDT"),
                side: Side::Buy,
                close_order_id: 11,
                close_exchange_code: 0,
                open_order_id: 12,
                open_exchange_code: 0,
                item_status: ItemStatus::Accepted,
                text: Text::new(""),
            },
            MovePositionsReportEntry {
                symbol: sym("ETHUSDT"),
                side: Side::Sell,
                close_order_id: 13,
                close_exchange_code: 0,
                open_order_id: 0,
                open_exchange_code: 25100,
                item_status: ItemStatus::Rejected,
                text: Text::new("open failed"),
            },
        ]
    );
    // A refusal before sending: no per-position results, the rule named.
    group_round_trip!(
        MovePositionsReport {
            move_positions_id: 6,
            transact_time: 8,
            exchange_code: 0,
            request_status: ItemStatus::Rejected,
            move_reject_reason: Some(MovePositionsRejectReason::NearFundingTime),
            text: Text::new("within 5 minutes of a funding hour"),
        },
        MovePositionsReport,
        results,
        Vec::new()
    );
    group_round_trip!(
        RateBudgetReport {
            request_id: 4,
            transact_time: 9,
        },
        RateBudgetReport,
        buckets,
        vec![
            RateBudgetEntry {
                bucket_name: sym("place-order"),
                endpoint_id: 1,
                limit: 10,
                remaining: 3,
                reset_time: 1_000_000_000,
            },
            RateBudgetEntry {
                bucket_name: sym("ws-connection"),
                endpoint_id: u16::MAX,
                limit: u32::MAX,
                remaining: 0,
                reset_time: u64::MAX,
            },
        ]
    );
}

/// NewOrderList, ListID 77, TransactTime 1, two orders (nol_entry(0), nol_entry(1)).
#[rustfmt::skip]
const NOL_GOLDEN: [u8; 6 + 8 + 16 + 4 + 2 * 49] = [
    // SOFH: length 132 BE, encoding 0xEB50
    0x00, 0x00, 0x00, 0x84, 0xEB, 0x50,
    // header: blockLength 16, templateId 107, schemaId 1, version 2
    16, 0, 107, 0, 1, 0, 2, 0,
    // @0 ListID 77, @8 TransactTime 1
    77, 0, 0, 0, 0, 0, 0, 0,
    1, 0, 0, 0, 0, 0, 0, 0,
    // group dimension: blockLength 49, numInGroup 2
    49, 0, 2, 0,
    // entry 0: ClOrdID 1000
    0xE8, 0x03, 0, 0, 0, 0, 0, 0,
    // Price 117066.1 = 1170661 e-1
    0xE5, 0xDC, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF,
    // OrderQty 0.0002 = 2 e-4
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFC,
    // Symbol "BTCUSDT"
    b'B', b'T', b'C', b'U', b'S', b'D', b'T', 0, 0, 0, 0, 0, 0, 0, 0, 0,
    // Category UsdtFutures, Side Buy, OrdType Limit, Gtc, PosSide None, ReduceOnly No, StpMode Default
    3, 1, 2, 1, 0, 0, 0,
    // entry 1: ClOrdID 1001
    0xE9, 0x03, 0, 0, 0, 0, 0, 0,
    // Price null: mantissa i64::MIN, exponent 0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00,
    // OrderQty 0.0002
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFC,
    b'B', b'T', b'C', b'U', b'S', b'D', b'T', 0, 0, 0, 0, 0, 0, 0, 0, 0,
    // Category UsdtFutures, Side Sell, OrdType Market, Gtc, PosSide None, ReduceOnly No, StpMode Default
    3, 2, 1, 1, 0, 0, 0,
];

fn nol_root() -> NewOrderList {
    NewOrderList {
        list_id: 77,
        transact_time: 1,
    }
}

fn nol_payload() -> Vec<u8> {
    NOL_GOLDEN[SOFH_LEN..].to_vec()
}

#[test]
fn golden_new_order_list() {
    let mut out = Vec::new();
    let n = nol_root()
        .encode_frame([nol_entry(0), nol_entry(1)], &mut out)
        .unwrap();
    assert_eq!(n, NOL_GOLDEN.len());
    assert_eq!(out, NOL_GOLDEN);
    // The same through the in-place writer.
    let mut out2 = vec![1, 2, 3];
    let mut w = nol_root().frame_writer(&mut out2, DEFAULT_MAX_FRAME_LEN);
    w.push(&nol_entry(0)).unwrap();
    w.push(&nol_entry(1)).unwrap();
    assert_eq!(w.len(), 2);
    assert_eq!(w.finish(), NOL_GOLDEN.len());
    assert_eq!(&out2[..3], [1, 2, 3]);
    assert_eq!(&out2[3..], NOL_GOLDEN);
    match decode(&NOL_GOLDEN[SOFH_LEN..]) {
        Ok(Message::NewOrderList(d)) => {
            assert_eq!(d.list_id(), 77);
            let orders = d.orders();
            assert_eq!(orders.block_length(), 49);
            let e0 = orders.get(0).unwrap();
            assert_eq!(e0.cl_ord_id(), 1000);
            assert_eq!(e0.price().unwrap().mantissa(), 1_170_661);
            assert_eq!(orders.get(1).unwrap().price(), None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn rejects_truncated_groups() {
    let p = nol_payload();
    let group_at = HEADER_LEN + 16;
    for cut in 0..p.len() {
        let err = decode(&p[..cut]).unwrap_err();
        if cut < group_at {
            assert!(
                matches!(err, DecodeError::Truncated { .. }),
                "{cut}: {err:?}"
            );
        } else {
            let needed = if cut < group_at + 4 { 4 } else { 4 + 2 * 49 };
            assert_eq!(
                err,
                DecodeError::GroupTruncated {
                    group: "Orders",
                    needed,
                    len: cut - group_at,
                },
                "{cut}"
            );
        }
    }
    // Bytes after the group are ignored.
    let mut longer = p.clone();
    longer.extend_from_slice(&[0xFF; 5]);
    assert!(decode(&longer).is_ok());
}

#[test]
fn rejects_group_count_beyond_the_frame() {
    let group_at = HEADER_LEN + 16;
    for count in [3u16, 83, 1000, u16::MAX] {
        let mut p = nol_payload();
        p[group_at + 2..group_at + 4].copy_from_slice(&count.to_le_bytes());
        assert_eq!(
            decode(&p).unwrap_err(),
            DecodeError::GroupTruncated {
                group: "Orders",
                needed: 4 + count as usize * 49,
                len: 4 + 2 * 49,
            },
            "{count}"
        );
    }
    // A smaller count is fine: the rest is trailing bytes.
    let mut p = nol_payload();
    p[group_at + 2] = 1;
    match decode(&p).unwrap() {
        Message::NewOrderList(d) => assert_eq!(d.orders().len(), 1),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rejects_bad_group_block_length_and_accepts_a_longer_one() {
    let group_at = HEADER_LEN + 16;
    for bl in [0u16, 1, 48] {
        let mut p = nol_payload();
        p[group_at..group_at + 2].copy_from_slice(&bl.to_le_bytes());
        assert_eq!(
            decode(&p).unwrap_err(),
            DecodeError::GroupBlockTooShort {
                group: "Orders",
                block_length: bl,
                min: 49,
            }
        );
    }
    // A longer entry (newer schema version): known prefix read, extra bytes skipped.
    let mut p = nol_payload()[..group_at].to_vec();
    p.extend_from_slice(&[52, 0, 2, 0]);
    for e in [nol_entry(0), nol_entry(1)] {
        let mut tmp = Vec::new();
        nol_root().encode_frame([e], &mut tmp).unwrap();
        p.extend_from_slice(&tmp[SOFH_LEN + group_at + 4..]);
        p.extend_from_slice(&[0xEE; 3]);
    }
    match decode(&p).unwrap() {
        Message::NewOrderList(d) => {
            assert_eq!(d.orders().block_length(), 52);
            assert_eq!(d.orders().to_vec(), vec![nol_entry(0), nol_entry(1)]);
        }
        other => panic!("{other:?}"),
    }
    // A longer root block: the group starts after it.
    let mut p = nol_payload();
    p[0] = 18;
    p.splice(group_at..group_at, [0xAB, 0xCD]);
    match decode(&p).unwrap() {
        Message::NewOrderList(d) => assert_eq!(d.orders().len(), 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rejects_invalid_fields_in_an_item() {
    let entry1 = HEADER_LEN + 16 + 4 + 49;
    for (offset, field, value) in [(42, "Category", 0u8), (43, "Side", 3), (48, "StpMode", 9)] {
        let mut p = nol_payload();
        p[entry1 + offset] = value;
        assert_eq!(
            decode(&p).unwrap_err(),
            DecodeError::InvalidEnum { field, value },
            "{field}"
        );
    }
    // Required decimal null in an item.
    let mut p = nol_payload();
    p[entry1 + 17..entry1 + 25].copy_from_slice(&i64::MIN.to_le_bytes());
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::MissingValue { field: "OrderQty" }
    );
    // Non-ASCII symbol in an item.
    let mut p = nol_payload();
    p[entry1 + 26] = 0xC3;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidText { field: "Symbol" }
    );
    // Optional enum in a ListStatus item: 255 is null, 254 is refused.
    let mut out = Vec::new();
    ListStatus {
        list_id: 1,
        transact_time: 2,
        ref_msg_type: 107,
        last_fragment: BoolFlag::Yes,
    }
    .encode_frame([list_status_entry(7)], &mut out)
    .unwrap();
    let mut p = out[SOFH_LEN..].to_vec();
    let rej = HEADER_LEN + ListStatus::BLOCK_LENGTH as usize + 4 + 21;
    p[rej] = 254;
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::InvalidEnum {
            field: "OrdRejReason",
            value: 254
        }
    );
}

#[test]
fn move_positions_holds_at_most_ten() {
    let root = MovePositions {
        move_positions_id: 1,
        transact_time: 2,
        from_uid: 3,
        to_uid: 4,
        category: Category::UsdtFutures,
    };
    let entry = MovePositionsEntry {
        symbol: sym("BTCUSDT"),
        side: Side::Buy,
        quantity: dec("0.01"),
    };
    let mut out = vec![9];
    assert_eq!(
        root.encode_frame(std::iter::repeat_n(entry, 11), &mut out),
        Err(GroupFull::Count { max: 10 })
    );
    assert_eq!(out, [9], "nothing left behind");
    // Eleven entries on the wire are refused by the decoder.
    let mut out = Vec::new();
    root.encode_frame(std::iter::repeat_n(entry, 10), &mut out)
        .unwrap();
    let mut p = out[SOFH_LEN..].to_vec();
    let dim = HEADER_LEN + MovePositions::BLOCK_LENGTH as usize;
    p[dim + 2] = 11;
    p.extend_from_within(dim + 4..dim + 4 + 26);
    assert_eq!(
        decode(&p).unwrap_err(),
        DecodeError::TooManyEntries {
            group: "Positions",
            count: 11,
            max: 10
        }
    );
}

#[test]
fn frames_respect_the_maximum_frame_length() {
    // Documented maxima per default 4096-byte frame.
    assert_eq!(NewOrderList::MAX_ENTRIES_PER_FRAME, 82);
    assert_eq!(OrderCancelReplaceList::MAX_ENTRIES_PER_FRAME, 76);
    assert_eq!(OrderCancelList::MAX_ENTRIES_PER_FRAME, 119);
    assert_eq!(ListStatus::MAX_ENTRIES_PER_FRAME, 47);
    assert_eq!(MovePositions::MAX_ENTRIES_PER_FRAME, 10);
    assert_eq!(MovePositionsReport::MAX_ENTRIES_PER_FRAME, 10);
    assert_eq!(RateBudgetReport::MAX_ENTRIES_PER_FRAME, 119);
    for m in MESSAGES {
        for g in m.groups {
            assert_eq!(
                g.max_entries_per_default_frame,
                group::entries_per_default_frame(
                    m.block_length as usize,
                    g.block_length as usize,
                    g.max_entries
                ),
                "{}",
                m.name
            );
        }
    }
    // The maximum fits, one more does not; the frame is accepted by peek_frame.
    let max = NewOrderList::MAX_ENTRIES_PER_FRAME;
    let mut out = Vec::new();
    let mut w = nol_root().frame_writer(&mut out, DEFAULT_MAX_FRAME_LEN);
    for i in 0..max as u64 {
        w.push(&nol_entry(i)).unwrap();
    }
    assert_eq!(
        w.push(&nol_entry(0)),
        Err(GroupFull::FrameLength {
            max_frame_len: DEFAULT_MAX_FRAME_LEN
        })
    );
    let len = w.finish();
    assert!(len <= DEFAULT_MAX_FRAME_LEN);
    assert_eq!(peek_frame(&out, DEFAULT_MAX_FRAME_LEN), Ok(Some(len)));
    match decode(&out[SOFH_LEN..]).unwrap() {
        Message::NewOrderList(d) => assert_eq!(d.orders().len(), max),
        other => panic!("{other:?}"),
    }
    let mut out = vec![7];
    assert!(nol_root()
        .encode_frame((0..=max as u64).map(nol_entry), &mut out)
        .is_err());
    assert_eq!(out, [7]);
    // A smaller maximum frame length.
    let mut out = Vec::new();
    let mut w = nol_root().frame_writer(&mut out, 6 + 8 + 16 + 4 + 49);
    w.push(&nol_entry(0)).unwrap();
    assert!(w.push(&nol_entry(1)).is_err());
    assert_eq!(w.finish(), 6 + 8 + 16 + 4 + 49);
    // ListStatus answers a 45-order batch in one frame.
    const { assert!(ListStatus::MAX_ENTRIES_PER_FRAME >= 45) };
}
