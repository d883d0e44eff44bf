//! One strategy connection on the io thread: SOFH framing, the FIXP session, and the order path
//! from a decoded frame to the WebSocket write, with no hand-off to another thread before the
//! write (the tracker learns of the request right after it).

use std::io::{ErrorKind, Read};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use codec::frame::{peek_frame, SOFH_LEN};
use codec::sbe::{
    self, BusinessMessageReject, BusinessRejectReason, EstablishmentAck, Message,
    NegotiationRejectCode, TerminationCode, Text,
};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::net::TcpStream;

use super::account::{AccountCtx, BudgetPolicy};
use super::conn::Conn;
use super::conn_end::{end_gracefully, log_cut_off};
use super::ctx::IoCtx;
use super::open_conns::ConnSlot;
use super::ops;
use super::settings::SessionRole;
use crate::metrics::{now_ns, utc_now_ns, Leg};
use crate::session::fixp::{
    version_asked, Authorizer, FixpSession, SessionAction, SessionReply, SessionState, VersionAsked,
};
use crate::session::order_entry::{EntryOutcome, OrderEntry};
use crate::session::out::{Flow, SessionOut, SharedSocket, DRAIN_GRACE_MS};
use crate::tracker::{ReportMsg, RequestKind, SentRequest, TrackerInput};
use gateway_core::decision::single::{decide_single, recheck_after_journal, Decided, Verdict};
use gateway_core::decision::WithJournal;
use gateway_core::decision::{not_sent, Accepted, Refusal};
use gateway_core::journal::record::Origin;
use gateway_core::session::epoch_end::EpochEnd;
use gateway_core::session::retransmit::PreviousEpoch;
use gateway_core::session::rollover::Presence;

/// How often session timers (keepalive, handshake deadline, backlog flush) are checked.
const TIMER_PERIOD: Duration = Duration::from_millis(20);

/// Read buffer of a new connection, in bytes (at least the largest frame): a connection that
/// never authenticates holds no more than this.
const INITIAL_READ_BUF: usize = 4 * 1024;

/// Read buffer of an established session, in bytes (at least four largest frames): set once,
/// when Establish completes, so that the order path never grows it. Established sessions are
/// at most the configured `[[session]]` grants.
const MAX_READ_BUF: usize = 64 * 1024;

/// Frames one connection handles before it lets the io thread serve the others (its sockets,
/// the other sessions, the exchange link): a session that floods adds at most this many frames'
/// work (a throttled NewOrderSingle costs ~4-7 µs, its answer's write shared by the turn) to
/// another session's wait. Measured with `hostile --only fairness` (100 000-order flood): 8
/// gives the calm session +13 µs p50 at 5.8-7 µs of io thread per flood order, 32 gave +44-49
/// µs at 4.1 µs.
pub(super) const FRAMES_PER_TURN: usize = 8;

struct Auth<'a> {
    ctx: &'a IoCtx,
}

impl Authorizer for Auth<'_> {
    fn authorize(
        &mut self,
        session_id: u64,
        credentials: &str,
        session_ver_id: u64,
    ) -> Result<u32, NegotiationRejectCode> {
        match self.ctx.grants.get(&session_id) {
            Some(grant)
                if constant_time_eq(grant.credentials.as_bytes(), credentials.as_bytes()) => {}
            _ => return Err(NegotiationRejectCode::Credentials),
        }
        if self.ctx.active.borrow().contains(&session_id) {
            return Err(NegotiationRejectCode::DuplicateId);
        }
        // An epoch the operator's schedule ended while the session was away ends now.
        super::epochs::roll_if_due(self.ctx, session_id);
        let current = super::epochs::epoch_of(self.ctx, session_id);
        let epoch = match version_asked(current, session_ver_id) {
            VersionAsked::Resume(e) => e,
            VersionAsked::Start(e) => {
                super::epochs::start_epoch(self.ctx, session_id, e, "asked by the strategy")?;
                e
            }
            VersionAsked::Refuse(_) => return Err(NegotiationRejectCode::StaleSessionVersion),
        };
        self.ctx.active.borrow_mut().insert(session_id);
        Ok(epoch)
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

enum Event {
    Readable(std::io::Result<ReadOutcome>),
    Tick,
    /// Admission closed this connection (the oldest unauthenticated one) to make room.
    Evicted,
}

/// Serves one accepted strategy connection until it ends; `slot` counts it as open (and
/// unauthenticated until Establish completes). The connection holds one descriptor, shared by
/// its reader here and its writer ([`SessionOut`]), and a read buffer of [`INITIAL_READ_BUF`]
/// bytes, [`MAX_READ_BUF`] once it is an established session.
pub(super) async fn run(ctx: Rc<IoCtx>, stream: TcpStream, mut slot: ConnSlot) {
    let _ = stream.set_nodelay(true);
    let peer = stream.peer_addr().ok();
    let socket: SharedSocket = match stream.into_std() {
        Ok(s) => Arc::new(s),
        Err(e) => {
            tracing::warn!(error = %e, "strategy connection setup failed");
            return;
        }
    };
    // `with_interest` is deprecated for types whose descriptor may close while registered
    // (tokio#8587); this AsyncFd owns an `Arc` of the socket, so the descriptor outlives the
    // registration.
    #[allow(deprecated)]
    let registered = AsyncFd::with_interest(Arc::clone(&socket), Interest::READABLE);
    let reader = match registered {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "strategy connection setup failed");
            return;
        }
    };
    let now = now_ns();
    let max_backlog = ctx.max_backlog;
    let mut conn = Conn {
        out: Arc::new(SessionOut::new(Arc::clone(&socket), now).with_max_backlog(max_backlog)),
        fixp: FixpSession::new(now, ctx.limits),
        entry: None,
        account: 0,
        role: SessionRole::Trading,
        budget: BudgetPolicy::Reject,
        registered: false,
        raw: Some(socket),
        bound: false,
        established_ms: 0,
        strategy_terminated: false,
        epoch_ended: false,
        logged_reject: false,
        json: Vec::with_capacity(1024),
        ctx,
    };
    conn.ctx.outs.borrow_mut().push(Arc::clone(&conn.out));
    let max = conn.ctx.max_frame_len;
    let largest = (max * 4).max(MAX_READ_BUF);
    let mut buf = vec![0u8; max.max(INITIAL_READ_BUF)];
    let (mut start, mut end) = (0usize, 0usize);
    let mut timer = tokio::time::interval(TIMER_PERIOD);
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    'conn: loop {
        let event = tokio::select! {
            r = reader.readable() => Event::Readable(r.map(|mut guard| {
                if end == buf.len() {
                    // Only a partial frame (≤ max) can be pending here: move it to the front.
                    buf.copy_within(start..end, 0);
                    end -= start;
                    start = 0;
                }
                match guard.try_io(|s| (&**s.get_ref()).read(&mut buf[end..])) {
                    Ok(Ok(0)) => ReadOutcome::Closed,
                    Ok(Ok(n)) => ReadOutcome::Got(n),
                    Ok(Err(e)) if e.kind() == ErrorKind::Interrupted => ReadOutcome::Again,
                    Ok(Err(_)) => ReadOutcome::Closed,
                    Err(_would_block) => ReadOutcome::Again,
                }
            })),
            _ = timer.tick() => Event::Tick,
            _ = slot.evicted() => Event::Evicted,
        };
        match event {
            Event::Evicted => {
                tracing::debug!(
                    ?peer,
                    "unauthenticated strategy connection evicted to make room"
                );
                break;
            }
            Event::Tick => {
                if !conn.on_timer() {
                    break;
                }
            }
            Event::Readable(Err(_)) | Event::Readable(Ok(ReadOutcome::Closed)) => break,
            Event::Readable(Ok(ReadOutcome::Again)) => continue,
            Event::Readable(Ok(ReadOutcome::Got(n))) => {
                end += n;
                let t_read = now_ns();
                let mut handled = 0usize;
                let mut corked = false;
                loop {
                    match peek_frame(&buf[start..end], max) {
                        Ok(Some(len)) => {
                            let frame_end = start + len;
                            let keep = conn
                                .on_frame(&buf[start + SOFH_LEN..frame_end], t_read)
                                .await;
                            start = frame_end;
                            if !keep {
                                break 'conn;
                            }
                            if conn.bound && slot.is_unauthenticated() {
                                slot.established();
                            }
                            handled += 1;
                            if !corked && conn.bound && start < end {
                                // More frames of this read wait (a pipelining strategy): their
                                // answers leave in one write, at the end of the turn. The
                                // first frame's answer went out alone, at once.
                                corked = true;
                                conn.out.cork();
                            }
                            if handled == FRAMES_PER_TURN && start < end {
                                // Fairness: the other connections and the exchange link get
                                // the thread before this one's next frames.
                                handled = 0;
                                if corked {
                                    corked = false;
                                    conn.out.uncork();
                                }
                                tokio::task::yield_now().await;
                                if conn.out.is_closed() {
                                    break 'conn;
                                }
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let action = conn.fixp.on_framing_error(&e.to_string());
                            conn.apply(action, t_read).await;
                            break 'conn;
                        }
                    }
                }
                if corked {
                    conn.out.uncork();
                }
                if start == end {
                    start = 0;
                    end = 0;
                }
                if conn.bound && buf.len() < largest {
                    // Established: the session's buffer, allocated once, off the order path.
                    buf.resize(largest, 0);
                }
            }
        }
        if conn.out.is_closed() {
            break;
        }
    }
    drop(buf);
    // What a turn queued (a last reply, a Terminate) is written before the connection ends.
    conn.out.uncork();
    let out = Arc::clone(&conn.out);
    let epoch_ended = conn.epoch_ended;
    // Cut off for its backlog (whether or not its Terminate is written yet).
    let cut_off = !epoch_ended && out.is_ending();
    conn.close(peer);
    if epoch_ended {
        end_gracefully(&out, &reader, EpochEnd::new(now_ns())).await;
    } else if cut_off {
        let end = EpochEnd::with_grace(now_ns(), DRAIN_GRACE_MS);
        log_cut_off(&out, end_gracefully(&out, &reader, end).await);
    }
}

/// What one read of a strategy socket gave.
enum ReadOutcome {
    /// This many bytes were read.
    Got(usize),
    /// Nothing to read after all (spurious readiness) or interrupted.
    Again,
    /// End of stream or a socket error.
    Closed,
}

impl Conn {
    async fn on_frame(&mut self, payload: &[u8], t_read: u64) -> bool {
        let action = match sbe::decode(payload) {
            Ok(msg) => {
                if matches!(msg, Message::Terminate(_)) {
                    self.strategy_terminated = true;
                }
                let next_seq = self.session_next_seq();
                let ctx = Rc::clone(&self.ctx);
                let mut auth = Auth { ctx: &ctx };
                let action = self.fixp.on_message(now_ns(), msg, next_seq, &mut auth);
                let keep = self.apply(action, t_read).await;
                if let Some(gap) = self.fixp.take_not_applied() {
                    tracing::info!(
                        session = self.fixp.session_id(),
                        from = gap.from_seq_no,
                        count = gap.count,
                        "strategy skipped sequence numbers: NotApplied"
                    );
                    self.out
                        .send(Flow::Session, now_ns(), |b| gap.encode_frame(b));
                }
                return keep;
            }
            Err(e) => self
                .fixp
                .on_undecodable_payload(now_ns(), payload, &e.to_string()),
        };
        self.apply(action, t_read).await
    }

    async fn apply(&mut self, action: SessionAction<'_>, t_read: u64) -> bool {
        match action {
            SessionAction::None => true,
            SessionAction::Send(reply) => {
                match reply {
                    SessionReply::NegotiationResponse(_) => {
                        self.registered = true;
                        if let Some(g) = self.ctx.grants.get(&self.fixp.session_id()) {
                            self.account = g.account;
                            self.role = g.role;
                            self.budget = g.budget;
                        }
                        if let Some(slot) = self.ctx.sessions.borrow().get(&self.fixp.session_id())
                        {
                            self.fixp.set_next_in_seq(slot.next_in_seq);
                        }
                    }
                    SessionReply::EstablishmentAck(ack) => return self.on_established(&ack),
                    _ => {}
                }
                self.write_session(&reply)
            }
            SessionAction::SendAndClose(reply) => {
                self.log_end(&reply);
                self.write_session(&reply);
                false
            }
            SessionAction::Application(msg) => {
                self.on_application(msg, t_read).await;
                true
            }
            SessionAction::Retransmit(req) => {
                let outcome = self.out.retransmit(&req, now_ns());
                tracing::info!(
                    session = self.fixp.session_id(),
                    from = req.from_seq_no,
                    count = req.count,
                    ?outcome,
                    "RetransmitRequest answered"
                );
                !self.out.is_closed()
            }
        }
    }

    /// The sequence number the session's next application message will carry.
    fn session_next_seq(&self) -> u64 {
        if self.registered && !self.bound {
            if let Some(slot) = self.ctx.sessions.borrow().get(&self.fixp.session_id()) {
                return slot.out.next_seq();
            }
        }
        self.out.next_seq()
    }

    /// Binds the connection to its session: takes the session's order-entry state, attaches
    /// the socket to the session's writer with the EstablishmentAck as its first frame.
    fn on_established(&mut self, ack: &EstablishmentAck) -> bool {
        let session_id = self.fixp.session_id();
        let (out, entry) = {
            let mut sessions = self.ctx.sessions.borrow_mut();
            match sessions.get_mut(&session_id) {
                Some(slot) => (Arc::clone(&slot.out), slot.entry.take()),
                None => return false,
            }
        };
        let entry = entry.unwrap_or_else(|| OrderEntry::new(session_id));
        if let Some(rec) = &self.ctx.record {
            // Replay starts from the state this connection starts with: fresh, carried over
            // from the previous connection, or rebuilt from the journal after a restart.
            if entry.cl_ord_ids().used_len() == 0 && entry.list_ids().is_empty() {
                rec.entry_reset(session_id);
            } else {
                rec.entry_state(session_id, &entry);
            }
        }
        self.entry = Some(entry);
        let Some(raw) = self.raw.take() else {
            return false;
        };
        let temp = std::mem::replace(&mut self.out, Arc::clone(&out));
        self.bound = true;
        self.established_ms = utc_now_ns() / 1_000_000;
        {
            let mut outs = self.ctx.outs.borrow_mut();
            outs.retain(|o| !Arc::ptr_eq(o, &temp));
            outs.push(Arc::clone(&out));
        }
        let mut announced = ack.next_seq_no;
        let attached = out.attach(raw, now_ns(), |next, buf| {
            // The numbers are taken under the writer's lock: exact even if the tracker
            // numbered a report since the state machine built the ack, and the previous
            // epoch is the one before the epoch those numbers are of.
            announced = next;
            let ack = EstablishmentAck {
                next_seq_no: next,
                ..*ack
            };
            PreviousEpoch::in_ack(out.previous_epoch(), ack).encode_frame(buf)
        });
        if !attached {
            return false;
        }
        let _ = self.ctx.tracker_tx.send(TrackerInput::SessionOpened {
            session_id,
            account: self.account,
            role: self.role,
            out: Arc::clone(&self.out),
        });
        // After the tracker is told: the journal's fold holds the ended orders a restart must
        // still report by the presence records (`gateway_core::journal::fold`).
        self.out
            .journal_presence(true, self.established_ms, self.ctx.unseen_tail_ms);
        tracing::info!(
            session = session_id,
            keepalive_ms = self.fixp.keepalive_ms(),
            next_seq = announced,
            "strategy session established"
        );
        true
    }

    /// Journals the ClOrdIDs and ListIDs the last request used (before its op is written: a
    /// restart then knows every ClOrdID that may have reached the exchange).
    pub(in crate::engine) fn journal_fresh(&mut self) {
        if let Some(entry) = self.entry.as_mut() {
            if entry.has_fresh() {
                let out = &self.out;
                entry.take_fresh(|c, l| out.journal_ids(c, l));
            }
        }
    }

    /// Logs why a session ends (once: the connection closes right after). A connection that
    /// never named a session logs at DEBUG only: a flood of them must not flood the log (the
    /// admission counters and their once-a-second line cover them).
    fn log_end(&self, reply: &SessionReply) {
        let session_id = self.fixp.session_id();
        if !self.registered && !matches!(reply, SessionReply::NegotiationReject(_)) {
            tracing::debug!(
                session = session_id,
                ?reply,
                "unauthenticated strategy connection ended"
            );
            return;
        }
        match reply {
            SessionReply::Terminate(t) if t.code == TerminationCode::Finished => {
                tracing::info!(
                    session = session_id,
                    reason = t.reason.as_str(),
                    "strategy session finished"
                )
            }
            SessionReply::Terminate(t) => {
                tracing::warn!(session = session_id, code = ?t.code, reason = t.reason.as_str(), "ending strategy session")
            }
            SessionReply::NegotiationReject(r) => {
                tracing::warn!(session = session_id, code = ?r.code, reason = r.reason.as_str(), "Negotiate refused")
            }
            SessionReply::EstablishmentReject(r) => {
                tracing::warn!(session = session_id, code = ?r.code, reason = r.reason.as_str(), "Establish refused")
            }
            _ => {}
        }
    }

    fn write_session(&mut self, reply: &SessionReply) -> bool {
        let flow = match reply {
            SessionReply::BusinessMessageReject(r) => {
                self.ctx
                    .metrics
                    .reports
                    .on_business_reject(r.business_reject_reason);
                if !self.logged_reject {
                    self.logged_reject = true;
                    tracing::warn!(
                        session = self.fixp.session_id(),
                        cl_ord_id = r.business_reject_ref_id,
                        template = r.ref_msg_type,
                        reason = r.text.as_str(),
                        "strategy message refused (further refusals on this session are not logged)"
                    );
                }
                Flow::Application(Origin::OrderEntry)
            }
            _ => Flow::Session,
        };
        self.out.send(flow, now_ns(), |buf| reply.encode_frame(buf))
    }

    /// Writes an ExecutionReport or OrderCancelReject to this session.
    pub(in crate::engine) fn write_report(&self, msg: &ReportMsg) -> bool {
        self.ctx.metrics.count_report(msg);
        self.out.send(
            Flow::Application(Origin::OrderEntry),
            now_ns(),
            |buf| match msg {
                ReportMsg::Exec(er) => er.encode_frame(buf),
                ReportMsg::CancelReject(r) => r.encode_frame(buf),
                ReportMsg::MassCancel(r) => r.encode_frame(buf),
            },
        )
    }

    /// Refuses an application message with BusinessMessageReject.
    pub(in crate::engine) fn business_reject(
        &mut self,
        msg: &Message<'_>,
        ref_id: u64,
        reason: BusinessRejectReason,
        text: &str,
    ) -> bool {
        let reply = SessionReply::BusinessMessageReject(BusinessMessageReject {
            ref_seq_num: self.fixp.last_in_seq(),
            business_reject_ref_id: ref_id,
            exchange_code: 0,
            ref_msg_type: msg.template_id(),
            business_reject_reason: reason,
            text: Text::new(text),
        });
        self.write_session(&reply)
    }

    /// The account the session is bound to.
    #[allow(dead_code)] // used by the request handlers
    pub(in crate::engine) fn account_ctx(&self) -> Option<&AccountCtx> {
        self.ctx.accounts.get(self.account)
    }

    /// Routes an application message: single orders stay on the inline order path; the other
    /// requests go to their handler in [`super::ops`]. Role checks come first.
    async fn on_application(&mut self, msg: Message<'_>, t_read: u64) {
        let Some(entry) = self.entry.as_mut() else {
            return;
        };
        // Orders the tracker evicted since the last message leave the live ClOrdIDs (one
        // atomic load when there are none).
        let session_id = self.fixp.session_id();
        super::evicted::release_evicted(&self.out, entry, self.ctx.record.as_ref(), session_id);
        if let Some(text) = ops::refused_for_role(self.role, &msg) {
            self.business_reject(&msg, 0, BusinessRejectReason::NotAuthorized, text);
            return;
        }
        match msg {
            Message::NewOrderSingle(_)
            | Message::OrderCancelRequest(_)
            | Message::OrderCancelReplaceRequest(_) => self.on_single_order(msg, t_read).await,
            Message::NewOrderList(m) => ops::batch::on_new_order_list(self, &m, t_read).await,
            Message::OrderCancelReplaceList(m) => {
                ops::batch::on_order_cancel_replace_list(self, &m, t_read).await
            }
            Message::OrderCancelList(m) => ops::batch::on_order_cancel_list(self, &m, t_read).await,
            Message::OrderMassCancelRequest(m) => ops::mass::on_mass_cancel(self, &m, t_read).await,
            Message::OrderMassStatusRequest(m) => ops::mass::on_mass_status(self, &m, t_read).await,
            Message::MovePositions(m) => ops::moves::on_move_positions(self, &m).await,
            Message::SetLeverage(m) => ops::account_requests::on_set_leverage(self, &m).await,
            Message::SetHoldMode(m) => ops::account_requests::on_set_hold_mode(self, &m).await,
            Message::MaxOpenAvailableRequest(m) => {
                ops::account_requests::on_max_open_available(self, &m).await
            }
            Message::AccountSettingsRequest(m) => {
                ops::account_requests::on_account_settings(self, &m).await
            }
            Message::KillSwitchRequest(m) => ops::control::on_kill_switch(self, &m).await,
            Message::RateBudgetRequest(m) => ops::control::on_rate_budget(self, &m).await,
            other => {
                self.business_reject(
                    &other,
                    0,
                    BusinessRejectReason::UnsupportedMessageType,
                    "message not accepted from a strategy",
                );
            }
        }
        self.journal_fresh();
    }

    /// The single-order path: order entry (identity, instrument rules, JSON), then the account
    /// and risk (`gateway_core::decision`), journal, WebSocket write, then the tracker.
    async fn on_single_order(&mut self, msg: Message<'_>, t_read: u64) {
        let Some(entry) = self.entry.as_mut() else {
            return;
        };
        let utc = utc_now_ns();
        let Some(account) = self.ctx.accounts.get(self.account) else {
            return;
        };
        let session_id = self.fixp.session_id();
        let req_id = self.ctx.next_request_id();
        self.json.clear();
        let gate = WithJournal {
            account,
            fault: self.out.journal_fault(),
        };
        let Some(Decided { outcome, verdict }) = decide_single(
            entry,
            &msg,
            &self.ctx.instruments,
            &gate,
            &self.ctx.risk,
            session_id,
            req_id,
            &mut self.json,
            utc,
        ) else {
            return;
        };
        if entry.has_fresh() {
            // Journaled before the trade op is written (under the writer's uncontended lock;
            // with a journal file, written ahead into it: `SessionOut::journal_ids`).
            let out = &self.out;
            entry.take_fresh(|c, l| out.journal_ids(c, l));
        }
        // That append may have been the one to fail: then nothing new is sent.
        let fault = self.out.journal_fault();
        let verdict = recheck_after_journal(verdict, &msg, fault, &self.ctx.risk, utc);
        let (op, root, kind, reserved) = match verdict {
            Verdict::Send {
                op,
                root,
                kind,
                reserved,
            } => (op, root, kind, reserved),
            Verdict::Answer { report, refusal } => {
                self.record_entry(session_id, req_id, utc, &msg, &outcome, refusal.as_ref());
                self.write_report(&report);
                return;
            }
        };
        // A modify or cancel goes where its order's place went (one lookup in the table
        // order entry just read); a new order spreads.
        let order_conn = if op.is_new() {
            None
        } else {
            entry.conn_of(root)
        };
        let sent = account
            .send_trade(
                op,
                order_conn,
                self.budget,
                &self.json,
                session_id,
                &self.out,
            )
            .await;
        match sent {
            Err(why) => {
                let refusal = Refusal::not_sent(why);
                self.record_entry(session_id, req_id, utc, &msg, &outcome, Some(&refusal));
                if let Some(req) = Accepted::of_message(&msg, &kind) {
                    for item in not_sent([(req, reserved)], why, &self.ctx.risk, utc) {
                        self.write_report(&item.report);
                    }
                }
            }
            Ok(on) => {
                let t_written = now_ns();
                if matches!(kind, RequestKind::New(_)) {
                    entry.sent_new(root, Some(on));
                }
                self.ctx
                    .legs
                    .borrow_mut()
                    .record(Leg::StrategyToExchange, t_written.saturating_sub(t_read));
                let _ = self.ctx.tracker_tx.send(TrackerInput::Sent(SentRequest {
                    req_id,
                    session_id,
                    root,
                    kind,
                    t_read_ns: t_read,
                    t_written_ns: t_written,
                }));
                // Off the order path: after the write and the tracker's Sent.
                self.record_entry(session_id, req_id, utc, &msg, &outcome, None);
            }
        }
    }

    /// Records (when recording) a single-order message, order entry's outcome and the refusal
    /// after it, once the decision and the send are done.
    fn record_entry(
        &self,
        session_id: u64,
        req_id: u64,
        utc: u64,
        msg: &Message<'_>,
        outcome: &EntryOutcome,
        refusal: Option<&Refusal>,
    ) {
        if let Some(rec) = &self.ctx.record {
            rec.order_entry(session_id, req_id, utc, msg, outcome, &self.json, refusal);
        }
    }

    fn on_timer(&mut self) -> bool {
        let session_id = self.fixp.session_id();
        let presence = Presence::Connected {
            since_ms: self.established_ms,
        };
        if self.bound && super::epochs::ends_now(&self.ctx, session_id, presence) {
            // The operator's schedule ended the epoch: Terminate (SessionRollover) after every
            // message numbered so far, and the writer's epoch ends behind it (what is reported
            // while the connection closes is the new epoch's); the orders carry into the new
            // epoch (no cancel on disconnect); the rest of the rollover happens once this
            // connection has ended, and the strategy negotiates again.
            const REASON: &str = "session rollover: negotiate the new epoch";
            let next = super::epochs::epoch_of(&self.ctx, session_id)
                .wrapping_add(1)
                .max(1);
            let now_ms = utc_now_ns() / 1_000_000;
            // The orders evicted so far ended in the old epoch: released in it.
            if let Some(entry) = self.entry.as_mut() {
                super::evicted::release_evicted(
                    &self.out,
                    entry,
                    self.ctx.record.as_ref(),
                    session_id,
                );
            }
            match self.out.terminate_for_rollover(next, now_ms, REASON) {
                Ok(()) => {
                    super::epochs::note_writer_rolled(&self.ctx, session_id, next);
                    self.strategy_terminated = true;
                    self.epoch_ended = true;
                    self.log_end(&SessionReply::Terminate(codec::sbe::Terminate {
                        session_id,
                        code: codec::sbe::TerminationCode::SessionRollover,
                        reason: Text::new(REASON),
                    }));
                    return false;
                }
                Err(e) => {
                    // A failing journal is logged once by its writer (the rollover waits).
                    if self.out.journal_fault().is_none() {
                        tracing::error!(session = session_id, error = %e, "session rollover failed: journal not writable; the epoch goes on");
                    }
                }
            }
        }
        self.out.flush();
        let action = self
            .fixp
            .on_timer(now_ns(), self.out.last_write_ns(), self.out.next_seq());
        match action {
            SessionAction::None => true,
            SessionAction::Send(reply) => self.write_session(&reply),
            SessionAction::SendAndClose(reply) => {
                self.log_end(&reply);
                self.write_session(&reply);
                false
            }
            SessionAction::Application(_) | SessionAction::Retransmit(_) => true,
        }
    }

    fn close(mut self, peer: Option<std::net::SocketAddr>) {
        let session_id = self.fixp.session_id();
        if self.bound {
            // The session outlives the connection: its ClOrdIDs and inbound numbering stay.
            if let Some(slot) = self.ctx.sessions.borrow_mut().get_mut(&session_id) {
                slot.next_in_seq = self.fixp.next_in_seq();
                slot.entry = self.entry.take();
                slot.away_since_ms = utc_now_ns() / 1_000_000;
            }
        }
        let had_entry = self.bound;
        if self.registered {
            self.ctx.active.borrow_mut().remove(&session_id);
            let _ = self
                .ctx
                .tracker_tx
                .send(TrackerInput::SessionClosed { session_id });
            if let Some(slot) = self.ctx.sessions.borrow().get(&session_id) {
                slot.out
                    .journal_presence(false, utc_now_ns() / 1_000_000, self.ctx.unseen_tail_ms);
            }
        }
        if self.fixp.state() != SessionState::Terminated && self.registered {
            tracing::info!(
                session = session_id,
                ?peer,
                "strategy connection closed without Terminate"
            );
        }
        let cancel = had_entry
            && !self.strategy_terminated
            && self.role != SessionRole::DropCopy
            && self
                .ctx
                .grants
                .get(&session_id)
                .is_some_and(|g| g.cancel_on_disconnect);
        if cancel {
            tracing::info!(
                session = session_id,
                "cancel on disconnect: cancelling the session's open orders"
            );
            ops::mass::cancel_session_orders(
                Rc::clone(&self.ctx),
                Arc::clone(&self.out),
                self.account,
                session_id,
            );
        }
        // A connection the gateway ends (rollover, cut-off) keeps its socket for the graceful
        // end.
        if !self.out.is_ending() && !self.epoch_ended {
            self.out.close();
        }
        self.ctx
            .outs
            .borrow_mut()
            .retain(|o| !Arc::ptr_eq(o, &self.out));
    }
}
