//! Why a configuration was refused (below the configuration types).

use std::path::PathBuf;

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not match the schema (unknown key, wrong type).
    #[error("invalid TOML: {0}")]
    Parse(#[from] toml::de::Error),
    /// A field has a value outside its allowed range.
    #[error("invalid {field}: {reason}")]
    Invalid {
        /// Dotted field name, e.g. `exchange.ping_interval_ms`.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// An exchange credential is empty in the file and in the environment.
    #[error("missing {0} (set it in the file or in the environment)")]
    MissingCredential(&'static str),
    /// No `[[session]]` entry.
    #[error("no [[session]] configured")]
    NoSessions,
    /// Two `[[session]]` entries share a `session_id`.
    #[error("duplicate session_id {0}")]
    DuplicateSession(u64),
    /// A `[[session]]` names an account no `[[account]]` defines.
    #[error("session {session_id}: unknown account {account:?}")]
    UnknownAccount {
        /// The session.
        session_id: u64,
        /// The name given.
        account: String,
    },
    /// Two `[[account]]` entries share a name.
    #[error("duplicate account name {0:?}")]
    DuplicateAccount(String),
    /// An `[[account]]` lacks a credential in the file and in the environment.
    #[error("account {account:?}: missing {field} (set it in the file or in {env_var})")]
    MissingAccountCredential {
        /// The account name.
        account: String,
        /// `api_key`, `secret` or `passphrase`.
        field: &'static str,
        /// The environment variable that would provide it.
        env_var: String,
    },
}

pub(super) fn invalid(field: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field,
        reason: reason.into(),
    }
}
