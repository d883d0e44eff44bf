//! Replay: a fresh [`Tracker`] fed the recorded inputs with the recorded times, through the
//! same [`TrackerDrive`] as the tracker thread; every frame it makes is compared byte for byte
//! with the recorded one.

use std::collections::{HashMap, HashSet};

use super::{body, entry_result, records, Record, RecordedInput, ReplayError};
use crate::decision::Refusal;
use crate::pretrade::InstrumentTable;
use crate::session::order_entry::{EntryOutcome, OrderEntry};
use crate::tracker::retention::Evicted;
use crate::tracker::routing::AccountUpdate;
use crate::tracker::{
    frames, Deadlines, ListReport, Report, RequestKind, ResolveRequest, Tracker, TrackerDrive,
    TrackerSink,
};

/// One output of the tracker: a frame for a session, or one order of an open-orders answer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Output {
    session_id: u64,
    /// Root ClOrdID for an open-orders answer (`None`: a report written to the session).
    root: Option<u64>,
    frame: Vec<u8>,
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let payload = self.frame.get(codec::frame::SOFH_LEN..).unwrap_or(&[]);
        match self.root {
            Some(root) => write!(f, "open order session {} root {root}: ", self.session_id)?,
            None => write!(f, "session {}: ", self.session_id)?,
        }
        match codec::sbe::decode(payload) {
            Ok(msg) => write!(f, "{msg:?}"),
            Err(_) => write!(f, "{} undecodable bytes", self.frame.len()),
        }
    }
}

/// Which stream of a recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// The tracker thread's inputs and reports.
    Tracker,
    /// The io thread's order-entry calls.
    OrderEntry,
}

/// The first difference between the recording and the replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The stream it is in.
    pub stream: Stream,
    /// Index of the input (0 = first of its stream) whose outputs differ.
    pub input_index: u64,
    /// Index of the differing output among that input's outputs.
    pub output_index: usize,
    /// What was recorded (`None`: the replay made more outputs).
    pub expected: Option<String>,
    /// What the replay made (`None`: the replay made fewer outputs).
    pub got: Option<String>,
}

/// Result of a replay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Inputs fed to the tracker.
    pub inputs: u64,
    /// Inputs skipped (not replayable by this version).
    pub skipped: u64,
    /// Recorded outputs compared.
    pub outputs: u64,
    /// Inputs whose outputs differ.
    pub mismatched_inputs: u64,
    /// Order-entry calls replayed (io stream).
    pub entry_calls: u64,
    /// Order-entry calls whose output differs.
    pub mismatched_entry_calls: u64,
    /// The first difference.
    pub first_mismatch: Option<Mismatch>,
}

impl ReplayReport {
    /// True when every output matched.
    pub fn is_identical(&self) -> bool {
        self.mismatched_inputs == 0 && self.mismatched_entry_calls == 0
    }
}

impl std::fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "tracker: inputs {} (skipped {}), outputs {}, mismatched inputs {}; \
             order entry: calls {}, mismatched {}",
            self.inputs,
            self.skipped,
            self.outputs,
            self.mismatched_inputs,
            self.entry_calls,
            self.mismatched_entry_calls
        )?;
        if let Some(m) = &self.first_mismatch {
            write!(
                f,
                "\nfirst mismatch ({:?}): input {} output {}\n  recorded: {}\n  replayed: {}",
                m.stream,
                m.input_index,
                m.output_index,
                m.expected.as_deref().unwrap_or("(none)"),
                m.got.as_deref().unwrap_or("(none)"),
            )?;
        }
        Ok(())
    }
}

/// Replays a recording held in memory (the shell's `gateway::replay::replay_file` reads one
/// from a file). Errors: bad header, malformed record.
pub fn replay_bytes(file: &[u8]) -> Result<ReplayReport, ReplayError> {
    let body = body(file)?;
    let mut r = Replayer {
        drive: TrackerDrive::new(Tracker::new(), None),
        out: Made::default(),
        instruments: InstrumentTable::default(),
        entries: HashMap::new(),
        json: Vec::new(),
    };
    let mut report = ReplayReport::default();
    let mut expected: Vec<Output> = Vec::new();
    let mut started = false;
    for rec in records(body) {
        match rec? {
            Record::Input { utc_ns, input } => {
                if started {
                    r.compare(&mut report, &expected);
                }
                started = true;
                expected.clear();
                report.inputs += 1;
                if !r.step(utc_ns, input) {
                    report.skipped += 1;
                }
            }
            Record::Report { session_id, frame } => expected.push(Output {
                session_id,
                root: None,
                frame,
            }),
            Record::OpenOrder {
                session_id,
                root,
                frame,
            } => expected.push(Output {
                session_id,
                root: Some(root),
                frame,
            }),
            Record::Instruments(rules) => r.instruments = InstrumentTable::new(rules),
            Record::EntryReset { session_id } => {
                r.entries.insert(session_id, OrderEntry::new(session_id));
            }
            Record::EntryState {
                session_id,
                roots,
                list_ids,
            } => {
                // Recorded before orders left the tracker: every ClOrdID names its order.
                let used = roots.iter().map(|(cl, _)| *cl).collect();
                let live = roots.into_iter().map(|(cl, root)| (cl, root, 0));
                let lists = list_ids.into_iter().collect();
                r.entries.insert(
                    session_id,
                    OrderEntry::restore(session_id, 0, live, used, lists),
                );
            }
            Record::EntryEpochState {
                session_id,
                epoch,
                live,
                used,
                list_ids,
            } => {
                r.entries.insert(
                    session_id,
                    OrderEntry::restore(session_id, epoch, live, used, list_ids),
                );
            }
            Record::EntryRelease { session_id, root } => {
                if let Some(e) = r.entries.get_mut(&session_id) {
                    e.release(root);
                }
            }
            Record::EntryReleaseEndedBeforeEpoch { session_id, root } => {
                if let Some(e) = r.entries.get_mut(&session_id) {
                    e.release_ended_before_epoch(root);
                }
            }
            Record::OrderEntry {
                session_id,
                req_id,
                utc_ns,
                msg,
                sent,
                out,
                refusal,
            } => {
                let index = report.entry_calls;
                report.entry_calls += 1;
                let got = r.order_entry(session_id, req_id, utc_ns, &msg, refusal.as_ref());
                if got.as_ref() != Some(&(sent, out.clone())) {
                    report.mismatched_entry_calls += 1;
                    if report.first_mismatch.is_none() {
                        report.first_mismatch = Some(Mismatch {
                            stream: Stream::OrderEntry,
                            input_index: index,
                            output_index: 0,
                            expected: Some(entry_text(sent, &out)),
                            got: got.map(|(s, o)| entry_text(s, &o)),
                        });
                    }
                }
            }
        }
    }
    if started {
        r.compare(&mut report, &expected);
    }
    Ok(report)
}

struct Replayer {
    drive: TrackerDrive,
    out: Made,
    instruments: InstrumentTable,
    entries: HashMap<u64, OrderEntry>,
    json: Vec<u8>,
}

/// An order-entry output for a mismatch message.
fn entry_text(sent: bool, out: &[u8]) -> String {
    if sent {
        format!("sent {}", String::from_utf8_lossy(out))
    } else {
        let frame = Output {
            session_id: 0,
            root: None,
            frame: out.to_vec(),
        };
        format!("refused {frame}")
    }
}

/// The replay's [`TrackerSink`]: the frames the tracker makes for the sessions open at this
/// point, as the tracker thread writes (and records) them.
#[derive(Default)]
struct Made {
    /// Sessions open at this point (reports to closed sessions are not written, so not
    /// recorded).
    open: HashSet<u64>,
    /// What the current input made.
    made: Vec<Output>,
}

impl TrackerSink for Made {
    /// The report's frame when its session is open. Its writer's epoch is not in the
    /// recording: 0 is never above the tracker's epoch of the session, so no end is taken for
    /// one written in a later epoch (that changes only which ClOrdIDs an eviction frees, and
    /// the order entries replay their releases from their own records).
    fn write_report(&mut self, report: &Report) -> Option<u32> {
        if !self.open.contains(&report.session_id) {
            return None;
        }
        let mut frame = Vec::new();
        frames::encode_report(&report.msg, &mut frame);
        self.made.push(Output {
            session_id: report.session_id,
            root: None,
            frame,
        });
        Some(0)
    }

    fn write_list_status(&mut self, list: &ListReport, utc_ns: u64) {
        if !self.open.contains(&list.session_id) {
            return;
        }
        let n = frames::list_status_frame_count(list);
        for i in 0..n {
            let mut frame = Vec::new();
            frames::encode_list_status(list, utc_ns, i, n, &mut frame);
            self.made.push(Output {
                session_id: list.session_id,
                root: None,
                frame,
            });
        }
    }

    /// Not recorded.
    fn account_update(&mut self, _account: usize, _update: &AccountUpdate) {}

    /// The resolver's answers are in the recording (its ExchangeState inputs).
    fn resolve(&mut self, _request: ResolveRequest) {}

    /// Evictions change nothing the sessions see (see `tracker::retention`); the shell hands
    /// them to the order entries, which the replay rebuilds from its own stream.
    fn evicted(&mut self, _evicted: Evicted) {}
}

impl Replayer {
    /// Feeds one input as the tracker thread's driver does; false when it was skipped.
    fn step(&mut self, utc: u64, input: RecordedInput) -> bool {
        let (drive, out) = (&mut self.drive, &mut self.out);
        match input {
            RecordedInput::Sent(req) => drive.on_sent(out, req),
            RecordedInput::SentBatch(b) => drive.on_sent_batch(out, b),
            RecordedInput::ListDone(d) => drive.on_list_done(out, d, utc),
            RecordedInput::Frame {
                account,
                text,
                t_read_ns,
            } => drive.on_frame(out, account, &text, t_read_ns, utc),
            RecordedInput::SessionOpened {
                session_id,
                account,
                ..
            } => {
                out.open.insert(session_id);
                drive.on_session_opened(out, session_id, account);
            }
            RecordedInput::SessionClosed { session_id } => {
                out.open.remove(&session_id);
                drive.on_session_closed(out, session_id);
            }
            RecordedInput::OpenOrders { filter, exchange } => {
                drive.open_orders(out, &filter, exchange.as_deref(), utc, |out, views| {
                    for v in views {
                        let mut frame = Vec::new();
                        v.report.encode_frame(&mut frame);
                        out.made.push(Output {
                            session_id: v.session_id,
                            root: Some(v.root),
                            frame,
                        });
                    }
                });
            }
            RecordedInput::MassCancel(ev) => drive.on_mass_cancel(out, ev, utc),
            RecordedInput::ExchangeState { state, t_read_ns } => {
                drive.on_exchange_state(out, t_read_ns, utc, &state, |_, _| {});
            }
            RecordedInput::LinkDown { account, t_ns } => drive.on_link_down(out, account, t_ns),
            RecordedInput::LinkUp { account, t_ns } => drive.on_link_up(out, account, t_ns),
            RecordedInput::Restore {
                session_id,
                roots,
                reports,
                unanswered_since_ms,
                unanswered_amends,
            } => {
                let roots: HashMap<u64, u64> = roots.into_iter().collect();
                let since: HashMap<u64, u64> = unanswered_since_ms.into_iter().collect();
                drive.on_restore(
                    out,
                    session_id,
                    &roots,
                    &reports,
                    &since,
                    &unanswered_amends,
                );
            }
            RecordedInput::Tick {
                now_ns,
                reply_timeout_ms,
                push_deadline_ms,
            } => {
                drive.set_deadlines(Deadlines {
                    reply_timeout_ms,
                    push_deadline_ms,
                });
                drive.on_tick(out, now_ns, utc);
            }
            RecordedInput::Epoch {
                session_id,
                epoch,
                order_epochs,
                started,
            } => drive.on_epoch(out, session_id, epoch, &order_epochs, started, utc),
            RecordedInput::Skipped => return false,
        }
        true
    }

    /// Runs one recorded single-order message through the session's order entry as the io
    /// thread does, then applies the recorded refusal after order entry (account, risk, rate
    /// budget: inputs the recording holds, as it holds exchange frames) and answers it as the
    /// io thread does; `None` when the message does not decode.
    fn order_entry(
        &mut self,
        session_id: u64,
        req_id: u64,
        utc: u64,
        frame: &[u8],
        refusal: Option<&Refusal>,
    ) -> Option<(bool, Vec<u8>)> {
        let msg = codec::sbe::decode(frame.get(codec::frame::SOFH_LEN..)?).ok()?;
        let entry = self
            .entries
            .entry(session_id)
            .or_insert_with(|| OrderEntry::new(session_id));
        self.json.clear();
        let (_, outcome) = entry.on_single(&msg, &self.instruments, req_id, &mut self.json, utc)?;
        if let (
            EntryOutcome::Send {
                root,
                kind: RequestKind::New(_),
            },
            None,
        ) = (&outcome, refusal)
        {
            // Written to the exchange (a refusal after entry is recorded with it): as the io
            // thread, the order is live from here.
            entry.sent_new(*root, None);
        }
        Some(entry_result(&msg, &outcome, &self.json, refusal, utc))
    }

    fn compare(&mut self, report: &mut ReplayReport, expected: &[Output]) {
        let input_index = report.inputs.saturating_sub(1);
        report.outputs += expected.len() as u64;
        let made = std::mem::take(&mut self.out.made);
        if made.as_slice() != expected {
            report.mismatched_inputs += 1;
            if report.first_mismatch.is_none() {
                let i = made
                    .iter()
                    .zip(expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(made.len().min(expected.len()));
                report.first_mismatch = Some(Mismatch {
                    stream: Stream::Tracker,
                    input_index,
                    output_index: i,
                    expected: expected.get(i).map(ToString::to_string),
                    got: made.get(i).map(ToString::to_string),
                });
            }
        }
    }
}

/// Every record of a recording held in memory (for tools and tests).
/// Errors: bad header, malformed record.
pub fn records_of(file: &[u8]) -> Result<Vec<Record>, ReplayError> {
    records(body(file)?).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Vec<u8> {
        let mut b = super::super::MAGIC.to_vec();
        b.extend_from_slice(&super::super::VERSION.to_le_bytes());
        b
    }

    proptest::proptest! {
        /// Arbitrary record bytes after a valid header never panic the replay.
        #[test]
        fn arbitrary_records_do_not_panic(body in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let mut b = header();
            b.extend_from_slice(&body);
            let _ = replay_bytes(&b);
        }

        /// Well-framed records with arbitrary bodies never panic either.
        #[test]
        fn framed_arbitrary_records_do_not_panic(
            recs in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..96), 0..12),
            kinds in proptest::collection::vec(0u8..=7, 12),
        ) {
            let mut b = header();
            for (rec, kind) in recs.iter().zip(&kinds) {
                b.extend_from_slice(&(rec.len() as u32 + 1).to_le_bytes());
                b.push(*kind);
                b.extend_from_slice(rec);
            }
            let _ = replay_bytes(&b);
        }
    }

    #[test]
    fn empty_and_truncated_recordings_replay_to_nothing() {
        let mut b = header();
        assert_eq!(replay_bytes(&b).unwrap(), ReplayReport::default());
        b.extend_from_slice(&[50, 0, 0, 0, 1, 2]);
        assert_eq!(replay_bytes(&b).unwrap(), ReplayReport::default());
    }

    #[test]
    fn bad_header_version_and_record_are_errors_not_panics() {
        assert!(matches!(replay_bytes(b"nope"), Err(ReplayError::BadHeader)));
        let mut b = super::super::MAGIC.to_vec();
        b.extend_from_slice(&9u16.to_le_bytes());
        assert!(matches!(replay_bytes(&b), Err(ReplayError::Version(9))));
        let mut b = super::super::MAGIC.to_vec();
        b.extend_from_slice(&1u16.to_le_bytes());
        assert!(matches!(replay_bytes(&b), Err(ReplayError::Obsolete(1))));
        let mut b = header();
        b.extend_from_slice(&[2, 0, 0, 0, 1, 0]);
        assert!(matches!(
            replay_bytes(&b),
            Err(ReplayError::Malformed { index: 0, .. })
        ));
    }

    #[test]
    fn an_output_the_tracker_does_not_make_is_a_mismatch() {
        // One SessionClosed input followed by a report it cannot have produced.
        let mut b = header();
        let input = RecordedInput::SessionClosed { session_id: 1 };
        assert!(Record::Input { utc_ns: 5, input }.encode(&mut b));
        let frame = vec![0, 0, 0, 14, 0xeb, 0x50];
        assert!(Record::Report {
            session_id: 1,
            frame
        }
        .encode(&mut b));
        let r = replay_bytes(&b).unwrap();
        assert_eq!((r.inputs, r.outputs, r.mismatched_inputs), (1, 1, 1));
        let m = r.first_mismatch.unwrap();
        assert_eq!((m.input_index, m.output_index), (0, 0));
        assert!(m.got.is_none());
    }
}
