//! A gateway crash and its restart from the journals: the crash (what survives, what the
//! connections do), the restart in the shell's order, the restart's reconciliation, and the
//! check that the restored tracker agrees with the crashed one.

use std::collections::{BTreeMap, BTreeSet};

use codec::sbe::{ExecutionReport, OrdStatus};
use gateway_core::tracker::{ExchangeState, Retention, StateSource};

use super::{new_resolver, Ev, Outbox, World, MS};
use crate::faults::Fault;
use crate::gateway::Gateway;

impl World {
    /// The gateway process dies, between two steps (`between_steps`) or at the crash point
    /// the fuse reached within one: only its journals survive; its connections end (what it
    /// wrote to the venue before dying may still get there); the strategies see theirs end
    /// and try again until it accepts them; it starts again 0.1-2 s later.
    pub(super) fn crash(&mut self, between_steps: bool) {
        let t = self.sched.now_ns();
        let at = if between_steps {
            "fault: gateway crash between steps"
        } else {
            "fault: gateway crash at a crash point"
        };
        self.trace.event(t, at, b"");
        self.fuse = None;
        // Between two steps the tracker holds only what it reported (and journaled).
        self.crashed_views = if between_steps {
            let utc = self.utc_ns();
            Some(self.gw.open_orders(utc, &mut Outbox::default()))
        } else {
            None
        };
        let torn = self.side.chance(0.3);
        if torn {
            self.counts.add(Fault::JournalTorn);
        }
        let placeholder = Gateway::new(0, Vec::new(), 0, 64, Retention::default());
        let gw = std::mem::replace(&mut self.gw, placeholder);
        self.down = Some(gw.crash(&mut self.side, torn));
        self.life += 1;
        let old = self.venue_gen;
        self.venue_gen += 1;
        self.gw_gen = u64::MAX;
        self.drain_gen = self.side.chance(0.5).then_some(old);
        self.accepting = false;
        self.restart_ended = None;
        self.resolver = new_resolver();
        self.resolver_wake_ns = u64::MAX;
        for i in 0..self.strategies.len() {
            if self.reconnecting[i] {
                continue;
            }
            // What the gateway wrote reaches the strategy before the connection ends (FIN),
            // or is lost with it (RST).
            let at = if self.side.chance(0.5) {
                self.to_strat_at[i].max(t) + 1
            } else {
                t
            };
            self.reconnecting[i] = true;
            self.sched
                .at(at, Ev::StrategyConnLost(i, self.strat_gen[i]));
        }
        let d = self.side.between(100 * MS, 2_000 * MS);
        self.sched.after(d, Ev::Restart(self.life));
    }

    /// The gateway starts again from its journals (`Gateway::restart`), logs in (the link
    /// connected, not reconciled) and reconciles after a REST latency; the restored tracker
    /// must agree with the crashed one on every order it had reported.
    pub(super) fn restart(&mut self) {
        let Some(crashed) = self.down.take() else {
            return;
        };
        let (now, utc) = (self.sched.now_ns(), self.utc_ns());
        let mut out = self.outbox();
        let r = Gateway::restart(
            crashed,
            self.rules.clone(),
            self.retention,
            now,
            utc,
            &mut out,
        );
        self.gw = r.gateway;
        self.trace
            .event(now, "gateway restarts", format!("{:?}", r.notes).as_bytes());
        if let Some(before) = self.crashed_views.take() {
            let after = self.gw.open_orders(utc, &mut Outbox::default());
            self.check_restored(&before, &after, &r.unanswered, &r.held_at_crash);
        }
        self.gw_gen = self.venue_gen;
        self.gw.on_link_connected();
        self.restart_ended = Some(r.ended);
        self.flush(out);
        let d = self.rest_latency();
        self.sched.after(d, Ev::RestartReconciled(self.life));
    }

    /// The restart's reconciliation (`gateway::engine::reconcile::reconcile_after_restart`):
    /// the account's lists since the last journaled report less the margin, without the
    /// orders that ended before the crash; then the link is up and strategies are accepted.
    pub(super) fn restart_reconciled(&mut self) {
        let (now, utc) = (self.sched.now_ns(), self.utc_ns());
        if self.fault(Fault::RestError) {
            let d = self.rng.between(50 * MS, 500 * MS);
            self.sched.after(d, Ev::RestartReconciled(self.life));
            return;
        }
        let Some(ended) = self.restart_ended.take() else {
            return;
        };
        let mut out = self.outbox();
        if let Some(since) = ended.reconcile_since_ms() {
            let (orders, fills) = self.exchange.lists(since);
            let mut state = ExchangeState {
                account: 0,
                orders,
                fills,
                not_found: Vec::new(),
                source: StateSource::Restart,
            };
            ended.drop_from(&mut state);
            self.trace.event(
                now,
                "gateway: restart reconciled",
                format!("{state:?}").as_bytes(),
            );
            self.gw.on_exchange_state(&state, now, utc, &mut out);
        }
        if self.gw.link.connected && self.gw_gen == self.venue_gen {
            self.gw.on_link_up(now, &mut out);
        }
        self.accepting = true;
        self.flush(out);
    }

    /// Every order the crashed tracker held is held by the restored one, and no other; with
    /// the same status, quantities and ids when a report named it (`unanswered`: the orders
    /// no report named, of which the journal holds the ClOrdID only).
    fn check_restored(
        &mut self,
        before: &BTreeMap<(u64, u64), ExecutionReport>,
        after: &BTreeMap<(u64, u64), ExecutionReport>,
        unanswered: &BTreeSet<(u64, u64)>,
        held_at_crash: &BTreeSet<u64>,
    ) {
        let t = self.sched.now_ns();
        let key = |er: &ExecutionReport| {
            (
                er.ord_status,
                er.cum_qty.normalized(),
                er.leaves_qty.normalized(),
                er.order_id,
                er.cl_ord_id,
            )
        };
        for ((session, root), b) in before {
            // A session whose journal held records at the crash (a storage fault) is restored
            // as its journal last had it, behind the crashed tracker: the reconciliation and
            // the end-of-run checks judge it, not this comparison.
            if held_at_crash.contains(session) {
                continue;
            }
            match after.get(&(*session, *root)) {
                Some(a) if key(a) == key(b) => {}
                Some(a)
                    if unanswered.contains(&(*session, *root))
                        && a.ord_status == OrdStatus::PendingNew
                        && b.ord_status == OrdStatus::PendingNew => {}
                Some(a) => self.v.add(
                    t,
                    "restored tracker disagrees with the crashed one",
                    *session,
                    *root,
                    format!("crashed {:?} restored {:?}", key(b), key(a)),
                ),
                None => self.v.add(
                    t,
                    "restored tracker lost an open order",
                    *session,
                    *root,
                    format!("crashed {:?}", key(b)),
                ),
            }
        }
        for ((session, root), a) in after {
            // A ClOrdID journaled whose order was refused at entry while the journal failed
            // (storage fault, issue 37): the refusal was held and the crash lost it, so the
            // crashed tracker never held the order; the restored one holds it unanswered and
            // resolves it (never placed: Rejected NotApplied). Never placed, it is no order the
            // crashed tracker lost track of.
            let refused_unheard = unanswered.contains(&(*session, *root))
                && a.ord_status == OrdStatus::PendingNew
                && !self
                    .gw
                    .placed
                    .values()
                    .any(|&(i, r)| crate::gateway::session_id_of(i) == *session && r == *root);
            if !before.contains_key(&(*session, *root))
                && !refused_unheard
                && !held_at_crash.contains(session)
            {
                self.v.add(
                    t,
                    "restored tracker holds an order the crashed one did not",
                    *session,
                    *root,
                    format!("restored {:?}", key(a)),
                );
            }
        }
    }
}
