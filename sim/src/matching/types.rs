//! Values shared by the matching engine and its callers: Bitget string enums, orders, fills,
//! events, rejects and the id generator.

use codec::Decimal;

/// Account identifier inside the simulator (index of the configured account; the liquidity
/// source uses [`AccountId::MARKET_MAKER`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccountId(pub u32);

impl AccountId {
    /// The simulator's own liquidity-source account (its pushes are discarded).
    pub const MARKET_MAKER: AccountId = AccountId(u32::MAX);
}

macro_rules! str_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $var),+ }
        impl $name {
            /// The Bitget wire spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s),+ }
            }
            /// Parses the exact Bitget wire spelling (case-sensitive); `None` otherwise.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some($name::$var),)+ _ => None }
            }
        }
    };
}

str_enum!(
    /// Order side (`buy` / `sell`).
    Side { /// Buy.
        Buy = "buy", /// Sell.
        Sell = "sell" }
);
str_enum!(
    /// Order type (`limit` / `market`).
    OrderType { /// Limit order.
        Limit = "limit", /// Market order.
        Market = "market" }
);
str_enum!(
    /// Time in force (`gtc`, `ioc`, `fok`, `post_only`).
    TimeInForce { /// Good till cancelled.
        Gtc = "gtc", /// Immediate or cancel.
        Ioc = "ioc", /// Fill or kill.
        Fok = "fok", /// Maker only.
        PostOnly = "post_only" }
);
str_enum!(
    /// Futures position side (`long` / `short`), `posSide` in requests, `holdSide` in pushes.
    PosSide { /// Long.
        Long = "long", /// Short.
        Short = "short" }
);
str_enum!(
    /// Self-trade prevention mode, decided by the taker.
    StpMode { /// No check.
        None = "none", /// Cancel the taker.
        CancelTaker = "cancel_taker", /// Cancel the maker (the simulator's default).
        CancelMaker = "cancel_maker", /// Cancel both.
        CancelBoth = "cancel_both" }
);
str_enum!(
    /// Order status on the `order` topic (double "l" in `cancelled`).
    OrderStatus { /// Resting in the book.
        Live = "live", /// Entered matching: pushed before the match pushes of an order that trades on entry.
        New = "new", /// Partly filled, still open (or about to be cancelled).
        PartiallyFilled = "partially_filled", /// Completely filled (terminal).
        Filled = "filled", /// Cancelled (terminal; see `cancelReason`).
        Cancelled = "cancelled" }
);
str_enum!(
    /// `cancelReason` values the simulator emits.
    CancelReason { /// User cancel.
        Normal = "normal_cancel", /// IOC / market remainder.
        IocNotFull = "ioc_not_full_cancel", /// FOK not fully fillable.
        FokNotFull = "fok_not_full_cancel", /// post_only that would take.
        PostOnlyFill = "post_only_fill_cancel", /// Self-trade prevention.
        Stp = "stp_cancel" }
);
str_enum!(
    /// Liquidity role of a fill (`taker` / `maker`).
    TradeScope { /// Took liquidity.
        Taker = "taker", /// Provided liquidity.
        Maker = "maker" }
);

impl Side {
    /// The other side.
    pub fn opposite(self) -> Side {
        match self {
            Side::Buy => Side::Sell,
            Side::Sell => Side::Buy,
        }
    }
}

impl OrderStatus {
    /// True for `filled` and `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(self, OrderStatus::Filled | OrderStatus::Cancelled)
    }
}

/// A business reject: Bitget error code and message (sent as `"code":"<code>"` strings in
/// trade replies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    /// Bitget error code (for example 25244).
    pub code: u32,
    /// Message text.
    pub msg: String,
}

impl Reject {
    /// A reject with `code` and `msg`.
    pub fn new(code: u32, msg: impl Into<String>) -> Reject {
        Reject {
            code,
            msg: msg.into(),
        }
    }
}

/// Generator of 19-digit, unique, increasing numeric ids (`orderId`, `execId`).
#[derive(Debug, Clone)]
pub struct IdGen {
    next: u64,
}

impl IdGen {
    /// Smallest 19-digit number.
    pub const MIN: u64 = 1_000_000_000_000_000_000;

    /// A generator whose first id is `start` (raised to 19 digits if smaller).
    pub fn new(start: u64) -> IdGen {
        IdGen {
            next: start.max(Self::MIN),
        }
    }

    /// A generator seeded from a wall-clock time in ms, so that ids of successive runs differ:
    /// `10^18 + start_ms × 10^6`.
    pub fn from_time_ms(start_ms: u64) -> IdGen {
        IdGen::new(Self::MIN.saturating_add(start_ms.saturating_mul(1_000_000)))
    }

    /// The next id.
    pub fn next_id(&mut self) -> u64 {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        id
    }
}

/// A validated order request handed to [`crate::matching::Book::place`].
#[derive(Debug, Clone)]
pub struct NewOrder {
    /// Owning account.
    pub owner: AccountId,
    /// Exchange order id (from the caller's [`IdGen`]).
    pub order_id: u64,
    /// Client order id (already validated and unique among the owner's pending orders).
    pub client_oid: String,
    /// Side.
    pub side: Side,
    /// Limit or market.
    pub order_type: OrderType,
    /// Limit price (required for limit orders, ignored for market orders).
    pub price: Option<Decimal>,
    /// Quantity in base coin.
    pub qty: Decimal,
    /// Time in force (market orders behave as IOC whatever this says).
    pub tif: TimeInForce,
    /// Hedge-mode position side (futures), if given.
    pub pos_side: Option<PosSide>,
    /// Reduce-only flag.
    pub reduce_only: bool,
    /// Self-trade prevention mode.
    pub stp_mode: StpMode,
}

/// An order as the engine keeps it (prices and quantities in integer units of the book).
#[derive(Debug, Clone)]
pub struct Order {
    /// Owning account.
    pub owner: AccountId,
    /// Exchange order id.
    pub order_id: u64,
    /// Client order id.
    pub client_oid: String,
    /// Side.
    pub side: Side,
    /// Limit or market.
    pub order_type: OrderType,
    /// Time in force as requested (shown in pushes).
    pub tif: TimeInForce,
    /// Limit price in price units (`None` for market orders).
    pub price: Option<i64>,
    /// Order quantity in quantity units.
    pub qty: i64,
    /// Filled quantity in quantity units.
    pub cum_qty: i64,
    /// Filled value in units of `10^(price_exp + qty_exp)`.
    pub cum_value: i128,
    /// Accumulated fee (quote coin).
    pub cum_fee: Decimal,
    /// Quote-coin amount of a spot market buy (its `qty` on the wire); `None` otherwise.
    pub amount: Option<Decimal>,
    /// Hedge-mode position side, if given.
    pub pos_side: Option<PosSide>,
    /// Reduce-only flag.
    pub reduce_only: bool,
    /// Self-trade prevention mode.
    pub stp_mode: StpMode,
    /// Current status.
    pub status: OrderStatus,
    /// Why the order was cancelled (only with [`OrderStatus::Cancelled`]).
    pub cancel_reason: Option<CancelReason>,
    /// Creation time, ms.
    pub created_ms: u64,
    /// Last change, ms.
    pub updated_ms: u64,
}

impl Order {
    /// Quantity still open, in quantity units.
    pub fn leaves(&self) -> i64 {
        self.qty - self.cum_qty
    }
}

/// One execution of one order (each match produces one for the taker and one for the maker).
#[derive(Debug, Clone)]
pub struct Fill {
    /// Account of the order.
    pub owner: AccountId,
    /// Order id.
    pub order_id: u64,
    /// Client order id.
    pub client_oid: String,
    /// Unique execution id (19 digits).
    pub exec_id: u64,
    /// Shared by the taker's and the maker's side of the same match (`execLinkId`).
    pub exec_link_id: u64,
    /// Order side.
    pub side: Side,
    /// Order type.
    pub order_type: OrderType,
    /// Position side of the order (futures).
    pub pos_side: Option<PosSide>,
    /// Reduce-only flag of the order.
    pub reduce_only: bool,
    /// Execution price (the maker's price).
    pub price: Decimal,
    /// Executed quantity.
    pub qty: Decimal,
    /// `price × qty`.
    pub value: Decimal,
    /// Taker or maker.
    pub scope: TradeScope,
    /// Fee in quote coin (`value × rate`, positive = paid).
    pub fee: Decimal,
    /// Execution time, ms.
    pub time_ms: u64,
}

/// What the engine reports; the caller routes each event to the owner's connections.
#[derive(Debug, Clone)]
pub enum Event {
    /// An order changed state; the snapshot is the state after the change.
    Order(Order),
    /// An execution.
    Fill(Fill),
}
