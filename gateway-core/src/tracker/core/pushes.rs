//! The tracker's answer to the exchange's pushes: an `order` push (or a REST state applied as
//! one) moves the order's status, a `fill` push adds an execution once per `execId`, and each
//! gives the ExecutionReports that follow (rules: the parent module's doc).

use super::*;

impl Tracker {
    /// One order update (from the `order` channel, or a REST state applied as one), then the
    /// mass cancels that awaited the order's end.
    pub(in crate::tracker) fn on_order_push(&mut self, t_read_ns: u64, push: &OrderPush<'_>) {
        self.apply_order_push(t_read_ns, push);
        self.note_end(push.client_oid, t_read_ns);
    }

    /// If order `client_oid` has ended, the mass cancels awaiting it learn it (their report goes
    /// right after its terminal report). One branch when no mass cancel awaits anything.
    fn note_end(&mut self, client_oid: &str, t_read_ns: u64) {
        if self.mass_cancels.awaited_orders() == 0 {
            return;
        }
        let Some(key) = ClientOid::parse(client_oid) else {
            return;
        };
        if self.orders.get(&key).is_some_and(Order::is_terminal) {
            self.mass_cancels
                .on_order_ended(key, t_read_ns, &mut self.reports.list);
        }
    }

    fn apply_order_push(&mut self, t_read_ns: u64, push: &OrderPush<'_>) {
        let Some(order) = find_order(
            &mut self.orders,
            &self.ended,
            &mut self.stats,
            push.client_oid,
        ) else {
            return;
        };
        let utc_ns = push.updated_time_ms.saturating_mul(1_000_000);
        note_push(order, &mut self.legs, t_read_ns, push.order_id);
        if order.is_terminal() {
            return;
        }
        if !order.acknowledged {
            Self::acknowledge(order, &mut self.reports, &mut self.stats, t_read_ns, utc_ns);
        }
        if push.cum_exec_qty > order.exchange_cum_qty {
            order.exchange_cum_qty = push.cum_exec_qty;
        }
        // The modify this push shows: the oldest whose price and quantity it carries, among
        // those that change something (the exchange refuses a modify to the values the order
        // has, 25571: such a modify is never shown).
        let (price, qty) = (order.price, order.qty);
        let shown = order.pending_replaces.iter().copied().find(|pr| {
            let changes = pr.price.is_some_and(|p| Some(p) != price) || pr.qty != qty;
            changes && shows_modify(pr.price, pr.qty, push.price, push.qty)
        });
        if let Some(pr) = shown {
            // A cancelled order showing the modify's values: applied before the cancel when the
            // exchange has accepted it (reported Replaced, then Canceled).
            if push.order_status != BgStatus::Cancelled || pr.accepted {
                order.take_replace(pr.cl_ord_id);
                let orig = order.cl_ord_id;
                order.cl_ord_id = pr.cl_ord_id;
                order.price = push.price.or(order.price);
                order.qty = push.qty;
                order.status = order.open_status();
                let mut er = exec_report(order, ExecType::Replaced, utc_ns);
                er.orig_cl_ord_id = orig;
                push_exec(&mut self.reports, &mut self.stats, order, er, t_read_ns);
            }
        }
        if push.order_status == BgStatus::Cancelled {
            order.held_terminal =
                Some(HeldTerminal::Cancelled(CancelText::new(push.cancel_reason)));
            Self::release_terminal(order, &mut self.reports, &mut self.stats, t_read_ns, utc_ns);
        }
    }

    /// Emits a held Canceled once the fills counted reach what the exchange reported.
    fn release_terminal(
        order: &mut Order,
        reports: &mut Reports,
        stats: &mut TrackerStats,
        t_read_ns: u64,
        utc_ns: u64,
    ) {
        let Some(HeldTerminal::Cancelled(reason)) = order.held_terminal else {
            return;
        };
        if order.cum_qty < order.exchange_cum_qty || order.is_terminal() {
            return;
        }
        order.held_terminal = None;
        order.status = OrdStatus::Canceled;
        let orig = order.cl_ord_id;
        let mut er = exec_report(order, ExecType::Canceled, utc_ns);
        if let Some(cancel_id) = order.take_cancel_for_canceled() {
            // The cancel the exchange accepted is the one it applied (else the oldest); another
            // gets its own answer (its reply, its resolution, or below once its reply came).
            er.cl_ord_id = cancel_id;
            er.orig_cl_ord_id = orig;
        }
        er.text = Text::new(reason.as_str());
        push_exec(reports, stats, order, er, t_read_ns);
        Self::answer_after_end(order, reports, stats, t_read_ns, utc_ns);
    }

    /// The order has just ended: each modify the exchange had accepted but no order update
    /// showed, and each cancel the exchange had accepted that the end did not answer, gets
    /// OrderCancelReject TooLateToCancel (their replies came: nothing else will answer them).
    /// Modifies and cancels not yet replied to are answered by their reply or resolution.
    fn answer_after_end(
        order: &mut Order,
        reports: &mut Reports,
        stats: &mut TrackerStats,
        t_read_ns: u64,
        utc_ns: u64,
    ) {
        while let Some(ix) = order.pending_replaces.iter().position(|p| p.accepted) {
            let pr = order.pending_replaces.remove(ix);
            push_cancel_reject(
                reports,
                stats,
                order,
                pr.cl_ord_id,
                CxlRejResponseTo::OrderCancelReplaceRequest,
                0,
                "order ended before the modification was shown",
                utc_ns,
                t_read_ns,
            );
        }
        while let Some(ix) = order.pending_cancels.iter().position(|c| c.accepted) {
            let pc = order.pending_cancels.remove(ix);
            push_cancel_reject(
                reports,
                stats,
                order,
                pc.cl_ord_id,
                CxlRejResponseTo::OrderCancelRequest,
                0,
                "order ended before the cancel was shown",
                utc_ns,
                t_read_ns,
            );
        }
    }

    /// One fill (from the `fill` channel, or a REST state applied as one), then the mass
    /// cancels that awaited the order's end.
    pub(in crate::tracker) fn on_fill(&mut self, t_read_ns: u64, fill: &FillPush<'_>) {
        self.apply_fill(t_read_ns, fill);
        self.note_end(fill.client_oid, t_read_ns);
    }

    fn apply_fill(&mut self, t_read_ns: u64, fill: &FillPush<'_>) {
        let Some(order) = find_order(
            &mut self.orders,
            &self.ended,
            &mut self.stats,
            fill.client_oid,
        ) else {
            return;
        };
        let exec_id: u64 = fill.exec_id.parse().unwrap_or(0);
        if exec_id != 0 && order.exec_ids.contains(&exec_id) {
            self.stats.duplicate_fills += 1;
            return;
        }
        if order.is_terminal() {
            // The exchange's terminal push already covered every fill it counted.
            self.stats.duplicate_fills += 1;
            return;
        }
        order.exec_ids.push(exec_id);
        let utc_ns = fill.exec_time_ms.saturating_mul(1_000_000);
        note_push(order, &mut self.legs, t_read_ns, fill.order_id);
        if !order.acknowledged {
            Self::acknowledge(order, &mut self.reports, &mut self.stats, t_read_ns, utc_ns);
        }
        let value = fill
            .exec_price
            .checked_mul(fill.exec_qty)
            .unwrap_or(fill.exec_value);
        order.cum_qty = order
            .cum_qty
            .checked_add(fill.exec_qty)
            .unwrap_or(order.cum_qty);
        order.cum_value = order
            .cum_value
            .checked_add(value)
            .unwrap_or(order.cum_value);
        order.status = order.open_status();
        let exec_type = if order.status == OrdStatus::Filled {
            ExecType::Fill
        } else {
            ExecType::PartialFill
        };
        let mut er = exec_report(order, exec_type, utc_ns);
        er.exec_id = exec_id;
        er.last_qty = Some(fill.exec_qty);
        er.last_px = Some(fill.exec_price);
        push_exec(&mut self.reports, &mut self.stats, order, er, t_read_ns);
        if order.status == OrdStatus::Filled {
            Self::answer_after_end(order, &mut self.reports, &mut self.stats, t_read_ns, utc_ns);
        }
        Self::release_terminal(order, &mut self.reports, &mut self.stats, t_read_ns, utc_ns);
    }
}

/// The order a push's clientOid names (its epoch noted); counts pushes for an evicted order
/// (late, recognised by its tombstone) and pushes that are not ours or not known.
fn find_order<'m>(
    orders: &'m mut KeyTable<Order>,
    ended: &Ended,
    stats: &mut TrackerStats,
    client_oid: &str,
) -> Option<&'m mut Order> {
    let Some((session_id, epoch, root)) = ClientOid::parse_epoch(client_oid) else {
        stats.unknown_pushes += 1;
        return None;
    };
    let key = (session_id, root);
    if ended.names_evicted(&key, epoch, orders.get(&key).map(|o| o.epoch)) {
        stats.late_for_evicted += 1;
        return None;
    }
    let Some(order) = orders.get_mut(&key) else {
        stats.unknown_pushes += 1;
        return None;
    };
    order.epoch.get_or_insert(epoch);
    Some(order)
}

/// First push of an order: the "written → first order push" leg, and its `orderId` if the ACK
/// has not given it yet.
fn note_push(order: &mut Order, legs: &mut LegHistograms, t_read_ns: u64, order_id: &str) {
    if !order.pushed {
        order.pushed = true;
        legs.record(Leg::FirstPush, t_read_ns.saturating_sub(order.t_written_ns));
    }
    if order.order_id == 0 {
        order.order_id = order_id.parse().unwrap_or(0);
    }
}
