//! The environment variables that override credentials (below the configuration types).

/// Environment variable overriding `exchange.api_key`.
pub const ENV_API_KEY: &str = "BGW_API_KEY";
/// Environment variable overriding `exchange.secret`.
pub const ENV_API_SECRET: &str = "BGW_API_SECRET";
/// Environment variable overriding `exchange.passphrase`.
pub const ENV_API_PASSPHRASE: &str = "BGW_API_PASSPHRASE";

/// Name of the environment variable overriding credential `field` (`API_KEY`, `SECRET` or
/// `PASSPHRASE`) of account `name`: `BGW_<NAME>_<FIELD>`, the name upper-cased with every
/// character other than ASCII letters and digits turned into `_` (`sub-1` → `BGW_SUB_1_SECRET`).
pub fn account_env_var(name: &str, field: &str) -> String {
    let upper: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("BGW_{upper}_{field}")
}
