use super::*;
use codec::frame::{peek_frame, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::sbe::{self, Message, RetransmitRequest, Sequence};
use gateway_core::journal::record::{Record, Records};
use std::io::Read;
use std::net::TcpListener;

/// A connected pair: (gateway-side non-blocking writer, strategy-side reader).
pub(super) fn pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (server, _) = l.accept().unwrap();
    server.set_nonblocking(true).unwrap();
    client
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    (server, client)
}

/// Reads `n` frames; returns (template id, Sequence/Retransmission number or 0).
pub(super) fn read_frames(s: &mut TcpStream, n: usize) -> Vec<(u16, u64)> {
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    while out.len() < n {
        while let Some(len) = peek_frame(&buf, DEFAULT_MAX_FRAME_LEN).unwrap() {
            let m = sbe::decode(&buf[SOFH_LEN..len]).unwrap();
            let num = match m {
                Message::Sequence(q) => q.next_seq_no(),
                Message::Retransmission(r) => r.next_seq_no(),
                Message::EstablishmentAck(a) => a.next_seq_no(),
                _ => 0,
            };
            out.push((m.template_id(), num));
            buf.drain(..len);
        }
        if out.len() >= n {
            break;
        }
        let k = s.read(&mut chunk).unwrap();
        assert!(k > 0, "closed");
        buf.extend_from_slice(&chunk[..k]);
    }
    out
}

pub(super) fn seq_frame(n: u64) -> impl FnOnce(&mut Vec<u8>) {
    move |b| Sequence { next_seq_no: n }.encode_frame(b)
}

/// Issue 10: with records moved to the file every millisecond, a SIGKILL lost the frames
/// the strategy had just received; the restarted gateway gave their sequence numbers to
/// other messages (repeated and lost reports). A frame written to the socket is in the
/// file already, with its origin, without any flush.
#[test]
fn a_frame_is_in_the_journal_file_before_it_reaches_the_socket() {
    let dir = std::env::temp_dir().join(format!("bgw-write-ahead-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let policy = crate::journal::segments::SegmentPolicy::default();
    let (store, _) = Store::open_file(&dir, 4, &policy).unwrap();
    let out = SessionOut::detached(4, 1, store, 0);
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    out.journal_ids(&[(11, 11)], &[]);
    assert!(out.send(Flow::Application(Origin::Reply), 0, seq_frame(200)));
    assert_eq!(read_frames(&mut r, 1), [(7, 200)]);
    // Read as a restart would, with no flush_journal and no journal thread.
    let (store2, recovered) = Store::open_file(&dir, 4, &policy).unwrap();
    assert_eq!(recovered.next_seq, 2, "the frame sent is journaled");
    assert_eq!(recovered.roots.get(&11), Some(&11));
    let bytes = std::fs::read(store2.path().unwrap()).unwrap();
    let origins: Vec<Origin> = Records::new(&bytes[8..])
        .filter_map(|rec| match rec {
            Record::Outbound { origin, .. } => Some(origin),
            _ => None,
        })
        .collect();
    assert_eq!(origins, [Origin::Reply]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corked_frames_leave_together_at_uncork_in_order() {
    let out = SessionOut::detached(3, 1, Store::memory(), 0);
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    out.cork();
    for n in 0..5 {
        assert!(out.send(Flow::Application(Origin::Reply), 0, seq_frame(300 + n)));
    }
    // Queued, numbered, not written (a flush between does not write them either).
    out.flush();
    r.set_nonblocking(true).unwrap();
    let mut probe = [0u8; 64];
    assert_eq!(
        r.read(&mut probe).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock)
    );
    r.set_nonblocking(false).unwrap();
    assert_eq!(out.next_seq(), 6);
    out.uncork();
    assert!(out.send(Flow::Application(Origin::Reply), 0, seq_frame(305)));
    let got: Vec<u64> = read_frames(&mut r, 6).iter().map(|f| f.1).collect();
    assert_eq!(got, [300, 301, 302, 303, 304, 305]);
    // A new connection starts uncorked.
    out.cork();
    let (w2, mut r2) = pair();
    assert!(out.attach(Arc::new(w2), 0, |_, _| {}));
    assert!(out.send(Flow::Application(Origin::Reply), 0, seq_frame(306)));
    assert_eq!(read_frames(&mut r2, 1), [(7, 306)]);
}

#[test]
fn numbering_continues_while_detached_and_missed_frames_are_retransmitted() {
    let out = SessionOut::detached(9, 1, Store::memory(), 0);
    // Produced before any connection: numbered 1 and 2, journaled, not written.
    assert!(!out.send(Flow::Application(Origin::Push), 0, seq_frame(100)));
    assert!(!out.send(Flow::Application(Origin::Push), 0, seq_frame(101)));
    assert_eq!(out.next_seq(), 3);
    assert!(!out.send(Flow::Session, 0, seq_frame(0)));

    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |next, b| {
        codec::sbe::EstablishmentAck {
            session_id: 9,
            request_timestamp: 0,
            keepalive_interval: 1000,
            next_seq_no: next,
            previous_session_ver_id: None,
            previous_seq_no: 0,
        }
        .encode_frame(b)
    }));
    assert!(out.send(Flow::Application(Origin::Push), 0, seq_frame(102)));
    let got = read_frames(&mut r, 2);
    assert_eq!(
        got,
        [(5, 3), (7, 102)],
        "ack announces 3, then the live frame"
    );

    let req = |from, count| RetransmitRequest {
        session_id: 9,
        timestamp: 1,
        from_seq_no: from,
        count,
        last_session_ver_id: None,
    };
    assert_eq!(out.retransmit(&req(1, 2), 0), RetransmitOutcome::Sent(2));
    // Retransmission(1), the two original frames byte for byte, Sequence(4).
    assert_eq!(
        read_frames(&mut r, 4),
        [(10, 1), (7, 100), (7, 101), (7, 4)]
    );
    assert_eq!(
        out.retransmit(&req(3, 2), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::OutOfRange)
    );
    assert_eq!(
        out.retransmit(&req(0, 1), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::OutOfRange)
    );
    assert_eq!(
        out.retransmit(&req(1, MAX_RETRANSMIT_COUNT + 1), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::RequestLimitExceeded)
    );
    let other = RetransmitRequest {
        session_id: 8,
        ..req(1, 1)
    };
    assert_eq!(
        out.retransmit(&other, 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::InvalidSession)
    );
    assert_eq!(
        read_frames(&mut r, 4).iter().filter(|f| f.0 == 11).count(),
        4
    );

    // Detached again: still numbered.
    out.close();
    assert!(out.is_closed());
    assert!(!out.send(Flow::Application(Origin::Push), 0, seq_frame(103)));
    assert_eq!(out.next_seq(), 5);
}

/// Segments roll under the session's writers (journal thread's turn after each send); a
/// RetransmitRequest spanning two segments gets its frames byte for byte, one for
/// messages no longer kept gets RetransmitReject Unavailable saying from where they are.
#[test]
fn retransmission_reads_across_segments_and_says_what_retention_dropped() {
    use crate::journal::segments::SegmentPolicy;
    let dir = std::env::temp_dir().join(format!("bgw-out-segments-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let policy = SegmentPolicy {
        segment_bytes: 150,
        keep_segments: 3,
        archive_dir: None,
    };
    let (store, _) = Store::open_file(&dir, 5, &policy).unwrap();
    let out = SessionOut::detached(5, 1, store, 0);
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    let mut rolls = 0;
    for n in 1..=12u64 {
        assert!(out.send(Flow::Application(Origin::Push), 0, seq_frame(1000 + n)));
        out.journal_ids(&[(n, n)], &[]);
        rolls += usize::from(out.maintain_journal().unwrap());
    }
    assert_eq!(read_frames(&mut r, 12).len(), 12);
    assert!(rolls >= 2, "{rolls} rolls");
    let firsts: Vec<u64> = out
        .journal
        .lock()
        .store
        .segments()
        .iter()
        .map(|s| s.first_seq)
        .collect();
    assert_eq!(firsts.len(), 3);
    let req = |from, count| RetransmitRequest {
        session_id: 5,
        timestamp: 1,
        from_seq_no: from,
        count,
        last_session_ver_id: None,
    };
    // From the oldest kept segment into the next.
    let from = firsts[0];
    let count = u32::try_from(firsts[1] + 1 - from).unwrap();
    assert_eq!(
        out.retransmit(&req(from, count), 0),
        RetransmitOutcome::Sent(count)
    );
    let got = read_frames(&mut r, count as usize + 2);
    let want: Vec<(u16, u64)> = std::iter::once((10, from))
        .chain((from..from + u64::from(count)).map(|n| (7, 1000 + n)))
        .chain(std::iter::once((7, 13)))
        .collect();
    assert_eq!(got, want);
    // Before the oldest kept segment: gone.
    assert_eq!(
        out.retransmit(&req(firsts[0] - 1, 2), 0),
        RetransmitOutcome::Rejected(RetransmitRejectCode::Unavailable)
    );
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let reason = loop {
        if let Some(len) = peek_frame(&buf, DEFAULT_MAX_FRAME_LEN).unwrap() {
            if let Message::RetransmitReject(rj) = sbe::decode(&buf[SOFH_LEN..len]).unwrap() {
                break rj.to_owned().reason;
            }
            buf.drain(..len);
            continue;
        }
        let k = r.read(&mut chunk).unwrap();
        buf.extend_from_slice(&chunk[..k]);
    };
    assert_eq!(
        reason.as_str(),
        format!(
            "messages before seq {} are no longer kept (retention)",
            firsts[0]
        )
    );
    // A restart recovers the same numbering from the newest segment.
    drop(out);
    let (_, rec) = Store::open_file(&dir, 5, &policy).unwrap();
    assert_eq!(rec.next_seq, 13);
    assert_eq!(rec.used.iter_ranges().collect::<Vec<_>>(), [(1, 12)]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writers and the journal thread at once: a thread rolls (every turn it can) while this
/// one sends 20 000 messages and journals a ClOrdID for each. Every message stays in the
/// kept segments, in order, each once after de-duplicating the copies a roll makes; a
/// restart recovers the numbering and every ClOrdID.
#[test]
fn rolling_while_writers_append_loses_and_reorders_nothing() {
    use crate::journal::segments::SegmentPolicy;
    let dir = std::env::temp_dir().join(format!("bgw-out-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let policy = SegmentPolicy {
        segment_bytes: 1024,
        keep_segments: 100_000,
        archive_dir: None,
    };
    let (store, _) = Store::open_file(&dir, 6, &policy).unwrap();
    let out = Arc::new(SessionOut::detached(6, 1, store, 0));
    let stop = Arc::new(AtomicBool::new(false));
    let roller = {
        let (out, stop) = (Arc::clone(&out), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut rolls = 0u32;
            while !stop.load(Ordering::Relaxed) {
                rolls += u32::from(out.maintain_journal().unwrap());
                std::thread::yield_now();
            }
            rolls + u32::from(out.maintain_journal().unwrap())
        })
    };
    for n in 1..=20_000u64 {
        out.journal_ids(&[(n, n)], &[]);
        assert!(!out.send(Flow::Application(Origin::Push), 0, seq_frame(n)));
    }
    stop.store(true, Ordering::Relaxed);
    // How the two threads interleave varies; every interleaving must keep everything (the
    // last turn, after the writers stopped, rolls at least once).
    let rolls = roller.join().unwrap();
    assert!(rolls >= 1, "{rolls} rolls");
    // Every message, from the segments, in order.
    let paths: Vec<_> = out
        .journal
        .lock()
        .store
        .segments()
        .iter()
        .map(|s| s.path.clone())
        .collect();
    let mut expect = 1u64;
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        for rec in Records::new(&bytes[8..]) {
            if let Record::Outbound { seq, .. } = rec {
                assert!(seq <= expect, "gap before {seq} in {}", p.display());
                if seq == expect {
                    expect += 1;
                }
            }
        }
    }
    assert_eq!(expect, 20_001);
    drop(out);
    let (_, rec) = Store::open_file(&dir, 6, &policy).unwrap();
    assert_eq!(rec.next_seq, 20_001);
    assert_eq!(rec.used.iter_ranges().collect::<Vec<_>>(), [(1, 20_000)]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scheduled rollover's Terminate follows every message numbered before it, and what is
/// numbered after it belongs to the new epoch (number 1, journaled, not written to the closing
/// connection): nothing of the old epoch comes after its Terminate (found by the soak: a
/// Canceled report numbered there was never delivered).
#[test]
fn a_rollover_terminate_ends_the_epoch_behind_it() {
    let out = SessionOut::detached(6, 1, Store::memory(), 0);
    let (w, mut r) = pair();
    assert!(out.attach(Arc::new(w), 0, |_, _| {}));
    assert!(out.send(Flow::Application(Origin::Push), 0, seq_frame(400)));
    assert!(out.send(Flow::Application(Origin::Push), 0, seq_frame(401)));
    out.terminate_for_rollover(1, 1_700_000_000_000, "rollover")
        .unwrap();
    assert_eq!((out.epoch(), out.next_seq()), (1, 1));
    assert!(out.is_closed());
    // A report produced while the connection closes: the new epoch's first, not written here.
    assert!(!out.send(Flow::Application(Origin::Push), 0, seq_frame(402)));
    assert_eq!(out.next_seq(), 2);
    let got = read_frames(&mut r, 3);
    assert_eq!(
        got,
        [(7, 400), (7, 401), (Terminate::TEMPLATE_ID, 0)],
        "the old epoch's messages, then its Terminate"
    );
    out.close();
    r.set_read_timeout(Some(std::time::Duration::from_millis(200)))
        .unwrap();
    let mut rest = Vec::new();
    let _ = r.read_to_end(&mut rest);
    assert!(rest.is_empty(), "nothing after the Terminate");
    // Journaled: the old epoch's messages, the epoch record, then message 1 of epoch 1 (a
    // memory journal keeps the previous epoch: a RetransmitRequest may name it).
    out.flush_journal().unwrap();
    let tail: Vec<String> = out.journal.lock().store.with_records(|bytes, _| {
        Records::new(bytes)
            .filter_map(|rec| match rec {
                Record::Outbound { seq, .. } => Some(format!("out {seq}")),
                Record::Epoch { epoch, .. } => Some(format!("epoch {epoch}")),
                _ => None,
            })
            .collect()
    });
    assert_eq!(tail, ["out 1", "out 2", "epoch 1", "out 1"]);
    assert_eq!(
        out.previous_epoch(),
        Some(PreviousEpoch {
            epoch: 0,
            last_seq: 2
        })
    );
}

/// A rollover's first messages, numbered between the epoch record and the journal thread's
/// next turn, are retransmitted after the epoch's first roll: the roll checkpoints at the
/// epoch record, and after a restart in between (its checkpoint then lies past them) the
/// segment holding the epoch record is read too (found by the endurance bench: a strategy's
/// gap at the start of an epoch was refused "no longer kept" and 3 311 messages were lost).
#[test]
fn a_new_epochs_first_messages_are_retransmitted_after_its_first_roll() {
    use crate::journal::segments::SegmentPolicy;
    for restart_before_roll in [false, true] {
        let dir = std::env::temp_dir().join(format!(
            "bgw-out-epoch-{}-{restart_before_roll}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let policy = SegmentPolicy {
            segment_bytes: 1 << 20,
            keep_segments: 4,
            archive_dir: None,
        };
        let (store, _) = Store::open_file(&dir, 8, &policy).unwrap();
        let mut out = SessionOut::detached(8, 1, store, 0);
        for n in 1..=3 {
            out.send(Flow::Application(Origin::Push), 0, seq_frame(100 + n));
        }
        assert!(!out.maintain_journal().unwrap());
        out.start_epoch(1, 1_700_000_000_000).unwrap();
        // Epoch 1's messages 1..=4, before the journal thread's turn.
        for n in 1..=4 {
            out.send(Flow::Application(Origin::Restart), 0, seq_frame(200 + n));
        }
        if restart_before_roll {
            drop(out);
            let (store, rec) = Store::open_file(&dir, 8, &policy).unwrap();
            assert_eq!((rec.epoch, rec.next_seq), (1, 5));
            out = SessionOut::detached(8, rec.next_seq, store, 0)
                .in_epoch(rec.epoch, rec.previous_epoch);
        }
        assert_eq!(
            out.previous_epoch(),
            Some(PreviousEpoch {
                epoch: 0,
                last_seq: 3
            })
        );
        assert!(out.maintain_journal().unwrap(), "the new epoch rolls");
        out.send(Flow::Application(Origin::Push), 0, seq_frame(205));
        let (w, mut r) = pair();
        assert!(out.attach(Arc::new(w), 0, |_, _| {}));
        let mut req = RetransmitRequest {
            session_id: 8,
            timestamp: 1,
            from_seq_no: 1,
            count: 5,
            last_session_ver_id: None,
        };
        assert_eq!(
            out.retransmit(&req, 0),
            RetransmitOutcome::Sent(5),
            "restart before the roll: {restart_before_roll}"
        );
        let want: Vec<(u16, u64)> = std::iter::once((10, 1))
            .chain((201..=205).map(|n| (7, n)))
            .chain(std::iter::once((7, 6)))
            .collect();
        assert_eq!(read_frames(&mut r, 7), want);
        // The previous epoch (0), from the segment before the rollover: its frames only, then
        // the live number of epoch 1.
        req.last_session_ver_id = Some(0);
        req.count = 3;
        assert_eq!(out.retransmit(&req, 0), RetransmitOutcome::Sent(3));
        let want: Vec<(u16, u64)> = std::iter::once((10, 1))
            .chain((101..=103).map(|n| (7, n)))
            .chain(std::iter::once((7, 6)))
            .collect();
        assert_eq!(read_frames(&mut r, 5), want);
        req.count = 4;
        assert_eq!(
            out.retransmit(&req, 0),
            RetransmitOutcome::Rejected(RetransmitRejectCode::OutOfRange),
            "past the previous epoch's last message"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
