//! The gateway's fuzz harnesses (`gateway::fuzzing`, also the cargo-fuzz targets in `fuzz/`)
//! run on stable with proptest: random bytes, and seeds (the shared Bitget REST and WebSocket
//! fixtures, FIXP session scripts) mutated byte by byte. A bounded number of cases keeps each
//! target to a few seconds.
//!
//! The same seeds are the committed cargo-fuzz corpora (`fuzz/corpus/<target>/`); run with
//! `BGW_WRITE_FUZZ_CORPUS=1` to rewrite them (`scripts/fuzz.sh --seed`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::LazyLock;

use codec::fuzzing::{mutate, Edit};
use codec::sbe::MESSAGES;
use gateway::fuzzing;
use gateway::session::fixp::SessionState;
use proptest::prelude::*;

type Seeds = Vec<(String, Vec<u8>)>;

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

/// The fixture files whose names start with `prefix`, by file stem.
fn fixtures(prefix: &str) -> Seeds {
    let mut out: Seeds = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".json")
        })
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no {prefix}* fixtures");
    out
}

/// Seeds of `rest_envelope`: every REST fixture body behind status 200 and 400.
fn rest_seeds() -> Seeds {
    let mut out = Vec::new();
    for (name, body) in fixtures("rest_") {
        for status in [200u16, 400] {
            let mut v = status.to_be_bytes().to_vec();
            v.extend_from_slice(&body);
            out.push((format!("{status}_{name}"), v));
        }
    }
    out
}

/// Seeds of `ws_control`: every WebSocket fixture frame and `pong`.
fn ws_seeds() -> Seeds {
    let mut out = fixtures("ws_");
    out.push(("pong".into(), b"pong".to_vec()));
    out
}

fn template_index(name: &str) -> u8 {
    MESSAGES.iter().position(|m| m.name == name).unwrap() as u8
}

/// A `fixp_session` event that builds a message of template `name` (op 7).
fn any_template(name: &str) -> Vec<u8> {
    let mut v = vec![7, 0, 0, 200, template_index(name)];
    v.extend(std::iter::repeat_n(0x01, 199));
    v
}

const NEGOTIATE_OK: [u8; 6] = [1, 0, 0, 1, 1, 2];
const ESTABLISH_OK: [u8; 10] = [2, 0, 0, 1, 0xE8, 0x03, 0, 0, 1, 0];
const SEQUENCE_2: [u8; 7] = [3, 0, 0, 2, 0, 0, 0];
const SEQUENCE_9: [u8; 7] = [3, 0, 0, 9, 0, 0, 0];
const TERMINATE: [u8; 3] = [4, 0, 0];
const TICK_10S: [u8; 5] = [5, 0x10, 0x27, 0, 0];

/// Seeds of `fixp_session`: scripts through every state and refusal.
fn fixp_seeds() -> Seeds {
    let script = |parts: &[&[u8]]| parts.concat();
    let nos = any_template("NewOrderSingle");
    let nol = any_template("NewOrderList");
    let er = any_template("ExecutionReport");
    let retransmit = any_template("RetransmitRequest");
    vec![
        (
            "happy".into(),
            script(&[
                &NEGOTIATE_OK,
                &ESTABLISH_OK,
                &nos,
                &SEQUENCE_2,
                &nol,
                &TERMINATE,
            ]),
        ),
        (
            "report_from_strategy".into(),
            script(&[&NEGOTIATE_OK, &ESTABLISH_OK, &er, &nos]),
        ),
        ("order_before_negotiate".into(), script(&[&nos])),
        ("bad_credentials".into(), script(&[&[1, 0, 0, 1, 0, 2]])),
        ("recoverable_client".into(), script(&[&[1, 0, 0, 1, 1, 0]])),
        (
            "establish_other_id".into(),
            script(&[&NEGOTIATE_OK, &[2, 0, 0, 3, 0xE8, 0x03, 0, 0, 1, 0]]),
        ),
        (
            "gap_and_retransmit".into(),
            script(&[
                &NEGOTIATE_OK,
                &ESTABLISH_OK,
                &nos,
                &SEQUENCE_9,
                &retransmit,
                &nos,
            ]),
        ),
        (
            "keepalive_timeout".into(),
            script(&[&NEGOTIATE_OK, &ESTABLISH_OK, &TICK_10S, &TICK_10S]),
        ),
        (
            "garbage_after_establish".into(),
            script(&[
                &NEGOTIATE_OK,
                &ESTABLISH_OK,
                &[0, 0, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
                &[6, 0, 0],
            ]),
        ),
    ]
}

static REST_SEEDS: LazyLock<Seeds> = LazyLock::new(rest_seeds);
static WS_SEEDS: LazyLock<Seeds> = LazyLock::new(ws_seeds);
static FIXP_SEEDS: LazyLock<Seeds> = LazyLock::new(fixp_seeds);

/// Writes `seeds` as the corpus of `target` when `BGW_WRITE_FUZZ_CORPUS` is set.
fn maybe_write_corpus(target: &str, seeds: &Seeds) {
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
fn seeds_run_clean() {
    for (_, b) in REST_SEEDS.iter() {
        fuzzing::rest_envelope(b);
    }
    for (_, b) in WS_SEEDS.iter() {
        fuzzing::ws_control(b);
    }
    for (_, b) in FIXP_SEEDS.iter() {
        fuzzing::fixp_session(b);
    }
    let run = |name: &str| {
        let seed = FIXP_SEEDS.iter().find(|(n, _)| n == name).unwrap();
        fuzzing::fixp_session(&seed.1)
    };
    // The scripts reach what their names say (so the corpus starts deep in the state machine).
    let happy = run("happy");
    assert_eq!(
        (happy.state, happy.applications),
        (SessionState::Terminated, 2)
    );
    assert_eq!(
        happy.replies, 3,
        "NegotiationResponse, EstablishmentAck, Terminate"
    );
    let er = run("report_from_strategy");
    assert_eq!(
        (er.state, er.applications, er.replies),
        (SessionState::Established, 1, 3)
    );
    let gap = run("gap_and_retransmit");
    assert_eq!(
        (
            gap.state,
            gap.applications,
            gap.not_applied,
            gap.retransmits
        ),
        (SessionState::Established, 2, 1, 1)
    );
    let timeout = run("keepalive_timeout");
    assert_eq!(
        (timeout.state, timeout.applications),
        (SessionState::Terminated, 0)
    );
    for name in [
        "order_before_negotiate",
        "bad_credentials",
        "recoverable_client",
        "establish_other_id",
    ] {
        assert_eq!(run(name).state, SessionState::Terminated, "{name}");
    }
    maybe_write_corpus("rest_envelope", &REST_SEEDS);
    maybe_write_corpus("ws_control", &WS_SEEDS);
    maybe_write_corpus("fixp_session", &FIXP_SEEDS);
}

/// The unfilled-orders fixture is a real page: the envelope and page parsers accept it.
#[test]
fn unfilled_orders_fixture_parses() {
    let (_, body) = fixtures("rest_unfilled_orders").remove(0);
    let data = gateway::exchange::rest::parse_envelope(200, &body).unwrap();
    let (orders, _) = gateway::exchange::rest_orders::parse_page(&data).unwrap();
    assert!(!orders.is_empty());
}

/// Every truncation of every REST and WebSocket fixture.
#[test]
fn truncated_fixtures() {
    for (_, b) in REST_SEEDS.iter() {
        for cut in 0..=b.len() {
            fuzzing::rest_envelope(&b[..cut]);
        }
    }
    for (_, b) in WS_SEEDS.iter() {
        for cut in 0..=b.len() {
            fuzzing::ws_control(&b[..cut]);
        }
    }
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(any::<Edit>(), 1..8)
}

fn pick(seeds: &Seeds, i: prop::sample::Index) -> &[u8] {
    &seeds[i.index(seeds.len())].1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn rest_random(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        fuzzing::rest_envelope(&bytes);
    }

    #[test]
    fn rest_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        fuzzing::rest_envelope(&mutate(pick(&REST_SEEDS, i), &e));
    }

    #[test]
    fn ws_control_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        fuzzing::ws_control(&mutate(pick(&WS_SEEDS, i), &e));
    }

    #[test]
    fn fixp_random(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        fuzzing::fixp_session(&bytes);
    }

    #[test]
    fn fixp_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        fuzzing::fixp_session(&mutate(pick(&FIXP_SEEDS, i), &e));
    }
}
