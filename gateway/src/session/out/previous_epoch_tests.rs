//! Retransmission across one rollover (issue 37 item 4): a RetransmitRequest naming the
//! previous epoch is answered from its journal segments while they are kept, and from the
//! in-memory journal; any other epoch, or retired segments, are refused.

use super::tests::{pair, read_frames, seq_frame};
use super::*;
use crate::journal::segments::SegmentPolicy;
use codec::frame::SOFH_LEN;
use codec::sbe::{self, Message, RetransmitRequest};

fn req(session_id: u64, epoch: Option<u64>, from: u64, count: u32) -> RetransmitRequest {
    RetransmitRequest {
        session_id,
        timestamp: 1,
        from_seq_no: from,
        count,
        last_session_ver_id: epoch,
    }
}

/// Reads one frame: a RetransmitReject's reason (panics on anything else).
fn reject_reason(s: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let mut head = [0u8; SOFH_LEN];
    s.read_exact(&mut head).unwrap();
    let len = u32::from_be_bytes(head[..4].try_into().unwrap()) as usize;
    let mut body = vec![0u8; len - SOFH_LEN];
    s.read_exact(&mut body).unwrap();
    match sbe::decode(&body) {
        Ok(Message::RetransmitReject(r)) => r.reason().as_str().to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_previous_epoch_is_answered_while_its_segments_are_kept() {
    let dir = std::env::temp_dir().join(format!("bgw-out-prev-epoch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let policy = SegmentPolicy {
        segment_bytes: 150,
        keep_segments: 3,
        archive_dir: None,
    };
    let (store, _) = Store::open_file(&dir, 5, &policy).unwrap();
    let out = SessionOut::detached(5, 1, store, 0);
    for n in 1..=3 {
        out.send(Flow::Application(Origin::Push), 0, seq_frame(100 + n));
    }
    out.start_epoch(1, 1_700_000_000_000).unwrap();
    assert!(out.maintain_journal().unwrap(), "epoch 1 rolls");
    for n in 1..=2 {
        out.send(Flow::Application(Origin::Push), 0, seq_frame(200 + n));
    }
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    // Epoch 0, two of its three messages, then the live number of epoch 1.
    assert_eq!(
        out.retransmit(&req(5, Some(0), 2, 2), 0),
        RetransmitOutcome::Sent(2)
    );
    assert_eq!(
        read_frames(&mut r, 4),
        [(10, 2), (7, 102), (7, 103), (7, 3)]
    );

    // A second rollover: epoch 1 is the previous one, epoch 0 two rollovers back.
    out.close();
    out.start_epoch(2, 1_700_000_001_000).unwrap();
    assert!(out.maintain_journal().unwrap(), "epoch 2 rolls");
    assert_eq!(
        out.previous_epoch(),
        Some(PreviousEpoch {
            epoch: 1,
            last_seq: 2
        })
    );
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    assert_eq!(
        out.retransmit(&req(5, Some(0), 1, 1), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::OutOfRange)
    );
    assert_eq!(
        reject_reason(&mut r),
        "LastSessionVerID is neither this epoch nor the previous one"
    );
    assert_eq!(
        out.retransmit(&req(5, Some(1), 1, 2), 0),
        RetransmitOutcome::Sent(2)
    );
    assert_eq!(
        read_frames(&mut r, 4),
        [(10, 1), (7, 201), (7, 202), (7, 1)]
    );

    // Epoch 2 fills segments until epoch 1's are retired (3 kept).
    let mut n = 0;
    while out
        .journal
        .lock()
        .store
        .segments()
        .iter()
        .any(|s| s.id.epoch < 2)
    {
        n += 1;
        assert!(out.send(Flow::Application(Origin::Push), 0, seq_frame(300 + n)));
        out.maintain_journal().unwrap();
        assert!(n < 100, "epoch 1's segments never retired");
    }
    let _ = read_frames(&mut r, n as usize);
    assert_eq!(
        out.retransmit(&req(5, Some(1), 1, 2), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::Unavailable)
    );
    assert_eq!(
        reject_reason(&mut r),
        "epoch 1 is no longer kept (retention)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Right after a rollover the previous epoch's last segment is among the newest two, which
/// retention always keeps (`MIN_KEEP_SEGMENTS`), whatever `keep_segments`: the end of the
/// epoch, what a strategy that lost its connection just before the rollover missed.
#[test]
fn the_previous_epochs_last_segment_outlives_the_rollover_with_the_fewest_segments_kept() {
    let dir = std::env::temp_dir().join(format!("bgw-out-prev-keep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let policy = SegmentPolicy {
        segment_bytes: 150,
        keep_segments: 2,
        archive_dir: None,
    };
    let (store, _) = Store::open_file(&dir, 6, &policy).unwrap();
    let out = SessionOut::detached(6, 1, store, 0);
    for n in 1..=12 {
        out.send(Flow::Application(Origin::Push), 0, seq_frame(100 + n));
        out.maintain_journal().unwrap();
    }
    out.start_epoch(1, 1_700_000_000_000).unwrap();
    assert!(out.maintain_journal().unwrap());
    let epochs: Vec<u64> = out
        .journal
        .lock()
        .store
        .segments()
        .iter()
        .map(|s| s.id.epoch)
        .collect();
    assert_eq!(epochs, [0, 1]);
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    assert_eq!(
        out.retransmit(&req(6, Some(0), 12, 1), 0),
        RetransmitOutcome::Sent(1)
    );
    assert_eq!(read_frames(&mut r, 3), [(10, 12), (7, 112), (7, 1)]);
    // Earlier messages of epoch 0 were in retired segments.
    assert_eq!(
        out.retransmit(&req(6, Some(0), 1, 1), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::Unavailable)
    );
    let reason = reject_reason(&mut r);
    assert!(
        reason.starts_with("epoch 0: messages before seq ") && reason.ends_with(" no longer kept"),
        "{reason}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without a journal directory the writer keeps the previous epoch in memory (and forgets the
/// one before it at the next rollover).
#[test]
fn the_in_memory_journal_answers_the_previous_epoch() {
    let out = SessionOut::detached(7, 1, Store::memory(), 0);
    for n in 1..=2 {
        out.send(Flow::Application(Origin::Push), 0, seq_frame(100 + n));
    }
    out.start_epoch(1, 1).unwrap();
    out.send(Flow::Application(Origin::Push), 0, seq_frame(201));
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    assert_eq!(
        out.retransmit(&req(7, Some(0), 1, 2), 0),
        RetransmitOutcome::Sent(2)
    );
    assert_eq!(
        read_frames(&mut r, 4),
        [(10, 1), (7, 101), (7, 102), (7, 2)]
    );
    assert_eq!(
        out.retransmit(&req(7, None, 1, 1), 0),
        RetransmitOutcome::Sent(1)
    );
    assert_eq!(read_frames(&mut r, 3), [(10, 1), (7, 201), (7, 2)]);
    out.close();
    out.start_epoch(2, 2).unwrap();
    out.send(Flow::Application(Origin::Push), 0, seq_frame(301));
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    assert_eq!(
        out.retransmit(&req(7, Some(1), 1, 1), 0),
        RetransmitOutcome::Sent(1)
    );
    assert_eq!(read_frames(&mut r, 3), [(10, 1), (7, 201), (7, 2)]);
    // Epoch 0 is gone from memory (and two rollovers back anyway).
    let bytes = out.journal.lock().store.with_records(|b, _| b.len());
    assert!(bytes > 0);
    assert_eq!(
        out.retransmit(&req(7, Some(0), 1, 1), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::OutOfRange)
    );
}
