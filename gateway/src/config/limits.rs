//! Bounds the configuration is checked against (below the configuration types).

/// Largest `strategy.max_frame_len` accepted (bytes).
pub const MAX_FRAME_LEN_LIMIT: usize = 1 << 20;
/// Smallest `strategy.max_backlog_bytes` accepted (bytes).
pub const MIN_BACKLOG_BYTES: usize = 64 * 1024;
/// Smallest `strategy.max_frame_len` accepted (bytes).
pub const MIN_FRAME_LEN_LIMIT: usize = 64;
/// Longest session credentials accepted (bytes): the SBE `Text` field is `char[64]`.
pub const MAX_CREDENTIALS_LEN: usize = 64;
/// Largest `account.connections` accepted.
pub const MAX_CONNECTIONS_PER_ACCOUNT: usize = 20;
