//! The fault state the connection tasks read ([`Faults`]: per-connection faults by target,
//! trade-op rules) and the installation of `[faults]`.

use crate::matching::AccountId;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};

use super::config::{FaultsConfig, TradeRuleKind};
use super::model::{ConnFaults, Target, TradeFault};

#[derive(Debug, Clone)]
struct TradeRule {
    target: Target,
    topic: Option<String>,
    remaining: u32,
    fault: TradeFault,
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
