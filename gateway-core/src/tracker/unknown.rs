//! Unknown outcomes, their state and what the tracker asks of the shell: why an outcome became
//! unknown, the resolution requests, the exchange's clock offset bound, the watchdog's
//! deadlines and the tracker's unresolved-request table. The tracker's handling of them is in
//! `resolve.rs` (above the tracker core); this file is below it.

use std::collections::HashMap;

use codec::sbe::OrdStatus;
use codec::Decimal;

use super::request::RequestKind;
use crate::ids::ClientOid;
use crate::rest_objects::OpenOrder;

/// Default `[tracker] reply_timeout_ms`: a request without reply after this is unknown.
pub const DEFAULT_REPLY_TIMEOUT_MS: u64 = 5_000;

/// Default `[tracker] push_deadline_ms`: a reply without push (or the reverse) after this is
/// flagged by the watchdog.
pub const DEFAULT_PUSH_DEADLINE_MS: u64 = 3_000;

/// Text of the ExecutionReport Rejected / OrderCancelReject of a request the exchange did not
/// apply.
pub const NOT_APPLIED_TEXT: &str = "not applied at the exchange";

/// Why a request's outcome became unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownCause {
    /// The reply carried an outcome-unknown code.
    Code(u32),
    /// No reply within the reply timeout.
    ReplyTimeout,
    /// The account's link dropped while it was in flight.
    LinkDown,
    /// Watchdog: the reply came, the order's push did not.
    AckWithoutPush,
    /// Watchdog: the order's push came, the request's reply did not.
    PushWithoutReply,
    /// The gateway restarted after the ClOrdID was accepted and before any report for it was
    /// journaled (crash recovery).
    Restart,
    /// The exchange does not show an order open here: a reconciliation's lists leave it out
    /// (it ended while the link was down, and was created before the history list's window),
    /// or a cancel or modify of it was answered "Order does not exist" and no push ended it
    /// within the push deadline. Its state is queried by clientOid.
    NotShown,
}

/// One order to query at the exchange by clientOid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolveRequest {
    /// Index of the account the order was sent on.
    pub account: usize,
    /// The order's clientOid.
    pub client_oid: ClientOid,
    /// Why (for logs).
    pub cause: UnknownCause,
    /// The unresolved request is a place: a "not found" answer is asked again after a grace
    /// period before it counts as "never created".
    pub place: bool,
    /// Gateway UTC ms at which the order's place was written (0 when unknown). A resolver that
    /// settles many orders at once lists the account's orders and fills from there, moved by
    /// the exchange's clock offset ([`ClockOffset::list_since_ms`]), instead of querying each
    /// order. For an order restored after a restart it is the time of the last report
    /// journaled before its ClOrdID (`journal::store::Recovered::unanswered_since_ms`).
    pub written_ms: u64,
}

/// Margin taken before an order's place write when listing the exchange's orders for it, in
/// ms, while the exchange's clock offset is not known ([`ClockOffset`]): the largest clock skew
/// between the gateway and the exchange that still trades (Bitget refuses a signed request
/// whose timestamp is more than 30 s from its own, `40008`; reference §2 "Timestamp
/// tolerance"), so the order's `cTime` is never before it.
pub const SINCE_MARGIN_MS: u64 = 30_000;

/// Margin taken before an order's place write, in ms, once the exchange's clock offset is
/// bounded ([`ClockOffset`]): room for the gateway's own clock being slewed or stepped since
/// the bound was measured.
pub const SINCE_MARGIN_KNOWN_OFFSET_MS: u64 = 2_000;

/// Length of one window of [`ClockOffset`] samples, ms: a bound older than two windows is
/// dropped.
pub const CLOCK_OFFSET_WINDOW_MS: u64 = 10_000;

/// How far the gateway's UTC clock may move against its monotonic clock, ms, before the
/// [`ClockOffset`] samples taken before are dropped: a step (an NTP step, an operator's
/// `date`), not a slew (at most 0.5 ms/s, 10 ms over the two windows a bound lives).
pub const CLOCK_STEP_MS: i64 = 100;

/// A lower bound of the exchange's clock offset (exchange UTC − gateway UTC, ms). Each sample is
/// an exchange time that was already past when the gateway read it (the REST `serverTime` of
/// `GET /api/v3/public/time`, an order's `updatedTime` in a list), less the gateway's UTC at
/// the read, so no sample exceeds the offset. The largest sample of the current and the
/// previous [`CLOCK_OFFSET_WINDOW_MS`] window is the bound; none while nothing was sampled in
/// that time.
///
/// It lets a resolver list the exchange's orders from an order's write time plus the bound
/// (less [`SINCE_MARGIN_KNOWN_OFFSET_MS`]) instead of less the 30 s [`SINCE_MARGIN_MS`]: at
/// high order rates the lists since the write less 30 s grow to the pager's limit, and
/// resolution falls behind the link drops that feed it.
///
/// A step of the gateway's UTC clock makes the samples taken before it wrong by the step (a
/// forward step: above the offset, and the lists then start after the order): each sample
/// notes the gateway's UTC less its monotonic time, and a move of more than [`CLOCK_STEP_MS`]
/// drops the samples taken before (no bound until the next one). Found by the deterministic
/// simulation (seed 990 591 of the 10⁶-seed run: forward steps of 0.1-2 s adding up to more
/// than the 2 s margin within a bound's life; the sweep listed from after a filled order's
/// creation and settled it Rejected, not applied).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ClockOffset {
    /// Window number (gateway UTC ms / window) of `current`.
    window: u64,
    /// Largest sample of the current window.
    current: Option<i64>,
    /// Largest sample of the window before it.
    previous: Option<i64>,
    /// Gateway UTC less monotonic ms at the samples kept (`None`: none taken).
    clock: Option<i64>,
}

/// Gateway UTC ms less monotonic ms.
fn clock_of(utc_ms: u64, mono_ms: u64) -> i64 {
    i64::try_from(i128::from(utc_ms) - i128::from(mono_ms)).unwrap_or(0)
}

impl ClockOffset {
    /// Takes one sample: exchange time `exchange_ms` (already past) read at gateway time
    /// `read_utc_ms`, monotonic `mono_ms`. Zeros are ignored. After a step of the UTC clock
    /// (see [`CLOCK_STEP_MS`]) the samples taken before are dropped first.
    pub fn sample(&mut self, exchange_ms: u64, read_utc_ms: u64, mono_ms: u64) {
        let (Ok(created), Ok(read)) = (i64::try_from(exchange_ms), i64::try_from(read_utc_ms))
        else {
            return;
        };
        if created == 0 || read == 0 {
            return;
        }
        let clock = clock_of(read_utc_ms, mono_ms);
        if self.stepped(clock) {
            self.current = None;
            self.previous = None;
        }
        self.clock = Some(clock);
        let w = read_utc_ms / CLOCK_OFFSET_WINDOW_MS;
        if w != self.window {
            self.previous = if w == self.window.wrapping_add(1) {
                self.current
            } else {
                None
            };
            self.current = None;
            self.window = w;
        }
        let s = created - read;
        self.current = Some(self.current.map_or(s, |c| c.max(s)));
    }

    /// The bound at gateway time `utc_ms` (ms), if a push was read in the current or the
    /// previous window.
    pub fn bound(&self, utc_ms: u64, mono_ms: u64) -> Option<i64> {
        if self.stepped(clock_of(utc_ms, mono_ms)) {
            return None;
        }
        let w = utc_ms / CLOCK_OFFSET_WINDOW_MS;
        if w == self.window {
            match (self.current, self.previous) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            }
        } else if w == self.window.wrapping_add(1) {
            self.current
        } else {
            None
        }
    }

    /// True when the UTC clock, `clock` (UTC less monotonic ms) now, stepped since the
    /// samples kept were taken.
    fn stepped(&self, clock: i64) -> bool {
        self.clock
            .is_some_and(|c| clock.saturating_sub(c).saturating_abs() > CLOCK_STEP_MS)
    }

    /// The UTC ms (exchange clock) from which the exchange's lists show an order written at
    /// gateway time `written_utc_ms`, judged at gateway time `now_utc_ms`, monotonic
    /// `now_mono_ms`: the write time plus the bound less [`SINCE_MARGIN_KNOWN_OFFSET_MS`], or
    /// less [`SINCE_MARGIN_MS`] without a bound; 0 when the write time is unknown (0).
    pub fn list_since_ms(&self, written_utc_ms: u64, now_utc_ms: u64, now_mono_ms: u64) -> u64 {
        if written_utc_ms == 0 {
            return 0;
        }
        match self.bound(now_utc_ms, now_mono_ms) {
            Some(offset) => {
                let since = i128::from(written_utc_ms) + i128::from(offset)
                    - i128::from(SINCE_MARGIN_KNOWN_OFFSET_MS);
                u64::try_from(since.max(0)).unwrap_or(0)
            }
            None => written_utc_ms.saturating_sub(SINCE_MARGIN_MS),
        }
    }
}

/// What the exchange shows of an order (REST order object), for settling its unresolved
/// requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExchangeView {
    /// `orderStatus` as a FIX status.
    pub status: OrdStatus,
    /// `price` (`None` for market orders).
    pub price: Option<Decimal>,
    /// `qty`.
    pub qty: Decimal,
}

impl From<&OpenOrder> for ExchangeView {
    fn from(o: &OpenOrder) -> Self {
        ExchangeView {
            status: o.status,
            price: o.price,
            qty: o.qty,
        }
    }
}

/// The watchdog's deadlines, in ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// A request without reply after this many ms has an unknown outcome.
    pub reply_timeout_ms: u64,
    /// A reply without push, or a push without reply, after this many ms is flagged.
    pub push_deadline_ms: u64,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            reply_timeout_ms: DEFAULT_REPLY_TIMEOUT_MS,
            push_deadline_ms: DEFAULT_PUSH_DEADLINE_MS,
        }
    }
}

/// A replied request whose push is awaited.
#[derive(Debug, Clone, Copy)]
pub(super) struct Watch {
    pub(super) key: (u64, u64),
    pub(super) kind: RequestKind,
    pub(super) t_reply_ns: u64,
}

/// The tracker's unknown-outcome state.
#[derive(Debug, Default)]
pub(super) struct Resolve {
    pub(super) deadlines: Deadlines,
    /// Orders with requests whose outcome is unknown, and those requests.
    pub(super) unresolved: HashMap<(u64, u64), Vec<RequestKind>>,
    pub(super) watch: Vec<Watch>,
    /// Orders whose cancel or modify was answered "Order does not exist"
    /// ([`ORDER_NOT_FOUND`](super::report::ORDER_NOT_FOUND)), with the reply's read time
    /// (monotonic ns): still open after the push deadline, they are queried
    /// ([`UnknownCause::NotShown`]).
    pub(super) gone: Vec<((u64, u64), u64)>,
    pub(super) out: Vec<ResolveRequest>,
    /// Requests held while their account's link is down (released on LinkUp).
    pub(super) held: Vec<ResolveRequest>,
    pub(super) next_scan_ns: u64,
    /// The latest (monotonic ns, UTC ns) pair the tracker was given (watchdog tick), to turn an
    /// order's monotonic write time into UTC.
    pub(super) clock: Option<(u64, u64)>,
    /// Orders restored after a restart without any report → the gateway UTC ms they were
    /// written by (their write time is not known; see `restore`).
    pub(super) restored_written_ms: HashMap<(u64, u64), u64>,
}

pub(super) fn same_request(a: &RequestKind, b: &RequestKind) -> bool {
    match (a, b) {
        (RequestKind::New(_), RequestKind::New(_)) => true,
        (RequestKind::Replace { cl_ord_id: x, .. }, RequestKind::Replace { cl_ord_id: y, .. })
        | (RequestKind::Cancel { cl_ord_id: x }, RequestKind::Cancel { cl_ord_id: y }) => x == y,
        _ => false,
    }
}

impl Resolve {
    /// Empty, with room for `watch` replied requests before the watch list first grows.
    pub(super) fn with_capacity(watch: usize) -> Self {
        Resolve {
            watch: Vec::with_capacity(watch),
            out: Vec::with_capacity(16),
            ..Resolve::default()
        }
    }
}
