//! `POST /api/v3/trade/cancel-symbol-order`: cancel every open order of the account in one
//! category (also those the gateway did not place).

use std::time::SystemTime;

use super::error::ExchangeError;
use super::rest::RestClient;

/// Path of the cancel-all request.
pub const CANCEL_SYMBOL_ORDER_PATH: &str = "/api/v3/trade/cancel-symbol-order";

/// What a cancel-all did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CancelAllOutcome {
    /// Items with code 0 (orders canceled).
    pub canceled: u32,
    /// Code of the first failed item (0: none failed).
    pub first_error: u32,
}

/// Parses the `data` of a cancel-symbol-order answer (`{"list":[{orderId, clientOid, code,
/// msg}]}`; a missing or non-numeric `code` counts as 0).
pub fn parse_cancel_all(data: &serde_json::Value) -> CancelAllOutcome {
    let mut out = CancelAllOutcome::default();
    for item in data["list"].as_array().into_iter().flatten() {
        let code = match &item["code"] {
            serde_json::Value::String(s) => s.parse::<u32>().unwrap_or(0),
            serde_json::Value::Number(n) => n.as_u64().map_or(0, |v| v as u32),
            _ => 0,
        };
        if code == 0 {
            out.canceled += 1;
        } else if out.first_error == 0 {
            out.first_error = code;
        }
    }
    out
}

/// Cancels every open order of the account in `category` (REST name, e.g. `USDT-FUTURES`).
pub async fn cancel_all(
    rest: &RestClient,
    category: &str,
    now: SystemTime,
) -> Result<CancelAllOutcome, ExchangeError> {
    let body = format!("{{\"category\":\"{category}\"}}");
    let data = rest
        .signed_post(CANCEL_SYMBOL_ORDER_PATH, &body, now)
        .await?;
    Ok(parse_cancel_all(&data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_items_with_code_zero() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{"list":[{"orderId":"1","clientOid":"a","code":"0","msg":""},
                        {"orderId":"2","clientOid":"b","code":"25204","msg":"x"},
                        {"orderId":"3","clientOid":"c"}]}"#,
        )
        .unwrap();
        assert_eq!(
            parse_cancel_all(&v),
            CancelAllOutcome {
                canceled: 2,
                first_error: 25204
            }
        );
        assert_eq!(parse_cancel_all(&serde_json::Value::Null).canceled, 0);
    }
}
