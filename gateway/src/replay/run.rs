//! Replay: a fresh [`Tracker`] fed the recorded inputs with the recorded times; every frame it
//! makes is compared byte for byte with the recorded one.

use std::collections::HashSet;
use std::path::Path;

use codec::json::JsonParser;

use super::format::{self, Record, RecordedInput};
use super::ReplayError;
use crate::tracker::{frames, Tracker};

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

/// The first difference between the recording and the replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the input (0 = first) whose outputs differ.
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
    /// The first difference.
    pub first_mismatch: Option<Mismatch>,
}

impl ReplayReport {
    /// True when every output matched.
    pub fn is_identical(&self) -> bool {
        self.mismatched_inputs == 0
    }
}

impl std::fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "inputs {} (skipped {}), outputs {}, mismatched inputs {}",
            self.inputs, self.skipped, self.outputs, self.mismatched_inputs
        )?;
        if let Some(m) = &self.first_mismatch {
            write!(
                f,
                "\nfirst mismatch: input {} output {}\n  recorded: {}\n  replayed: {}",
                m.input_index,
                m.output_index,
                m.expected.as_deref().unwrap_or("(none)"),
                m.got.as_deref().unwrap_or("(none)"),
            )?;
        }
        Ok(())
    }
}

/// Replays the recording at `path`. Errors: unreadable file, bad header, malformed record.
pub fn replay_file(path: &Path) -> Result<ReplayReport, ReplayError> {
    let bytes = std::fs::read(path).map_err(|source| ReplayError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    replay_bytes(&bytes)
}

/// Replays a recording held in memory (see [`replay_file`]).
pub fn replay_bytes(file: &[u8]) -> Result<ReplayReport, ReplayError> {
    let body = format::body(file)?;
    let mut r = Replayer {
        tracker: Tracker::new(),
        parser: JsonParser::new(),
        open: HashSet::new(),
        made: Vec::new(),
    };
    let mut report = ReplayReport::default();
    let mut expected: Vec<Output> = Vec::new();
    let mut started = false;
    for rec in format::records(body) {
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
        }
    }
    if started {
        r.compare(&mut report, &expected);
    }
    Ok(report)
}

struct Replayer {
    tracker: Tracker,
    parser: JsonParser,
    /// Sessions open at this point (reports to closed sessions are not written, so not
    /// recorded).
    open: HashSet<u64>,
    made: Vec<Output>,
}

impl Replayer {
    /// Feeds one input as the tracker thread's driver does; false when it was skipped.
    fn step(&mut self, utc: u64, input: RecordedInput) -> bool {
        match input {
            RecordedInput::Sent(req) => self.tracker.on_sent(req),
            RecordedInput::SentBatch(b) => self.tracker.on_sent_batch(b),
            RecordedInput::ListDone(d) => {
                self.tracker.on_list_done(d);
                self.drain(utc);
            }
            RecordedInput::Frame {
                text, t_read_ns, ..
            } => {
                if let Ok(inbound) = self.parser.parse(&text) {
                    self.tracker.on_inbound(t_read_ns, utc, &inbound);
                }
                self.drain(utc);
            }
            RecordedInput::SessionOpened {
                session_id,
                account,
                ..
            } => {
                self.tracker.on_session_opened(session_id, account);
                self.open.insert(session_id);
            }
            RecordedInput::SessionClosed { session_id } => {
                self.open.remove(&session_id);
            }
            RecordedInput::OpenOrders { filter, exchange } => {
                for v in self.tracker.open_orders(&filter, exchange.as_deref(), utc) {
                    let mut frame = Vec::new();
                    v.report.encode_frame(&mut frame);
                    self.made.push(Output {
                        session_id: v.session_id,
                        root: Some(v.root),
                        frame,
                    });
                }
            }
            RecordedInput::MassCancel(ev) => {
                self.tracker.on_mass_cancel(ev, utc);
                self.drain(utc);
            }
            RecordedInput::Skipped => return false,
        }
        true
    }

    fn drain(&mut self, utc: u64) {
        for report in self.tracker.drain_reports() {
            if !self.open.contains(&report.session_id) {
                continue;
            }
            let mut frame = Vec::new();
            frames::encode_report(&report.msg, &mut frame);
            self.made.push(Output {
                session_id: report.session_id,
                root: None,
                frame,
            });
        }
        for list in self.tracker.drain_list_reports() {
            if !self.open.contains(&list.session_id) {
                continue;
            }
            let n = frames::list_status_frame_count(&list);
            for i in 0..n {
                let mut frame = Vec::new();
                frames::encode_list_status(&list, utc, i, n, &mut frame);
                self.made.push(Output {
                    session_id: list.session_id,
                    root: None,
                    frame,
                });
            }
        }
    }

    fn compare(&mut self, report: &mut ReplayReport, expected: &[Output]) {
        let input_index = report.inputs.saturating_sub(1);
        report.outputs += expected.len() as u64;
        let made = std::mem::take(&mut self.made);
        if made.as_slice() != expected {
            report.mismatched_inputs += 1;
            if report.first_mismatch.is_none() {
                let i = made
                    .iter()
                    .zip(expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(made.len().min(expected.len()));
                report.first_mismatch = Some(Mismatch {
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
    format::records(format::body(file)?).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Vec<u8> {
        let mut b = format::MAGIC.to_vec();
        b.extend_from_slice(&format::VERSION.to_le_bytes());
        b
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
        let mut b = format::MAGIC.to_vec();
        b.extend_from_slice(&9u16.to_le_bytes());
        assert!(matches!(replay_bytes(&b), Err(ReplayError::Version(9))));
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
        let mut rec = vec![format::KIND_INPUT];
        rec.extend_from_slice(&5u64.to_le_bytes());
        rec.push(6);
        rec.extend_from_slice(&1u64.to_le_bytes());
        b.extend_from_slice(&(rec.len() as u32).to_le_bytes());
        b.extend_from_slice(&rec);
        let mut out = Vec::new();
        format::encode_report(&mut out, 1, &[0, 0, 0, 14, 0xeb, 0x50]);
        b.extend_from_slice(&(out.len() as u32).to_le_bytes());
        b.extend_from_slice(&out);
        let r = replay_bytes(&b).unwrap();
        assert_eq!((r.inputs, r.outputs, r.mismatched_inputs), (1, 1, 1));
        let m = r.first_mismatch.unwrap();
        assert_eq!((m.input_index, m.output_index), (0, 0));
        assert!(m.got.is_none());
    }
}
