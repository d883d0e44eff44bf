//! Storage faults as a state of the session (issue 37; `docs/behaviour.md` "Storage faults"):
//! whether a session's journal takes records, and what follows when it does not.
//!
//! The promise the journal keeps is "no message reaches a strategy that is not in the
//! journal, and no sequence number is ever given to two messages". When an append, a segment
//! roll or a checkpoint fails (ENOSPC, EIO, EROFS, a short write), the session's writer enters
//! [`Durability`]'s failing state:
//!
//! - an append that failed (or any append while one has failed) is **held**: its records stay
//!   in memory, in order, and the application messages among them are numbered but not
//!   written to the strategy's socket (the strategy is told, by EstablishmentAck, Sequence and
//!   RetransmitRequest, only the numbers already in the journal);
//! - **no new risk** is taken ([`Durability::admits_new_risk`]; the decision refuses new
//!   orders and replaces with [`refusal_text`]); cancels, mass cancels, cancel on disconnect
//!   and the kill switch still reach the exchange, and their outcomes are held like every
//!   message;
//! - the journal thread **retries** with a backoff ([`RETRY_FIRST_MS`] doubling to
//!   [`RETRY_MAX_MS`]): once the held records and the pending roll are written, the held
//!   messages go to the strategy in their order and the state clears.
//!
//! Nothing held is ever dropped, so continuity is always provable and no rollover is needed:
//! memory is bounded because new orders are refused, and a strategy whose held output passes
//! [`MAX_HELD_BYTES`] (a strategy that keeps sending requests that can only be refused) is
//! disconnected ([`Durability::over_held_cap`]) so that no more refusals pile up. A crash while
//! failing loses only the held messages, which no strategy has seen: the restart resumes after
//! the last journaled number and its reconciliation reports what changed, as after a crash at
//! the moment of the fault.
//!
//! Everything here is a pure decision on `now_ns` (monotonic ns) and the errors the shell saw.

/// Delay before the first retry after a journal error, ms.
pub const RETRY_FIRST_MS: u64 = 10;
/// Longest delay between retries, ms (a freed disk is noticed within about this long).
pub const RETRY_MAX_MS: u64 = 1_000;
/// Held output (journal records not yet written, bytes) past which a connected strategy is
/// disconnected while the journal fails: 16 MiB, about 60 000 ExecutionReports.
pub const MAX_HELD_BYTES: usize = 16 << 20;

/// The cause of a failed journal write, from the OS error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum StorageFault {
    /// No space left on the device, or a disk quota (ENOSPC, EDQUOT).
    NoSpace = 1,
    /// An I/O error of the device (EIO).
    Io = 2,
    /// The file system is read-only (EROFS: e.g. remounted after errors).
    ReadOnly = 3,
    /// A write took part of the bytes and then none (`write` returned 0).
    ShortWrite = 4,
    /// Any other error (its text is logged).
    Other = 5,
}

impl StorageFault {
    /// Every fault, in label order (metrics list each).
    pub const ALL: [StorageFault; 5] = [
        StorageFault::NoSpace,
        StorageFault::Io,
        StorageFault::ReadOnly,
        StorageFault::ShortWrite,
        StorageFault::Other,
    ];

    /// The fault of an I/O error (by its kind, and EIO = 5 by its OS code).
    pub fn of(e: &std::io::Error) -> StorageFault {
        use std::io::ErrorKind as K;
        match e.kind() {
            K::StorageFull | K::QuotaExceeded => StorageFault::NoSpace,
            K::ReadOnlyFilesystem => StorageFault::ReadOnly,
            K::WriteZero => StorageFault::ShortWrite,
            _ if e.raw_os_error() == Some(5) => StorageFault::Io,
            _ => StorageFault::Other,
        }
    }

    /// Short name: `ENOSPC`, `EIO`, `EROFS`, `short_write`, `other` (metric label, log field,
    /// refusal text).
    pub const fn label(self) -> &'static str {
        match self {
            StorageFault::NoSpace => "ENOSPC",
            StorageFault::Io => "EIO",
            StorageFault::ReadOnly => "EROFS",
            StorageFault::ShortWrite => "short_write",
            StorageFault::Other => "other",
        }
    }

    /// The fault of a stored `u8` (`None` for 0 or an unknown value).
    pub const fn from_u8(v: u8) -> Option<StorageFault> {
        match v {
            1 => Some(StorageFault::NoSpace),
            2 => Some(StorageFault::Io),
            3 => Some(StorageFault::ReadOnly),
            4 => Some(StorageFault::ShortWrite),
            5 => Some(StorageFault::Other),
            _ => None,
        }
    }

    /// Index in [`StorageFault::ALL`].
    pub const fn index(self) -> usize {
        self as usize - 1
    }
}

/// Which journal operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum JournalOp {
    /// Appending records to the current segment (the writers' write-ahead).
    Append = 1,
    /// Rolling to the next segment: reading back the records to fold, copying the last ones
    /// into the new segment.
    Roll = 2,
    /// Writing and syncing a new segment's checkpoint.
    Checkpoint = 3,
}

impl JournalOp {
    /// Short name: `append`, `roll`, `checkpoint`.
    pub const fn label(self) -> &'static str {
        match self {
            JournalOp::Append => "append",
            JournalOp::Roll => "roll",
            JournalOp::Checkpoint => "checkpoint",
        }
    }

    /// The op of a stored `u8` (`None` for 0 or an unknown value).
    pub const fn from_u8(v: u8) -> Option<JournalOp> {
        match v {
            1 => Some(JournalOp::Append),
            2 => Some(JournalOp::Roll),
            3 => Some(JournalOp::Checkpoint),
            _ => None,
        }
    }
}

/// The failing state: what failed, since when, and when to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failing {
    /// The last error's cause.
    pub fault: StorageFault,
    /// The operation that holds the state: [`JournalOp::Append`] once any append failed
    /// (appends are held until it clears), else the roll or checkpoint that failed (appends
    /// still go to the current segment).
    pub op: JournalOp,
    /// When the state began (monotonic ns).
    pub since_ns: u64,
    /// Failed retries so far.
    pub retries: u32,
    /// When the next retry is due (monotonic ns).
    pub next_retry_ns: u64,
}

impl Failing {
    /// The state packed in a `u16` for lock-free readers: fault in the low byte, op in the
    /// high byte (0: healthy). See [`Failing::unpack`].
    pub const fn pack(&self) -> u16 {
        (self.fault as u16) | ((self.op as u16) << 8)
    }

    /// The fault and op of a value of [`Failing::pack`] (`None` for 0: healthy).
    pub const fn unpack(v: u16) -> Option<(StorageFault, JournalOp)> {
        match (
            StorageFault::from_u8((v & 0xff) as u8),
            JournalOp::from_u8((v >> 8) as u8),
        ) {
            (Some(f), Some(o)) => Some((f, o)),
            _ => None,
        }
    }
}

/// A change of state the shell logs (one line per change, never per message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing to log.
    None,
    /// The journal started failing.
    Entered(Failing),
    /// Still failing, for another cause or another operation (appends now held).
    Changed(Failing),
    /// Writable again after `failed_ns` and `retries` failed retries.
    Recovered {
        /// How long it failed, ns.
        failed_ns: u64,
        /// Failed retries.
        retries: u32,
    },
}

/// One session's journal durability (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Durability {
    failing: Option<Failing>,
}

impl Durability {
    /// A healthy journal.
    pub const fn new() -> Self {
        Durability { failing: None }
    }

    /// The failing state, if any.
    pub fn failing(&self) -> Option<&Failing> {
        self.failing.as_ref()
    }

    /// True while appends are held (an append failed and has not been written since): the
    /// writers add records to the held ones, try nothing, and write no application message
    /// to the strategy.
    pub fn holds_appends(&self) -> bool {
        matches!(self.failing, Some(f) if f.op == JournalOp::Append)
    }

    /// True when new risk may be taken (the journal is not failing).
    pub fn admits_new_risk(&self) -> bool {
        self.failing.is_none()
    }

    /// `op` failed with `fault` at `now_ns`: enters the failing state, or stays in it with
    /// the next retry backed off (doubling from [`RETRY_FIRST_MS`] to [`RETRY_MAX_MS`]). An
    /// append failure makes appends held whatever failed before.
    pub fn on_error(&mut self, op: JournalOp, fault: StorageFault, now_ns: u64) -> Change {
        match &mut self.failing {
            None => {
                let f = Failing {
                    fault,
                    op,
                    since_ns: now_ns,
                    retries: 0,
                    next_retry_ns: now_ns.saturating_add(RETRY_FIRST_MS * 1_000_000),
                };
                self.failing = Some(f);
                Change::Entered(f)
            }
            Some(f) => {
                f.retries = f.retries.saturating_add(1);
                let backoff_ms = RETRY_FIRST_MS
                    .saturating_mul(1u64 << f.retries.min(16))
                    .min(RETRY_MAX_MS);
                f.next_retry_ns = now_ns.saturating_add(backoff_ms * 1_000_000);
                let op = if f.op == JournalOp::Append {
                    JournalOp::Append
                } else {
                    op
                };
                let changed = f.fault != fault || f.op != op;
                f.fault = fault;
                f.op = op;
                if changed {
                    Change::Changed(*f)
                } else {
                    Change::None
                }
            }
        }
    }

    /// True when failing and the next retry is due at `now_ns`.
    pub fn retry_due(&self, now_ns: u64) -> bool {
        matches!(self.failing, Some(f) if now_ns >= f.next_retry_ns)
    }

    /// The held appends were written (their messages sent): appends go again, and the state
    /// stays, as a pending [`JournalOp::Roll`], until the roll is tried too
    /// ([`Durability::on_written`]); new risk is still refused meanwhile.
    pub fn appends_written(&mut self) {
        if let Some(f) = &mut self.failing {
            if f.op == JournalOp::Append {
                f.op = JournalOp::Roll;
            }
        }
    }

    /// Everything held was written and the roll, if one was due, done, at `now_ns`: the state
    /// clears.
    pub fn on_written(&mut self, now_ns: u64) -> Change {
        match self.failing.take() {
            None => Change::None,
            Some(f) => Change::Recovered {
                failed_ns: now_ns.saturating_sub(f.since_ns),
                retries: f.retries,
            },
        }
    }

    /// True when a connected strategy is to be disconnected: appends are held and the held
    /// output is over [`MAX_HELD_BYTES`].
    pub fn over_held_cap(&self, held_bytes: usize) -> bool {
        self.holds_appends() && held_bytes > MAX_HELD_BYTES
    }
}

/// The text of a request refused because its session's journal fails with `fault` (at most
/// 64 bytes: the Text field of ExecutionReport and OrderCancelReject).
pub fn refusal_text(fault: StorageFault) -> String {
    format!(
        "journal failing ({}): no new risk until it recovers",
        fault.label()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn errors_are_classified_by_kind_and_os_code() {
        let os = std::io::Error::from_raw_os_error;
        assert_eq!(StorageFault::of(&os(28)), StorageFault::NoSpace);
        assert_eq!(StorageFault::of(&os(122)), StorageFault::NoSpace);
        assert_eq!(StorageFault::of(&os(30)), StorageFault::ReadOnly);
        assert_eq!(StorageFault::of(&os(5)), StorageFault::Io);
        assert_eq!(
            StorageFault::of(&std::io::ErrorKind::WriteZero.into()),
            StorageFault::ShortWrite
        );
        assert_eq!(StorageFault::of(&os(13)), StorageFault::Other);
        for f in StorageFault::ALL {
            assert_eq!(StorageFault::from_u8(f as u8), Some(f));
            assert_eq!(StorageFault::ALL[f.index()], f);
            assert!(refusal_text(f).len() <= 64, "{}", refusal_text(f));
        }
    }

    #[test]
    fn retries_back_off_to_a_second_and_the_state_clears_once_written() {
        let mut d = Durability::new();
        assert!(d.admits_new_risk() && !d.holds_appends());
        let Change::Entered(f) = d.on_error(JournalOp::Append, StorageFault::NoSpace, 100 * MS)
        else {
            panic!()
        };
        assert_eq!((f.since_ns, f.next_retry_ns), (100 * MS, 110 * MS));
        assert!(!d.admits_new_risk() && d.holds_appends());
        assert!(!d.retry_due(109 * MS) && d.retry_due(110 * MS));
        let mut waits = Vec::new();
        let mut now = 110 * MS;
        for _ in 0..9 {
            assert_eq!(
                d.on_error(JournalOp::Append, StorageFault::NoSpace, now),
                Change::None
            );
            let next = d.failing().unwrap().next_retry_ns;
            waits.push((next - now) / MS);
            now = next;
        }
        assert_eq!(waits, [20, 40, 80, 160, 320, 640, 1000, 1000, 1000]);
        assert!(matches!(
            d.on_error(JournalOp::Append, StorageFault::Io, now),
            Change::Changed(f) if f.fault == StorageFault::Io
        ));
        assert_eq!(
            d.on_written(now + 5 * MS),
            Change::Recovered {
                failed_ns: now + 5 * MS - 100 * MS,
                retries: 10
            }
        );
        assert!(d.admits_new_risk() && d.on_written(now) == Change::None);
    }

    #[test]
    fn a_failed_roll_refuses_new_risk_but_holds_nothing_until_an_append_fails() {
        let mut d = Durability::new();
        d.on_error(JournalOp::Checkpoint, StorageFault::Io, 0);
        assert!(!d.admits_new_risk() && !d.holds_appends());
        assert!(!d.over_held_cap(MAX_HELD_BYTES + 1));
        assert!(matches!(
            d.on_error(JournalOp::Append, StorageFault::NoSpace, MS),
            Change::Changed(f) if f.op == JournalOp::Append
        ));
        // A later roll failure does not release the held appends.
        d.on_error(JournalOp::Roll, StorageFault::NoSpace, 2 * MS);
        assert!(d.holds_appends() && d.over_held_cap(MAX_HELD_BYTES + 1));
        assert!(!d.over_held_cap(MAX_HELD_BYTES));
        let f = *d.failing().unwrap();
        assert_eq!(Failing::unpack(f.pack()), Some((f.fault, f.op)));
        assert_eq!(Failing::unpack(0), None);
        // The held appends written: appends go, new risk waits for the roll.
        d.appends_written();
        assert!(!d.holds_appends() && !d.admits_new_risk());
        assert_eq!(d.failing().unwrap().op, JournalOp::Roll);
        assert!(matches!(d.on_written(3 * MS), Change::Recovered { .. }));
    }
}
