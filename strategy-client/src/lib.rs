//! A small blocking strategy-side client of the binary bridge: the reference for strategy
//! authors, and what the demo strategy and the end-to-end tests use.
//!
//! `StrategyClient::connect` performs Negotiate → Establish (`connect_with` also chooses the
//! epoch asked for, [`Handshake::session_ver_id`]); the `send_*` methods write one SOFH
//! frame each (TCP_NODELAY); [`StrategyClient::recv`] returns the next decoded message and, when
//! `auto_keepalive` is on, sends Sequence whenever the client has been silent for half the
//! keepalive interval.
//!
//! Recoverable flow: the client numbers the gateway's application messages as it receives them
//! (from EstablishmentAck.NextSeqNo; a Retransmission or Sequence resets the number) and tells
//! the number of the last one with [`StrategyClient::last_seq`];
//! [`StrategyClient::send_retransmit_request`] asks for missed messages again.
//!
//! Epochs (FIXP session versions, schema version 1): Negotiate carries the `SessionVerID` the
//! strategy asks for (0: whichever is current) and the gateway answers the epoch in force,
//! [`StrategyClient::session_ver_id`]. When the gateway ends an epoch it sends Terminate with
//! [`TerminationCode::SessionRollover`] ([`Received::Terminate`], or
//! [`ClientError::Terminated`] during the handshake): connect again, with `session_ver_id` 0 or
//! the new epoch, and number from 1.
//!
//! Retransmission across one rollover (schema version 2, as CME iLink 3 serves the previous
//! UUID): EstablishmentAck tells the epoch before the one in force and the number of its last
//! message ([`StrategyClient::previous_epoch`]). Connect with [`Handshake::last_read`] = what
//! the previous connection had read ([`StrategyClient::last_read`]): when that is short of the
//! previous epoch's end, the client asks for the rest (RetransmitRequest `LastSessionVerID`)
//! during the handshake and hands it over, marked as that epoch's, with
//! [`StrategyClient::take_previous_epoch`], before any message of the new epoch is returned by
//! [`StrategyClient::recv`].

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use codec::frame::{peek_frame, FrameError, DEFAULT_MAX_FRAME_LEN, SOFH_LEN};
use codec::sbe::{
    self, AccountBalanceReport, AccountRequestReport, BusinessMessageReject, DecodeError,
    Establish, EstablishmentReject, ExecutionReport, FlowType, KillSwitchReport, ListStatus,
    ListStatusEntry, Message, MovePositionsReport, MovePositionsReportEntry, Negotiate,
    NegotiationReject, NewOrderSingle, NotApplied, OrderCancelReject, OrderCancelReplaceRequest,
    OrderCancelRequest, OrderMassCancelReport, OrderMassStatusEnd, PositionReport, RateBudgetEntry,
    RateBudgetReport, Retransmission, RetransmitReject, RetransmitRequest, Sequence, Terminate,
    TerminationCode, Text,
};

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Socket error.
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    /// The gateway sent a frame that does not decode.
    #[error("frame: {0}")]
    Frame(#[from] FrameError),
    /// The gateway sent a message that does not decode.
    #[error("decode: {0}")]
    Decode(#[from] DecodeError),
    /// Negotiate refused (`code` `StaleSessionVersion`: the `session_ver_id` asked for is below
    /// the session's current epoch).
    #[error("negotiation rejected: {0:?}")]
    NegotiationRejected(NegotiationReject),
    /// Establish refused.
    #[error("establishment rejected: {0:?}")]
    EstablishmentRejected(EstablishmentReject),
    /// The gateway ended the session (`code` `SessionRollover`: it ended the epoch; connect
    /// again).
    #[error("terminated: {0:?}")]
    Terminated(Terminate),
    /// The gateway answered the handshake with something unexpected.
    #[error("unexpected message during handshake: template {0}")]
    Unexpected(u16),
    /// The connection closed.
    #[error("connection closed")]
    Closed,
    /// No answer in time.
    #[error("timed out")]
    Timeout,
}

/// A message received from the gateway (owned copies of the decoded blocks).
#[derive(Debug, Clone)]
pub enum Received {
    /// ExecutionReport.
    Exec(ExecutionReport),
    /// OrderCancelReject.
    CancelReject(OrderCancelReject),
    /// BusinessMessageReject.
    BusinessReject(BusinessMessageReject),
    /// Sequence (gateway keepalive).
    Sequence(Sequence),
    /// Terminate: the session is over (`code` [`TerminationCode::SessionRollover`]: the gateway
    /// ended the epoch; connect again, see [`Received::is_rollover`]).
    Terminate(Terminate),
    /// ListStatus and its per-item results.
    ListStatus(ListStatus, Vec<ListStatusEntry>),
    /// OrderMassCancelReport.
    MassCancelReport(OrderMassCancelReport),
    /// OrderMassStatusEnd.
    MassStatusEnd(OrderMassStatusEnd),
    /// MovePositionsReport and its per-position results.
    MovePositionsReport(MovePositionsReport, Vec<MovePositionsReportEntry>),
    /// AccountRequestReport.
    AccountRequestReport(AccountRequestReport),
    /// PositionReport.
    PositionReport(PositionReport),
    /// AccountBalanceReport.
    AccountBalanceReport(AccountBalanceReport),
    /// RateBudgetReport and its buckets.
    RateBudgetReport(RateBudgetReport, Vec<RateBudgetEntry>),
    /// KillSwitchReport.
    KillSwitchReport(KillSwitchReport),
    /// Retransmission: the next `count` messages are resent originals from `next_seq_no`.
    Retransmission(Retransmission),
    /// RetransmitReject: the RetransmitRequest was refused.
    RetransmitReject(RetransmitReject),
    /// NotApplied: strategy messages the gateway considers skipped.
    NotApplied(NotApplied),
    /// Anything else, by template id.
    Other(u16),
}

impl Received {
    /// True for a Terminate with [`TerminationCode::SessionRollover`]: the gateway ended the
    /// session's epoch; the strategy connects again (with `session_ver_id` 0 or the new epoch)
    /// and its sequence numbers and ClOrdID space start afresh.
    pub fn is_rollover(&self) -> bool {
        matches!(self, Received::Terminate(t) if t.code == TerminationCode::SessionRollover)
    }
}

/// A sequence number of the gateway's flow in one epoch: the last message read in it
/// ([`StrategyClient::last_read`]), or the last message of the previous epoch
/// ([`StrategyClient::previous_epoch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochSeq {
    /// The epoch (FIXP session version, `SessionVerID`).
    pub session_ver_id: u64,
    /// A sequence number in it (0: none).
    pub seq: u64,
}

/// The previous epoch's messages a connection recovered during its handshake
/// ([`StrategyClient::take_previous_epoch`]).
#[derive(Debug, Clone)]
pub struct PreviousEpochMessages {
    /// The epoch they belong to.
    pub session_ver_id: u64,
    /// The messages after [`Handshake::last_read`], each with its sequence number in that
    /// epoch, in order: the original frames the gateway kept.
    pub messages: Vec<(u64, Received)>,
    /// Set when the gateway refused a request (e.g. Unavailable: the epoch's journal segments
    /// are no longer kept); `messages` then holds what came before.
    pub rejected: Option<RetransmitReject>,
}

/// Most messages the client asks for in one RetransmitRequest (the gateway's limit).
pub const MAX_RETRANSMIT_COUNT: u32 = 10_000;

/// What the handshake announces beyond [`ClientOptions`], for
/// [`StrategyClient::connect_with`]. `Default`: `next_seq_no` 1, `session_ver_id` 0, no
/// `last_read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handshake {
    /// Establish.NextSeqNo: the number of the client's next application message (FIXP
    /// idempotent flow; a number above the gateway's expectation is answered with NotApplied).
    pub next_seq_no: u64,
    /// Negotiate.SessionVerID: the epoch asked for. 0 = whichever is current; the current one
    /// = resume it; a higher one = end the current epoch and start that one (rollover); a lower
    /// one is refused ([`ClientError::NegotiationRejected`], `StaleSessionVersion`).
    pub session_ver_id: u64,
    /// The last message the strategy read before this connection (the previous connection's
    /// [`StrategyClient::last_read`]). When the gateway's EstablishmentAck names that epoch as
    /// the previous one and its last message is later, the client asks for the rest before
    /// `connect_with` returns ([`StrategyClient::take_previous_epoch`]). `None`: nothing is
    /// asked for.
    pub last_read: Option<EpochSeq>,
}

impl Default for Handshake {
    fn default() -> Self {
        Handshake {
            next_seq_no: 1,
            session_ver_id: 0,
            last_read: None,
        }
    }
}

/// Options of [`StrategyClient::connect`].
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// FIXP SessionID.
    pub session_id: u64,
    /// Credentials configured for the session on the gateway.
    pub credentials: String,
    /// Keepalive interval asked for, in ms.
    pub keepalive_ms: u32,
    /// Send Sequence automatically from `recv` when idle.
    pub auto_keepalive: bool,
    /// Handshake timeout.
    pub timeout: Duration,
}

/// A connected, established strategy session.
#[derive(Debug)]
pub struct StrategyClient {
    stream: TcpStream,
    rbuf: Vec<u8>,
    start: usize,
    end: usize,
    wbuf: Vec<u8>,
    keepalive: Duration,
    auto_keepalive: bool,
    last_send: Instant,
    session_id: u64,
    /// Epoch the gateway answered in NegotiationResponse (0 before it, or from a version-0
    /// gateway).
    session_ver_id: u64,
    /// NextSeqNo announced by the gateway in EstablishmentAck.
    pub next_seq_from_gateway: u64,
    /// Sequence number the next application message from the gateway carries.
    next_in_seq: u64,
    /// Sequence number of the last application message received (0 before any).
    last_seq: u64,
    /// EstablishmentAck PreviousSessionVerID / PreviousSeqNo.
    previous_epoch: Option<EpochSeq>,
    /// The previous epoch's messages recovered during the handshake, until taken.
    recovered: Option<PreviousEpochMessages>,
    /// Messages of the epoch in force that arrived while the handshake recovered the previous
    /// epoch's: `recv` returns them first.
    pending: std::collections::VecDeque<Received>,
    /// Application messages of another epoch's Retransmission still to come (read with
    /// `recv`): not numbered in the epoch in force.
    other_epoch_left: u32,
}

/// How long one blocking read waits before `recv` re-checks its deadline and keepalive.
pub const READ_POLL: Duration = Duration::from_millis(2);

fn now_utc_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl StrategyClient {
    /// Connects without any handshake (for tests of the session layer).
    pub fn connect_raw(addr: SocketAddr) -> Result<StrategyClient, ClientError> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        // One fixed read timeout: `recv` re-checks its deadline and the keepalive after each
        // expiry, without a setsockopt per read.
        stream.set_read_timeout(Some(READ_POLL))?;
        Ok(StrategyClient {
            stream,
            rbuf: vec![0u8; 64 * 1024],
            start: 0,
            end: 0,
            wbuf: Vec::with_capacity(512),
            keepalive: Duration::from_secs(1),
            auto_keepalive: false,
            last_send: Instant::now(),
            session_id: 0,
            session_ver_id: 0,
            next_seq_from_gateway: 0,
            next_in_seq: 1,
            last_seq: 0,
            previous_epoch: None,
            recovered: None,
            pending: std::collections::VecDeque::new(),
            other_epoch_left: 0,
        })
    }

    /// Connects, negotiates (whichever epoch is current) and establishes with
    /// Establish.NextSeqNo = 1.
    pub fn connect(addr: SocketAddr, opts: &ClientOptions) -> Result<StrategyClient, ClientError> {
        StrategyClient::connect_with(addr, opts, Handshake::default())
    }

    /// Connects, negotiates (whichever epoch is current) and establishes announcing
    /// `next_seq_no` as the number of the client's next application message (FIXP idempotent
    /// flow; a number above the gateway's expectation is answered with NotApplied).
    pub fn connect_at(
        addr: SocketAddr,
        opts: &ClientOptions,
        next_seq_no: u64,
    ) -> Result<StrategyClient, ClientError> {
        StrategyClient::connect_with(
            addr,
            opts,
            Handshake {
                next_seq_no,
                ..Handshake::default()
            },
        )
    }

    /// Connects, negotiates asking for the epoch `handshake.session_ver_id` and establishes
    /// announcing `handshake.next_seq_no`. The epoch the gateway answered is
    /// [`StrategyClient::session_ver_id`]. Errors: the socket's, a refusal
    /// (`NegotiationRejected`, `EstablishmentRejected`), a Terminate (`Terminated`), an
    /// unexpected or undecodable message, or no answer within `opts.timeout`.
    pub fn connect_with(
        addr: SocketAddr,
        opts: &ClientOptions,
        handshake: Handshake,
    ) -> Result<StrategyClient, ClientError> {
        let Handshake {
            next_seq_no,
            session_ver_id,
            last_read,
        } = handshake;
        let mut c = StrategyClient::connect_raw(addr)?;
        c.session_id = opts.session_id;
        c.keepalive = Duration::from_millis(u64::from(opts.keepalive_ms));
        let ts = now_utc_ns();
        c.send_frame(|b| {
            Negotiate {
                session_id: opts.session_id,
                timestamp: ts,
                client_flow: FlowType::Idempotent,
                credentials: Text::new(&opts.credentials),
                session_ver_id,
            }
            .encode_frame(b)
        })?;
        let mut epoch = 0;
        c.expect_handshake(opts.timeout, |m| match m {
            Message::NegotiationResponse(r) => {
                epoch = r.session_ver_id();
                Ok(true)
            }
            Message::NegotiationReject(r) => Err(ClientError::NegotiationRejected(r.to_owned())),
            _ => Ok(false),
        })?;
        c.session_ver_id = epoch;
        c.send_frame(|b| {
            Establish {
                session_id: opts.session_id,
                timestamp: ts,
                keepalive_interval: opts.keepalive_ms,
                next_seq_no,
            }
            .encode_frame(b)
        })?;
        let mut next = 0;
        let mut previous = None;
        c.expect_handshake(opts.timeout, |m| match m {
            Message::EstablishmentAck(a) => {
                next = a.next_seq_no();
                previous = a.previous_session_ver_id().map(|e| EpochSeq {
                    session_ver_id: e,
                    seq: a.previous_seq_no(),
                });
                Ok(true)
            }
            Message::EstablishmentReject(r) => {
                Err(ClientError::EstablishmentRejected(r.to_owned()))
            }
            _ => Ok(false),
        })?;
        c.next_seq_from_gateway = next;
        c.next_in_seq = next;
        c.previous_epoch = previous;
        c.auto_keepalive = opts.auto_keepalive;
        if let (Some(read), Some(prev)) = (last_read, previous) {
            if read.session_ver_id == prev.session_ver_id && read.seq < prev.seq {
                let got = c.recover_previous(prev.session_ver_id, read.seq + 1, prev.seq, opts)?;
                c.recovered = Some(got);
            }
        }
        Ok(c)
    }

    /// Asks for the previous epoch `epoch`'s messages `from ..= last` (RetransmitRequest
    /// `LastSessionVerID`, at most [`MAX_RETRANSMIT_COUNT`] a request) and collects them; the
    /// epoch in force's messages that arrive meanwhile wait in `pending` for `recv`.
    fn recover_previous(
        &mut self,
        epoch: u64,
        from: u64,
        last: u64,
        opts: &ClientOptions,
    ) -> Result<PreviousEpochMessages, ClientError> {
        let mut got = PreviousEpochMessages {
            session_ver_id: epoch,
            messages: Vec::new(),
            rejected: None,
        };
        let deadline = Instant::now() + opts.timeout;
        let mut next = from;
        while next <= last {
            let count = u32::try_from(last - next + 1)
                .unwrap_or(u32::MAX)
                .min(MAX_RETRANSMIT_COUNT);
            self.send_retransmit_request_in(Some(epoch), next, count)?;
            // Frames of the Retransmission block still to come (None: not started).
            let mut left: Option<u32> = None;
            while left != Some(0) {
                let remaining = deadline
                    .checked_duration_since(Instant::now())
                    .ok_or(ClientError::Timeout)?;
                let Some(range) = self.next_frame(remaining)? else {
                    return Err(ClientError::Timeout);
                };
                let msg = sbe::decode(&self.rbuf[range])?;
                match (left, msg) {
                    (None, Message::Retransmission(r)) if r.session_ver_id() == Some(epoch) => {
                        left = Some(r.count());
                    }
                    (None, Message::RetransmitReject(r)) => {
                        got.rejected = Some(r.to_owned());
                        return Ok(got);
                    }
                    (Some(n), m) if m.template_id() > 12 => {
                        got.messages.push((next, received_of(m)));
                        next += 1;
                        left = Some(n - 1);
                    }
                    (_, m) => {
                        let ended = matches!(m, Message::Terminate(_));
                        let r = received_of(m);
                        self.number_received(&r);
                        self.pending.push_back(r);
                        if ended {
                            return Ok(got);
                        }
                    }
                }
            }
        }
        Ok(got)
    }

    /// The epoch before the one in force and the number of its last message, as the gateway
    /// told in EstablishmentAck (PreviousSessionVerID, PreviousSeqNo; CME iLink 3
    /// PreviousUUID / PreviousSeqNo). `None` before the session's first rollover, or from a
    /// gateway of schema version below 2.
    pub fn previous_epoch(&self) -> Option<EpochSeq> {
        self.previous_epoch
    }

    /// The last application message read on this connection, in the epoch in force (its
    /// `seq` 0 before any): what to pass as [`Handshake::last_read`] when connecting again.
    pub fn last_read(&self) -> EpochSeq {
        EpochSeq {
            session_ver_id: self.session_ver_id,
            seq: self.last_seq,
        }
    }

    /// The previous epoch's messages this connection recovered during its handshake (see
    /// [`Handshake::last_read`]), once; `None` when nothing was missing or asked for.
    pub fn take_previous_epoch(&mut self) -> Option<PreviousEpochMessages> {
        self.recovered.take()
    }

    fn expect_handshake(
        &mut self,
        timeout: Duration,
        mut accept: impl FnMut(Message<'_>) -> Result<bool, ClientError>,
    ) -> Result<(), ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            let remaining = deadline
                .checked_duration_since(Instant::now())
                .ok_or(ClientError::Timeout)?;
            let Some(range) = self.next_frame(remaining)? else {
                return Err(ClientError::Timeout);
            };
            let payload = &self.rbuf[range];
            let msg = sbe::decode(payload)?;
            if let Message::Terminate(t) = msg {
                return Err(ClientError::Terminated(t.to_owned()));
            }
            let tid = sbe::template_id(payload).unwrap_or(0);
            match accept(msg)? {
                true => return Ok(()),
                false => {
                    if !matches!(tid, 7) {
                        return Err(ClientError::Unexpected(tid));
                    }
                }
            }
        }
    }

    /// The SessionID.
    pub fn session_id(&self) -> u64 {
        self.session_id
    }

    /// The epoch (FIXP session version) in force, as the gateway answered in
    /// NegotiationResponse.SessionVerID: 1 and up; 0 from a gateway of schema version 0 (or
    /// before Negotiate, for [`StrategyClient::connect_raw`]).
    pub fn session_ver_id(&self) -> u64 {
        self.session_ver_id
    }

    /// Encodes one frame with `encode` and writes it.
    pub fn send_frame(&mut self, encode: impl FnOnce(&mut Vec<u8>)) -> Result<(), ClientError> {
        self.wbuf.clear();
        encode(&mut self.wbuf);
        self.stream.write_all(&self.wbuf)?;
        self.last_send = Instant::now();
        Ok(())
    }

    /// A second writer on the same connection, for a strategy that sends from one thread and
    /// reads ([`StrategyClient::recv`]) on another (an open-loop load generator). Frames are
    /// written whole by either writer; to keep them from interleaving, send Sequence keepalives
    /// from one of them only (connect with `auto_keepalive: false` and send them from the
    /// sender, [`ClientSender::send_frame`]).
    ///
    /// Errors: the socket cannot be duplicated (`ClientError::Io`).
    pub fn sender(&self) -> Result<ClientSender, ClientError> {
        Ok(ClientSender {
            stream: self.stream.try_clone()?,
            wbuf: Vec::with_capacity(512),
        })
    }

    /// Writes raw bytes (for tests of bad input).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.stream.write_all(bytes)?;
        self.last_send = Instant::now();
        Ok(())
    }

    /// Sends a NewOrderSingle.
    pub fn send_new_order(&mut self, m: &NewOrderSingle) -> Result<(), ClientError> {
        self.send_frame(|b| m.encode_frame(b))
    }

    /// Sends an OrderCancelRequest.
    pub fn send_cancel(&mut self, m: &OrderCancelRequest) -> Result<(), ClientError> {
        self.send_frame(|b| m.encode_frame(b))
    }

    /// Sends an OrderCancelReplaceRequest.
    pub fn send_replace(&mut self, m: &OrderCancelReplaceRequest) -> Result<(), ClientError> {
        self.send_frame(|b| m.encode_frame(b))
    }

    /// Sends a RetransmitRequest for the gateway's messages `from_seq_no .. + count` of the
    /// epoch in force.
    pub fn send_retransmit_request(
        &mut self,
        from_seq_no: u64,
        count: u32,
    ) -> Result<(), ClientError> {
        self.send_retransmit_request_in(None, from_seq_no, count)
    }

    /// Sends a RetransmitRequest for the gateway's messages `from_seq_no .. + count` of epoch
    /// `last_session_ver_id` (`None`: the epoch in force; the previous epoch: its messages,
    /// while the gateway keeps them). The Retransmission that answers it names the epoch
    /// (`session_ver_id`); read with `recv`, another epoch's resent messages do not change
    /// the numbering of the epoch in force ([`StrategyClient::last_seq`]).
    pub fn send_retransmit_request_in(
        &mut self,
        last_session_ver_id: Option<u64>,
        from_seq_no: u64,
        count: u32,
    ) -> Result<(), ClientError> {
        let session_id = self.session_id;
        let timestamp = now_utc_ns();
        self.send_frame(|b| {
            RetransmitRequest {
                session_id,
                timestamp,
                from_seq_no,
                count,
                last_session_ver_id,
            }
            .encode_frame(b)
        })
    }

    /// Sequence number of the last application message received (0 before any); resent
    /// messages after a Retransmission carry their original numbers.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Sequence number the next application message from the gateway will carry.
    pub fn next_in_seq(&self) -> u64 {
        self.next_in_seq
    }

    /// Sends Terminate (Finished).
    pub fn terminate(&mut self) -> Result<(), ClientError> {
        let session_id = self.session_id;
        self.send_frame(|b| {
            Terminate {
                session_id,
                code: sbe::TerminationCode::Finished,
                reason: Text::new("done"),
            }
            .encode_frame(b)
        })
    }

    /// Waits up to `timeout` for the next message. `Ok(None)` on timeout.
    pub fn recv(&mut self, timeout: Duration) -> Result<Option<Received>, ClientError> {
        if let Some(r) = self.pending.pop_front() {
            return Ok(Some(r));
        }
        let Some(range) = self.next_frame(timeout)? else {
            return Ok(None);
        };
        let msg = sbe::decode(&self.rbuf[range])?;
        let r = received_of(msg);
        self.number_received(&r);
        Ok(Some(r))
    }

    /// Numbers a message of the gateway's flow: an application message of the epoch in force
    /// is `next_in_seq` (then `last_seq`); a Sequence sets the next number, and so does a
    /// Retransmission of the epoch in force; the messages of another epoch's Retransmission
    /// (the previous one's) are not numbered in this one.
    fn number_received(&mut self, r: &Received) {
        match r {
            Received::Sequence(q) => self.next_in_seq = q.next_seq_no,
            Received::Retransmission(t) => match t.session_ver_id {
                Some(e) if e != self.session_ver_id => self.other_epoch_left = t.count,
                _ => self.next_in_seq = t.next_seq_no,
            },
            Received::Terminate(_) | Received::RetransmitReject(_) | Received::NotApplied(_) => {}
            Received::Other(template) if *template <= 12 => {}
            _ if self.other_epoch_left > 0 => self.other_epoch_left -= 1,
            _ => {
                self.last_seq = self.next_in_seq;
                self.next_in_seq += 1;
            }
        }
    }

    fn keepalive_if_due(&mut self) -> Result<(), ClientError> {
        if self.auto_keepalive && self.last_send.elapsed() >= self.keepalive / 2 {
            self.send_frame(|b| Sequence { next_seq_no: 1 }.encode_frame(b))?;
        }
        Ok(())
    }

    /// Returns the payload range (after SOFH) of the next whole frame, reading as needed.
    fn next_frame(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<std::ops::Range<usize>>, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(len) = peek_frame(&self.rbuf[self.start..self.end], DEFAULT_MAX_FRAME_LEN)?
            {
                let range = self.start + SOFH_LEN..self.start + len;
                self.start += len;
                return Ok(Some(range));
            }
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
            } else if self.end == self.rbuf.len() {
                self.rbuf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            // A keepalive that cannot be written does not hide what is still to be read (the
            // frames before a reset, a Terminate): the read below reports the end.
            let _ = self.keepalive_if_due();
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            match self.stream.read(&mut self.rbuf[self.end..]) {
                Ok(0) => return Err(ClientError::Closed),
                Ok(n) => self.end += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::TimedOut => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// The owned form of a decoded message.
fn received_of(msg: Message<'_>) -> Received {
    match msg {
        Message::ExecutionReport(m) => Received::Exec(m.to_owned()),
        Message::OrderCancelReject(m) => Received::CancelReject(m.to_owned()),
        Message::BusinessMessageReject(m) => Received::BusinessReject(m.to_owned()),
        Message::Sequence(m) => Received::Sequence(m.to_owned()),
        Message::Terminate(m) => Received::Terminate(m.to_owned()),
        Message::ListStatus(m) => Received::ListStatus(
            m.to_owned(),
            m.orders().iter().map(|e| e.to_owned()).collect(),
        ),
        Message::OrderMassCancelReport(m) => Received::MassCancelReport(m.to_owned()),
        Message::OrderMassStatusEnd(m) => Received::MassStatusEnd(m.to_owned()),
        Message::MovePositionsReport(m) => Received::MovePositionsReport(
            m.to_owned(),
            m.results().iter().map(|e| e.to_owned()).collect(),
        ),
        Message::AccountRequestReport(m) => Received::AccountRequestReport(m.to_owned()),
        Message::PositionReport(m) => Received::PositionReport(m.to_owned()),
        Message::AccountBalanceReport(m) => Received::AccountBalanceReport(m.to_owned()),
        Message::RateBudgetReport(m) => Received::RateBudgetReport(
            m.to_owned(),
            m.buckets().iter().map(|e| e.to_owned()).collect(),
        ),
        Message::KillSwitchReport(m) => Received::KillSwitchReport(m.to_owned()),
        Message::Retransmission(m) => Received::Retransmission(m.to_owned()),
        Message::RetransmitReject(m) => Received::RetransmitReject(m.to_owned()),
        Message::NotApplied(m) => Received::NotApplied(m.to_owned()),
        other => Received::Other(template_of(&other)),
    }
}

fn template_of(m: &Message<'_>) -> u16 {
    m.template_id()
}

/// A writer on an established session's connection ([`StrategyClient::sender`]): frames only,
/// no reading.
#[derive(Debug)]
pub struct ClientSender {
    stream: TcpStream,
    wbuf: Vec<u8>,
}

impl ClientSender {
    /// Encodes one frame with `encode` and writes it whole.
    pub fn send_frame(&mut self, encode: impl FnOnce(&mut Vec<u8>)) -> Result<(), ClientError> {
        self.wbuf.clear();
        encode(&mut self.wbuf);
        self.stream.write_all(&self.wbuf)?;
        Ok(())
    }

    /// Writes already framed bytes whole (many frames in one write, for load tests).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.stream.write_all(bytes)?;
        Ok(())
    }

    /// Sends a NewOrderSingle.
    pub fn send_new_order(&mut self, m: &NewOrderSingle) -> Result<(), ClientError> {
        self.send_frame(|b| m.encode_frame(b))
    }

    /// Sends an OrderCancelRequest.
    pub fn send_cancel(&mut self, m: &OrderCancelRequest) -> Result<(), ClientError> {
        self.send_frame(|b| m.encode_frame(b))
    }

    /// Sends a Sequence (FIXP keepalive).
    pub fn send_keepalive(&mut self) -> Result<(), ClientError> {
        self.send_frame(|b| Sequence { next_seq_no: 1 }.encode_frame(b))
    }
}
