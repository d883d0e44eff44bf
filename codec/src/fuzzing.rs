//! Fuzz harnesses of the codec's decoders, shared by the cargo-fuzz targets (`fuzz/` at the
//! repository root, libFuzzer on a nightly or `RUSTC_BOOTSTRAP=1` toolchain) and the stable
//! property tests (`codec/tests/fuzz_stable.rs`, `codec/tests/sbe_fuzz.rs`).
//!
//! Each harness takes arbitrary bytes. Bad input is never a failure: the decoders must refuse it
//! with an error. A harness panics only when the code under test breaks one of its documented
//! properties (a decoder panics, a decoded message does not survive decode → encode → decode,
//! framing depends on how the stream was split, a reused parser answers differently from a new
//! one); that panic is what the fuzzer reports.

use crate::frame::{peek_frame, DEFAULT_MAX_FRAME_LEN, MIN_FRAME_LEN, SOFH_LEN};
use crate::json::JsonParser;
use crate::sbe::{self, decode, FieldMeta, Message, ENUMS, MESSAGES};

/// Re-encodes a decoded message through its owned struct (`to_owned`, which reads every getter
/// of the root block and of each group entry) and returns the whole frame (SOFH header
/// included).
///
/// # Panics
/// If a group message that decoded cannot be encoded again (more entries than the schema
/// allows): a decoder bug.
pub fn reencode(m: &Message<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    macro_rules! fixed {
        ($d:expr) => {
            $d.to_owned().encode_frame(&mut out)
        };
    }
    macro_rules! grouped {
        ($d:expr, $g:ident) => {{
            let g = $d.$g();
            // Every access path of the group: get by index (one past the end is None),
            // iteration, to_vec; they must agree.
            let mut items = Vec::with_capacity(g.len());
            for i in 0..g.len() {
                match g.get(i) {
                    Some(e) => items.push(e.to_owned()),
                    None => panic!("group entry {i} of {} missing", g.len()),
                }
            }
            assert!(g.get(g.len()).is_none(), "group entry past the end");
            assert_eq!(g.is_empty(), g.len() == 0);
            let iterated: Vec<_> = g.iter().map(|e| e.to_owned()).collect();
            assert!(iterated == items, "group iteration differs from get()");
            assert!(g.to_vec() == items, "group to_vec differs from get()");
            if let Err(e) = $d.to_owned().encode_frame(items.into_iter(), &mut out) {
                panic!("a decoded group message does not encode: {e:?}");
            }
        }};
    }
    match m {
        Message::Negotiate(d) => fixed!(d),
        Message::NegotiationResponse(d) => fixed!(d),
        Message::NegotiationReject(d) => fixed!(d),
        Message::Establish(d) => fixed!(d),
        Message::EstablishmentAck(d) => fixed!(d),
        Message::EstablishmentReject(d) => fixed!(d),
        Message::Sequence(d) => fixed!(d),
        Message::Terminate(d) => fixed!(d),
        Message::RetransmitRequest(d) => fixed!(d),
        Message::Retransmission(d) => fixed!(d),
        Message::RetransmitReject(d) => fixed!(d),
        Message::NotApplied(d) => fixed!(d),
        Message::NewOrderSingle(d) => fixed!(d),
        Message::OrderCancelRequest(d) => fixed!(d),
        Message::OrderCancelReplaceRequest(d) => fixed!(d),
        Message::ExecutionReport(d) => fixed!(d),
        Message::OrderCancelReject(d) => fixed!(d),
        Message::BusinessMessageReject(d) => fixed!(d),
        Message::NewOrderList(d) => grouped!(d, orders),
        Message::OrderCancelReplaceList(d) => grouped!(d, orders),
        Message::OrderCancelList(d) => grouped!(d, orders),
        Message::ListStatus(d) => grouped!(d, orders),
        Message::OrderMassCancelRequest(d) => fixed!(d),
        Message::OrderMassCancelReport(d) => fixed!(d),
        Message::OrderMassStatusRequest(d) => fixed!(d),
        Message::OrderMassStatusEnd(d) => fixed!(d),
        Message::MovePositions(d) => grouped!(d, positions),
        Message::MovePositionsReport(d) => grouped!(d, results),
        Message::SetLeverage(d) => fixed!(d),
        Message::SetHoldMode(d) => fixed!(d),
        Message::MaxOpenAvailableRequest(d) => fixed!(d),
        Message::AccountSettingsRequest(d) => fixed!(d),
        Message::AccountRequestReport(d) => fixed!(d),
        Message::PositionReport(d) => fixed!(d),
        Message::AccountBalanceReport(d) => fixed!(d),
        Message::RateBudgetReport(d) => grouped!(d, buckets),
        Message::KillSwitchRequest(d) => fixed!(d),
        Message::KillSwitchReport(d) => fixed!(d),
        Message::RateBudgetRequest(d) => fixed!(d),
    }
    out
}

/// SBE decode of one payload (the bytes after the SOFH header) of any template.
///
/// Properties checked: [`sbe::template_id`] and [`decode`] never panic; a message that decodes
/// re-encodes ([`reencode`]) to a well-formed frame whose payload decodes to the same template,
/// and encoding that again gives the same bytes (decode → encode is a fixed point after one
/// round). Returns the template id of the decoded message, `None` when it was refused.
///
/// # Panics
/// When one of those properties is broken (a codec bug).
pub fn sbe_payload(payload: &[u8]) -> Option<u16> {
    let _ = sbe::template_id(payload);
    let m = decode(payload).ok()?;
    let _ = m.name();
    let frame = reencode(&m);
    match peek_frame(&frame, usize::MAX) {
        Ok(Some(n)) if n == frame.len() => {}
        other => panic!("re-encoded {} frame is malformed: {other:?}", m.name()),
    }
    let again = frame.get(SOFH_LEN..).unwrap_or(&[]);
    let m2 = match decode(again) {
        Ok(m2) => m2,
        Err(e) => panic!("re-encoded {} does not decode: {e}", m.name()),
    };
    assert_eq!(m.template_id(), m2.template_id(), "template changed");
    assert!(
        reencode(&m2) == frame,
        "{}: decode → encode is not a fixed point",
        m.name()
    );
    Some(m.template_id())
}

/// SOFH framing of a byte stream delivered in arbitrary pieces, each whole frame then
/// SBE-decoded with [`sbe_payload`].
///
/// Input layout: byte 0 picks the maximum frame length (low bit 0: the default 4096, 1: a small
/// limit 14..=269 from byte 1); the following bytes up to the first `0xFF` give the read sizes
/// (each 1..=255 bytes, cycled); the rest is the stream. The stream is framed twice, whole and
/// read piece by piece like the gateway's reader (append, then take every complete frame).
///
/// Properties checked: [`peek_frame`] never panics; a frame it returns is at least
/// [`MIN_FRAME_LEN`], at most the maximum and within the buffer; both readings yield the same
/// frames and end with the same error (framing does not depend on read boundaries).
///
/// # Panics
/// When one of those properties is broken (a codec bug).
pub fn sofh_stream(data: &[u8]) {
    let (max, rest) = match data {
        [m, l, rest @ ..] if m & 1 == 1 => (MIN_FRAME_LEN + usize::from(*l), rest),
        [_, rest @ ..] => (DEFAULT_MAX_FRAME_LEN, rest),
        [] => return,
    };
    let split = rest.iter().position(|&b| b == 0xFF).unwrap_or(rest.len());
    let (sizes, stream) = rest.split_at(split);
    let stream = stream.get(1..).unwrap_or(&[]);

    let whole = frames_of(stream, &[], max);
    let pieces = frames_of(stream, sizes, max);
    assert!(
        whole == pieces,
        "framing depends on read boundaries: {whole:?} vs {pieces:?}"
    );
    for (start, end) in whole.0 {
        if let Some(payload) = stream.get(start + SOFH_LEN..end) {
            sbe_payload(payload);
        }
    }
}

/// Frames found in `stream` (start, end offsets) and the error that stopped the reader, reading
/// in pieces of `sizes` (cycled; everything at once when empty).
type Framing = (Vec<(usize, usize)>, Option<crate::frame::FrameError>);

fn frames_of(stream: &[u8], sizes: &[u8], max: usize) -> Framing {
    let mut frames = Vec::new();
    let mut consumed = 0; // start of the reader's buffer in `stream`
    let mut read = 0; // bytes delivered so far
    let mut next_size = sizes.iter().cycle();
    while read < stream.len() {
        let n = match next_size.next() {
            Some(&s) => usize::from(s).max(1),
            None => stream.len(),
        };
        read = (read + n).min(stream.len());
        loop {
            let buf = stream.get(consumed..read).unwrap_or(&[]);
            match peek_frame(buf, max) {
                Ok(Some(len)) => {
                    assert!(
                        (MIN_FRAME_LEN..=max).contains(&len) && len <= buf.len(),
                        "peek_frame returned {len} for {} buffered bytes (max {max})",
                        buf.len()
                    );
                    frames.push((consumed, consumed + len));
                    consumed += len;
                }
                Ok(None) => break,
                Err(e) => return (frames, Some(e)),
            }
        }
    }
    (frames, None)
}

/// The JSON push/reply parser on arbitrary text frames, with one parser reused across frames as
/// on a connection.
///
/// Input layout: the whole input is one frame; then it is split at `\n` and every line is a
/// frame; then every line again with its last byte cut (a truncated frame).
///
/// Properties checked: [`JsonParser::parse`] never panics; a reused parser (whose buffers hold
/// the previous, possibly larger or failed, frame) answers exactly as a new parser does.
///
/// # Panics
/// When one of those properties is broken (a codec bug).
pub fn json_frames(data: &[u8]) {
    let mut reused = JsonParser::new();
    json_frame(&mut reused, data);
    for line in data.split(|&b| b == b'\n') {
        json_frame(&mut reused, line);
        if let Some((_, cut)) = line.split_last() {
            json_frame(&mut reused, cut);
        }
    }
}

/// Parses `frame` with `reused` and with a new parser and checks both answers are equal.
fn json_frame(reused: &mut JsonParser, frame: &[u8]) {
    let a = format!("{:?}", reused.parse(frame));
    let b = format!("{:?}", JsonParser::new().parse(frame));
    assert!(a == b, "reused parser answered {a}, a new one {b}");
}

/// SBE decode of raw bytes ([`sbe_payload`]) and of the same bytes shaped into a plausible
/// message ([`plausible_payload`]), so that the fuzzer reaches every template's fields, groups
/// and round trip without first having to discover valid headers and enum values.
///
/// # Panics
/// As [`sbe_payload`].
pub fn sbe_message(data: &[u8]) {
    sbe_payload(data);
    sbe_payload(&plausible_payload(data));
}

/// Reads bytes from the front of an input; zeros once it is exhausted.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
}

/// Builds an SBE payload of a known template from arbitrary bytes: byte 0 picks the template
/// (index into [`MESSAGES`]); each field of the root block takes its size in bytes, then one
/// control byte that repairs it (a valid enum value, a decimal exponent in −18..=18, ASCII text)
/// unless it is a multiple of 16 (left raw). A message with a repeating group then gets a valid
/// dimension with `byte % 5` entries built the same way. Missing input bytes are zeros. The
/// result usually decodes, so its round trip is exercised.
pub fn plausible_payload(data: &[u8]) -> Vec<u8> {
    let mut input = Bytes(data);
    let Some(meta) = MESSAGES.get(usize::from(input.u8()) % MESSAGES.len()) else {
        return Vec::new();
    };
    let mut p = Vec::with_capacity(256);
    p.extend_from_slice(&meta.block_length.to_le_bytes());
    p.extend_from_slice(&meta.template_id.to_le_bytes());
    p.extend_from_slice(&sbe::SCHEMA_ID.to_le_bytes());
    p.extend_from_slice(&sbe::SCHEMA_VERSION.to_le_bytes());
    plausible_block(meta.fields, &mut input, &mut p);
    for g in meta.groups {
        let count = u16::from(input.u8() % 5);
        p.extend_from_slice(&g.block_length.to_le_bytes());
        p.extend_from_slice(&count.to_le_bytes());
        for _ in 0..count {
            plausible_block(g.fields, &mut input, &mut p);
        }
    }
    p
}

/// Appends one block of `fields` built from `input` (see [`plausible_payload`]).
fn plausible_block(fields: &[FieldMeta], input: &mut Bytes<'_>, out: &mut Vec<u8>) {
    for f in fields {
        let start = out.len();
        for _ in 0..f.size {
            out.push(input.u8());
        }
        let c = input.u8();
        if c.is_multiple_of(16) {
            continue;
        }
        let Some(bytes) = out.get_mut(start..) else {
            continue;
        };
        if let Some(e) = ENUMS.iter().find(|e| e.name == f.xml_type) {
            if let (Some(b), Some(v)) = (
                bytes.first_mut(),
                e.values.get(usize::from(c) % e.values.len().max(1)),
            ) {
                *b = v.1;
            }
        } else if f.xml_type == "Decimal64" {
            if let Some(b) = bytes.get_mut(8) {
                *b = (c % 37).wrapping_sub(18);
            }
        } else if f.xml_type == "Symbol" || f.xml_type == "Text" {
            for b in bytes.iter_mut() {
                *b &= 0x7F;
            }
        }
    }
}

/// One edit of [`mutate`]: a position (taken modulo the length), a kind and a byte.
pub type Edit = (u16, u8, u8);

/// Applies byte-level edits to a copy of `seed`, as a simple stand-in for libFuzzer's mutations
/// in the stable property tests: kind `% 4` = 0 overwrite the byte at the position, 1 insert a
/// byte there, 2 delete the byte there, 3 cut the input there.
pub fn mutate(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for &(pos, kind, byte) in edits {
        let at = usize::from(pos) % (v.len() + 1);
        match kind % 4 {
            0 => {
                if let Some(b) = v.get_mut(at) {
                    *b = byte;
                }
            }
            1 => v.insert(at, byte),
            2 => {
                if at < v.len() {
                    v.remove(at);
                }
            }
            _ => v.truncate(at),
        }
    }
    v
}
