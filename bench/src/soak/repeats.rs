//! Explains each repeated ExecutionReport: its kind and order (from the strategy's model), the
//! fault state when it arrived, and the gateway path that produced each copy, read from the
//! gateway's session journals (every application message is journaled with its
//! [`Origin`]).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use gateway::journal::record::{Origin, Record, Records};
use gateway::journal::segments;

use super::session::{Repeat, RepeatKind, SeqId};

/// (SessionID, epoch, sequence number) → the path that produced the message (sequence
/// numbers restart at 1 in each epoch).
pub type Origins = HashMap<(u64, u64, u64), Origin>;

/// Bytes of the journal file magic.
const MAGIC_LEN: usize = 8;

/// Reads the origins of every journaled message of `sessions` from the journal `dir` (the
/// segments kept; a file that is missing or unreadable gives none).
pub fn journal_origins(dir: &Path, sessions: impl IntoIterator<Item = u64>) -> Origins {
    let mut out = Origins::new();
    for session_id in sessions {
        // Every kept segment (a segment starts with copies of the records its predecessor
        // ends with: same numbers, same origins).
        for (id, path) in segments::list(dir, session_id).unwrap_or_default() {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            // A segment's messages are its epoch's, after an epoch record the new epoch's.
            let mut epoch = id.epoch;
            for rec in Records::new(bytes.get(MAGIC_LEN..).unwrap_or(&[])) {
                match rec {
                    Record::Outbound { seq, origin, .. } => {
                        out.insert((session_id, epoch, seq), origin);
                    }
                    Record::Epoch { epoch: e, .. } => epoch = e,
                    _ => {}
                }
            }
        }
    }
    out
}

fn origin_name(origins: &Origins, session_id: u64, (epoch, seq): SeqId) -> &'static str {
    origins
        .get(&(session_id, epoch, seq))
        .map_or("not journaled", |o| o.name())
}

/// One line per repeat (at most `max`), then one line per cause (kind, path of the first copy
/// → path of the repeat, live or retransmitted) with its count.
pub fn describe(repeats: &[Repeat], origins: &Origins, max: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut causes: BTreeMap<(RepeatKind, &str, &str, bool), u64> = BTreeMap::new();
    for r in repeats {
        let first = origin_name(origins, r.session_id, r.first_seq);
        let again = origin_name(origins, r.session_id, r.repeat_seq);
        *causes
            .entry((r.kind, first, again, r.retransmitted))
            .or_default() += 1;
        if lines.len() < max {
            lines.push(format!(
                "  repeat: {} ({:?}) of session {} order {} (root {}): first epoch {} seq {} from {}, repeat epoch {} seq {} from {}{}; {}",
                r.kind.name(),
                r.exec_type,
                r.session_id,
                r.root,
                r.root,
                r.first_seq.0,
                r.first_seq.1,
                first,
                r.repeat_seq.0,
                r.repeat_seq.1,
                again,
                if r.retransmitted { " (retransmitted)" } else { "" },
                r.fault
            ));
        }
    }
    if repeats.len() > max {
        lines.push(format!("  ... {} more", repeats.len() - max));
    }
    for ((kind, first, again, retransmitted), n) in causes {
        lines.push(format!(
            "  cause: {n} × {} — first copy from {first}, repeat from {again}{}",
            kind.name(),
            if retransmitted { ", retransmitted" } else { "" }
        ));
    }
    lines
}
