//! Redaction of the configuration's secrets when it is printed (`gateway check-config`,
//! [`crate::check_config`]): API keys serialize as `"<redacted>"`, and the credential
//! environment variables that were set are named, never shown.

use crate::exchange::REDACTED;

use super::env::{account_env_var, ENV_API_KEY, ENV_API_PASSPHRASE, ENV_API_SECRET};
use super::file::GatewayConfig;

/// Serializes a string that is secret (an API key) as `"<redacted>"`, or `""` when empty.
pub fn serialize_redacted<S: serde::Serializer>(value: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if value.is_empty() { "" } else { REDACTED })
}

/// The credential environment variables the gateway reads for `cfg` that are set (non-empty)
/// in `env`: names only.
pub fn credential_env_set(
    cfg: &GatewayConfig,
    env: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if cfg.accounts.is_empty() {
        names.extend([ENV_API_KEY, ENV_API_SECRET, ENV_API_PASSPHRASE].map(str::to_owned));
    } else {
        for a in &cfg.accounts {
            for field in ["API_KEY", "SECRET", "PASSPHRASE"] {
                names.push(account_env_var(&a.name, field));
            }
        }
    }
    names.retain(|n| env(n).is_some_and(|v| !v.is_empty()));
    names
}
