//! The gateway's side of a run: the real gateway-core components, called the way the shell's
//! io thread and tracker call them (`gateway::engine::strategy_conn`, `gateway::tracker::driver`,
//! `gateway::engine::resolve` and `reconnect`): the FIXP session per strategy, order entry and
//! the decision (`decide_single`), the risk book and its feed, the tracker fed every trade op
//! written, every exchange frame read, the REST states and its ticks. What the shell does with
//! sockets is here a [`Wire`] call the world turns into a scheduled delivery.
//!
//! The tracker runs inside the core's [`TrackerDrive`] (the sequence the tracker thread runs)
//! with a [`TrackerSink`] that numbers and writes the reports to the sessions' flows, as the
//! shell's `gateway::tracker::sink` does. The single-order path below is the io thread's
//! (`strategy_conn::on_single_order`): still glue here, the decision itself is the core's.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use codec::frame::SOFH_LEN;
use codec::sbe::{self, Category, Message, NegotiationRejectCode};
use gateway_core::decision::mass::{
    mass_cancel_filter, plan_mass_cancel, MassCancel, MassDecision,
};
use gateway_core::decision::single::{decide_single, recheck_after_journal, Decided, Verdict};
use gateway_core::decision::WithJournal;
use gateway_core::decision::{not_sent, Accepted, AccountGate, NotSent};
use gateway_core::journal::durability::StorageFault;
use gateway_core::journal::fold::Recovered;
use gateway_core::journal::record;
use gateway_core::journal::record::Origin;
use gateway_core::journal::write_ahead::{Journaled, RecordSink, WriteAhead};
use gateway_core::pretrade::{InstrumentRules, InstrumentTable};
use gateway_core::recovery::EndedBeforeRestart;
use gateway_core::risk::{RiskBook, RiskSettings};
use gateway_core::session::fixp::{
    version_asked, Authorizer, FixpSession, SessionAction, SessionLimits, SessionReply,
    VersionAsked,
};
use gateway_core::session::order_entry::OrderEntry;
use gateway_core::tracker::risk_feed::RiskFeed;
use gateway_core::tracker::routing::AccountUpdate;
use gateway_core::tracker::{
    frames, Deadlines, Evicted, ExchangeState, ListReport, MassCancelEvent, Report, RequestKind,
    ResolveRequest, Retention, SentRequest, Tracker, TrackerDrive, TrackerSink,
};
use gateway_core::types::SessionGrant;

use crate::journal::{RecoveryNote, SimJournal};
use crate::rng::SimRng;

mod journaling;
use journaling::write_app;
mod restart;

pub use restart::{Crashed, Restarted};

/// Where the gateway's output goes (the world schedules its delivery).
pub trait Wire {
    /// A frame for strategy session `session` (index); `seq` is its sequence number when it is
    /// an application message (0: a session message).
    fn to_strategy(&mut self, session: usize, seq: u64, frame: Vec<u8>);
    /// A trade op for the exchange WebSocket.
    fn to_venue(&mut self, text: Vec<u8>);
    /// An order of unknown outcome to query.
    fn resolve(&mut self, req: ResolveRequest);
    /// One step of the gateway's output is about to happen (a journal append, a socket
    /// write): false when the process crashed before it (a crash point), and from then on.
    fn effect(&mut self) -> bool;
}

/// The exchange link as the gateway sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Link {
    /// Connected and reconciled: requests are taken (the account gate).
    pub up: bool,
    /// A connection is open (frames flow), reconciled or not.
    pub connected: bool,
    /// UTC ms of the first drop not yet reconciled.
    pub down_since_ms: Option<u64>,
}

struct Gate<'a>(&'a Link);

impl AccountGate for Gate<'_> {
    fn name(&self) -> &str {
        "dst"
    }
    fn trades(&self, category: Category) -> bool {
        category == Category::UsdtFutures
    }
    fn is_up(&self) -> bool {
        self.0.up
    }
}

/// One strategy session's gateway state: its FIXP state machine, order entry and the
/// recoverable flow's numbering (its journal kept for retransmission).
#[derive(Debug)]
struct Session {
    grant: SessionGrant,
    fixp: FixpSession,
    entry: Option<OrderEntry>,
    /// Sequence number of the next application message.
    next_seq: u64,
    /// The session's journal (application frames, ClOrdIDs used, checkpoints).
    journal: SimJournal,
    /// The write-ahead rule over it, as the shell's `SessionOut` runs it
    /// (`gateway_core::journal::write_ahead`): records held while appends fail, the
    /// sequence number the strategy may be told.
    wa: WriteAhead,
    /// A failed append is ignored (before issue 37; see `Gateway::legacy_journal_errors`).
    legacy: bool,
    last_write_ns: u64,
    /// Negotiated on the current connection (the shell's `active` set).
    active: bool,
    /// A connection is attached: frames are written to it (else only numbered and journaled,
    /// for retransmission).
    connected: bool,
    /// Established on the current connection (bound to the session).
    bound: bool,
    /// The strategy sent Terminate on the current connection (no cancel on disconnect).
    strategy_terminated: bool,
    /// The inbound numbering kept across connections.
    next_in_seq: u64,
    /// The session's epoch (a rollover starts the next).
    epoch: u32,
}

struct Auth<'a> {
    grant: &'a SessionGrant,
    active: bool,
    /// The session's epoch.
    epoch: u32,
    /// The epoch the Negotiate asked to start (a rollover), done by the caller before the
    /// NegotiationResponse is written (the shell's authorizer does it in place).
    start: Option<u32>,
    /// The session's journal is failing: its held messages belong to the epoch in force, so
    /// a new one cannot start (the shell's `start_epoch` refuses it: Unspecified).
    journal_failing: bool,
}

impl Authorizer for Auth<'_> {
    fn authorize(
        &mut self,
        session_id: u64,
        credentials: &str,
        session_ver_id: u64,
    ) -> Result<u32, NegotiationRejectCode> {
        if session_id != self.grant.session_id || credentials != self.grant.credentials {
            return Err(NegotiationRejectCode::Credentials);
        }
        if self.active {
            return Err(NegotiationRejectCode::DuplicateId);
        }
        match version_asked(self.epoch, session_ver_id) {
            VersionAsked::Resume(e) => Ok(e),
            VersionAsked::Start(_) if self.journal_failing => {
                Err(NegotiationRejectCode::Unspecified)
            }
            VersionAsked::Start(e) => {
                self.start = Some(e);
                Ok(e)
            }
            VersionAsked::Refuse(_) => Err(NegotiationRejectCode::StaleSessionVersion),
        }
    }
}

/// The gateway.
pub struct Gateway {
    sessions: Vec<Session>,
    instruments: InstrumentTable,
    risk: Arc<RiskBook>,
    drive: TrackerDrive,
    /// The exchange link.
    pub link: Link,
    next_req_id: u64,
    json: Vec<u8>,
    /// clientOid of each place op written → (session index, root), to check that none is sent
    /// twice and to find each order at the venue at the end.
    pub placed: BTreeMap<String, (usize, u64)>,
    /// Place ops that named a clientOid already placed.
    pub repeated_client_oids: Vec<String>,
    /// (SessionID, root) of each order placed while its session's journal was failing
    /// (issue 37: no new risk then).
    pub placed_while_failing: Vec<(u64, u64)>,
    /// A failed journal append is ignored, as before issue 37 ([`crate::RunConfig`]'s
    /// `legacy_journal_errors`).
    pub legacy_journal_errors: bool,
    /// Sessions whose connection the gateway ended (Terminate sent), for the world to close.
    closed: Vec<usize>,
    /// The tracker's unseen tail, ms (journaled with each presence record).
    unseen_tail_ms: u64,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway").field("link", &self.link).finish()
    }
}

/// SessionID of strategy `i`.
pub fn session_id_of(i: usize) -> u64 {
    100 + i as u64
}

/// Credentials of strategy `i`.
pub fn credentials_of(i: usize) -> String {
    format!("dst-secret-{i}")
}

impl Gateway {
    /// A gateway for `sessions` strategy sessions on one account, instruments `rules`,
    /// connected and reconciled (link up).
    /// Each session's journal rolls a segment every `roll_bytes` of records; the tracker
    /// evicts ended orders by `retention`.
    pub fn new(
        sessions: usize,
        rules: Vec<InstrumentRules>,
        now_ns: u64,
        roll_bytes: usize,
        retention: Retention,
    ) -> Gateway {
        let journals = (0..sessions).map(|_| SimJournal::new(roll_bytes)).collect();
        let mut gw = Gateway::empty(journals, rules, now_ns, retention);
        for s in &mut gw.sessions {
            s.connected = true;
        }
        gw.link = Link {
            up: true,
            connected: true,
            down_since_ms: None,
        };
        gw
    }

    /// A gateway with no session established, no connection and the link down, over `journals`.
    fn empty(
        journals: Vec<SimJournal>,
        rules: Vec<InstrumentRules>,
        now_ns: u64,
        retention: Retention,
    ) -> Gateway {
        let grants: Vec<SessionGrant> = (0..journals.len())
            .map(|i| SessionGrant {
                session_id: session_id_of(i),
                credentials: credentials_of(i),
                ..SessionGrant::default()
            })
            .collect();
        let risk = Arc::new(RiskBook::new(&grants, 1, &RiskSettings::default()));
        let unseen_tail_ms = retention.unseen_tail_ms;
        let mut drive = TrackerDrive::new(
            Tracker::with_retention(1024, retention),
            Some(RiskFeed::with_capacity(Arc::clone(&risk), 1024)),
        );
        drive.set_deadlines(Deadlines::default());
        Gateway {
            sessions: grants
                .into_iter()
                .zip(journals)
                .map(|(grant, journal)| Session {
                    grant,
                    fixp: FixpSession::new(now_ns, SessionLimits::default()),
                    entry: None,
                    next_seq: journal.next_seq(),
                    wa: WriteAhead::new(journal.next_seq(), 0),
                    legacy: false,
                    journal,
                    last_write_ns: now_ns,
                    active: false,
                    connected: false,
                    bound: false,
                    strategy_terminated: false,
                    next_in_seq: 1,
                    epoch: 0,
                })
                .collect(),
            instruments: InstrumentTable::new(rules),
            risk,
            drive,
            link: Link::default(),
            next_req_id: 0,
            json: Vec::with_capacity(1024),
            placed: BTreeMap::new(),
            repeated_client_oids: Vec::new(),
            placed_while_failing: Vec::new(),
            legacy_journal_errors: false,
            closed: Vec::new(),
            unseen_tail_ms,
        }
    }

    /// The open orders of every session as the tracker holds them, by (SessionID, root): the
    /// status report of each (ExecType OrderStatus).
    pub fn open_orders(
        &mut self,
        utc_ns: u64,
        w: &mut impl Wire,
    ) -> BTreeMap<(u64, u64), codec::sbe::ExecutionReport> {
        let mut all = BTreeMap::new();
        let ids: Vec<u64> = self.sessions.iter().map(|s| s.grant.session_id).collect();
        for session_id in ids {
            let filter = gateway_core::tracker::OrderFilter {
                scope: gateway_core::tracker::OrderScope::Session(session_id),
                symbol: None,
                category: None,
                side: None,
            };
            let (drive, mut sink) = self.drive(0, w);
            drive.open_orders(&mut sink, &filter, None, utc_ns, |_, views| {
                all.extend(
                    views
                        .into_iter()
                        .map(|v| ((v.session_id, v.root), v.report)),
                );
            });
        }
        all
    }

    /// Sessions whose connection the gateway ended since the last call.
    pub fn take_closed(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.closed)
    }

    /// The tracker (for end-of-run checks).
    pub fn tracker(&self) -> &Tracker {
        self.drive.tracker()
    }

    /// The risk book.
    pub fn risk(&self) -> &RiskBook {
        &self.risk
    }

    /// Writes a session message (not numbered) to session `i`.
    fn write_session(&mut self, i: usize, reply: &SessionReply, now_ns: u64, w: &mut impl Wire) {
        let mut b = Vec::with_capacity(128);
        reply.encode_frame(&mut b);
        if let SessionReply::BusinessMessageReject(_) = reply {
            return self.write_app(i, b, Origin::OrderEntry, now_ns, w);
        }
        self.write_frame(i, b, now_ns, w);
    }

    /// Numbers, journals and writes an application frame to session `i`.
    fn write_app(
        &mut self,
        i: usize,
        frame: Vec<u8>,
        origin: Origin,
        now_ns: u64,
        w: &mut impl Wire,
    ) {
        write_app(&mut self.sessions, i, frame, origin, now_ns, w);
    }

    /// A frame from strategy session `i`, read at `now_ns`.
    pub fn on_strategy_frame(
        &mut self,
        i: usize,
        bytes: &[u8],
        now_ns: u64,
        utc_ns: u64,
        w: &mut impl Wire,
    ) {
        let payload = bytes.get(SOFH_LEN..).unwrap_or(&[]);
        let Some(s) = self.sessions.get_mut(i) else {
            return;
        };
        let action = match sbe::decode(payload) {
            Ok(msg) => {
                if matches!(msg, Message::Terminate(_)) {
                    s.strategy_terminated = true;
                }
                let mut auth = Auth {
                    grant: &s.grant,
                    active: s.active,
                    epoch: s.epoch,
                    start: None,
                    journal_failing: s.wa.durability().failing().is_some(),
                };
                let action = s
                    .fixp
                    .on_message(now_ns, msg, s.wa.committed_seq(), &mut auth);
                if let Some(epoch) = auth.start {
                    self.start_epoch(i, epoch, now_ns, utc_ns, w);
                }
                action
            }
            Err(e) => s
                .fixp
                .on_undecodable_payload(now_ns, payload, &e.to_string()),
        };
        let Some(s) = self.sessions.get_mut(i) else {
            return;
        };
        match action {
            SessionAction::None => {}
            SessionAction::Send(reply) => {
                match reply {
                    SessionReply::NegotiationResponse(_) => {
                        s.active = true;
                        s.fixp.set_next_in_seq(s.next_in_seq);
                    }
                    SessionReply::EstablishmentAck(ack) => {
                        s.bound = true;
                        let session_id = s.grant.session_id;
                        let ack = codec::sbe::EstablishmentAck {
                            next_seq_no: s.wa.committed_seq(),
                            ..ack
                        };
                        if s.entry.is_none() {
                            s.entry = Some(OrderEntry::new(session_id));
                        }
                        let account = s.grant.account;
                        self.write_session(i, &SessionReply::EstablishmentAck(ack), now_ns, w);
                        let (drive, mut sink) = self.drive(now_ns, w);
                        drive.on_session_opened(&mut sink, session_id, account);
                        // As `strategy_conn`: the journal's presence record after the tracker
                        // is told (the fold holds ended orders for a restart by it).
                        self.journal_presence(i, true, utc_ns, w);
                        return;
                    }
                    _ => {}
                }
                self.write_session(i, &reply, now_ns, w);
            }
            SessionAction::SendAndClose(reply) => {
                self.write_session(i, &reply, now_ns, w);
                self.closed.push(i);
            }
            SessionAction::Application(msg) => {
                self.on_application(i, msg, now_ns, utc_ns, w);
            }
            SessionAction::Retransmit(req) => self.retransmit(i, &req, now_ns, w),
        }
        if let Some(gap) = self.sessions[i].fixp.take_not_applied() {
            let mut b = Vec::with_capacity(64);
            gap.encode_frame(&mut b);
            self.write_frame(i, b, now_ns, w);
        }
    }

    /// Session `i`'s epoch ends and `epoch` starts, as `gateway::engine::epochs::start_epoch`
    /// does (the strategy asked, Negotiate with a higher SessionVerID; no connection holds
    /// the session): the journal's epoch record (a new segment starts with its checkpoint),
    /// numbering from 1, the order entry's ClOrdIDs of ended orders free, the inbound
    /// numbering from 1, then the tracker told (it reports each open order OrderStatus as the
    /// new epoch's first messages).
    fn start_epoch(&mut self, i: usize, epoch: u32, now_ns: u64, utc_ns: u64, w: &mut impl Wire) {
        let Some(s) = self.sessions.get_mut(i) else {
            return;
        };
        if !w.effect() {
            return;
        }
        s.journal.epoch(epoch, utc_ns / 1_000_000);
        let _ = s.wa.new_epoch();
        s.epoch = epoch;
        s.next_seq = 1;
        s.next_in_seq = 1;
        let session_id = s.grant.session_id;
        s.entry
            .get_or_insert_with(|| OrderEntry::new(session_id))
            .new_epoch(epoch);
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_epoch(&mut sink, session_id, epoch, &[], true, utc_ns);
    }

    /// Writes a session-flow frame (not numbered) to session `i`'s connection.
    fn write_frame(&mut self, i: usize, b: Vec<u8>, now_ns: u64, w: &mut impl Wire) {
        if let Some(s) = self.sessions.get_mut(i) {
            s.last_write_ns = now_ns;
            if s.connected && w.effect() {
                w.to_strategy(i, 0, b);
            }
        }
    }

    /// A RetransmitRequest, as `SessionOut::retransmit`: Retransmission, the original frames
    /// from the journal, then a Sequence with the live next number; RetransmitReject when the
    /// core's rule refuses it (`gateway_core::session::retransmit::requested_range`).
    fn retransmit(
        &mut self,
        i: usize,
        req: &codec::sbe::RetransmitRequest,
        now_ns: u64,
        w: &mut impl Wire,
    ) {
        use codec::sbe::{Retransmission, RetransmitReject, Text};
        let Some(s) = self.sessions.get(i) else {
            return;
        };
        let (session_id, next) = (s.grant.session_id, s.wa.committed_seq());
        let end = match gateway_core::session::retransmit::requested_range(req, session_id, next) {
            Ok((_, end)) => end,
            Err((code, reason)) => {
                let mut b = Vec::new();
                RetransmitReject {
                    session_id,
                    request_timestamp: req.timestamp,
                    code,
                    reason: Text::new(reason),
                }
                .encode_frame(&mut b);
                return self.write_frame(i, b, now_ns, w);
            }
        };
        let mut b = Vec::new();
        Retransmission {
            session_id,
            request_timestamp: req.timestamp,
            next_seq_no: req.from_seq_no,
            count: req.count,
            // The model answers the epoch in force only (a sender below schema version 2).
            session_ver_id: None,
        }
        .encode_frame(&mut b);
        self.write_frame(i, b, now_ns, w);
        for seq in req.from_seq_no..end {
            let frame = self.sessions[i].journal.frame(seq).map(<[u8]>::to_vec);
            if let Some(f) = frame {
                if self.sessions[i].bound && w.effect() {
                    w.to_strategy(i, seq, f);
                }
            }
        }
        let mut b = Vec::new();
        codec::sbe::Sequence { next_seq_no: next }.encode_frame(&mut b);
        self.write_frame(i, b, now_ns, w);
    }

    /// A new connection of strategy `i` (a fresh FIXP state machine, as each accepted
    /// connection gets).
    pub fn on_strategy_connect(&mut self, i: usize, now_ns: u64) {
        if let Some(s) = self.sessions.get_mut(i) {
            s.fixp = FixpSession::new(now_ns, SessionLimits::default());
            s.connected = true;
            s.bound = false;
            s.active = false;
            s.strategy_terminated = false;
        }
    }

    /// Strategy `i`'s connection ended, as `Conn::close`: the session keeps its numbering and
    /// order entry; the tracker is told; without a Terminate from the strategy its open orders
    /// are cancelled (cancel on disconnect, a mass cancel of scope Session).
    pub fn on_strategy_disconnect(
        &mut self,
        i: usize,
        now_ns: u64,
        utc_ns: u64,
        w: &mut impl Wire,
    ) {
        let Some(s) = self.sessions.get_mut(i) else {
            return;
        };
        if !s.connected {
            return;
        }
        let (was_bound, registered, terminated) = (s.bound, s.active, s.strategy_terminated);
        if was_bound {
            s.next_in_seq = s.fixp.next_in_seq();
        }
        s.connected = false;
        s.bound = false;
        s.active = false;
        let (session_id, cod) = (s.grant.session_id, s.grant.cancel_on_disconnect);
        if registered {
            let (drive, mut sink) = self.drive(now_ns, w);
            drive.on_session_closed(&mut sink, session_id);
            self.journal_presence(i, false, utc_ns, w);
        }
        if was_bound && !terminated && cod {
            self.mass_cancel(i, MassCancel::on_disconnect(), now_ns, utc_ns, w);
        }
    }

    /// The single-order path, as `strategy_conn::on_single_order`: decision, then the write
    /// and the tracker's `Sent`, or the answer.
    fn on_application(
        &mut self,
        i: usize,
        msg: Message<'_>,
        now_ns: u64,
        utc_ns: u64,
        w: &mut impl Wire,
    ) {
        if let Message::OrderMassCancelRequest(m) = &msg {
            let req = MassCancel::of_request(m);
            return self.mass_cancel(i, req, now_ns, utc_ns, w);
        }
        if !matches!(
            msg,
            Message::NewOrderSingle(_)
                | Message::OrderCancelRequest(_)
                | Message::OrderCancelReplaceRequest(_)
        ) {
            return;
        }
        self.next_req_id += 1;
        let req_id = self.next_req_id;
        let link = self.link;
        let Some(s) = self.sessions.get_mut(i) else {
            return;
        };
        let session_id = s.grant.session_id;
        let Session {
            entry,
            journal,
            wa,
            legacy,
            ..
        } = s;
        let Some(entry) = entry.as_mut() else {
            return;
        };
        self.json.clear();
        let gate = WithJournal {
            account: &Gate(&link),
            fault: wa.durability().failing().map(|f| f.fault),
        };
        let Some(Decided {
            outcome: _,
            verdict,
        }) = decide_single(
            entry,
            &msg,
            &self.instruments,
            &gate,
            &self.risk,
            session_id,
            req_id,
            &mut self.json,
            utc_ns,
        )
        else {
            return;
        };
        if entry.has_fresh() {
            // Journaled before the trade op is written.
            entry.take_fresh(|c, l| {
                if w.effect() {
                    for &(cl, root) in c {
                        record::put_cl_ord_id(wa.buf(), cl, root);
                    }
                    for &id in l {
                        record::put_list_id(wa.buf(), id);
                    }
                    if *legacy {
                        wa.take_all(|b| {
                            let _ = RecordSink::append(journal, b);
                        });
                    } else {
                        let _ = wa.write(journal, None, || now_ns);
                    }
                }
            });
        }
        // That append may have been the one to fail: then nothing new is sent.
        let fault = wa.durability().failing().map(|f| f.fault);
        let verdict = recheck_after_journal(verdict, &msg, fault, &self.risk, utc_ns);
        let (root, kind, reserved) = match verdict {
            Verdict::Send {
                root,
                kind,
                reserved,
                ..
            } => (root, kind, reserved),
            Verdict::Answer { report, .. } => {
                let mut b = Vec::with_capacity(256);
                frames::encode_report(&report, &mut b);
                return self.write_app(i, b, Origin::OrderEntry, now_ns, w);
            }
        };
        if !link.connected {
            // The write fails on a closed connection: the link is down from here on.
            if let Some(req) = Accepted::of_message(&msg, &kind) {
                let items = not_sent([(req, reserved)], NotSent::WriteFailed, &self.risk, utc_ns);
                for item in items {
                    let mut b = Vec::with_capacity(256);
                    frames::encode_report(&item.report, &mut b);
                    self.write_app(i, b, Origin::OrderEntry, now_ns, w);
                }
            }
            return;
        }
        if !w.effect() {
            return;
        }
        if matches!(kind, RequestKind::New(_)) {
            if wa.durability().failing().is_some()
                || journal.is_failing() && self.legacy_journal_errors
            {
                self.placed_while_failing.push((session_id, root));
            }
            entry.sent_new(root, Some(0));
            if let Some(oid) = client_oid_of(&self.json) {
                if self.placed.insert(oid.clone(), (i, root)).is_some() {
                    self.repeated_client_oids.push(oid);
                }
            }
        }
        w.to_venue(self.json.clone());
        let sent = SentRequest {
            req_id,
            session_id,
            root,
            kind,
            t_read_ns: now_ns,
            t_written_ns: now_ns,
        };
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_sent(&mut sink, sent);
    }

    /// An OrderMassCancelRequest, as `gateway::engine::ops::mass`: the decision's filter, the
    /// tracker's open orders it selects, the plan, then the tracker told of the mass cancel and
    /// of each `batch-cancel` op before it is written (or not sent: the link is down).
    fn mass_cancel(
        &mut self,
        i: usize,
        req: MassCancel,
        now_ns: u64,
        utc_ns: u64,
        w: &mut impl Wire,
    ) {
        let Some(s) = self.sessions.get(i) else {
            return;
        };
        let (session_id, account) = (s.grant.session_id, s.grant.account);
        let filter = match mass_cancel_filter(&req, session_id, account, &self.instruments, utc_ns)
        {
            Ok(f) => f,
            Err(report) => {
                let mut b = Vec::with_capacity(128);
                report.encode_frame(&mut b);
                return self.write_app(i, b, Origin::MassAction, now_ns, w);
            }
        };
        let mut views = Vec::new();
        {
            let (drive, mut sink) = self.drive(now_ns, w);
            drive.open_orders(&mut sink, &filter, None, utc_ns, |_, v| views = v);
        }
        let link = self.link;
        let chunks = match plan_mass_cancel(&req, &views, &Gate(&link), utc_ns) {
            MassDecision::Answer(report) => {
                let mut b = Vec::with_capacity(128);
                report.encode_frame(&mut b);
                return self.write_app(i, b, Origin::MassAction, now_ns, w);
            }
            MassDecision::Nothing => return,
            MassDecision::Send(chunks) => chunks,
        };
        self.next_req_id += 1;
        let mass_id = self.next_req_id;
        let start = MassCancelEvent::Start {
            mass_id,
            session_id,
            cl_ord_id: req.cl_ord_id,
            request_type: req.request_type,
            chunks: u32::try_from(chunks.len()).unwrap_or(u32::MAX),
        };
        {
            let (drive, mut sink) = self.drive(now_ns, w);
            drive.on_mass_cancel(&mut sink, start, utc_ns);
        }
        for chunk in &chunks {
            self.next_req_id += 1;
            let req_id = self.next_req_id;
            let mut json = Vec::with_capacity(1024);
            chunk.write_json(&mut json, req_id);
            let connected = self.link.connected;
            let (drive, mut sink) = self.drive(now_ns, w);
            drive.on_mass_cancel(
                &mut sink,
                MassCancelEvent::Chunk { mass_id, req_id },
                utc_ns,
            );
            if connected {
                if sink.w.effect() {
                    sink.w.to_venue(json);
                }
            } else {
                let text = codec::sbe::Text::new(NotSent::WriteFailed.text());
                drive.on_mass_cancel(&mut sink, MassCancelEvent::NotSent { req_id, text }, utc_ns);
            }
        }
    }

    /// The tracker's drive and its sink over the sessions' flows and the wire, at `now_ns`.
    fn drive<'a, W: Wire>(
        &'a mut self,
        now_ns: u64,
        w: &'a mut W,
    ) -> (&'a mut TrackerDrive, Sink<'a, W>) {
        (
            &mut self.drive,
            Sink {
                sessions: &mut self.sessions,
                w,
                now_ns,
            },
        )
    }

    /// A frame from the exchange WebSocket, read at `now_ns`.
    pub fn on_exchange_frame(&mut self, text: &[u8], now_ns: u64, utc_ns: u64, w: &mut impl Wire) {
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_frame(&mut sink, 0, text, now_ns, utc_ns);
    }

    /// The tracker's tick (the shell's idle work every millisecond).
    pub fn tick(&mut self, now_ns: u64, utc_ns: u64, w: &mut impl Wire) {
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_tick(&mut sink, now_ns, utc_ns);
        self.journal_turn(now_ns, w);
    }

    /// Session timers (keepalive, handshake deadline), as the io thread's 20 ms timer.
    pub fn session_timers(&mut self, now_ns: u64, w: &mut impl Wire) {
        for i in 0..self.sessions.len() {
            let s = &mut self.sessions[i];
            if !s.connected {
                continue;
            }
            let action = s
                .fixp
                .on_timer(now_ns, s.last_write_ns, s.wa.committed_seq());
            match action {
                SessionAction::Send(reply) => self.write_session(i, &reply, now_ns, w),
                SessionAction::SendAndClose(reply) => {
                    self.write_session(i, &reply, now_ns, w);
                    self.closed.push(i);
                }
                _ => {}
            }
        }
    }

    /// The link dropped (noticed at `now_ns`): requests are answered NotApplied until it is
    /// back and reconciled; what was in flight is unknown.
    pub fn on_link_down(&mut self, now_ns: u64, utc_ms: u64, w: &mut impl Wire) {
        self.link.up = false;
        self.link.connected = false;
        self.link.down_since_ms.get_or_insert(utc_ms);
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_link_down(&mut sink, 0, now_ns);
    }

    /// A new connection is open (not yet reconciled).
    pub fn on_link_connected(&mut self) {
        self.link.connected = true;
    }

    /// An exchange state (reconciliation's lists or a resolution's answer) applied.
    pub fn on_exchange_state(
        &mut self,
        state: &ExchangeState,
        now_ns: u64,
        utc_ns: u64,
        w: &mut impl Wire,
    ) {
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_exchange_state(&mut sink, now_ns, utc_ns, state, |_, _| {});
    }

    /// Reconciled after a reconnect: the link is up.
    pub fn on_link_up(&mut self, now_ns: u64, w: &mut impl Wire) {
        self.link.up = true;
        self.link.down_since_ms = None;
        let (drive, mut sink) = self.drive(now_ns, w);
        drive.on_link_up(&mut sink, 0, now_ns);
    }
}

/// What the tracker produces, handed to the sessions' flows and the wire (the shell's
/// `gateway::tracker::sink` over `SessionOut`s).
struct Sink<'a, W> {
    sessions: &'a mut Vec<Session>,
    w: &'a mut W,
    now_ns: u64,
}

impl<W> Sink<'_, W> {
    fn index_of(&self, session_id: u64) -> Option<usize> {
        self.sessions
            .iter()
            .position(|s| s.grant.session_id == session_id)
    }
}

impl<W: Wire> TrackerSink for Sink<'_, W> {
    fn write_report(&mut self, report: &Report) -> Option<u32> {
        let i = self.index_of(report.session_id)?;
        let mut b = Vec::with_capacity(256);
        frames::encode_report(&report.msg, &mut b);
        write_app(self.sessions, i, b, report.origin, self.now_ns, self.w);
        Some(0)
    }

    fn write_list_status(&mut self, _list: &ListReport, _utc_ns: u64) {}

    fn account_update(&mut self, _account: usize, _update: &AccountUpdate) {}

    fn resolve(&mut self, request: ResolveRequest) {
        self.w.resolve(request);
    }

    fn evicted(&mut self, e: Evicted) {
        let Some(i) = self.index_of(e.session_id) else {
            return;
        };
        if let Some(entry) = self.sessions[i].entry.as_mut() {
            if e.ended_before_epoch {
                entry.release_ended_before_epoch(e.root);
            } else {
                entry.release(e.root);
            }
        }
    }
}

/// The `clientOid` of a place op's JSON (`"clientOid":"…"`).
fn client_oid_of(json: &[u8]) -> Option<String> {
    let key = b"\"clientOid\":\"";
    let at = json.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = json.get(at..)?;
    let end = rest.iter().position(|b| *b == b'"')?;
    String::from_utf8(rest.get(..end)?.to_vec()).ok()
}
