//! Which faults a run injects and how often (drawn from its seed, FoundationDB's BUGGIFY way:
//! each kind is switched on or off per run, then fires at its rate when on), and what it
//! injected, by kind.

use crate::rng::SimRng;

/// The kinds of fault, as counted and printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// The exchange WebSocket dropped: frames in flight either way lost.
    LinkDrop,
    /// A trade op applied, its reply never sent (the gateway's reply timeout runs out).
    ReplyLost,
    /// A trade op applied, its reply `40010` (outcome unknown to the gateway).
    Reply40010Applied,
    /// A trade op not applied, its reply `40010`.
    Reply40010NotApplied,
    /// The order pushes of an op sent before its reply.
    PushBeforeReply,
    /// A WebSocket frame held back far longer than usual (a stall).
    FrameStall,
    /// A push delivered twice (a venue that repeats itself after a resubscribe).
    PushDuplicated,
    /// The pushes of one op delivered in another order (the `order` and `fill` topics race).
    PushesReordered,
    /// A REST query answered with an error.
    RestError,
    /// A REST query answered late (past the usual latency).
    RestSlow,
    /// The gateway's clock jumped forward.
    ClockJump,
    /// A strategy's connection dropped (no Terminate): cancel on disconnect, then it connects
    /// again, asks for what it missed and sends again what was unanswered.
    StrategyDrop,
    /// The gateway process died (between two steps, or at a crash point within one: what
    /// was not journaled is lost) and started again from its journals.
    GatewayCrash,
    /// A crash left a torn record at the end of a journal (a write cut short).
    JournalTorn,
    /// A trade op refused for rate (code `429`, not applied): the venue's quota, whatever the
    /// gateway's own budget counted.
    RateRefused,
    /// A strategy ended its session with Terminate (no cancel on disconnect: its orders stay)
    /// and connects again later.
    StrategyTerminate,
    /// A strategy asked again for messages it already has (RetransmitRequest of a past range):
    /// each must come back as it was.
    StrategyRetransmit,
    /// A strategy, at a quiet point, ended its connection and negotiated the next
    /// SessionVerID: the session rolled over (numbering from 1, ClOrdIDs of ended orders free,
    /// each open order's OrderStatus first).
    SessionRollover,
    /// A session's journal failed for a while (a full or failing disk: ENOSPC or EIO on the
    /// next appends, some cut short): the session holds its messages and refuses new risk
    /// until the journal takes records again (issue 37). Drawn from a stream of its own.
    JournalFailing,
}

impl Fault {
    /// Every kind, in print order.
    pub const ALL: [Fault; 19] = [
        Fault::LinkDrop,
        Fault::ReplyLost,
        Fault::Reply40010Applied,
        Fault::Reply40010NotApplied,
        Fault::PushBeforeReply,
        Fault::FrameStall,
        Fault::PushDuplicated,
        Fault::PushesReordered,
        Fault::RestError,
        Fault::RestSlow,
        Fault::ClockJump,
        Fault::StrategyDrop,
        Fault::GatewayCrash,
        Fault::JournalTorn,
        Fault::RateRefused,
        Fault::StrategyTerminate,
        Fault::StrategyRetransmit,
        Fault::SessionRollover,
        Fault::JournalFailing,
    ];

    /// The kinds drawn from the run's main stream (those that existed before the side
    /// stream): the others are drawn from the side stream ([`FaultPlan::with_more`]).
    pub const MAIN: usize = 12;

    /// Name as printed.
    pub fn name(self) -> &'static str {
        match self {
            Fault::LinkDrop => "link_drop",
            Fault::ReplyLost => "reply_lost",
            Fault::Reply40010Applied => "40010_applied",
            Fault::Reply40010NotApplied => "40010_not_applied",
            Fault::PushBeforeReply => "push_before_reply",
            Fault::FrameStall => "frame_stall",
            Fault::PushDuplicated => "push_duplicated",
            Fault::PushesReordered => "pushes_reordered",
            Fault::RestError => "rest_error",
            Fault::RestSlow => "rest_slow",
            Fault::ClockJump => "clock_jump",
            Fault::StrategyDrop => "strategy_drop",
            Fault::GatewayCrash => "gateway_crash",
            Fault::JournalTorn => "journal_torn",
            Fault::RateRefused => "rate_refused",
            Fault::StrategyTerminate => "strategy_terminate",
            Fault::StrategyRetransmit => "strategy_retransmit",
            Fault::SessionRollover => "session_rollover",
            Fault::JournalFailing => "journal_failing",
        }
    }
}

/// Rates of one run: the probability of each fault per chance it has (per frame, per op, per
/// query; link drops and clock jumps per millisecond of simulated time).
#[derive(Debug, Clone, Copy, Default)]
pub struct FaultPlan {
    rates: [f64; Fault::ALL.len()],
}

impl FaultPlan {
    /// No faults.
    pub fn none() -> Self {
        FaultPlan::default()
    }

    /// The plan of a run: each kind on with probability one half, at a rate drawn between a
    /// tenth and the whole of its ceiling.
    pub fn draw(rng: &mut SimRng) -> Self {
        let mut plan = FaultPlan::default();
        for (i, f) in Fault::ALL.iter().enumerate().take(Fault::MAIN) {
            if rng.chance(0.5) {
                let ceiling = match f {
                    Fault::LinkDrop => 0.002,
                    Fault::ClockJump => 0.0005,
                    Fault::StrategyDrop => 0.01,
                    Fault::ReplyLost | Fault::Reply40010Applied | Fault::Reply40010NotApplied => {
                        0.05
                    }
                    Fault::PushBeforeReply => 0.5,
                    Fault::FrameStall | Fault::PushDuplicated => 0.02,
                    Fault::PushesReordered => 0.2,
                    Fault::RestError | Fault::RestSlow => 0.2,
                    _ => 0.0,
                };
                let scale = rng.between(10, 100) as f64 / 100.0;
                plan.rates[i] = ceiling * scale;
            }
        }
        plan
    }

    /// The plan with the kinds added after the first [`Fault::MAIN`] drawn from `side` (a
    /// stream of its own, so that the main stream's draws stay as they were), each on in half
    /// the runs at a rate between a tenth and the whole of its ceiling: gateway crashes up to
    /// one per 2 s of simulated time, rate refusals up to 5 % of trade ops, Terminates and
    /// RetransmitRequests up to one per 200 ms. (A torn journal record is a consequence of a
    /// crash, drawn when it happens.)
    pub fn with_more(mut self, side: &mut SimRng) -> Self {
        for (i, f) in Fault::ALL.iter().enumerate().skip(Fault::MAIN) {
            let ceiling = match f {
                Fault::GatewayCrash => 0.0005,
                Fault::RateRefused => 0.05,
                Fault::StrategyTerminate | Fault::StrategyRetransmit => 0.005,
                Fault::SessionRollover => 0.002,
                _ => continue,
            };
            if side.chance(0.5) {
                let scale = side.between(10, 100) as f64 / 100.0;
                self.rates[i] = ceiling * scale;
            }
        }
        self
    }

    /// The same plan with every rate multiplied by `k` (clamped to 1).
    pub fn scaled(mut self, k: f64) -> Self {
        for r in &mut self.rates {
            *r = (*r * k).min(1.0);
        }
        self
    }

    /// The rate of `f`.
    pub fn rate(&self, f: Fault) -> f64 {
        Fault::ALL
            .iter()
            .position(|x| *x == f)
            .map_or(0.0, |i| self.rates[i])
    }

    /// The kinds switched on.
    pub fn enabled(&self) -> Vec<Fault> {
        Fault::ALL
            .iter()
            .copied()
            .filter(|f| self.rate(*f) > 0.0)
            .collect()
    }
}

/// Faults injected, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounts(pub [u64; Fault::ALL.len()]);

impl FaultCounts {
    /// Counts one `f`.
    pub fn add(&mut self, f: Fault) {
        if let Some(i) = Fault::ALL.iter().position(|x| *x == f) {
            self.0[i] += 1;
        }
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &FaultCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// Σ over kinds.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// `kind=count` pairs of the kinds that fired.
    pub fn describe(&self) -> String {
        Fault::ALL
            .iter()
            .zip(self.0)
            .filter(|(_, n)| *n > 0)
            .map(|(f, n)| format!("{}={n}", f.name()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
