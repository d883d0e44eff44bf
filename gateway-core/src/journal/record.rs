//! Journal records: encoding and a reader that stops at a truncated tail.
//!
//! A record is `kind u8 | len u32 LE | body (len bytes)`. Bodies (integers little endian):
//! - [`KIND_OUTBOUND_FROM`]: `seq u64 | origin u8 | SOFH frame bytes` (one gateway → strategy
//!   application message, exactly as written to the socket, and the gateway path that produced
//!   it, [`Origin`]);
//! - [`KIND_OUTBOUND`]: `seq u64 | SOFH frame bytes` (the same without the origin, as journals
//!   written before the origin was recorded hold it; read as [`Origin::Unrecorded`]);
//! - [`KIND_CL_ORD_ID`]: `ClOrdID u64 | root ClOrdID u64` (a ClOrdID the session used);
//! - [`KIND_LIST_ID`]: `ListID u64` (a batch ListID the session used);
//! - [`KIND_CLOCK`]: `UTC ms u64` (the gateway opened the journal at this time: everything
//!   after it happened later; crash recovery dates the orders in flight by it);
//! - [`KIND_CHECKPOINT`]: a [`crate::journal::checkpoint::Checkpoint`] (the first record of
//!   every journal segment but the legacy one: what a restart needs of everything before it;
//!   body layout in [`crate::journal::checkpoint`]);
//! - [`KIND_EPOCH`]: `epoch u64 | started UTC ms u64` (session rollover: the records after it
//!   belong to the new epoch, numbered from 1);
//! - [`KIND_PRESENCE`]: `connected u8 | UTC ms u64 | unseen tail ms u64` (the session's
//!   strategy connected (1: established) or its connection ended (0) at this time; the tail is
//!   the tracker's `unseen_tail_ms`: how long after an end, or after connecting, the strategy
//!   is taken to have read it. The fold keeps the ended orders whose end may be unread by
//!   it, see [`crate::journal::fold`]).
//!
//! Unknown kinds are skipped by their length (room for later kinds).
//!
//! The bodies are laid out by hand, unlike the replay recordings' serde + postcard records
//! (`gateway::replay`): journals written by older builds must stay readable, and their kind 1
//! and 4 bodies (fixed-width `u64` LE, then the frame as the rest of the body, with no length
//! of its own) are not the postcard encoding of any type, so this reader would stay for them
//! anyway. The records are also written on the order path (under the session's writer lock)
//! and read back zero-copy for retransmission.

/// Kind of an outbound application message record.
pub const KIND_OUTBOUND: u8 = 1;
/// Kind of an outbound application message record with its [`Origin`].
pub const KIND_OUTBOUND_FROM: u8 = 4;
/// Kind of an accepted-ClOrdID record.
pub const KIND_CL_ORD_ID: u8 = 2;
/// Kind of an accepted-ListID record.
pub const KIND_LIST_ID: u8 = 3;
/// Kind of a clock record.
pub const KIND_CLOCK: u8 = 5;
/// Kind of a checkpoint record (first record of a segment).
pub const KIND_CHECKPOINT: u8 = 6;
/// Kind of an epoch record: the session's epoch ended and this one starts (session rollover).
pub const KIND_EPOCH: u8 = 7;
/// Kind of a presence record: the session's strategy connected or its connection ended.
pub const KIND_PRESENCE: u8 = 8;
/// Bytes of a record header (kind + length).
pub const HEADER_LEN: usize = 5;

/// The gateway path that produced an application message, journaled beside it so that an
/// operator (or the soak) can tell, for any sequence number, why the strategy was told what it
/// was told. One byte on the wire of the journal; the numbers are stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Origin {
    /// Read from a journal written before origins were recorded.
    Unrecorded = 0,
    /// The io thread's order entry: pre-trade rejects, NotApplied gates, duplicate ClOrdIDs,
    /// BusinessMessageReject, account and control replies.
    OrderEntry = 1,
    /// A trade-op reply of the private WebSocket (ACK or refusal).
    Reply = 2,
    /// A live `order` or `fill` push of the private WebSocket.
    Push = 3,
    /// Reconciliation after the exchange link came back (REST state since the drop).
    Reconcile = 4,
    /// Resolution of an unknown outcome (order queried by clientOid).
    Resolve = 5,
    /// Reconciliation after a gateway restart (crash recovery).
    Restart = 6,
    /// A mass action (mass cancel report, cancel on disconnect, kill switch).
    MassAction = 7,
    /// A strategy list's ListStatus.
    List = 8,
    /// A copy of another session's report for a drop-copy session.
    DropCopy = 9,
    /// An account push routed to the sessions of the account (position, balance).
    Account = 10,
}

impl Origin {
    /// Every origin, in number order.
    pub const ALL: [Origin; 11] = [
        Origin::Unrecorded,
        Origin::OrderEntry,
        Origin::Reply,
        Origin::Push,
        Origin::Reconcile,
        Origin::Resolve,
        Origin::Restart,
        Origin::MassAction,
        Origin::List,
        Origin::DropCopy,
        Origin::Account,
    ];

    /// The origin of journal byte `b` ([`Origin::Unrecorded`] for a number this version does
    /// not know).
    pub fn from_u8(b: u8) -> Origin {
        Origin::ALL
            .get(usize::from(b))
            .copied()
            .unwrap_or(Origin::Unrecorded)
    }

    /// A short lower-case name (`"push"`, `"reconcile"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Origin::Unrecorded => "unrecorded",
            Origin::OrderEntry => "order entry",
            Origin::Reply => "reply",
            Origin::Push => "push",
            Origin::Reconcile => "reconcile",
            Origin::Resolve => "resolve",
            Origin::Restart => "restart",
            Origin::MassAction => "mass action",
            Origin::List => "list",
            Origin::DropCopy => "drop copy",
            Origin::Account => "account",
        }
    }
}

/// One decoded record, borrowing the journal bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record<'a> {
    /// An application message sent (or queued) to the strategy.
    Outbound {
        /// Its sequence number.
        seq: u64,
        /// The gateway path that produced it.
        origin: Origin,
        /// The whole SOFH frame.
        frame: &'a [u8],
    },
    /// A ClOrdID the session used and the root ClOrdID of the order it names.
    ClOrdId {
        /// The ClOrdID.
        cl_ord_id: u64,
        /// The root ClOrdID; 0 (`session::order_entry::NO_ORDER`) when it names no order: a
        /// cancel or replace refused at entry, whose ClOrdID stays used all the same.
        root: u64,
    },
    /// A ListID the session used.
    ListId(u64),
    /// The gateway opened the journal at this UTC ms.
    Clock(u64),
    /// A checkpoint: its body, decoded by [`crate::journal::checkpoint::Checkpoint::decode`].
    Checkpoint(&'a [u8]),
    /// The session's epoch ended here and epoch `epoch` started at UTC ms `started_ms`:
    /// outbound numbering starts again at 1, the ClOrdIDs of ended orders are free again.
    Epoch {
        /// The new epoch.
        epoch: u64,
        /// When it started, UTC ms.
        started_ms: u64,
    },
    /// The session's strategy connected (established) or its connection ended, at UTC ms
    /// `ms` (the shell writes it where the tracker is told `SessionOpened` / `SessionClosed`).
    Presence {
        /// True: connected (established); false: the connection ended.
        connected: bool,
        /// When, UTC ms.
        ms: u64,
        /// The tracker's unseen tail in force, ms (`[tracker] unseen_tail_ms`).
        tail_ms: u64,
    },
    /// A record of a kind this version does not know (skipped).
    Unknown(u8),
}

fn header(out: &mut Vec<u8>, kind: u8, len: usize) {
    out.push(kind);
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
}

/// Appends an outbound-message record.
pub fn put_outbound(out: &mut Vec<u8>, seq: u64, origin: Origin, frame: &[u8]) {
    header(out, KIND_OUTBOUND_FROM, 9 + frame.len());
    out.extend_from_slice(&seq.to_le_bytes());
    out.push(origin as u8);
    out.extend_from_slice(frame);
}

/// Appends an accepted-ClOrdID record.
pub fn put_cl_ord_id(out: &mut Vec<u8>, cl_ord_id: u64, root: u64) {
    header(out, KIND_CL_ORD_ID, 16);
    out.extend_from_slice(&cl_ord_id.to_le_bytes());
    out.extend_from_slice(&root.to_le_bytes());
}

/// Appends a clock record (UTC ms).
pub fn put_clock(out: &mut Vec<u8>, utc_ms: u64) {
    header(out, KIND_CLOCK, 8);
    out.extend_from_slice(&utc_ms.to_le_bytes());
}

/// Appends a checkpoint record around `body` (an encoded
/// [`crate::journal::checkpoint::Checkpoint`]).
pub fn put_checkpoint(out: &mut Vec<u8>, body: &[u8]) {
    header(out, KIND_CHECKPOINT, body.len());
    out.extend_from_slice(body);
}

/// Appends an epoch record: epoch `epoch` starts at UTC ms `started_ms`.
pub fn put_epoch(out: &mut Vec<u8>, epoch: u64, started_ms: u64) {
    header(out, KIND_EPOCH, 16);
    out.extend_from_slice(&epoch.to_le_bytes());
    out.extend_from_slice(&started_ms.to_le_bytes());
}

/// Appends a presence record: the strategy connected (`connected`) or its connection ended, at
/// UTC ms `ms`, with the tracker's unseen tail `tail_ms`.
pub fn put_presence(out: &mut Vec<u8>, connected: bool, ms: u64, tail_ms: u64) {
    header(out, KIND_PRESENCE, 17);
    out.push(u8::from(connected));
    out.extend_from_slice(&ms.to_le_bytes());
    out.extend_from_slice(&tail_ms.to_le_bytes());
}

/// Appends an accepted-ListID record.
pub fn put_list_id(out: &mut Vec<u8>, list_id: u64) {
    header(out, KIND_LIST_ID, 8);
    out.extend_from_slice(&list_id.to_le_bytes());
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map(u64::from_le_bytes)
}

/// Reads records from journal bytes (after the file magic). Stops at the first record that is
/// cut short (a write interrupted by a crash); [`Records::valid_len`] then tells how many
/// bytes hold whole records.
#[derive(Debug)]
pub struct Records<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Records<'a> {
    /// Records of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Records { bytes, pos: 0 }
    }

    /// Bytes consumed by whole records so far.
    pub fn valid_len(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        let rest = self.bytes.get(self.pos..)?;
        let (&kind, after) = rest.split_first()?;
        let len = after
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)? as usize;
        let body = after.get(4..4 + len)?;
        let record = match kind {
            KIND_OUTBOUND => Record::Outbound {
                seq: u64_at(body, 0)?,
                origin: Origin::Unrecorded,
                frame: body.get(8..)?,
            },
            KIND_OUTBOUND_FROM => Record::Outbound {
                seq: u64_at(body, 0)?,
                origin: Origin::from_u8(*body.get(8)?),
                frame: body.get(9..)?,
            },
            KIND_CL_ORD_ID => Record::ClOrdId {
                cl_ord_id: u64_at(body, 0)?,
                root: u64_at(body, 8)?,
            },
            KIND_LIST_ID => Record::ListId(u64_at(body, 0)?),
            KIND_CLOCK => Record::Clock(u64_at(body, 0)?),
            KIND_CHECKPOINT => Record::Checkpoint(body),
            KIND_EPOCH => Record::Epoch {
                epoch: u64_at(body, 0)?,
                started_ms: u64_at(body, 8)?,
            },
            KIND_PRESENCE => Record::Presence {
                connected: *body.first()? != 0,
                ms: u64_at(body, 1)?,
                tail_ms: u64_at(body, 9)?,
            },
            other => Record::Unknown(other),
        };
        self.pos += HEADER_LEN + len;
        Some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_truncated_tail_is_ignored() {
        let mut b = Vec::new();
        put_outbound(&mut b, 1, Origin::Push, b"frame-one");
        put_cl_ord_id(&mut b, 7, 5);
        put_list_id(&mut b, 9);
        put_presence(&mut b, true, 1_000, 5_000);
        put_outbound(&mut b, 2, Origin::Reconcile, b"frame-two");
        let whole = b.len();
        let all: Vec<_> = Records::new(&b).collect();
        assert_eq!(
            all,
            [
                Record::Outbound {
                    seq: 1,
                    origin: Origin::Push,
                    frame: b"frame-one"
                },
                Record::ClOrdId {
                    cl_ord_id: 7,
                    root: 5
                },
                Record::ListId(9),
                Record::Presence {
                    connected: true,
                    ms: 1_000,
                    tail_ms: 5_000
                },
                Record::Outbound {
                    seq: 2,
                    origin: Origin::Reconcile,
                    frame: b"frame-two"
                },
            ]
        );
        // Every cut inside the last record drops that record only.
        let before_last = whole - (HEADER_LEN + 9 + 9);
        for cut in before_last..whole {
            let mut r = Records::new(&b[..cut]);
            assert_eq!(r.by_ref().count(), 4, "cut at {cut}");
            assert_eq!(r.valid_len(), before_last);
        }
        // An unknown kind is skipped by its length.
        let mut u = vec![77u8, 2, 0, 0, 0, 0xAB, 0xCD];
        put_list_id(&mut u, 3);
        let got: Vec<_> = Records::new(&u).collect();
        assert_eq!(got, [Record::Unknown(77), Record::ListId(3)]);
    }

    #[test]
    fn records_without_origin_are_read_as_unrecorded() {
        let mut b = Vec::new();
        header(&mut b, KIND_OUTBOUND, 8 + 3);
        b.extend_from_slice(&5u64.to_le_bytes());
        b.extend_from_slice(b"old");
        assert_eq!(
            Records::new(&b).collect::<Vec<_>>(),
            [Record::Outbound {
                seq: 5,
                origin: Origin::Unrecorded,
                frame: b"old"
            }]
        );
        for o in Origin::ALL {
            assert_eq!(Origin::from_u8(o as u8), o);
        }
        assert_eq!(Origin::from_u8(200), Origin::Unrecorded);
    }
}
