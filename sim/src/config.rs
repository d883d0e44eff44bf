//! Simulator configuration ([`SimConfig`], TOML; see `config/sim.example.toml`).

use std::net::SocketAddr;

use codec::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::SimError;

/// Bitget product line (`category`). WebSocket requests and pushes spell it lowercase
/// (`usdt-futures`), REST uppercase (`USDT-FUTURES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// `spot` / `SPOT`.
    Spot,
    /// `margin` / `MARGIN`.
    Margin,
    /// `usdt-futures` / `USDT-FUTURES`.
    UsdtFutures,
    /// `coin-futures` / `COIN-FUTURES`.
    CoinFutures,
    /// `usdc-futures` / `USDC-FUTURES`.
    UsdcFutures,
}

impl Category {
    /// All categories.
    pub const ALL: [Category; 5] = [
        Category::Spot,
        Category::Margin,
        Category::UsdtFutures,
        Category::CoinFutures,
        Category::UsdcFutures,
    ];

    /// Lowercase WebSocket spelling.
    pub fn ws_str(self) -> &'static str {
        match self {
            Category::Spot => "spot",
            Category::Margin => "margin",
            Category::UsdtFutures => "usdt-futures",
            Category::CoinFutures => "coin-futures",
            Category::UsdcFutures => "usdc-futures",
        }
    }

    /// Uppercase REST spelling.
    pub fn rest_str(self) -> &'static str {
        match self {
            Category::Spot => "SPOT",
            Category::Margin => "MARGIN",
            Category::UsdtFutures => "USDT-FUTURES",
            Category::CoinFutures => "COIN-FUTURES",
            Category::UsdcFutures => "USDC-FUTURES",
        }
    }

    /// Exactly the lowercase WebSocket spelling (WS trade ops reject other cases with `41101`).
    pub fn parse_ws(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.ws_str() == s)
    }

    /// Either spelling, case-insensitive (config files and REST queries).
    pub fn parse_any(s: &str) -> Option<Category> {
        Category::ALL
            .into_iter()
            .find(|c| c.ws_str().eq_ignore_ascii_case(s))
    }

    /// True for the futures lines (pushes carry `holdSide`/`tradeSide`/margin fields).
    pub fn is_futures(self) -> bool {
        matches!(
            self,
            Category::UsdtFutures | Category::CoinFutures | Category::UsdcFutures
        )
    }
}

impl Serialize for Category {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.rest_str())
    }
}

impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Category::parse_any(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown category {s:?}")))
    }
}

/// Serde helpers: decimals as strings (`"0.1"`), also accepted as TOML integers.
mod dec {
    use codec::Decimal;
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        S(String),
        I(i64),
    }

    pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        match Raw::deserialize(d)? {
            Raw::S(s) => s
                .parse()
                .map_err(|e| serde::de::Error::custom(format!("bad decimal {s:?}: {e}"))),
            Raw::I(i) => Ok(Decimal::from(i)),
        }
    }
}

/// One tradable instrument (the subset of the Bitget instruments object the simulator uses;
/// served back by `GET /api/v3/market/instruments` with every value as a string).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstrumentConfig {
    /// Symbol, e.g. `BTCUSDT`.
    pub symbol: String,
    /// Product line (`USDT-FUTURES`, `SPOT`, either case).
    pub category: Category,
    /// Base coin, e.g. `BTC`.
    pub base_coin: String,
    /// Quote coin, e.g. `USDT` (also the fee coin).
    pub quote_coin: String,
    /// Tick size (`priceMultiplier`), decimal string.
    #[serde(with = "dec")]
    pub price_multiplier: Decimal,
    /// Lot size (`quantityMultiplier`), decimal string.
    #[serde(with = "dec")]
    pub quantity_multiplier: Decimal,
    /// Minimum order quantity in base coin (`minOrderQty`).
    #[serde(with = "dec")]
    pub min_order_qty: Decimal,
    /// Maximum order quantity (`maxOrderQty`, `"0"` = unlimited).
    #[serde(with = "dec")]
    pub max_order_qty: Decimal,
    /// Minimum notional in quote coin (`minOrderAmount`).
    #[serde(with = "dec")]
    pub min_order_amount: Decimal,
    /// Maker fee rate (`makerFeeRate`), e.g. `"0.0002"`.
    #[serde(with = "dec")]
    pub maker_fee_rate: Decimal,
    /// Taker fee rate (`takerFeeRate`), e.g. `"0.0006"`.
    #[serde(with = "dec")]
    pub taker_fee_rate: Decimal,
    /// Maintenance margin rate of a position (futures; default `0.004`): maintenance margin =
    /// size × mark × rate.
    #[serde(with = "dec", default = "default_mm_rate")]
    pub maintenance_margin_rate: Decimal,
    /// `buyLimitPriceRatio`: a limit buy (place or modify) priced above
    /// mark × (1 + ratio) is refused `25206` (reference §6.2 "price above {1}% band"). A ratio
    /// (`"0.05"` = 5 %), default `0.05` (the live futures capture, reference §7 and
    /// `rest_instruments_usdt_futures.json`; the spot example shows `0.02`); `"0"` = no band
    /// (served as `""`, Bitget's "not set").
    #[serde(with = "dec", default = "default_price_ratio")]
    pub buy_limit_price_ratio: Decimal,
    /// `sellLimitPriceRatio`: a limit sell priced below mark × (1 − ratio) is refused `25205`
    /// ("price below {1}% band"). Same unit, default and `"0"` as `buy_limit_price_ratio`.
    #[serde(with = "dec", default = "default_price_ratio")]
    pub sell_limit_price_ratio: Decimal,
    /// `maxSymbolOrderNum`: open orders one account may have in this symbol; one more is
    /// refused `25211`. Default 200 (live capture, reference §7); 0 = no cap (served as `""`).
    #[serde(default = "default_max_symbol_orders")]
    pub max_symbol_order_num: u32,
    /// `maxProductOrderNum`: open orders one account may have across the instrument's product
    /// line (every futures symbol of the category; spot and margin together, reference §7
    /// "400 across all futures symbols, 400 across spot+margin"); one more is refused `25211`.
    /// Default 400 (the documented examples and the fixture); 0 = no cap (served as `""`).
    #[serde(default = "default_max_product_orders")]
    pub max_product_order_num: u32,
}

fn default_mm_rate() -> Decimal {
    d("0.004")
}

fn default_price_ratio() -> Decimal {
    d("0.05")
}

fn default_max_symbol_orders() -> u32 {
    200
}

fn default_max_product_orders() -> u32 {
    400
}

fn default_max_modifications() -> u32 {
    100
}

fn default_max_pending_modifications() -> u32 {
    5
}

impl InstrumentConfig {
    /// `pricePrecision`: fractional digits of the tick.
    pub fn price_precision(&self) -> u32 {
        u32::from((-self.price_multiplier.normalized().exponent()).max(0) as u8)
    }

    /// `quantityPrecision`: fractional digits of the lot.
    pub fn quantity_precision(&self) -> u32 {
        u32::from((-self.quantity_multiplier.normalized().exponent()).max(0) as u8)
    }
}

/// What an API key may do (Bitget key permissions; `read` is implied by every key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    /// Read-only: queries and subscriptions; trade endpoints and trade ops answer `40014`.
    Read,
    /// Trading (orders, leverage, hold mode).
    Trade,
    /// UTA trading (treated like `trade`).
    UtaTrade,
}

fn default_permissions() -> Vec<Permission> {
    vec![Permission::Read, Permission::Trade, Permission::UtaTrade]
}

/// True when `perms` allow trading (`trade` or `uta-trade`).
pub fn can_trade(perms: &[Permission]) -> bool {
    perms
        .iter()
        .any(|p| matches!(p, Permission::Trade | Permission::UtaTrade))
}

/// An additional API key of an account.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyConfig {
    /// API key.
    pub api_key: String,
    /// HMAC secret.
    pub secret: String,
    /// Passphrase.
    pub passphrase: String,
    /// Permissions (default: read, trade, uta-trade).
    #[serde(default = "default_permissions")]
    pub permissions: Vec<Permission>,
}

impl std::fmt::Debug for ApiKeyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyConfig")
            .field("api_key", &self.api_key)
            .field("permissions", &self.permissions)
            .finish_non_exhaustive()
    }
}

/// An initial balance of one coin.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoinBalance {
    /// Coin, e.g. `USDT`.
    pub coin: String,
    /// Amount (decimal string).
    #[serde(with = "dec")]
    pub amount: Decimal,
}

/// Balances of an account without configured ones: generous, so that tests and the demo never
/// run out (USDT and USDC 100 000 000, BTC 1 000, ETH 10 000).
pub fn default_balances() -> Vec<CoinBalance> {
    [
        ("USDT", "100000000"),
        ("USDC", "100000000"),
        ("BTC", "1000"),
        ("ETH", "10000"),
    ]
    .into_iter()
    .map(|(c, a)| CoinBalance {
        coin: c.into(),
        amount: d(a),
    })
    .collect()
}

/// Position mode (`holdMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldMode {
    /// `one_way_mode`: one net position per symbol.
    #[default]
    OneWayMode,
    /// `hedge_mode`: a long and a short position per symbol (`posSide`).
    HedgeMode,
}

impl HoldMode {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HoldMode::OneWayMode => "one_way_mode",
            HoldMode::HedgeMode => "hedge_mode",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<HoldMode> {
        match s {
            "one_way_mode" => Some(HoldMode::OneWayMode),
            "hedge_mode" => Some(HoldMode::HedgeMode),
            _ => None,
        }
    }
}

/// Account mode (`accountLevel` of `GET /api/v3/account/settings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountLevel {
    /// `basic`: spot and futures; spot margin (`MARGIN`) orders are refused (`40014`).
    Basic,
    /// `advanced`: everything, including spot margin (the default).
    #[default]
    Advanced,
}

impl AccountLevel {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AccountLevel::Basic => "basic",
            AccountLevel::Advanced => "advanced",
        }
    }
}

/// An API account (one UTA uid, master or sub-account, with one or more keys).
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountConfig {
    /// Account uid.
    pub uid: String,
    /// API key (`apiKey` in the WS login).
    pub api_key: String,
    /// HMAC secret.
    pub secret: String,
    /// Passphrase.
    pub passphrase: String,
    /// Permissions of `api_key` (default: read, trade, uta-trade).
    #[serde(default = "default_permissions")]
    pub permissions: Vec<Permission>,
    /// Further keys of the same account.
    #[serde(default)]
    pub api_keys: Vec<ApiKeyConfig>,
    /// Uid of the master account when this is a sub-account (`None` = a master).
    #[serde(default)]
    pub master_uid: Option<String>,
    /// On the move-positions whitelist.
    #[serde(default)]
    pub move_positions_whitelist: bool,
    /// Initial unified-account balances (default: [`default_balances`]).
    #[serde(default = "default_balances")]
    pub balances: Vec<CoinBalance>,
    /// Initial funding-account balances (default: none).
    #[serde(default)]
    pub funding_balances: Vec<CoinBalance>,
    /// Initial position mode (default `one_way_mode`).
    #[serde(default)]
    pub hold_mode: HoldMode,
    /// Account mode (default `advanced`).
    #[serde(default)]
    pub account_level: AccountLevel,
}

impl Default for AccountConfig {
    fn default() -> Self {
        AccountConfig {
            uid: String::new(),
            api_key: String::new(),
            secret: String::new(),
            passphrase: String::new(),
            permissions: default_permissions(),
            api_keys: Vec::new(),
            master_uid: None,
            move_positions_whitelist: false,
            balances: default_balances(),
            funding_balances: Vec::new(),
            hold_mode: HoldMode::OneWayMode,
            account_level: AccountLevel::Advanced,
        }
    }
}

impl std::fmt::Debug for AccountConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountConfig")
            .field("uid", &self.uid)
            .field("api_key", &self.api_key)
            .finish_non_exhaustive()
    }
}

/// Liquidity for one (category, symbol): a ladder of the simulator's own orders around a mid.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolLiquidity {
    /// Symbol.
    pub symbol: String,
    /// Product line.
    pub category: Category,
    /// Starting mid price.
    #[serde(with = "dec")]
    pub mid: Decimal,
    /// Quantity of each level (base coin).
    #[serde(with = "dec")]
    pub level_qty: Decimal,
    /// Distance between levels in ticks.
    #[serde(default = "default_level_step_ticks")]
    pub level_step_ticks: i64,
    /// Distance from the mid to the best bid and best ask in ticks.
    #[serde(default = "default_half_spread_ticks")]
    pub half_spread_ticks: i64,
}

fn default_level_step_ticks() -> i64 {
    5
}
fn default_half_spread_ticks() -> i64 {
    5
}

/// The liquidity source: a market-maker account owned by the simulator.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiquidityConfig {
    /// Levels per side.
    #[serde(default = "default_levels")]
    pub levels: usize,
    /// Refresh period in ms (replenish consumed levels, random-walk step).
    #[serde(default = "default_refresh_ms")]
    pub refresh_ms: u64,
    /// Probability (per refresh, in percent) that the mid moves by one level step.
    #[serde(default = "default_walk_percent")]
    pub walk_percent: u32,
    /// RNG seed (ChaCha8) of the random walk.
    #[serde(default)]
    pub seed: u64,
    /// One entry per symbol that gets liquidity.
    #[serde(default)]
    pub symbols: Vec<SymbolLiquidity>,
}

fn default_levels() -> usize {
    10
}
fn default_refresh_ms() -> u64 {
    50
}
fn default_walk_percent() -> u32 {
    20
}

impl Default for LiquidityConfig {
    fn default() -> Self {
        LiquidityConfig {
            levels: default_levels(),
            refresh_ms: default_refresh_ms(),
            walk_percent: default_walk_percent(),
            seed: 0,
            symbols: Vec::new(),
        }
    }
}

/// Which venue answers the trade ops.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum VenueMode {
    /// The simulated exchange: matching, balances, positions, history, liquidity.
    #[default]
    Full,
    /// A venue that is never a benchmark's bottleneck: every trade op answered at once with
    /// the full venue's shapes, no matching, no liquidity source.
    Fast,
}

/// The whole simulator configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Listen address (`127.0.0.1:0` = ephemeral port).
    pub listen: SocketAddr,
    /// Serve HTTPS/WSS with a self-signed certificate (true) or plain HTTP/WS (false).
    #[serde(default = "default_true")]
    pub tls: bool,
    /// Login timestamp window in seconds (either direction).
    #[serde(default = "default_login_window_s")]
    pub login_window_s: u64,
    /// Close a WebSocket connection that sent nothing (no `ping`, no request) for this many
    /// seconds (Bitget: 120). 0 = never.
    #[serde(default = "default_idle_timeout_s")]
    pub idle_timeout_s: u64,
    /// Inbound frames (`ping` and JSON ops alike) allowed per connection per second; one more
    /// within the same second answers `30007` and closes the connection (Bitget: 10).
    /// 0 = unlimited (default, so that benchmarks are not throttled).
    #[serde(default)]
    pub max_msgs_per_s: u32,
    /// First `orderId`/`execId`; `None` = derived from the start time.
    #[serde(default)]
    pub id_base: Option<u64>,
    /// Push an order that trades on entry as `new` before its match pushes (reference §4.2
    /// status sequence: "immediate full fill `new → filled`"). Default `true`; `false` sends
    /// only the match pushes (`filled` alone), the simulator's behaviour before issue 13, so
    /// that a client can be tested against both orders of events.
    #[serde(default = "default_true")]
    pub new_before_fill: bool,
    /// Which venue answers trade ops: `"full"` (default: matching, balances, positions,
    /// history) or `"fast"` (every op answered at once from the same renderers, nothing
    /// matched; for benchmarks: see `sim::venue` `fast`).
    #[serde(default)]
    pub venue: VenueMode,
    /// Modifications one order may receive in its life (accepted ones); one more is refused
    /// `25569` "exceeded max modifications" (reference §6.2). The reference and Bitget's pages
    /// give no number; 100 is a conservative choice (a strategy that re-quotes one order more
    /// often should cancel and place anew), configurable. 0 = unlimited.
    #[serde(default = "default_max_modifications")]
    pub max_modifications_per_order: u32,
    /// Modifications of one order that may be in progress at once; one more is refused
    /// `25572` "too many pending modification requests". 5: Bitget's batch-modify page ("a
    /// maximum of 5 consecutive modification requests for in-progress orders"; reference §7).
    #[serde(default = "default_max_pending_modifications")]
    pub max_pending_modifications: u32,
    /// How long (ms) an accepted modification counts as in progress. The simulator applies a
    /// modification at once; Bitget's engine applies it asynchronously (reference §5.1), so
    /// this models the engine's latency for the `25572` rule only. Default 0: nothing is ever
    /// pending and `25572` is never produced (the engine's latency is not documented); a test
    /// or a paper-trading setup that wants the rule sets it (e.g. 50).
    #[serde(default)]
    pub modify_pending_ms: u64,
    /// Instruments.
    pub instruments: Vec<InstrumentConfig>,
    /// API accounts.
    pub accounts: Vec<AccountConfig>,
    /// Liquidity source.
    #[serde(default)]
    pub liquidity: LiquidityConfig,
    /// Per-UID REST / WS trade quotas (off by default).
    #[serde(default)]
    pub rate_limits: crate::ratelimit::RateLimitConfig,
    /// Faults active from the start and the HTTP control endpoint switch
    /// ([`crate::faults::FaultsConfig`]).
    #[serde(default)]
    pub faults: crate::faults::FaultsConfig,
}

fn default_true() -> bool {
    true
}
fn default_idle_timeout_s() -> u64 {
    120
}
fn default_login_window_s() -> u64 {
    30
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap_or_default()
}

impl SimConfig {
    /// Demo defaults: BTCUSDT and ETHUSDT in USDT-FUTURES and SPOT, one account
    /// (`bg_demo_key` / `demo-secret` / `demo-pass`), TLS on, `127.0.0.1:0`, a seeded liquidity
    /// source on every symbol (BTC mid 60000, ETH mid 3000).
    pub fn demo() -> SimConfig {
        let inst =
            |symbol: &str, category, base: &str, tick, lot, min_qty, max_qty, min_amt, mk, tk| {
                InstrumentConfig {
                    symbol: symbol.into(),
                    category,
                    base_coin: base.into(),
                    quote_coin: "USDT".into(),
                    price_multiplier: d(tick),
                    quantity_multiplier: d(lot),
                    min_order_qty: d(min_qty),
                    max_order_qty: d(max_qty),
                    min_order_amount: d(min_amt),
                    maker_fee_rate: d(mk),
                    taker_fee_rate: d(tk),
                    maintenance_margin_rate: default_mm_rate(),
                    buy_limit_price_ratio: default_price_ratio(),
                    sell_limit_price_ratio: default_price_ratio(),
                    max_symbol_order_num: default_max_symbol_orders(),
                    max_product_order_num: default_max_product_orders(),
                }
            };
        let fut = Category::UsdtFutures;
        let spot = Category::Spot;
        let liq = |symbol: &str, category, mid, qty| SymbolLiquidity {
            symbol: symbol.into(),
            category,
            mid: d(mid),
            level_qty: d(qty),
            level_step_ticks: 5,
            half_spread_ticks: 5,
        };
        SimConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: true,
            login_window_s: 30,
            idle_timeout_s: 120,
            max_msgs_per_s: 0,
            id_base: None,
            instruments: vec![
                inst(
                    "BTCUSDT", fut, "BTC", "0.1", "0.0001", "0.0001", "1200", "5", "0.0002",
                    "0.0006",
                ),
                inst(
                    "ETHUSDT", fut, "ETH", "0.01", "0.01", "0.01", "8000", "5", "0.0002", "0.0006",
                ),
                inst(
                    "BTCUSDT", spot, "BTC", "0.01", "0.000001", "0.000001", "0", "1", "0.001",
                    "0.001",
                ),
                inst(
                    "ETHUSDT", spot, "ETH", "0.01", "0.0001", "0.0001", "0", "1", "0.001", "0.001",
                ),
            ],
            accounts: vec![AccountConfig {
                uid: "1000000001".into(),
                api_key: "bg_demo_key".into(),
                secret: "demo-secret".into(),
                passphrase: "demo-pass".into(),
                ..AccountConfig::default()
            }],
            liquidity: LiquidityConfig {
                levels: 10,
                refresh_ms: 50,
                walk_percent: 20,
                seed: 42,
                symbols: vec![
                    liq("BTCUSDT", fut, "60000", "0.5"),
                    liq("ETHUSDT", fut, "3000", "5"),
                    liq("BTCUSDT", spot, "60000", "0.5"),
                    liq("ETHUSDT", spot, "3000", "5"),
                ],
            },
            rate_limits: crate::ratelimit::RateLimitConfig::default(),
            faults: crate::faults::FaultsConfig::default(),
            new_before_fill: true,
            venue: VenueMode::Full,
            max_modifications_per_order: default_max_modifications(),
            max_pending_modifications: default_max_pending_modifications(),
            modify_pending_ms: 0,
        }
    }

    /// Parses a TOML document.
    pub fn from_toml(text: &str) -> Result<SimConfig, SimError> {
        toml::from_str(text).map_err(|e| SimError::Config(e.to_string()))
    }

    /// Checks cross-field rules: positive steps, known liquidity symbols, unique keys.
    pub fn validate(&self) -> Result<(), SimError> {
        for i in &self.instruments {
            if !i.price_multiplier.is_positive() || !i.quantity_multiplier.is_positive() {
                return Err(SimError::Config(format!(
                    "instrument {} {}: multipliers must be positive",
                    i.category.rest_str(),
                    i.symbol
                )));
            }
            for r in [i.buy_limit_price_ratio, i.sell_limit_price_ratio] {
                if r.is_negative() || r >= Decimal::ONE {
                    return Err(SimError::Config(format!(
                        "instrument {} {}: price ratios must be in [0, 1)",
                        i.category.rest_str(),
                        i.symbol
                    )));
                }
            }
        }
        for l in &self.liquidity.symbols {
            if !self
                .instruments
                .iter()
                .any(|i| i.symbol == l.symbol && i.category == l.category)
            {
                return Err(SimError::Config(format!(
                    "liquidity for unknown instrument {} {}",
                    l.category.rest_str(),
                    l.symbol
                )));
            }
            if !(1..=1_000_000).contains(&l.level_step_ticks)
                || !(1..=1_000_000).contains(&l.half_spread_ticks)
            {
                return Err(SimError::Config(format!(
                    "liquidity {}: level_step_ticks and half_spread_ticks must be in 1..=1000000",
                    l.symbol
                )));
            }
            if !l.mid.is_positive() || !l.level_qty.is_positive() {
                return Err(SimError::Config(format!(
                    "liquidity {}: mid and level_qty must be positive",
                    l.symbol
                )));
            }
        }
        if !(1..=200).contains(&self.liquidity.levels) || self.liquidity.refresh_ms == 0 {
            return Err(SimError::Config(
                "liquidity: levels must be in 1..=200 and refresh_ms at least 1".into(),
            ));
        }
        let mut keys: Vec<&str> = self
            .accounts
            .iter()
            .flat_map(|a| {
                std::iter::once(a.api_key.as_str())
                    .chain(a.api_keys.iter().map(|k| k.api_key.as_str()))
            })
            .collect();
        for a in &self.accounts {
            if let Some(m) = &a.master_uid {
                if !self
                    .accounts
                    .iter()
                    .any(|x| &x.uid == m && x.master_uid.is_none())
                {
                    return Err(SimError::Config(format!(
                        "account {}: master_uid {m} is not a configured master account",
                        a.uid
                    )));
                }
            }
        }
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(SimError::Config("duplicate api_key".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_config_parses_and_validates() {
        let cfg = SimConfig::from_toml(include_str!("../../config/sim.example.toml")).unwrap();
        cfg.validate().unwrap();
        assert_eq!(cfg.instruments.len(), 4);
        assert_eq!(cfg.liquidity.symbols.len(), 4);
        assert_eq!(cfg.liquidity.symbols[1].level_step_ticks, 5);
        assert_eq!(cfg.accounts[0].api_key, "bg_demo_key");
        assert_eq!(cfg.accounts[1].master_uid.as_deref(), Some("1000000001"));
        assert_eq!(cfg.accounts[1].hold_mode, HoldMode::HedgeMode);
        assert_eq!(
            cfg.accounts[1].api_keys[0].permissions,
            vec![Permission::Read]
        );
        assert_eq!(cfg.accounts[0].balances.len(), 3);
        assert!(cfg.tls);
    }

    #[test]
    fn demo_round_trips_through_toml() {
        let demo = SimConfig::demo();
        demo.validate().unwrap();
        let text = toml::to_string(&demo).unwrap();
        let back = SimConfig::from_toml(&text).unwrap();
        assert_eq!(back.instruments.len(), demo.instruments.len());
        assert_eq!(
            back.instruments[0].price_multiplier,
            demo.instruments[0].price_multiplier
        );
        assert_eq!(back.liquidity.seed, 42);
    }

    #[test]
    fn bad_config_is_an_error_not_a_panic() {
        assert!(SimConfig::from_toml("listen = 5").is_err());
        let mut c = SimConfig::demo();
        c.liquidity.symbols[0].symbol = "NOPE".into();
        assert!(c.validate().is_err());
        let mut c = SimConfig::demo();
        let mut sub = c.accounts[0].clone();
        sub.api_key = "other".into();
        sub.master_uid = Some("no-such-master".into());
        c.accounts.push(sub);
        assert!(c.validate().is_err());
        let mut c = SimConfig::demo();
        let mut dup = c.accounts[0].clone();
        dup.api_key = "other".into();
        dup.api_keys = vec![ApiKeyConfig {
            api_key: "bg_demo_key".into(),
            secret: "s".into(),
            passphrase: "p".into(),
            permissions: vec![Permission::Read],
        }];
        c.accounts.push(dup);
        assert!(c.validate().is_err());
    }
}
