//! Why the simulator could not start.

use std::net::SocketAddr;

/// Why the simulator could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Invalid configuration.
    #[error("config: {0}")]
    Config(String),
    /// The listen address could not be bound.
    #[error("bind {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    /// Certificate generation or TLS setup failed.
    #[error("tls: {0}")]
    Tls(String),
}
