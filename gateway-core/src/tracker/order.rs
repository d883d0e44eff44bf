//! One order's state as the tracker knows it: ids, FIX status, and quantities built from fills.

use codec::sbe::{Category, OrdStatus, OrdType, Side, Symbol, TimeInForce};
use codec::{Decimal, Rounding};
use smallvec::SmallVec;

/// Fractional digits of AvgPx (`Σ execPrice × execQty ÷ CumQty`, half-even, then trailing zeros
/// dropped).
pub const AVG_PX_SCALE: u8 = 10;

/// Filled, Canceled or Rejected: a final OrdStatus (nothing is reported after it).
pub fn is_final(s: OrdStatus) -> bool {
    matches!(
        s,
        OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
    )
}

/// A modify the exchange acknowledged or may still acknowledge, not yet seen on the order
/// channel.
#[derive(Debug, Clone, Copy)]
pub struct PendingReplace {
    /// ClOrdID of the OrderCancelReplaceRequest.
    pub cl_ord_id: u64,
    /// Requested price (`None`: unchanged).
    pub price: Option<Decimal>,
    /// Requested quantity.
    pub qty: Decimal,
    /// The exchange accepted it (reply code 0): it was applied before anything that ends the
    /// order afterwards.
    pub accepted: bool,
}

/// A cancel sent and not yet answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingCancel {
    /// ClOrdID of the OrderCancelRequest.
    pub cl_ord_id: u64,
    /// The exchange accepted it (reply code 0): the Canceled push that follows is its answer,
    /// and nothing else will answer it if the order ends another way.
    pub accepted: bool,
}

/// Whether an order showing `price` and `qty` (an order push, or the exchange's order object)
/// shows a modify that asked for `asked_price` (`None`: unchanged) and `asked_qty`. The order
/// push and the resolution of an unknown modify both decide with it.
pub fn shows_modify(
    asked_price: Option<Decimal>,
    asked_qty: Decimal,
    price: Option<Decimal>,
    qty: Decimal,
) -> bool {
    (asked_price.is_none() || asked_price == price) && asked_qty == qty
}

/// Why an order ended, held back until the fills the exchange counted have all arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldTerminal {
    /// `cancelled` push seen; its `cancelReason` is kept as an index into [`CancelText`].
    Cancelled(CancelText),
}

/// A `cancelReason` copied out of a push (fixed capacity, no allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelText {
    buf: [u8; 40],
    len: u8,
}

impl CancelText {
    /// Copies up to 40 bytes of `s` (cut at a char boundary).
    pub fn new(s: &str) -> Self {
        let mut end = s.len().min(40);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let mut buf = [0u8; 40];
        buf[..end].copy_from_slice(&s.as_bytes()[..end]);
        CancelText {
            buf,
            len: end as u8,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or("")
    }
}

/// One order of one strategy session.
#[derive(Debug, Clone)]
pub struct Order {
    /// Owning session.
    pub session_id: u64,
    /// ClOrdID of the NewOrderSingle (the clientOid's second part).
    pub root: u64,
    /// Current ClOrdID (changes when a replace takes effect).
    pub cl_ord_id: u64,
    /// Exchange `orderId` (0 until the ACK or the first push).
    pub order_id: u64,
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: Symbol,
    /// Side.
    pub side: Side,
    /// Order type.
    pub ord_type: OrdType,
    /// Time in force.
    pub time_in_force: TimeInForce,
    /// Current limit price.
    pub price: Option<Decimal>,
    /// Current order quantity.
    pub qty: Decimal,
    /// FIX status as last reported to the strategy.
    pub status: OrdStatus,
    /// An ExecutionReport New was sent.
    pub acknowledged: bool,
    /// A push for this order was seen (for the "written → first order push" leg).
    pub pushed: bool,
    /// When the place-order was written (monotonic ns).
    pub t_written_ns: u64,
    /// Σ execQty over the fills counted.
    pub cum_qty: Decimal,
    /// Σ execPrice × execQty over the fills counted.
    pub cum_value: Decimal,
    /// The largest `cumExecQty` an order push reported.
    pub exchange_cum_qty: Decimal,
    /// `execId`s counted (fill de-duplication).
    pub exec_ids: SmallVec<[u64; 4]>,
    /// Modifies sent and not yet answered, oldest first (a strategy may send another before
    /// the first is answered; each gets exactly one answer).
    pub pending_replaces: SmallVec<[PendingReplace; 2]>,
    /// The cancels sent and not yet answered, oldest first (the Canceled report answers the
    /// oldest accepted one, else the oldest; each other one gets its own answer).
    pub pending_cancels: SmallVec<[PendingCancel; 2]>,
    /// A terminal state the exchange reported before all its fills arrived.
    pub held_terminal: Option<HeldTerminal>,
    /// The epoch of the clientOid its pushes carry (`session:epoch:root`; 0 for the two-part
    /// form), from its first push; `None` before. Tells a late push of an evicted order of the
    /// same (SessionID, root) from a later epoch's order (see `retention`).
    pub epoch: Option<u32>,
    /// Requests of this order written and not yet replied to (single ops and batch items
    /// awaiting their trade reply); an ended order is not evicted while any is due (see
    /// `retention`).
    pub replies_due: u16,
}

impl Order {
    /// The order's clientOid (`session:epoch:root`, the epoch its NewOrderSingle was placed in;
    /// `crate::ids`).
    pub fn client_oid(&self) -> crate::ids::ClientOid {
        crate::ids::ClientOid::in_epoch(self.session_id, self.epoch.unwrap_or(0), self.root)
    }

    /// Whether cancel `cl_ord_id` is sent and not yet answered.
    pub fn cancel_pending(&self, cl_ord_id: u64) -> bool {
        self.pending_cancels
            .iter()
            .any(|c| c.cl_ord_id == cl_ord_id)
    }

    /// Adds cancel `cl_ord_id` to the unanswered ones (once).
    pub fn add_cancel(&mut self, cl_ord_id: u64) {
        if !self.cancel_pending(cl_ord_id) {
            self.pending_cancels.push(PendingCancel {
                cl_ord_id,
                accepted: false,
            });
        }
    }

    /// Marks cancel `cl_ord_id` accepted by the exchange.
    pub fn accept_cancel(&mut self, cl_ord_id: u64) {
        for c in self.pending_cancels.iter_mut() {
            if c.cl_ord_id == cl_ord_id {
                c.accepted = true;
            }
        }
    }

    /// Removes cancel `cl_ord_id` from the unanswered ones; true when it was there.
    pub fn take_cancel(&mut self, cl_ord_id: u64) -> bool {
        let before = self.pending_cancels.len();
        self.pending_cancels.retain(|c| c.cl_ord_id != cl_ord_id);
        self.pending_cancels.len() != before
    }

    /// Takes the cancel a Canceled report answers: the oldest the exchange accepted (the one it
    /// applied), else the oldest unanswered (its outcome is then settled by the report).
    pub fn take_cancel_for_canceled(&mut self) -> Option<u64> {
        if self.pending_cancels.is_empty() {
            return None;
        }
        let ix = self
            .pending_cancels
            .iter()
            .position(|c| c.accepted)
            .unwrap_or(0);
        Some(self.pending_cancels.remove(ix).cl_ord_id)
    }

    /// Modify `cl_ord_id`, while sent and not yet answered.
    pub fn replace_pending(&self, cl_ord_id: u64) -> Option<PendingReplace> {
        self.pending_replaces
            .iter()
            .find(|p| p.cl_ord_id == cl_ord_id)
            .copied()
    }

    /// Marks modify `cl_ord_id` accepted by the exchange.
    pub fn accept_replace(&mut self, cl_ord_id: u64) {
        for p in self.pending_replaces.iter_mut() {
            if p.cl_ord_id == cl_ord_id {
                p.accepted = true;
            }
        }
    }

    /// Removes modify `cl_ord_id` from the unanswered ones; true when it was there.
    pub fn take_replace(&mut self, cl_ord_id: u64) -> bool {
        let before = self.pending_replaces.len();
        self.pending_replaces.retain(|p| p.cl_ord_id != cl_ord_id);
        self.pending_replaces.len() != before
    }

    /// LeavesQty: `qty − CumQty` while open (never negative), 0 once terminal.
    pub fn leaves_qty(&self) -> Decimal {
        if self.is_terminal() {
            return Decimal::ZERO;
        }
        match self.qty.checked_sub(self.cum_qty) {
            Some(l) if l.is_positive() => l,
            _ => Decimal::ZERO,
        }
    }

    /// AvgPx over the fills counted (`None` before any fill).
    pub fn avg_px(&self) -> Option<Decimal> {
        if self.cum_qty.is_zero() {
            return None;
        }
        self.cum_value
            .checked_div(self.cum_qty, AVG_PX_SCALE, Rounding::HalfEven)
            .map(Decimal::normalized)
    }

    /// Filled, canceled or rejected.
    pub fn is_terminal(&self) -> bool {
        is_final(self.status)
    }

    /// The open status that matches the fills counted.
    pub fn open_status(&self) -> OrdStatus {
        if self.cum_qty.is_zero() {
            OrdStatus::New
        } else if self.cum_qty >= self.qty {
            OrdStatus::Filled
        } else {
            OrdStatus::PartiallyFilled
        }
    }
}
