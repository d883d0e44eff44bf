//! Bitget UTA v3 REST client: public instruments and signed GET/POST helpers.
//!
//! Reference: `shared/reference/bitget-uta-v3.md` §1.1 (signed headers), §6.1 (envelope),
//! §7 (endpoints, instrument fields and their spot/futures rules).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codec::Decimal;
use rustls::ClientConfig;

use gateway_core::budget::queries::is_rate_refusal;
use gateway_core::budget::{QueryEndpoint, QueryLimits};

use super::query_pace::QueryPacer;
use super::sign::rest_sign;
use super::ws::ExchangeCredentials;
use super::ExchangeError;

/// Path of the instruments endpoint (reference §7).
pub const INSTRUMENTS_PATH: &str = "/api/v3/market/instruments";
/// The envelope `code` meaning success (reference §6.1).
pub const SUCCESS_CODE: &str = "00000";

/// Trading status of an instrument (reference §7 `status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstrumentStatus {
    /// `listed`: announced, not yet trading.
    Listed,
    /// `online`: trading normally.
    Online,
    /// `limit_open`: opening positions restricted.
    LimitOpen,
    /// `limit_close`: closing positions restricted.
    LimitClose,
    /// `offline`: not trading.
    Offline,
    /// `restrictedAPI`: API trading restricted.
    RestrictedApi,
    /// A value not in the list above (kept verbatim).
    Other(String),
}

impl InstrumentStatus {
    /// Maps the exchange's spelling.
    pub fn parse(s: &str) -> InstrumentStatus {
        match s {
            "listed" => InstrumentStatus::Listed,
            "online" => InstrumentStatus::Online,
            "limit_open" => InstrumentStatus::LimitOpen,
            "limit_close" => InstrumentStatus::LimitClose,
            "offline" => InstrumentStatus::Offline,
            "restrictedAPI" => InstrumentStatus::RestrictedApi,
            other => InstrumentStatus::Other(other.to_owned()),
        }
    }
}

/// Trading rules of one symbol, normalised from the instruments endpoint (reference §7).
///
/// Prices must be multiples of `price_multiplier`, quantities multiples of
/// `quantity_multiplier` and at least `min_order_qty`; `price × qty ≥ min_order_amount`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrument {
    /// Symbol, e.g. `BTCUSDT`.
    pub symbol: String,
    /// REST category as sent by the exchange, upper case (`USDT-FUTURES`, `SPOT`, ...).
    pub category: String,
    /// Price step (tick). From `priceMultiplier`; when not set (spot), `10^-pricePrecision`.
    pub price_multiplier: Decimal,
    /// Quantity step (lot). From `quantityMultiplier`; when not set (spot),
    /// `10^-quantityPrecision`.
    pub quantity_multiplier: Decimal,
    /// Minimum order quantity (base units); when not set, one quantity step.
    pub min_order_qty: Decimal,
    /// Maximum order quantity; `None` when not set or `"0"` (unlimited).
    pub max_order_qty: Option<Decimal>,
    /// Minimum order notional in quote units (e.g. USDT); zero when not set.
    pub min_order_amount: Decimal,
    /// Number of decimals allowed in a price.
    pub price_precision: u32,
    /// Number of decimals allowed in a quantity.
    pub quantity_precision: u32,
    /// Trading status.
    pub status: InstrumentStatus,
    /// `buyLimitPriceRatio`: how far above the mark a buy may be priced; `None` when not set.
    pub buy_limit_price_ratio: Option<Decimal>,
    /// `sellLimitPriceRatio`: how far below the mark a sell may be priced; `None` when not set.
    pub sell_limit_price_ratio: Option<Decimal>,
    /// `maxSymbolOrderNum`: open orders an account may have in this symbol (Bitget `25211`
    /// beyond it); `None` when not set (`""`, `"0"`, `"-1"`) or not a number.
    pub max_symbol_order_num: Option<u32>,
    /// `maxProductOrderNum`: open orders an account may have across the product line (`25211`
    /// beyond it); `None` when not set or not a number.
    pub max_product_order_num: Option<u32>,
}

/// One instrument as sent (every field optional text; numbers are accepted as text too).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInstrument {
    #[serde(default, deserialize_with = "de_text")]
    buy_limit_price_ratio: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    sell_limit_price_ratio: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    max_symbol_order_num: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    max_product_order_num: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    symbol: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    category: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    price_multiplier: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    quantity_multiplier: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    min_order_qty: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    max_order_qty: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    min_order_amount: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    price_precision: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    quantity_precision: Option<String>,
    #[serde(default, deserialize_with = "de_text")]
    status: Option<String>,
}

/// Accepts a JSON string, number or null as optional text.
fn de_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v: Option<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(match v {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        Some(serde_json::Value::Bool(b)) => Some(b.to_string()),
        Some(_) => None,
    })
}

/// `""`, `"0"`, `"-1"` (and absent) mean "not set" (reference §7).
fn set_value(v: &Option<String>) -> Option<&str> {
    match v.as_deref() {
        None | Some("") | Some("-1") => None,
        Some(s) if is_zero_text(s) => None,
        Some(s) => Some(s),
    }
}

fn is_zero_text(s: &str) -> bool {
    Decimal::parse(s.as_bytes()).is_ok_and(|d| d.is_zero())
}

fn decimal_field(name: &str, v: &str) -> Result<Decimal, ExchangeError> {
    Decimal::parse(v.as_bytes())
        .map_err(|e| ExchangeError::Protocol(format!("instrument field {name} = {v:?}: {e}")))
}

/// `10^-precision` (precision ≤ 18).
fn step_from_precision(name: &str, precision: u32) -> Result<Decimal, ExchangeError> {
    i8::try_from(precision)
        .ok()
        .and_then(|p| Decimal::new(1, -p).ok())
        .ok_or_else(|| ExchangeError::Protocol(format!("instrument {name} {precision} too large")))
}

/// Number of fractional digits of a step (`0.1` → 1, `5` → 0).
fn precision_of(step: Decimal) -> u32 {
    let e = step.normalized().exponent();
    if e < 0 {
        u32::from(e.unsigned_abs())
    } else {
        0
    }
}

/// Resolves (step, precision) from a multiplier and a precision field, either of which may be
/// missing (but not both).
fn step_and_precision(
    what: &str,
    multiplier: &Option<String>,
    precision: &Option<String>,
) -> Result<(Decimal, u32), ExchangeError> {
    let precision = match precision.as_deref() {
        None | Some("") | Some("-1") => None,
        Some(p) => Some(p.parse::<u32>().map_err(|_| {
            ExchangeError::Protocol(format!("instrument {what}Precision = {p:?} not an integer"))
        })?),
    };
    match (set_value(multiplier), precision) {
        (Some(m), p) => {
            let step = decimal_field(what, m)?;
            if !step.is_positive() {
                return Err(ExchangeError::Protocol(format!(
                    "instrument {what} step {m} ≤ 0"
                )));
            }
            Ok((step, p.unwrap_or_else(|| precision_of(step))))
        }
        (None, Some(p)) => Ok((step_from_precision(what, p)?, p)),
        (None, None) => Err(ExchangeError::Protocol(format!(
            "instrument has neither {what}Multiplier nor {what}Precision"
        ))),
    }
}

impl Instrument {
    fn from_raw(raw: &RawInstrument) -> Result<Instrument, ExchangeError> {
        let symbol = raw
            .symbol
            .clone()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ExchangeError::Protocol("instrument without symbol".into()))?;
        let (price_multiplier, price_precision) =
            step_and_precision("price", &raw.price_multiplier, &raw.price_precision)?;
        let (quantity_multiplier, quantity_precision) = step_and_precision(
            "quantity",
            &raw.quantity_multiplier,
            &raw.quantity_precision,
        )?;
        let min_order_qty = match set_value(&raw.min_order_qty) {
            Some(v) => decimal_field("minOrderQty", v)?,
            None => quantity_multiplier,
        };
        let max_order_qty = set_value(&raw.max_order_qty)
            .map(|v| decimal_field("maxOrderQty", v))
            .transpose()?;
        let min_order_amount = match set_value(&raw.min_order_amount) {
            Some(v) => decimal_field("minOrderAmount", v)?,
            None => Decimal::ZERO,
        };
        Ok(Instrument {
            symbol,
            category: raw
                .category
                .clone()
                .unwrap_or_default()
                .to_ascii_uppercase(),
            price_multiplier,
            quantity_multiplier,
            min_order_qty,
            max_order_qty,
            min_order_amount,
            price_precision,
            quantity_precision,
            status: InstrumentStatus::parse(raw.status.as_deref().unwrap_or("")),
            buy_limit_price_ratio: set_value(&raw.buy_limit_price_ratio)
                .and_then(|v| Decimal::parse(v.as_bytes()).ok()),
            sell_limit_price_ratio: set_value(&raw.sell_limit_price_ratio)
                .and_then(|v| Decimal::parse(v.as_bytes()).ok()),
            max_symbol_order_num: set_value(&raw.max_symbol_order_num)
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|n| *n > 0),
            max_product_order_num: set_value(&raw.max_product_order_num)
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|n| *n > 0),
        })
    }
}

/// Parses one instrument object (the JSON of one `data` element).
///
/// Errors: [`ExchangeError::Protocol`] when the symbol is missing, a decimal does not parse, or
/// neither a multiplier nor a precision gives a step.
pub fn parse_instrument(json: &serde_json::Value) -> Result<Instrument, ExchangeError> {
    let raw: RawInstrument = serde::Deserialize::deserialize(json)
        .map_err(|e| ExchangeError::Protocol(format!("instrument: {e}")))?;
    Instrument::from_raw(&raw)
}

/// Parses an instruments response body (envelope + `data` array).
///
/// Entries that fail [`parse_instrument`] are skipped with a warning so that one odd listing does
/// not stop start-up; a bad envelope or a non-array `data` is an error.
pub fn parse_instruments(http_status: u16, body: &[u8]) -> Result<Vec<Instrument>, ExchangeError> {
    let data = parse_envelope(http_status, body)?;
    let items = data
        .as_array()
        .ok_or_else(|| ExchangeError::Protocol("instruments data is not an array".into()))?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match parse_instrument(item) {
            Ok(i) => out.push(i),
            Err(e) => tracing::warn!(error = %e, "skipping instrument"),
        }
    }
    Ok(out)
}

/// Checks the standard envelope `{"code":"00000","msg":..,"requestTime":..,"data":..}` and
/// returns `data` (reference §6.1). `code` is parsed regardless of the HTTP status.
///
/// Errors: [`ExchangeError::Rejected`] for a non-success code (or a non-2xx status with a
/// success code), [`ExchangeError::Protocol`] for a body that is not an envelope.
pub fn parse_envelope(http_status: u16, body: &[u8]) -> Result<serde_json::Value, ExchangeError> {
    let mut v: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        if (200..300).contains(&http_status) {
            ExchangeError::Protocol(format!("bad JSON body: {e}"))
        } else {
            ExchangeError::Rejected {
                code: 0,
                msg: format!("non-JSON body: {}", String::from_utf8_lossy(body)),
                http_status,
            }
        }
    })?;
    let code = match v.get("code") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        _ => return Err(ExchangeError::Protocol("envelope without code".into())),
    };
    let msg = v
        .get("msg")
        .and_then(|m| m.as_str())
        .unwrap_or_default()
        .to_owned();
    let numeric = code
        .parse::<u32>()
        .map_err(|_| ExchangeError::Protocol(format!("envelope code {code:?} not numeric")))?;
    if numeric != 0 || !(200..300).contains(&http_status) {
        return Err(ExchangeError::Rejected {
            code: numeric,
            msg,
            http_status,
        });
    }
    Ok(v.get_mut("data")
        .map(serde_json::Value::take)
        .unwrap_or_default())
}

/// The headers of a signed request (reference §1.1), in order: `ACCESS-KEY`, `ACCESS-SIGN`,
/// `ACCESS-TIMESTAMP` (ms), `ACCESS-PASSPHRASE`, `Content-Type: application/json`, `locale`.
pub fn signed_headers(
    creds: &ExchangeCredentials,
    ts_ms: u64,
    method: &str,
    path_with_query: &str,
    body: &str,
    locale: &str,
) -> Vec<(&'static str, String)> {
    vec![
        ("ACCESS-KEY", creds.api_key.clone()),
        (
            "ACCESS-SIGN",
            rest_sign(&creds.secret, ts_ms, method, path_with_query, body),
        ),
        ("ACCESS-TIMESTAMP", ts_ms.to_string()),
        ("ACCESS-PASSPHRASE", creds.passphrase.expose().to_owned()),
        ("Content-Type", "application/json".to_owned()),
        ("locale", locale.to_owned()),
    ]
}

/// REST client over reqwest with the gateway's rustls configuration.
#[derive(Debug, Clone)]
pub struct RestClient {
    http: reqwest::Client,
    base_url: String,
    creds: Option<ExchangeCredentials>,
    locale: String,
    demo_trading: bool,
    /// The pace of the query endpoints, shared by the clones ([`RestClient::with_query_limits`]).
    queries: Arc<QueryPacer>,
}

impl RestClient {
    /// A client for `base_url` (e.g. `https://api.bitget.com`, no trailing slash needed).
    ///
    /// `tls` comes from [`super::tls::client_config`] (ALPN `http/1.1` is set on a copy);
    /// `timeout` bounds each whole request; `creds` are needed only for the signed helpers.
    /// TCP_NODELAY is on. Errors: [`ExchangeError::Tls`] if reqwest refuses the TLS config.
    pub fn new(
        base_url: &str,
        tls: &Arc<ClientConfig>,
        timeout: Duration,
        creds: Option<ExchangeCredentials>,
    ) -> Result<RestClient, ExchangeError> {
        let mut tls = (**tls).clone();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .tcp_nodelay(true)
            .timeout(timeout)
            .build()
            .map_err(|e| ExchangeError::Tls(e.to_string()))?;
        Ok(RestClient {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
            creds,
            locale: "en-US".to_owned(),
            demo_trading: false,
            queries: QueryPacer::new(&QueryLimits::unlimited()),
        })
    }

    /// Paces [`RestClient::query_get`] at `limits` (per endpoint, shared by this client's
    /// clones: give each account, i.e. each UID, one client). Without it the queries are not
    /// paced, but a refusal for rate is still retried.
    pub fn with_query_limits(mut self, limits: &QueryLimits) -> RestClient {
        self.queries = QueryPacer::new(limits);
        self
    }

    /// Sets the `locale` header value (default `en-US`).
    pub fn with_locale(mut self, locale: &str) -> RestClient {
        locale.clone_into(&mut self.locale);
        self
    }

    /// Adds the `paptrading: 1` header to signed requests (Bitget demo trading, reference §1.1).
    pub fn with_demo_trading(mut self, on: bool) -> RestClient {
        self.demo_trading = on;
        self
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `GET /api/v3/market/instruments?category=<category>` (category upper case, e.g.
    /// `USDT-FUTURES`, `SPOT`), parsed with [`parse_instruments`].
    pub async fn instruments(&self, category: &str) -> Result<Vec<Instrument>, ExchangeError> {
        let path = format!("{INSTRUMENTS_PATH}?category={category}");
        let (status, body) = self.send(reqwest::Method::GET, &path, None, None).await?;
        parse_instruments(status, &body)
    }

    /// Unsigned GET of `path_with_query`; returns the envelope's `data`.
    pub async fn public_get(
        &self,
        path_with_query: &str,
    ) -> Result<serde_json::Value, ExchangeError> {
        let (status, body) = self
            .send(reqwest::Method::GET, path_with_query, None, None)
            .await?;
        parse_envelope(status, &body)
    }

    /// Signed GET (`query` without `?`, may be empty, signed exactly as sent); `now` gives the
    /// ms timestamp. Returns the envelope's `data`.
    ///
    /// The query must already be URL-safe (keys and values of `[A-Za-z0-9_.:-]`, as Bitget's
    /// parameters are): the URL parser must not re-encode it, or the signature would not match.
    ///
    /// Errors: [`ExchangeError::Protocol`] without credentials; see [`parse_envelope`].
    pub async fn signed_get(
        &self,
        path: &str,
        query: &str,
        now: SystemTime,
    ) -> Result<serde_json::Value, ExchangeError> {
        let path_with_query = if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{query}")
        };
        let (status, body) = self
            .send(reqwest::Method::GET, &path_with_query, Some(now), None)
            .await?;
        parse_envelope(status, &body)
    }

    /// Signed GET of a query endpoint (`query` as for [`RestClient::signed_get`]), paced by the
    /// account's query budget (`gateway_core::budget::queries`): waits for a token of `ep`,
    /// and when the venue refuses the request for rate (HTTP 429, code 429 or 25004) waits out
    /// the backoff and sends it again unchanged (re-signed with the time of the new send), so a
    /// paged listing neither loses nor repeats a page. Returns the envelope's `data`.
    ///
    /// Errors: as [`RestClient::signed_get`]; a refusal for rate only after
    /// `gateway_core::budget::queries::MAX_REFUSALS` of them for this request.
    pub async fn query_get(
        &self,
        ep: QueryEndpoint,
        query: &str,
    ) -> Result<serde_json::Value, ExchangeError> {
        let mut refusals = 0u32;
        loop {
            self.queries.acquire(ep).await;
            match self.signed_get(ep.path(), query, SystemTime::now()).await {
                Err(ExchangeError::Rejected {
                    code,
                    msg,
                    http_status,
                }) if is_rate_refusal(http_status, code) => {
                    refusals += 1;
                    let again = self.queries.refused(ep, refusals);
                    tracing::warn!(
                        path = ep.path(),
                        code,
                        http_status,
                        refusals,
                        again,
                        "query refused for rate"
                    );
                    if !again {
                        return Err(ExchangeError::Rejected {
                            code,
                            msg,
                            http_status,
                        });
                    }
                }
                other => return other,
            }
        }
    }

    /// Signed POST with a JSON `body` (signed exactly as sent); returns the envelope's `data`.
    ///
    /// Errors: [`ExchangeError::Protocol`] without credentials; see [`parse_envelope`].
    pub async fn signed_post(
        &self,
        path: &str,
        body: &str,
        now: SystemTime,
    ) -> Result<serde_json::Value, ExchangeError> {
        let (status, resp) = self
            .send(reqwest::Method::POST, path, Some(now), Some(body))
            .await?;
        parse_envelope(status, &resp)
    }

    /// Sends a request; `signed_at` = sign with that time. Returns (HTTP status, body).
    async fn send(
        &self,
        method: reqwest::Method,
        path_with_query: &str,
        signed_at: Option<SystemTime>,
        body: Option<&str>,
    ) -> Result<(u16, bytes::Bytes), ExchangeError> {
        let url = format!("{}{}", self.base_url, path_with_query);
        let mut req = self.http.request(method.clone(), &url);
        if let Some(now) = signed_at {
            let creds = self.creds.as_ref().ok_or_else(|| {
                ExchangeError::Protocol("signed request without credentials".into())
            })?;
            let ts_ms = now
                .duration_since(UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0);
            for (k, v) in signed_headers(
                creds,
                ts_ms,
                method.as_str(),
                path_with_query,
                body.unwrap_or(""),
                &self.locale,
            ) {
                req = req.header(k, v);
            }
            if self.demo_trading {
                req = req.header("paptrading", "1");
            }
        }
        if let Some(b) = body {
            if signed_at.is_none() {
                // Signed requests already carry Content-Type (see `signed_headers`).
                req = req.header("Content-Type", "application/json");
            }
            req = req.body(b.to_owned());
        }
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        let bytes = resp.bytes().await?;
        Ok((status, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::fixtures_dir;
    use crate::exchange::sign::Secret;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s.as_bytes()).expect("decimal")
    }

    #[test]
    fn usdt_futures_fixture() {
        let body = std::fs::read(fixtures_dir().join("rest_instruments_usdt_futures.json"))
            .expect("fixture");
        let list = parse_instruments(200, &body).expect("parse");
        assert_eq!(list.len(), 1);
        let i = &list[0];
        assert_eq!(i.symbol, "BTCUSDT");
        assert_eq!(i.category, "USDT-FUTURES");
        assert_eq!(i.price_multiplier, d("0.1"));
        assert_eq!(i.quantity_multiplier, d("0.0001"));
        assert_eq!(i.min_order_qty, d("0.0001"));
        assert_eq!(i.max_order_qty, Some(d("1200")));
        assert_eq!(i.min_order_amount, d("5"));
        assert_eq!(i.price_precision, 1);
        assert_eq!(i.quantity_precision, 4);
        assert_eq!(i.status, InstrumentStatus::Online);
    }

    /// Reference §7 spot example: no multipliers, `maxOrderQty "0"` = unlimited.
    #[test]
    fn spot_example_uses_precisions() {
        let body = br#"{"code":"00000","msg":"success","requestTime":1,"data":[{"symbol":"BTCUSDT","category":"SPOT","baseCoin":"BTC","quoteCoin":"USDT","buyLimitPriceRatio":"0.02","sellLimitPriceRatio":"0.02","minOrderQty":"0.000001","maxOrderQty":"0","pricePrecision":"2","quantityPrecision":"6","quotePrecision":"8","minOrderAmount":"1","maxSymbolOrderNum":"","maxProductOrderNum":"400","status":"online","maintainTime":"","maxPositionNum":"200","symbolType":"crypto","launchTime":"1532454360000"}]}"#;
        let list = parse_instruments(200, body).expect("parse");
        let i = &list[0];
        assert_eq!(i.category, "SPOT");
        assert_eq!(i.price_multiplier, d("0.01"));
        assert_eq!(i.quantity_multiplier, d("0.000001"));
        assert_eq!(i.min_order_qty, d("0.000001"));
        assert_eq!(i.max_order_qty, None);
        assert_eq!(i.min_order_amount, d("1"));
        assert_eq!((i.price_precision, i.quantity_precision), (2, 6));
        // The venue rules' inputs (issue 27): "" = not set.
        assert_eq!(i.buy_limit_price_ratio, Some(d("0.02")));
        assert_eq!(i.max_symbol_order_num, None);
        assert_eq!(i.max_product_order_num, Some(400));
    }

    #[test]
    fn not_set_values() {
        let v = serde_json::json!({"symbol":"X","category":"usdt-futures","priceMultiplier":"-1",
            "pricePrecision":"3","quantityMultiplier":"","quantityPrecision":"0","minOrderQty":"-1",
            "maxOrderQty":"","minOrderAmount":"0","status":"restrictedAPI"});
        let i = parse_instrument(&v).expect("parse");
        assert_eq!(i.category, "USDT-FUTURES");
        assert_eq!(i.price_multiplier, d("0.001"));
        assert_eq!(i.quantity_multiplier, d("1"));
        assert_eq!(i.min_order_qty, d("1"));
        assert_eq!(i.max_order_qty, None);
        assert_eq!(i.min_order_amount, Decimal::ZERO);
        assert_eq!(i.status, InstrumentStatus::RestrictedApi);
    }

    #[test]
    fn multiplier_without_precision_and_numbers() {
        let v =
            serde_json::json!({"symbol":"X","priceMultiplier":"0.50","quantityMultiplier":0.01});
        let i = parse_instrument(&v).expect("parse");
        assert_eq!((i.price_precision, i.quantity_precision), (1, 2));
        assert_eq!(i.quantity_multiplier, d("0.01"));
        assert_eq!(i.status, InstrumentStatus::Other(String::new()));
    }

    #[test]
    fn bad_instruments_are_errors_or_skipped() {
        assert!(parse_instrument(&serde_json::json!({"symbol":"X"})).is_err());
        assert!(parse_instrument(
            &serde_json::json!({"pricePrecision":"1","quantityPrecision":"1"})
        )
        .is_err());
        assert!(parse_instrument(
            &serde_json::json!({"symbol":"X","pricePrecision":"99","quantityPrecision":"1"})
        )
        .is_err());
        assert!(parse_instrument(
            &serde_json::json!({"symbol":"X","priceMultiplier":"abc","quantityPrecision":"1"})
        )
        .is_err());
        let body = br#"{"code":"00000","data":[{"symbol":"BAD"},{"symbol":"OK","pricePrecision":"1","quantityPrecision":"2"}]}"#;
        let list = parse_instruments(200, body).expect("parse");
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].symbol, "OK");
    }

    #[test]
    fn envelope_errors() {
        let e = parse_envelope(
            200,
            br#"{"code":"25204","msg":"Order does not exist","requestTime":1,"data":null}"#,
        );
        assert_eq!(
            e,
            Err(ExchangeError::Rejected {
                code: 25204,
                msg: "Order does not exist".into(),
                http_status: 200
            })
        );
        assert!(matches!(
            parse_envelope(400, br#"{"code":"40009","msg":"sign signature error"}"#),
            Err(ExchangeError::Rejected {
                code: 40009,
                http_status: 400,
                ..
            })
        ));
        assert!(matches!(
            parse_envelope(200, b"<html>"),
            Err(ExchangeError::Protocol(_))
        ));
        assert!(matches!(
            parse_envelope(429, b"Too Many Requests"),
            Err(ExchangeError::Rejected {
                http_status: 429,
                ..
            })
        ));
        assert!(matches!(
            parse_envelope(200, br#"{"msg":"x"}"#),
            Err(ExchangeError::Protocol(_))
        ));
        assert!(matches!(
            parse_instruments(200, br#"{"code":"00000","data":{}}"#),
            Err(ExchangeError::Protocol(_))
        ));
    }

    #[test]
    fn signed_headers_carry_fixture_signature() {
        let creds = ExchangeCredentials {
            api_key: "bg_test_key".into(),
            secret: Secret::new("test-secret"),
            passphrase: Secret::new("test-pass"),
        };
        let h = signed_headers(
            &creds,
            1_700_000_000_123,
            "GET",
            "/api/v3/trade/unfilled-orders?category=USDT-FUTURES&limit=100",
            "",
            "en-US",
        );
        let get = |k: &str| h.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
        assert_eq!(
            get("ACCESS-SIGN"),
            Some("leUzmMpUuN47NPFtoYJCsDmbWqKyZIGYFT/A8S5UJTQ=")
        );
        assert_eq!(get("ACCESS-TIMESTAMP"), Some("1700000000123"));
        assert_eq!(get("ACCESS-KEY"), Some("bg_test_key"));
        assert_eq!(get("ACCESS-PASSPHRASE"), Some("test-pass"));
        assert_eq!(get("locale"), Some("en-US"));
    }

    #[test]
    fn client_builds() {
        let tls = crate::exchange::tls::client_config(None).expect("tls");
        let c = RestClient::new(
            "https://api.bitget.com/",
            &tls,
            Duration::from_secs(1),
            None,
        )
        .expect("client");
        assert_eq!(c.base_url(), "https://api.bitget.com");
    }
}
