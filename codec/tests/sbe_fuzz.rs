//! Property tests: arbitrary bytes fed to `peek_frame` / `decode` never panic, and whatever
//! decodes re-encodes to a payload that decodes to the same message.

#![allow(clippy::unwrap_used)] // test code: a panic is a test failure

use codec::frame::{peek_frame, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::sbe::{self, decode, Message, ENUMS, MESSAGES};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Re-encodes a decoded message through its owned struct; returns the new payload.
fn reencode(m: &Message<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    match m {
        Message::Negotiate(d) => d.to_owned().encode_frame(&mut out),
        Message::NegotiationResponse(d) => d.to_owned().encode_frame(&mut out),
        Message::NegotiationReject(d) => d.to_owned().encode_frame(&mut out),
        Message::Establish(d) => d.to_owned().encode_frame(&mut out),
        Message::EstablishmentAck(d) => d.to_owned().encode_frame(&mut out),
        Message::EstablishmentReject(d) => d.to_owned().encode_frame(&mut out),
        Message::Sequence(d) => d.to_owned().encode_frame(&mut out),
        Message::Terminate(d) => d.to_owned().encode_frame(&mut out),
        Message::RetransmitRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::Retransmission(d) => d.to_owned().encode_frame(&mut out),
        Message::RetransmitReject(d) => d.to_owned().encode_frame(&mut out),
        Message::NotApplied(d) => d.to_owned().encode_frame(&mut out),
        Message::NewOrderSingle(d) => d.to_owned().encode_frame(&mut out),
        Message::OrderCancelRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::OrderCancelReplaceRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::ExecutionReport(d) => d.to_owned().encode_frame(&mut out),
        Message::OrderCancelReject(d) => d.to_owned().encode_frame(&mut out),
        Message::BusinessMessageReject(d) => d.to_owned().encode_frame(&mut out),
        Message::NewOrderList(d) => {
            let items = d.orders().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::OrderCancelReplaceList(d) => {
            let items = d.orders().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::OrderCancelList(d) => {
            let items = d.orders().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::ListStatus(d) => {
            let items = d.orders().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::OrderMassCancelRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::OrderMassCancelReport(d) => d.to_owned().encode_frame(&mut out),
        Message::OrderMassStatusRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::OrderMassStatusEnd(d) => d.to_owned().encode_frame(&mut out),
        Message::MovePositions(d) => {
            let items = d.positions().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::MovePositionsReport(d) => {
            let items = d.results().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::SetLeverage(d) => d.to_owned().encode_frame(&mut out),
        Message::SetHoldMode(d) => d.to_owned().encode_frame(&mut out),
        Message::MaxOpenAvailableRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::AccountSettingsRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::AccountRequestReport(d) => d.to_owned().encode_frame(&mut out),
        Message::PositionReport(d) => d.to_owned().encode_frame(&mut out),
        Message::AccountBalanceReport(d) => d.to_owned().encode_frame(&mut out),
        Message::RateBudgetReport(d) => {
            let items = d.buckets().iter().map(|e| e.to_owned());
            d.to_owned().encode_frame(items, &mut out).unwrap();
        }
        Message::KillSwitchRequest(d) => d.to_owned().encode_frame(&mut out),
        Message::KillSwitchReport(d) => d.to_owned().encode_frame(&mut out),
        Message::RateBudgetRequest(d) => d.to_owned().encode_frame(&mut out),
    }
    out.split_off(SOFH_LEN)
}

/// Two decodes of the same message compare equal through their owned structs.
fn same(a: &Message<'_>, b: &Message<'_>) -> bool {
    reencode(a) == reencode(b)
}

fn check_payload(payload: &[u8]) {
    let _ = sbe::template_id(payload);
    if let Ok(m) = decode(payload) {
        let again = reencode(&m);
        let m2 = decode(&again).expect("a re-encoded message decodes");
        assert_eq!(m.template_id(), m2.template_id());
        assert!(same(&m, &m2));
    }
}

/// Repairs the fields of one block (valid enum values, exponents in range, ASCII text) so that
/// decoding goes deep; each field is left raw when its choice byte is a multiple of ten.
fn repair(fields: &[sbe::FieldMeta], block: &mut [u8], choices: &[u8]) {
    for (f, &c) in fields.iter().zip(choices.iter().cycle()) {
        if c % 10 == 0 {
            continue; // left raw
        }
        let bytes = &mut block[f.offset..f.offset + f.size];
        if let Some(e) = ENUMS.iter().find(|e| e.name == f.xml_type) {
            bytes[0] = e.values[c as usize % e.values.len()].1;
        } else if f.xml_type == "Decimal64" {
            bytes[8] = ((c % 37) as i8 - 18) as u8;
        } else if f.xml_type == "Symbol" || f.xml_type == "Text" {
            for b in bytes.iter_mut() {
                *b &= 0x7F;
            }
        }
    }
}

/// A payload with a valid header for a known template and a random block, mostly repaired
/// field by field so that decoding goes deep and often succeeds; for a message with a repeating
/// group, a dimension (mostly valid: entry block length plus 0..3, 0..4 entries; sometimes a
/// random count or block length) and repaired entries follow.
fn plausible_payload() -> impl Strategy<Value = Vec<u8>> {
    (
        0..MESSAGES.len(),
        0u16..4,
        proptest::collection::vec(any::<u8>(), 260),
        proptest::collection::vec(any::<u8>(), 32),
        (0u16..4, 0u16..5, any::<u8>(), any::<u16>()),
        proptest::collection::vec(any::<u8>(), 4 * 200),
    )
        .prop_map(
            |(i, extra, mut block, choices, (gextra, count, mode, raw), mut entries)| {
                let meta = &MESSAGES[i];
                repair(meta.fields, &mut block, &choices);
                block.truncate(meta.block_length as usize + extra as usize);
                let mut p = Vec::new();
                p.extend_from_slice(&(meta.block_length + extra).to_le_bytes());
                p.extend_from_slice(&meta.template_id.to_le_bytes());
                p.extend_from_slice(&sbe::SCHEMA_ID.to_le_bytes());
                p.extend_from_slice(&0u16.to_le_bytes());
                p.extend_from_slice(&block);
                for g in meta.groups {
                    let bl = g.block_length + gextra;
                    let (dim_bl, dim_count) = match mode % 16 {
                        0 => (bl, raw),
                        1 => (raw % (bl + 1), count),
                        _ => (bl, count),
                    };
                    p.extend_from_slice(&dim_bl.to_le_bytes());
                    p.extend_from_slice(&dim_count.to_le_bytes());
                    for (k, e) in entries.chunks_mut(200).take(count as usize).enumerate() {
                        repair(g.fields, e, &choices[k..]);
                        p.extend_from_slice(&e[..bl as usize]);
                    }
                }
                if mode % 16 == 2 {
                    p.truncate(p.len().saturating_sub(1 + raw as usize % 8));
                }
                p
            },
        )
}

#[test]
fn plausible_payloads_often_decode() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut ok = 0;
    let mut with_entries = 0;
    for _ in 0..1000 {
        let p = plausible_payload().new_tree(&mut runner).unwrap().current();
        if let Ok(m) = decode(&p) {
            ok += 1;
            let meta = MESSAGES
                .iter()
                .find(|meta| meta.template_id == m.template_id())
                .unwrap();
            // A group message decoded with at least one entry (validated and iterated).
            if !meta.groups.is_empty() && p.len() > 8 + meta.block_length as usize + 4 + 8 {
                with_entries += 1;
            }
        }
    }
    assert!(ok > 100, "only {ok} of 1000 plausible payloads decoded");
    assert!(
        with_entries > 10,
        "only {with_entries} group messages with entries decoded"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = peek_frame(&bytes, DEFAULT_MAX_FRAME_LEN);
        let _ = peek_frame(&bytes, 0);
        check_payload(&bytes);
        if bytes.len() > SOFH_LEN {
            check_payload(&bytes[SOFH_LEN..]);
        }
    }

    #[test]
    fn plausible_payloads_never_panic(payload in plausible_payload()) {
        check_payload(&payload);
        // Framed: peek_frame then decode the frame's payload.
        let mut frame = Vec::new();
        let total = SOFH_LEN + payload.len();
        frame.resize(SOFH_LEN, 0);
        codec::frame::write_sofh(&mut frame, total);
        frame.extend_from_slice(&payload);
        match peek_frame(&frame, DEFAULT_MAX_FRAME_LEN) {
            Ok(Some(len)) => check_payload(&frame[SOFH_LEN..len]),
            Ok(None) => prop_assert!(false, "a whole frame is there"),
            Err(_) => prop_assert!(total < codec::frame::MIN_FRAME_LEN),
        }
    }
}
