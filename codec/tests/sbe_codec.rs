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
        },
        Negotiate
    );
    round_trip!(
        NegotiationResponse {
            session_id: 1,
            request_timestamp: 2,
            server_flow: FlowType::Recoverable,
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
    // header: blockLength 57, templateId 101, schemaId 1, version 0
    0x39, 0x00, 0x65, 0x00, 0x01, 0x00, 0x00, 0x00, // @0 ClOrdID 42
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
