//! Why the gateway could not start.

use crate::exchange::error::ExchangeError;

/// Why the gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The exchange could not be reached, refused the login, or sent something unusable.
    #[error("exchange: {0}")]
    Exchange(#[from] ExchangeError),
    /// A local socket or thread could not be set up.
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    /// A session journal could not be opened.
    #[error("{0}")]
    Journal(#[from] crate::journal::JournalError),
    /// The io thread ended before it was ready.
    #[error("io thread stopped during start-up")]
    StartupAborted,
}
