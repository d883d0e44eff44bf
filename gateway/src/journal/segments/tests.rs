use super::*;
use crate::journal::store::Store;
use gateway_core::journal::record::{put_cl_ord_id, put_list_id, put_outbound, Origin};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bgw-seg-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn small(keep: usize) -> SegmentPolicy {
    SegmentPolicy {
        segment_bytes: 300,
        keep_segments: keep,
        archive_dir: None,
    }
}

/// Records for outbound message `seq` and a ClOrdID `seq` (used, not answered).
fn records(seq: u64) -> Vec<u8> {
    let mut b = Vec::new();
    put_cl_ord_id(&mut b, seq, seq);
    put_outbound(&mut b, seq, Origin::Push, &[0xAB; 40]);
    b
}

/// What the journal thread does for one session (as `SessionOut::maintain_journal`): fold,
/// and roll when full. True when it rolled.
fn turn(store: &mut Store, roller: &mut Roller) -> bool {
    roller.catch_up().unwrap();
    if !roller.full() {
        return false;
    }
    let mut next = roller.prepare().unwrap();
    roller.switch(&mut next).unwrap();
    let dropped = store.switch_segment(next, roller.keep_segments());
    roller.retire(dropped);
    true
}

/// Writes messages `from..=to` and takes the journal thread's turn after each.
fn write(store: &mut Store, roller: &mut Roller, from: u64, to: u64) -> usize {
    let mut rolls = 0;
    for seq in from..=to {
        store.append(&records(seq)).unwrap();
        rolls += usize::from(turn(store, roller));
    }
    rolls
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn segments_roll_and_a_restart_reads_the_newest_one() {
    let dir = temp_dir("roll");
    let policy = small(100);
    let (mut store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(rec.next_seq, 1);
    let mut roller = store.take_roller().unwrap();
    let rolls = write(&mut store, &mut roller, 1, 40);
    assert!(rolls >= 5, "{rolls} rolls");
    let segs = store.segments().to_vec();
    assert_eq!(segs.len(), rolls + 1);
    // Each segment's first number follows the previous one's messages.
    assert_eq!(segs[0].first_seq, 1);
    assert!(segs.windows(2).all(|w| w[0].first_seq < w[1].first_seq));
    let whole = roller.fold().recovered();
    drop((store, roller));

    let (store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(rec, whole);
    assert_eq!(rec.next_seq, 41);
    assert_eq!(rec.used.iter_ranges().collect::<Vec<_>>(), [(1, 40)]);
    assert_eq!(rec.roots.len(), 40);
    assert_eq!(store.segments().len(), segs.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_torn_checkpoint_falls_back_to_the_previous_segment() {
    let dir = temp_dir("torn");
    let policy = small(100);
    let (mut store, _) = Store::open_file(&dir, 7, &policy).unwrap();
    let mut roller = store.take_roller().unwrap();
    write(&mut store, &mut roller, 1, 10);
    roller.catch_up().unwrap();
    let whole = roller.fold().recovered();
    let n = store.segments().len();
    // A crash while writing the next segment's checkpoint: half of it on disk.
    let next = roller.prepare().unwrap();
    let len = std::fs::metadata(&next.info.path).unwrap().len();
    next.file.set_len(len / 2).unwrap();
    let torn = next.info.path.clone();
    drop((store, roller, next));

    let (store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(rec, whole);
    assert!(!torn.exists(), "the torn segment is set aside");
    assert!(torn.with_extension("journal.unusable").exists());
    assert_eq!(store.segments().len(), n);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checkpoint_whose_copy_never_happened_is_not_used() {
    let dir = temp_dir("copy");
    let policy = small(100);
    let (mut store, _) = Store::open_file(&dir, 7, &policy).unwrap();
    let mut roller = store.take_roller().unwrap();
    write(&mut store, &mut roller, 1, 10);
    roller.catch_up().unwrap();
    // The next segment's checkpoint is whole, then the writers append two more messages to
    // the current one and the gateway dies before the switch.
    let next = roller.prepare().unwrap();
    let stale = next.info.path.clone();
    store.append(&records(11)).unwrap();
    store.append(&records(12)).unwrap();
    drop((store, roller, next));

    let (store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(
        rec.next_seq, 13,
        "the records after the checkpoint are not lost"
    );
    assert!(rec.used.contains(12));
    assert!(!stale.exists());
    assert_ne!(store.path(), Some(stale.as_path()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn retention_deletes_or_archives_the_oldest_segments() {
    let dir = temp_dir("keep");
    let policy = small(2);
    let (mut store, _) = Store::open_file(&dir, 7, &policy).unwrap();
    let mut roller = store.take_roller().unwrap();
    let rolls = write(&mut store, &mut roller, 1, 60);
    assert!(rolls >= 6);
    let sdir = session_dir(&dir, 7);
    assert_eq!(files(&sdir).len(), 2);
    assert_eq!(store.segments().len(), 2);
    let first_kept = store.segments()[0].first_seq;
    assert!(first_kept > 1);
    drop((store, roller));
    // A restart keeps the same state (the checkpoint holds everything before it).
    let (store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(rec.next_seq, 61);
    assert_eq!(rec.used.len(), 60);
    assert_eq!(store.segments()[0].first_seq, first_kept);
    drop(store);

    let archive = temp_dir("archive");
    let policy = SegmentPolicy {
        archive_dir: Some(archive.clone()),
        ..small(2)
    };
    let (mut store, _) = Store::open_file(&dir, 7, &policy).unwrap();
    let mut roller = store.take_roller().unwrap();
    let rolls = write(&mut store, &mut roller, 61, 100);
    assert_eq!(files(&sdir).len(), 2);
    assert_eq!(files(&session_dir(&archive, 7)).len(), rolls);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&archive);
}

/// A rollover's first segment is a segment like any other (checkpoint first): a restart whose
/// newest segment it is recovers the new epoch and what the old one carried, and appends to it
/// (found by the soak: read as the legacy file, it lost the carried orders and a new epoch-0
/// segment overwrote an old one).
#[test]
fn a_restart_in_the_first_segment_of_a_new_epoch_keeps_its_checkpoint() {
    let dir = temp_dir("epoch");
    let policy = small(100);
    let (mut store, _) = Store::open_file(&dir, 7, &policy).unwrap();
    let mut roller = store.take_roller().unwrap();
    assert!(write(&mut store, &mut roller, 1, 12) >= 1);
    let sdir = session_dir(&dir, 7);
    store.start_epoch(1, 1_700_000_000_000).unwrap();
    assert!(turn(&mut store, &mut roller), "a rollover starts a segment");
    // The old epoch's segments (its last one ends with the epoch record).
    let epoch0: Vec<(String, Vec<u8>)> = files(&sdir)
        .into_iter()
        .filter(|f| f.starts_with("e0000000000-"))
        .map(|f| (f.clone(), std::fs::read(sdir.join(&f)).unwrap()))
        .collect();
    store.append(&records(1)).unwrap();
    assert!(!turn(&mut store, &mut roller));
    let whole = roller.fold().recovered();
    assert_eq!(whole.epoch, 1);
    assert_eq!(
        files(&sdir).last().map(String::as_str),
        Some("e0000000001-s0000000001.journal")
    );
    drop((store, roller));

    for _ in 0..2 {
        let (store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
        assert_eq!(rec, whole);
        drop(store);
    }
    // The old epoch's segments are as they were: nothing of epoch 0 written after the restart.
    for (f, bytes) in &epoch0 {
        assert_eq!(&std::fs::read(sdir.join(f)).unwrap(), bytes, "{f}");
    }
    assert_eq!(files(&sdir).len(), epoch0.len() + 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_legacy_single_file_is_read_and_moved_into_the_layout() {
    let dir = temp_dir("legacy");
    std::fs::create_dir_all(&dir).unwrap();
    let mut b = MAGIC.to_vec();
    for seq in 1..=5 {
        b.extend_from_slice(&records(seq));
    }
    put_list_id(&mut b, 3);
    b.extend_from_slice(&records(6)[..10]); // torn
    std::fs::write(legacy_path(&dir, 9), &b).unwrap();

    let policy = small(100);
    let (mut store, rec) = Store::open_file(&dir, 9, &policy).unwrap();
    assert_eq!(rec.next_seq, 6);
    assert_eq!(rec.used.len(), 5);
    assert!(rec.list_ids.contains(3));
    assert!(!legacy_path(&dir, 9).exists());
    assert_eq!(
        files(&session_dir(&dir, 9)),
        [
            "e0000000000-s0000000000.journal",
            "e0000000000-s0000000001.journal"
        ]
    );
    assert_eq!(store.segments()[0].first_seq, 1);
    assert_eq!(store.segments()[1].first_seq, 6);
    let mut roller = store.take_roller().unwrap();
    write(&mut store, &mut roller, 6, 8);
    drop((store, roller));
    let (_, rec) = Store::open_file(&dir, 9, &policy).unwrap();
    assert_eq!(rec.next_seq, 9);
    assert_eq!(rec.used.iter_ranges().collect::<Vec<_>>(), [(1, 8)]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Not a test: prints how long opening a session's journal takes (`Store::open_file`: read
/// and fold) after `n` ExecutionReports, written as one legacy file versus segments of 64 MiB
/// with checkpoints (1 000 orders still open, the rest ended). Run:
/// `cargo test --release -p gateway --lib -- --ignored --nocapture restart_time`.
#[test]
#[ignore]
fn restart_time_single_file_versus_segments() {
    use codec::sbe::{
        Category, ExecType, ExecutionReport, OrdStatus, OrdType, Side, Symbol, Text, TimeInForce,
    };
    use std::time::Instant;
    let er = |cl: u64, status: OrdStatus| {
        let mut f = Vec::new();
        ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: 0,
            order_id: cl + 1_000_000,
            exec_id: cl,
            transact_time: 1_700_000_000_000_000_000 + cl,
            price: None,
            order_qty: codec::Decimal::ZERO,
            last_qty: None,
            last_px: None,
            cum_qty: codec::Decimal::ZERO,
            leaves_qty: codec::Decimal::ZERO,
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type: ExecType::New,
            ord_status: status,
            ord_rej_reason: None,
            text: Text::new(""),
        }
        .encode_frame(&mut f);
        f
    };
    // Report k: orders of two reports each (New, then Filled), the last 1 000 left open.
    let history = |n: u64, mut sink: &mut dyn FnMut(&[u8])| {
        let mut b = Vec::with_capacity(1 << 20);
        let open_from = n / 2 - 1_000;
        for k in 0..n / 2 {
            let cl = k + 1;
            put_cl_ord_id(&mut b, cl, cl);
            put_outbound(&mut b, 2 * k + 1, Origin::Reply, &er(cl, OrdStatus::New));
            let last = if k >= open_from {
                OrdStatus::PartiallyFilled
            } else {
                OrdStatus::Filled
            };
            put_outbound(&mut b, 2 * k + 2, Origin::Push, &er(cl, last));
            if b.len() > 256 * 1024 {
                sink(&b);
                b.clear();
            }
        }
        sink(&b);
        let _ = &mut sink;
    };
    for n in [100_000u64, 1_000_000] {
        let dir = temp_dir(&format!("bench-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        // One legacy file.
        let mut legacy = std::fs::File::create(legacy_path(&dir, 1)).unwrap();
        legacy.write_all(MAGIC).unwrap();
        history(n, &mut |b| legacy.write_all(b).unwrap());
        drop(legacy);
        let bytes = std::fs::metadata(legacy_path(&dir, 1)).unwrap().len();
        let t = Instant::now();
        let (_, rec) = Store::open_file(&dir, 1, &SegmentPolicy::default()).unwrap();
        let single_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(rec.next_seq, n + 1);
        assert_eq!(rec.roots.len(), 1_000);
        // Segments, written and rolled as the journal thread does.
        let (mut store, _) = Store::open_file(&dir, 2, &SegmentPolicy::default()).unwrap();
        let mut roller = store.take_roller().unwrap();
        history(n, &mut |b| {
            store.append(b).unwrap();
            turn(&mut store, &mut roller);
        });
        let newest = std::fs::metadata(store.path().unwrap()).unwrap().len();
        let segs = store.segments().len();
        drop((store, roller));
        let t = Instant::now();
        let (_, rec2) = Store::open_file(&dir, 2, &SegmentPolicy::default()).unwrap();
        let seg_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(rec2, rec);
        println!(
            "{n} reports: single file {:.0} MB opened in {single_ms:.0} ms; segmented ({segs} \
             segments kept, newest {:.1} MB) opened in {seg_ms:.0} ms",
            bytes as f64 / 1e6,
            newest as f64 / 1e6
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The writers' segment index names exactly the files in the session's directory.
fn assert_index_is_the_directory(store: &Store, sdir: &Path, when: &str) {
    let mut indexed: Vec<String> = store
        .segments()
        .iter()
        .map(|s| s.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    indexed.sort();
    indexed.dedup();
    assert_eq!(
        indexed.len(),
        store.segments().len(),
        "{when}: a segment indexed twice"
    );
    assert_eq!(indexed, files(sdir), "{when}: index and directory differ");
}

/// Issue 23: after a SIGKILL whose newest segment was a rollover's first one, the restart took
/// that segment for the legacy file (index 0), started an epoch-0 segment, rolled at once into
/// the new epoch's index 0 again (truncating it) and indexed that file twice: retention then
/// deleted the current segment and later warned "could not be retired ... No such file" once
/// per session. The index after recovery, and after every roll, names only files on disk.
#[test]
fn after_a_restart_in_a_new_epoch_the_index_lists_only_files_on_disk() {
    let dir = temp_dir("index");
    let policy = small(2);
    let sdir = session_dir(&dir, 7);
    let (mut store, _) = Store::open_file(&dir, 7, &policy).unwrap();
    let mut roller = store.take_roller().unwrap();
    assert!(write(&mut store, &mut roller, 1, 20) >= 2);
    store.start_epoch(1, 1_700_000_000_000).unwrap();
    assert!(turn(&mut store, &mut roller), "a rollover starts a segment");
    assert_index_is_the_directory(&store, &sdir, "before the kill");
    store.append(&records(1)).unwrap();
    assert!(!turn(&mut store, &mut roller));
    let whole = roller.fold().recovered();
    drop((store, roller)); // SIGKILL

    let (mut store, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(
        rec, whole,
        "the new epoch's first segment is read with its checkpoint"
    );
    assert_index_is_the_directory(&store, &sdir, "after the restart");
    let mut roller = store.take_roller().unwrap();
    for seq in 2..=30 {
        store.append(&records(seq)).unwrap();
        turn(&mut store, &mut roller);
        assert_index_is_the_directory(&store, &sdir, &format!("after message {seq}"));
    }
    assert!(files(&sdir).iter().all(|f| f.starts_with("e0000000001-")));
    let whole = roller.fold().recovered();
    drop((store, roller));
    let (_, rec) = Store::open_file(&dir, 7, &policy).unwrap();
    assert_eq!(rec, whole);
    let _ = std::fs::remove_dir_all(&dir);
}
