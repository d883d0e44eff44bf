//! Faults on demand: what a test (through [`FaultControl`], `SimHandle::faults()`), the
//! configuration (`[faults]`, [`FaultsConfig`]) or the optional HTTP control endpoint
//! (`POST /sim/control/faults`, off unless `faults.control_api = true`) asks the simulator to do
//! wrong, and the per-connection machinery that applies it on the WebSocket send path.
//!
//! | Fault | Effect seen by the client |
//! | --- | --- |
//! | close connections | a WebSocket close frame, then the socket is gone |
//! | service upgrade | `{"event":"error","code":30033,"msg":..}`, then close after a delay |
//! | delay replies (ms) | replies to requests are written that much later; pushes are not held back, so the pushes a request caused can arrive before its reply |
//! | delay pushes (ms) | every push is written that much later; replies (and `pong`) overtake it |
//! | duplicate pushes | every push is written twice |
//! | reorder pushes (window ms) | pushes are swapped pairwise: a push is held until the next one has been written (or until the window ends) |
//! | pause pushes / resume | pushes are dropped (never written) while paused; the socket stays open and replies keep coming |
//! | silence (on/off) | every frame (pushes, replies, `pong`) is dropped while on; the socket stays open |
//! | reject trade ops | the next N trade ops (optionally of one topic) get `{"event":"error","id":..,"code":"<code>","msg":..}` and are not applied |
//! | outcome unknown | the next N trade ops get `{"event":"error","id":..,"code":"40010","msg":"Request timed out"}`, either after the op was applied (the order exists and its pushes follow) or without applying it |
//!
//! Each fault targets all connections ([`Scope::All`]) or those logged in as one account
//! ([`Scope::Uid`]). Connection faults (delays, duplicates, reorder, pause) of both scopes
//! combine field by field (longest delay, any flag). Trade-op rules are used in the order they
//! were added. Trade-op rules also answer the REST `place-order` / `modify-order` /
//! `cancel-order` endpoints (HTTP 400 with the code); the send-path faults are WebSocket only.

mod control;
mod http;
mod outbox;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::matching::AccountId;

pub use control::{FaultControl, FaultError};
pub(crate) use http::control_endpoint;
pub(crate) use outbox::Outbox;

/// Which connections a fault applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    /// Every connection (public connections and not-yet-logged-in ones included).
    All,
    /// The connections logged in as the account with this uid.
    Uid(String),
}

impl Scope {
    /// [`Scope::Uid`] of `uid`.
    pub fn uid(uid: &str) -> Scope {
        Scope::Uid(uid.to_string())
    }
}

/// A resolved scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    All,
    Account(AccountId),
}

impl Target {
    pub(crate) fn matches(self, owner: Option<AccountId>) -> bool {
        match self {
            Target::All => true,
            Target::Account(a) => owner == Some(a),
        }
    }
}

/// The send-path faults of one connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ConnFaults {
    /// Replies are written this many ms late.
    pub(crate) reply_delay_ms: u64,
    /// Pushes are written this many ms late.
    pub(crate) push_delay_ms: u64,
    /// Every push is written twice.
    pub(crate) duplicate: bool,
    /// Pushes are swapped pairwise; a held push waits at most this many ms (0 = off).
    pub(crate) reorder_window_ms: u64,
    /// Pushes are dropped.
    pub(crate) paused: bool,
    /// Every frame (pushes, replies, `pong`) is dropped; the socket stays open.
    pub(crate) silent: bool,
}

impl ConnFaults {
    fn merge(self, o: ConnFaults) -> ConnFaults {
        ConnFaults {
            reply_delay_ms: self.reply_delay_ms.max(o.reply_delay_ms),
            push_delay_ms: self.push_delay_ms.max(o.push_delay_ms),
            duplicate: self.duplicate || o.duplicate,
            reorder_window_ms: self.reorder_window_ms.max(o.reorder_window_ms),
            paused: self.paused || o.paused,
            silent: self.silent || o.silent,
        }
    }

    fn is_clear(self) -> bool {
        self == ConnFaults::default()
    }
}

/// What the trade path does instead of (or besides) the normal handling of one trade op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TradeFault {
    /// Answer `{"event":"error","id":..,"code":"<code>","msg":..}` without applying the op.
    Reject { code: u32, msg: String },
    /// Answer `40010` "Request timed out", after applying the op (`applied`) or without.
    UnknownOutcome { applied: bool },
}

#[derive(Debug, Clone)]
struct TradeRule {
    target: Target,
    topic: Option<String>,
    remaining: u32,
    fault: TradeFault,
}

/// A message from the fault control to one connection task.
#[derive(Debug, Clone)]
pub(crate) enum Control {
    /// Close the connection now.
    Close,
    /// Write `frame`, then close after `close_after_ms`.
    Notice { frame: String, close_after_ms: u64 },
}

#[derive(Debug, Default)]
struct State {
    all: ConnFaults,
    accounts: HashMap<AccountId, ConnFaults>,
    rules: VecDeque<TradeRule>,
}

/// The fault state of a running simulator (shared by every connection task).
#[derive(Debug, Default)]
pub(crate) struct Faults {
    /// Fast path: false while no fault is set.
    active: AtomicBool,
    state: Mutex<State>,
    /// Uid of each configured account (index = [`AccountId`]).
    uids: Vec<String>,
}

impl Faults {
    /// No faults; `uids` = the uid of each configured account, in configuration order (the
    /// index is the account's [`AccountId`]).
    pub(crate) fn new(uids: Vec<String>) -> Faults {
        Faults {
            uids,
            ..Faults::default()
        }
    }

    /// The account with this uid.
    pub(crate) fn account_of(&self, uid: &str) -> Option<AccountId> {
        self.uids
            .iter()
            .position(|u| u == uid)
            .and_then(|i| u32::try_from(i).ok())
            .map(AccountId)
    }

    fn refresh_active(&self, s: &State) {
        let on =
            !s.all.is_clear() || s.accounts.values().any(|f| !f.is_clear()) || !s.rules.is_empty();
        self.active.store(on, Ordering::Relaxed);
    }

    /// True when some fault is set.
    pub(crate) fn active(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    /// The send-path faults of a connection owned by `owner`.
    pub(crate) fn conn(&self, owner: Option<AccountId>) -> ConnFaults {
        if !self.active() {
            return ConnFaults::default();
        }
        let s = self.state.lock();
        let own = owner
            .and_then(|o| s.accounts.get(&o).copied())
            .unwrap_or_default();
        s.all.merge(own)
    }

    /// Changes the connection faults of `target`.
    pub(crate) fn update(&self, target: Target, f: impl FnOnce(&mut ConnFaults)) {
        let mut s = self.state.lock();
        match target {
            Target::All => f(&mut s.all),
            Target::Account(a) => f(s.accounts.entry(a).or_default()),
        }
        self.refresh_active(&s);
    }

    /// Adds a trade-op rule for the next `count` trade ops of `target` (of `topic` when given).
    pub(crate) fn add_rule(
        &self,
        target: Target,
        topic: Option<String>,
        count: u32,
        fault: TradeFault,
    ) {
        if count == 0 {
            return;
        }
        let mut s = self.state.lock();
        s.rules.push_back(TradeRule {
            target,
            topic,
            remaining: count,
            fault,
        });
        self.refresh_active(&s);
    }

    /// The fault for one trade op of `owner` with `topic`, consuming one use of the first
    /// matching rule.
    pub(crate) fn take_trade(&self, owner: AccountId, topic: &str) -> Option<TradeFault> {
        if !self.active() {
            return None;
        }
        let mut s = self.state.lock();
        let idx = s.rules.iter().position(|r| {
            r.target.matches(Some(owner)) && r.topic.as_deref().is_none_or(|t| t == topic)
        })?;
        let rule = s.rules.get_mut(idx)?;
        rule.remaining = rule.remaining.saturating_sub(1);
        let fault = rule.fault.clone();
        if rule.remaining == 0 {
            s.rules.remove(idx);
        }
        self.refresh_active(&s);
        Some(fault)
    }

    /// Removes every fault.
    pub(crate) fn clear(&self) {
        let mut s = self.state.lock();
        *s = State::default();
        self.refresh_active(&s);
    }
}

/// A trade-op rule in the configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TradeRuleConfig {
    /// Account uid the rule applies to; absent = every account.
    #[serde(default)]
    pub uid: Option<String>,
    /// Trade topic (`place-order`, `batch-cancel`, ...); absent = every topic.
    #[serde(default)]
    pub topic: Option<String>,
    /// How many trade ops the rule answers.
    pub count: u32,
    /// `reject`: answer `code`/`msg` without applying; `unknown_applied`: apply, answer `40010`;
    /// `unknown_not_applied`: answer `40010` without applying.
    pub kind: TradeRuleKind,
    /// Error code for `reject` (default `40725`).
    #[serde(default)]
    pub code: Option<u32>,
    /// Error message for `reject` (default "service return an error").
    #[serde(default)]
    pub msg: Option<String>,
}

/// What a configured trade-op rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TradeRuleKind {
    /// Reject with the given code.
    Reject,
    /// Apply the op, answer `40010`.
    UnknownApplied,
    /// Answer `40010` without applying.
    UnknownNotApplied,
}

/// `[faults]` in the configuration: faults active from the start (every connection), and the
/// switch of the HTTP control endpoint.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Serve `POST /sim/control/faults` (see `sim/README.md`). Default false.
    #[serde(default)]
    pub control_api: bool,
    /// Replies written this many ms late. Default 0.
    #[serde(default)]
    pub reply_delay_ms: u64,
    /// Pushes written this many ms late. Default 0.
    #[serde(default)]
    pub push_delay_ms: u64,
    /// Every push written twice. Default false.
    #[serde(default)]
    pub duplicate_pushes: bool,
    /// Pushes swapped pairwise, a held push waiting at most this many ms. 0 = off (default).
    #[serde(default)]
    pub reorder_window_ms: u64,
    /// Pushes dropped from the start. Default false.
    #[serde(default)]
    pub pause_pushes: bool,
    /// Trade-op rules, used in order.
    #[serde(default)]
    pub trade_rules: Vec<TradeRuleConfig>,
}

impl FaultsConfig {
    /// Installs the configured faults.
    pub(crate) fn install(&self, faults: &Faults) -> Result<(), String> {
        faults.update(Target::All, |f| {
            f.reply_delay_ms = self.reply_delay_ms;
            f.push_delay_ms = self.push_delay_ms;
            f.duplicate = self.duplicate_pushes;
            f.reorder_window_ms = self.reorder_window_ms;
            f.paused = self.pause_pushes;
        });
        for r in &self.trade_rules {
            let target = match &r.uid {
                None => Target::All,
                Some(uid) => Target::Account(
                    faults
                        .account_of(uid)
                        .ok_or_else(|| format!("faults: unknown uid {uid}"))?,
                ),
            };
            let fault = match r.kind {
                TradeRuleKind::Reject => TradeFault::Reject {
                    code: r.code.unwrap_or(40725),
                    msg: r
                        .msg
                        .clone()
                        .unwrap_or_else(|| "service return an error".into()),
                },
                TradeRuleKind::UnknownApplied => TradeFault::UnknownOutcome { applied: true },
                TradeRuleKind::UnknownNotApplied => TradeFault::UnknownOutcome { applied: false },
            };
            faults.add_rule(target, r.topic.clone(), r.count, fault);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_used_in_order_and_counted() {
        let f = Faults::default();
        assert!(!f.active());
        let a = AccountId(0);
        let b = AccountId(1);
        f.add_rule(
            Target::Account(a),
            Some("cancel-order".into()),
            1,
            TradeFault::UnknownOutcome { applied: false },
        );
        f.add_rule(
            Target::All,
            None,
            2,
            TradeFault::Reject {
                code: 1,
                msg: "x".into(),
            },
        );
        assert!(f.active());
        assert_eq!(
            f.take_trade(a, "cancel-order"),
            Some(TradeFault::UnknownOutcome { applied: false })
        );
        assert!(matches!(
            f.take_trade(b, "cancel-order"),
            Some(TradeFault::Reject { .. })
        ));
        assert!(matches!(
            f.take_trade(a, "cancel-order"),
            Some(TradeFault::Reject { .. })
        ));
        assert_eq!(f.take_trade(a, "cancel-order"), None);
        assert!(!f.active());
    }

    #[test]
    fn scopes_combine_field_by_field() {
        let f = Faults::default();
        let a = AccountId(0);
        f.update(Target::All, |c| c.push_delay_ms = 5);
        f.update(Target::Account(a), |c| {
            c.push_delay_ms = 2;
            c.paused = true;
        });
        assert_eq!(f.conn(Some(a)).push_delay_ms, 5);
        assert!(f.conn(Some(a)).paused);
        assert!(!f.conn(None).paused);
        f.clear();
        assert_eq!(f.conn(Some(a)), ConnFaults::default());
        assert!(!f.active());
    }
}
