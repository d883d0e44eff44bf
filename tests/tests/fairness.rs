//! One session flooding the io thread does not hold another's requests back, over real
//! sockets: a connection handles a bounded number of frames (`FRAMES_PER_TURN`) before the
//! others are served, so a well-behaved session's request is answered while the flood is still
//! being worked through, not after it. Measured without a clock bound: by the TransactTime the
//! gateway stamps on each answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use codec::sbe::ExecType;
use e2e::{quiet_sim_config, unknown_symbol_order, Harness, Strategy};

/// Orders in the flood: more than one read's worth many times over.
const FLOOD: u64 = 20_000;

#[test]
fn a_flooding_session_does_not_hold_back_another_sessions_request() {
    let h = Harness::start(quiet_sim_config());
    let mut flood = h.client(1);
    let mut calm = h.client(2);

    // The whole flood, written in one go by a thread (the gateway's socket buffers then hold
    // far more than a read's worth).
    let mut bytes = Vec::new();
    for cl in 1..=FLOOD {
        unknown_symbol_order(cl).encode_frame(&mut bytes);
    }
    let mut writer = flood.c.sender().unwrap();
    let sent = std::thread::spawn(move || writer.send_raw(&bytes).unwrap());

    // Once the gateway is working through the flood, the calm session asks once.
    let first = flood.exec();
    assert_eq!(first.exec_type, ExecType::Rejected);
    calm.c.send_new_order(&unknown_symbol_order(1)).unwrap();
    let answer = calm.exec();
    assert_eq!(answer.exec_type, ExecType::Rejected);

    let mut after = 0u64;
    for _ in 1..FLOOD {
        let er = flood_exec(&mut flood);
        if er > answer.transact_time {
            after += 1;
        }
    }
    sent.join().unwrap();
    // Served within the flood, not behind it: most of the flood was answered after it (with
    // a connection that read and handled everything buffered before yielding, none was).
    assert!(
        after > FLOOD / 4,
        "only {after} of {FLOOD} flood answers came after the calm session's"
    );
}

/// The next flood answer's TransactTime (every one is a Rejected report).
fn flood_exec(s: &mut Strategy) -> u64 {
    let er = s.exec();
    assert_eq!(er.exec_type, ExecType::Rejected);
    er.transact_time
}
