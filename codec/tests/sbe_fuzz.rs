//! Property tests: arbitrary bytes fed to `peek_frame` / `decode` never panic, and whatever
//! decodes re-encodes to a payload that decodes to the same message (`codec::fuzzing`).

#![allow(clippy::unwrap_used)] // test code: a panic is a test failure

use codec::frame::{peek_frame, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::sbe::{self, decode, ENUMS, MESSAGES};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Decode, every getter, group access and the decode → encode → decode round trip
/// (`codec::fuzzing::sbe_payload`, the harness of the `sbe_message` cargo-fuzz target).
fn check_payload(payload: &[u8]) {
    codec::fuzzing::sbe_payload(payload);
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

/// A payload with a valid header for a known template (any schema version 0..=SCHEMA_VERSION+1)
/// and a random block, mostly repaired field by field so that decoding goes deep and often
/// succeeds; the block is this version's plus 0..3 bytes, or for a message with versioned fields
/// sometimes only its version-0 fields (`min_block_length`); for a message with a repeating
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
        (0..=sbe::SCHEMA_VERSION + 1, any::<bool>()),
    )
        .prop_map(
            |(
                i,
                extra,
                mut block,
                choices,
                (gextra, count, mode, raw),
                mut entries,
                (version, short),
            )| {
                let meta = &MESSAGES[i];
                repair(meta.fields, &mut block, &choices);
                let block_length = if short {
                    meta.min_block_length
                } else {
                    meta.block_length + extra
                };
                block.truncate(block_length as usize);
                let mut p = Vec::new();
                p.extend_from_slice(&block_length.to_le_bytes());
                p.extend_from_slice(&meta.template_id.to_le_bytes());
                p.extend_from_slice(&sbe::SCHEMA_ID.to_le_bytes());
                p.extend_from_slice(&version.to_le_bytes());
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

    /// SBE extension rule, older sender: a payload whose header says version 0 decodes exactly
    /// as the same payload cut to its version-0 fields (`min_block_length`), whatever else its
    /// block holds: fields added later are absent from both.
    #[test]
    fn a_version_0_header_reads_only_the_version_0_fields(payload in plausible_payload()) {
        let Some(meta) = sbe::template_id(&payload)
            .and_then(|id| MESSAGES.iter().find(|m| m.template_id == id))
        else {
            return Ok(());
        };
        let announced = usize::from(u16::from_le_bytes([payload[0], payload[1]]));
        if payload.len() < 8 + announced.max(meta.min_block_length as usize)
            || !meta.groups.is_empty()
        {
            return Ok(());
        }
        let mut v0 = payload.clone();
        v0[6..8].copy_from_slice(&0u16.to_le_bytes());
        let mut cut = v0[..8 + meta.min_block_length as usize].to_vec();
        cut[0..2].copy_from_slice(&meta.min_block_length.to_le_bytes());
        match (decode(&v0), decode(&cut)) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.template_id(), b.template_id());
                prop_assert_eq!(codec::fuzzing::reencode(&a), codec::fuzzing::reencode(&b));
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "{a:?} vs {b:?}"),
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
