//! The resolver's fixed rules: pacing, gathering, the sweep threshold, retries; each a
//! constant with its unit, and the one test of a list cut at the pager's limit.

use crate::rest_objects::{MAX_PAGES, PAGE_LIMIT};

/// Least time between two queries of one account, ms (10/s: half Bitget's 20/s/UID quota of
/// each query endpoint, the other half left to reconciliation; reference §7).
pub const QUERY_INTERVAL_MS: u64 = 100;

/// How long an account's worker waits, once a request is due, for others to gather, ms (the
/// requests a link drop or a burst of outcome-unknown replies makes arrive within this).
pub const GATHER_MS: u64 = 10;

/// Requests due at once for one account (after merging those of one order) from which the
/// worker lists the account's orders (a sweep) instead of querying each order.
pub const SWEEP_MIN: usize = 4;

/// Attempts of a query that fails (network, quota, malformed answer) before the order is left
/// unresolved.
pub const MAX_ATTEMPTS: u32 = 10;

/// Backoff unit after a failed query, ms: a failed order query is asked again after
/// `attempts` × this, a failed sweep's requests after this (and one by one from
/// [`MAX_ATTEMPTS`] / 2 failures on).
pub const RETRY_BACKOFF_MS: u64 = 250;

/// Nanoseconds per millisecond.
pub(crate) const NS_PER_MS: u64 = 1_000_000;

/// Whether a list of `n` objects may have been cut at the pager's limit
/// ([`MAX_PAGES`] × [`PAGE_LIMIT`]): it then cannot vouch that an order it leaves out does
/// not exist.
pub fn cut(n: usize) -> bool {
    n >= MAX_PAGES * PAGE_LIMIT
}
