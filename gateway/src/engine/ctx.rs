//! What the io thread's tasks share (single-threaded: `Rc`, `Cell`, `RefCell`): the granted
//! sessions, the exchange accounts, the tracker's channel, risk, instruments and move state.
//! Below every engine part that reads it (strategy connections, request handlers, reconnect,
//! reconciliation, resolution, marks); it imports none of them.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use codec::sbe::Category;

use super::account::AccountCtx;
use super::settings::MoveSettings;
use crate::metrics::state::MetricsState;
use crate::metrics::LegHistograms;
use crate::moves::Pacer;
use crate::pretrade::InstrumentTable;
use crate::risk::RiskBook;
use crate::session::fixp::SessionLimits;
use crate::session::out::SessionOut;
use crate::tracker::port::TrackerTx;
use crate::types::SessionGrant;

/// State shared by the io thread's tasks (single-threaded: `Rc`, `Cell`, `RefCell`).
pub(super) struct IoCtx {
    pub(super) grants: HashMap<u64, SessionGrant>,
    pub(super) active: RefCell<HashSet<u64>>,
    pub(super) outs: RefCell<Vec<Arc<SessionOut>>>,
    /// Every granted session's state across its connections (writer, ClOrdIDs, inbound seq).
    pub(super) sessions: RefCell<HashMap<u64, super::sessions::SessionSlot>>,
    pub(super) limits: SessionLimits,
    pub(super) max_frame_len: usize,
    /// Most unsent bytes a strategy connection may leave unread (`[strategy]
    /// max_backlog_bytes`).
    pub(super) max_backlog: usize,
    /// The tracker's unseen tail, ms (`[tracker] unseen_tail_ms`), journaled with each
    /// presence record ([`SessionOut::journal_presence`]).
    pub(super) unseen_tail_ms: u64,
    /// When sessions' epochs end by schedule (`[strategy] rollover`).
    pub(super) rollover: gateway_core::session::rollover::RolloverSchedule,
    pub(super) instruments: InstrumentTable,
    /// The exchange accounts, by index (sessions are bound to one).
    pub(super) accounts: Vec<AccountCtx>,
    pub(super) tracker_tx: TrackerTx,
    pub(super) legs: RefCell<LegHistograms>,
    /// Pre-trade risk state (shared with the tracker).
    pub(super) risk: Arc<RiskBook>,
    /// Product lines whose instruments are loaded.
    pub(super) categories: Vec<Category>,
    /// Position-move state (UIDs, pacing) and settings.
    pub(super) moves: MovesState,
    pub(super) next_req_id: Cell<u64>,
    /// Order-entry recording (`[record]`), when on.
    pub(super) record: Option<crate::replay::RecordTx>,
    /// What the metrics endpoint reads (reports counted, link phases, published gauges).
    pub(super) metrics: Arc<MetricsState>,
}

impl IoCtx {
    /// The next trade-op `id` (gateway-wide, starts at 1).
    pub(super) fn next_request_id(&self) -> u64 {
        let id = self.next_req_id.get() + 1;
        self.next_req_id.set(id);
        id
    }
}

/// The io thread's move state: settings, the learnt UID of each account, the pacing.
pub(in crate::engine) struct MovesState {
    pub(in crate::engine) settings: MoveSettings,
    /// UID of each account (by index), once learnt from `GET /api/v3/account/settings`.
    pub(in crate::engine) uids: RefCell<Vec<Option<u64>>>,
    pub(in crate::engine) pacer: RefCell<Pacer>,
}

impl MovesState {
    /// Fresh state.
    pub(in crate::engine) fn new(settings: &MoveSettings) -> MovesState {
        MovesState {
            settings: settings.clone(),
            uids: RefCell::new(Vec::new()),
            pacer: RefCell::new(Pacer::default()),
        }
    }
}
