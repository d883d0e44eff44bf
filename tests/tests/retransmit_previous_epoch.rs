//! Retransmission across one rollover end to end (issue 37 item 4; schema version 2, as CME
//! iLink 3 serves the previous UUID): a strategy that did not read the end of epoch N
//! negotiates epoch N+1, learns from EstablishmentAck (PreviousSessionVerID, PreviousSeqNo)
//! that it is short, asks for the rest with RetransmitRequest LastSessionVerID = N and gets the
//! original frames as the journal holds them; epoch N-1, or epoch N once retention retired its
//! segments, is refused; a RetransmitRequest of schema version 1 still reaches the epoch in
//! force.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use codec::frame::SOFH_LEN;
use codec::sbe::{ExecType, ExecutionReport, RetransmitRejectCode, RetransmitRequest};
use e2e::{resting_buy, Harness, Strategy};
use gateway::engine::settings::EngineSettings;
use gateway::journal::record::{Record, Records};
use gateway::journal::segments::{session_dir, MAGIC};
use strategy_client::{EpochSeq, Handshake, Received, StrategyClient};

/// A gateway journaling to `dir` in small segments (so that a few dozen reports retire the
/// oldest), without cancel on disconnect (a dropped connection leaves the orders alone).
fn journaled(dir: &Path) -> impl FnOnce(&mut EngineSettings) + '_ {
    move |s: &mut EngineSettings| {
        s.journal_dir = Some(dir.to_owned());
        s.journal_segments.segment_bytes = 2_000;
        s.journal_segments.keep_segments = 3;
        for g in &mut s.sessions {
            g.cancel_on_disconnect = false;
        }
    }
}

fn connect(h: &Harness, ver: u64, last_read: Option<EpochSeq>) -> StrategyClient {
    StrategyClient::connect_with(
        h.gateway().strategy_addr(),
        &Harness::client_options(1),
        Handshake {
            session_ver_id: ver,
            last_read,
            ..Handshake::default()
        },
    )
    .expect("connect")
}

/// The outbound frames of epoch `epoch` in the session's journal segments, by number.
fn journaled_frames(dir: &Path, epoch: u64) -> Vec<(u64, Vec<u8>)> {
    let sdir = session_dir(dir, 1);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&sdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "journal"))
        .collect();
    paths.sort();
    let mut out: Vec<(u64, Vec<u8>)> = Vec::new();
    for p in paths {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let seg_epoch: u64 = name[1..11].parse().unwrap();
        // A segment being created (no magic yet) or retired meanwhile holds nothing to read.
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
        let Some(records) = bytes.get(MAGIC.len()..) else {
            continue;
        };
        let mut inside = seg_epoch == epoch;
        for rec in Records::new(records) {
            match rec {
                Record::Epoch { epoch: e, .. } => inside = e == epoch,
                // A segment starts with a copy of its predecessor's last records.
                Record::Outbound { seq, frame, .. }
                    if inside && !out.iter().any(|(s, _)| *s == seq) =>
                {
                    out.push((seq, frame.to_vec()));
                }
                _ => {}
            }
        }
    }
    out.sort_by_key(|(s, _)| *s);
    out
}

/// `er` encoded again: the frame the gateway wrote, if it decoded to the same fields.
fn frame_of(er: &ExecutionReport) -> Vec<u8> {
    let mut f = Vec::new();
    er.encode_frame(&mut f);
    f
}

/// The next RetransmitReject (past keepalives); panics on anything else.
fn reject(s: &mut Strategy) -> (RetransmitRejectCode, String) {
    match s.next_message() {
        Received::RetransmitReject(r) => (r.code, r.reason.as_str().to_string()),
        other => panic!("expected RetransmitReject, got {other:?}"),
    }
}

#[test]
fn a_strategy_short_of_the_previous_epoch_gets_its_end_from_the_journal() {
    let dir = std::env::temp_dir().join(format!("bgw-e2e-prev-epoch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let h = Harness::start_with(e2e::quiet_sim_config(), journaled(&dir));

    // Epoch 0: three orders; the strategy reads the first report only, then its connection
    // drops (no Terminate) with the other two unread in the socket.
    let mut s = Strategy::from_client(connect(&h, 0, None));
    for cl in 1..=3 {
        s.c.send_new_order(&resting_buy(cl)).unwrap();
    }
    let first = s.exec();
    assert_eq!((first.cl_ord_id, first.exec_type), (1, ExecType::New));
    let read = s.c.last_read();
    assert_eq!(
        read,
        EpochSeq {
            session_ver_id: 0,
            seq: 1
        }
    );
    // The gateway numbers the other two (and nothing else: no fills, no cancel on disconnect).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while journaled_frames(&dir, 0).len() < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "reports 2 and 3 not journaled"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(s);
    std::thread::sleep(Duration::from_millis(100));

    // Epoch 1, asked for: EstablishmentAck names epoch 0 and its last message, 3; the client
    // asks for 2..=3 of epoch 0 and hands them over apart, the original frames.
    let mut c = connect(&h, 1, Some(read));
    assert_eq!(c.session_ver_id(), 1);
    assert_eq!(
        c.previous_epoch(),
        Some(EpochSeq {
            session_ver_id: 0,
            seq: 3
        })
    );
    let prev = c.take_previous_epoch().expect("the rest of epoch 0");
    assert_eq!(prev.session_ver_id, 0);
    assert!(prev.rejected.is_none(), "{:?}", prev.rejected);
    let journal = journaled_frames(&dir, 0);
    assert_eq!(journal.len(), 3);
    let got: Vec<(u64, Vec<u8>)> = prev
        .messages
        .iter()
        .map(|(seq, m)| match m {
            Received::Exec(er) => (*seq, frame_of(er)),
            other => panic!("expected ExecutionReport, got {other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        journal[1..],
        "epoch 0's messages 2 and 3, byte for byte"
    );
    let cls: Vec<u64> = prev
        .messages
        .iter()
        .map(|(_, m)| match m {
            Received::Exec(er) => er.cl_ord_id,
            _ => 0,
        })
        .collect();
    assert_eq!(cls, [2, 3]);
    // Then the new epoch from 1: the three orders carried open, reported OrderStatus.
    let mut s = Strategy::from_client(c);
    if s.c.next_in_seq() > 1 {
        let n = u32::try_from(s.c.next_in_seq() - 1).unwrap();
        s.c.send_retransmit_request(1, n).unwrap();
    }
    let mut statuses = Vec::new();
    while statuses.len() < 3 {
        match s.next_message() {
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::OrderStatus);
                statuses.push(er.cl_ord_id);
            }
            Received::Retransmission(r) => assert_eq!(r.session_ver_id, Some(1)),
            other => panic!("{other:?}"),
        }
    }
    statuses.sort_unstable();
    assert_eq!(statuses, [1, 2, 3]);
    s.c.terminate().unwrap();
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_rollovers_back_or_retired_segments_are_refused_and_a_version_1_request_still_works() {
    let dir = std::env::temp_dir().join(format!("bgw-e2e-prev-reject-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let h = Harness::start_with(e2e::quiet_sim_config(), journaled(&dir));
    // Epoch 0: one order; epoch 1: one more; then epoch 2.
    let mut s = Strategy::from_client(connect(&h, 0, None));
    s.c.send_new_order(&resting_buy(1)).unwrap();
    assert_eq!(s.exec().exec_type, ExecType::New);
    s.c.terminate().unwrap();
    drop(s);
    let mut s = Strategy::from_client(connect(&h, 1, None));
    // The rollover's OrderStatus of order 1 comes a tick apart: let it pass, so that order 2's
    // New is epoch 1's last message.
    std::thread::sleep(Duration::from_millis(300));
    while s.c.recv(Duration::from_millis(100)).unwrap().is_some() {}
    s.c.send_new_order(&resting_buy(2)).unwrap();
    let epoch1_last = loop {
        match s.next_message() {
            Received::Exec(er) if er.cl_ord_id == 2 => break s.c.last_seq(),
            _ => continue,
        }
    };
    s.c.terminate().unwrap();
    drop(s);
    let mut s = Strategy::from_client(connect(&h, 2, None));
    // The rollover's OrderStatus reports (orders 1 and 2) come a tick apart: let them pass.
    std::thread::sleep(Duration::from_millis(300));
    while s.c.recv(Duration::from_millis(100)).unwrap().is_some() {}
    assert_eq!(
        s.c.previous_epoch(),
        Some(EpochSeq {
            session_ver_id: 1,
            seq: epoch1_last
        })
    );
    // Epoch 0 is two rollovers back.
    s.c.send_retransmit_request_in(Some(0), 1, 1).unwrap();
    let (code, reason) = reject(&mut s);
    assert_eq!(code, RetransmitRejectCode::OutOfRange);
    assert_eq!(
        reason,
        "LastSessionVerID is neither this epoch nor the previous one"
    );
    // Epoch 1 is answered while its segments are kept: Retransmission names it.
    s.c.send_retransmit_request_in(Some(1), epoch1_last, 1)
        .unwrap();
    match s.next_message() {
        Received::Retransmission(r) => {
            assert_eq!(
                (r.session_ver_id, r.next_seq_no, r.count),
                (Some(1), epoch1_last, 1)
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.exec().cl_ord_id, 2);

    // A version-1 RetransmitRequest (28-byte block, no LastSessionVerID): the epoch in force.
    let n = s.c.next_in_seq() - 1;
    assert!(n >= 1, "epoch 2 reported the carried orders");
    let mut v1 = Vec::new();
    RetransmitRequest {
        session_id: 1,
        timestamp: 0,
        from_seq_no: 1,
        count: 1,
        last_session_ver_id: Some(1),
    }
    .encode_frame(&mut v1);
    v1.truncate(SOFH_LEN + 8 + 28);
    codec::frame::write_sofh(&mut v1, SOFH_LEN + 8 + 28);
    v1[SOFH_LEN..SOFH_LEN + 2].copy_from_slice(&28u16.to_le_bytes());
    v1[SOFH_LEN + 6..SOFH_LEN + 8].copy_from_slice(&1u16.to_le_bytes());
    s.c.send_raw(&v1).unwrap();
    match s.next_message() {
        Received::Retransmission(r) => {
            assert_eq!((r.session_ver_id, r.next_seq_no, r.count), (Some(2), 1, 1))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.exec().exec_type, ExecType::OrderStatus);

    // Epoch 2 fills segments until epoch 1's are retired: then Unavailable, saying so.
    let mut cl = 100;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while journaled_frames(&dir, 1)
        .iter()
        .any(|(seq, _)| *seq == epoch1_last)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "epoch 1 never retired"
        );
        cl += 1;
        s.c.send_new_order(&resting_buy(cl)).unwrap();
        assert_eq!(s.exec().cl_ord_id, cl);
    }
    // The writers' index follows the journal thread's turn.
    std::thread::sleep(Duration::from_millis(50));
    s.c.send_retransmit_request_in(Some(1), epoch1_last, 1)
        .unwrap();
    let (code, reason) = reject(&mut s);
    assert_eq!(code, RetransmitRejectCode::Unavailable);
    assert_eq!(reason, "epoch 1 is no longer kept (retention)");
    s.c.terminate().unwrap();
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
