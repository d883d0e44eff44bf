//! The run's end: a liveness failure (what is still unanswered or open once the bound has
//! passed) and the end-of-run invariants (every order against the venue's record).

use codec::sbe::OrdStatus;
use gateway_core::ids::ClientOid;

use super::World;

impl World {
    pub(super) fn liveness_failed(&mut self, t: u64) {
        for s in &self.strategies {
            for (root, sent_ns, what) in s.unanswered() {
                self.v.add(
                    t,
                    "liveness: unanswered",
                    s.session_id,
                    root,
                    format!("{what} sent at {:.3} ms", sent_ns as f64 / 1e6),
                );
            }
            for (root, o) in &s.orders {
                if !o.terminal() && o.answered {
                    self.v.add(
                        t,
                        "liveness: order not closed",
                        s.session_id,
                        *root,
                        format!("{:?} cum {}", o.status, o.cum_qty),
                    );
                }
            }
        }
        if self.v.is_empty() {
            self.v.add(
                t,
                "liveness: no quiet",
                0,
                0,
                format!(
                    "link up {}, unresolved {}",
                    self.gw.link.up,
                    self.gw.tracker().unresolved()
                ),
            );
        }
    }

    /// The end-of-run invariants: every order as its strategy saw it against the venue's
    /// record; no clientOid sent twice; risk reservations back to zero.
    pub(super) fn finish(&mut self) {
        let t = self.sched.now_ns();
        for oid in &self.gw.repeated_client_oids {
            self.v
                .add(t, "clientOid sent twice", 0, 0, format!("clientOid {oid}"));
        }
        for &(session_id, root) in &self.gw.placed_while_failing {
            self.v.add(
                t,
                "an order placed while its session's journal was failing",
                session_id,
                root,
                String::new(),
            );
        }
        for s in &self.strategies {
            if let Some((missing, held)) = s.gap_left() {
                self.v.add(
                    t,
                    "reports lost: sequence gap never filled",
                    s.session_id,
                    0,
                    format!("{missing} missing, {held} held"),
                );
            }
            for (root, o) in &s.orders {
                let oid = ClientOid::in_epoch(s.session_id, o.epoch, *root);
                match self.exchange.order_info(oid.as_str()) {
                    Some(x) => {
                        if x.cum_qty != o.cum_qty || x.cum_qty != o.filled {
                            self.v.add(
                                t,
                                "CumQty differs from the venue's cumExecQty",
                                s.session_id,
                                *root,
                                format!(
                                    "venue {} strategy CumQty {} Σ LastQty {}",
                                    x.cum_qty, o.cum_qty, o.filled
                                ),
                            );
                        }
                        if self.done && x.status != o.status {
                            self.v.add(
                                t,
                                "OrdStatus differs from the venue's",
                                s.session_id,
                                *root,
                                format!("venue {:?} strategy {:?}", x.status, o.status),
                            );
                        }
                    }
                    None if o.answered && o.status != OrdStatus::Rejected => self.v.add(
                        t,
                        "order the venue does not have",
                        s.session_id,
                        *root,
                        format!("strategy {:?} cum {}", o.status, o.cum_qty),
                    ),
                    None => {}
                }
            }
            if self.done {
                let open = self.gw.risk().session_open_orders(s.session_id);
                if open != 0 {
                    self.v.add(
                        t,
                        "risk reservations left",
                        s.session_id,
                        0,
                        format!("{open} open orders counted with none open"),
                    );
                }
            }
        }
    }
}
