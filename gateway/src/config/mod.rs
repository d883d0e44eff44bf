//! Gateway configuration: a TOML file (see `config/gateway.example.toml`) plus secrets from the
//! environment.
//!
//! Every field has a default except the exchange credentials; unknown keys are refused so that a
//! typo does not silently fall back to a default. [`GatewayConfig::load`] reads the file, lets the
//! environment variables [`ENV_API_KEY`], [`ENV_API_SECRET`] and [`ENV_API_PASSPHRASE`] override
//! the `[exchange]` credentials (used as the account `main` when no `[[account]]` is given) and
//! `BGW_<NAME>_API_KEY` / `_SECRET` / `_PASSPHRASE` those of each `[[account]]` (see
//! [`account_env_var`]), then validates everything.

mod accounts;
mod env;
mod error;
mod file;
mod limits;
mod redact;
mod sections;
mod sessions;
#[cfg(test)]
mod tests;

pub use self::accounts::*;
pub use self::env::*;
pub use self::error::*;
pub use self::file::*;
pub use self::limits::*;
pub use self::redact::*;
pub use self::sections::*;
pub use self::sessions::*;
