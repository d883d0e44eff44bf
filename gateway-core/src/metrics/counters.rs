//! Counts of what the gateway answered its strategies: ExecutionReports by ExecType, orders by
//! final OrdStatus, and rejects by reason (ExecutionReport OrdRejReason, OrderCancelReject
//! CxlRejReason, BusinessMessageReject BusinessRejectReason).
//!
//! Bumped by the threads that write the messages (the io thread's order entry and the tracker
//! thread), read by the metrics endpoint. Every count is one `AtomicU64` indexed by the SBE wire
//! value of the enum (`u8`), bumped with `Relaxed` ordering: no lock, no allocation, a few
//! nanoseconds on the thread that writes the message. Counts only ever grow (Prometheus
//! counters).

use std::sync::atomic::{AtomicU64, Ordering};

use codec::sbe::{
    BusinessRejectReason, CxlRejReason, ExecType, ExecutionReport, OrdRejReason, OrdStatus,
    OrderCancelReject,
};

/// One counter per possible `u8` wire value of an SBE enum (256 × 8 bytes).
struct ByWire([AtomicU64; 256]);

impl ByWire {
    fn new() -> ByWire {
        ByWire(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    #[inline]
    fn bump(&self, wire: u8) {
        self.0[usize::from(wire)].fetch_add(1, Ordering::Relaxed);
    }

    fn get(&self, wire: u8) -> u64 {
        self.0[usize::from(wire)].load(Ordering::Relaxed)
    }
}

impl std::fmt::Debug for ByWire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nonzero: Vec<(usize, u64)> = self
            .0
            .iter()
            .enumerate()
            .map(|(i, c)| (i, c.load(Ordering::Relaxed)))
            .filter(|(_, n)| *n > 0)
            .collect();
        f.debug_map().entries(nonzero).finish()
    }
}

/// Wire value under which an ExecutionReport rejected without an OrdRejReason is counted (the
/// SBE null value of OrdRejReason, never a reason's value).
pub const NO_REASON: u8 = OrdRejReason::NULL_VALUE;

/// Whether `status` is an order's final state (nothing more happens to the order after a
/// report with it): Filled, Canceled or Rejected.
pub const fn is_final(status: OrdStatus) -> bool {
    matches!(
        status,
        OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
    )
}

/// Whether an ExecutionReport closes its order: its OrdStatus is final ([`is_final`]) and it
/// reports a change (not an OrderStatus answer to a mass status request, which repeats a
/// state already reported).
pub const fn closes_order(exec_type: ExecType, ord_status: OrdStatus) -> bool {
    !matches!(exec_type, ExecType::OrderStatus) && is_final(ord_status)
}

/// The strategy-facing message counts (see the module doc). Shared between threads behind an
/// `Arc`.
#[derive(Debug)]
pub struct ReportCounters {
    exec_type: ByWire,
    final_status: ByWire,
    ord_rej: ByWire,
    cxl_rej: ByWire,
    business_rej: ByWire,
}

impl Default for ReportCounters {
    fn default() -> Self {
        ReportCounters::new()
    }
}

impl ReportCounters {
    /// All counts zero (allocates about 10 KiB once).
    pub fn new() -> ReportCounters {
        ReportCounters {
            exec_type: ByWire::new(),
            final_status: ByWire::new(),
            ord_rej: ByWire::new(),
            cxl_rej: ByWire::new(),
            business_rej: ByWire::new(),
        }
    }

    /// Counts an ExecutionReport written to its session: by ExecType; by final OrdStatus when it
    /// closes its order ([`closes_order`]); by OrdRejReason ([`NO_REASON`] when absent) when its
    /// ExecType is Rejected.
    #[inline]
    pub fn on_execution_report(&self, er: &ExecutionReport) {
        self.exec_type.bump(er.exec_type.to_wire());
        if closes_order(er.exec_type, er.ord_status) {
            self.final_status.bump(er.ord_status.to_wire());
        }
        if er.exec_type == ExecType::Rejected {
            self.ord_rej
                .bump(er.ord_rej_reason.map_or(NO_REASON, OrdRejReason::to_wire));
        }
    }

    /// Counts an OrderCancelReject written to its session, by CxlRejReason.
    #[inline]
    pub fn on_cancel_reject(&self, r: &OrderCancelReject) {
        self.cxl_rej.bump(r.cxl_rej_reason.to_wire());
    }

    /// Counts a BusinessMessageReject written to its session, by BusinessRejectReason.
    #[inline]
    pub fn on_business_reject(&self, reason: BusinessRejectReason) {
        self.business_rej.bump(reason.to_wire());
    }

    /// ExecutionReports written with `exec_type`.
    pub fn execution_reports(&self, exec_type: ExecType) -> u64 {
        self.exec_type.get(exec_type.to_wire())
    }

    /// Orders closed with final status `status` (0 for a status that is not final).
    pub fn orders_closed(&self, status: OrdStatus) -> u64 {
        self.final_status.get(status.to_wire())
    }

    /// Rejected ExecutionReports with `reason` (`None`: without a reason).
    pub fn order_rejects(&self, reason: Option<OrdRejReason>) -> u64 {
        self.ord_rej
            .get(reason.map_or(NO_REASON, OrdRejReason::to_wire))
    }

    /// OrderCancelRejects with `reason`.
    pub fn cancel_rejects(&self, reason: CxlRejReason) -> u64 {
        self.cxl_rej.get(reason.to_wire())
    }

    /// BusinessMessageRejects with `reason`.
    pub fn business_rejects(&self, reason: BusinessRejectReason) -> u64 {
        self.business_rej.get(reason.to_wire())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::sbe::{Category, OrdType, Side, Symbol, Text, TimeInForce};

    fn er(
        exec_type: ExecType,
        ord_status: OrdStatus,
        rej: Option<OrdRejReason>,
    ) -> ExecutionReport {
        ExecutionReport {
            cl_ord_id: 1,
            orig_cl_ord_id: 0,
            order_id: 0,
            exec_id: 0,
            transact_time: 0,
            price: None,
            order_qty: codec::Decimal::ZERO,
            last_qty: None,
            last_px: None,
            cum_qty: codec::Decimal::ZERO,
            leaves_qty: codec::Decimal::ZERO,
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap_or_default(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status,
            ord_rej_reason: rej,
            text: Text::new(""),
        }
    }

    #[test]
    fn counts_by_exec_type_final_state_and_reason() {
        let c = ReportCounters::new();
        c.on_execution_report(&er(ExecType::New, OrdStatus::New, None));
        c.on_execution_report(&er(ExecType::Fill, OrdStatus::Filled, None));
        c.on_execution_report(&er(ExecType::Canceled, OrdStatus::Canceled, None));
        c.on_execution_report(&er(
            ExecType::Rejected,
            OrdStatus::Rejected,
            Some(OrdRejReason::RiskLimit),
        ));
        c.on_execution_report(&er(ExecType::Rejected, OrdStatus::Rejected, None));
        // A mass status answer repeats a state: not a second close.
        c.on_execution_report(&er(ExecType::OrderStatus, OrdStatus::Filled, None));
        assert_eq!(c.execution_reports(ExecType::New), 1);
        assert_eq!(c.execution_reports(ExecType::Rejected), 2);
        assert_eq!(c.execution_reports(ExecType::OrderStatus), 1);
        assert_eq!(c.orders_closed(OrdStatus::Filled), 1);
        assert_eq!(c.orders_closed(OrdStatus::Canceled), 1);
        assert_eq!(c.orders_closed(OrdStatus::Rejected), 2);
        assert_eq!(c.orders_closed(OrdStatus::New), 0);
        assert_eq!(c.order_rejects(Some(OrdRejReason::RiskLimit)), 1);
        assert_eq!(c.order_rejects(None), 1);
        c.on_business_reject(BusinessRejectReason::InvalidField);
        assert_eq!(c.business_rejects(BusinessRejectReason::InvalidField), 1);
        assert!(OrdRejReason::from_wire(NO_REASON).is_none());
    }
}
