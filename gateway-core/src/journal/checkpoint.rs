//! The checkpoint record: everything a restart needs of a session's journal up to a point, so
//! that a restart reads the newest segment only (it starts with one), whatever the history.
//!
//! Body of a [`crate::journal::record::KIND_CHECKPOINT`] record (integers little endian):
//! `version u8 | next_seq u64 | prev_len u64 | epoch u64 | postcard(`[`CheckpointState`]`)`.
//! The fixed-width head lets the shell index a segment (its first sequence number) by reading
//! 30 bytes of it; the rest is serde + postcard, versioned by the first byte
//! ([`CHECKPOINT_VERSION`]; version 1, written before the held ends of issue 37, is still read,
//! as a state without held ends and with the strategy away; version 2, before the previous
//! epoch was kept, as a state without one): a body of another version, or one
//! that does not decode, is not usable ([`Checkpoint::decode`] says why) and recovery falls
//! back to the previous segment.
//! ExecutionReports are kept as their SBE frames (the schema versions them; the journal's
//! outbound records hold the same frames).

use serde::{Deserialize, Serialize};

use crate::session::retransmit::PreviousEpoch;
use crate::session::used_ids::UsedIds;

/// Version of the checkpoint body this build writes (and reads, with [`CHECKPOINT_VERSION_1`]
/// and [`CHECKPOINT_VERSION_2`]). Version 2 added [`CheckpointState::held`],
/// [`CheckpointState::status_due`], [`CheckpointState::presence`] and
/// [`CheckpointState::now_ms`]; version 3 [`CheckpointState::previous_epoch`].
pub const CHECKPOINT_VERSION: u8 = 3;

/// The second version of the checkpoint body (no previous epoch), still read.
pub const CHECKPOINT_VERSION_2: u8 = 2;

/// The first version of the checkpoint body (no held ends), still read.
pub const CHECKPOINT_VERSION_1: u8 = 1;

/// Bytes of the fixed head of a checkpoint body (version, next_seq, prev_len, epoch).
pub const HEAD_LEN: usize = 1 + 8 + 8 + 8;

/// A report sent for an order not ended yet: its sequence number and its SOFH frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedReport {
    /// Sequence number the report was sent with.
    pub seq: u64,
    /// The ExecutionReport's whole SOFH frame, as sent.
    pub frame: Vec<u8>,
}

/// One order not ended at the checkpoint (no final OrdStatus reported yet, or one reported
/// while a cancel or replace of it is still unanswered).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedOrder {
    /// Root ClOrdID (the NewOrderSingle's).
    pub root: u64,
    /// Epoch the order was placed in (its clientOid names it).
    pub epoch: u32,
    /// Every ClOrdID naming the order (root, cancels, replaces), in the order used; empty
    /// for an order known only from reports (a drop-copy session's).
    pub cl_ord_ids: Vec<u64>,
    /// The ExecutionReports sent for it, in sequence order.
    pub reports: Vec<SavedReport>,
    /// No report names the order yet: UTC ms of the last report or clock record before its
    /// ClOrdID (0: none). `None` once a report names it.
    pub unanswered_since_ms: Option<u64>,
    /// Cancel / replace ClOrdIDs no ExecutionReport or OrderCancelReject names yet.
    pub amends: Vec<u64>,
    /// A final OrdStatus (Filled, Canceled, Rejected) was reported; the order is kept only
    /// for its unanswered `amends`.
    pub ended: bool,
}

/// An ended order whose end its strategy may not have read (see
/// [`crate::journal::fold`]): kept so that a restarted tracker holds it for the next epoch's
/// OrderStatus, as a tracker that did not restart does (`tracker::unseen`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldEnd {
    /// The order (`ended` true, no `amends`), its reports as sent.
    pub order: SavedOrder,
    /// UTC ms of its end (its final report, or the last OrderStatus that told it).
    pub end_ms: u64,
}

/// The session's strategy as the journal's presence records tell it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedPresence {
    /// True when the last presence record says connected (and no clock record followed).
    pub connected: bool,
    /// UTC ms of that connection (0 when away).
    pub since_ms: u64,
    /// The unseen tail of the last connected record, ms.
    pub tail_ms: u64,
}

/// What the fold knows, serialised after the fixed head (version 2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointState {
    /// When the epoch started, UTC ms (0: not known).
    pub epoch_started_ms: u64,
    /// ClOrdIDs the session used in the epoch.
    pub used: UsedIds,
    /// ListIDs the session used in the epoch.
    pub list_ids: UsedIds,
    /// UTC ms of the last ExecutionReport (its TransactTime), 0 when none.
    pub last_report_ms: u64,
    /// UTC ms of the last ExecutionReport or clock record, 0 when none (dates the ClOrdIDs
    /// journaled after it).
    pub last_mark_ms: u64,
    /// Orders not ended, by root ascending.
    pub orders: Vec<SavedOrder>,
    /// ClOrdIDs answered before their own record was journaled, oldest first (see
    /// [`crate::journal::fold::EARLY_CAP`]).
    pub early: Vec<u64>,
    /// Ended orders whose end the strategy may not have read, oldest end first.
    pub held: Vec<HeldEnd>,
    /// Roots of the orders (not ended, or held ends) the epoch's rollover is to report
    /// OrderStatus and no OrderStatus of which is journaled in the epoch yet, ascending.
    pub status_due: Vec<u64>,
    /// The strategy's presence.
    pub presence: SavedPresence,
    /// UTC ms of the newest time the journal told (reports, clock, presence, epoch records).
    pub now_ms: u64,
    /// The epoch before this one and its last message's number (a RetransmitRequest may name
    /// it; EstablishmentAck tells it). `None` before the first rollover.
    pub previous_epoch: Option<PreviousEpoch>,
}

/// The state of a version 2 body ([`CHECKPOINT_VERSION_2`]): [`CheckpointState`] without its
/// last field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct CheckpointStateV2 {
    epoch_started_ms: u64,
    used: UsedIds,
    list_ids: UsedIds,
    last_report_ms: u64,
    last_mark_ms: u64,
    orders: Vec<SavedOrder>,
    early: Vec<u64>,
    held: Vec<HeldEnd>,
    status_due: Vec<u64>,
    presence: SavedPresence,
    now_ms: u64,
}

impl From<CheckpointStateV2> for CheckpointState {
    /// No previous epoch known (its segments are then not answered).
    fn from(v2: CheckpointStateV2) -> Self {
        CheckpointState {
            epoch_started_ms: v2.epoch_started_ms,
            used: v2.used,
            list_ids: v2.list_ids,
            last_report_ms: v2.last_report_ms,
            last_mark_ms: v2.last_mark_ms,
            orders: v2.orders,
            early: v2.early,
            held: v2.held,
            status_due: v2.status_due,
            presence: v2.presence,
            now_ms: v2.now_ms,
            previous_epoch: None,
        }
    }
}

/// The state of a version 1 body ([`CHECKPOINT_VERSION_1`]): [`CheckpointState`] without its
/// last three fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct CheckpointStateV1 {
    epoch_started_ms: u64,
    used: UsedIds,
    list_ids: UsedIds,
    last_report_ms: u64,
    last_mark_ms: u64,
    orders: Vec<SavedOrder>,
    early: Vec<u64>,
}

impl From<CheckpointStateV1> for CheckpointState {
    /// No held end (version 1 kept none), the strategy away (the presence is unknown, and a
    /// restart makes it away anyway), `now_ms` the last mark.
    fn from(v1: CheckpointStateV1) -> Self {
        CheckpointState {
            epoch_started_ms: v1.epoch_started_ms,
            used: v1.used,
            list_ids: v1.list_ids,
            last_report_ms: v1.last_report_ms,
            last_mark_ms: v1.last_mark_ms,
            orders: v1.orders,
            early: v1.early,
            held: Vec::new(),
            status_due: Vec::new(),
            presence: SavedPresence::default(),
            now_ms: v1.last_mark_ms,
            previous_epoch: None,
        }
    }
}

/// A decoded checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// Sequence number of the next application message at the checkpoint (every outbound
    /// record after it carries this number or a higher one).
    pub next_seq: u64,
    /// Bytes of the previous segment (magic included) the checkpoint covers: the records the
    /// previous segment holds past it were copied after the checkpoint when the segment was
    /// started (the shell checks that, see `gateway::journal::segments`). 0 for a first one.
    pub prev_len: u64,
    /// Session epoch (0 until the session's first rollover).
    pub epoch: u64,
    /// The rest.
    pub state: CheckpointState,
}

/// Why a checkpoint body is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// Shorter than its fixed head.
    #[error("checkpoint shorter than its head")]
    Short,
    /// Written by another version of the format.
    #[error(
        "checkpoint version {0} (this build reads {CHECKPOINT_VERSION_1} and {CHECKPOINT_VERSION})"
    )]
    Version(u8),
    /// The serialised state does not decode.
    #[error("checkpoint state does not decode")]
    State,
    /// A saved report is not an ExecutionReport frame.
    #[error("checkpoint holds a report that does not decode")]
    Report,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0)
}

impl Checkpoint {
    /// Appends the body (not the record header) to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(CHECKPOINT_VERSION);
        out.extend_from_slice(&self.next_seq.to_le_bytes());
        out.extend_from_slice(&self.prev_len.to_le_bytes());
        out.extend_from_slice(&self.epoch.to_le_bytes());
        // Serialising plain integers and vectors into a Vec cannot fail.
        if let Ok(state) = postcard::to_stdvec(&self.state) {
            out.extend_from_slice(&state);
        }
    }

    /// Decodes a body of this version or of versions 1 and 2. Errors: [`CheckpointError`].
    pub fn decode(body: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let (next_seq, prev_len, epoch) = Self::head(body)?;
        let rest = body.get(HEAD_LEN..).ok_or(CheckpointError::Short)?;
        let state: CheckpointState = if body.first() == Some(&CHECKPOINT_VERSION_1) {
            postcard::from_bytes::<CheckpointStateV1>(rest)
                .map_err(|_| CheckpointError::State)?
                .into()
        } else if body.first() == Some(&CHECKPOINT_VERSION_2) {
            postcard::from_bytes::<CheckpointStateV2>(rest)
                .map_err(|_| CheckpointError::State)?
                .into()
        } else {
            postcard::from_bytes(rest).map_err(|_| CheckpointError::State)?
        };
        Ok(Checkpoint {
            next_seq,
            prev_len,
            epoch,
            state,
        })
    }

    /// The fixed head of a body: `(next_seq, prev_len, epoch)`, without decoding the rest.
    /// Errors: shorter than the head, or a version this build does not read.
    pub fn head(body: &[u8]) -> Result<(u64, u64, u64), CheckpointError> {
        let version = *body.first().ok_or(CheckpointError::Short)?;
        if ![
            CHECKPOINT_VERSION,
            CHECKPOINT_VERSION_2,
            CHECKPOINT_VERSION_1,
        ]
        .contains(&version)
        {
            return Err(CheckpointError::Version(version));
        }
        if body.len() < HEAD_LEN {
            return Err(CheckpointError::Short);
        }
        Ok((u64_at(body, 1), u64_at(body, 9), u64_at(body, 17)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_round_trips_and_bad_bodies_are_refused() {
        let cp = Checkpoint {
            next_seq: 42,
            prev_len: 1_000,
            epoch: 3,
            state: CheckpointState {
                epoch_started_ms: 77,
                used: [1, 2, 3, 9].into_iter().collect(),
                list_ids: [7].into_iter().collect(),
                last_report_ms: 5,
                last_mark_ms: 6,
                orders: vec![SavedOrder {
                    root: 9,
                    epoch: 2,
                    cl_ord_ids: vec![9],
                    reports: vec![SavedReport {
                        seq: 41,
                        frame: vec![1, 2, 3],
                    }],
                    unanswered_since_ms: None,
                    amends: vec![],
                    ended: false,
                }],
                early: vec![3],
                held: vec![HeldEnd {
                    order: SavedOrder {
                        root: 4,
                        epoch: 3,
                        cl_ord_ids: vec![4, 5],
                        reports: vec![SavedReport {
                            seq: 40,
                            frame: vec![4, 5, 6],
                        }],
                        unanswered_since_ms: None,
                        amends: vec![],
                        ended: true,
                    },
                    end_ms: 6,
                }],
                status_due: vec![4, 9],
                presence: SavedPresence {
                    connected: true,
                    since_ms: 2,
                    tail_ms: 5_000,
                },
                now_ms: 6,
                previous_epoch: Some(PreviousEpoch {
                    epoch: 2,
                    last_seq: 17,
                }),
            },
        };
        let mut b = Vec::new();
        cp.encode(&mut b);
        assert_eq!(Checkpoint::head(&b), Ok((42, 1_000, 3)));
        assert_eq!(Checkpoint::decode(&b), Ok(cp.clone()));
        assert_eq!(Checkpoint::decode(&[]), Err(CheckpointError::Short));
        assert_eq!(Checkpoint::decode(&b[..10]), Err(CheckpointError::Short));
        assert_eq!(
            Checkpoint::decode(&b[..b.len() - 3]),
            Err(CheckpointError::State)
        );
        let mut v4 = b.clone();
        v4[0] = 4;
        assert_eq!(Checkpoint::decode(&v4), Err(CheckpointError::Version(4)));
        // A version 2 body (before the previous epoch was kept) is still read, without one.
        let v2 = CheckpointStateV2 {
            epoch_started_ms: 77,
            held: cp.state.held.clone(),
            presence: cp.state.presence,
            now_ms: 6,
            ..CheckpointStateV2::default()
        };
        let mut b2 = vec![CHECKPOINT_VERSION_2];
        b2.extend_from_slice(&b[1..HEAD_LEN]);
        b2.extend_from_slice(&postcard::to_stdvec(&v2).unwrap());
        let read = Checkpoint::decode(&b2).unwrap();
        assert_eq!((read.next_seq, read.epoch), (42, 3));
        assert_eq!(read.state.held, cp.state.held);
        assert_eq!(read.state.previous_epoch, None);
    }

    /// A version 1 body (written before held ends) is still read: its orders, ids and times
    /// as written, no held end, the strategy away.
    #[test]
    fn a_version_1_checkpoint_is_still_read() {
        let v1 = CheckpointStateV1 {
            epoch_started_ms: 77,
            used: [1, 2, 9].into_iter().collect(),
            list_ids: [7].into_iter().collect(),
            last_report_ms: 5,
            last_mark_ms: 6,
            orders: vec![SavedOrder {
                root: 9,
                epoch: 0,
                cl_ord_ids: vec![9],
                reports: vec![],
                unanswered_since_ms: Some(6),
                amends: vec![],
                ended: false,
            }],
            early: vec![3],
        };
        let mut b = vec![CHECKPOINT_VERSION_1];
        b.extend_from_slice(&42u64.to_le_bytes());
        b.extend_from_slice(&1_000u64.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&postcard::to_stdvec(&v1).unwrap());
        assert_eq!(Checkpoint::head(&b), Ok((42, 1_000, 0)));
        let cp = Checkpoint::decode(&b).unwrap();
        assert_eq!((cp.next_seq, cp.prev_len, cp.epoch), (42, 1_000, 0));
        assert_eq!(cp.state.orders, v1.orders);
        assert_eq!(cp.state.used, v1.used);
        assert_eq!(cp.state.early, vec![3]);
        assert!(cp.state.held.is_empty() && cp.state.status_due.is_empty());
        assert_eq!(cp.state.presence, SavedPresence::default());
        assert_eq!(cp.state.now_ms, 6);
        // A version 1 body is not read as version 2 (the fields differ).
        let mut as_v2 = b.clone();
        as_v2[0] = CHECKPOINT_VERSION;
        assert_ne!(Checkpoint::decode(&as_v2).ok(), Some(cp));
    }
}
