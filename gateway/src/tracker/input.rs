//! What the tracker takes and hands back: its inputs ([`TrackerInput`], and the form a
//! recording keeps of them, [`recorded`]), where and how it runs ([`TrackerThreadConfig`],
//! [`TrackerPlacement`]) and its summary. The lowest file of the tracker's shell: the thread
//! loop (`mod.rs`), the driver and the io thread's port all import it.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::frame_pool;
use crate::idle::IdleStrategy;
use crate::metrics::LegHistograms;
use crate::replay::RecordedInput;
use crate::session::out::SessionOut;
use gateway_core::tracker::{
    core, ApplySummary, Deadlines, ExchangeState, ListDone, MassCancelEvent, Order, OrderFilter,
    OrderView, ResolveRequest, Retention, SentBatch, SentRequest, TrackerStats,
};

/// Where the tracker runs (`[tracker] placement`; see [`super::port`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackerPlacement {
    /// Its own thread (`[tracker] core`, `[tracker] idle`), fed through a queue: the io
    /// thread never runs tracker work, each hand-off may wake the tracker thread. For a
    /// machine with cores to spare (both threads pinned and spinning) and rates where one
    /// thread would not keep up.
    OwnThread,
    /// On the io thread, called where the input is made (`[io] core` and `[io] idle` apply):
    /// no hand-off and no wake-up; the io thread does the tracker's work (parsing pushes,
    /// writing reports) between its reads. The default: the lower latency on a machine with
    /// few cores (README "Latency"); a stall of the tracker (its table growing, a large
    /// reconciliation) is then a stall of the io thread.
    #[default]
    IoThread,
}

/// What the tracker thread consumes.
#[derive(Debug)]
pub enum TrackerInput {
    /// A trade op was written to the exchange.
    Sent(SentRequest),
    /// An exchange batch of a strategy list was written.
    SentBatch(SentBatch),
    /// The io thread is done with a strategy list (its ListStatus follows once every batch is
    /// answered).
    ListDone(ListDone),
    /// A text frame from the private WebSocket, read at `t_read_ns` (monotonic).
    Frame {
        /// Index of the account whose connection it came from.
        account: usize,
        /// The frame's payload (a pooled copy: dropping it returns the buffer).
        text: frame_pool::FrameBuf,
        /// When the io thread read it.
        t_read_ns: u64,
    },
    /// A strategy session was established; its reports go to `out`.
    SessionOpened {
        /// SessionID.
        session_id: u64,
        /// Index of the account the session is bound to.
        account: usize,
        /// What the session may do (drop-copy sessions get every report of their account).
        role: crate::types::SessionRole,
        /// Its writer.
        out: Arc<SessionOut>,
    },
    /// A strategy session's connection ended (its writer stays; reports keep being journaled).
    SessionClosed {
        /// SessionID.
        session_id: u64,
    },
    /// Query: the open orders `filter` selects (after reconciling with `exchange`, the
    /// account's `unfilled-orders`, when given), answered on `reply`.
    OpenOrders {
        /// Which orders.
        filter: OrderFilter,
        /// The exchange's open orders of the account (RefreshFromExchange).
        exchange: Option<Vec<crate::exchange::rest_orders::OpenOrder>>,
        /// Where the answer goes.
        reply: tokio::sync::oneshot::Sender<Vec<OrderView>>,
    },
    /// Progress of a mass cancel (see [`MassCancelEvent`]).
    MassCancel(MassCancelEvent),
    /// What the exchange's REST queries say about some orders (see [`reconcile`]); the summary
    /// goes to `reply` once applied.
    ExchangeState {
        /// The orders and fills.
        state: ExchangeState,
        /// Where the summary goes.
        reply: Option<tokio::sync::oneshot::Sender<ApplySummary>>,
    },
    /// Crash recovery: rebuild a recovered session's orders from its journal (after its
    /// `SessionOpened`; see [`restore`]).
    Restore {
        /// SessionID.
        session_id: u64,
        /// Every ClOrdID the session used → root ClOrdID.
        roots: HashMap<u64, u64>,
        /// The ExecutionReports sent to it, in sequence order.
        reports: Vec<codec::sbe::ExecutionReport>,
        /// Root ClOrdIDs no report names → UTC ms from which the exchange's lists show them
        /// (see [`crate::journal::store::Recovered::unanswered_since_ms`]).
        unanswered_since_ms: HashMap<u64, u64>,
        /// Cancel and replace ClOrdIDs no report names (see
        /// [`crate::journal::store::Recovered::unanswered_amends`]).
        unanswered_amends: Vec<u64>,
    },
    /// Session `session_id` is in epoch `epoch`: at start-up (its journal's epoch, with the
    /// epochs of the orders carried from earlier ones) or at a rollover (`started`: its open
    /// orders are reported OrderStatus as the new epoch's first messages).
    Epoch {
        /// SessionID.
        session_id: u64,
        /// The epoch.
        epoch: u32,
        /// (root, epoch) of the orders placed in earlier epochs still open.
        order_epochs: Vec<(u64, u32)>,
        /// A rollover, not a restart.
        started: bool,
    },
    /// The subscribed link of an account dropped (its pushes are missing until `LinkUp`).
    LinkDown {
        /// Account index.
        account: usize,
        /// When (monotonic ns).
        t_ns: u64,
    },
    /// The account's link is back, resubscribed and reconciled.
    LinkUp {
        /// Account index.
        account: usize,
        /// When (monotonic ns).
        t_ns: u64,
    },
    /// Stop the thread (it returns its [`TrackerSummary`]).
    Shutdown,
}

/// Where and how the tracker thread runs.
#[derive(Debug, Clone, Copy)]
pub struct TrackerThreadConfig {
    /// CPU to pin to (`None`: let the scheduler place it).
    pub core: Option<usize>,
    /// Idle strategy of the polling loop.
    pub idle: IdleStrategy,
    /// Its own thread, or the io thread (`[tracker] placement`; see [`port`]).
    pub placement: TrackerPlacement,
    /// How often latency snapshots are sent to the metrics channel, in ms (0: never).
    pub report_interval_ms: u64,
    /// Unknown-outcome and watchdog deadlines (`[tracker] reply_timeout_ms`,
    /// `push_deadline_ms`).
    pub deadlines: Deadlines,
    /// Open orders the table holds before it first grows (`[tracker] order_capacity`; see
    /// [`core::INITIAL_ORDERS`]); the table is sized for these plus
    /// `retention.retention_orders` ended ones.
    pub order_capacity: usize,
    /// How long ended orders stay in full, and how many evicted ones are still recognised
    /// (`[tracker] retention_ms`, `retention_orders`, `tombstones`; see [`retention`]).
    pub retention: Retention,
}

impl Default for TrackerThreadConfig {
    fn default() -> Self {
        TrackerThreadConfig {
            core: None,
            idle: IdleStrategy::Park,
            placement: TrackerPlacement::default(),
            report_interval_ms: 0,
            deadlines: Deadlines::default(),
            order_capacity: core::INITIAL_ORDERS,
            retention: Retention::default(),
        }
    }
}

/// Where the tracker sends the orders whose outcome must be queried (the io thread's
/// resolution driver).
pub type ResolveSender = tokio::sync::mpsc::UnboundedSender<ResolveRequest>;

/// What the tracker thread hands back when it stops.
#[derive(Debug)]
pub struct TrackerSummary {
    /// Counters.
    pub stats: TrackerStats,
    /// Frames that did not parse as JSON.
    pub json_errors: u64,
    /// Latency legs measured on this thread since the last snapshot.
    pub legs: LegHistograms,
    /// Final state of the orders still in the tracker's live table: the open ones and the ended
    /// ones not evicted yet (an ended order leaves after the retention window; see
    /// [`retention`]).
    pub orders: Vec<Order>,
}

/// The recorded form of `input` (what a replay recording keeps of it), handed to the core with the monotonic time `mono_ns`
/// (kept for ExchangeState); `None` for an input that is not recorded (Shutdown). Maps
/// are sorted so that the same input always gives the same bytes.
pub(crate) fn recorded(input: &TrackerInput, mono_ns: u64) -> Option<RecordedInput> {
    fn sorted(map: &std::collections::HashMap<u64, u64>) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = map.iter().map(|(k, v)| (*k, *v)).collect();
        v.sort_unstable();
        v
    }
    Some(match input {
        TrackerInput::Sent(r) => RecordedInput::Sent(*r),
        TrackerInput::SentBatch(b) => RecordedInput::SentBatch(b.clone()),
        TrackerInput::ListDone(d) => RecordedInput::ListDone(d.clone()),
        TrackerInput::Frame {
            account,
            text,
            t_read_ns,
        } => RecordedInput::Frame {
            account: *account,
            text: bytes::Bytes::copy_from_slice(text),
            t_read_ns: *t_read_ns,
        },
        TrackerInput::SessionOpened {
            session_id,
            account,
            role,
            ..
        } => RecordedInput::SessionOpened {
            session_id: *session_id,
            account: *account,
            role: *role,
        },
        TrackerInput::SessionClosed { session_id } => RecordedInput::SessionClosed {
            session_id: *session_id,
        },
        TrackerInput::OpenOrders {
            filter, exchange, ..
        } => RecordedInput::OpenOrders {
            filter: *filter,
            exchange: exchange.clone(),
        },
        TrackerInput::MassCancel(ev) => RecordedInput::MassCancel(*ev),
        TrackerInput::ExchangeState { state, .. } => RecordedInput::ExchangeState {
            state: state.clone(),
            t_read_ns: mono_ns,
        },
        TrackerInput::LinkDown { account, t_ns } => RecordedInput::LinkDown {
            account: *account,
            t_ns: *t_ns,
        },
        TrackerInput::LinkUp { account, t_ns } => RecordedInput::LinkUp {
            account: *account,
            t_ns: *t_ns,
        },
        TrackerInput::Restore {
            session_id,
            roots,
            reports,
            unanswered_since_ms,
            unanswered_amends,
        } => RecordedInput::Restore {
            session_id: *session_id,
            roots: sorted(roots),
            reports: reports.clone(),
            unanswered_since_ms: sorted(unanswered_since_ms),
            unanswered_amends: unanswered_amends.clone(),
        },
        TrackerInput::Epoch {
            session_id,
            epoch,
            order_epochs,
            started,
        } => RecordedInput::Epoch {
            session_id: *session_id,
            epoch: *epoch,
            order_epochs: order_epochs.clone(),
            started: *started,
        },
        TrackerInput::Shutdown => return None,
    })
}

#[cfg(test)]
mod recorded_tests {
    use std::collections::HashMap;

    use codec::sbe::{
        Category, ExecType, ExecutionReport, OrdStatus, OrdType, Side, Symbol, Text, TimeInForce,
    };

    use super::{recorded, ExchangeState, TrackerInput};
    use crate::replay::{Record, RecordedInput};

    fn er(cl: u64, orig: u64, exec_type: ExecType, status: OrdStatus) -> ExecutionReport {
        ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            order_id: 500 + cl,
            exec_id: 0,
            transact_time: 1_000_000 + cl,
            price: None,
            order_qty: "0.002".parse().unwrap(),
            last_qty: None,
            last_px: None,
            cum_qty: codec::Decimal::ZERO,
            leaves_qty: "0.002".parse().unwrap(),
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status: status,
            ord_rej_reason: None,
            text: Text::new(""),
        }
    }

    #[test]
    fn tracker_inputs_are_recorded_with_sorted_maps_and_the_driver_time() {
        let roots: HashMap<u64, u64> = [(9, 9), (4, 3), (3, 3), (7, 7), (1, 1)].into();
        let restore = |roots: HashMap<u64, u64>| TrackerInput::Restore {
            session_id: 6,
            roots,
            reports: vec![er(3, 0, ExecType::New, OrdStatus::New)],
            unanswered_since_ms: [(9, 1_700), (7, 1_600)].into(),
            unanswered_amends: vec![12],
        };
        let got = recorded(&restore(roots.clone()), 0).unwrap();
        let RecordedInput::Restore {
            roots: r,
            unanswered_since_ms,
            ..
        } = &got
        else {
            panic!("{got:?}");
        };
        assert_eq!(r, &[(1, 1), (3, 3), (4, 3), (7, 7), (9, 9)]);
        assert_eq!(unanswered_since_ms, &[(7, 1_600), (9, 1_700)]);
        // Same input, same bytes (whatever the map's iteration order).
        let bytes = |i: &TrackerInput| {
            let mut b = Vec::new();
            let input = recorded(i, 0).unwrap();
            assert!(Record::Input { utc_ns: 1, input }.encode(&mut b));
            b
        };
        let mut pairs: Vec<(u64, u64)> = roots.iter().map(|(k, v)| (*k, *v)).collect();
        pairs.reverse();
        let mut again: HashMap<u64, u64> = HashMap::with_capacity(64);
        again.extend(pairs);
        assert_eq!(bytes(&restore(roots)), bytes(&restore(again)));

        let state = TrackerInput::ExchangeState {
            state: ExchangeState::default(),
            reply: None,
        };
        let got = recorded(&state, 99).unwrap();
        assert!(matches!(
            got,
            RecordedInput::ExchangeState { t_read_ns: 99, .. }
        ));
        assert!(recorded(&TrackerInput::Shutdown, 1).is_none());
    }
}
