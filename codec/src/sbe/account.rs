//! Position moves, operator/account requests and account updates (templates 115–124):
//! MovePositions / MovePositionsReport (at most 10 positions), SetLeverage, SetHoldMode,
//! MaxOpenAvailableRequest, AccountSettingsRequest and their AccountRequestReport,
//! PositionReport, AccountBalanceReport and RateBudgetReport (one entry per token bucket).
//!
//! Entries per frame of the default 4096-byte maximum: MovePositions and MovePositionsReport 10
//! (the schema's maximum; 4096 bytes would hold more), RateBudgetReport 119 (see each message's
//! `MAX_ENTRIES_PER_FRAME`).

use crate::decimal::Decimal;
use crate::sbe::types::{
    AccountRequestType, Category, HoldMode, ItemStatus, MovePositionsRejectReason, OrdType,
    PosSide, Side, Symbol, Text,
};

sbe_group_entry! {
    /// One position to move. Entry block length 26.
    pub struct MovePositionsEntry (decoder MovePositionsEntryDecoder, fields MOVE_POSITIONS_ENTRY_FIELDS) {
        /// Symbol (FIX 55).
        symbol: Symbol = "Symbol" @ 0,
        /// Side (FIX 54) of the position (Bitget `side`).
        side: Side = "Side" @ 16,
        /// Quantity (FIX 53) to move, base units.
        quantity: Decimal = "Quantity" @ 17,
    }
}

sbe_group_entry! {
    /// The close (source) and open (target) result of one moved position. Entry block length 106.
    pub struct MovePositionsReportEntry (decoder MovePositionsReportEntryDecoder, fields MOVE_POSITIONS_REPORT_ENTRY_FIELDS) {
        /// Symbol (FIX 55).
        symbol: Symbol = "Symbol" @ 0,
        /// Side (FIX 54).
        side: Side = "Side" @ 16,
        /// Bitget `orderId` of the close on FromUID; 0 = none.
        close_order_id: u64 = "CloseOrderID" @ 17,
        /// Bitget code of the close; 0 = success.
        close_exchange_code: u32 = "CloseExchangeCode" @ 25,
        /// Bitget `orderId` of the open on ToUID; 0 = none.
        open_order_id: u64 = "OpenOrderID" @ 29,
        /// Bitget code of the open; 0 = success.
        open_exchange_code: u32 = "OpenExchangeCode" @ 37,
        /// Accepted or rejected.
        item_status: ItemStatus = "ItemStatus" @ 41,
        /// Text (FIX 58): exchange message of a failed close or open.
        text: Text = "Text" @ 42,
    }
}

sbe_group_entry! {
    /// One token bucket of the rate budget. Entry block length 34.
    pub struct RateBudgetEntry (decoder RateBudgetEntryDecoder, fields RATE_BUDGET_ENTRY_FIELDS) {
        /// Bucket name (ASCII, at most 16 bytes), e.g. `place-order`.
        bucket_name: Symbol = "BucketName" @ 0,
        /// Gateway id of the endpoint or connection the bucket limits.
        endpoint_id: u16 = "EndpointID" @ 16,
        /// Tokens per window.
        limit: u32 = "Limit" @ 18,
        /// Tokens left in the current window.
        remaining: u32 = "Remaining" @ 22,
        /// When the bucket is full again, UTC ns.
        reset_time: u64 = "ResetTime" @ 26,
    }
}

sbe_group_message! {
    /// MovePositions (template 115): move up to 10 positions from one UID to another (Bitget move-positions; master account).
    pub struct MovePositions (template 115, decoder MovePositionsDecoder, fields MOVE_POSITIONS_FIELDS) {
        /// The strategy's id of the move, unique per session.
        move_positions_id: u64 = "MovePositionsID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Source UID.
        from_uid: u64 = "FromUID" @ 16,
        /// Target UID.
        to_uid: u64 = "ToUID" @ 24,
        /// Product category (USDT or USDC futures).
        category: Category = "Category" @ 32,
    }
    /// The positions (at most 10).
    group positions: MovePositionsEntry = "Positions" id 5070 max 10;
}

sbe_group_message! {
    /// MovePositionsReport (template 116): the answer to MovePositions, with the close/open result per position.
    pub struct MovePositionsReport (template 116, decoder MovePositionsReportDecoder, fields MOVE_POSITIONS_REPORT_FIELDS) {
        /// The strategy's id of the move, unique per session.
        move_positions_id: u64 = "MovePositionsID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Bitget numeric code; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 16,
        /// Accepted or Rejected.
        request_status: ItemStatus = "RequestStatus" @ 20,
        /// The rule broken or the exchange's refusal; `None` unless rejected.
        move_reject_reason: Option<MovePositionsRejectReason> = "MoveRejectReason" @ 21,
        /// Text (FIX 58): reason.
        text: Text = "Text" @ 22,
    }
    /// Per-position results (empty when refused before sending).
    group results: MovePositionsReportEntry = "Results" id 5071 max 10;
}

sbe_message! {
    /// SetLeverage (template 117): set the leverage of a symbol (futures) or a coin (margin); operator request.
    pub struct SetLeverage (template 117, decoder SetLeverageDecoder, fields SET_LEVERAGE_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Symbol (FIX 55) for futures; empty for margin.
        symbol: Symbol = "Symbol" @ 16,
        /// Coin for margin; empty for futures.
        coin: Symbol = "Coin" @ 32,
        /// New leverage.
        leverage: Decimal = "Leverage" @ 48,
        /// Product category.
        category: Category = "Category" @ 57,
        /// Position side in hedge mode (`None` = both).
        pos_side: PosSide = "PosSide" @ 58,
    }
}

sbe_message! {
    /// SetHoldMode (template 118): one-way or hedge mode (no positions or orders allowed); operator request.
    pub struct SetHoldMode (template 118, decoder SetHoldModeDecoder, fields SET_HOLD_MODE_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// The new position mode.
        hold_mode: HoldMode = "HoldMode" @ 16,
    }
}

sbe_message! {
    /// MaxOpenAvailableRequest (template 119): the largest order that can be opened (Bitget max-open-available).
    pub struct MaxOpenAvailableRequest (template 119, decoder MaxOpenAvailableRequestDecoder, fields MAX_OPEN_AVAILABLE_REQUEST_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Price (FIX 44); `None` for market.
        price: Option<Decimal> = "Price" @ 16,
        /// OrderQty (FIX 38); `None` when unknown.
        order_qty: Option<Decimal> = "OrderQty" @ 25,
        /// Symbol (FIX 55).
        symbol: Symbol = "Symbol" @ 34,
        /// Product category.
        category: Category = "Category" @ 50,
        /// Side (FIX 54).
        side: Side = "Side" @ 51,
        /// OrdType (FIX 40).
        ord_type: OrdType = "OrdType" @ 52,
    }
}

sbe_message! {
    /// AccountSettingsRequest (template 120): the account settings (hold mode, leverage of a symbol).
    pub struct AccountSettingsRequest (template 120, decoder AccountSettingsRequestDecoder, fields ACCOUNT_SETTINGS_REQUEST_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Symbol (FIX 55) whose leverage is wanted; empty = none.
        symbol: Symbol = "Symbol" @ 16,
        /// Category of the symbol; `None` with an empty symbol.
        category: Option<Category> = "Category" @ 32,
    }
}

sbe_message! {
    /// AccountRequestReport (template 121): the answer to SetLeverage, SetHoldMode, MaxOpenAvailableRequest or AccountSettingsRequest.
    pub struct AccountRequestReport (template 121, decoder AccountRequestReportDecoder, fields ACCOUNT_REQUEST_REPORT_FIELDS) {
        /// The strategy's id of this request, unique per session.
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Bitget numeric code; 0 = none.
        exchange_code: u32 = "ExchangeCode" @ 16,
        /// The request answered.
        account_request_type: AccountRequestType = "AccountRequestType" @ 20,
        /// Accepted or Rejected.
        request_status: ItemStatus = "RequestStatus" @ 21,
        /// Hold mode (settings, set-hold-mode); `None` otherwise.
        hold_mode: Option<HoldMode> = "HoldMode" @ 22,
        /// Leverage (settings, set-leverage); `None` otherwise.
        leverage: Option<Decimal> = "Leverage" @ 23,
        /// Max-open-available: `available`; `None` otherwise.
        available: Option<Decimal> = "Available" @ 32,
        /// Max-open-available: `maxBuyOpen`; `None` otherwise.
        max_buy_open: Option<Decimal> = "MaxBuyOpen" @ 41,
        /// Max-open-available: `maxSellOpen`; `None` otherwise.
        max_sell_open: Option<Decimal> = "MaxSellOpen" @ 50,
        /// Symbol (FIX 55) of the request; empty if none.
        symbol: Symbol = "Symbol" @ 59,
        /// Category of the request; `None` if none.
        category: Option<Category> = "Category" @ 75,
        /// Text (FIX 58): reason or exchange message.
        text: Text = "Text" @ 76,
    }
}

sbe_message! {
    /// PositionReport (template 122, FIX 35=AP): a position of the account (position channel update).
    pub struct PositionReport (template 122, decoder PositionReportDecoder, fields POSITION_REPORT_FIELDS) {
        /// PosReqID (FIX 710): the request answered; 0 = unsolicited update.
        pos_req_id: u64 = "PosReqID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
        /// Symbol (FIX 55).
        symbol: Symbol = "Symbol" @ 16,
        /// Product category.
        category: Category = "Category" @ 32,
        /// Position side (`None` in one-way mode).
        pos_side: PosSide = "PosSide" @ 33,
        /// Hold mode; `None` when unknown.
        hold_mode: Option<HoldMode> = "HoldMode" @ 34,
        /// Size (Bitget `size`), base units; 0 = closed.
        position_size: Decimal = "PositionSize" @ 35,
        /// AvgPx (FIX 6): average entry price; `None` when flat.
        avg_px: Option<Decimal> = "AvgPx" @ 44,
        /// Unrealised PnL.
        unrealised_pnl: Option<Decimal> = "UnrealisedPnL" @ 53,
        /// Current realised PnL (Bitget `curRealisedPnl`).
        realised_pnl: Option<Decimal> = "RealisedPnL" @ 62,
        /// Leverage.
        leverage: Option<Decimal> = "Leverage" @ 71,
        /// Mark price.
        mark_price: Option<Decimal> = "MarkPrice" @ 80,
        /// Liquidation price.
        liquidation_price: Option<Decimal> = "LiquidationPrice" @ 89,
    }
}

sbe_message! {
    /// AccountBalanceReport (template 123): the balance of one coin of the account (account channel update).
    pub struct AccountBalanceReport (template 123, decoder AccountBalanceReportDecoder, fields ACCOUNT_BALANCE_REPORT_FIELDS) {
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 0,
        /// Coin, e.g. `USDT`.
        coin: Symbol = "Coin" @ 8,
        /// Equity.
        equity: Decimal = "Equity" @ 24,
        /// Balance.
        balance: Decimal = "Balance" @ 33,
        /// Available.
        available: Decimal = "Available" @ 42,
        /// Locked (frozen).
        locked: Decimal = "Locked" @ 51,
        /// Unrealised PnL of the coin; `None` when not given.
        unrealised_pnl: Option<Decimal> = "UnrealisedPnL" @ 60,
    }
}

sbe_group_message! {
    /// RateBudgetReport (template 124): the current rate budget of the session's account, per bucket.
    pub struct RateBudgetReport (template 124, decoder RateBudgetReportDecoder, fields RATE_BUDGET_REPORT_FIELDS) {
        /// The RateBudgetRequest answered; 0 = sent unasked (a request refused or queued for want of tokens).
        request_id: u64 = "RequestID" @ 0,
        /// TransactTime (FIX 60): UTC ns.
        transact_time: u64 = "TransactTime" @ 8,
    }
    /// The buckets.
    group buckets: RateBudgetEntry = "Buckets" id 5072 max u16::MAX;
}
