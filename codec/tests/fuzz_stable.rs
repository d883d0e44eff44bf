//! The codec's fuzz harnesses (`codec::fuzzing`, also the cargo-fuzz targets in `fuzz/`) run on
//! stable with proptest: random bytes, and seeds built from the shared Bitget fixtures and from
//! valid SBE frames of every template, mutated byte by byte. A bounded number of cases keeps
//! each target to a few seconds.
//!
//! The same seeds are the committed cargo-fuzz corpora (`fuzz/corpus/<target>/`); run with
//! `BGW_WRITE_FUZZ_CORPUS=1` to rewrite them (`scripts/fuzz.sh --seed`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::LazyLock;

use codec::frame::{write_sofh, SOFH_LEN};
use codec::fuzzing::{self, mutate, plausible_payload, Edit};
use codec::sbe::{decode, MESSAGES};
use proptest::prelude::*;

/// The fixtures folder: beside the checkout, else `$BGW_SHARED_DIR/fixtures/bitget-uta`.
fn fixtures_dir() -> PathBuf {
    let beside = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/bitget-uta/"
    ));
    if beside.is_dir() {
        return beside;
    }
    let dir = std::env::var_os("BGW_SHARED_DIR")
        .expect("fixtures not found: export BGW_SHARED_DIR=/work/shared");
    PathBuf::from(dir).join("fixtures/bitget-uta")
}

/// Every WebSocket fixture frame (`ws_*.json`), trailing whitespace removed, by file stem.
fn ws_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("ws_") && name.ends_with(".json")
        })
        .map(|p| {
            let mut b = std::fs::read(&p).unwrap();
            while b.last().is_some_and(u8::is_ascii_whitespace) {
                b.pop();
            }
            (p.file_stem().unwrap().to_string_lossy().into_owned(), b)
        })
        .collect();
    out.sort();
    assert!(out.len() >= 20, "only {} ws fixtures", out.len());
    out
}

/// Seeds of `json_frames`: every fixture frame, `pong`, and all fixtures as one input of lines.
fn json_seeds() -> Vec<(String, Vec<u8>)> {
    let mut seeds = ws_fixtures();
    let all: Vec<u8> = seeds
        .iter()
        .map(|(_, b)| b.as_slice())
        .collect::<Vec<_>>()
        .join(&b'\n');
    seeds.push(("pong".into(), b"pong".to_vec()));
    seeds.push(("all_lines".into(), all));
    seeds
}

/// Inputs of `plausible_payload` that build a decodable message of every template (with 0, 1,
/// 3 and 4 group entries for the group messages), by template name.
fn sbe_inputs() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (i, meta) in MESSAGES.iter().enumerate() {
        for fill in [0x01u8, 0x03, 0x22, 0x23] {
            let mut input = vec![i as u8];
            input.extend(std::iter::repeat_n(fill, 1200));
            out.push((format!("{}_{fill:02x}", meta.name), input));
        }
    }
    out
}

/// Seeds of `sbe_message`: each plausible input itself and the payload it builds.
fn sbe_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, input) in sbe_inputs() {
        let payload = plausible_payload(&input);
        out.push((format!("payload_{name}"), payload));
        out.push((format!("input_{name}"), input));
    }
    out
}

/// Seeds of `sofh_stream`: streams of several whole frames, read whole or in small pieces, and
/// one with a frame over a small maximum length.
fn sofh_seeds() -> Vec<(String, Vec<u8>)> {
    let mut stream = Vec::new();
    for (_, input) in sbe_inputs().iter().step_by(7) {
        let payload = plausible_payload(input);
        let start = stream.len();
        stream.resize(start + SOFH_LEN, 0);
        write_sofh(&mut stream[start..], SOFH_LEN + payload.len());
        stream.extend_from_slice(&payload);
    }
    let with = |head: &[u8]| {
        let mut v = head.to_vec();
        v.push(0xFF);
        v.extend_from_slice(&stream);
        v
    };
    vec![
        ("whole".into(), with(&[0])),
        ("pieces_1_7_64".into(), with(&[0, 1, 7, 64])),
        ("pieces_3".into(), with(&[0, 3])),
        ("small_max".into(), with(&[1, 40, 5])),
    ]
}

/// Writes `seeds` as the corpus of `target` when `BGW_WRITE_FUZZ_CORPUS` is set.
fn maybe_write_corpus(target: &str, seeds: &[(String, Vec<u8>)]) {
    if std::env::var_os("BGW_WRITE_FUZZ_CORPUS").is_none() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in seeds {
        std::fs::write(dir.join(format!("seed_{name}")), bytes).unwrap();
    }
}

#[test]
fn seeds_run_clean_and_mostly_decode() {
    let sbe = sbe_seeds();
    let mut decoded = 0;
    for (name, bytes) in &sbe {
        if name.starts_with("payload_") {
            assert!(decode(bytes).is_ok(), "{name} does not decode");
            decoded += 1;
        }
        fuzzing::sbe_message(bytes);
    }
    assert_eq!(decoded, MESSAGES.len() * 4);
    for (_, bytes) in sofh_seeds() {
        fuzzing::sofh_stream(&bytes);
    }
    let json = json_seeds();
    for (_, bytes) in &json {
        fuzzing::json_frames(bytes);
    }
    maybe_write_corpus("sbe_message", &sbe);
    maybe_write_corpus("sofh_stream", &sofh_seeds());
    maybe_write_corpus("json_frames", &json);
}

/// Every truncation of every fixture frame (the reused parser must answer as a new one).
#[test]
fn json_truncated_fixtures() {
    for (_, frame) in ws_fixtures() {
        for cut in 0..=frame.len() {
            fuzzing::json_frames(&frame[..cut]);
        }
    }
}

static SOFH_SEEDS: LazyLock<Vec<(String, Vec<u8>)>> = LazyLock::new(sofh_seeds);
static SBE_SEEDS: LazyLock<Vec<(String, Vec<u8>)>> = LazyLock::new(sbe_seeds);
static JSON_SEEDS: LazyLock<Vec<(String, Vec<u8>)>> = LazyLock::new(json_seeds);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(any::<Edit>(), 1..8)
}

fn pick(seeds: &[(String, Vec<u8>)], i: prop::sample::Index) -> &[u8] {
    &seeds[i.index(seeds.len())].1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn sofh_random(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
        fuzzing::sofh_stream(&bytes);
    }

    #[test]
    fn sofh_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        fuzzing::sofh_stream(&mutate(pick(&SOFH_SEEDS, i), &e));
    }

    #[test]
    fn sbe_random(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
        fuzzing::sbe_message(&bytes);
    }

    #[test]
    fn sbe_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        fuzzing::sbe_message(&mutate(pick(&SBE_SEEDS, i), &e));
    }

    #[test]
    fn json_random(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        fuzzing::json_frames(&bytes);
    }

    #[test]
    fn json_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        fuzzing::json_frames(&mutate(pick(&JSON_SEEDS, i), &e));
    }
}
